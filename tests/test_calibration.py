"""Calibrated win probabilities and margins: the shipped model, measured on games its fit did not see."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest

import quiltmaker
from quiltmaker import Position
from quiltmaker.ai import calibration
from quiltmaker.ai.analysis import analyse_position
from quiltmaker.ai.players import Limit

REPOSITORY = Path(quiltmaker.__file__).parent.parent
MODEL = calibration.load()
TABLES = [REPOSITORY / word for word in shlex.split(MODEL.source["command"]) if word.endswith(".npz")]
# The first player's share of `expert` self-play, 95% interval (docs/strength.md).
FIRST_PLAYER_INTERVAL = (0.561, 0.694)


def held_out(path: Path) -> dict[str, np.ndarray]:
    rows = calibration.load_table(path)
    return {key: value[rows["held_out"]] for key, value in rows.items() if value.ndim}


def figures(rows: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Calibrated win probabilities and margins (exact positions as they are), and the outcomes."""
    x = calibration.table_features(rows)
    solved = rows["solved"]
    p = np.where(solved, rows["win_rate"], MODEL.win_probabilities(x))
    m = np.where(solved, rows["margin"], MODEL.expected_margins(x))
    return p, m, rows["won"].astype(np.float64)


def test_the_shipped_model_is_what_its_documented_command_fits() -> None:
    """Reproducible: the tables in the repository and the command the model records give its weights."""
    assert TABLES and all(path.is_file() for path in TABLES), MODEL.source["command"]
    refitted = calibration.fit_tables(TABLES)
    np.testing.assert_allclose(refitted.win_weights, MODEL.win_weights, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(refitted.margin_weights, MODEL.margin_weights, rtol=1e-7, atol=1e-9)
    assert refitted.source == MODEL.source


def test_the_fit_never_saw_the_held_out_games() -> None:
    for path in TABLES:
        rows = calibration.load_table(path)
        assert rows["held_out"].any() and not rows["held_out"].all()
        held, seen = set(rows["game"][rows["held_out"]]), set(rows["game"][~rows["held_out"]])
        assert not held & seen, "a game is held out whole or not at all"
        counted = MODEL.source["fitted_on"][str(rows["spec"])]
        assert counted["games"] == len(seen), "the fit counts the games it saw"


def test_win_probabilities_are_calibrated_on_held_out_games() -> None:
    """Expected calibration error at most 0.03 on the held-out games of every table together, and far below the raw search's."""
    tables = [held_out(path) for path in TABLES]
    pooled = {key: np.concatenate([t[key] for t in tables]) for key in tables[0]}
    p, _, won = figures(pooled)
    ece, bins = calibration.reliability(p, won)
    raw_ece, _ = calibration.reliability(pooled["win_rate"], won)
    assert ece <= 0.03 and ece < raw_ece / 2, (ece, raw_ece)
    assert len(np.unique(pooled["game"])) >= 500
    searched = ~pooled["solved"]
    assert calibration.reliability(p[searched], won[searched])[0] <= 0.03
    # No bin with many positions is far off either.
    assert all(abs(mean_p - share) < 0.06 for mean_p, share, count in bins if count >= 500), bins


def test_margins_are_closer_to_the_final_margins_than_the_searchs() -> None:
    tables = [held_out(path) for path in TABLES]
    pooled = {key: np.concatenate([t[key] for t in tables]) for key in tables[0]}
    _, m, _ = figures(pooled)
    searched = ~pooled["solved"]
    error = np.abs(m - pooled["final_margin"])[searched].mean()
    raw_error = np.abs(pooled["margin"] - pooled["final_margin"])[searched].mean()
    assert error < raw_error and error < 7.0, (error, raw_error)


def test_the_start_is_given_the_first_players_measured_share_on_average() -> None:
    """Over the setups of the strongest table's games, the start's probability averages inside expert self-play's interval."""
    strongest = max(TABLES, key=lambda path: np.median(calibration.load_table(path)["iterations"]))
    rows = calibration.load_table(strongest)
    starts = {key: value[rows["ply"] == 0] for key, value in rows.items() if value.ndim}
    p, _, _ = figures(starts)
    low, high = FIRST_PLAYER_INTERVAL
    assert low <= p.mean() <= high, p.mean()


def test_exact_answers_pass_through_and_searches_are_calibrated() -> None:
    start = Position.initial(seed=5)
    assert calibration.calibrated(start, 1.0, 7.0, 0, exact=True) == (1.0, 7.0)
    analysis = analyse_position(start, Limit(iterations=2000), seed=1)
    assert not analysis.exact
    expected = calibration.calibrated(start, analysis.search_win_rate, analysis.search_margin, analysis.iterations)
    assert (analysis.win_probability, analysis.expected_margin) == pytest.approx(expected)
    assert analysis.win_probability_player0 == pytest.approx(expected[0] if start.to_move == 0 else 1 - expected[0])
    assert analysis.moves[0][2:] == pytest.approx(expected)


def test_a_model_file_for_other_features_is_refused() -> None:
    data = MODEL.to_json()
    assert calibration.Calibration.from_json(json.loads(json.dumps(data))) == MODEL
    with pytest.raises(ValueError, match="features"):
        calibration.Calibration.from_json({**data, "features": data["features"][:-1]})


def test_reliability_weights_each_bin_by_its_positions() -> None:
    ece, bins = calibration.reliability([0.05, 0.05, 0.05, 0.95], [0, 0, 1, 1])
    np.testing.assert_allclose(bins, [(0.05, 1 / 3, 3), (0.95, 1.0, 1)])
    assert ece == pytest.approx(3 / 4 * (1 / 3 - 0.05) + 1 / 4 * 0.05)
