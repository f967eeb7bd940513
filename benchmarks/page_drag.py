"""What the page costs while a patch is dragged over the quilt: each pointer move handled and the page drawn.

Run: ``python benchmarks/page_drag.py [--moves 200] [--runs 5] [--baseline CHECKOUT]``.
It starts ``quiltmaker serve`` on a fresh database, opens a pass-and-play game
in headless Chromium (Debian's, ``/usr/bin/chromium``), picks a patch up and
dispatches pointer moves over the quilt from inside the page: each is handled
synchronously (the hold moves, the store's ``update`` draws the page), so the
time per move is the page's own work, layout included. With ``--baseline``
it measures another checkout of the project too (its server and its page),
alternating runs so that both see the same machine; docs/web.md quotes the
figures.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]

DRAG = """([x, y, w, h, moves]) => {
  const t0 = performance.now();
  for (let i = 0; i < moves; i++) {
    const fx = x + w * (0.1 + 0.8 * ((i * 37) % 100) / 100), fy = y + h * (0.1 + 0.8 * ((i * 61) % 100) / 100);
    document.dispatchEvent(new PointerEvent("pointermove", { clientX: fx, clientY: fy, bubbles: true, pointerType: "mouse" }));
  }
  return (performance.now() - t0) / moves;
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def measure(checkout: Path, moves: int) -> float:
    """Milliseconds a pointer move, over ``moves`` moves, for the server and page of ``checkout``."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # that checkout's package, whichever is installed
    command = [sys.executable, "-m", "quiltmaker", "serve", "--port", str(port), "--data", tempfile.mkdtemp()]
    server = subprocess.Popen(command, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(f"{base}/api/catalogue", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        game = httpx.post(f"{base}/api/games", json={"mode": "local", "seed": 7}, timeout=30).json()
        seats = json.dumps({game["id"]: {"token": game["token"], "seat": "both"}})
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(f"localStorage.setItem('quiltmaker.games', {json.dumps(seats)})")
            page.goto(f"{base}/game/{game['id']}")
            page.wait_for_function("() => document.querySelector('[data-testid=version]').textContent === 'v0'")
            offer = page.locator(".offer.affordable").first
            offer.wait_for()
            box = offer.bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            board = page.get_by_test_id("quilt-0").bounding_box()
            assert board is not None
            page.evaluate(DRAG, [board["x"], board["y"], board["width"], board["height"], moves])  # warm up
            result = float(page.evaluate(DRAG, [board["x"], board["y"], board["width"], board["height"], moves]))
            browser.close()
            return result
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout of quiltmaker, measured in turn with this one")
    args = parser.parse_args()
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for _ in range(args.runs):
        for name, checkout in checkouts.items():
            times[name].append(measure(checkout, args.moves))
    report = {name: {"ms_per_move_median": round(statistics.median(t), 3), "runs": [round(x, 3) for x in t]} for name, t in times.items()}
    if args.baseline:
        report["ratio"] = round(statistics.median(times["this"]) / statistics.median(times["baseline"]), 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
