/* The native game state (arena.rules.engine builds the public GameState on it). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"

/* -- State ------------------------------------------------------------------------------- */

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

/* The value of an exact int that fits one digit (a tile, say), read without a call; -1 for any other
 * (negative or large: the general reader then judges it). */
static inline long digit_value(PyObject *t) {
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)t)) return -1;
    Py_ssize_t v = PyUnstable_Long_CompactValue((PyLongObject *)t);
    return v >= 0 ? (long)v : -1;
#else
    Py_ssize_t size = Py_SIZE(t);
    return size == 0 ? 0 : size == 1 ? (long)((PyLongObject *)t)->ob_digit[0] : -1;
#endif
}

/* 28 distinct tiles from an exact tuple of exact ints: 0, or -1 (no error set) when it is anything else. */
static int read_pile(PyObject *tiles, uint8_t *out) {
    if (!PyTuple_CheckExact(tiles) || PyTuple_GET_SIZE(tiles) != N_TILES) return -1;
    unsigned seen = 0;
    for (int k = 0; k < N_TILES; k++) {
        PyObject *t = PyTuple_GET_ITEM(tiles, k);
        if (!PyLong_CheckExact(t)) return -1;
        long tile = digit_value(t);
        if (tile < 0 || tile >= N_TILES || (seen >> tile & 1)) return -1;
        seen |= 1u << tile;
        out[k] = (uint8_t)tile;
    }
    return 0;
}

/* The common case, a dict of exact int colors to tuples of 28 tiles (what deal() makes), read without
 * building keys or tuples: 1 when it was a good deal, 0 to read it the general way (which names the fault). */
static int read_deals_dict(const Rules *r, PyObject *deals, uint8_t out[N_COLORS][N_TILES]) {
    if (!PyDict_CheckExact(deals) || PyDict_GET_SIZE(deals) != r->n_colors) return 0;
    Py_ssize_t pos = 0;
    PyObject *key, *tiles;
    unsigned queued = 0;
    while (PyDict_Next(deals, &pos, &key, &tiles)) {
        if (!PyLong_CheckExact(key)) return 0;
        int overflow = 0;
        long c = PyLong_AsLongAndOverflow(key, &overflow);
        if (overflow || c < 0 || c >= N_COLORS || r->seat_of[c] < 0 || (queued >> c & 1)) return 0;
        queued |= 1u << c;
        if (read_pile(tiles, out[c]) < 0) return 0;
    }
    return 1;
}

/* The deal of every color in play, checked as GameState checks it. */
static int read_deals(const Rules *r, PyObject *deals, uint8_t out[N_COLORS][N_TILES]) {
    if (read_deals_dict(r, deals, out)) return 0;
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
    if (!kwds && PyTuple_GET_SIZE(args) == 2) { /* the usual call, without the parser's work */
        settings = PyTuple_GET_ITEM(args, 0);
        deals = PyTuple_GET_ITEM(args, 1);
    } else if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:GameState", names, &settings, &deals)) {
        return NULL;
    }
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
    self->deals = NULL; /* made when first asked for (get_deals): a playout never asks */
    if (!self->history) {
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
    Py_XINCREF(self->deals);
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

/* M6: a pass, checked (M4: nothing is legal) or trusted. */
static int pass_move(StateObject *self, int checked) {
    if (checked) {
        Moves m;
        core_legal(&self->rules, &self->core, &m);
        if (self->core.over || m.count) {
            refuse(self, PassMove);
            return -1;
        }
    }
    if (append_history(self, PassMove, -1) < 0) return -1;
    core_pass(&self->rules, &self->core);
    return 0;
}

static PyObject *state_push_pass(StateObject *self, PyObject *unused) {
    if (pass_move(self, 1) < 0) return NULL;
    Py_RETURN_NONE;
}

/* One field of a move as GameState.check takes it: a plain int (not a bool or another int subclass). */
static int move_field(PyObject *x, long *out) {
    int overflow = 0;
    if (!PyLong_CheckExact(x)) return -1;
    *out = PyLong_AsLongAndOverflow(x, &overflow);
    return overflow ? -1 : 0;
}

/* Whether a trusted move can be played without harm to the core: a color in play with the tile on its rack
 * (so the rack and the tiles played stay in bounds).  Legality is the caller's word. */
static int playable(const Rules *r, const Core *s, long color, long tile) {
    return r->seat_of[color] >= 0 && memchr(s->rack[color], (int)tile, s->rack_len[color]) != NULL;
}

/* push (checked) and push_unchecked (the caller vouches that the move is legal). */
static PyObject *push_move(StateObject *self, PyObject *move, int checked) {
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
    if (pass) return pass_move(self, checked) < 0 ? NULL : PyLong_FromLong(-1);
    if (v[0] >= N_COLORS || v[1] < 0 || v[1] >= N_TILES || v[2] < 0 || v[2] >= N_CELLS ||
        (checked ? core_illegal(&self->rules, &self->core, (int)v[0], (int)v[1], (int)v[2])
                 : !playable(&self->rules, &self->core, v[0], v[1])))
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

static PyObject *state_push(StateObject *self, PyObject *move) { return push_move(self, move, 1); }

static PyObject *state_push_unchecked(StateObject *self, PyObject *move) { return push_move(self, move, 0); }

static PyObject *state_capturable_mask(StateObject *self, PyObject *arg) {
    long color;
    if (to_small(arg, 0, N_COLORS - 1, &color, "a color") < 0) return NULL;
    return from_u128(core_capturable(&self->core, (int)color));
}

static PyObject *state_color_at(StateObject *self, PyObject *arg) {
    long cell;
    if (to_small(arg, 0, N_CELLS - 1, &cell, "a cell") < 0) return NULL;
    return PyLong_FromLong(core_color_at(&self->rules, &self->core, (int)cell));
}

static PyObject *state_capturable_at(StateObject *self, PyObject *arg) {
    long cell;
    if (to_small(arg, 0, N_CELLS - 1, &cell, "a cell") < 0) return NULL;
    int color = core_color_at(&self->rules, &self->core, (int)cell);
    if (color < 0) Py_RETURN_FALSE;
    const Core *s = &self->core;
    int yes = s->capturable_of[color] == s->boards[color] ? (int)(s->capturable[color] >> cell & 1)
                                                     : capturable_at(s->boards[color], (int)cell);
    return PyBool_FromLong(yes);
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

/* playout(rng, policy="random"), arguments by position or by name, read without building a tuple. */
static PyObject *state_playout(StateObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *given[2] = {NULL, NULL};
    static const char *names[2] = {"rng", "policy"};
    Py_ssize_t n_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs > 2) return PyErr_Format(PyExc_TypeError, "playout() takes at most 2 arguments (%zd given)", nargs);
    for (Py_ssize_t i = 0; i < nargs; i++) given[i] = args[i];
    for (Py_ssize_t k = 0; k < n_kw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int slot = PyUnicode_CompareWithASCIIString(key, "rng") == 0 ? 0
                   : PyUnicode_CompareWithASCIIString(key, "policy") == 0 ? 1 : -1;
        if (slot < 0) return PyErr_Format(PyExc_TypeError, "playout() got an unexpected keyword argument '%U'", key);
        if (given[slot]) return PyErr_Format(PyExc_TypeError, "playout() got multiple values for '%s'", names[slot]);
        given[slot] = args[nargs + k];
    }
    if (!given[0]) return PyErr_Format(PyExc_TypeError, "playout() missing required argument 'rng' (pos 1)");
    PyObject *rng = given[0], *policy = given[1];
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
    for (int seat = 0; seat < self->rules.players; seat++) {
        int keys[3] = {groups[seat], totals[seat], penalties[seat]};
        PyObject *item = ints_tuple(keys, 3);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject_GC_UnTrack(item); /* ints only: no cycle to find, nothing for the collector to walk */
        PyTuple_SET_ITEM(out, seat, item);
    }
    PyObject_GC_UnTrack(out);
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
        s.capturable_of[c] = NO_BOARD;
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
static PyObject *get_capturable_of(StateObject *self, void *c_) {
    TUPLE_BY_COLOR(self->core.capturable_of[c] == NO_BOARD ? PyLong_FromLong(-1) : from_u128(self->core.capturable_of[c]))
}
static PyObject *get_capturable(StateObject *self, void *c_) { TUPLE_BY_COLOR(from_u128(self->core.capturable[c])) }

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
/* The deals tuple is made again when set_next_draw has changed a deal (it leaves NULL). */
static PyObject *get_deals(StateObject *self, void *c_) {
    if (!self->deals && !(self->deals = deals_tuple(&self->rules, &self->core))) return NULL;
    return Py_NewRef(self->deals);
}
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
    {"_capturable_of", (getter)get_capturable_of, NULL, NULL, NULL},
    {"_capturable", (getter)get_capturable, NULL, NULL, NULL},
    {NULL}};

static PyMethodDef state_methods[] = {
    {"legal_moves", (PyCFunction)state_legal_moves, METH_NOARGS, "Every legal move of the seat to move."},
    {"push", (PyCFunction)state_push, METH_O, "Play a legal move (IllegalMove otherwise); the color captured."},
    {"push_unchecked", (PyCFunction)state_push_unchecked, METH_O,
     "Play a move the caller vouches is legal, without the legality check; the color captured."},
    {"push_pass", (PyCFunction)state_push_pass, METH_NOARGS, "M6: pass (IllegalMove when a move is legal)."},
    {"copy", (PyCFunction)state_copy, METH_NOARGS, "An independent copy."},
    {"color_at", (PyCFunction)state_color_at, METH_O, "The color on a cell, or -1."},
    {"capturable_at", (PyCFunction)state_capturable_at, METH_O, "M3: whether the tile on a cell may be captured."},
    {"capturable_mask", (PyCFunction)state_capturable_mask, METH_O, "M3: the tiles of a color that may be captured (a bitboard)."},
    {"_keys", (PyCFunction)state_keys, METH_NOARGS, NULL},
    {"_set", (PyCFunction)state_set, METH_VARARGS, NULL},
    {"_observe_into", (PyCFunction)state_observe_into, METH_VARARGS, NULL},
    {"set_next_draw", (PyCFunction)(void (*)(void))state_set_next_draw, METH_FASTCALL,
     "The next tile a color draws is this one; the tiles above it in its pile move down one place."},
    {"playout", (PyCFunction)(void (*)(void))state_playout, METH_FASTCALL | METH_KEYWORDS,
     "Play a copy to the end with a policy and a SplitMix64; per seat (groups, captured, penalty)."},
    {NULL}};

PyTypeObject StateType = {
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
