"""The folder tree is the design: packages by layer, no import upward and no import cycle.

Every ``import`` of an arena module is read from the source (also those inside functions and under
``TYPE_CHECKING``: a cycle hidden in a function is still a cycle).  A module may import its own
package's modules and any module of a layer below its own; never one above, and no two modules
may reach each other through imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parents[2] / "arena"

#: The layers, top to bottom.  A module belongs to the first entry that is its name or a package above it;
#: the names on one line are one layer (they may import each other's layers below, never each other).
LAYERS: list[tuple[str, ...]] = [
    ("arena.__main__",),
    ("arena.cli",),
    ("arena.commands",),
    # The web app over results folders: it reads what the layers below write (a match's file is the tournament's).
    ("arena.serve",),
    ("arena.tournament",),
    ("arena.report",),
    ("arena.results",),
    ("arena.stats",),
    ("arena.plan",),
    ("arena.play",),
    # The OS sandbox starts the bot host by name in its fork server; the host and the protocol know no sandbox.
    ("arena.isolation",),
    ("arena.wire",),
    ("arena.envs",),
    ("arena.display",),
    ("arena.records",),
    # The bot author's names and the plug-in machinery: neither imports the other.
    ("arena.bots", "arena.plugins"),
    ("arena.api",),
    ("arena.spaces",),
    ("arena.rules",),
    ("arena",),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ARENA.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The arena modules ``path`` imports (a name imported from a package counts as that module when it is one)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    modules = all_modules()
    return {m for m in found if m in modules and m != name}


_MODULES: dict[str, Path] = {}


def all_modules() -> dict[str, Path]:
    if not _MODULES:
        _MODULES.update((module_name(p), p) for p in sorted(ARENA.rglob("*.py")))
    return _MODULES


def layer_of(module: str) -> int:
    for index, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return index
    raise AssertionError(f"{module} belongs to no layer: add its package to LAYERS")


def unit_of(module: str) -> str:
    """The entry of LAYERS a module belongs to."""
    for names in LAYERS:
        for n in names:
            if module == n or module.startswith(n + "."):
                return n
    return module


def graph() -> dict[str, set[str]]:
    return {name: imports_of(path) for name, path in all_modules().items()}


def test_every_module_has_a_layer() -> None:
    for name in all_modules():
        layer_of(name)


def test_no_import_goes_upward_or_sideways() -> None:
    wrong = []
    for module, targets in graph().items():
        for target in targets:
            if module.startswith(target + ".") or target == "arena":
                continue  # a package's own __init__ (its docstring, a version) is below everything in it
            same_unit = unit_of(module) == unit_of(target)
            if not same_unit and layer_of(target) <= layer_of(module):
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


def test_no_import_cycle() -> None:
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue  # a package and its own modules
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("package", sorted({n for names in LAYERS for n in names if (ARENA.parent / n.replace(".", "/")).is_dir()}))
def test_every_package_says_what_it_holds(package: str) -> None:
    init = ARENA.parent / package.replace(".", "/") / "__init__.py"
    assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init} has no docstring"


def test_each_layer_is_a_top_level_package() -> None:
    """The tree reads like the layers: a layer is ``arena`` itself or one module or package right below it."""
    nested = [n for names in LAYERS for n in names if n.count(".") > 1 or (n.count(".") == 1 and not n.startswith("arena"))]
    assert not nested, f"layers that are not top-level packages: {nested}"


def test_every_package_is_installed() -> None:
    """pyproject.toml lists the packages one by one (the built-in bots' folder is mapped): none may be left out."""
    import tomllib

    listed = set(tomllib.loads((ARENA.parent / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    folders = {module_name(init.parent / "x.py").rpartition(".")[0] for init in ARENA.rglob("__init__.py")}
    assert folders <= listed, f"packages missing from pyproject.toml: {sorted(folders - listed)}"


#: The sizes a module and a function stay within, so that each can be read whole.
MODULE_LINES, FUNCTION_LINES, PARAMETERS = 600, 80, 8
#: The layers whose functions take their options as objects (a Click command's options aside).
FEW_PARAMETERS = ("arena.tournament", "arena.play", "arena.report", "arena.commands", "arena.cli")


def functions_of(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def parameters_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = function.args
    named = [x for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
    return len(named) + (a.vararg is not None) + (a.kwarg is not None)


def is_click_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(name in ast.unparse(d) for d in function.decorator_list for name in ("option", "argument", "command"))


def test_no_module_or_function_is_too_long_to_read_whole() -> None:
    long = [f"{module}: {path.read_text(encoding='utf-8').count(chr(10))} lines"
            for module, path in all_modules().items() if path.read_text(encoding="utf-8").count("\n") > MODULE_LINES]
    for module, path in all_modules().items():
        long += [f"{module}.{f.name}: {f.end_lineno - f.lineno + 1} lines" for f in functions_of(path)
                 if f.end_lineno is not None and f.end_lineno - f.lineno + 1 > FUNCTION_LINES]
    assert not long, "over the sizes:\n" + "\n".join(long)


def test_the_upper_layers_functions_take_few_parameters() -> None:
    many = [f"{module}.{f.name}: {parameters_of(f)}" for module, path in all_modules().items()
            if module.startswith(FEW_PARAMETERS) for f in functions_of(path)
            if parameters_of(f) > PARAMETERS and not is_click_command(f)]
    assert not many, "functions with more than 8 parameters:\n" + "\n".join(many)


# -- who owns which data ---------------------------------------------------------------------------------

#: The one module that parses games.csv: its versions, header and rows (:mod:`arena.results.games_table`).
GAMES_TABLE = "arena.results.games_table"
#: The one module that reads and writes tournament files (:mod:`arena.plan.config`).
TOURNAMENT_FILE = "arena.plan.config"


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def _is_csv_parse(call: ast.Call) -> bool:
    """``csv.reader(...)``/``csv.DictReader(...)``, or ``LINE.split(",")``: a CSV line taken apart by hand."""
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "csv":
        return f.attr in ("reader", "DictReader")
    return (isinstance(f, ast.Attribute) and f.attr == "split" and len(call.args) == 1
            and isinstance(call.args[0], ast.Constant) and call.args[0].value == ",")


def test_games_csv_rows_are_parsed_by_its_one_owner_never_by_position() -> None:
    """Rows of games.csv are read through :mod:`arena.results.games_table` (named fields), never taken apart
    elsewhere: a new column touches the schema, not every reader.  Other CSV files (a deals list, a spec's
    options) are split where they are read: the modules that name games.csv may not."""
    wrong = []
    for module, path in all_modules().items():
        text = path.read_text(encoding="utf-8")
        if module == GAMES_TABLE or not ("GAMES_FILE" in text or "games_table" in text or "games.csv" in text):
            continue
        wrong += [f"{module}:{c.lineno}: {ast.unparse(c)[:60]}" for c in _calls(ast.parse(text)) if _is_csv_parse(c)]
    assert not wrong, "games.csv taken apart outside games_table:\n" + "\n".join(wrong)


def _top_keys() -> tuple[str, ...]:
    from arena.plan.config import TOP_KEYS

    return TOP_KEYS


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant and the literal parts of f-strings, but docstrings and other bare strings
    (an example in a docstring is not a file written)."""
    bare = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, (ast.Constant, ast.JoinedStr))}
    found = []
    for node in ast.walk(tree):
        if id(node) in bare:
            continue
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "".join(v.value for v in node.values if isinstance(v, ast.Constant))))
            bare.update(id(v) for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def test_tournament_files_are_written_by_one_writer() -> None:
    """Only :func:`arena.plan.config.to_toml` writes a tournament file's keys (``time_limit = ...``): no other
    module writes TOML by hand or rewrites a file's text with patterns."""
    import re

    keys = re.compile(r"(?m)^\s*(?:" + "|".join(map(re.escape, _top_keys())) + r")\s*=\s*")
    wrong = [f"{module}:{line}: {text.strip()[:60]!r}" for module, path in all_modules().items()
             if module != TOURNAMENT_FILE for line, text in _strings(ast.parse(path.read_text(encoding="utf-8")))
             if keys.search(text)]
    assert not wrong, "tournament-file keys written outside arena.plan.config:\n" + "\n".join(wrong)


def test_the_plan_starts_nothing() -> None:
    """A tournament's plan is data: ``arena.plan`` imports neither the referee's package nor the sandbox nor
    the protocol (starting a bot belongs to :mod:`arena.play.entrants`)."""
    wrong = [f"{module} -> {target}" for module, targets in graph().items() if module.startswith("arena.plan")
             for target in targets if target.startswith(("arena.play", "arena.isolation", "arena.wire"))]
    assert not wrong, "the plan imports what runs games:\n" + "\n".join(sorted(wrong))


def test_no_private_name_crosses_a_package() -> None:
    """A name with a leading underscore is its package's own: no module of another package imports it."""
    wrong = []
    for module, path in all_modules().items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module.startswith("arena"):
                source = node.module if node.module in all_modules() and not all_modules()[node.module].name == "__init__.py" \
                    else node.module + ".x"
                source_package = source.rpartition(".")[0]
                wrong += [f"{module} imports {node.module}.{alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")
                          and source_package != package and not package.startswith(source_package + ".")]
    assert not wrong, "private names imported across packages:\n" + "\n".join(sorted(wrong))
