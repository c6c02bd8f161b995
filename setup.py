"""The optional C rules engine (arena.rules._native), and the tutorial files as package data; everything else
is in pyproject.toml.

``optional=True``: where the extension cannot be built (no C compiler, or one
without 128-bit ints) the install goes on without it and the arena uses its
pure-Python engine, only slower (``arena info`` says which engine is in use).
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

NATIVE = "arena/rules/native/"
#: The folders of files the tutorials use, shipped as arena/tutorial/ (arena.tutorial_files, arena init).
TUTORIAL = ("tournaments", "examples")


class BuildWithTutorial(build_py):
    """build_py, and the tutorial folders copied into the built package as arena/tutorial/."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads them from the checkout
            return
        here = Path(__file__).resolve().parent
        for folder in TUTORIAL:
            if (here / folder).is_dir():
                shutil.copytree(here / folder, Path(self.build_lib) / "arena" / "tutorial" / folder, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "trained.json", "build"))


setup(
    cmdclass={"build_py": BuildWithTutorial},
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
