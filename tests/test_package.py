"""Packaging and architecture: the data copy, the layering of modules, the entry points."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tarfile
from importlib import resources
from pathlib import Path

from helpers import SHARED_DATA, TEST_DATA

import pytest

import quiltmaker
from quiltmaker.core.components import DATA, PATCHES, load_component_data

PACKAGE = Path(quiltmaker.__file__).parent
REPOSITORY = PACKAGE.parent


@pytest.mark.parametrize(
    "copy, name",
    [(PACKAGE / "data", "patchwork-components.json"), (TEST_DATA, "reference-games.json")],
    ids=["components in the package", "reference games in tests/data"],
)
def test_copies_of_the_shared_data_are_equal_to_it(copy: Path, name: str) -> None:
    """The package's component data and the tests' reference games are copies of the shared data folder."""
    if not SHARED_DATA.is_dir():
        pytest.skip("no shared data folder beside this clone: the copies are all there is")
    assert (copy / name).read_bytes() == (SHARED_DATA / name).read_bytes()


def test_the_packaged_data_is_what_the_rules_load() -> None:
    assert load_component_data() == json.loads((PACKAGE / "data" / "patchwork-components.json").read_text(encoding="utf-8"))


def test_component_totals_match_the_data_file() -> None:
    totals = DATA["totals"]
    assert len(PATCHES) == totals["patches"]
    assert sum(p.size for p in PATCHES) == totals["cells"]
    assert sum(p.income for p in PATCHES) == totals["income"]
    assert sum(p.cost for p in PATCHES) == totals["cost"]
    assert sum(p.time for p in PATCHES) == totals["time"]
    assert sum(len(p.orientations) for p in PATCHES) == totals["distinct_orientations"]


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and what it imports, read from the source (lazy imports included)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = parts[:-1] if parts[-1] != "__init__" else parts
        name = ".".join(package if parts[-1] == "__init__" else parts)
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
                module = ".".join(filter(None, [base, node.module or ""]))
                imported |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        graph[name] = imported
    return graph


def layer(module: str) -> str:
    """The layer of a module of the package: its subpackage's name (core, compiled, ai, engine, ...), or the module's."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "quiltmaker"


INTERFACES = {"cli", "tui", "web", "envs", "bench", "__main__"}
INTERFACE_LIBRARIES = {"rich", "textual", "fastapi", "starlette", "sqlalchemy", "uvicorn", "redis", "gymnasium", "pettingzoo", "pyspiel"}


def test_the_import_graph_points_one_way() -> None:
    """The core imports only the core and the standard library; the compiled rules only the core; the AI no interface.

    The layers are the package's own subpackages, read off the real import graph, so a new
    module is held to the rule of the folder it is put in.
    """
    graph = import_graph()
    assert {layer(m) for m in graph} >= {"core", "compiled", "ai", "engine", "tui", "web", "envs"}
    outside = {"numpy", "numba", "llvmlite"}
    for module, imports in graph.items():
        ours = {i for i in imports if i.split(".")[0] == "quiltmaker" and i in graph}
        theirs = {i.split(".")[0] for i in imports if i.split(".")[0] != "quiltmaker"} - {"__future__"}
        if layer(module) == "core":
            assert {layer(i) for i in ours} <= {"core"}, f"{module} imports {ours}"
            assert theirs <= sys.stdlib_module_names, f"{module} imports {theirs - sys.stdlib_module_names}"
        if layer(module) == "compiled":
            assert {layer(i) for i in ours} <= {"core", "compiled"}, f"{module} imports {ours}"
            assert theirs <= sys.stdlib_module_names | outside, f"{module} imports {theirs}"
        if layer(module) in ("ai", "engine", "core", "compiled"):
            assert not {layer(i) for i in ours} & INTERFACES, f"{module} imports an interface: {ours}"
    # The engine's client is a player the AI's levels may build: it needs the player interface, not the search.
    assert {i for i in graph["quiltmaker.engine.client"] if layer(i) == "ai" and i in graph} <= {"quiltmaker.ai.players"}


def test_the_import_graph_has_no_cycle() -> None:
    full = import_graph()
    graph = {module: {i for i in imports if i in full} - {module} for module, imports in full.items()}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in graph[module]:
            if imported.startswith(module + "."):
                continue  # a package importing its own modules
            assert state.get(imported) != 1, f"import cycle: {' -> '.join([*path, imported])}"
            if imported not in state:
                visit(imported, [*path, imported])
        state[module] = 2

    for module in graph:
        if module not in state:
            visit(module, [module])


def test_the_layers_import_one_another_without_a_cycle() -> None:
    """Between layers (subpackages and top-level modules) too: no layer reaches back to one that imports it.

    (The AI once built outside engines for the match runner while the engine
    served the AI: the player specifications now sit above both, in quiltmaker.specs.)
    """
    full = import_graph()
    layers: dict[str, set[str]] = {}
    for module, imports in full.items():
        if module == "quiltmaker":
            continue  # the package's front door imports what it offers: the layers below, none above
        layers.setdefault(layer(module), set()).update(
            layer(i) for i in imports if i in full and i != "quiltmaker" and layer(i) != layer(module)
        )
    assert "engine" not in layers["ai"] and "ai" in layers["engine"], "the engine serves the AI; the AI knows no engines"

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(step == goal or (step not in seen and reaches(step, goal, seen | {step})) for step in layers.get(start, ()))

    cycles = sorted(name for name in layers if reaches(name, name, {name}))
    assert cycles == [], f"layers in an import cycle: {cycles}"


def test_importing_the_package_loads_no_interface_libraries() -> None:
    code = f"import sys, quiltmaker; print(sorted(m for m in sys.modules if m.split('.')[0] in {INTERFACE_LIBRARIES!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_only_the_web_package_imports_the_web_libraries() -> None:
    """The rules, the AI and the other interfaces work without the ``web`` extra installed."""
    web_libraries = {"fastapi", "starlette", "sqlalchemy", "uvicorn", "redis", "pydantic"}
    for path in PACKAGE.rglob("*.py"):
        if "web" in path.relative_to(PACKAGE).parts[:1]:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for module in modules:
                    assert module.split(".")[0] not in web_libraries, f"{path.relative_to(PACKAGE)} imports {module}"


# What the page must never do itself, each with a fragment of source that doing it takes:
# the server sends the squares of every move, the board of every past position, and the
# successor of every orientation (see docs/web.md).
PAGE_RULE_FRAGMENTS = {
    "[RF]": "read an orientation out of move text",
    "[a-i]": "read a square out of move text",
    "S@(": "read a special patch's square out of move text",
    "circle.slice(": "rebuild the circle after a purchase",
    ".moves.slice(0": "replay a record's moves",
    "height - 1 - r": "turn a shape",
    "width - 1 - c": "mirror a shape",
    "?? 53": "type the last space of the time track",
    "?? 7": "type the bonus points",
    "?? 2;": "type the penalty of an empty square",
    "LAST_SPACE = 53": "type the last space of the time track",
    "income_spaces = [": "type the income spaces",
    "special_spaces = [": "type the special spaces",
    "abcdefghi": "type the column letters of square names",
    "BOARD = 9": "type the size of the quilt board",
    "repeat(54": "type the spaces of the time track (style sheet)",
    "}@${": "compose a purchase's move text",
    "`S@": "compose a special patch's move text",
    "${row + 1}": "compose a square's name",
    "columns[col]": "compose a square's name",
    "? 1 - ": "swap the seats for a rematch",
    "isAiSeat(s.to_move)": "decide who may move (the state's may_move says)",
    "s.lesson) return null": "decide that a lesson has no rematch (the state's may_rematch says)",
    "times[0] ===": "decide who moves first on a shared space",
    "< last ?": "decide who moves first on a shared space",
    "empty * ": "count the empty squares' penalty",
    "* penalty": "count the empty squares' penalty",
}


def test_the_web_server_checks_moves_with_the_rules_engine_and_holds_no_rules_in_the_page() -> None:
    """The browser draws what the server sends: it parses no move text, replays no moves, turns no shapes."""
    static = PACKAGE / "web" / "static"
    templates = PACKAGE / "web" / "templates"
    assert (templates / "index.html").is_file() and (templates / "game.html").is_file()
    for script in sorted([*static.glob("*.js"), *static.glob("*.css")]):
        source = script.read_text(encoding="utf-8")
        for fragment, what in PAGE_RULE_FRAGMENTS.items():
            assert fragment not in source, f"{script.name} holds a rule: it would {what} ({fragment!r})"


def test_package_is_typed_and_carries_its_data() -> None:
    assert resources.files("quiltmaker").joinpath("py.typed").is_file()
    assert json.loads(resources.files("quiltmaker").joinpath("data/patchwork-components.json").read_text("utf-8"))


def test_the_packages_listed_are_the_source_folders() -> None:
    """pyproject.toml lists the packages (one of them is the docs folder): every folder of the package that holds a
    module or a file to ship is listed, so that a new one is not left out of the wheel, nor warned about by setuptools."""
    import tomllib

    listed = set(tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(folder.relative_to(REPOSITORY).parts)
        for folder in [PACKAGE, *PACKAGE.rglob("*")]
        if folder.is_dir() and "__pycache__" not in folder.parts and any(f.is_file() and f.suffix != ".pyc" for f in folder.iterdir())
    }
    assert {name for name in listed if not name.startswith("quiltmaker.docs")} == folders


def test_module_and_console_entry_points() -> None:
    out = subprocess.run([sys.executable, "-m", "quiltmaker", "--help"], capture_output=True, text=True, check=True).stdout
    assert "replay" in out and "simulate" in out


def test_each_page_keeps_its_state_in_one_store_changed_only_through_update() -> None:
    """No script keeps state of its own at module level, and none assigns to a store's state: the types make the
    state read-only (page-store.js), and this holds the scripts to it where a cast could slip past them."""
    static = PACKAGE / "web" / "static"
    held = re.compile(r"^(?:let|var) |^const \w+ = (?:new (?:Map|Set|WeakMap)\(|\[\]|\{\})", re.M)
    written = re.compile(r"\b(?:ui|lobby)\.\w+(?:\.\w+)* (?:=|\+=|-=)(?!=)|\b(?:ui|lobby)\.\w+\.(?:set|delete|push|add|clear|splice)\(")
    for script in sorted(static.glob("*.js")):
        source = script.read_text(encoding="utf-8")
        assert not held.findall(source), f"{script.name} keeps module-level state: {held.findall(source)}"
        if script.name != "page-store.js":
            assert not written.findall(source), f"{script.name} writes the store without update(): {written.findall(source)}"
    stores = {name: (static / name).read_text(encoding="utf-8") for name in ("store.js", "lobby-store.js")}
    for name, source in stores.items():
        assert "createStore(" in source and "export const { update, setRenderer } = store;" in source, name
    assert "createStore(" in (static / "player.js").read_text(encoding="utf-8")


def test_the_page_modules_import_one_way() -> None:
    """The page's ES modules form no import cycle: a module never runs before one it needs has loaded."""
    static = PACKAGE / "web" / "static"
    graph = {
        script.name: set(re.findall(r'^import [^;]*? from "\./([\w.]+)";', script.read_text(encoding="utf-8"), re.M | re.S))
        for script in static.glob("*.js")
    }
    assert graph["game.js"] >= {"store.js", "panels.js", "input.js"}, graph["game.js"]  # the reader reads the real imports
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in sorted(graph[module]):
            assert imported in graph, f"{module} imports {imported}, which is not in static/"
            assert state.get(imported) != 1, f"import cycle: {' -> '.join([*path, imported])}"
            if imported not in state:
                visit(imported, [*path, imported])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


@pytest.mark.slow
def test_the_source_distribution_carries_every_test(tmp_path: Path) -> None:
    """An sdist, unpacked anywhere, collects the same tests as the repository (their data included)."""
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path), str(REPOSITORY)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    (archive,) = tmp_path.glob("quiltmaker-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()

    def collected(where: Path) -> list[str]:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
            cwd=where, capture_output=True, text=True, timeout=300,
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        return sorted(line for line in run.stdout.splitlines() if "::" in line)

    from_sdist = collected(unpacked)
    assert len(from_sdist) > 1000 and from_sdist == collected(REPOSITORY)
