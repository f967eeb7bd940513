"""People playing online at a human pace: N players find each other by quick match, play with clocks and chat.

Run: ``python benchmarks/web_players.py [--players 1000] [--think 3] [--moves 16] [--processes 1] [--direct]``.
Starts ``--processes`` real ``quiltmaker serve`` processes on one fresh
SQLite database (and, for more than one, a real Redis between them). Every
player joins the quick-match queue for ``10+5`` at once, through the
processes in turn, at random moments over ``--arrive`` seconds, and polls
each second as the page does until the server
pairs them (``--direct`` creates the games over HTTP instead); the pairing
time is from joining the queue to holding a seat. Then each player, when the
state says it is their turn, thinks for a random time around ``--think``
seconds and sends a random legal move, and every ``--chat-every`` moves of
a game says something in its chat. It measures, for every move, the time
from sending it to its ``ack`` (checked, committed with an fsync,
broadcast) and until the *opponent's* socket has the new state (across
processes when the two sit on different ones), and the server processes'
CPU time per move. Prints one JSON object; docs/web.md ("Load") quotes the
figures. The clients run in this one process beside the servers, on the
same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
from collections import Counter
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from web_load import legal_texts  # the page's way of listing moves: from the state, no rules
from websockets.asyncio.client import connect

LIMITS = [  # one address for all
    "--create-limit", "1000000/minute", "--intent-limit", "1000000/second", "--chat-limit", "1000000/minute",
    "--hello-limit", "1000000/second", "--offer-limit", "1000000/second", "--sockets-per-client", "1000000",
]
RUNNING = re.compile(r"quiltmaker is running: open http://[^/]+:(\d+)/")


class Figures:
    def __init__(self) -> None:
        self.pairing: list[float] = []
        self.chat: int = 0
        self.ack: list[float] = []
        self.seen: list[float] = []
        self.errors: list[str] = []
        self.sent: dict[tuple[str, int], float] = {}  # (game, version the move makes) -> when it was sent


async def post(client: httpx.AsyncClient, url: str, body: dict) -> dict:
    """A POST, tried again (as a browser does) when a kept-alive connection turns out closed before any answer."""
    for attempt in range(3):
        try:
            return (await client.post(url, json=body)).json()  # type: ignore[no-any-return]
        except httpx.TransportError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


async def paired(client: httpx.AsyncClient, url: str, figures: Figures, delay: float) -> tuple[str, str, int]:
    """After ``delay`` seconds, join the quick-match queue for 10+5 and wait (polling each second, as the page does) to be paired."""
    await asyncio.sleep(delay)
    asked = time.perf_counter()
    seek = await post(client, f"http://{url}/api/quickmatch", {"clock": "10+5"})
    while True:
        answer = await post(client, f"http://{url}/api/quickmatch/{seek['seek']}/poll", {"secret": seek["secret"]})
        if answer.get("matched"):
            figures.pairing.append(time.perf_counter() - asked)
            return answer["game"], answer["token"], answer["seat"]
        await asyncio.sleep(1.0)


async def player(
    url: str, game: str, token: str, seat: int, moves: int, think: float, rng: random.Random, figures: Figures, chat_every: int = 0
) -> None:
    async with connect(f"ws://{url}/ws/games/{game}", max_size=2**22, open_timeout=120) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        state: dict | None = None
        moved_at = -1
        while True:
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind == "state":
                state = message["state"]
                if state["moves"] and state["moves"][-1]["player"] != seat:  # the opponent's move, arriving
                    sent = figures.sent.pop((game, state["version"]), None)
                    if sent is not None:
                        figures.seen.append(time.perf_counter() - sent)
            elif kind == "error":
                figures.errors.append(f"{message['code']}: {message['message']}")
                if message["code"] not in ("stale",):
                    return
            if state is None:
                continue
            if state["result"] is not None or len(state["moves"]) >= moves:
                return
            if state["to_move"] != seat or state["version"] == moved_at or state["status"] != "playing":
                continue
            moved_at = state["version"]
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
            if chat_every and len(state["moves"]) % chat_every == seat:
                await ws.send(json.dumps({"type": "chat", "text": rng.choice(["good luck", "thinking…", "nice patch", "well played"])}))
                figures.chat += 1
            move = rng.choice(legal_texts(state))
            started = time.perf_counter()
            figures.sent[(game, state["version"] + 1)] = started
            await ws.send(json.dumps({"type": "move", "move": move, "version": state["version"], "id": f"{game}-{state['version']}"}))
            while True:
                reply = json.loads(await ws.recv())
                if reply["type"] == "ack":
                    figures.ack.append(time.perf_counter() - started)
                    break
                if reply["type"] == "chat":
                    continue
                if reply["type"] == "error":
                    figures.errors.append(f"{reply['code']}: {reply['message']}")
                    break
                if reply["type"] == "state":
                    state = reply["state"]


def start_server(data: Path, redis_url: str | None, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "quiltmaker", "serve", "--port", "0", "--data", str(data), *LIMITS, *(["--redis", redis_url] if redis_url else [])],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = RUNNING.search(log.read_text(errors="replace"))
        if found:
            return process, int(found[1])
        if process.poll() is not None:
            raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    raise SystemExit("the server did not start")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its children so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks


async def run(
    urls: list[str], players: int, moves: int, think: float, seed: int, pids: list[int], quick: bool, chat_every: int, arrive: float
) -> dict:
    games = players // 2
    figures = Figures()
    rng = random.Random(seed)
    seats = []
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    started = time.perf_counter()
    if quick:
        # Every player joins the quick-match queue at once (through the processes in turn) and waits to be paired.
        limits = httpx.Limits(max_connections=200)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            found = await asyncio.gather(
                *(paired(client, urls[index % len(urls)], figures, rng.uniform(0, arrive)) for index in range(players))
            )
        seats = [(urls[index % len(urls)], game, token, seat) for index, (game, token, seat) in enumerate(found)]
    async with httpx.AsyncClient(timeout=120) as client:
        for index in range(0 if quick else games):
            host = urls[index % len(urls)]
            created = (await client.post(f"http://{host}/api/games", json={"mode": "online", "seat": 0, "clock": "10+5"})).json()
            joined = (await client.post(f"http://{host}/api/games/{created['id']}/join", json={"invite": created["invite"]})).json()
            # The two players of a game on different processes when there are several: their moves cross Redis.
            seats.append((urls[index % len(urls)], created["id"], created["token"], 0))
            seats.append((urls[(index + 1) % len(urls)], created["id"], joined["token"], 1))
    patience = moves * think * 3 + 120  # a player whose opponent stopped (an error) stops too, in the end

    async def one(url: str, game: str, token: str, seat: int) -> None:
        try:
            await asyncio.wait_for(player(url, game, token, seat, moves, think, random.Random(rng.random()), figures, chat_every), patience)
        except (TimeoutError, OSError) as error:
            figures.errors.append(f"{type(error).__name__}: {error}")

    await asyncio.gather(*(one(url, game, token, seat) for url, game, token, seat in seats))
    elapsed = time.perf_counter() - started
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before

    def quantiles(values: list[float]) -> dict | None:
        if not values:
            return None
        ordered = sorted(values)
        return {
            "p50_ms": round(1000 * statistics.median(ordered), 1),
            "p99_ms": round(1000 * ordered[int(0.99 * (len(ordered) - 1))], 1),
            "max_ms": round(1000 * ordered[-1], 1),
        }

    return {
        "players": players,
        "processes": len(urls),
        "pairing": "quick match" if quick else "created directly",
        "pairing_time": quantiles(figures.pairing),
        "chat_lines": figures.chat,
        "think_s": think,
        "moves": len(figures.ack),
        "errors": len(figures.errors),
        "error_kinds": dict(Counter(error.split(":")[0] for error in figures.errors)),
        "error_examples": sorted(set(figures.errors))[:3],
        "seconds": round(elapsed, 1),
        "moves_per_s": round(len(figures.ack) / elapsed, 1),
        "ack": quantiles(figures.ack),
        "opponent_sees": quantiles(figures.seen),
        "server_cpu_ms_per_move": round(1000 * cpu / max(1, len(figures.ack)), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=16, help="moves per game (fewer if it ends first)")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds a player thinks before each move")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--direct", action="store_true", help="create the games directly instead of through the quick-match queue")
    parser.add_argument("--chat-every", type=int, default=4, help="a chat line every this many moves of a game (0: none)")
    parser.add_argument("--arrive", type=float, default=30.0, help="players join the queue at random times over this many seconds")
    args = parser.parse_args()
    # A socket is a file: lift this process's limit (the servers inherit it) to the hard limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        redis = None
        redis_url = None
        if args.processes > 1:
            if shutil.which("redis-server") is None:
                raise SystemExit("several processes need redis-server")
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                redis_port = probe.getsockname()[1]
            redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", ""], stdout=subprocess.DEVNULL)
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
            time.sleep(0.5)
        servers = [start_server(data, redis_url, data / f"server-{i}.log") for i in range(args.processes)]
        try:
            urls = [f"127.0.0.1:{port}" for _, port in servers]
            pids = [p.pid for p, _ in servers]
            figures = asyncio.run(run(urls, args.players, args.moves, args.think, args.seed, pids, not args.direct, args.chat_every, args.arrive))
            print(json.dumps(figures), flush=True)
            if figures["errors"]:  # the servers' logs say why
                for log in sorted(data.glob("server-*.log")):
                    print(f"--- {log.name} (end)\n{log.read_text(errors='replace')[-3000:]}", file=sys.stderr)
        finally:
            for process, _ in servers:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
            if redis is not None:
                redis.terminate()
                redis.wait()


if __name__ == "__main__":
    main()
