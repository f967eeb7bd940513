"""How long a new player waits: a fresh web server's start-up and its first AI move.

Run: ``python benchmarks/first_ai_move.py [--level casual]``. Starts
``quiltmaker serve`` twice as a real process: first with an empty numba
cache (the first start after installing, when the compiled core is built),
then again with the cache that start left (every later start). Each time it
measures the seconds until the server prints its address, then opens an
AI game in which the AI moves first and measures the seconds from the
socket's connection to the AI's move. Prints one JSON object; the figures in
docs/web.md come from it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_start(cache: Path, data: Path, level: str) -> dict[str, float]:
    port = free_port()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "quiltmaker", "serve", "--port", str(port), "--data", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True,
    )
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if "is running" in line:
                break
        else:
            raise RuntimeError("the server ended before printing its address")
        ready = time.perf_counter() - started
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):  # the address is printed just before uvicorn listens
            try:
                urllib.request.urlopen(f"{base}/api/catalogue", timeout=5)
                break
            except OSError:
                time.sleep(0.05)
        request = urllib.request.Request(
            f"{base}/api/games",
            data=json.dumps({"mode": "ai", "level": level, "seat": 1, "seed": 7}).encode(),
            headers={"Content-Type": "application/json"},
        )
        game: dict[str, Any] = json.load(urllib.request.urlopen(request, timeout=30))
        with connect(f"ws://127.0.0.1:{port}/ws/games/{game['id']}") as ws:
            connected = time.perf_counter()
            while True:
                message = json.loads(ws.recv(timeout=600))
                if message.get("type") == "state" and message["state"]["version"] >= 1:
                    break
            first_move = time.perf_counter() - connected
        return {"until_address_s": round(ready, 2), "first_ai_move_s": round(first_move, 2)}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="casual")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cache, data = Path(folder) / "numba-cache", Path(folder) / "data"
        cache.mkdir()
        first = one_start(cache, data, args.level)
        later = one_start(cache, data, args.level)
    print(json.dumps({"level": args.level, "first_start_after_install": first, "later_start": later}))


if __name__ == "__main__":
    main()
