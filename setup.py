"""The optional C rules engine (arena.rules._native); everything else is in pyproject.toml.

``optional=True``: where the extension cannot be built (no C compiler, or one
without 128-bit ints) the install goes on without it and the arena uses its
pure-Python engine, only slower (``arena info`` says which engine is in use).
"""

from setuptools import Extension, setup

NATIVE = "arena/rules/native/"

setup(
    ext_modules=[
        Extension(
            "arena.rules._native",
            sources=[NATIVE + name for name in ("engine.c", "search.c", "convert.c", "moveset.c", "state.c",
                                                 "searchtype.c", "spaces.c", "turnline.c", "module.c")],
            depends=[NATIVE + "engine.h", NATIVE + "search.h", NATIVE + "pytypes.h"],
            # No fused multiply-add: the search's floats must round as Python's do.  Only the
            # module's init function is exported.
            extra_compile_args=["-O2", "-ffp-contract=off", "-fvisibility=hidden"],
            optional=True,
        )
    ]
)
