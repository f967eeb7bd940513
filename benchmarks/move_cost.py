"""The server's CPU time per move, on the move path alone: intent, checks, event write, broadcast.

Run: ``python benchmarks/move_cost.py [--games 20] [--moves 40] [--rounds 3] [--database URL] [TREE ...]``.

Starts a real ``quiltmaker serve`` on a fresh SQLite database (or the
PostgreSQL database ``--database`` names, migrated by the server), opens
``--games`` pass-and-play games with a socket each (created and greeted
before the clock starts), then plays them at once, each in a closed loop (a
random legal move as soon as the last one's state has come), and reads the
server process's CPU time (user and system, from /proc) around the playing
alone. Each TREE (a checkout of the project, e.g. an older commit in a git
worktree; none: this one) is measured in turn, ``--rounds`` times,
interleaved, so that the ratio between trees holds however noisy the
machine is. Prints one line per run, then each tree's median. docs/benchmarks.md
("The move path") quotes it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from quiltmaker.web.contract import with_changes  # (the page's way of applying them)
from web_load import legal_texts  # the page's way of listing moves: from the state, no rules
from websockets.asyncio.client import connect

RUNNING = re.compile(r"quiltmaker is running: open http://[^/]+:(\d+)/")
LIMITS = ["--create-limit", "100000/minute", "--intent-limit", "100000/second", "--hello-limit", "100000/second", "--sockets-per-client", "100000"]


def cpu_ms(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process so far, in milliseconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    return int(fields[11]) * tick, int(fields[12]) * tick


def start(tree: str | None, data: Path, database: str | None) -> tuple[subprocess.Popen[bytes], int]:
    env = {**os.environ, "PYTHONPATH": tree} if tree else dict(os.environ)
    log = data / "server.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "quiltmaker", "serve", "--port", "0", "--data", str(data), *(["--database", database] if database else []), *LIMITS],
            stdout=output, stderr=subprocess.STDOUT, start_new_session=True, env=env, cwd=data,
        )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if found := RUNNING.search(log.read_text(errors="replace")):
            return process, int(found[1])
        if process.poll() is not None:
            raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    raise SystemExit("the server did not start")


async def play(url: str, pid: int, games: int, moves: int, seed: int) -> dict[str, float]:
    async with httpx.AsyncClient(timeout=60) as client:
        made = [(await client.post(f"http://{url}/api/games", json={"mode": "local", "seed": seed + n})).json() for n in range(games)]
    sockets = []
    for game in made:
        ws = await connect(f"ws://{url}/ws/games/{game['id']}", max_size=2**22)
        await ws.send(json.dumps({"type": "hello", "token": game["token"], "changes": True}))  # as the page asks (older trees ignore it)
        state = None
        while (message := json.loads(await ws.recv()))["type"] != "welcome" or state is None:
            state = message["state"] if message["type"] == "state" else state
        sockets.append((ws, state))
    rng = random.Random(seed)
    played = 0
    received = 0  # the bytes of the states (or their changes) the sockets received while playing

    async def one(ws: object, state: dict) -> None:
        nonlocal played, received
        for _ in range(moves):
            if state["result"] is not None:
                return
            await ws.send(json.dumps({"type": "move", "move": rng.choice(legal_texts(state)), "version": state["version"]}))  # type: ignore[attr-defined]
            acked = None
            while acked is None or state["version"] < acked:
                text = await ws.recv()  # type: ignore[attr-defined]
                message = json.loads(text)
                if message["type"] == "error":
                    raise SystemExit(f"a move was refused: {message}")
                acked = message["version"] if message["type"] == "ack" else acked
                if message["type"] in ("state", "changed"):
                    received += len(text)
                state = message["state"] if message["type"] == "state" else with_changes(state, message) if message["type"] == "changed" else state
            played += 1

    (user0, system0), started = cpu_ms(pid), time.perf_counter()
    await asyncio.gather(*(one(ws, state) for ws, state in sockets))
    (user1, system1), seconds = cpu_ms(pid), time.perf_counter() - started
    for ws, _ in sockets:
        await ws.close()
    return {
        "moves": played, "seconds": round(seconds, 2), "user_ms": (user1 - user0) / played, "system_ms": (system1 - system0) / played,
        "bytes": received / played,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", help="checkouts to measure (default: this one)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", help="a PostgreSQL URL (postgresql+psycopg://...) instead of a fresh SQLite file")
    args = parser.parse_args()
    trees = args.trees or [None]
    figures: dict[str, list[float]] = {str(tree or "this tree"): [] for tree in trees}
    for round_ in range(args.rounds):
        for tree in trees:
            with tempfile.TemporaryDirectory() as folder:
                process, port = start(tree, Path(folder), args.database)
                try:
                    result = asyncio.run(play(f"127.0.0.1:{port}", process.pid, args.games, args.moves, seed=round_ * 1000))
                finally:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            total = result["user_ms"] + result["system_ms"]
            figures[str(tree or "this tree")].append(total)
            print(f"{tree or 'this tree'}: {result['moves']} moves, {total:.2f} ms CPU a move ({result['user_ms']:.2f} user, {result['system_ms']:.2f} system), {result['bytes']:.0f} bytes of state a move", flush=True)
    for name, values in figures.items():
        print(f"median {name}: {statistics.median(values):.2f} ms CPU a move over {len(values)} runs")


if __name__ == "__main__":
    main()
