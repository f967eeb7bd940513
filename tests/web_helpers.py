"""Helpers shared by the web server's tests: reading moves out of a state, as a browser would.

The page holds no rules, so neither do these: every move they build comes
from the ``legal`` lists of a state the server sent (see docs/web.md).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any, TypeVar

COLUMNS = "abcdefghi"
BOARD = 9

T = TypeVar("T")


def square(anchor: int) -> str:
    """The name of a square given as ``row * 9 + col`` (the state's anchors), e.g. 0 -> ``a1``."""
    return f"{COLUMNS[anchor % BOARD]}{anchor // BOARD + 1}"


def legal_moves(state: dict[str, Any]) -> list[str]:
    """Every legal move of a state as text: specials, then purchases, then advancing."""
    legal = state["legal"]
    moves = [special["move"] for special in legal["specials"]]
    for buy in legal["buys"]:
        for orientation in buy["orientations"]:
            moves.extend(f"{buy['patch']}{orientation['transform']}@{square(a)}" for a in orientation["anchors"])
    if legal["advance"] is not None:
        moves.append(legal["advance"]["move"])
    return moves


def first_legal_move(state: dict[str, Any]) -> str:
    """The first legal move of a state (a purchase whenever one is possible, so games fill quilts)."""
    moves = legal_moves(state)
    assert moves, f"no legal move in a state with result {state['result']!r}"
    return moves[0]


def poll(check: Callable[[], T | None], timeout: float = 20.0, interval: float = 0.05, what: str = "a condition") -> T:
    """Call ``check`` until it returns something other than None/False; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    """A TCP port free on the loopback interface now (for a server process a test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# A test plays from one address much faster than any person: these lift the server's rate limits for it.
TEST_LIMITS = ["--create-limit", "100000/minute", "--intent-limit", "100000/second"]
