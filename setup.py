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
            sources=[NATIVE + "engine.c", NATIVE + "search.c", NATIVE + "module.c"],
            depends=[NATIVE + "engine.h", NATIVE + "search.h"],
            # No fused multiply-add: the search's floats must round as Python's do.
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
