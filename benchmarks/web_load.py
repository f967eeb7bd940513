"""A bounded load test of the web server on loopback: many games at once through WebSockets.

Run: ``python benchmarks/web_load.py [--games 200] [--moves 30] [--url HOST:PORT]``.
Without ``--url`` it starts ``quiltmaker serve`` on a fresh SQLite database in
a temporary folder. Every game is a pass-and-play game whose client plays
random legal moves from the states the server sends; the latency of a move
is from sending the intent to receiving its ``ack`` (the move checked and
committed to the database). Prints p50/p99/max latency, moves per second
and errors as JSON; docs/web.md quotes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx
from websockets.asyncio.client import connect

COLUMNS = "abcdefghi"


def legal_texts(state: dict) -> list[str]:
    """Every legal move's text, from the state's legal lists."""
    legal = state["legal"]
    texts = [special["move"] for special in legal["specials"]]
    if legal["advance"]:
        texts.append(legal["advance"]["move"])
    for buy in legal["buys"]:
        for orientation in buy["orientations"]:
            texts.extend(f"{buy['patch']}{orientation['transform']}@{COLUMNS[a % 9]}{a // 9 + 1}" for a in orientation["anchors"])
    return texts


async def play_one(url: str, game: dict, moves: int, seed: int, latencies: list[float], errors: list[str]) -> None:
    rng = random.Random(seed)
    async with connect(f"ws://{url}/ws/games/{game['id']}", max_size=2**22) as ws:
        state = json.loads(await ws.recv())["state"]
        await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        for ply in range(moves):
            if state["result"] is not None:
                break
            move = rng.choice(legal_texts(state))
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "move": move, "version": state["version"], "id": f"{seed}-{ply}"}))
            acked = False
            while not acked or state["version"] <= ply:
                message = json.loads(await ws.recv())
                if message["type"] == "ack":
                    latencies.append(time.perf_counter() - sent)
                    acked = True
                elif message["type"] == "error":
                    errors.append(f"{message['code']}: {message['message']}")
                    return
                elif message["type"] == "state":
                    state = message["state"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def run(url: str, games: int, moves: int) -> dict:
    async with httpx.AsyncClient(base_url=f"http://{url}", timeout=60) as client:
        created = [(await client.post("/api/games", json={"mode": "local", "seed": i})).json() for i in range(games)]
    latencies: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    await asyncio.gather(*(play_one(url, game, moves, i, latencies, errors) for i, game in enumerate(created)))
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "games": games,
        "moves": len(latencies),
        "errors": len(errors),
        "error_examples": errors[:3],
        "seconds": round(elapsed, 2),
        "moves_per_s": round(len(latencies) / elapsed, 1),
        "latency_ms_p50": round(1000 * statistics.median(ordered), 1),
        "latency_ms_p99": round(1000 * ordered[int(0.99 * (len(ordered) - 1))], 1),
        "latency_ms_max": round(1000 * ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=30, help="moves per game (fewer if it ends first)")
    parser.add_argument("--url", help="HOST:PORT of a running server (default: start one)")
    args = parser.parse_args()
    server = None
    url = args.url
    with tempfile.TemporaryDirectory() as data:
        if url is None:
            port = _free_port()
            url = f"127.0.0.1:{port}"
            # Every simulated player comes from this one address: lift the per-address rate limits.
            limits = ["--create-limit", "100000/minute", "--intent-limit", "100000/second", "--hello-limit", "100000/second", "--sockets-per-client", "100000"]
            server = subprocess.Popen([sys.executable, "-m", "quiltmaker", "serve", "--port", str(port), "--data", data, *limits])
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"http://{url}/api/catalogue").status_code == 200:
                        break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise
                time.sleep(0.2)
        try:
            print(json.dumps(asyncio.run(run(url, args.games, args.moves))), flush=True)
        finally:
            if server is not None:
                server.terminate()
                server.wait()


if __name__ == "__main__":
    main()
