/* The game as numbers (arena.spaces) computed from the native engine's own arrays: a turn's legal
 * action ids and mask, and a seat's observation tensor.  The layouts are arena/spaces/actions.py's and
 * arena/spaces/observations.py's (their modules check the sizes; tests/unit/test_spaces.py holds both
 * engines to the same numbers).  No Python object is made per cell: one pass over bitboards. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"

#define SLOTS_PER_COLOR (9 * WILD + N_CELLS)
#define PASS_ID (N_COLORS * SLOTS_PER_COLOR)
#define N_ACTIONS (PASS_ID + 1)

/* The observation's pieces (arena/spaces/observations.py: OBSERVATION_PIECES), their offsets. */
#define OBS_BOARDS 0
#define OBS_OWN_RACK (OBS_BOARDS + N_COLORS * N_CELLS)
#define OBS_PLAYED (OBS_OWN_RACK + N_COLORS * N_TILES)
#define OBS_DRAWN (OBS_PLAYED + N_COLORS * N_TILES)
#define OBS_CAPTURES (OBS_DRAWN + N_COLORS)
#define OBS_SEAT_COLORS (OBS_CAPTURES + N_COLORS * N_COLORS)
#define OBS_OBSERVER (OBS_SEAT_COLORS + N_COLORS * N_COLORS)
#define OBS_TO_MOVE (OBS_OBSERVER + N_COLORS)
#define OBS_PASSES (OBS_TO_MOVE + N_COLORS)
#define OBS_OVER (OBS_PASSES + 1)
#define OBS_SCORING (OBS_OVER + 1)
#define OBS_PENALTY (OBS_SCORING + 2)
#define OBS_SIZE (OBS_PENALTY + 2)

/* The id of tile on cell for color: slot 9 * tile + the cell's place among the tile's 9, or the wild's
 * 243 + cell (arena/spaces/actions.py). */
static inline int action_of(int color, int tile, int cell) {
    if (tile == WILD) return SLOTS_PER_COLOR * color + 9 * WILD + cell;
    u128 below = FITS[tile] & (((u128)1 << cell) - 1);
    return SLOTS_PER_COLOR * color + 9 * tile + popcount(below);
}

/* Every legal id of m as bits of a 1621-bit set (the pass alone when m is empty); -1 for an option
 * whose cells the tile does not fit. */
#define ID_WORDS ((N_ACTIONS + 63) / 64)
static int id_bits(const Moves *m, uint64_t bits[ID_WORDS]) {
    memset(bits, 0, ID_WORDS * sizeof bits[0]);
    if (m->n == 0) {
        bits[PASS_ID / 64] |= 1ULL << (PASS_ID % 64);
        return 0;
    }
    for (int i = 0; i < m->n; i++) {
        const Option *o = &m->opt[i];
        if (o->cells & ~FITS[o->tile]) {
            PyErr_SetString(PyExc_ValueError, "no action id for a tile on a cell it does not fit (M1)");
            return -1;
        }
        for (u128 cells = o->cells; cells; cells &= cells - 1) {
            int id = action_of(o->color, o->tile, lowest_cell(cells));
            bits[id / 64] |= 1ULL << (id % 64);
        }
    }
    return 0;
}

/* A writable C-contiguous buffer of at least n items of format fmt (one character). */
static int writable(PyObject *obj, Py_buffer *view, char fmt, Py_ssize_t itemsize, Py_ssize_t n, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (view->itemsize != itemsize || f[0] != fmt || f[1] || view->len < n * itemsize) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "%s must be a writable contiguous array of at least %zd items", what, n);
        return -1;
    }
    return 0;
}

/* MoveSet._action_ids(): the legal ids in increasing order, [PASS_ID] when there is none. */
PyObject *moveset_action_ids(MoveSetObject *self, PyObject *unused) {
    uint64_t bits[ID_WORDS];
    if (id_bits(&self->m, bits) < 0) return NULL;
    PyObject *ids = PyList_New(self->m.n ? self->m.count : 1);
    if (!ids) return NULL;
    Py_ssize_t k = 0;
    for (int w = 0; w < ID_WORDS; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) {
            PyObject *id = PyLong_FromLong(64 * w + __builtin_ctzll(b));
            if (!id || k >= PyList_GET_SIZE(ids)) {
                Py_XDECREF(id);
                Py_DECREF(ids);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "two options share a move");
                return NULL;
            }
            PyList_SET_ITEM(ids, k++, id);
        }
    if (k != PyList_GET_SIZE(ids)) {
        Py_DECREF(ids);
        PyErr_SetString(PyExc_ValueError, "two options share a move");
        return NULL;
    }
    return ids;
}

/* MoveSet._action_mask_into(out): out (int8, 1621 items) set to 1 at the legal ids, 0 elsewhere. */
PyObject *moveset_action_mask_into(MoveSetObject *self, PyObject *out) {
    Py_buffer view;
    if (writable(out, &view, 'b', 1, N_ACTIONS, "the mask") < 0) return NULL;
    uint64_t bits[ID_WORDS];
    if (id_bits(&self->m, bits) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int8_t *mask = view.buf;
    memset(mask, 0, N_ACTIONS);
    for (int w = 0; w < ID_WORDS; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) mask[64 * w + __builtin_ctzll(b)] = 1;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* State._observe_into(out, seat, private, turn): the observation of seat (float32, 756 items) written
 * into out: its own racks only when private, the seat to move only when turn (OpenSpiel hides it while
 * a draw is pending). */
PyObject *state_observe_into(StateObject *self, PyObject *args) {
    PyObject *out;
    int seat, private, turn;
    if (!PyArg_ParseTuple(args, "Oipp:_observe_into", &out, &seat, &private, &turn)) return NULL;
    const Rules *r = &self->rules;
    const Core *s = &self->core;
    if (seat < 0 || seat >= r->players) {
        PyErr_Format(PyExc_ValueError, "there is no seat %d", seat);
        return NULL;
    }
    Py_buffer view;
    if (writable(out, &view, 'f', 4, OBS_SIZE, "the observation") < 0) return NULL;
    float *obs = view.buf;
    memset(obs, 0, OBS_SIZE * sizeof(float));
    for (int c = 0; c < N_COLORS; c++) {
        for (u128 cells = s->boards[c]; cells; cells &= cells - 1) obs[OBS_BOARDS + N_CELLS * c + lowest_cell(cells)] = 1;
        for (int k = 0; k < s->played[c]; k++) obs[OBS_PLAYED + N_TILES * c + s->played_tiles[c][k]] = 1;
        obs[OBS_DRAWN + c] = s->drawn[c];
    }
    if (private)
        for (int i = 0; i < r->n_own[seat]; i++) {
            int c = r->seat_colors[seat][i];
            for (int k = 0; k < s->rack_len[c]; k++) obs[OBS_OWN_RACK + N_TILES * c + s->rack[c][k]] = 1;
        }
    for (int p = 0; p < r->players; p++) {
        for (int c = 0; c < N_COLORS; c++) obs[OBS_CAPTURES + N_COLORS * p + c] = s->captures[p][c];
        for (int i = 0; i < r->n_own[p]; i++) obs[OBS_SEAT_COLORS + N_COLORS * p + r->seat_colors[p][i]] = 1;
    }
    obs[OBS_OBSERVER + seat] = 1;
    if (turn && !s->over && s->to_move >= 0) obs[OBS_TO_MOVE + s->to_move] = 1;
    obs[OBS_PASSES] = (float)s->passes;
    obs[OBS_OVER] = s->over ? 1 : 0;
    obs[OBS_SCORING + (r->blockers ? 1 : 0)] = 1;
    obs[OBS_PENALTY + (r->penalty_opponent ? 1 : 0)] = 1;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* State.set_next_draw(color, tile): the next tile color draws is tile; the tiles of its pile above it
 * move down one place, in the order they were (the rest of the deal stays as it was). */
PyObject *state_set_next_draw(StateObject *self, PyObject *const *args, Py_ssize_t nargs) {
    long color, tile;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_next_draw takes a color and a tile");
        return NULL;
    }
    if (to_small(args[0], 0, N_COLORS - 1, &color, "a color") < 0 ||
        to_small(args[1], 0, N_TILES - 1, &tile, "a tile") < 0)
        return NULL;
    Core *s = &self->core;
    if (self->rules.seat_of[color] < 0) {
        PyErr_Format(PyExc_ValueError, "%s is not in play", COLOR_NAMES[color]);
        return NULL;
    }
    int at = s->drawn[color], where = -1;
    for (int k = at; k < N_TILES; k++)
        if (s->deals[color][k] == tile) where = k;
    if (where < 0) {
        PyErr_Format(PyExc_ValueError, "%s cannot draw %ld next: it is not in its pile", COLOR_NAMES[color], tile);
        return NULL;
    }
    if (where == at) Py_RETURN_NONE;
    uint8_t *deal = s->deals[color];
    memmove(deal + at + 1, deal + at, (size_t)(where - at));
    deal[at] = (uint8_t)tile;
    Py_CLEAR(self->deals); /* made again when asked for: copies of this state keep the old one */
    Py_RETURN_NONE;
}
