"""A player's moves while other clients loop the heaviest lists: does reading cost the players anything?

Run: ``python benchmarks/web_beside_lists.py [--games 1000] [--loopers 2] [--moves 40]``.

Starts a real ``quiltmaker serve`` on a fresh SQLite database and has an
account play ``--games`` games to their end through it (as
``web_lists.py`` does). Then a player plays three pass-and-play games through
a socket, a move every 50 ms, and times each move's ``ack``: first alone, then
while ``--loopers`` clients ask for the account's player page and the lobby
as fast as they are answered. Prints one JSON object; docs/benchmarks.md
("Lists and player pages") quotes it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from web_lists import LIMITS, NAME, play_to_the_end, start_server
from web_load import legal_texts  # the page's way of listing moves: from the state, no rules
from web_players import quantiles
from websockets.asyncio.client import connect


async def player(url: str, moves: int) -> list[float]:
    """Three pass-and-play games, a random legal move 50 ms after each state; each move's time to its ack."""
    acks: list[float] = []
    async with httpx.AsyncClient(timeout=60) as client:
        for seed in range(3):
            game = (await client.post(f"http://{url}/api/games", json={"mode": "local", "seed": seed})).json()
            async with connect(f"ws://{url}/ws/games/{game['id']}", max_size=2**22) as ws:
                await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
                state: dict[str, Any] | None = None
                while (message := json.loads(await ws.recv()))["type"] != "welcome" or state is None:
                    state = message["state"] if message["type"] == "state" else state
                for _ in range(moves):
                    if state["result"] is not None:
                        break
                    await asyncio.sleep(0.05)
                    sent = time.perf_counter()
                    await ws.send(json.dumps({"type": "move", "move": random.choice(legal_texts(state)), "version": state["version"]}))
                    acked = None
                    while acked is None or state["version"] < acked:
                        message = json.loads(await ws.recv())
                        if message["type"] == "error":
                            raise SystemExit(f"a move was refused: {message}")
                        if message["type"] == "ack":
                            acked = message["version"]
                            acks.append(time.perf_counter() - sent)
                        state = message["state"] if message["type"] == "state" else state
    return acks


async def looper(url: str, stop: asyncio.Event) -> int:
    """The player page and the lobby, again and again until ``stop``; how many were asked for."""
    asked = 0
    async with httpx.AsyncClient(timeout=60) as client:
        while not stop.is_set():
            for path in (f"/api/players/{NAME}", "/api/lobby"):
                assert (await client.get(f"http://{url}{path}")).status_code == 200
                asked += 1
    return asked


async def measure(url: str, loopers: int, moves: int) -> dict[str, Any]:
    alone = await player(url, moves)
    stop = asyncio.Event()
    loops = [asyncio.create_task(looper(url, stop)) for _ in range(loopers)]
    started = time.perf_counter()
    beside = await player(url, moves)
    stop.set()
    asked = sum(await asyncio.gather(*loops))
    return {
        "moves": [len(alone), len(beside)],
        "ack_alone": quantiles(alone),
        "ack_beside_loopers": quantiles(beside),
        "loopers": loopers,
        "list_requests_per_s": round(asked / (time.perf_counter() - started), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--loopers", type=int, default=2)
    parser.add_argument("--moves", type=int, default=40, help="moves in each of the player's three games")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        process, port = start_server(["--data", str(data), *LIMITS], data / "server.log")
        try:
            url = f"127.0.0.1:{port}"
            asyncio.run(play_to_the_end(url, args.games))
            print(json.dumps({"games": args.games, **asyncio.run(measure(url, args.loopers, args.moves))}, indent=1))
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()


if __name__ == "__main__":
    main()
