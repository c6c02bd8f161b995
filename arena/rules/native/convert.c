/* Reading what a caller hands in, checked: sequences, ints, bitboards, settings, generators. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"

PyObject *MoveType, *PassMove, *RandomType;
int fast_randbelow;
PyObject *str_getrandbits, *str_randrange, *str_check, *str_state, *str_seat_colors, *str_scoring, *str_penalty;

/* -- sequences ---------------------------------------------------------------------------- */

/* A sequence as a tuple of its own: a list is copied, so no code a caller hands in (an int
 * subclass's comparison, an iterator) can shrink it while its items are read in place. */
PyObject *seq_tuple(PyObject *o, const char *message) {
    if (PyTuple_CheckExact(o)) return Py_NewRef(o);
    PyObject *t = PySequence_Tuple(o);
    if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) PyErr_SetString(PyExc_TypeError, message);
    return t;
}

/* -- ints -------------------------------------------------------------------------------- */

PyObject *from_u128(u128 x) {
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
int to_board(PyObject *v, u128 *out, const char *what) {
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
int to_small(PyObject *v, long lo, long hi, long *out, const char *what) {
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
int to_u64(PyObject *v, unsigned long long *out, const char *what) {
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

const char *COLOR_NAMES[N_COLORS] = {"red", "blue", "green", "yellow", "purple"};

/* -- settings ---------------------------------------------------------------------------- */

/* The Rules of a GameSettings (checked again: anything with the attributes may come in). */
int read_rules(PyObject *settings, Rules *r) {
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

/* The generator's state from a SplitMix64 object (arena/rules/rng.py), and back. */
int rng_get(PyObject *rng, uint64_t *out) {
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

int rng_set(PyObject *rng, uint64_t x) {
    PyObject *v = PyLong_FromUnsignedLongLong(x);
    if (!v) return -1;
    int rc = PyObject_SetAttr(rng, str_state, v);
    Py_DECREF(v);
    return rc;
}

int read_policy(PyObject *policy) {
    const char *name = policy && PyUnicode_Check(policy) ? PyUnicode_AsUTF8(policy) : NULL;
    if (name && !strcmp(name, "random")) return 0;
    if (name && !strcmp(name, "greedy")) return 1;
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "the playout policy is random or greedy");
    return -1;
}
