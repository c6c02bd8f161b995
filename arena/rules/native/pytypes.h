/* What the Python types of arena.rules._native share (convert.c, moveset.c, state.c,
 * searchtype.c, module.c): the objects bound from Python, the checked conversions of
 * what a caller hands in, and the object layouts.  Everything a caller hands in is
 * checked before the C core sees it, so no input crashes the interpreter: a wrong
 * value is a TypeError or ValueError, an illegal move the reference engine's IllegalMove. */
#ifndef ARENA_PYTYPES_H
#define ARENA_PYTYPES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "engine.h"

/* Bound by arena/rules/engine.py: the Move class, PASS, random.Random and whether
 * Random.randrange(n) is getrandbits rejection (so choice() may draw that way itself). */
extern PyObject *MoveType, *PassMove, *RandomType;
extern int fast_randbelow;
extern PyObject *str_getrandbits, *str_randrange, *str_check, *str_state, *str_seat_colors, *str_scoring,
    *str_penalty;
extern const char *COLOR_NAMES[N_COLORS];

extern PyTypeObject MoveSetType, StateType, SearchType, TurnLineType;

typedef struct {
    PyObject_HEAD
    Moves m;
    PyObject *options; /* the options tuple, made when first asked for */
} MoveSetObject;

typedef struct {
    PyObject_HEAD
    Rules rules;
    Core core;
    PyObject *settings;
    PyObject *history; /* list of (Move, captured color) */
    PyObject *deals;   /* tuple of 5 tuples */
} StateObject;

PyObject *seq_tuple(PyObject *o, const char *message);
PyObject *from_u128(u128 x);
int to_board(PyObject *v, u128 *out, const char *what);
int to_small(PyObject *v, long lo, long hi, long *out, const char *what);
int to_u64(PyObject *v, unsigned long long *out, const char *what);
int read_rules(PyObject *settings, Rules *r);
int rng_get(PyObject *rng, uint64_t *out);
int rng_set(PyObject *rng, uint64_t x);
int read_policy(PyObject *policy);
PyObject *new_move(int color, int tile, int cell);
MoveSetObject *moveset_of(const Moves *m);
/* spaces.c: action ids, masks and observations (arena.spaces) and the OpenSpiel game's redeal. */
PyObject *moveset_action_ids(MoveSetObject *self, PyObject *unused);
PyObject *moveset_action_mask_into(MoveSetObject *self, PyObject *out);
PyObject *state_observe_into(StateObject *self, PyObject *args);
PyObject *state_set_next_draw(StateObject *self, PyObject *const *args, Py_ssize_t nargs);
/* turnline.c: the bot protocol's turn line (TurnLine) and the names it writes. */
PyObject *turnline_set_names(PyObject *mod, PyObject *args);

#endif
