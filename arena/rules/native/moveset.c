/* The native MoveSet: the legal moves of one turn, as the pure arena.rules.state.MoveSet. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"

/* -- MoveSet ----------------------------------------------------------------------------- */

PyObject *new_move(int color, int tile, int cell) {
    PyObject *move = ((PyTypeObject *)MoveType)->tp_alloc((PyTypeObject *)MoveType, 3);
    if (!move) return NULL;
    PyTuple_SET_ITEM(move, 0, PyLong_FromLong(color));
    PyTuple_SET_ITEM(move, 1, PyLong_FromLong(tile));
    PyTuple_SET_ITEM(move, 2, PyLong_FromLong(cell));
    return move;
}

MoveSetObject *moveset_of(const Moves *m) {
    MoveSetObject *ms = PyObject_New(MoveSetObject, &MoveSetType);
    if (!ms) return NULL;
    ms->m = *m;
    ms->options = NULL;
    return ms;
}

static void moveset_dealloc(MoveSetObject *self) {
    Py_XDECREF(self->options);
    PyObject_Free(self);
}

static PyObject *moveset_options(MoveSetObject *self, void *closure) {
    if (!self->options) {
        PyObject *t = PyTuple_New(self->m.n);
        if (!t) return NULL;
        for (int i = 0; i < self->m.n; i++) {
            Option *o = &self->m.opt[i];
            PyObject *cells = from_u128(o->cells);
            PyObject *item = cells ? Py_BuildValue("(iiN)", o->color, o->tile, cells) : NULL;
            if (!item) {
                Py_DECREF(t);
                return NULL;
            }
            PyTuple_SET_ITEM(t, i, item);
        }
        self->options = t;
    }
    Py_INCREF(self->options);
    return self->options;
}

static PyObject *moveset_open_mask(MoveSetObject *self, void *closure) {
    if (!self->m.has_open) Py_RETURN_NONE;
    return from_u128(self->m.open);
}

static Py_ssize_t moveset_len(MoveSetObject *self) { return self->m.count; }
static int moveset_bool(MoveSetObject *self) { return self->m.n > 0; }

static PyObject *move_at(const Moves *m, int index) {
    for (int i = 0; i < m->n; i++) {
        int n = popcount(m->opt[i].cells);
        if (index < n) return new_move(m->opt[i].color, m->opt[i].tile, nth_cell(m->opt[i].cells, index));
        index -= n;
    }
    PyErr_SetString(PyExc_IndexError, "move index out of range");
    return NULL;
}

static PyObject *moveset_item(MoveSetObject *self, Py_ssize_t index) {
    if (index < 0 || index >= self->m.count) {
        PyErr_SetString(PyExc_IndexError, "move index out of range");
        return NULL;
    }
    return move_at(&self->m, (int)index);
}

static PyObject *moveset_iter(MoveSetObject *self) {
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (int i = 0; i < self->m.n; i++) {
        Option *o = &self->m.opt[i];
        for (u128 cells = o->cells; cells; cells &= cells - 1) {
            PyObject *move = new_move(o->color, o->tile, lowest_cell(cells));
            if (!move || PyList_Append(list, move) < 0) {
                Py_XDECREF(move);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(move);
        }
    }
    PyObject *it = PyObject_GetIter(list);
    Py_DECREF(list);
    return it;
}

/* state.legal_in: a Move itself (no subclass) of plain ints that is one of the moves. */
static int moveset_contains(MoveSetObject *self, PyObject *value) {
    if ((PyObject *)Py_TYPE(value) != MoveType || PyTuple_GET_SIZE(value) != 3) return 0;
    PyObject *c = PyTuple_GET_ITEM(value, 0), *t = PyTuple_GET_ITEM(value, 1), *x = PyTuple_GET_ITEM(value, 2);
    if (!PyLong_CheckExact(c) || !PyLong_CheckExact(t) || !PyLong_CheckExact(x)) return 0;
    int o1, o2, o3;
    long color = PyLong_AsLongAndOverflow(c, &o1), tile = PyLong_AsLongAndOverflow(t, &o2),
         cell = PyLong_AsLongAndOverflow(x, &o3);
    if (o1 || o2 || o3 || cell < 0 || cell >= N_CELLS) return 0;
    for (int i = 0; i < self->m.n; i++)
        if (self->m.opt[i].tile == tile && self->m.opt[i].color == color) return (int)(self->m.opt[i].cells >> cell & 1);
    return 0;
}

/* rng.randrange(n) for 0 < n, drawn the way random.Random draws it when that is known. */
static long rand_below(PyObject *rng, long n) {
    if (fast_randbelow && (PyObject *)Py_TYPE(rng) == RandomType) {
        int k = 0;
        for (long x = n; x; x >>= 1) k++;
        PyObject *bits = PyLong_FromLong(k);
        for (;;) {
            PyObject *args[2] = {rng, bits};
            PyObject *r = PyObject_VectorcallMethod(str_getrandbits, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
            if (!r) {
                Py_DECREF(bits);
                return -1;
            }
            long v = PyLong_AsLong(r);
            Py_DECREF(r);
            if (v < n) {
                Py_DECREF(bits);
                return v;
            }
        }
    }
    PyObject *count = PyLong_FromLong(n);
    if (!count) return -1;
    PyObject *args[2] = {rng, count};
    PyObject *r = PyObject_VectorcallMethod(str_randrange, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(count);
    if (!r) return -1;
    long v = PyLong_Check(r) ? PyLong_AsLong(r) : -1;
    Py_DECREF(r);
    if (v < 0 || v >= n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rng.randrange(n) gave a number not below n");
        return -1;
    }
    return v;
}

static PyObject *moveset_choice(MoveSetObject *self, PyObject *rng) {
    if (!self->m.count) {
        Py_INCREF(PassMove);
        return PassMove;
    }
    long index = rand_below(rng, self->m.count);
    if (index < 0) return NULL;
    return move_at(&self->m, (int)index);
}

static PyObject *moveset_targets(MoveSetObject *self, PyObject *const *args, Py_ssize_t nargs) {
    long color, tile;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "targets_mask(color, tile)");
        return NULL;
    }
    if (to_small(args[0], -1000, 1000, &color, "color") < 0 || to_small(args[1], -1000, 1000, &tile, "tile") < 0)
        return NULL;
    for (int i = 0; i < self->m.n; i++)
        if (self->m.opt[i].color == color && self->m.opt[i].tile == tile) return from_u128(self->m.opt[i].cells);
    return PyLong_FromLong(0);
}

static PyObject *moveset_copy(MoveSetObject *self, PyObject *unused) { return (PyObject *)moveset_of(&self->m); }

/* Equal to a MoveSet holding the same moves: the same options in the same order (the pure one's __eq__). */
static PyObject *moveset_richcompare(MoveSetObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(other, &MoveSetType)) Py_RETURN_NOTIMPLEMENTED;
    const Moves *a = &self->m, *b = &((MoveSetObject *)other)->m;
    int same = a->n == b->n;
    for (int i = 0; same && i < a->n; i++)
        same = a->opt[i].color == b->opt[i].color && a->opt[i].tile == b->opt[i].tile &&
               a->opt[i].cells == b->opt[i].cells;
    return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static PyObject *moveset_repr(MoveSetObject *self) {
    return PyUnicode_FromFormat("<MoveSet of %d moves>", self->m.count);
}

static PyObject *moveset_reduce(MoveSetObject *self, PyObject *unused) {
    PyObject *options = moveset_options(self, NULL);
    PyObject *open = options ? moveset_open_mask(self, NULL) : NULL;
    if (!open) {
        Py_XDECREF(options);
        return NULL;
    }
    PyObject *mod = PyImport_ImportModule("arena.rules.engine");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "_moveset") : NULL;
    Py_XDECREF(mod);
    if (!fn) {
        Py_DECREF(options);
        Py_DECREF(open);
        return NULL;
    }
    return Py_BuildValue("(N(NN))", fn, options, open);
}

/* MoveSet(options, open_mask): rebuilt from its options (pickling, tests). */
static PyObject *moveset_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *options, *open = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:MoveSet", &options, &open)) return NULL;
    Moves m;
    memset(&m, 0, sizeof m);
    PyObject *fast = seq_tuple(options, "options must be a sequence of (color, tile, cells)");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_OPTIONS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "a MoveSet holds at most 10 options");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        long color, tile;
        u128 cells;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3 ||
            to_small(PyTuple_GET_ITEM(item, 0), 0, N_COLORS - 1, &color, "a color") < 0 ||
            to_small(PyTuple_GET_ITEM(item, 1), 0, N_TILES - 1, &tile, "a tile") < 0 ||
            to_board(PyTuple_GET_ITEM(item, 2), &cells, "cells") < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "an option is (color, tile, cells)");
            Py_DECREF(fast);
            return NULL;
        }
        m.opt[i].color = (int)color;
        m.opt[i].tile = (int)tile;
        m.opt[i].cells = cells;
        m.count += popcount(cells);
    }
    m.n = (int)n;
    Py_DECREF(fast);
    if (open != Py_None) {
        if (to_board(open, &m.open, "open_mask") < 0) return NULL;
        m.has_open = 1;
    }
    return (PyObject *)moveset_of(&m);
}

static PyMethodDef moveset_methods[] = {
    {"choice", (PyCFunction)moveset_choice, METH_O, "A legal move drawn uniformly with rng; PASS when there is none."},
    {"targets_mask", (PyCFunction)(void (*)(void))moveset_targets, METH_FASTCALL,
     "The legal cells of a tile of a color (a bitboard)."},
    {"copy", (PyCFunction)moveset_copy, METH_NOARGS, "A MoveSet of its own over the same moves."},
    {"_action_ids", (PyCFunction)moveset_action_ids, METH_NOARGS, NULL},
    {"_action_mask_into", (PyCFunction)moveset_action_mask_into, METH_O, NULL},
    {"__reduce__", (PyCFunction)moveset_reduce, METH_NOARGS, NULL},
    {NULL}};

static PyGetSetDef moveset_getset[] = {
    {"options", (getter)moveset_options, NULL, "(color, tile, cells) for every rack tile with a legal cell.", NULL},
    {"open_mask", (getter)moveset_open_mask, NULL, "The cells open to the seat (a bitboard), or None.", NULL},
    {NULL}};

static PySequenceMethods moveset_as_sequence = {
    .sq_length = (lenfunc)moveset_len,
    .sq_item = (ssizeargfunc)moveset_item,
    .sq_contains = (objobjproc)moveset_contains,
};

static PyNumberMethods moveset_as_number = {.nb_bool = (inquiry)moveset_bool};

PyTypeObject MoveSetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.MoveSet",
    .tp_basicsize = sizeof(MoveSetObject),
    .tp_dealloc = (destructor)moveset_dealloc,
    .tp_repr = (reprfunc)moveset_repr,
    .tp_as_sequence = &moveset_as_sequence,
    .tp_as_number = &moveset_as_number,
    .tp_iter = (getiterfunc)moveset_iter,
    .tp_richcompare = (richcmpfunc)moveset_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The legal moves of one turn (the native arena.rules.MoveSet).",
    .tp_methods = moveset_methods,
    .tp_getset = moveset_getset,
    .tp_new = moveset_new,
};
