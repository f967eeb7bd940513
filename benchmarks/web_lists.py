"""What a list or a player's page costs the server with 1,000 finished games in the database, cold and warm.

Run: ``python benchmarks/web_lists.py [--games 1000] [--database URL]``.

Starts a real ``quiltmaker serve`` on a fresh SQLite database (or the
PostgreSQL database ``--database`` names), signs an account up, and has it
play ``--games`` games to their end through the server, as people would:
each made by the account, joined by a guest, and resigned (or aborted) at
once through its socket. Then it starts the server again, so that nothing
is in its memory, and reads the server process's CPU time (every thread's,
from ``/proc``'s schedstat, in nanoseconds) around each request: the fresh
process's very first request (which pays for the process's one-time
warm-up), then each list and page, first cold (its games never read by
this process) and then warm. Prints one JSON object; docs/benchmarks.md
("Lists and profiles") quotes it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPOSITORY / "tests")]
from web_helpers import start_server  # noqa: E402
from web_players import LIMITS  # noqa: E402  (the same lifted limits: one address plays for all)

from quiltmaker.web.account.accounts import SESSION_COOKIE  # noqa: E402

NAME, PASSWORD = "Ada", "correct horse battery"


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of a process so far, in nanoseconds (the scheduler's count, not the clock ticks')."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total


async def play_to_the_end(url: str, games: int) -> None:
    """The account makes ``games`` games; a guest joins each and ends it at once (resigns, or aborts where it may)."""
    # (unsafe: the jar keeps cookies of an address like 127.0.0.1, which aiohttp refuses by default)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as account, aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as guest:
        async with account.post(f"http://{url}/api/account/signup", json={"name": NAME, "password": PASSWORD}) as response:
            assert response.status == 200, await response.text()
        slots = asyncio.Semaphore(16)

        async def one(n: int) -> None:
            async with slots:
                async with account.post(f"http://{url}/api/games", json={"mode": "online", "seat": n % 2, "clock": "10+5"}) as response:
                    made = await response.json()
                async with guest.post(f"http://{url}/api/games/{made['id']}/join", json={"invite": made["invite"]}) as response:
                    joined = await response.json()
                async with guest.ws_connect(f"ws://{url}/ws/games/{made['id']}") as ws:
                    await ws.send_str(json.dumps({"type": "hello", "token": joined["token"]}))
                    state: dict[str, Any] = {}
                    while (message := json.loads(await ws.receive_str()))["type"] != "welcome":
                        state = message.get("state", state)
                    ending = "abort" if state["can_abort"] else "resign"
                    await ws.send_str(json.dumps({"type": ending, "version": state["version"]}))
                    while (message := json.loads(await ws.receive_str()))["type"] != "ack":
                        assert message["type"] != "error", message

        await asyncio.gather(*(one(n) for n in range(games)))


def measure(url: str, pid: int, requests: list[tuple[str, str]], cookie: str) -> dict[str, dict[str, float]]:
    """Each request in turn: the server's CPU milliseconds around it, and the wall time."""
    figures = {}
    with httpx.Client(base_url=f"http://{url}", timeout=120, cookies={SESSION_COOKIE: cookie}) as client:
        for name, path in requests:
            before, started = cpu_ns(pid), time.perf_counter()
            response = client.get(path)
            wall, cpu = time.perf_counter() - started, cpu_ns(pid) - before
            assert response.status_code == 200, (path, response.text[:300])
            figures[name] = {"cpu_ms": round(cpu / 1e6, 1), "wall_ms": round(1000 * wall, 1), "bytes": len(response.content)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--database", help="a PostgreSQL URL (postgresql+psycopg://...) instead of a fresh SQLite file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        arguments = ["--data", str(data), *(["--database", args.database] if args.database else []), *LIMITS]
        process, port = start_server(arguments, data / "server.log")
        url = f"127.0.0.1:{port}"
        try:
            started = time.perf_counter()
            asyncio.run(play_to_the_end(url, args.games))
            made_in = time.perf_counter() - started
            with httpx.Client(base_url=f"http://{url}") as client:
                signed = client.post("/api/account/signin", json={"name": NAME, "password": PASSWORD})
                cookie = signed.cookies[SESSION_COOKIE]
                first_page = client.get(f"/api/players/{NAME}").json()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
        older = first_page["more"]
        lists = [
            ("profile", f"/api/players/{NAME}"),
            ("profile, next page", f"/api/players/{NAME}?before={older}"),
            ("your games (lobby)", "/api/account/games"),
            ("games by id (lobby)", "/api/games?ids=" + ",".join(game["id"] for game in first_page["games"])),
            ("lobby", "/api/lobby"),
            ("leaderboard", "/api/leaderboard"),
        ]
        results: dict[str, Any] = {"games": args.games, "database": "PostgreSQL" if args.database else "SQLite", "played_in_s": round(made_in, 1)}
        for first in ("profile", "catalogue"):  # a fresh process each: its first request is the profile, then an unrelated one
            process, port = start_server(arguments, data / f"server-{first}.log")
            try:
                url = f"127.0.0.1:{port}"
                opening = lists[:1] if first == "profile" else [("catalogue (first request)", "/api/catalogue")]
                cold = measure(url, process.pid, opening + lists[1 if first == "profile" else 0 :], cookie)
                warm = measure(url, process.pid, lists, cookie)
            finally:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait()
            results["first request: " + first] = {"cold": cold, "warm": warm}
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
