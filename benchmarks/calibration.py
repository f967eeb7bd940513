"""Calibration data: games between strong levels, and what the search expected at every position.

Run: ``python benchmarks/calibration.py play OUT_DIR [SPEC] [GAMES] [SEED]``
plays GAMES self-play games of SPEC (default ``strong``, 4,000 games) in
chunks of 100 and writes each chunk as ``OUT_DIR/<spec>-<seed>-<chunk>.npz``:
the self-play arrays of ``quiltmaker selfplay`` without the observations and
masks (what the search expected of each move, the outcome, the final margin,
the moves and setups that replay the games). A chunk already written is kept,
so a stopped run carries on where it stopped. ``CALIBRATION_WORKERS`` sets
how many games play at once (default 1, which leaves a core free).

``python -m quiltmaker.ai.calibration fit`` fits the shipped model on these
files; ``python -m quiltmaker.ai.calibration report`` measures it on games the
fit did not see and draws the reliability plot of docs/strength.md.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from quiltmaker.envs import selfplay

CHUNK = 100
KEPT = [key for key in selfplay.ARRAY_KEYS if key not in ("observations", "masks")]


def play(out: Path, spec: str, games: int, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    workers = int(os.environ.get("CALIBRATION_WORKERS", "1"))
    name = spec.replace(":", "_").replace("=", "").replace(",", "_")
    for chunk in range(-(-games // CHUNK)):
        path = out / f"{name}-{seed}-{chunk:03d}.npz"
        if path.exists():
            continue
        arrays = selfplay.generate(spec, min(CHUNK, games - chunk * CHUNK), seed=seed * 100_003 + chunk, workers=workers)
        partial = path.with_suffix(".partial.npz")
        np.savez_compressed(partial, spec=np.array(spec), **{key: arrays[key] for key in KEPT})
        partial.rename(path)  # a chunk is there whole or not at all
        print(f"{path.name}: {len(arrays['game_seeds'])} games, {len(arrays['actions'])} positions", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "play":
        sys.exit(__doc__)
    play(
        Path(sys.argv[2]),
        sys.argv[3] if len(sys.argv) > 3 else "strong",
        int(sys.argv[4]) if len(sys.argv) > 4 else 4000,
        int(sys.argv[5]) if len(sys.argv) > 5 else 1,
    )
