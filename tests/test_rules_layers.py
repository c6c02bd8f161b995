"""The modules of arena/rules import one way only: no two of them import each other, directly or round a
cycle, counting every import (inside functions and under TYPE_CHECKING too)."""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "arena" / "rules"


def imports_of(path: Path) -> set[str]:
    """The modules of arena.rules that ``path`` imports anywhere in it."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("arena.rules."):
                out.add(node.module.split(".")[2])
            elif node.module == "arena.rules":
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("arena.rules."):
                    out.add(alias.name.split(".")[2])
    return out


def graph() -> dict[str, set[str]]:
    modules = {path.stem: path for path in RULES.glob("*.py") if path.stem != "__init__"}
    return {name: imports_of(path) & set(modules) - {name} for name, path in modules.items()}


def test_no_module_of_the_rules_imports_one_that_imports_it_back() -> None:
    edges = graph()
    assert {"moves", "base", "state", "playout", "native", "view"} <= set(edges)
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(name):] + [name]))
        if name in done:
            return
        for other in sorted(edges[name]):
            visit(other, path + [name])
        done.add(name)

    for name in sorted(edges):
        visit(name, [])


def test_the_layers_of_the_state() -> None:
    edges = graph()
    assert "state" not in edges["playout"] and "state" not in edges["moves"] and "state" not in edges["base"]
    assert {"base", "moves"} <= edges["playout"] and "playout" in edges["state"]
