"""Packaging and architecture: the data copy, the layering of modules, the entry points."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from conftest import SHARED_DATA, TEST_DATA

import pytest

import quiltmaker
from quiltmaker.components import DATA, PATCHES, load_component_data

PACKAGE = Path(quiltmaker.__file__).parent
# Layers point one way: the rules core imports nothing from the layers above it.
CORE = {"components", "errors", "moves", "position", "game", "record"}


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


def test_core_imports_nothing_from_above() -> None:
    """Core modules import only the standard library and each other."""
    for name in CORE:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.module in CORE, f"{name} imports .{node.module}"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for module in modules:
                    assert module.split(".")[0] in sys.stdlib_module_names | {"__future__"}, f"{name} imports {module}"


INTERFACE_LIBRARIES = {"rich", "textual", "fastapi", "starlette", "sqlalchemy", "uvicorn", "redis", "gymnasium", "pettingzoo", "pyspiel"}


def test_importing_the_package_loads_no_interface_libraries() -> None:
    code = f"import sys, quiltmaker; print(sorted(m for m in sys.modules if m.split('.')[0] in {INTERFACE_LIBRARIES!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_only_the_web_package_imports_the_web_libraries() -> None:
    """The rules, the AI and the other interfaces work without the ``web`` extra installed."""
    web_libraries = {"fastapi", "starlette", "sqlalchemy", "uvicorn", "redis", "pydantic"}
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "web":
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
}


def test_the_web_server_checks_moves_with_the_rules_engine_and_holds_no_rules_in_the_page() -> None:
    """The browser draws what the server sends: it parses no move text, replays no moves, turns no shapes."""
    static = PACKAGE / "web" / "static"
    assert (static / "index.html").is_file() and (static / "game.html").is_file()
    for script in sorted(static.glob("*.js")):
        source = script.read_text(encoding="utf-8")
        for fragment, what in PAGE_RULE_FRAGMENTS.items():
            assert fragment not in source, f"{script.name} holds a rule: it would {what} ({fragment!r})"


def test_package_is_typed_and_carries_its_data() -> None:
    assert resources.files("quiltmaker").joinpath("py.typed").is_file()
    assert json.loads(resources.files("quiltmaker").joinpath("data/patchwork-components.json").read_text("utf-8"))


def test_module_and_console_entry_points() -> None:
    out = subprocess.run([sys.executable, "-m", "quiltmaker", "--help"], capture_output=True, text=True, check=True).stdout
    assert "replay" in out and "simulate" in out
