/* The `turn` line of the bot protocol uptown-bot/1, built as bytes from the native state.
 *
 * arena.isolation.protocol.PyTurnWriter is the reference: the same bytes from the same state (its
 * docs say what each member holds; tests/unit/test_turn_line.py holds the two to that).  The
 * names of colors, tiles and cells are bound from Python (set_names), so they are written in one
 * place.  The history's text is kept between turns, as it only grows; the rest is written afresh
 * from the core at each turn.  No I/O here: the caller writes the bytes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include "engine.h"
#include "pytypes.h"

/* A name as JSON text, quoted ("red") and bare (red). */
typedef struct {
    char text[16];
    int len;
} Name;

static Name COLOR_TEXT[N_COLORS], TILE_TEXT[N_TILES], CELL_TEXT[N_CELLS];
static int names_bound;

/* Room a turn line needs beyond its history, legal moves and clock, with names of up to 15
 * characters: full boards (81 cells), five played piles of 28 tiles, racks, drawn counts,
 * captures and numbers come to under 6,000 bytes (under 3,300 with the arena's names). */
#define FIXED_ROOM 8192
/* The longest legal move's text with its comma ("purple:champagne@I9", at most 50), and the longest
 * history entry: seat, move and captured color. */
#define MOVE_ROOM 56
#define ENTRY_ROOM 96

static int read_names(PyObject *seq, Name *out, int n, const char *what) {
    PyObject *fast = seq_tuple(seq, "");
    if (!fast || PySequence_Fast_GET_SIZE(fast) != n) {
        Py_XDECREF(fast);
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "the %s names are a sequence of %d strings", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(fast, i);
        Py_ssize_t len;
        const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
        int ok = text && len > 0 && len < (Py_ssize_t)sizeof out[i].text;
        /* Printable ASCII without a quote or backslash: JSON text as it stands. */
        for (Py_ssize_t k = 0; ok && k < len; k++) ok = text[k] >= 0x20 && text[k] < 0x7f && text[k] != '"' && text[k] != '\\';
        if (!ok) {
            Py_DECREF(fast);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "a %s name is 1-15 printable ASCII characters without \" or \\", what);
            return -1;
        }
        memcpy(out[i].text, text, (size_t)len);
        out[i].len = (int)len;
    }
    Py_DECREF(fast);
    return 0;
}

/* set_names(colors, tiles, cells): the names the records and the protocol write. */
PyObject *turnline_set_names(PyObject *mod, PyObject *args) {
    PyObject *colors, *tiles, *cells;
    if (!PyArg_ParseTuple(args, "OOO:set_names", &colors, &tiles, &cells)) return NULL;
    Name c[N_COLORS], t[N_TILES], x[N_CELLS];
    if (read_names(colors, c, N_COLORS, "color") < 0 || read_names(tiles, t, N_TILES, "tile") < 0 ||
        read_names(cells, x, N_CELLS, "cell") < 0)
        return NULL;
    memcpy(COLOR_TEXT, c, sizeof c);
    memcpy(TILE_TEXT, t, sizeof t);
    memcpy(CELL_TEXT, x, sizeof x);
    names_bound = 1;
    Py_RETURN_NONE;
}

/* -- writing ----------------------------------------------------------------------------- */

static inline char *put(char *p, const char *text, size_t len) {
    memcpy(p, text, len);
    return p + len;
}

#define PUT(p, literal) put((p), (literal), sizeof(literal) - 1)

static inline char *put_name(char *p, const Name *name) { return put(p, name->text, (size_t)name->len); }

/* "red": */
static inline char *put_key(char *p, int color) {
    *p++ = '"';
    p = put_name(p, &COLOR_TEXT[color]);
    *p++ = '"';
    *p++ = ':';
    return p;
}

static char *put_int(char *p, long v) {
    char digits[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do digits[n++] = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *p++ = '-';
    while (n) *p++ = digits[--n];
    return p;
}

/* "red:C@C5" */
static inline char *put_move(char *p, int color, int tile, int cell) {
    *p++ = '"';
    p = put_name(p, &COLOR_TEXT[color]);
    *p++ = ':';
    p = put_name(p, &TILE_TEXT[tile]);
    *p++ = '@';
    p = put_name(p, &CELL_TEXT[cell]);
    *p++ = '"';
    return p;
}

/* "A1","B2": the cells of a board, in order. */
static char *put_cells(char *p, u128 cells) {
    for (int first = 1; cells; cells &= cells - 1, first = 0) {
        if (!first) *p++ = ',';
        *p++ = '"';
        p = put_name(p, &CELL_TEXT[lowest_cell(cells)]);
        *p++ = '"';
    }
    return p;
}

static char *put_tiles(char *p, const uint8_t *tiles, int n) {
    for (int i = 0; i < n; i++) {
        if (i) *p++ = ',';
        *p++ = '"';
        p = put_name(p, &TILE_TEXT[tiles[i]]);
        *p++ = '"';
    }
    return p;
}

/* "red":["C","3"] */
static char *put_key_tiles(char *p, int color, const uint8_t *tiles, int n) {
    p = put_key(p, color);
    *p++ = '[';
    p = put_tiles(p, tiles, n);
    *p++ = ']';
    return p;
}

/* -- TurnLine ---------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    StateObject *state;
    /* The game replayed from its deal, one history entry at a time: the seat that passed is the
     * one to move there (a pass names no color).  broken: an entry did not replay. */
    Core replay;
    int broken;
    Py_ssize_t entries;
    char *history; /* the history's entries as JSON text, comma-separated */
    Py_ssize_t history_len, history_room;
    char *out; /* the line being written, kept for the next one */
    Py_ssize_t out_room;
} TurnLineObject;

static int grow(char **buffer, Py_ssize_t *room, Py_ssize_t need) {
    if (need <= *room) return 0;
    Py_ssize_t size = need > 2 * *room ? need : 2 * *room;
    char *grown = PyMem_Realloc(*buffer, (size_t)size);
    if (!grown) {
        PyErr_NoMemory();
        return -1;
    }
    *buffer = grown;
    *room = size;
    return 0;
}

/* The seat that made a turn of the game, and the replay played on past it as records.turn_seats
 * plays it (checked); -1 once an entry did not replay. */
static int replayed_seat(const Rules *r, Core *s, int *broken, int color, int tile, int cell) {
    int seat = s->to_move;
    if (*broken) return -1;
    if (color < 0) {
        Moves m;
        core_legal(r, s, &m);
        if (s->over || m.count) *broken = 1;
        else core_pass(r, s);
    } else if (core_illegal(r, s, color, tile, cell)) {
        *broken = 1;
    } else {
        core_push(r, s, color, tile, cell);
    }
    return *broken ? -1 : seat;
}

static int read_int(PyObject *v, long lo, long hi, long *out) {
    int overflow = 0;
    *out = PyLong_Check(v) ? PyLong_AsLongAndOverflow(v, &overflow) : lo - 1;
    if (*out == -1 && PyErr_Occurred()) PyErr_Clear();
    return !overflow && *out >= lo && *out <= hi ? 0 : -1;
}

/* The entries of the state's history since the last turn, added to the history's text (all of them
 * or, on an error, none). */
static int catch_up(TurnLineObject *self) {
    PyObject *history = self->state->history;
    Py_ssize_t n = PyList_GET_SIZE(history);
    if (n < self->entries) {
        PyErr_SetString(PyExc_ValueError, "the game's history is shorter than at the last turn line");
        return -1;
    }
    if (grow(&self->history, &self->history_room, self->history_len + (n - self->entries) * ENTRY_ROOM) < 0) return -1;
    const Rules *r = &self->state->rules;
    Core replay = self->replay;
    int broken = self->broken;
    /* Played from the deal as it is now, as turn_seats plays it: set_next_draw changes only the tiles
     * not drawn yet. */
    memcpy(replay.deals, self->state->core.deals, sizeof replay.deals);
    char *p = self->history + self->history_len;
    for (Py_ssize_t i = self->entries; i < n; i++) {
        PyObject *entry = PyList_GET_ITEM(history, i);
        long v[4] = {0, 0, 0, -1};
        int ok = PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 2;
        PyObject *move = ok ? PyTuple_GET_ITEM(entry, 0) : NULL;
        ok = ok && PyTuple_Check(move) && PyTuple_GET_SIZE(move) == 3 &&
             read_int(PyTuple_GET_ITEM(move, 0), -1, N_COLORS - 1, &v[0]) == 0 &&
             read_int(PyTuple_GET_ITEM(entry, 1), -1, N_COLORS - 1, &v[3]) == 0;
        int pass = ok && v[0] < 0;
        ok = ok && (pass || (read_int(PyTuple_GET_ITEM(move, 1), 0, N_TILES - 1, &v[1]) == 0 &&
                             read_int(PyTuple_GET_ITEM(move, 2), 0, N_CELLS - 1, &v[2]) == 0 &&
                             r->seat_of[v[0]] >= 0));
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "history entry %zd is not a move of a color in play", i);
            return -1;
        }
        int seat = replayed_seat(r, &replay, &broken, (int)v[0], (int)v[1], (int)v[2]);
        if (pass && seat < 0) {
            PyErr_Format(PyExc_ValueError, "the pass at history entry %zd: the history does not replay from the deal", i);
            return -1;
        }
        if (i) *p++ = ',';
        *p++ = '[';
        if (pass) {
            p = put_int(p, seat);
            p = PUT(p, ",\"pass\"]");
            continue;
        }
        p = put_int(p, r->seat_of[v[0]]);
        *p++ = ',';
        p = put_move(p, (int)v[0], (int)v[1], (int)v[2]);
        if (v[3] >= 0) {
            *p++ = ',';
            *p++ = '"';
            p = put_name(p, &COLOR_TEXT[v[3]]);
            *p++ = '"';
        }
        *p++ = ']';
    }
    self->history_len = p - self->history;
    self->entries = n;
    self->replay = replay;
    self->broken = broken;
    return 0;
}

/* "time":... as repr(float(time)), null when it is not finite. */
static char *put_time(char *p, double time) {
    if (!isfinite(time)) return PUT(p, "null");
    char *text = PyOS_double_to_string(time, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!text) return NULL;
    p = put(p, text, strlen(text));
    PyMem_Free(text);
    return p;
}

/* The view's members after "move": board, racks, drawn, played, captures. */
static char *put_view(char *p, const Rules *r, const Core *s, int seat) {
    p = PUT(p, ",\"board\":{");
    for (int i = 0; i < r->n_colors; i++) {
        int c = r->colors[i];
        if (i) *p++ = ',';
        p = put_key(p, c);
        *p++ = '[';
        p = put_cells(p, s->boards[c]);
        *p++ = ']';
    }
    p = PUT(p, "},\"racks\":{");
    for (int i = 0; i < r->n_own[seat]; i++) {
        int c = r->seat_colors[seat][i];
        if (i) *p++ = ',';
        p = put_key_tiles(p, c, s->rack[c], s->rack_len[c]);
    }
    p = PUT(p, "},\"drawn\":{");
    for (int i = 0; i < r->n_colors; i++) {
        if (i) *p++ = ',';
        p = put_key(p, r->colors[i]);
        p = put_int(p, s->drawn[r->colors[i]]);
    }
    p = PUT(p, "},\"played\":{");
    for (int i = 0; i < r->n_colors; i++) {
        int c = r->colors[i];
        if (i) *p++ = ',';
        p = put_key_tiles(p, c, s->played_tiles[c], s->played[c]);
    }
    p = PUT(p, "},\"captures\":[");
    for (int row = 0; row < r->players; row++) {
        if (row) *p++ = ',';
        *p++ = '{';
        for (int c = 0, first = 1; c < N_COLORS; c++) {
            if (!s->captures[row][c]) continue;
            if (!first) *p++ = ',';
            first = 0;
            p = put_key(p, c);
            p = put_int(p, s->captures[row][c]);
        }
        *p++ = '}';
    }
    return p;
}

/* line(seat, moves, time, clock): the turn message, bytes ending in a newline.  clock is the
 * clock member's JSON text (protocol.clock_json) or None. */
static PyObject *turnline_line(TurnLineObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "line(seat, moves, time, clock)");
        return NULL;
    }
    const Rules *r = &self->state->rules;
    const Core *s = &self->state->core;
    long seat;
    if (to_small(args[0], 0, r->players - 1, &seat, "a seat") < 0) return NULL;
    if (!PyObject_TypeCheck(args[1], &MoveSetType)) {
        PyErr_Format(PyExc_TypeError, "moves must be a native MoveSet, not %.100s", Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    const Moves *m = &((MoveSetObject *)args[1])->m;
    double time = PyFloat_AsDouble(args[2]);
    if (time == -1.0 && PyErr_Occurred()) return NULL;
    const char *clock = NULL;
    Py_ssize_t clock_len = 0;
    if (args[3] != Py_None && !(clock = PyUnicode_AsUTF8AndSize(args[3], &clock_len))) return NULL;
    if (catch_up(self) < 0) return NULL;
    if (grow(&self->out, &self->out_room, FIXED_ROOM + clock_len + self->history_len + (Py_ssize_t)m->count * MOVE_ROOM) < 0)
        return NULL;
    char *p = PUT(self->out, "{\"type\":\"turn\",\"time\":");
    if (!(p = put_time(p, time))) return NULL;
    if (clock) {
        p = PUT(p, ",\"clock\":");
        p = put(p, clock, (size_t)clock_len);
    }
    p = PUT(p, ",\"view\":{\"seat\":");
    p = put_int(p, seat);
    p = PUT(p, ",\"move\":");
    p = put_int(p, (long)PyList_GET_SIZE(self->state->history));
    p = put_view(p, r, s, (int)seat);
    p = PUT(p, "],\"history\":[");
    p = put(p, self->history, (size_t)self->history_len);
    p = PUT(p, "],\"passes\":");
    p = put_int(p, s->passes);
    p = PUT(p, "},\"legal\":[");
    for (int i = 0, first = 1; i < m->n; i++) {
        const Option *o = &m->opt[i];
        for (u128 cells = o->cells; cells; cells &= cells - 1, first = 0) {
            if (!first) *p++ = ',';
            p = put_move(p, o->color, o->tile, lowest_cell(cells));
        }
    }
    p = PUT(p, "]}\n");
    return PyBytes_FromStringAndSize(self->out, p - self->out);
}

static PyObject *turnline_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *state;
    static char *names[] = {"state", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!:TurnLine", names, &StateType, &state)) return NULL;
    if (!names_bound) {
        PyErr_SetString(PyExc_RuntimeError, "the names of colors, tiles and cells are not bound (set_names)");
        return NULL;
    }
    TurnLineObject *self = (TurnLineObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    StateObject *st = (StateObject *)state;
    self->state = (StateObject *)Py_NewRef(state);
    core_start(&st->rules, &self->replay, (const uint8_t(*)[N_TILES])st->core.deals);
    return (PyObject *)self;
}

static int turnline_traverse(TurnLineObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->state);
    return 0;
}

static int turnline_clear(TurnLineObject *self) {
    Py_CLEAR(self->state);
    return 0;
}

static void turnline_dealloc(TurnLineObject *self) {
    PyObject_GC_UnTrack(self);
    turnline_clear(self);
    PyMem_Free(self->history);
    PyMem_Free(self->out);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef turnline_methods[] = {
    {"line", (PyCFunction)(void (*)(void))turnline_line, METH_FASTCALL,
     "line(seat, moves, time, clock): the turn message for seat, as bytes; clock is its JSON text or None."},
    {NULL}};

PyTypeObject TurnLineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.rules._native.TurnLine",
    .tp_basicsize = sizeof(TurnLineObject),
    .tp_dealloc = (destructor)turnline_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The turn messages of one game of a native State, as protocol.PyTurnWriter writes them.",
    .tp_traverse = (traverseproc)turnline_traverse,
    .tp_clear = (inquiry)turnline_clear,
    .tp_methods = turnline_methods,
    .tp_new = turnline_new,
};
