/* The mcts bot's tree search as a Python type (the search itself is search.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"
#include "search.h"

/* -- Search ------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    Search t;
    int started;
} SearchObject;

static void search_dealloc(SearchObject *self) {
    if (self->started) search_free(&self->t);
    PyObject_Free(self);
}

/* Search(state, seat, root_moves, exploration, widening, playout, seed[, root_width, widen_root]): the
 * tree of the mcts bot over a state as `seat` sees it (its own racks known, the rest drawn per
 * iteration); the root considers its first root_width moves (all by default), more as it widens. */
static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *state, *moves, *policy;
    int seat;
    double exploration, widening;
    PyObject *seed_arg;
    unsigned long long seed;
    int base = -1;
    long widen_root = 0;
    if (!PyArg_ParseTuple(args, "O!iOddOO|il:Search", &StateType, &state, &seat, &moves, &exploration, &widening,
                          &policy, &seed_arg, &base, &widen_root) ||
        to_u64(seed_arg, &seed, "the search seed") < 0)
        return NULL;
    if ((base < 1 && base != -1) || widen_root < 0) {
        PyErr_SetString(PyExc_ValueError, "the root width is at least 1 and widen_root not negative");
        return NULL;
    }
    StateObject *st = (StateObject *)state;
    int greedy = read_policy(policy);
    if (greedy < 0) return NULL;
    if (seat < 0 || seat >= st->rules.players || st->core.over || st->core.to_move != seat) {
        PyErr_SetString(PyExc_ValueError, "the search starts on the seat's own turn of a game going on");
        return NULL;
    }
    if (!(exploration >= 0) || !(widening >= 0)) {
        PyErr_SetString(PyExc_ValueError, "exploration and widening must not be negative");
        return NULL;
    }
    PyObject *fast = seq_tuple(moves, "the root moves are a sequence of Moves");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int *codes = n ? PyMem_Malloc((size_t)n * sizeof(int)) : NULL;
    int ok = n > 0 && codes != NULL;
    if (!ok) PyErr_SetString(PyExc_ValueError, "the search needs at least one root move");
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *m = PySequence_Fast_GET_ITEM(fast, i);
        long v[3];
        ok = PyTuple_Check(m) && PyTuple_GET_SIZE(m) == 3;
        for (int k = 0; ok && k < 3; k++) ok = to_small(PyTuple_GET_ITEM(m, k), 0, 127, &v[k], "a move field") == 0;
        ok = ok && !core_illegal(&st->rules, &st->core, (int)v[0], (int)v[1], (int)v[2]);
        if (!ok && !PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "root move %R is not legal", m);
        if (ok) codes[i] = CODE(v[0], v[1], v[2]);
    }
    Py_DECREF(fast);
    SearchObject *self = ok ? PyObject_New(SearchObject, type) : NULL;
    if (!self) {
        PyMem_Free(codes);
        return NULL;
    }
    self->started = 0;
    Search *t = &self->t;
    t->rules = st->rules;
    t->base = st->core;
    t->exploration = exploration;
    t->widening = widening;
    t->root_base = t->root_width = base == -1 || base > n ? (int)n : base;
    t->widen_root = widen_root;
    t->greedy = greedy;
    t->rng = seed;
    for (int c = 0; c < N_COLORS; c++) {
        t->own[c] = st->rules.seat_of[c] == seat;
        t->rack_size[c] = st->core.rack_len[c];
        unsigned played = 0;
        for (int k = 0; k < st->core.played[c]; k++) played |= 1u << st->core.played_tiles[c][k];
        t->n_unplayed[c] = 0;
        for (int tile = 0; tile < N_TILES; tile++)
            if (!(played >> tile & 1)) t->unplayed[c][t->n_unplayed[c]++] = (uint8_t)tile;
    }
    ok = search_start(t, codes, (int)n) == 0;
    PyMem_Free(codes);
    self->started = 1;
    if (!ok) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static PyObject *search_run_py(SearchObject *self, PyObject *arg) {
    long n;
    if (to_small(arg, 0, 1L << 30, &n, "iterations") < 0) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = search_run(&self->t, n);
    Py_END_ALLOW_THREADS if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *search_stats(SearchObject *self, PyObject *unused) {
    Node *root = &self->t.nodes[0];
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int id = root->first; id >= 0; id = self->t.nodes[id].next) {
        Node *n = &self->t.nodes[id];
        PyObject *item = Py_BuildValue("(id)", n->visits, n->reward);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyObject *search_done(SearchObject *self, void *c_) { return PyLong_FromLong(self->t.done); }
static PyObject *search_nodes(SearchObject *self, void *c_) { return PyLong_FromLong(self->t.n_nodes); }

static PyMethodDef search_methods[] = {
    {"run", (PyCFunction)search_run_py, METH_O, "Run n more iterations."},
    {"stats", (PyCFunction)search_stats, METH_NOARGS, "(visits, reward) of every root move, in their order."},
    {NULL}};

static PyGetSetDef search_getset[] = {
    {"done", (getter)search_done, NULL, "Iterations run so far.", NULL},
    {"nodes", (getter)search_nodes, NULL, "Nodes in the tree, the root included.", NULL},
    {NULL}};

PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_dealloc = (destructor)search_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The mcts bot's information-set tree search in C.",
    .tp_methods = search_methods,
    .tp_getset = search_getset,
    .tp_new = search_new,
};
