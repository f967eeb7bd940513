"""The strength ladder: matches between neighbouring levels, and expert against greedy.

Run: ``python benchmarks/strength.py [GAMES] [OUT_DIR] [PAIR ...]``, where a
pair is ``a/b`` (default: the whole ladder). ``STRENGTH_WORKERS`` sets how
many games play at once (default: one per core); fewer leaves a core free
without slowing the games that are timed. Each match plays every setup
twice with seats swapped, writes its records under OUT_DIR, and appends its
summary as a JSON line to OUT_DIR/summary.jsonl. A match stopped part-way
carries on where it stopped: games already recorded are counted, not
replayed. The figures in docs/strength.md come from this script.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from quiltmaker.match import run_match

LADDER = ["casual/beginner", "strong/casual", "expert/strong", "expert/greedy", "max/expert"]

if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("strength-results")
    pairs = sys.argv[3:] or LADDER
    out.mkdir(parents=True, exist_ok=True)
    for pair in pairs:
        a, b = pair.split("/")
        started = time.time()
        result = run_match(
            (a, b),
            games,
            seed=2026,
            records=out / f"{a}-vs-{b}",
            resume=True,
            workers=int(os.environ.get("STRENGTH_WORKERS", "0")) or None,
        )
        summary = {**result.summary(), "seconds": round(time.time() - started, 1)}
        with open(out / "summary.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(summary) + "\n")
        print(json.dumps(summary), flush=True)
