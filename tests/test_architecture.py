"""The folder layout is the architecture: who may import whom, no import cycles, and no import
placed inside a function unless it is a lazy import of a heavy or optional dependency.

Read from the source (ast), so it needs nothing installed and covers every import, at the top
of a module or inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("common", "scoring", "vision", "gestures", "mesa", "app", "training", "torneo", "server", "musmesa")
RUN_TIME = ("common", "scoring", "vision", "gestures", "mesa", "app", "torneo", "server", "musmesa")
# what each package may import of the others (the rest of what it imports is not ours)
ALLOWED = {
    "common": set(),  # the bottom layer (atomic writes): imports nothing of ours
    "scoring": set(),  # the rules engine stands alone, not even on common
    "vision": {"common", "scoring"},
    "gestures": {"common", "scoring"},
    # the logic of a table, shared by the tablet's screens and the phone pages: no Kivy, no HTTP
    "mesa": {"common", "scoring", "vision"},
    "app": {"common", "scoring", "vision", "gestures", "mesa"},
    "training": {"common", "scoring", "vision", "gestures"},
    # a tournament's shape: formats, pairings, standings; pure, no database
    "torneo": {"common", "scoring"},
    # the one server (`mus servir`): the partida on the phones, the reading API and the tournament
    "server": {"common", "scoring", "vision", "mesa", "torneo"},
    # the `mus` command line: every run-time package's command; nothing imports it
    "musmesa": {"common", "scoring", "vision", "gestures", "mesa", "app", "torneo", "server"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            out[_module_name(path)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name is (a submodule or the package it is in), or None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str, path: Path) -> Iterator[tuple[ast.stmt, str, bool]]:
    """(statement, imported project module, inside a function) for each project import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    in_function: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function |= {id(n) for n in ast.walk(fn) if n is not fn}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            names = [f"{base}.{a.name}" for a in node.names] if base else [a.name for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                yield node, target, id(node) in in_function


def _graph() -> dict[str, set[str]]:
    return {m: {t for _, t, _ in _imports(m, p)} for m, p in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (as a path back to its start), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                return [*stack[stack.index(t) :], t]
            if t not in state and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_checks_see_the_whole_project():
    assert {
        "vision.reader",
        "vision.detect",
        "scoring.tanteo",
        "gestures.recognizer",
        "app.main",
        "mesa.partida",
        "training.cards.evaluate",
    } <= MODULES.keys()
    assert "vision.reader" in _graph()["vision.cli_leer"]


def test_the_command_line_imports_each_command_where_the_checks_see_it():
    """`mus` imports every subcommand's module with an import statement (lazily), never by a
    name in a string, so this test and the type checker see what it runs."""
    commands = {"scoring.cli", "scoring.arbitro_cli", "vision.cli_leer", "vision.cli_mano", "vision.cli_baraja"}
    commands |= {"gestures.cli", "app.launcher", "server.cli_torneo", "server.cli"}
    assert commands <= _graph()["musmesa.cli"]
    assert "importlib" not in MODULES["musmesa.cli"].read_text(encoding="utf-8")


def test_nothing_imports_the_command_line():
    assert not [p for p, allowed in ALLOWED.items() if "musmesa" in allowed]


def _class_definitions(modules: dict[str, Path]) -> dict[str, list[str]]:
    """Each top-level class name and the modules defining it."""
    defined: dict[str, list[str]] = {}
    for m, path in modules.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, []).append(m)
    return defined


def test_each_class_name_is_defined_once():
    """One name, one class: a reader (and a search) never has to ask which `Estado` this is."""
    twice = {name: ms for name, ms in _class_definitions(MODULES).items() if len(ms) > 1}
    assert not twice


def test_the_class_name_check_finds_a_name_defined_twice(tmp_path):
    (tmp_path / "a.py").write_text("class Estado:\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    class Estado: ...\n\n\nclass Estado:\n    x = 1\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("class Otra:\n    pass\n", encoding="utf-8")
    found = _class_definitions({p.stem: p for p in sorted(tmp_path.glob("*.py"))})
    assert found == {"Estado": ["a", "b"], "Otra": ["c"]}


def test_there_is_no_import_cycle_anywhere():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_the_layout_allows(package):
    """Run time never imports training; scoring imports nothing of the others; vision and
    gestures know nothing of each other or of the app."""
    wrong = sorted(
        {
            f"{m} -> {t}"
            for m, p in MODULES.items()
            if m.split(".")[0] == package
            for _, t, _ in _imports(m, p)
            if t.split(".")[0] != package and t.split(".")[0] not in ALLOWED[package]
        }
    )
    assert not wrong


def _absolute_imports(package: str) -> Iterator[tuple[str, str]]:
    """(module, imported name) for every absolute import in ``package``, at the top or lazily."""
    for m, path in MODULES.items():
        if m.split(".")[0] != package:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for name in names:
                yield m, name


def test_scoring_needs_no_third_party_package():
    import sys

    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for m, name in _absolute_imports("scoring"):
        top = name.split(".")[0]
        assert top in stdlib or top == "scoring", f"{m} imports {name}"


def _comment_near(path: Path, line: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    near = lines[max(0, line - 5) : line]  # the import's line and the four above it (a block of imports)
    return " ".join(text.split("#", 1)[1] for text in near if "#" in text)


def test_an_import_inside_a_function_says_why():
    """A project module imported inside a function in run-time code is a lazy import of a heavy
    or optional dependency, with a comment saying so; never a way round a cycle."""
    silent = []
    for m, path in MODULES.items():
        if m.split(".")[0] not in RUN_TIME:
            continue
        for node, target, inside in _imports(m, path):
            if inside and not _comment_near(path, node.lineno):
                silent.append(f"{path.relative_to(REPO)}:{node.lineno} imports {target}")
    assert not silent


def test_the_shared_table_logic_imports_no_front_end():
    """mesa/ is used by the Kivy screens and by the phone pages alike: neither Kivy nor the web
    stack may be imported there, at the top or lazily."""
    front_ends = {"kivy", "fastapi", "starlette", "jinja2", "uvicorn"}
    for m, name in _absolute_imports("mesa"):
        assert name.split(".")[0] not in front_ends, f"{m} imports {name}"
