"""Ratings that cannot be farmed (docs/web.md, "Ratings"; quiltmaker/web/rating/fairness.py): the puppet-account run
that climbed from 1500 to 2057 in 18 games, and each rule that stops it."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import TEST_QUOTAS, act_as, apart, connect, create, new_account
from web_helpers import play_in_the_past

from quiltmaker.web.app import Settings, create_app

from quiltmaker.web.rating.fairness import PAIR_GAMES_PER_DAY
from quiltmaker.web.rating.ratings import NEW, PROVISIONAL_OPPONENT, Rating, rated
from quiltmaker.web.db.schema import RatingRow

PUPPETS = 18


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[TestClient]:
    """An app of its own where one address may sign up the farmer's crowd of puppets."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'farm.sqlite3'}", account_limit="1000/minute", **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        yield client


def rated_game_lost_by(client: TestClient, farmer: str, puppet: str, moves: bool, offer: str = "invite") -> dict[str, Any]:
    """The farmer offers a rated game, the puppet takes it (by the link, or from the lobby), both move or not, and
    the puppet resigns; the game's rating as its state says."""
    act_as(client, farmer)
    game = create(client, mode="online", seat=0, clock="10+5", rated=True, **({} if offer == "invite" else {"offer": offer}))
    act_as(client, puppet)
    taken = client.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]}) if offer == "invite" else client.post(f"/api/games/{game['id']}/accept")
    assert taken.status_code == 200, taken.text
    if moves:
        play_in_the_past(client.app.state.server.store, game["id"], [("A", 3), ("A", 2)])  # type: ignore[attr-defined]
    with connect(client, game["id"], taken.json()["token"]) as player:
        assert player.intent("resign")["type"] == "ack"
        return player.wait_for(lambda s: s["rating"]["settled"], "the settling")["rating"]  # type: ignore[no-any-return]


def rating_of(client: TestClient, name: str) -> int:
    return int(client.get(f"/api/players/{name}").json()["ratings"]["realtime"]["rating"])


def test_puppets_resigning_at_once_lift_nobody(fresh: TestClient) -> None:
    """The run the attack made: every puppet resigned before it moved. Each game is settled unrated."""
    farmer = new_account(fresh, "Farmer")
    for n in range(PUPPETS):
        puppet = new_account(fresh, f"Puppet{n}")
        apart(fresh)  # even from other places
        assert rated_game_lost_by(fresh, farmer, puppet, moves=False)["unrated"] == "moves"
    assert rating_of(fresh, "Farmer") == 1500 <= 1700


def test_puppets_that_move_once_from_the_farmers_address_lift_nobody(fresh: TestClient) -> None:
    farmer = new_account(fresh, "Farmer")
    for n in range(PUPPETS):
        puppet = new_account(fresh, f"Puppet{n}")
        offer = "open" if n % 2 else "invite"  # an open challenge accepted by one's own puppet is no better
        rating = rated_game_lost_by(fresh, farmer, puppet, moves=True, offer=offer)
        assert rating["unrated"] == "address" and rating["changes"] == [None, None]
    assert rating_of(fresh, "Farmer") == 1500 <= 1700


def test_one_pair_rates_a_few_games_a_day_and_no_more(fresh: TestClient) -> None:
    ada = new_account(fresh, "Ada")
    bob = new_account(fresh, "Bob")
    seen = []
    for _ in range(PAIR_GAMES_PER_DAY + 2):
        apart(fresh)  # two places: only the pair rule is left
        seen.append(rated_game_lost_by(fresh, ada, bob, moves=True)["unrated"])
    assert seen == [None] * PAIR_GAMES_PER_DAY + ["pair", "pair"]
    history = fresh.get("/api/players/Ada").json()["history"]
    assert len(history) == PAIR_GAMES_PER_DAY


def test_a_provisional_opponent_moves_an_established_rating_half_as_much(fresh: TestClient) -> None:
    veteran = new_account(fresh, "Veteran")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    account = server.accounts.find("Veteran")
    established = Rating(1800.0, 60.0, 0.06, 40)
    with server.store._sessions.begin() as session:
        session.merge(RatingRow(account_id=account.id, family="realtime", rating=established.rating, rd=established.rd,
                                volatility=established.volatility, games=established.games, updated=datetime.now(timezone.utc) - timedelta(hours=1)))
    newcomer = new_account(fresh, "Newcomer")
    apart(fresh)
    changes = rated_game_lost_by(fresh, newcomer, veteran, moves=True)["changes"]  # the newcomer beats the veteran
    (new_before, new_after), (vet_before, vet_after) = changes
    full = rated(established, NEW, 0.0).rating - established.rating  # (an hour idle changes the deviation by nothing that rounds)
    assert vet_before == 1800 and abs((vet_after - vet_before) - PROVISIONAL_OPPONENT * full) <= 1, (vet_after, full)
    assert new_after - new_before > 100, "the provisional side's own rating moves in full"
