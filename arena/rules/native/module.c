/* arena.rules._native: the C rules engine as Python types (State, MoveSet, Search).
 *
 * arena/rules/native.py builds the public GameState on State; everything a caller
 * hands in is checked here before the C core sees it, so no input crashes the
 * interpreter: a wrong value is a TypeError or ValueError, an illegal move the
 * reference engine's IllegalMove. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "search.h"

/* Bound by arena/rules/native.py: the Move class, PASS, random.Random and whether
 * Random.randrange(n) is getrandbits rejection (so choice() may draw that way itself). */
static PyObject *MoveType, *PassMove, *RandomType;
static int fast_randbelow;
static PyObject *str_getrandbits, *str_randrange, *str_check, *str_state, *str_seat_colors, *str_scoring,
    *str_penalty;

/* -- sequences ---------------------------------------------------------------------------- */

/* A sequence as a tuple of its own: a list is copied, so no code a caller hands in (an int
 * subclass's comparison, an iterator) can shrink it while its items are read in place. */
static PyObject *seq_tuple(PyObject *o, const char *message) {
    if (PyTuple_CheckExact(o)) return Py_NewRef(o);
    PyObject *t = PySequence_Tuple(o);
    if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) PyErr_SetString(PyExc_TypeError, message);
    return t;
}

/* -- ints -------------------------------------------------------------------------------- */

static PyObject *from_u128(u128 x) {
    if (!(x >> 64)) return PyLong_FromUnsignedLongLong((unsigned long long)x);
    unsigned char buf[16];
    for (int i = 0; i < 16; i++) buf[i] = (unsigned char)(x >> (8 * i));
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, 16, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, 16, 1, 0);
#endif
}

/* A bitboard: an int from 0 to 2**81 - 1; -1 with ValueError/TypeError naming `what` otherwise. */
static int to_board(PyObject *v, u128 *out, const char *what) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    /* An exact int (an int subclass is copied, none of its code runs) compared with 0. */
    PyObject *exact = PyNumber_Index(v);
    if (!exact) return -1;
    int negative = _PyLong_Sign(exact) < 0;
    unsigned char buf[16];
    int bad = negative;
    if (!bad) {
#if PY_VERSION_HEX >= 0x030D0000
        Py_ssize_t n = PyLong_AsNativeBytes(exact, buf, 16, Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                                             Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                                             Py_ASNATIVEBYTES_REJECT_NEGATIVE);
        if (n < 0) {
            Py_DECREF(exact);
            return -1;
        }
        bad = n > 16;
#else
        if (_PyLong_AsByteArray((PyLongObject *)exact, buf, 16, 1, 0) < 0) {
            PyErr_Clear();
            bad = 1;
        }
#endif
    }
    Py_DECREF(exact);
    u128 x = 0;
    if (!bad)
        for (int i = 15; i >= 0; i--) x = (x << 8) | buf[i];
    if (bad || (x & ~FULL)) {
        PyErr_Format(PyExc_ValueError, "%s must be an 81-cell bitboard, an int from 0 to 2**81 - 1", what);
        return -1;
    }
    *out = x;
    return 0;
}

/* An int in [lo, hi]; -1 with an error naming `what` otherwise. */
static int to_small(PyObject *v, long lo, long hi, long *out, const char *what) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    int overflow = 0;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be from %ld to %ld", what, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* A 64-bit generator state or seed: an int from 0 to 2**64 - 1 (a negative one is not taken modulo 2**64). */
static int to_u64(PyObject *v, unsigned long long *out, const char *what) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s must be from 0 to 2**64 - 1", what);
        return -1;
    }
    *out = x;
    return 0;
}

static const char *COLOR_NAMES[N_COLORS] = {"red", "blue", "green", "yellow", "purple"};

/* -- settings ---------------------------------------------------------------------------- */

/* The Rules of a GameSettings (checked again: anything with the attributes may come in). */
static int read_rules(PyObject *settings, Rules *r) {
    static PyObject *last;
    static Rules last_rules;
    if (settings == last) {
        *r = last_rules;
        return 0;
    }
    memset(r, 0, sizeof *r);
    for (int c = 0; c < N_COLORS; c++) r->seat_of[c] = -1;
    PyObject *seats = PyObject_GetAttr(settings, str_seat_colors);
    if (!seats) return -1;
    PyObject *fast = seq_tuple(seats, "seat_colors must be one tuple of color numbers per seat");
    Py_DECREF(seats);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int ok = n >= 2 && n <= 5;
    if (!ok) PyErr_Format(PyExc_ValueError, "Uptown is played by 2 to 5 players, not %zd", n);
    r->players = (int)n;
    for (Py_ssize_t seat = 0; ok && seat < n; seat++) {
        PyObject *own = seq_tuple(PySequence_Fast_GET_ITEM(fast, seat), "seat_colors must hold tuples");
        if (!own) {
            ok = 0;
            break;
        }
        Py_ssize_t k = PySequence_Fast_GET_SIZE(own);
        if (k != (n == 2 ? 2 : 1)) {
            PyErr_Format(PyExc_ValueError, "with %zd players each seat plays %d color(s); seat %zd has %zd", n,
                         n == 2 ? 2 : 1, seat, k);
            ok = 0;
        }
        for (Py_ssize_t i = 0; ok && i < k; i++) {
            long c;
            if (to_small(PySequence_Fast_GET_ITEM(own, i), 0, N_COLORS - 1, &c, "a color") < 0 ||
                r->seat_of[c] >= 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "every seat needs colors of its own");
                ok = 0;
                break;
            }
            r->seat_of[c] = (int)seat;
            r->seat_colors[seat][i] = (int)c;
            r->colors[r->n_colors++] = (int)c;
        }
        r->n_own[seat] = (int)k;
        Py_DECREF(own);
    }
    Py_DECREF(fast);
    if (!ok) return -1;
    for (int seat = 0; seat < r->players; seat++)
        for (int i = 0; i < r->n_colors; i++)
            if (r->seat_of[r->colors[i]] != seat) r->rivals[seat][r->n_rivals[seat]++] = r->colors[i];
    PyObject *scoring = PyObject_GetAttr(settings, str_scoring);
    PyObject *penalty = scoring ? PyObject_GetAttr(settings, str_penalty) : NULL;
    ok = penalty != NULL;
    if (ok) {
        const char *sc = PyUnicode_Check(scoring) ? PyUnicode_AsUTF8(scoring) : NULL;
        const char *pe = PyUnicode_Check(penalty) ? PyUnicode_AsUTF8(penalty) : NULL;
        PyErr_Clear();
        if (!sc || (strcmp(sc, "uptown") && strcmp(sc, "blockers"))) {
            PyErr_SetString(PyExc_ValueError, "unknown scoring (choose uptown or blockers)");
            ok = 0;
        } else if (!pe || (strcmp(pe, "color") && strcmp(pe, "opponent"))) {
            PyErr_SetString(PyExc_ValueError, "unknown penalty (choose color or opponent)");
            ok = 0;
        } else {
            r->blockers = !strcmp(sc, "blockers");
            r->penalty_opponent = !strcmp(pe, "opponent");
        }
    }
    Py_XDECREF(scoring);
    Py_XDECREF(penalty);
    if (!ok) return -1;
    Py_INCREF(settings);
    Py_XSETREF(last, settings);
    last_rules = *r;
    return 0;
}

/* -- MoveSet ----------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Moves m;
    PyObject *options; /* the options tuple, made when first asked for */
} MoveSetObject;

static PyTypeObject MoveSetType;

static PyObject *new_move(int color, int tile, int cell) {
    PyObject *move = ((PyTypeObject *)MoveType)->tp_alloc((PyTypeObject *)MoveType, 3);
    if (!move) return NULL;
    PyTuple_SET_ITEM(move, 0, PyLong_FromLong(color));
    PyTuple_SET_ITEM(move, 1, PyLong_FromLong(tile));
    PyTuple_SET_ITEM(move, 2, PyLong_FromLong(cell));
    return move;
}

static MoveSetObject *moveset_of(const Moves *m) {
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

static PyObject *moveset_open_cells(MoveSetObject *self, void *closure) {
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
        PyErr_SetString(PyExc_TypeError, "targets(color, tile)");
        return NULL;
    }
    if (to_small(args[0], -1000, 1000, &color, "color") < 0 || to_small(args[1], -1000, 1000, &tile, "tile") < 0)
        return NULL;
    for (int i = 0; i < self->m.n; i++)
        if (self->m.opt[i].color == color && self->m.opt[i].tile == tile) return from_u128(self->m.opt[i].cells);
    return PyLong_FromLong(0);
}

static PyObject *moveset_copy(MoveSetObject *self, PyObject *unused) { return (PyObject *)moveset_of(&self->m); }

static PyObject *moveset_repr(MoveSetObject *self) {
    return PyUnicode_FromFormat("<MoveSet of %d moves>", self->m.count);
}

static PyObject *moveset_reduce(MoveSetObject *self, PyObject *unused) {
    PyObject *options = moveset_options(self, NULL);
    PyObject *open = options ? moveset_open_cells(self, NULL) : NULL;
    if (!open) {
        Py_XDECREF(options);
        return NULL;
    }
    PyObject *mod = PyImport_ImportModule("arena.rules.native");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "_moveset") : NULL;
    Py_XDECREF(mod);
    if (!fn) {
        Py_DECREF(options);
        Py_DECREF(open);
        return NULL;
    }
    return Py_BuildValue("(N(NN))", fn, options, open);
}

/* MoveSet(options, open_cells): rebuilt from its options (pickling, tests). */
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
        if (to_board(open, &m.open, "open_cells") < 0) return NULL;
        m.has_open = 1;
    }
    return (PyObject *)moveset_of(&m);
}

static PyMethodDef moveset_methods[] = {
    {"choice", (PyCFunction)moveset_choice, METH_O, "A legal move drawn uniformly with rng; PASS when there is none."},
    {"targets", (PyCFunction)(void (*)(void))moveset_targets, METH_FASTCALL, "The legal cells of a tile of a color."},
    {"copy", (PyCFunction)moveset_copy, METH_NOARGS, "A MoveSet of its own over the same moves."},
    {"__reduce__", (PyCFunction)moveset_reduce, METH_NOARGS, NULL},
    {NULL}};

static PyGetSetDef moveset_getset[] = {
    {"options", (getter)moveset_options, NULL, "(color, tile, cells) for every rack tile with a legal cell.", NULL},
    {"open_cells", (getter)moveset_open_cells, NULL, "The cells open to the seat, or None.", NULL},
    {NULL}};

static PySequenceMethods moveset_as_sequence = {
    .sq_length = (lenfunc)moveset_len,
    .sq_item = (ssizeargfunc)moveset_item,
    .sq_contains = (objobjproc)moveset_contains,
};

static PyNumberMethods moveset_as_number = {.nb_bool = (inquiry)moveset_bool};

static PyTypeObject MoveSetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.MoveSet",
    .tp_basicsize = sizeof(MoveSetObject),
    .tp_dealloc = (destructor)moveset_dealloc,
    .tp_repr = (reprfunc)moveset_repr,
    .tp_as_sequence = &moveset_as_sequence,
    .tp_as_number = &moveset_as_number,
    .tp_iter = (getiterfunc)moveset_iter,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The legal moves of one turn (the native arena.rules.MoveSet).",
    .tp_methods = moveset_methods,
    .tp_getset = moveset_getset,
    .tp_new = moveset_new,
};

/* -- State ------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Rules rules;
    Core core;
    PyObject *settings;
    PyObject *history; /* list of (Move, captured color) */
    PyObject *deals;   /* tuple of 5 tuples */
} StateObject;

static PyTypeObject StateType;

static int state_traverse(StateObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->settings);
    Py_VISIT(self->history);
    Py_VISIT(self->deals);
    return 0;
}

static int state_clear(StateObject *self) {
    Py_CLEAR(self->settings);
    Py_CLEAR(self->history);
    Py_CLEAR(self->deals);
    return 0;
}

static void state_dealloc(StateObject *self) {
    PyObject_GC_UnTrack(self);
    state_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *tiles_tuple(const uint8_t *tiles, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(tiles[i]));
    return t;
}

static PyObject *deals_tuple(const Rules *r, const Core *s) {
    PyObject *t = PyTuple_New(N_COLORS);
    if (!t) return NULL;
    for (int c = 0; c < N_COLORS; c++) {
        PyObject *d = tiles_tuple(s->deals[c], r->seat_of[c] >= 0 ? N_TILES : 0);
        if (!d) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, c, d);
    }
    return t;
}

/* The deal of every color in play, checked as GameState checks it. */
static int read_deals(const Rules *r, PyObject *deals, uint8_t out[N_COLORS][N_TILES]) {
    if (!PyMapping_Check(deals) || PyMapping_Size(deals) != r->n_colors) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "a deal is needed for exactly the colors in play");
        return -1;
    }
    for (int i = 0; i < r->n_colors; i++) {
        PyObject *key = PyLong_FromLong(r->colors[i]);
        int has = key ? PyMapping_HasKey(deals, key) : 0;
        Py_XDECREF(key);
        if (!has) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "a deal is needed for exactly the colors in play");
            return -1;
        }
    }
    /* The colors in the mapping's own order, as GameState reads deals.items(): the first bad deal
     * named is the same one. */
    int order[N_COLORS], n_order = 0;
    unsigned queued = 0;
    PyObject *keys = PyMapping_Keys(deals);
    if (!keys) PyErr_Clear();
    for (Py_ssize_t i = 0; keys && i < PyList_GET_SIZE(keys); i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        int overflow = 0;
        long c = PyLong_Check(key) ? PyLong_AsLongAndOverflow(key, &overflow) : -1;
        if (!overflow && c >= 0 && c < N_COLORS && r->seat_of[c] >= 0 && !(queued >> c & 1)) {
            queued |= 1u << c;
            order[n_order++] = (int)c;
        }
    }
    Py_XDECREF(keys);
    for (int i = 0; i < r->n_colors; i++)
        if (!(queued >> r->colors[i] & 1)) order[n_order++] = r->colors[i];
    for (int i = 0; i < n_order; i++) {
        int c = order[i];
        PyObject *key = PyLong_FromLong(c);
        PyObject *tiles = key ? PyObject_GetItem(deals, key) : NULL;
        Py_XDECREF(key);
        if (!tiles) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "a deal is needed for exactly the colors in play");
            return -1;
        }
        PyObject *fast = seq_tuple(tiles, "");
        Py_DECREF(tiles);
        int ok = fast && PySequence_Fast_GET_SIZE(fast) == N_TILES;
        unsigned seen = 0;
        for (int k = 0; ok && k < N_TILES; k++) {
            PyObject *t = PySequence_Fast_GET_ITEM(fast, k);
            int overflow = 0;
            long tile = PyLong_Check(t) ? PyLong_AsLongAndOverflow(t, &overflow) : -1;
            ok = !overflow && tile >= 0 && tile < N_TILES && !(seen >> tile & 1);
            if (ok) {
                seen |= 1u << tile;
                out[c][k] = (uint8_t)tile;
            }
        }
        Py_XDECREF(fast);
        if (!ok) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "the deal of %s is not its 28 tiles", COLOR_NAMES[c]);
            return -1;
        }
    }
    return 0;
}

static PyObject *state_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *settings, *deals;
    static char *names[] = {"settings", "deals", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:GameState", names, &settings, &deals)) return NULL;
    Rules r;
    uint8_t tiles[N_COLORS][N_TILES];
    if (read_rules(settings, &r) < 0 || read_deals(&r, deals, tiles) < 0) return NULL;
    StateObject *self = (StateObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->rules = r;
    core_start(&r, &self->core, (const uint8_t(*)[N_TILES])tiles);
    Py_INCREF(settings);
    self->settings = settings;
    self->history = PyList_New(0);
    self->deals = deals_tuple(&r, &self->core);
    if (!self->history || !self->deals) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyObject *state_copy(StateObject *self, PyObject *unused) {
    PyTypeObject *type = Py_TYPE(self);
    StateObject *new = (StateObject *)type->tp_alloc(type, 0);
    if (!new) return NULL;
    new->rules = self->rules;
    new->core = self->core;
    Py_INCREF(self->settings);
    new->settings = self->settings;
    Py_INCREF(self->deals);
    new->deals = self->deals;
    new->history = PyList_GetSlice(self->history, 0, PY_SSIZE_T_MAX);
    if (!new->history) {
        Py_DECREF(new);
        return NULL;
    }
    return (PyObject *)new;
}

static PyObject *state_legal_moves(StateObject *self, PyObject *unused) {
    Moves m;
    core_legal(&self->rules, &self->core, &m);
    return (PyObject *)moveset_of(&m);
}

static int append_history(StateObject *self, PyObject *move, int victim) {
    PyObject *entry = PyTuple_New(2);
    if (!entry) return -1;
    Py_INCREF(move);
    PyTuple_SET_ITEM(entry, 0, move);
    PyTuple_SET_ITEM(entry, 1, PyLong_FromLong(victim));
    int rc = PyList_Append(self->history, entry);
    Py_DECREF(entry);
    return rc;
}

/* Raise the reference engine's IllegalMove for move (GameState.check names the rule). */
static PyObject *refuse(StateObject *self, PyObject *move) {
    PyObject *args[2] = {(PyObject *)self, move};
    PyObject *r = PyObject_VectorcallMethod(str_check, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (r) {
        Py_DECREF(r);
        PyErr_Format(PyExc_AssertionError, "the native engine refused a move that check() allows: %R", move);
    }
    return NULL;
}

static PyObject *state_push_pass(StateObject *self, PyObject *unused) {
    Moves m;
    core_legal(&self->rules, &self->core, &m);
    if (self->core.over || m.count) return refuse(self, PassMove);
    if (append_history(self, PassMove, -1) < 0) return NULL;
    core_pass(&self->rules, &self->core);
    Py_RETURN_NONE;
}

/* One field of a move as GameState.check takes it: a plain int (not a bool or another int subclass). */
static int move_field(PyObject *x, long *out) {
    int overflow = 0;
    if (!PyLong_CheckExact(x)) return -1;
    *out = PyLong_AsLongAndOverflow(x, &overflow);
    return overflow ? -1 : 0;
}

static PyObject *state_push(StateObject *self, PyObject *move) {
    if (!PyTuple_Check(move)) {
        PyErr_Format(PyExc_TypeError, "a move is a Move (color, tile, cell), not %.100s", Py_TYPE(move)->tp_name);
        return NULL;
    }
    /* A tuple subclass is read by iterating it, as GameState.check unpacks it. */
    PyObject *fields = PyTuple_CheckExact(move) || (PyObject *)Py_TYPE(move) == MoveType ? Py_NewRef(move)
                                                                                         : PySequence_Tuple(move);
    if (!fields) return NULL;
    if (PyTuple_GET_SIZE(fields) != 3) {
        Py_DECREF(fields);
        PyErr_Format(PyExc_TypeError, "a move is a Move (color, tile, cell), not %.100s", Py_TYPE(move)->tp_name);
        return NULL;
    }
    long v[3];
    /* The color first: -1 is a pass whatever the tile and cell (check() reads no further). */
    int ok = move_field(PyTuple_GET_ITEM(fields, 0), &v[0]) == 0 && v[0] >= -1;
    int pass = ok && v[0] == -1;
    for (int i = 1; ok && !pass && i < 3; i++) ok = move_field(PyTuple_GET_ITEM(fields, i), &v[i]) == 0;
    Py_DECREF(fields);
    if (!ok) return refuse(self, move);
    if (pass) {
        if (state_push_pass(self, NULL) == NULL) return NULL;
        Py_DECREF(Py_None);
        return PyLong_FromLong(-1);
    }
    if (v[1] < 0 || v[1] >= N_TILES || v[2] < 0 || v[2] >= N_CELLS ||
        core_illegal(&self->rules, &self->core, (int)v[0], (int)v[1], (int)v[2]))
        return refuse(self, move);
    PyObject *kept = move;
    if ((PyObject *)Py_TYPE(move) != MoveType) {
        kept = new_move((int)v[0], (int)v[1], (int)v[2]);
        if (!kept) return NULL;
    } else {
        Py_INCREF(kept);
    }
    int victim = core_push(&self->rules, &self->core, (int)v[0], (int)v[1], (int)v[2]);
    int rc = append_history(self, kept, victim);
    Py_DECREF(kept);
    if (rc < 0) return NULL;
    return PyLong_FromLong(victim);
}

static PyObject *state_removable(StateObject *self, PyObject *arg) {
    long color;
    if (to_small(arg, 0, N_COLORS - 1, &color, "a color") < 0) return NULL;
    return from_u128(core_removable(&self->core, (int)color));
}

static PyObject *state_color_at(StateObject *self, PyObject *arg) {
    long cell;
    if (to_small(arg, 0, N_CELLS - 1, &cell, "a cell") < 0) return NULL;
    return PyLong_FromLong(core_color_at(&self->rules, &self->core, (int)cell));
}

static PyObject *state_can_capture(StateObject *self, PyObject *arg) {
    long cell;
    if (to_small(arg, 0, N_CELLS - 1, &cell, "a cell") < 0) return NULL;
    int color = core_color_at(&self->rules, &self->core, (int)cell);
    if (color < 0) Py_RETURN_FALSE;
    const Core *s = &self->core;
    int free = s->free_of[color] == s->boards[color] ? (int)(s->free[color] >> cell & 1)
                                                      : removable_at(s->boards[color], (int)cell);
    return PyBool_FromLong(free);
}

static PyObject *ints_tuple(const int *v, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(v[i]));
    return t;
}

static PyObject *state_keys(StateObject *self, PyObject *unused) {
    int groups[N_COLORS], totals[N_COLORS], penalties[N_COLORS];
    core_keys(&self->rules, &self->core, groups, totals, penalties);
    int n = self->rules.players;
    return Py_BuildValue("(NNN)", ints_tuple(groups, n), ints_tuple(totals, n), ints_tuple(penalties, n));
}

/* The generator's state from a SplitMix64 object (arena/rules/rng.py), and back. */
static int rng_get(PyObject *rng, uint64_t *out) {
    PyObject *v = PyObject_GetAttr(rng, str_state);
    if (!v) return -1;
    if (!PyLong_Check(v)) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_TypeError, "rng must be an arena.rules.SplitMix64");
        return -1;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "a SplitMix64 state is from 0 to 2**64 - 1");
        return -1;
    }
    *out = x;
    return 0;
}

static int rng_set(PyObject *rng, uint64_t x) {
    PyObject *v = PyLong_FromUnsignedLongLong(x);
    if (!v) return -1;
    int rc = PyObject_SetAttr(rng, str_state, v);
    Py_DECREF(v);
    return rc;
}

static int read_policy(PyObject *policy) {
    const char *name = policy && PyUnicode_Check(policy) ? PyUnicode_AsUTF8(policy) : NULL;
    if (name && !strcmp(name, "random")) return 0;
    if (name && !strcmp(name, "greedy")) return 1;
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "the playout policy is random or greedy");
    return -1;
}

static PyObject *state_playout(StateObject *self, PyObject *args, PyObject *kwds) {
    PyObject *rng, *policy = NULL;
    static char *names[] = {"rng", "policy", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:playout", names, &rng, &policy)) return NULL;
    int greedy = policy ? read_policy(policy) : 0;
    uint64_t seed;
    if (greedy < 0 || rng_get(rng, &seed) < 0) return NULL;
    Core s = self->core;
    core_playout(&self->rules, &s, greedy, &seed);
    if (rng_set(rng, seed) < 0) return NULL;
    int groups[N_COLORS], totals[N_COLORS], penalties[N_COLORS];
    core_keys(&self->rules, &s, groups, totals, penalties);
    PyObject *out = PyTuple_New(self->rules.players);
    if (!out) return NULL;
    for (int seat = 0; seat < self->rules.players; seat++)
        PyTuple_SET_ITEM(out, seat, Py_BuildValue("(iii)", groups[seat], totals[seat], penalties[seat]));
    return out;
}

/* A color-indexed sequence of ints (shorter is padded with 0). */
static int read_per_color(PyObject *seq, long *out, long lo, long hi, const char *what) {
    PyObject *fast = seq_tuple(seq, "");
    if (!fast) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence indexed by color", what);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int ok = n <= N_COLORS;
    if (!ok) PyErr_Format(PyExc_ValueError, "%s has more than 5 colors", what);
    for (int c = 0; c < N_COLORS; c++) out[c] = 0;
    for (Py_ssize_t c = 0; ok && c < n; c++)
        ok = to_small(PySequence_Fast_GET_ITEM(fast, c), lo, hi, &out[c], what) == 0;
    Py_DECREF(fast);
    return ok ? 0 : -1;
}

/* _set(drawn, racks, boards, captures, to_move, passes, history, over, played_tiles): the parts of
 * GameState.restore, each color-indexed; checked so that the core can play on from them. */
static PyObject *state_set(StateObject *self, PyObject *args) {
    PyObject *drawn, *racks, *boards, *captures, *history, *played_tiles, *to_move_arg, *passes_arg;
    long to_move, passes;
    int over;
    if (!PyArg_ParseTuple(args, "OOOOOOOpO:_set", &drawn, &racks, &boards, &captures, &to_move_arg, &passes_arg,
                          &history, &over, &played_tiles))
        return NULL;
    const Rules *r = &self->rules;
    if (to_small(to_move_arg, 0, r->players - 1, &to_move, "to_move (a seat)") < 0 ||
        to_small(passes_arg, 0, 1000, &passes, "passes") < 0)
        return NULL;
    Core s = self->core;
    long d[N_COLORS];
    if (read_per_color(drawn, d, 0, N_TILES, "drawn") < 0) return NULL;
    PyObject *rk = seq_tuple(racks, "racks must be a sequence indexed by color");
    PyObject *pt = rk ? seq_tuple(played_tiles, "played_tiles must be a sequence indexed by color") : NULL;
    PyObject *bd = pt ? seq_tuple(boards, "boards must be a sequence indexed by color") : NULL;
    int ok = bd && PySequence_Fast_GET_SIZE(rk) == N_COLORS && PySequence_Fast_GET_SIZE(pt) == N_COLORS &&
             PySequence_Fast_GET_SIZE(bd) <= N_COLORS;
    if (bd && !ok) PyErr_SetString(PyExc_ValueError, "racks, played tiles and boards go by color (5 at most)");
    s.occupied = 0;
    for (int c = 0; ok && c < N_COLORS; c++) {
        int in_play = r->seat_of[c] >= 0;
        s.boards[c] = 0;
        s.free_of[c] = NO_BOARD;
        if (c < PySequence_Fast_GET_SIZE(bd) && to_board(PySequence_Fast_GET_ITEM(bd, c), &s.boards[c], "a board") < 0) {
            ok = 0;
            break;
        }
        if (s.boards[c] & s.occupied) {
            PyErr_SetString(PyExc_ValueError, "two boards hold a tile on the same cell");
            ok = 0;
            break;
        }
        s.occupied |= s.boards[c];
        PyObject *rack = seq_tuple(PySequence_Fast_GET_ITEM(rk, c), "a rack is a sequence of tiles");
        PyObject *tiles = rack ? seq_tuple(PySequence_Fast_GET_ITEM(pt, c), "played tiles are a sequence") : NULL;
        ok = tiles != NULL;
        Py_ssize_t n_rack = ok ? PySequence_Fast_GET_SIZE(rack) : 0, n_played = ok ? PySequence_Fast_GET_SIZE(tiles) : 0;
        if (ok && !in_play && (n_rack || n_played || d[c] || s.boards[c])) {
            PyErr_Format(PyExc_ValueError, "%s is not in play: it has no rack, tiles or board", COLOR_NAMES[c]);
            ok = 0;
        }
        if (ok && in_play && (n_rack > RACK_SIZE || n_played != d[c] - n_rack || n_played > N_TILES)) {
            PyErr_Format(PyExc_ValueError, "%s: a rack of at most 5 tiles, and drawn = played + rack", COLOR_NAMES[c]);
            ok = 0;
        }
        for (Py_ssize_t k = 0; ok && k < n_rack; k++) {
            long t;
            ok = to_small(PySequence_Fast_GET_ITEM(rack, k), 0, N_TILES - 1, &t, "a tile") == 0;
            if (ok) s.rack[c][k] = (uint8_t)t;
        }
        for (Py_ssize_t k = 0; ok && k < n_played; k++) {
            long t;
            ok = to_small(PySequence_Fast_GET_ITEM(tiles, k), 0, N_TILES - 1, &t, "a tile") == 0;
            if (ok) s.played_tiles[c][k] = (uint8_t)t;
        }
        s.rack_len[c] = (uint8_t)n_rack;
        s.played[c] = (uint8_t)n_played;
        s.drawn[c] = (uint8_t)d[c];
        Py_XDECREF(rack);
        Py_XDECREF(tiles);
    }
    Py_XDECREF(rk);
    Py_XDECREF(pt);
    Py_XDECREF(bd);
    if (!ok) return NULL;
    PyObject *rows = seq_tuple(captures, "captures must be a sequence of rows, one per seat");
    if (!rows) return NULL;
    ok = PySequence_Fast_GET_SIZE(rows) == r->players;
    if (!ok) PyErr_SetString(PyExc_ValueError, "captures need one row per seat");
    for (int seat = 0; ok && seat < r->players; seat++) {
        long row[N_COLORS];
        ok = read_per_color(PySequence_Fast_GET_ITEM(rows, seat), row, 0, 10000, "a capture count") == 0;
        for (int c = 0; ok && c < N_COLORS; c++) s.captures[seat][c] = (uint16_t)row[c];
    }
    Py_DECREF(rows);
    if (!ok) return NULL;
    if (to_move < 0 || to_move >= r->players || passes < 0 || passes > 1000) {
        PyErr_SetString(PyExc_ValueError, "to_move must be a seat and passes a count from 0 to 1000");
        return NULL;
    }
    if (!PyList_Check(history)) {
        PyErr_SetString(PyExc_TypeError, "history must be a list");
        return NULL;
    }
    s.to_move = (int)to_move;
    s.passes = (int)passes;
    s.over = over;
    self->core = s;
    Py_INCREF(history);
    Py_SETREF(self->history, history);
    Py_RETURN_NONE;
}

#define TUPLE_BY_COLOR(expr)                                          \
    PyObject *t = PyTuple_New(N_COLORS);                              \
    if (!t) return NULL;                                              \
    for (int c = 0; c < N_COLORS; c++) {                              \
        PyObject *item = (expr);                                      \
        if (!item) {                                                  \
            Py_DECREF(t);                                             \
            return NULL;                                              \
        }                                                             \
        PyTuple_SET_ITEM(t, c, item);                                 \
    }                                                                 \
    return t;

static PyObject *get_boards(StateObject *self, void *c_) { TUPLE_BY_COLOR(from_u128(self->core.boards[c])) }
static PyObject *get_drawn(StateObject *self, void *c_) { TUPLE_BY_COLOR(PyLong_FromLong(self->core.drawn[c])) }
static PyObject *get_played(StateObject *self, void *c_) { TUPLE_BY_COLOR(PyLong_FromLong(self->core.played[c])) }
static PyObject *get_racks(StateObject *self, void *c_) {
    TUPLE_BY_COLOR(tiles_tuple(self->core.rack[c], self->core.rack_len[c]))
}
static PyObject *get_played_tiles(StateObject *self, void *c_) {
    TUPLE_BY_COLOR(tiles_tuple(self->core.played_tiles[c], self->core.played[c]))
}
static PyObject *get_free_of(StateObject *self, void *c_) {
    TUPLE_BY_COLOR(self->core.free_of[c] == NO_BOARD ? PyLong_FromLong(-1) : from_u128(self->core.free_of[c]))
}
static PyObject *get_free(StateObject *self, void *c_) { TUPLE_BY_COLOR(from_u128(self->core.free[c])) }

static PyObject *get_captures(StateObject *self, void *c_) {
    int n = self->rules.players;
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int seat = 0; seat < n; seat++) {
        int row[N_COLORS];
        for (int c = 0; c < N_COLORS; c++) row[c] = self->core.captures[seat][c];
        PyObject *item = ints_tuple(row, N_COLORS);
        if (!item) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, seat, item);
    }
    return t;
}

static PyObject *get_occupied(StateObject *self, void *c_) { return from_u128(self->core.occupied); }
static PyObject *get_to_move(StateObject *self, void *c_) { return PyLong_FromLong(self->core.to_move); }
static PyObject *get_passes(StateObject *self, void *c_) { return PyLong_FromLong(self->core.passes); }
static PyObject *get_over(StateObject *self, void *c_) { return PyBool_FromLong(self->core.over); }
static PyObject *get_settings(StateObject *self, void *c_) { return Py_NewRef(self->settings); }
static PyObject *get_deals(StateObject *self, void *c_) { return Py_NewRef(self->deals); }
static PyObject *get_history(StateObject *self, void *c_) { return Py_NewRef(self->history); }

static PyGetSetDef state_getset[] = {
    {"settings", (getter)get_settings, NULL, "The game's GameSettings.", NULL},
    {"deals", (getter)get_deals, NULL, "deals[color]: the 28 tiles of color in draw order.", NULL},
    {"drawn", (getter)get_drawn, NULL, "drawn[color]: tiles taken from the pile so far.", NULL},
    {"racks", (getter)get_racks, NULL, "racks[color]: the tiles on the rack, oldest first.", NULL},
    {"boards", (getter)get_boards, NULL, "One bitboard per color.", NULL},
    {"occupied", (getter)get_occupied, NULL, "The union of the boards.", NULL},
    {"played", (getter)get_played, NULL, "played[color]: tiles placed so far (E1).", NULL},
    {"played_tiles", (getter)get_played_tiles, NULL, "The tiles each color placed, in order.", NULL},
    {"captures", (getter)get_captures, NULL, "captures[seat][color].", NULL},
    {"to_move", (getter)get_to_move, NULL, "The seat to move.", NULL},
    {"passes", (getter)get_passes, NULL, "Passes in a row since the last placement (M6).", NULL},
    {"history", (getter)get_history, NULL, "Every turn so far: the move and the color it captured.", NULL},
    {"over", (getter)get_over, NULL, "Whether the game has ended.", NULL},
    {"_free_of", (getter)get_free_of, NULL, NULL, NULL},
    {"_free", (getter)get_free, NULL, NULL, NULL},
    {NULL}};

static PyMethodDef state_methods[] = {
    {"legal_moves", (PyCFunction)state_legal_moves, METH_NOARGS, "Every legal move of the seat to move."},
    {"push", (PyCFunction)state_push, METH_O, "Play a legal move (IllegalMove otherwise); the color captured."},
    {"push_pass", (PyCFunction)state_push_pass, METH_NOARGS, "M6: pass (IllegalMove when a move is legal)."},
    {"copy", (PyCFunction)state_copy, METH_NOARGS, "An independent copy."},
    {"color_at", (PyCFunction)state_color_at, METH_O, "The color on a cell, or -1."},
    {"can_capture", (PyCFunction)state_can_capture, METH_O, "M3: whether the tile on a cell may be captured."},
    {"_removable", (PyCFunction)state_removable, METH_O, NULL},
    {"_keys", (PyCFunction)state_keys, METH_NOARGS, NULL},
    {"_set", (PyCFunction)state_set, METH_VARARGS, NULL},
    {"playout", (PyCFunction)(void (*)(void))state_playout, METH_VARARGS | METH_KEYWORDS,
     "Play a copy to the end with a policy and a SplitMix64; per seat (groups, captured, penalty)."},
    {NULL}};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_dealloc = (destructor)state_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The native game state (arena.rules.GameState builds on it).",
    .tp_traverse = (traverseproc)state_traverse,
    .tp_clear = (inquiry)state_clear,
    .tp_methods = state_methods,
    .tp_getset = state_getset,
    .tp_new = state_new,
};

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

/* Search(state, seat, root_moves, exploration, widening, playout, seed): the tree of the mcts bot
 * over a state as `seat` sees it (its own racks known, the rest drawn per iteration). */
static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *state, *moves, *policy;
    int seat;
    double exploration, widening;
    PyObject *seed_arg;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!iOddOO:Search", &StateType, &state, &seat, &moves, &exploration, &widening,
                          &policy, &seed_arg) ||
        to_u64(seed_arg, &seed, "the search seed") < 0)
        return NULL;
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

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_dealloc = (destructor)search_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The mcts bot's information-set tree search in C.",
    .tp_methods = search_methods,
    .tp_getset = search_getset,
    .tp_new = search_new,
};

/* -- module ------------------------------------------------------------------------------ */

static PyObject *bind(PyObject *mod, PyObject *args) {
    PyObject *move, *pass, *random;
    int fast;
    if (!PyArg_ParseTuple(args, "O!OO!p", &PyType_Type, &move, &pass, &PyType_Type, &random, &fast)) return NULL;
    Py_INCREF(move);
    Py_XSETREF(MoveType, move);
    Py_INCREF(pass);
    Py_XSETREF(PassMove, pass);
    Py_INCREF(random);
    Py_XSETREF(RandomType, random);
    fast_randbelow = fast;
    Py_RETURN_NONE;
}

static PyObject *py_removable(PyObject *mod, PyObject *arg) {
    u128 b;
    if (to_board(arg, &b, "a board") < 0) return NULL;
    return from_u128(removable(b));
}

static PyObject *py_count_groups(PyObject *mod, PyObject *arg) {
    u128 b;
    if (to_board(arg, &b, "a board") < 0) return NULL;
    return PyLong_FromLong(count_groups(b));
}

static PyObject *py_splitmix(PyObject *mod, PyObject *args) {
    unsigned long long state;
    PyObject *state_arg;
    int n, count;
    if (!PyArg_ParseTuple(args, "Oii", &state_arg, &n, &count) || to_u64(state_arg, &state, "a SplitMix64 state") < 0)
        return NULL;
    if (n < 1 || count < 0 || count > 1000000) {
        PyErr_SetString(PyExc_ValueError, "below(n) needs n >= 1 and a count up to 10**6");
        return NULL;
    }
    uint64_t s = state;
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    for (int i = 0; i < count; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(sm_below(&s, n)));
    return Py_BuildValue("(NK)", out, (unsigned long long)s);
}

static PyMethodDef module_methods[] = {
    {"bind", bind, METH_VARARGS, NULL},
    {"removable", py_removable, METH_O, "M3: the tiles of a board that can leave it without a split."},
    {"count_groups", py_count_groups, METH_O, "The groups of a board."},
    {"below", py_splitmix, METH_VARARGS, "below(state, n, count): count draws below n from a SplitMix64 state."},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "The C rules engine of the arena.", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__native(void) {
    engine_init();
    if (PyType_Ready(&MoveSetType) < 0 || PyType_Ready(&StateType) < 0 || PyType_Ready(&SearchType) < 0) return NULL;
    str_getrandbits = PyUnicode_InternFromString("getrandbits");
    str_randrange = PyUnicode_InternFromString("randrange");
    str_check = PyUnicode_InternFromString("check");
    str_state = PyUnicode_InternFromString("state");
    str_seat_colors = PyUnicode_InternFromString("seat_colors");
    str_scoring = PyUnicode_InternFromString("scoring");
    str_penalty = PyUnicode_InternFromString("penalty");
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "MoveSet", (PyObject *)&MoveSetType) < 0 ||
        PyModule_AddObjectRef(m, "State", (PyObject *)&StateType) < 0 ||
        PyModule_AddObjectRef(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
