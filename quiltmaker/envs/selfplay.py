"""Self-play training data: a level plays itself, and every position becomes a row of training arrays.

``quiltmaker selfplay`` plays N games of one player specification against
itself (one independent player a seat, seeded from the run's seed), in a
local process pool or as Ray tasks, and writes one ``.npz`` file (NumPy's
zip of arrays). Row ``p`` is one position before a move, with:

* ``observations``: ``float32[P, 864]``, the position seen by the player to
  move (:func:`quiltmaker.envs.observation.encode`);
* ``masks``: ``uint8[P, 929]``, the legal actions as bits:
  ``np.unpackbits(masks, axis=1, count=7431, bitorder="little").astype(bool)``;
* ``policy_offsets`` (``int64[P + 1]``), ``policy_actions`` (``int16[E]``),
  ``policy_visits`` (``int32[E]``), ``policy_probs`` (``float32[E]``): the
  search's visit distribution at the root, sparse: row ``p``'s moves are
  ``policy_actions[policy_offsets[p]:policy_offsets[p + 1]]``. A position the
  endgame solver decided, or a player without a search, has its chosen
  move with probability 1;
* ``actions``: ``int16[P]``, the move played;
* ``to_move``, ``game``, ``ply``: whose move it was, which game (index into
  ``game_seeds``), and the move's number in its game;
* ``outcome`` (``int8``, +1 if the player to move won) and ``margin``
  (``int16``, that player's final score minus the opponent's);
* ``win_probability``, ``expected_margin``: what the search expected of
  the move played, calibrated (:mod:`quiltmaker.ai.calibration`): the chance
  that the player to move wins and the final margin expected, as the engine's
  ``winprob`` and ``margin`` and :func:`~quiltmaker.ai.analysis.analyse_position`
  give them; the figures a value model would learn, beside ``outcome``;
* ``search_win_rate``, ``search_margin``: the same, raw: the search's own
  share of playouts won and mean playout margin, which overstate the
  favourite (kept to fit a new calibration);
* ``game_seeds`` (``uint64[G]``): game ``g`` started as
  ``Position.initial(game_seeds[g])``, so the moves replay every game;
* ``meta``: a JSON string (format version, player, seed, variant, games).
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.components import DEFAULT_VARIANT
from ..core.errors import QuiltmakerError
from ..core.moves import Move
from ..core.position import Position
from ..core.seeds import check_seed

FORMAT_VERSION = 2
"""Format 2 added ``win_probability`` and ``expected_margin``; :func:`load` reads format 1 too."""
MASK_BYTES = -(-7431 // 8)
"""Bytes of one position's packed legal-action mask (7431 bits)."""
ARRAY_KEYS = (
    "observations", "masks", "policy_offsets", "policy_actions", "policy_visits", "policy_probs", "actions",
    "to_move", "game", "ply", "outcome", "margin", "win_probability", "expected_margin", "search_win_rate",
    "search_margin", "game_seeds",
)  # fmt: skip
"""The arrays of a self-play file, one row a position."""
_CALIBRATED_KEYS = ("win_probability", "expected_margin")  # the keys format 1 lacks


@dataclass(frozen=True)
class SelfPlayGame:
    """One game to play: its index, the setup's seed, the players' seeds, what plays."""

    index: int
    """The game's place in the schedule."""
    setup_seed: int
    """The setup seed: the game starts at Position.initial(setup_seed)."""
    player_seeds: tuple[int, int]
    """Each seat's player's seed."""
    spec: str
    """The player specification both seats play."""
    variant: str
    """The time track's printing."""


def schedule(spec: str, games: int, seed: int, variant: str = DEFAULT_VARIANT) -> list[SelfPlayGame]:
    """The games of a run: every seed follows from ``seed`` (0..2**64 - 1), so a run replays from it."""
    entropy = np.random.SeedSequence(check_seed(seed, "the run's seed")).generate_state(3 * games, np.uint64)
    return [
        SelfPlayGame(g, int(entropy[3 * g] >> np.uint64(1)), (int(entropy[3 * g + 1]), int(entropy[3 * g + 2])), spec, variant)
        for g in range(games)
    ]


def play_game(game: SelfPlayGame) -> dict[str, np.ndarray]:
    """Play one scheduled game and return its rows (``game`` column 0; :func:`generate` renumbers)."""
    from ..ai.calibration import calibrated_arrays, stage
    from ..specs import player_from_spec
    from .observation import action_mask, encode

    players = [player_from_spec(game.spec, seed=s) for s in game.player_seeds]
    position = Position.initial(game.setup_seed, variant=game.variant)
    rows: dict[str, list[Any]] = {
        key: [] for key in ("observations", "masks", "actions", "to_move", "ply", "win", "est_margin", "stage", "iterations", "exact")
    }
    policy: list[tuple[np.ndarray, np.ndarray]] = []
    try:
        while (mover := position.to_move) is not None:
            player = players[mover]
            analyse = getattr(player, "analyse", None)
            if analyse is not None:
                stats = analyse(position)
                action = stats[0].action
                actions = np.array([s.action for s in stats], np.int16)
                visits = np.array([s.visits for s in stats], np.int32)
                report = getattr(player, "last_report", None)
                exact = bool(report is not None and report.solved)
                iterations = int(visits.sum())  # the best move's figures, calibrated at the whole search's playouts
                if iterations == 0:  # decided by the endgame solver: its move, for certain
                    actions, visits = actions[:1], np.ones(1, np.int32)
                win, margin = stats[0].win_rate, stats[0].margin
            else:
                action = player.choose_move(position).action
                actions, visits = np.array([action], np.int16), np.ones(1, np.int32)
                win, margin, iterations, exact = np.nan, np.nan, 1, False
            rows["observations"].append(encode(position, mover))
            rows["masks"].append(np.packbits(action_mask(position).astype(bool), bitorder="little"))
            rows["actions"].append(action)
            rows["to_move"].append(mover)
            rows["ply"].append(len(rows["actions"]) - 1)
            rows["win"].append(win)
            rows["est_margin"].append(margin)
            rows["stage"].append(stage(position))
            rows["iterations"].append(iterations)
            rows["exact"].append(exact)
            policy.append((actions, visits))
            position = position.play(Move.from_action(action))
    finally:
        for player in players:
            player.close()
    scores = (position.score(0), position.score(1))
    winner = position.winner
    to_move = np.array(rows["to_move"], np.int8)
    counts = np.array([len(a) for a, _ in policy], np.int64)
    visits_all = np.concatenate([v for _, v in policy])
    win_probability, expected_margin = calibrated_arrays(rows["win"], rows["est_margin"], rows["stage"], rows["iterations"], rows["exact"])
    totals = np.repeat(np.array([v.sum() for _, v in policy], np.float64), counts)
    return {
        "observations": np.stack(rows["observations"]).astype(np.float32),
        "masks": np.stack(rows["masks"]).astype(np.uint8),
        "policy_counts": counts,
        "policy_actions": np.concatenate([a for a, _ in policy]).astype(np.int16),
        "policy_visits": visits_all,
        "policy_probs": (visits_all / totals).astype(np.float32),
        "actions": np.array(rows["actions"], np.int16),
        "to_move": to_move,
        "ply": np.array(rows["ply"], np.int16),
        "outcome": np.where(to_move == winner, 1, -1).astype(np.int8),
        "margin": np.where(to_move == 0, scores[0] - scores[1], scores[1] - scores[0]).astype(np.int16),
        "win_probability": win_probability.astype(np.float32),
        "expected_margin": expected_margin.astype(np.float32),
        "search_win_rate": np.array(rows["win"], np.float32),
        "search_margin": np.array(rows["est_margin"], np.float32),
        "index": np.array([game.index], np.int64),
        "setup_seed": np.array([game.setup_seed], np.uint64),
    }


def generate(
    spec: str,
    games: int,
    seed: int = 0,
    workers: int | None = None,
    variant: str = DEFAULT_VARIANT,
    ray_address: str | None = None,
    on_game: Callable[[], None] | None = None,
) -> dict[str, np.ndarray]:
    """Play ``games`` self-play games of ``spec`` and return the training arrays (see the module's documentation).

    The arrays are the same whatever the number of workers: games are
    gathered in their scheduled order.

    Raises:
        QuiltmakerError: ``spec`` is not understood, ``games`` is not positive, or ``seed`` is not a seed.
    """
    from ..specs import player_from_spec
    from ..match import run_on_ray

    if games < 1:
        raise QuiltmakerError("the number of games must be at least 1")
    player_from_spec(spec, 0).close()  # fail fast, before any process starts
    scheduled = schedule(spec, games, seed, variant)
    results: list[dict[str, np.ndarray] | None] = [None] * games

    def finished(result: dict[str, np.ndarray]) -> None:
        results[int(result["index"][0])] = result
        if on_game is not None:
            on_game()

    if ray_address is not None:
        run_on_ray(play_game, scheduled, ray_address, finished)
    elif (workers or os.cpu_count() or 1) == 1:
        for game in scheduled:
            finished(play_game(game))
    else:
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            for result in pool.map(play_game, scheduled):
                finished(result)
    return _gather([r for r in results if r is not None])


def _gather(results: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    counts = np.concatenate([r["policy_counts"] for r in results])
    arrays = {key: np.concatenate([r[key] for r in results]) for key in ARRAY_KEYS if key not in ("policy_offsets", "game", "game_seeds")}
    arrays["policy_offsets"] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    arrays["game"] = np.concatenate([np.full(len(r["actions"]), g, np.int32) for g, r in enumerate(results)])
    arrays["game_seeds"] = np.concatenate([r["setup_seed"] for r in results])
    return arrays


def save(path: Path, arrays: dict[str, np.ndarray], spec: str, seed: int, variant: str) -> None:
    """Write the arrays and their ``meta`` to ``path`` (a compressed ``.npz``)."""
    meta = {"format": FORMAT_VERSION, "player": spec, "seed": seed, "variant": variant, "games": len(arrays["game_seeds"])}
    contents: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **arrays}
    np.savez_compressed(path, **contents)


def load(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file :func:`save` wrote: ``(arrays, meta)``.

    A file of format 1, which kept only the raw ``search_*`` figures, gets
    ``win_probability`` and ``expected_margin`` calibrated from them here, as
    format 2 records them (``meta["format"]`` still says 1).

    Raises:
        QuiltmakerError: The file is not self-play data of a known format.
    """
    try:
        if not zipfile.is_zipfile(path):  # np.load would take it for a pickle, or a bare .npy array
            raise QuiltmakerError(f"{path} is not quiltmaker self-play data: not an .npz archive (quiltmaker selfplay writes them)")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            version = meta.get("format") if isinstance(meta, dict) else None
            if version not in (1, FORMAT_VERSION):
                raise QuiltmakerError(f"{path} has self-play format {version!r}; this version reads 1 and {FORMAT_VERSION}")
            arrays = {key: data[key] for key in ARRAY_KEYS if version != 1 or key not in _CALIBRATED_KEYS}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as error:
        if isinstance(error, QuiltmakerError):
            raise
        raise QuiltmakerError(f"{path} is not quiltmaker self-play data: {error}") from None
    if version == 1:
        arrays = _with_calibrated_figures(arrays)
    return arrays, meta


def _with_calibrated_figures(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Format 1's arrays with format 2's calibrated figures, from what format 1 kept of each search."""
    from ..ai.calibration import calibrated_arrays
    from ..ai.mcts import SOLVER_FROM_SPACE
    from ..core.components import LAST_SPACE
    from .observation import LAYOUT

    # The stage from the observation's two times (each a space over LAST_SPACE); the playouts from
    # the root's visits; the endgame solver's answers were stored as one move, a rate of 0 or 1, where
    # both tokens had reached the solver's spaces.
    times = np.rint(arrays["observations"][:, LAYOUT["time"]].astype(np.float64) * LAST_SPACE)
    stages = times.sum(axis=1) / (2 * LAST_SPACE)
    offsets = arrays["policy_offsets"]
    iterations = np.add.reduceat(arrays["policy_visits"].astype(np.int64), offsets[:-1]) if len(offsets) > 1 else np.zeros(0)
    win = arrays["search_win_rate"].astype(np.float64)
    exact = (np.diff(offsets) == 1) & ((win == 0.0) | (win == 1.0)) & (times.min(axis=1, initial=LAST_SPACE) >= SOLVER_FROM_SPACE)
    win_probability, expected_margin = calibrated_arrays(win, arrays["search_margin"], stages, iterations, exact)
    upgraded = dict(arrays)
    upgraded["win_probability"] = win_probability.astype(np.float32)
    upgraded["expected_margin"] = expected_margin.astype(np.float32)
    return {key: upgraded[key] for key in ARRAY_KEYS}
