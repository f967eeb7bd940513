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
from quiltmaker.engine.server import Engine

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
    solved = rows["solved"]
    p = np.where(solved, rows["win_rate"], MODEL.win_probabilities(rows["win_rate"], rows["stage"], rows["iterations"]))
    m = np.where(solved, rows["margin"], MODEL.expected_margins(rows["margin"], rows["stage"], rows["iterations"]))
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
    """Over the held-out setups of the strongest search's games (about expert's second), the start's
    probability averages inside the interval of the first player's share in expert self-play."""
    strongest = max(TABLES, key=lambda path: np.median(calibration.load_table(path)["iterations"]))
    rows = held_out(strongest)
    assert np.median(rows["iterations"]) >= 99_000
    starts = {key: value[rows["ply"] == 0] for key, value in rows.items()}
    p, _, _ = figures(starts)
    low, high = FIRST_PLAYER_INTERVAL
    assert len(p) >= 20 and low <= p.mean() <= high, p.mean()


@pytest.mark.parametrize("iterations", [1, 3000, 20_000, 100_000, 10**7])
def test_more_hopeful_search_figures_never_give_lower_calibrated_ones(iterations: int) -> None:
    """Monotone: at every stage and search length, a higher raw win rate (margin) gives a higher probability (margin)."""
    rates, margins, stages = np.linspace(0.0, 1.0, 101), np.linspace(-60, 60, 121), np.linspace(0.0, 1.0, 51)
    for where in stages:
        p = MODEL.win_probabilities(rates, np.full_like(rates, where), np.full_like(rates, iterations))
        m = MODEL.expected_margins(margins, np.full_like(margins, where), np.full_like(margins, iterations))
        assert np.all(np.diff(p) >= 0) and np.all(np.diff(m) > 0), where
        assert np.all((0 < p) & (p < 1))


def test_the_fit_recovers_a_known_model() -> None:
    """Outcomes drawn from a model with known weights give those weights back (within sampling error)."""
    rng = np.random.default_rng(7)
    n = 200_000
    win_rate, stages = rng.uniform(0.02, 0.98, n), rng.uniform(0, 1, n)
    iterations, margin = rng.choice([3000, 20_000, 100_000], n), rng.normal(0, 12, n)
    truth = np.array([-0.2, 0.1, 0.0, 0.3, 0.4, 0.8, 1.2, 1.6, 0.05, 0.1, -0.05])
    x = calibration.features(calibration.log_odds(win_rate), stages, iterations)
    won = rng.uniform(size=n) < 1 / (1 + np.exp(-(x @ truth)))
    margin_truth = np.array([1.0, -0.5, 0.5, 0.0, 0.6, 0.8, 1.0, 1.1, 0.2, 0.05, 0.1])
    final = calibration.features(margin, stages, iterations) @ margin_truth + rng.normal(0, 5, n)
    model = calibration.fit(win_rate, margin, stages, iterations, won, final)
    np.testing.assert_allclose(model.win_weights, truth, atol=0.08)
    np.testing.assert_allclose(model.margin_weights, margin_truth, atol=0.08)


def test_the_stage_weights_interpolate_between_knots() -> None:
    stages = np.linspace(0, 1, 31)
    hats = calibration.features(np.zeros_like(stages), stages, np.full_like(stages, 3000))[:, : len(calibration.STAGE_KNOTS)]
    np.testing.assert_allclose(hats.sum(axis=1), 1.0)
    for k, knot in enumerate(calibration.STAGE_KNOTS):
        at = calibration.features([0.0], [knot], [3000])[0, : len(calibration.STAGE_KNOTS)]
        assert at[k] == pytest.approx(1.0) and at.sum() == pytest.approx(1.0)


def test_a_fit_that_cannot_converge_says_so() -> None:
    """Outcomes that the features separate perfectly have no finite fit without the ridge: an error, not a silent model."""
    rates = np.linspace(0.05, 0.95, 200)
    with pytest.raises(calibration.FitError):
        calibration.fit(rates, rates, np.zeros(200), np.full(200, 3000), rates > 0.5, rates, ridge=0.0)


def test_exact_answers_pass_through_and_searches_are_calibrated() -> None:
    start = Position.initial(seed=5)
    assert calibration.calibrated(start, 1.0, 7.0, 0, exact=True) == (1.0, 7.0)
    analysis = analyse_position(start, Limit(iterations=2000), seed=1)
    assert not analysis.exact
    expected = calibration.calibrated(start, analysis.search_win_rate, analysis.search_margin, analysis.iterations)
    assert (analysis.win_probability, analysis.expected_margin) == pytest.approx(expected)
    assert analysis.win_probability_player0 == pytest.approx(expected[0] if start.to_move == 0 else 1 - expected[0])
    assert analysis.moves[0][2:] == pytest.approx(expected)


def test_the_engine_reports_calibrated_figures() -> None:
    """The engine's last info line carries its search's figures, calibrated."""
    import io

    out = io.StringIO()
    engine = Engine(out, seed=1)
    for line in ("position start seed 5", "go iterations 3000"):
        engine.handle(line)
    engine._wait_search()
    info = [line.split() for line in out.getvalue().splitlines() if line.startswith("info")][-1]
    fields = dict(zip(info[1::2], info[2::2]))
    assert engine._player is not None and engine._player.tree is not None
    raw = engine._player.tree.root_stats()[0]
    expected = calibration.calibrated(Position.initial(seed=5), raw.win_rate, raw.margin, int(fields["iterations"]))
    assert float(fields["winprob"]) == pytest.approx(expected[0], abs=1e-4) and float(fields["margin"]) == pytest.approx(expected[1], abs=0.01)
    assert abs(float(fields["winprob"]) - raw.win_rate) > 1e-3, "the raw figure would be another"


def test_a_model_file_for_other_features_is_refused() -> None:
    data = MODEL.to_json()
    assert calibration.Calibration.from_json(json.loads(json.dumps(data))) == MODEL
    with pytest.raises(ValueError, match="features"):
        calibration.Calibration.from_json({**data, "features": data["features"][:-1]})


def test_reliability_weights_each_bin_by_its_positions() -> None:
    ece, bins = calibration.reliability([0.05, 0.05, 0.05, 0.95], [0, 0, 1, 1])
    np.testing.assert_allclose(bins, [(0.05, 1 / 3, 3), (0.95, 1.0, 1)])
    assert ece == pytest.approx(3 / 4 * (1 / 3 - 0.05) + 1 / 4 * 0.05)
