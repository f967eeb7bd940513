"""Helpers shared by the web server's tests: reading moves out of a state, as a browser would.

The page holds no rules, so neither do these: every move they build comes
from the ``legal`` lists of a state the server sent (see docs/web.md).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
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


RUNNING = re.compile(r"quiltmaker is running: open http://[^/]+:(\d+)/")


def start_server(
    arguments: Sequence[str], log: Path, cwd: Path | None = None, timeout: float = 120.0, port: int = 0
) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``python -m quiltmaker serve --port 0 ...``; the process and its port, once /api/catalogue answers.

    (``port``: a given port instead, for a server restarted where a proxy expects it.) Every state it sends is checked
    against the contract (``--check-states``), as the in-process tests' are.

    The server takes a free port itself and prints it: a port chosen here and
    passed in could be taken by another process in between. The process gets
    its own process group, so that killing the group takes its AI workers too.
    Its output goes to ``log``, a file (a pipe nobody reads would block it
    when full), whose end is in every error.
    """
    import httpx

    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "quiltmaker", "serve", "--port", str(port), "--check-states", *arguments],
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            start_new_session=True,
        )

    def tail() -> str:
        return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.exists() else ""

    def port() -> int | None:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with code {process.returncode}:\n{tail()}")
        running = RUNNING.search(tail())
        if running is None:
            return None
        try:
            answered = httpx.get(f"http://127.0.0.1:{running[1]}/api/catalogue", timeout=5, trust_env=False).status_code == 200
        except httpx.HTTPError:
            return None
        return int(running[1]) if answered else None

    try:
        deadline = time.monotonic() + timeout
        while (found := port()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not start within {timeout} s; its log:\n{tail()}")
            time.sleep(0.1)
        return process, found
    except BaseException:
        process.kill()
        process.wait()
        raise


def free_port() -> int:
    """A TCP port free on the loopback interface now (for a server process a test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# A test plays from one address much faster than any person: these lift the server's rate limits for it.
TEST_LIMITS = ["--create-limit", "100000/minute", "--intent-limit", "100000/second", "--hello-limit", "100000/second", "--offer-limit", "100000/second"]


def play_in_the_past(store: Any, game_id: str, moves: list[tuple[str, float]]) -> None:
    """Append moves to a stored game as if each was made ``seconds_ago``, with the clocks they leave, as the server does.

    A clock is derived from when each move was made, so this gives a clocked
    game a past (as a game looks after its server was down a while) without
    waiting for it.
    """
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import update

    from quiltmaker.web.round.game import Event
    from quiltmaker.web.db.schema import GameRow

    stored = store.load(game_id)
    if stored.status == "waiting":  # a game under way: its invitation was spent, as the rules require before a move
        with store.writing() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(invite_hash=None))
        stored = store.load(game_id)
    for move, seconds_ago in moves:
        when = datetime.now(timezone.utc) - timedelta(seconds=seconds_ago)
        version = stored.version
        seat = stored.game.position.to_move
        store.append(game_id, version, "move", move, seat, None, when, stored.clock_after("move", move, when))
        stored.apply(Event(version, "move", move, seat, None, when))


def new_game(store: Any, mode: str, start: Any, names: list[str], **setup: Any) -> Any:
    """A game made in ``store``'s database as the server makes every game (:class:`quiltmaker.web.setup.GameMaker`)."""
    from quiltmaker.web.round.kinds import Mode
    from quiltmaker.web.setup import GameMaker, GameSetup

    return GameMaker(store.database).make(GameSetup(Mode(mode), start, names, **setup))


def migrated_store(url: str) -> Any:
    """A store on the database at ``url``, migrated first as a server does when it starts."""
    from quiltmaker.web.db.database import migrate
    from quiltmaker.web.round.store import GameStore

    migrate(url)
    return GameStore(url)


def appended_together(store: Any, appends: Sequence[tuple[str, int, str, int]]) -> tuple[list[Any], int]:
    """Append the moves ``(game, number, move, seat)`` through the database's shared commits, all sent at once as a
    thousand players' moves are; what each write gave (the new version, or the error it raised) and the commits made."""
    import asyncio

    from sqlalchemy import event

    commits = []

    def committed(_connection: Any) -> None:
        commits.append(1)

    event.listen(store.database.engine, "commit", committed)

    async def together() -> list[Any]:
        writes = [
            store.database.commits.write(game, lambda rows, g=game, n=number, m=move, s=seat: store.append(g, n, "move", m, s, None, rows=rows))
            for game, number, move, seat in appends
        ]
        return await asyncio.gather(*writes, return_exceptions=True)

    try:
        return asyncio.run(together()), len(commits)
    finally:
        event.remove(store.database.engine, "commit", committed)
