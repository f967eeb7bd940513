"""Ratings (quiltmaker.web.ratings): one Glicko-2 period a game, idle growth, provisional, the AI's fixed places."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from quiltmaker.ai.levels import LEVELS
from quiltmaker.web.ratings import (
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
    # "Example of the Glicko-2 system" (Glickman): 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.
    from glicko2.math.algorithm import update_rating
    from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

    games = [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)]
    new = update_rating(0.0, rd_to_phi(200), 0.06, [(rating_to_mu(r), rd_to_phi(d), s) for r, d, s in games], tau=0.5)
    assert round(mu_to_rating(new.mu), 2) == 1464.05 and round(phi_to_rd(new.phi), 2) == 151.52
    assert abs(new.sigma - 0.05999) < 1e-5


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
    assert measured == LADDER_STEPS, "re-measured levels: update LADDER_STEPS in quiltmaker/web/ratings.py"
    levels = ai_ratings()
    assert list(levels) == list(LEVELS), "every level has its place"
    assert all(levels[b] > levels[a] for a, b in zip(list(levels), list(levels)[1:]))
