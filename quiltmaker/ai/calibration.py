"""Win probabilities and margins that mean what they say: the search's estimates, calibrated on outcomes.

A Monte Carlo search with greedy playouts estimates a win rate and a final
margin, but the playouts are not the players: in ``strong`` self-play a raw
85% is won about 75 times in 100, and the whole reliability curve bends away
from the diagonal (an expected calibration error of 0.043). This module maps
the raw figures to calibrated ones with a model fitted on the outcomes of
games between strong levels (``docs/strength.md``, "Calibration"):

* the win probability is a logistic model of the raw win rate's log-odds,
  with weights that change with the stage of the game
  (how far both players are along the time track: the search counts for
  little at the start and for nearly everything near the end) and with the
  playouts behind the figures (a longer search is sharper, and plays on
  better);
* the expected margin is a linear model of the raw margin, built the same way.

What the probability means: the chance that the player to move wins if both
sides play on as well as the search that gave the figures.

Positions the endgame solver decided are exact and keep their 1 or 0 and
their margin. The shipped model is ``quiltmaker/data/calibration.json``;
``benchmarks/calibration.py`` plays the games, fits it (:func:`fit`) and
measures it on games the fit did not see.

Examples:
    In mid-game, a search that says 90% is right less often than that:

    >>> from quiltmaker import Position
    >>> model = load()
    >>> 0.6 < model.win_probability(0.9, stage=0.66, iterations=20_000) < 0.9
    True
    >>> 0.0 <= stage(Position.initial(seed=1)) < 0.01
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
"""A float64 array."""

STAGE_KNOTS = (0.0, 1 / 3, 2 / 3, 1.0)
"""Evenly spaced stages at which each weight is fitted; between two knots a weight is interpolated linearly."""
CLIP = 0.005
"""Raw win rates are held in ``[CLIP, 1 - CLIP]`` before taking log-odds (a search can say 0 or 1)."""
BASE_ITERATIONS = 3000
"""The playouts at which the budget term is 0 (the ``strong`` level's search)."""
ITERATIONS_RANGE = (1000, 100_000)
"""Playout counts outside this range count as its ends: a forced move is searched briefly, and the
fit saw no search longer than 100,000 playouts (about ``expert``'s second), so a longer one is taken
as that long rather than extrapolated."""
FEATURES = (
    *(f"at stage {k:.3g}" for k in STAGE_KNOTS),
    *(f"s at stage {k:.3g}" for k in STAGE_KNOTS),
    "b", "b*s", "b*s*stage",
)
"""The features of each model, in order, for one signal ``s``: the raw win rate's log-odds in the win
model, the raw margin in the margin model. ``b`` is the log of the playouts over
:data:`BASE_ITERATIONS`; "at stage k" is knot ``k``'s share in the linear interpolation of the stage
(1 at the knot, falling to 0 at the next knot on either side). Each model sees its own signal only:
the raw win rate and margin agree closely (their correlation is 0.85), and a model given both
learned to weigh one against the other, so that a higher raw win rate could lower the answer."""


def stage(position: Position) -> float:
    """How far the game has gone: both players' spaces on the time track over both tracks' length, 0 to 1."""
    return (position.times[0] + position.times[1]) / (2 * LAST_SPACE)


def log_odds(win_rate: npt.ArrayLike) -> FloatArray:
    """The log-odds of raw win rates, held in ``[CLIP, 1 - CLIP]`` first."""
    rate = np.clip(np.asarray(win_rate, np.float64), CLIP, 1.0 - CLIP)
    return np.asarray(np.log(rate / (1.0 - rate)))


def features(signal: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike) -> FloatArray:
    """The feature matrix of :data:`FEATURES`, one row a position.

    Args:
        signal: The model's signal: :func:`log_odds` of the raw win rate, or the raw margin.
        stages: :func:`stage` of each position.
        iterations: The playouts behind each figure.
    """
    x, t = np.asarray(signal, np.float64), np.asarray(stages, np.float64)
    b = np.log(np.clip(np.asarray(iterations, np.float64), *ITERATIONS_RANGE) / BASE_ITERATIONS)
    spacing = STAGE_KNOTS[1] - STAGE_KNOTS[0]
    hats = np.stack([np.clip(1.0 - np.abs(t - k) / spacing, 0.0, None) for k in STAGE_KNOTS], axis=-1)
    return np.concatenate([hats, hats * x[..., None], np.stack([b, b * x, b * x * t], axis=-1)], axis=-1)


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

    def win_probabilities(self, win_rate: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike) -> FloatArray:
        """Calibrated chances that the player to move wins, from arrays of the search's raw win rates."""
        x = features(log_odds(win_rate), stages, iterations)
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ np.array(self.win_weights)))))

    def expected_margins(self, margin: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike) -> FloatArray:
        """Calibrated expected final margins of the player to move, from arrays of the search's raw margins."""
        return np.asarray(features(margin, stages, iterations) @ np.array(self.margin_weights))

    def win_probability(self, win_rate: float, stage: float, iterations: int) -> float:
        """The calibrated chance that the player to move wins, from the search's raw win rate."""
        return float(self.win_probabilities([win_rate], [stage], [iterations])[0])

    def expected_margin(self, margin: float, stage: float, iterations: int) -> float:
        """The calibrated expected final margin of the player to move, from the search's raw margin."""
        return float(self.expected_margins([margin], [stage], [iterations])[0])

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
    win, expected = calibrated_arrays([win_rate], [margin], [stage(position)], [iterations], [exact])
    return float(win[0]), float(expected[0])


def calibrated_arrays(
    win_rate: npt.ArrayLike, margin: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike, exact: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """:func:`calibrated` for arrays of positions (their :func:`stage`), one row a position; NaN stays NaN."""
    model, solved = load(), np.asarray(exact, np.bool_)
    win = np.where(solved, np.asarray(win_rate, np.float64), model.win_probabilities(win_rate, stages, iterations))
    expected = np.where(solved, np.asarray(margin, np.float64), model.expected_margins(margin, stages, iterations))
    return np.asarray(win), np.asarray(expected)


class FitError(RuntimeError):
    """The logistic fit did not converge (data without both outcomes, or features that say nothing)."""


def fit(win_rate: npt.ArrayLike, margin: npt.ArrayLike, stages: npt.ArrayLike, iterations: npt.ArrayLike,
        won: npt.ArrayLike, final_margin: npt.ArrayLike, source: dict[str, Any] | None = None,
        ridge: float = 1e-4) -> Calibration:  # fmt: skip
    """Fit both models on searched positions: logistic regression by Newton's method, and least squares.

    Args:
        win_rate: The search's raw win rate for the player to move.
        margin: The search's raw margin.
        stages: :func:`stage` of each position.
        iterations: The playouts behind the figures.
        won: 1 where the player to move went on to win, else 0.
        final_margin: That player's final score minus the opponent's.
        source: Provenance to keep in the model.
        ridge: A small L2 penalty (times the number of rows), which keeps Newton's steps well posed.

    Raises:
        FitError: Newton's method did not converge.
    """
    x = features(log_odds(win_rate), stages, iterations)
    y = np.asarray(won, np.float64)
    penalty = np.eye(x.shape[1]) * ridge * len(y)
    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        try:
            step = np.linalg.solve((x * (p * (1.0 - p))[:, None]).T @ x + penalty, x.T @ (p - y) + penalty @ w)
        except np.linalg.LinAlgError:
            raise FitError("the win model's fit has no unique answer: the features do not tell the positions apart") from None
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        raise FitError("the win model's fit did not converge in 100 Newton steps")
    margin_weights, *_ = np.linalg.lstsq(features(margin, stages, iterations), np.asarray(final_margin, np.float64), rcond=None)
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


def fit_tables(paths: Sequence[Path]) -> Calibration:
    """The model fitted on the searched positions of the tables' games that are not held out.

    A game is held out when its setup seed is a multiple of 5 (the ``held_out`` column): the fit never
    sees it, and ``benchmarks/calibration.py report`` measures the model on it.
    """
    columns: dict[str, list[np.ndarray]] = {key: [] for key in ("win_rate", "margin", "stage", "iterations", "won", "final_margin")}
    counts: dict[str, dict[str, int]] = {}
    for path in paths:
        rows = load_table(path)
        chosen = ~rows["held_out"] & ~rows["solved"]
        for key, parts in columns.items():
            parts.append(rows[key][chosen])
        count = counts.setdefault(str(rows["spec"]), {"games": 0, "positions": 0})
        count["games"] += int(len(np.unique(rows["game"][chosen])))
        count["positions"] += int(chosen.sum())
    source = {
        "fitted_on": counts,
        "data": "the searched positions of the games not held out (setup seed not a multiple of 5)",
        "command": "python benchmarks/calibration.py fit " + " ".join(f"benchmarks/calibration-data/{Path(p).name}" for p in paths),
    }
    data = {key: np.concatenate(parts) for key, parts in columns.items()}
    return fit(data["win_rate"], data["margin"], data["stage"], data["iterations"], data["won"], data["final_margin"], source)
