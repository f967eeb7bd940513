"""One round: every event a server writes (a player's intent, the clock's timeout, the computer's move, a credit of
time) is written by one function, through the gate of the log that its replay passes too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_client import create

from quiltmaker.web.round.kinds import EventKind
from quiltmaker.web.round.rules import Refusal

WEB = Path(__file__).parents[2] / "quiltmaker" / "web"


def calls_of(name: str) -> dict[str, list[str]]:
    """By web module: the functions in it that call something named ``name`` (a method or a function)."""
    found: dict[str, list[str]] = {}
    for path in sorted(WEB.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == name:
                    found.setdefault(path.relative_to(WEB).as_posix(), []).append(function.name)
    return found


def test_every_event_is_appended_by_record_through_the_gate_and_every_game_is_held_by_holding() -> None:
    # (Lists append too: the store's append is called by the functions named "record" alone.)
    assert {module for module, functions in calls_of("append").items() if "record" in functions} == {"live.py"}
    assert "store.append" not in "".join(path.read_text() for path in WEB.rglob("*.py") if path.name != "live.py")
    assert calls_of("check_live") == {"live.py": ["record"]}, "record, and only record, passes every event through the gate"
    assert set(calls_of("check")) == {"round/log.py", "round/rules.py"}, "the replay passes the same gate (rules.check_live calls it)"
    assert calls_of("check_move") == {"round/rules.py": ["_check_move"]}, "a move is read and checked once, by the gate"
    held = [path.name for path in WEB.rglob("*.py") if "locks[" in path.read_text()]
    assert held == ["live.py"], "a game is locked only by LiveGames.holding"


def test_an_event_the_rules_refuse_is_not_written_whoever_writes_it(client: TestClient) -> None:
    game = create(client, mode="local", seed=5)
    server = client.app.state.server  # type: ignore[attr-defined]

    async def write(kind: EventKind, value: str, seat: int | None) -> None:
        async with server.games.holding(game["id"]) as stored:
            await server.games.record(stored, stored.version, kind, value, seat, None)

    for kind, value, seat, code in [
        (EventKind.MOVE, "4R0@a1", 0, "illegal"),  # (patch 4 is not on offer)
        (EventKind.MOVE, "no move", None, "malformed"),  # the computer's or a script's move is read like anyone's
        (EventKind.TIMEOUT, "0", None, "not_allowed"),  # a game without a clock runs out of no time
        (EventKind.UNDO, "3", 0, "not_allowed"),  # nothing to take back
        (EventKind.CREDIT, "0 1.000", None, "not_allowed"),  # nor is given any back
    ]:
        with pytest.raises(Refusal) as refused:
            client.portal.call(write, kind, value, seat)
        assert refused.value.code == code, (kind, value, refused.value)
    stored = server.games.cache[game["id"]]
    assert stored.version == 0 and server.store.load(game["id"]).version == 0, "nothing was written"
    client.portal.call(write, EventKind.MOVE, "a", 0)  # a move as a player may write it: kept as the log keeps it
    assert server.store.load(game["id"]).version == 1 and [m.text() for m in server.games.cache[game["id"]].game.moves] == ["A"]


def test_the_rounds_core_is_pure_and_imports_no_other_part_of_the_server() -> None:
    for name in ("game", "rules", "log", "clocks", "kinds"):
        tree = ast.parse((WEB / "round" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                assert node.level != 2 and not (node.level == 0 and module.startswith(("sqlalchemy", "asyncio", "fastapi"))), (name, module)
            elif isinstance(node, ast.Import):
                assert not any(alias.name.split(".")[0] in ("sqlalchemy", "asyncio", "fastapi") for alias in node.names), name


def test_no_service_holds_the_root() -> None:
    """The root passes each service what it uses (the live games, the sockets, the bus): none keeps a ``server``."""
    for path in sorted(WEB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                assert node.attr != "server", f"{path.relative_to(WEB)} keeps the server"
