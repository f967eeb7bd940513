"""Modes and event kinds are declared once (quiltmaker.web.round.kinds) and compared as their members, never as strings."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from quiltmaker.web.round.kinds import AnyMode, EventKind, Mode, OfferKind

WEB = Path(__file__).parents[2] / "quiltmaker" / "web"
SPELLED = {member.value for kind in (Mode, EventKind, OfferKind) for member in kind}


def _named(node: ast.expr) -> str | None:
    """What a side of a comparison is called: a name, an attribute, or a key (``challenge["kind"]``)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def bare_comparisons() -> list[str]:
    """Each comparison, in the web server's code, of something named ``mode`` or ``kind`` with a mode's or an event
    kind's string (or a tuple of them), as ``file:line``."""
    found = []
    for path in sorted(WEB.rglob("*.py")):
        if path.name == "kinds.py" or "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "in_" and node.args:
                sides = [node.func.value, node.args[0]]  # a column's .in_((...))
            else:
                continue
            if any(_named(side) in ("mode", "kind", "offer") for side in sides) and any(_strings(side) & SPELLED for side in sides):
                found.append(f"{path.relative_to(WEB)}:{node.lineno}")
    return found


def test_no_mode_or_event_kind_is_compared_as_a_bare_string() -> None:
    assert bare_comparisons() == []


def test_the_scan_finds_a_bare_comparison() -> None:
    tree = ast.parse('if stored.mode == "online" or kind in ("resign", "abort") or challenge["kind"] == "open": pass')
    compares = [node for node in ast.walk(tree) if isinstance(node, ast.Compare)]
    assert len(compares) == 3 and all(_named(c.left) in ("mode", "kind") and _strings(c.comparators[0]) & SPELLED for c in compares)


def test_the_contract_s_modes_are_the_enum_s() -> None:
    assert set(get_args(AnyMode)) == set(Mode) and len(get_args(AnyMode)) == len(Mode)
