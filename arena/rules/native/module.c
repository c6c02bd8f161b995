/* arena.rules._native: the C rules engine as Python types (State, MoveSet, Search, TurnLine).
 *
 * arena/rules/engine.py binds it and builds the public GameState on State. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"
#include "pytypes.h"

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

static PyObject *py_capturable_mask(PyObject *mod, PyObject *arg) {
    u128 b;
    if (to_board(arg, &b, "a board") < 0) return NULL;
    return from_u128(capturable_mask(b));
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
    {"capturable_mask", py_capturable_mask, METH_O, "M3: the tiles of a board that can leave it without a split."},
    {"count_groups", py_count_groups, METH_O, "The groups of a board."},
    {"set_names", turnline_set_names, METH_VARARGS,
     "set_names(colors, tiles, cells): the names a TurnLine writes (arena.rules.engine binds them)."},
    {"below", py_splitmix, METH_VARARGS, "below(state, n, count): count draws below n from a SplitMix64 state."},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "The C rules engine of the arena.", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__native(void) {
    engine_init();
    if (PyType_Ready(&MoveSetType) < 0 || PyType_Ready(&StateType) < 0 || PyType_Ready(&SearchType) < 0 ||
        PyType_Ready(&TurnLineType) < 0)
        return NULL;
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
        PyModule_AddObjectRef(m, "Search", (PyObject *)&SearchType) < 0 ||
        PyModule_AddObjectRef(m, "TurnLine", (PyObject *)&TurnLineType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
