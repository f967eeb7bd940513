"""Calibration: games between strong levels, the model fitted on them, and its measure on games it did not see.

``python benchmarks/calibration.py play OUT_DIR [SPEC] [GAMES] [SEED]``
plays GAMES self-play games of SPEC (default ``strong``, 4,000 games) in
chunks (of 100 games, or ``CALIBRATION_CHUNK``) and writes each chunk as ``OUT_DIR/<spec>-<seed>-<chunk>.npz``:
the self-play arrays of ``quiltmaker selfplay`` without the observations and
masks (what the search expected of each move, the outcome, the final margin,
the moves and setups that replay the games). A chunk already written is kept,
so a stopped run carries on where it stopped. ``CALIBRATION_WORKERS`` sets
how many games play at once (default 1, which leaves a core free).

``python benchmarks/calibration.py table OUT_DIR SPEC TABLE.npz`` replays
those games into one row a position: the game, its stage
(:func:`quiltmaker.ai.calibration.stage`), the search's raw win rate and
margin, whether the endgame solver decided it, the outcome and the final
margin, and whether the game is held out (its setup seed is a multiple of
5: a fifth of the games, never seen by the fit). The tables the shipped
model came from are in ``benchmarks/calibration-data/``.

``python benchmarks/calibration.py fit TABLE.npz [TABLE.npz ...]`` fits the
model on the searched positions of the games not held out and writes
``quiltmaker/data/calibration.json``.

``python benchmarks/calibration.py report TABLE.npz [TABLE.npz ...] [--plot PNG]``
measures the shipped model on each table's held-out games (all the games of
a table made by another player, which the fit saw none of): the expected
calibration error over 10 bins, with a 95% interval from resampling games,
the mean absolute error of the margin, both before and after calibration,
and draws the reliability plot of docs/strength.md.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from quiltmaker.ai import calibration
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position
from quiltmaker.envs import selfplay

CHUNK = int(os.environ.get("CALIBRATION_CHUNK", "100"))  # games a file
KEPT = [key for key in selfplay.ARRAY_KEYS if key not in ("observations", "masks")]


def play(out: Path, spec: str, games: int, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    workers = int(os.environ.get("CALIBRATION_WORKERS", "1"))
    name = chunk_name(spec)
    for chunk in range(-(-games // CHUNK)):
        path = out / f"{name}-{seed}-{chunk:03d}.npz"
        if path.exists():
            continue
        arrays = selfplay.generate(spec, min(CHUNK, games - chunk * CHUNK), seed=seed * 100_003 + chunk, workers=workers)
        partial = path.with_suffix(".partial.npz")
        np.savez_compressed(partial, spec=np.array(spec), **{key: arrays[key] for key in KEPT})
        partial.rename(path)  # a chunk is there whole or not at all
        print(f"{path.name}: {len(arrays['game_seeds'])} games, {len(arrays['actions'])} positions", flush=True)


def chunk_name(spec: str) -> str:
    return spec.replace(":", "_").replace("=", "").replace(",", "_")


def table(data: Path, spec: str, out: Path) -> None:
    """One row a position of every game of ``spec`` in ``data``, replayed for its stage."""
    columns: dict[str, list[np.ndarray]] = {key: [] for key in ("game", "ply", "stage", "win_rate", "margin", "iterations", "solved", "won", "final_margin", "held_out")}
    games = 0
    for path in sorted(data.glob(f"{chunk_name(spec)}-*[0-9].npz")):
        with np.load(path) as chunk:
            arrays = {key: chunk[key] for key in chunk.files}
        visits = np.add.reduceat(arrays["policy_visits"], arrays["policy_offsets"][:-1])
        stages = np.empty(len(arrays["actions"]))
        for g, seed in enumerate(arrays["game_seeds"]):
            rows = np.flatnonzero(arrays["game"] == g)
            position = Position.initial(int(seed))
            for row in rows:
                stages[row] = calibration.stage(position)
                position = position.play_unchecked(Move.from_action(int(arrays["actions"][row])))
        columns["game"].append(arrays["game"] + games)
        columns["ply"].append(arrays["ply"])
        columns["stage"].append(stages.astype(np.float32))
        columns["win_rate"].append(arrays["search_win_rate"])
        columns["margin"].append(arrays["search_margin"])
        columns["iterations"].append(visits.astype(np.int64))
        columns["solved"].append(visits == 1)
        columns["won"].append(arrays["outcome"] == 1)
        columns["final_margin"].append(arrays["margin"])
        columns["held_out"].append((arrays["game_seeds"] % 5 == 0)[arrays["game"]])
        games += len(arrays["game_seeds"])
    np.savez_compressed(out, spec=np.array(spec), **{key: np.concatenate(parts) for key, parts in columns.items()})
    print(f"{out}: {games} games, {sum(len(p) for p in columns['ply'])} positions")


def fit(paths: list[Path]) -> None:
    model = calibration.fit_tables(paths)
    target = Path(calibration.__file__).parent.parent / "data" / "calibration.json"
    target.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"{target}: fitted on {json.dumps(model.source['fitted_on'])}")


def measure(rows: dict[str, np.ndarray], model: calibration.Calibration, resamples: int = 1000) -> dict[str, object]:
    """The model's figures on one table's rows (the held-out ones, or all where the fit saw none of its games)."""
    solved = rows["solved"]
    raw = rows["win_rate"].astype(np.float64)
    p = np.where(solved, raw, model.win_probabilities(rows["win_rate"], rows["stage"], rows["iterations"]))
    m = np.where(solved, rows["margin"], model.expected_margins(rows["margin"], rows["stage"], rows["iterations"]))
    y = rows["won"].astype(np.float64)
    searched = ~solved
    games = np.unique(rows["game"])
    rng = np.random.default_rng(0)
    by_game = {g: np.flatnonzero(rows["game"] == g) for g in games}
    resampled = []
    for _ in range(resamples):  # whole games, since a game's positions share one outcome
        picked = np.concatenate([by_game[g] for g in rng.choice(games, len(games))])
        resampled.append(calibration.reliability(p[picked], y[picked])[0])
    ece, bins = calibration.reliability(p, y)
    start = rows["ply"] == 0
    return {
        "games": len(games),
        "positions": len(y),
        "searched": int(searched.sum()),
        "ece": round(ece, 4),
        "ece_95": [round(float(v), 4) for v in np.percentile(resampled, [2.5, 97.5])],
        "ece_searched": round(calibration.reliability(p[searched], y[searched])[0], 4),
        "ece_raw": round(calibration.reliability(raw, y)[0], 4),
        "ece_raw_searched": round(calibration.reliability(raw[searched], y[searched])[0], 4),
        "margin_mae": round(float(np.abs(m - rows["final_margin"]).mean()), 2),
        "margin_mae_searched": round(float(np.abs(m - rows["final_margin"])[searched].mean()), 2),
        "margin_mae_raw_searched": round(float(np.abs(rows["margin"] - rows["final_margin"])[searched].mean()), 2),
        "start_probability": [round(float(v), 3) for v in (p[start].min(), p[start].mean(), p[start].max())],
        "start_raw": [round(float(v), 3) for v in (raw[start].min(), raw[start].mean(), raw[start].max())],
        "first_player_won": round(float(y[start].mean()), 3),
        "bins": [(round(a, 3), round(b, 3), c) for a, b, c in bins],
        "raw_bins": [(round(a, 3), round(b, 3), c) for a, b, c in calibration.reliability(raw, y)[1]],
    }


def report(paths: list[Path], plot: Path | None) -> None:
    model = calibration.load()
    fitted_on = model.source.get("fitted_on", {})
    results, pooled = {}, []
    for path in paths:
        rows = calibration.load_table(path)
        if str(rows["spec"]) in fitted_on:  # the fit saw the other games of this player
            rows = {key: value[rows["held_out"]] if value.ndim else value for key, value in rows.items()}
        pooled.append({**rows, "game": rows["game"] + 1_000_000 * len(pooled)})
        results[path.name] = figures = {"title": f"{rows['spec']} self-play", **measure(rows, model)}
        print(json.dumps({"table": path.name, "player": str(rows["spec"]), **figures}), flush=True)
    if len(paths) > 1:
        together = {key: np.concatenate([r[key] for r in pooled]) for key in pooled[0] if pooled[0][key].ndim}
        results["all"] = figures = {"title": "all the tables together", **measure(together, model)}
        print(json.dumps({"table": "all held-out games", **figures}), flush=True)
    if plot is not None:
        draw(results, plot)


def draw(results: dict[str, dict[str, object]], plot: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(2, len(results))
    rows = -(-len(results) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.6 * columns, 5 * rows), squeeze=False)
    for axis, figures in zip(axes.flat, results.values()):
        for key, label, style in (("raw_bins", "the search's raw win rate", "o--"), ("bins", "calibrated", "s-")):
            bins = figures[key]
            assert isinstance(bins, list)
            axis.plot([b[0] for b in bins], [b[1] for b in bins], style, label=label)
        axis.plot([0, 1], [0, 1], color="grey", linewidth=0.8, label="perfect calibration")
        axis.set_title(f"{figures['title']}: {figures['games']} held-out games\nECE {figures['ece_raw']} raw, {figures['ece']} calibrated", fontsize=10)
        axis.set_xlabel("predicted chance that the player to move wins")
        axis.set_ylabel("share of those positions won")
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
        axis.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(plot, dpi=90)
    print(f"{plot}: written")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "play" and len(sys.argv) > 2:
        play(
            Path(sys.argv[2]),
            sys.argv[3] if len(sys.argv) > 3 else "strong",
            int(sys.argv[4]) if len(sys.argv) > 4 else 4000,
            int(sys.argv[5]) if len(sys.argv) > 5 else 1,
        )
    elif command == "table" and len(sys.argv) == 5:
        table(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
    elif command == "fit" and len(sys.argv) > 2:
        fit([Path(a) for a in sys.argv[2:]])
    elif command == "report" and len(sys.argv) > 2:
        arguments = sys.argv[2:]
        plot = Path(arguments[arguments.index("--plot") + 1]) if "--plot" in arguments else None
        report([Path(a) for a in arguments if a.endswith(".npz") and (plot is None or Path(a) != plot)], plot)
    else:
        sys.exit(__doc__)
