"""Packaging and architecture: the data copy, the layering of modules, the entry points."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from conftest import SHARED_DATA, shared_json

import quiltmaker
from quiltmaker.components import DATA, PATCHES, load_component_data

PACKAGE = Path(quiltmaker.__file__).parent
# Layers point one way: the rules core imports nothing from the layers above it.
CORE = {"components", "errors", "moves", "position", "game", "record"}


def test_packaged_data_equals_shared_data() -> None:
    assert load_component_data() == shared_json("patchwork-components.json")


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


def test_the_web_server_checks_moves_with_the_rules_engine_and_holds_no_rules_in_the_page() -> None:
    """The browser draws what the server sends: no patch costs or track spaces typed into the page."""
    static = PACKAGE / "web" / "static"
    assert (static / "index.html").is_file() and (static / "game.html").is_file()
    scripts = "".join(p.read_text(encoding="utf-8") for p in static.glob("*.js"))
    for rule_fact in ("income_spaces = [", "special_spaces = [", "LAST_SPACE = 53"):
        assert rule_fact not in scripts


def test_package_is_typed_and_carries_its_data() -> None:
    assert resources.files("quiltmaker").joinpath("py.typed").is_file()
    assert json.loads(resources.files("quiltmaker").joinpath("data/patchwork-components.json").read_text("utf-8"))


def test_module_and_console_entry_points() -> None:
    out = subprocess.run([sys.executable, "-m", "quiltmaker", "--help"], capture_output=True, text=True, check=True).stdout
    assert "replay" in out and "simulate" in out
    assert SHARED_DATA.name == "data"
