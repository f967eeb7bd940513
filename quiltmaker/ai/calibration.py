"""Win probabilities and margins that mean what they say: the search's estimates, calibrated on outcomes.

A Monte Carlo search with greedy playouts estimates a win rate and a final
margin, but the playouts are not the players: in mid-game the raw win rate
says 85% where the mover wins 70% of the time, and at the start it swings
between 30% and 90% where the first player wins about 60%. This module maps
the raw figures to calibrated ones with a model fitted on the outcomes of
games between strong levels (``docs/strength.md``, "Calibration"):

* the win probability is a logistic model of the raw win rate's log-odds
  and the raw margin, with weights that change with the stage of the game
  (how far both players are along the time track: the search counts for
  little at the start and for nearly everything near the end) and with the
  playouts behind the figures (a longer search is sharper, and plays on
  better);
* the expected margin is a linear model of the same features.

What the probability means: the chance that the player to move wins if both
sides play on as well as the search that gave the figures.

Positions the endgame solver decided are exact and keep their 1 or 0 and
their margin. The shipped model is ``quiltmaker/data/calibration.json``;
``benchmarks/calibration.py`` plays the games, fits it (:func:`fit`) and
measures it on games the fit did not see.

Examples:
    A search's 90% counts for less at the start than near the end:

    >>> from quiltmaker import Position
    >>> model = load()
    >>> start = model.win_probability(0.9, 10.0, stage(Position.initial(seed=1)), iterations=20_000)
    >>> late = model.win_probability(0.9, 10.0, 0.9, iterations=20_000)
    >>> start < late < 1.0
    True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.components import LAST_SPACE
from ..core.position import Position

FloatArray = npt.NDArray[np.float64]

STAGE_KNOTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""The stages at which each weight is fitted; between two knots a weight is interpolated linearly."""
MARGIN_SCALE = 10.0
"""Raw margins are divided by this in the features, to keep the weights of one size."""
CLIP = 0.005
"""Raw win rates are held in ``[CLIP, 1 - CLIP]`` before taking log-odds (a search can say 0 or 1)."""
BASE_ITERATIONS = 3000
"""The playouts at which the budget term is 0 (the ``strong`` level's search)."""
ITERATIONS_RANGE = (1000, 1_000_000)
"""Playout counts outside this range count as its ends (a forced move is searched briefly)."""
FEATURES = (
    *(f"at stage {k}" for k in STAGE_KNOTS),
    *(f"z at stage {k}" for k in STAGE_KNOTS),
    *(f"m at stage {k}" for k in STAGE_KNOTS),
    "b", "b*z", "b*m", "b*z*stage",
)
"""The features of both models, in order: ``z`` is the raw win rate's log-odds, ``m`` the raw margin
over :data:`MARGIN_SCALE`, ``b`` the log of the playouts over :data:`BASE_ITERATIONS`; "at stage k"
is the weight of knot ``k`` in the linear interpolation of the stage (1 at the knot, 0 two knots away)."""


def stage(position: Position) -> float:
    """How far the game has gone: both players' spaces on the time track over both tracks' length, 0 to 1."""
    return (position.times[0] + position.times[1]) / (2 * LAST_SPACE)


def features(win_rate: npt.ArrayLike, margin: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike) -> FloatArray:
    """The feature matrix of :data:`FEATURES`, one row a position, from the search's raw figures.

    Args:
        win_rate: The search's raw win rate for the player to move.
        margin: The search's raw expected margin.
        stages: :func:`stage` of each position.
        iterations: The playouts behind each figure.
    """
    rate = np.clip(np.asarray(win_rate, np.float64), CLIP, 1.0 - CLIP)
    z = np.log(rate / (1.0 - rate))
    m = np.asarray(margin, np.float64) / MARGIN_SCALE
    t = np.asarray(stages, np.float64)
    b = np.log(np.clip(np.asarray(iterations, np.float64), *ITERATIONS_RANGE) / BASE_ITERATIONS)
    spacing = STAGE_KNOTS[1] - STAGE_KNOTS[0]
    hats = np.stack([np.clip(1.0 - np.abs(t - k) / spacing, 0.0, None) for k in STAGE_KNOTS], axis=-1)
    return np.concatenate([hats, hats * z[..., None], hats * m[..., None], np.stack([b, b * z, b * m, b * z * t], axis=-1)], axis=-1)


@dataclass(frozen=True)
class Calibration:
    """A fitted calibration: weights of the win and margin models, and where they came from.

    Attributes:
        win_weights: Logistic weights, one per :data:`FEATURES`.
        margin_weights: Linear weights (points), one per :data:`FEATURES`.
        source: What the model was fitted on (games, positions, the players, the command).
    """

    win_weights: tuple[float, ...]
    margin_weights: tuple[float, ...]
    source: dict[str, Any] = field(default_factory=dict)

    def win_probabilities(self, x: FloatArray) -> FloatArray:
        """Calibrated chances that the player to move wins, for rows of :func:`features`."""
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ np.array(self.win_weights)))))

    def expected_margins(self, x: FloatArray) -> FloatArray:
        """Calibrated expected final margins of the player to move, for rows of :func:`features`."""
        return np.asarray(x @ np.array(self.margin_weights))

    def win_probability(self, win_rate: float, margin: float, stage: float, iterations: int) -> float:
        """The calibrated chance that the player to move wins, from the search's raw figures."""
        return float(self.win_probabilities(features([win_rate], [margin], [stage], [iterations]))[0])

    def expected_margin(self, win_rate: float, margin: float, stage: float, iterations: int) -> float:
        """The calibrated expected final margin of the player to move."""
        return float(self.expected_margins(features([win_rate], [margin], [stage], [iterations]))[0])

    def to_json(self) -> dict[str, Any]:
        """The model as the JSON that :func:`load` reads."""
        return {
            "format": 1,
            "features": list(FEATURES),
            "win_weights": list(self.win_weights),
            "margin_weights": list(self.margin_weights),
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """A model from :meth:`to_json`'s JSON; one with other features than this version's is refused."""
        if data.get("format") != 1 or tuple(data["features"]) != FEATURES:
            raise ValueError("the calibration file does not match this version's features")
        return cls(tuple(map(float, data["win_weights"])), tuple(map(float, data["margin_weights"])), dict(data.get("source", {})))


@cache
def load() -> Calibration:
    """The model that ships with the package (``quiltmaker/data/calibration.json``)."""
    text = (resources.files("quiltmaker") / "data" / "calibration.json").read_text(encoding="utf-8")
    return Calibration.from_json(json.loads(text))


def calibrated(position: Position, win_rate: float, margin: float, iterations: int, exact: bool = False) -> tuple[float, float]:
    """``(win probability, expected margin)`` of the player to move: exact answers as they are, searches calibrated."""
    if exact:
        return win_rate, margin
    x = features([win_rate], [margin], [stage(position)], [iterations])
    model = load()
    return float(model.win_probabilities(x)[0]), float(model.expected_margins(x)[0])


def fit(x: FloatArray, won: npt.ArrayLike, final_margin: npt.ArrayLike, source: dict[str, Any] | None = None,
        ridge: float = 1e-4) -> Calibration:  # fmt: skip
    """Fit both models on searched positions: logistic regression by Newton's method, and least squares.

    Args:
        x: Rows of :func:`features`.
        won: 1 where the player to move went on to win, else 0.
        final_margin: That player's final score minus the opponent's.
        source: Provenance to keep in the model.
        ridge: A small L2 penalty (times the number of rows), which keeps Newton's steps well posed.
    """
    y = np.asarray(won, np.float64)
    penalty = np.full(x.shape[1], ridge * len(y))
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + penalty * w
        hessian = (x * (p * (1.0 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    margin_weights, *_ = np.linalg.lstsq(x, np.asarray(final_margin, np.float64), rcond=None)
    return Calibration(tuple(float(v) for v in w), tuple(float(v) for v in margin_weights), dict(source or {}))


def reliability(predicted: npt.ArrayLike, won: npt.ArrayLike, bins: int = 10) -> tuple[float, list[tuple[float, float, int]]]:
    """The expected calibration error over equal-width bins, and each bin's ``(mean predicted, share won, count)``.

    The error is the bins' mean gap between predicted and observed, weighted by their counts.

    Examples:
        >>> reliability([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1])[0]
        0.25
    """
    p, y = np.asarray(predicted, np.float64), np.asarray(won, np.float64)
    index = np.minimum((p * bins).astype(np.int64), bins - 1)
    error, table = 0.0, []
    for b in range(bins):
        chosen = index == b
        if chosen.any():
            mean_p, mean_y, count = float(p[chosen].mean()), float(y[chosen].mean()), int(chosen.sum())
            error += count / len(p) * abs(mean_p - mean_y)
            table.append((mean_p, mean_y, count))
    return round(error, 12), table


def load_table(path: Path) -> dict[str, np.ndarray]:
    """A table of positions that ``benchmarks/calibration.py table`` wrote (its docstring names the columns)."""
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def table_features(rows: dict[str, np.ndarray]) -> FloatArray:
    """:func:`features` of every row of a table."""
    return features(rows["win_rate"], rows["margin"], rows["stage"], rows["iterations"])


def fit_tables(paths: Sequence[Path]) -> Calibration:
    """The model fitted on the searched positions of the tables' games that are not held out.

    A game is held out when its setup seed is a multiple of 5 (the ``held_out`` column): the fit never
    sees it, and ``benchmarks/calibration.py report`` measures the model on it.
    """
    parts, won, final, counts = [], [], [], {}
    for path in paths:
        rows = load_table(path)
        chosen = ~rows["held_out"] & ~rows["solved"]
        parts.append(table_features(rows)[chosen])
        won.append(rows["won"][chosen])
        final.append(rows["final_margin"][chosen])
        counts[str(rows["spec"])] = {"games": int(len(np.unique(rows["game"][chosen]))), "positions": int(chosen.sum())}
    source = {
        "fitted_on": counts,
        "data": "the searched positions of the games not held out (setup seed not a multiple of 5)",
        "command": "python benchmarks/calibration.py fit " + " ".join(f"benchmarks/calibration-data/{Path(p).name}" for p in paths),
    }
    return fit(np.concatenate(parts), np.concatenate(won), np.concatenate(final), source)

