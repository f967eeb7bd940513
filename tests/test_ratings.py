"""Ratings (quiltmaker.web.rating.ratings): one Glicko-2 period a game, idle growth, provisional, the AI's fixed places."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from quiltmaker.ai.levels import LEVELS
from quiltmaker.web.rating import glicko2
from quiltmaker.web.rating.ratings import (
    LADDER_STEPS,
    NEW,
    NEW_RD,
    PROVISIONAL_RD,
    Rating,
    after_idle,
    ai_ratings,
    expected_score,
    rated,
)

STRENGTH = Path(__file__).parent.parent / "docs" / "strength.md"


def test_glickmans_worked_example_comes_out_as_in_his_paper() -> None:
    # "Example of the Glicko-2 system" (Glickman): 1500/200 beats 1400/30, loses to 1550/100 and 1700/300, τ = 0.5.
    mu, phi = glicko2.to_glicko2(1500, 200)
    assert (mu, round(phi, 4)) == (0.0, 1.1513)
    games = [(*glicko2.to_glicko2(r, rd), score) for r, rd, score in [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)]]
    assert [(round(mu_j, 4), round(phi_j, 4)) for mu_j, phi_j, _ in games] == [(-0.5756, 0.1727), (0.2878, 0.5756), (1.1513, 1.7269)]
    assert [round(glicko2.g(phi_j), 4) for _, phi_j, _ in games] == [0.9955, 0.9531, 0.7242]
    assert [round(glicko2.expected(mu, mu_j, phi_j), 3) for mu_j, phi_j, _ in games] == [0.639, 0.432, 0.303]
    v, delta = glicko2.estimate(mu, games)
    # The paper's v = 1.7785 and Δ = -0.4834 come from its rounded g and E (unrounded: 1.7790 and -0.4839).
    assert abs(v - 1.7785) < 0.001 and abs(delta - -0.4834) < 0.001
    new = glicko2.update(mu, phi, 0.06, games, tau=0.5)
    assert 0.05999 <= new.sigma < 0.06, "σ′ = 0.05999 (the paper cuts it after five places)"
    assert new.sigma == glicko2.volatility(phi, 0.06, v, delta, tau=0.5)
    assert (round(new.mu, 4), round(new.phi, 4)) == (-0.2069, 0.8722)
    rating, rd = glicko2.from_glicko2(new.mu, new.phi)
    assert abs(rating - 1464.06) < 0.01, "r′ = 1464.06 (the paper's, from μ′ rounded to -0.2069; unrounded 1464.05)"
    assert round(rd, 2) == 151.52


def test_a_rating_period_without_games_only_widens_the_deviation() -> None:
    # Glickman's step 6 for a player who does not compete: φ′ = sqrt(φ² + σ²); μ and σ stay.
    mu, phi = glicko2.to_glicko2(1500, 200)
    new = glicko2.update(mu, phi, 0.06, [], tau=0.5)
    assert new.mu == mu and new.sigma == 0.06
    assert abs(new.phi - math.sqrt(phi**2 + 0.06**2)) < 1e-15 and round(glicko2.from_glicko2(new.mu, new.phi)[1], 2) == 200.27
    assert glicko2.idle(phi, 0.06, periods=3) == glicko2.update(*glicko2.update(*glicko2.update(mu, phi, 0.06, [], 0.5), [], 0.5), [], 0.5).phi
    assert glicko2.idle(phi, 0.06, periods=0) == phi


def test_the_volatility_rises_after_surprising_results_and_stays_within_bounds() -> None:
    # A settled 1500 player who loses five games to a 1200 player: Δ² > φ² + v, the first branch of step 5's bracket.
    mu, phi = glicko2.to_glicko2(1500, 50)
    surprise = glicko2.update(mu, phi, 0.06, [(*glicko2.to_glicko2(1200, 50), 0.0)] * 5, tau=0.5)
    assert surprise.sigma > 0.06 and surprise.mu < mu
    expected = glicko2.update(mu, phi, 0.06, [(*glicko2.to_glicko2(1200, 50), 1.0)] * 5, tau=0.5)
    assert expected.sigma < 0.06 and expected.mu > mu
    # A smaller τ lets the volatility move less.
    assert glicko2.update(mu, phi, 0.06, [(*glicko2.to_glicko2(1200, 50), 0.0)] * 5, tau=0.3).sigma < surprise.sigma


def test_a_win_raises_a_loss_lowers_and_an_uncertain_rating_moves_more() -> None:
    settled = Rating(1700, 60, 0.06, 80)
    for player in (NEW, settled):
        opponent = Rating(player.rating, 80, 0.06, 50)
        won, lost = rated(player, opponent, 1.0), rated(player, opponent, 0.0)
        assert lost.rating < player.rating < won.rating and won.games == player.games + 1
    assert rated(NEW, NEW, 1.0).rd < NEW.rd, "a first game says much about a new player"
    assert rated(NEW, NEW, 1.0).rating - NEW.rating > 5 * (rated(settled, Rating(1700, 60, 0.06, 80), 1.0).rating - settled.rating)


def test_beating_a_much_stronger_opponent_earns_more_than_beating_a_weaker_one() -> None:
    player = Rating(1500, 80, 0.06, 40)
    assert rated(player, Rating(1900, 60, 0.06, 90), 1.0).rating - 1500 > rated(player, Rating(1100, 60, 0.06, 90), 1.0).rating - 1500
    assert abs(expected_score(player, Rating(1500, 80, 0.06, 1)) - 0.5) < 1e-12
    assert expected_score(Rating(1900, 50, 0.06, 1), player) > 0.85


def test_a_rating_is_provisional_until_its_deviation_is_small_and_grows_uncertain_when_idle() -> None:
    assert NEW.provisional and not Rating(1500, PROVISIONAL_RD, 0.06, 30).provisional
    now = datetime(2026, 6, 1, tzinfo=timezone.utc)
    settled = Rating(1600, 60, 0.06, 50)
    assert abs(after_idle(settled, now, now).rd - 60) < 1e-9
    later = after_idle(settled, now - timedelta(days=365), now)
    assert 60 < later.rd < NEW_RD and later.rating == 1600
    assert after_idle(settled, now - timedelta(days=365 * 100), now).rd == NEW_RD


def test_the_levels_stand_in_the_ladder_by_the_measured_steps_of_docs_strength() -> None:
    measured = {}
    for line in STRENGTH.read_text().splitlines():
        match = re.match(r"\| (\w+) vs (\w+) \| \d+ \| \d+ \| [^|]+ \| \+(\d+) \(", line)
        if match and match[2] in LEVELS:
            measured[match[1]] = int(match[3])
    assert measured == LADDER_STEPS, "re-measured levels: update LADDER_STEPS in quiltmaker/web/rating/ratings.py"
    levels = ai_ratings()
    assert list(levels) == list(LEVELS), "every level has its place"
    assert all(levels[b] > levels[a] for a, b in zip(list(levels), list(levels)[1:]))
