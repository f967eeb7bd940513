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


def test_importing_the_package_loads_no_interface_libraries() -> None:
    code = "import sys, quiltmaker; print(sorted(m for m in sys.modules if m.split('.')[0] in {'rich'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_package_is_typed_and_carries_its_data() -> None:
    assert resources.files("quiltmaker").joinpath("py.typed").is_file()
    assert json.loads(resources.files("quiltmaker").joinpath("data/patchwork-components.json").read_text("utf-8"))


def test_module_and_console_entry_points() -> None:
    out = subprocess.run([sys.executable, "-m", "quiltmaker", "--help"], capture_output=True, text=True, check=True).stdout
    assert "replay" in out and "simulate" in out
    assert SHARED_DATA.name == "data"
