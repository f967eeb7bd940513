"""The lobby (docs/web.md, "The lobby"): open and named challenges, quick match with a widening range and the AI fallback, who is online."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import delete
from web_client import act_as, age_account, connect, create, new_account
from web_helpers import new_game

from quiltmaker.core.position import Position
from quiltmaker.web.lobby.quickmatch import POLL_WAIT, seek_range
from quiltmaker.web.rating.ratings import RatingRow
from quiltmaker.web.round.clocks import TimeControl
from quiltmaker.web.round.kinds import OfferKind
from quiltmaker.web.db.schema import SummaryRow
from quiltmaker.web.setup import Offer


def give_rating(client: TestClient, name: str, rating: float) -> None:
    """Set an account's real-time rating in the database (as many games would have)."""
    server = client.app.state.server  # type: ignore[attr-defined]
    account = server.accounts.find(name)
    with server.store._sessions.begin() as session:
        session.merge(RatingRow(account_id=account.id, family="realtime", rating=rating, rd=60.0, volatility=0.06, games=40, updated=datetime.now(timezone.utc)))


def lobby(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/lobby")
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_an_open_challenge_is_listed_accepted_from_the_lobby_and_then_being_played(fresh: TestClient) -> None:
    ada = new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="10+5", offer="open")
    assert [c["id"] for c in lobby(fresh)["challenges"]] == [game["id"]] and lobby(fresh)["challenges"][0]["why_not"] == "your challenge"
    assert fresh.get(f"/api/games/{game['id']}").json()["offer"] == {"kind": "open", "for": None}
    fresh.app.state.server.games.cache.clear()  # type: ignore[attr-defined]  # and as loaded afresh
    assert fresh.get(f"/api/games/{game['id']}").json()["offer"] == {"kind": "open", "for": None}
    assert fresh.post(f"/api/games/{game['id']}/accept").status_code == 403, "not your own"
    bob = new_account(fresh, "Bob")
    seen = lobby(fresh)["challenges"][0]
    assert seen["by"] == "Ada" and seen["words"] == "10 minutes + 5 seconds a move" and seen["rating"] == 1500 and seen["can_accept"]
    assert "creator_id" not in seen, "account ids stay on the server"
    accepted = fresh.post(f"/api/games/{game['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    seat = accepted.json()
    assert fresh.get(f"/api/games/{game['id']}").json()["offer"] is None, "no longer waiting"
    with connect(fresh, game["id"], seat["token"]) as player:
        assert player.state["status"] == "playing" and player.state["names"] == ["Ada", "Bob"]
    now = lobby(fresh)
    assert now["challenges"] == [] and [g["id"] for g in now["playing"]] == [game["id"]]
    assert set(now["online"]) == {"Ada", "Bob"} and ada and bob
    assert fresh.post(f"/api/games/{game['id']}/accept").status_code == 403, "taken"


def test_a_challenge_needs_an_account_and_a_clock_three_at_most_and_an_aborted_one_leaves_the_lobby(fresh: TestClient) -> None:
    guest = fresh.post("/api/games", json={"mode": "online", "clock": "5+3", "offer": "open"})
    assert guest.status_code == 403 and "sign in" in guest.json()["detail"], "guests: quick match or an invitation link"
    new_account(fresh, "Ada")
    age_account(fresh, "Ada")  # a new account may have one challenge waiting (tests/web/test_web_floods.py)
    assert fresh.post("/api/games", json={"mode": "online", "offer": "open"}).status_code == 422
    assert fresh.post("/api/games", json={"mode": "ai", "clock": "5+3", "offer": "open"}).status_code == 422
    games = [create(fresh, mode="online", seat=0, clock="5+3", offer="open") for _ in range(3)]
    too_many = fresh.post("/api/games", json={"mode": "online", "clock": "5+3", "offer": "open"})
    assert too_many.status_code == 429 and "3 challenges waiting" in too_many.json()["detail"]
    assert {c["id"] for c in lobby(fresh)["challenges"]} == {g["id"] for g in games}
    with connect(fresh, games[0]["id"], games[0]["token"]) as host:
        assert host.intent("abort")["type"] == "ack"
    assert {c["id"] for c in lobby(fresh)["challenges"]} == {g["id"] for g in games[1:]}
    # Joined through its invitation link, a challenge leaves the lobby too.
    assert fresh.post(f"/api/games/{games[1]['id']}/join", json={"invite": games[1]["invite"]}).status_code == 200
    assert [c["id"] for c in lobby(fresh)["challenges"]] == [games[2]["id"]]


def test_a_named_challenge_shows_to_its_two_players_alone(fresh: TestClient) -> None:
    new_account(fresh, "Bob")
    carol = new_account(fresh, "Carol")
    ada = new_account(fresh, "Ada")
    assert fresh.post("/api/games", json={"mode": "online", "clock": "2d", "offer": "named", "opponent": "Nobody"}).status_code == 404
    assert fresh.post("/api/games", json={"mode": "online", "clock": "2d", "offer": "named", "opponent": "ada"}).status_code == 422
    game = create(fresh, mode="online", seat=1, clock="2d", offer="named", opponent="bob", rated=True)
    assert lobby(fresh)["challenges"][0]["for"] == "Bob"
    act_as(fresh, carol)
    assert lobby(fresh)["challenges"] == []
    refused = fresh.post(f"/api/games/{game['id']}/accept")
    assert refused.status_code == 403 and "for Bob only" in refused.json()["detail"]
    act_as(fresh, None)
    assert lobby(fresh)["challenges"] == []
    fresh.post("/api/account/signin", json={"name": "bob", "password": "correct horse"})
    assert lobby(fresh)["challenges"][0]["can_accept"]
    seat = fresh.post(f"/api/games/{game['id']}/accept").json()
    assert seat["seat"] == 0 and fresh.app.state.server.ratings.rated_game(game["id"])[1][1] is not None  # type: ignore[attr-defined]
    assert ada


def test_an_open_challenge_with_a_rating_range_is_for_ratings_within_it(fresh: TestClient) -> None:
    new_account(fresh, "Far")
    give_rating(fresh, "Far", 1900)
    new_account(fresh, "Near")
    give_rating(fresh, "Near", 1560)
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="3+2", offer="open", within=100, rated=True)
    fresh.post("/api/account/signin", json={"name": "Far", "password": "correct horse"})
    seen = lobby(fresh)["challenges"][0]
    assert not seen["can_accept"] and seen["why_not"] == "for ratings 1400 to 1600"
    refused = fresh.post(f"/api/games/{game['id']}/accept")
    assert refused.status_code == 403 and "yours is 1900" in refused.json()["detail"]
    fresh.post("/api/account/signin", json={"name": "Near", "password": "correct horse"})
    assert fresh.post(f"/api/games/{game['id']}/accept").status_code == 200


def seek(client: TestClient, clock: str = "5+3", rated: bool = False) -> dict[str, Any]:
    response = client.post("/api/quickmatch", json={"clock": clock, "rated": rated})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def poll(client: TestClient, ticket: dict[str, Any]) -> Any:
    return client.post(f"/api/quickmatch/{ticket['seek']}/poll", json={"secret": ticket["secret"]})


def test_two_players_seeking_the_same_clock_are_paired_into_one_game_a_seat_each(fresh: TestClient) -> None:
    first = seek(fresh)
    waiting = poll(fresh, first).json()
    assert not waiting["matched"] and waiting["range"] >= 100 and waiting["fallback"]["after"] > 0
    assert lobby(fresh)["seeking"] == 1
    assert not poll(fresh, seek(fresh, clock="10+5")).json()["matched"], "another clock is another queue"
    assert first["paired"] is None, "nobody was waiting for it"
    second = seek(fresh)
    a, b = poll(fresh, first).json(), poll(fresh, second).json()
    assert a["matched"] and b["matched"] and a["game"] == b["game"] and {a["seat"], b["seat"]} == {0, 1}
    assert second["paired"] == b, "paired at once: the seek's answer holds its seat, which a poll hands over again"
    for ticket in (a, b):
        with connect(fresh, ticket["game"], ticket["token"]) as player:
            assert player.state["status"] == "playing" and player.state["clock"]["control"] == "5+3"
    assert poll(fresh, first).json() == a, "asked again (an answer lost on the way), the seat is handed over again"
    assert poll(fresh, {"seek": first["seek"], "secret": "wrong"}).status_code == 404


def test_a_waiting_poll_is_answered_the_moment_its_seek_is_paired(fresh: TestClient) -> None:
    first = seek(fresh)
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(poll, fresh, first)  # held by the server until a pairing or POLL_WAIT
        time.sleep(0.3)
        paired_at = time.monotonic()
        second = poll(fresh, seek(fresh)).json()
        answer = waiting.result(timeout=30).json()
    assert answer["matched"] and answer["game"] == second["game"] and {answer["seat"], second["seat"]} == {0, 1}
    assert time.monotonic() - paired_at < POLL_WAIT / 2, "answered by the pairing, not when its wait ran out"


def test_the_range_widens_while_a_player_waits_and_a_seek_nobody_polls_is_dropped(fresh: TestClient) -> None:
    assert seek_range(0) == 100 and seek_range(10) == 300 and seek_range(1000) == 800
    low = new_account(fresh, "Low")
    give_rating(fresh, "Low", 1500)
    low_ticket = seek(fresh, clock="3+2", rated=True)
    new_account(fresh, "High")
    give_rating(fresh, "High", 1800)
    high_ticket = seek(fresh, clock="3+2", rated=True)
    quickmatch = fresh.app.state.server.quickmatch  # type: ignore[attr-defined]
    assert not poll(fresh, high_ticket).json()["matched"], "300 apart: too far at first"
    assert quickmatch.match(datetime.now(timezone.utc) + timedelta(seconds=5)) == [], "±200 after five seconds: still too far"
    assert len(quickmatch.match(datetime.now(timezone.utc) + timedelta(seconds=10.5))) == 1, "±310 after ten seconds: near enough"
    act_as(fresh, low)
    assert poll(fresh, low_ticket).json()["matched"]
    gone = seek(fresh, clock="15+10")
    quickmatch.match(datetime.now(timezone.utc) + timedelta(seconds=20))
    assert poll(fresh, gone).status_code == 404, "not polled for 15 s: dropped"


def test_a_rated_seek_falls_back_to_the_nearest_level_rated_on_its_clock(fresh: TestClient) -> None:
    """max is rated only on a clock that leaves it its 5 s a move (issue 26, finding 10): a strong player's rated
    1+0 seek is offered expert instead; casual, it is offered max."""
    new_account(fresh, "Ada")
    give_rating(fresh, "Ada", 2800.0)
    rated = poll(fresh, seek(fresh, clock="1+0", rated=True)).json()["fallback"]
    casual = poll(fresh, seek(fresh, clock="1+0")).json()["fallback"]
    longer = poll(fresh, seek(fresh, clock="5+0", rated=True)).json()["fallback"]
    assert (rated["level"], casual["level"], longer["level"]) == ("expert", "max", "max")


def test_nobody_came_so_the_computer_level_nearest_your_rating_plays_you_with_the_same_clock(fresh: TestClient) -> None:
    ticket = seek(fresh, clock="10+5")
    fallback = poll(fresh, ticket).json()["fallback"]
    assert fallback["level"] == "casual"  # 1500 is nearest casual's 1776 (beginner: 1200)
    game = fresh.post(f"/api/quickmatch/{ticket['seek']}/computer", json={"secret": ticket["secret"]}).json()
    assert game["matched"] and game["computer"] == "casual"
    with connect(fresh, game["game"], game["token"]) as player:
        assert player.state["mode"] == "ai" and player.state["ai"]["level"] == "casual" and player.state["clock"]["control"] == "10+5"
    assert poll(fresh, ticket).status_code == 404
    cancelled = seek(fresh)
    assert fresh.post(f"/api/quickmatch/{cancelled['seek']}/cancel", json={"secret": cancelled["secret"]}).json() == {"matched": False, "cancelled": True}
    assert lobby(fresh)["seeking"] == 0
    assert fresh.post("/api/quickmatch", json={"clock": "5+3", "rated": True}).status_code == 403, "rated needs an account"
    assert fresh.post("/api/quickmatch", json={"clock": "5"}).status_code == 422


def test_the_lobby_socket_sends_the_lobby_and_again_when_a_challenge_comes(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    with fresh.websocket_connect("/ws/lobby") as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "lobby" and first["challenges"] == []
        game = create(fresh, mode="online", seat=0, clock="5+3", offer="open")
        pushed = json.loads(ws.receive_text())
        assert [c["id"] for c in pushed["challenges"]] == [game["id"]]


def test_named_challenges_cannot_push_the_open_ones_out_of_anyones_lobby(fresh: TestClient) -> None:
    new_account(fresh, "Bob")
    new_account(fresh, "Ada")
    open_one = create(fresh, mode="online", seat=0, clock="5+3", offer="open")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    bob = server.accounts.find("Bob")
    for _ in range(150):  # many accounts' named challenges, as a flood would make them (written straight to the table)
        named = Offer(OfferKind.NAMED, 1500.0, (bob.id, bob.name))
        new_game(server.store, "online", Position.initial(1), ["X", "Bob"], control=TimeControl.parse("5+3"), offer=named)
    new_account(fresh, "Carol")
    assert [c["id"] for c in lobby(fresh)["challenges"]] == [open_one["id"]]


def test_a_finished_game_leaves_being_played_without_being_loaded_again(fresh: TestClient) -> None:
    server = fresh.app.state.server  # type: ignore[attr-defined]
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="10+5", offer="open")
    new_account(fresh, "Bob")
    seat = fresh.post(f"/api/games/{game['id']}/accept").json()
    assert [g["id"] for g in lobby(fresh)["playing"]] == [game["id"]]
    with connect(fresh, game["id"], seat["token"]) as player:
        assert player.intent("abort")["type"] == "ack"
    assert lobby(fresh)["playing"] == [] and server.lobby.recently_taken() == [], "ended: its kept line leaves it out"
    # A game whose line was not kept (its process stopped between the two) is found over once, and kept then.
    with server.store._sessions.begin() as session:
        session.execute(delete(SummaryRow).where(SummaryRow.game_id == game["id"]))
    assert server.lobby.recently_taken() == [game["id"]]
    assert lobby(fresh)["playing"] == [] and server.lobby.recently_taken() == []
