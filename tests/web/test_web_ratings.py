"""Rated games (docs/web.md, "Ratings"): accounts on both seats, one Glicko-2 update each game, profiles, the leaderboard."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from fastapi.testclient import TestClient
from web_client import act_as, apart, connect, create, new_account
from web_helpers import play_in_the_past

from quiltmaker.core.game import Ending
from quiltmaker.web.rating.ratings import ai_ratings


def both_move_then(client: TestClient, game: dict[str, Any], tokens: dict[int, str], ending: tuple[int, str]) -> dict[str, Any]:
    """Each side advances once, then seat ``ending[0]`` sends ``ending[1]`` (resign); the final state."""
    with connect(client, game["id"], tokens[0]) as first, connect(client, game["id"], tokens[1]) as second:
        players = {0: first, 1: second}
        assert first.move("A")["type"] == "ack"
        second.wait_for(lambda s: s["version"] == 1)
        assert second.move("A")["type"] == "ack"
        ender = players[ending[0]]
        ender.wait_for(lambda s: s["version"] == 2)
        assert ender.intent(ending[1])["type"] == "ack"
        return ender.state


def test_a_rated_game_needs_a_clock_and_accounts_on_both_seats(fresh: TestClient) -> None:
    act_as(fresh, None)
    guest = fresh.post("/api/games", json={"mode": "online", "clock": "10+5", "rated": True})
    assert guest.status_code == 403 and "sign in" in guest.json()["detail"]
    ada = new_account(fresh, "Ada")
    untimed = fresh.post("/api/games", json={"mode": "online", "rated": True})
    assert untimed.status_code == 422 and "needs a clock" in untimed.text
    game = create(fresh, mode="online", seat=0, clock="10+5", rated=True)
    assert fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]}).status_code == 403, "Ada cannot take both seats"
    act_as(fresh, None)
    refused = fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]})
    assert refused.status_code == 403 and "rated game: sign in" in refused.json()["detail"]
    new_account(fresh, "Bob")
    joined = fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]})
    assert joined.status_code == 200, "the refusals spent nothing: the invitation still works"
    state = fresh.get(f"/api/games/{game['id']}").json()
    assert state["rating"] == {"family": "realtime", "settled": False, "unrated": None, "changes": [None, None]} and ada
    assert state["names"] == ["Ada", "Bob"], "each plays under their account's name"


def test_the_end_of_a_rated_game_moves_both_ratings_once_and_shows_on_the_profiles(fresh: TestClient) -> None:
    ada = new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="10+5", rated=True)
    assert fresh.get(f"/api/games/{game['id']}").status_code == 200  # in the server's memory before Bob joins
    new_account(fresh, "Bob")
    bob_seat = fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]}).json()
    apart(fresh)  # Ada and Bob in two places (one address: tests/web/test_web_farming.py)
    over = both_move_then(fresh, game, {0: game["token"], 1: bob_seat["token"]}, (1, "resign"))
    assert over["result"]["winner"] == 0
    assert fresh.get(f"/api/games/{game['id']}/record.json").json()["players"] == ["Ada", "Bob"], "the record names who joined"
    (ada_before, ada_after), (bob_before, bob_after) = over["rating"]["changes"]
    assert ada_before == bob_before == 1500 and ada_after > 1500 > bob_after and over["rating"]["settled"]
    server = fresh.app.state.server  # type: ignore[attr-defined]
    stored = server.games.cache[game["id"]]
    assert server.ratings.settle(stored) is None, "settled once: a second call (another process) changes nothing"
    act_as(fresh, ada)  # a game by invitation is on its players' own pages only (tests/web/test_web_floods.py)
    profile = fresh.get("/api/players/ada").json()  # any case
    assert profile["name"] == "Ada" and profile["ratings"]["realtime"] == {"rating": ada_after, "rd": profile["ratings"]["realtime"]["rd"], "games": 1, "provisional": True}
    assert profile["ratings"]["correspondence"]["games"] == 0
    assert [(h["game"], h["before"], h["after"]) for h in profile["history"]] == [(game["id"], 1500, ada_after)]
    assert [g["id"] for g in profile["games"]] == [game["id"]] and profile["games"][0]["result"]["by"] == "resignation"
    assert fresh.get("/api/players/nobody").status_code == 404
    # The rematch is rated too, the accounts swapped with the seats.
    act_as(fresh, ada)
    with connect(fresh, game["id"], game["token"]) as player:
        assert player.intent("rematch")["type"] == "ack"
        rematch = player.state["rematch"]
    assert fresh.get(f"/api/games/{rematch}").json()["rating"]["family"] == "realtime"
    assert server.ratings.rated_game(rematch)[1] == list(reversed(server.ratings.rated_game(game["id"])[1]))


def test_a_rated_game_against_a_level_moves_only_the_persons_rating_and_gives_no_help(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    game = create(fresh, mode="ai", level="beginner", seat=0, clock="15+10", rated=True)
    with connect(fresh, game["id"], game["token"]) as player:
        assert not player.state["hints"] and not player.state["undo"]
        assert player.intent("hint")["code"] == "not_allowed" and player.intent("undo")["code"] == "not_allowed"
        for _ in range(400):
            state = player.wait_for(lambda s: s["result"] is not None or s["to_move"] == 0, "Ada's turn")
            if state["result"] is not None:
                break
            player.play_first_legal()
        player.wait_for(lambda s: s["rating"]["settled"], "the rating")
        changes = player.state["rating"]["changes"]
    assert changes[1] is None, "the level's rating is fixed"
    before, after = changes[0]
    assert before == 1500 and (after > 1500) == (player.state["result"]["winner"] == 0)
    catalogue = {level["name"]: level["rating"] for level in fresh.get("/api/catalogue").json()["levels"]}
    assert catalogue == {name: round(rating) for name, rating in ai_ratings().items()}


def test_an_aborted_rated_game_rates_nobody_and_the_leaderboard_lists_established_ratings_and_the_levels(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="2d", rated=True)
    new_account(fresh, "Bob")
    fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]})
    with connect(fresh, game["id"], game["token"]) as player:
        assert player.intent("abort")["type"] == "ack"
        assert player.state["rating"]["changes"] == [None, None] and player.state["rating"]["settled"]
    assert fresh.get("/api/players/ada").json()["history"] == []
    board = fresh.get("/api/leaderboard?family=correspondence").json()
    assert [e["name"] for e in board["entries"]] == [f"quiltmaker {name}" for name in reversed(list(ai_ratings()))], "no one established yet"
    assert fresh.get("/api/leaderboard?family=blitz").status_code == 422


def test_the_computer_thinks_within_its_clock_and_its_loss_on_time_is_not_rated(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    game = create(fresh, mode="ai", level="expert", seat=0, clock="0.25+2", rated=True)  # (max is not rated on this clock)
    assert server.ai._time_cap(server.store.load(game["id"])) == 15 / 40 + 2 * 0.8
    assert server.ai._time_cap(server.store.load(create(fresh, mode="ai", level="max", seat=0)["id"])) is None, "no clock"
    play_in_the_past(server.store, game["id"], [("A", 3), ("A", 2)])  # the AI (seat 1) moved too: the clocks run
    stored = server.store.load(game["id"])
    stored.ai_seat = 0  # as if the computer were to move now, with about 13 s left and 2 s a move
    cap = server.ai._time_cap(stored)
    assert cap is not None and 1.6 < cap < 2.0, "a fortieth of what is left, and most of the increment"
    # A game the computer lost on time rates nobody.
    lost = server.store.load(game["id"])
    lost.game.end(Ending("time", 1))
    lost.ended_at = datetime.now(timezone.utc)
    assert server.ratings.settle(lost) is None and fresh.get("/api/players/Ada").json()["history"] == []


def test_the_hourly_sweep_rates_every_finished_game_it_missed_a_page_at_a_time(fresh: TestClient) -> None:
    ada = new_account(fresh, "Ada")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    games = [create(fresh, mode="online", seat=0, clock="10+5", rated=True) for _ in range(3)]
    new_account(fresh, "Bob")
    for game in games:
        fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]})
    ids = sorted(g["id"] for g in games)
    assert server.ratings.unsettled("", 2) == ids[:2] and server.ratings.unsettled(ids[1], 2) == ids[2:]
    apart(fresh)
    for game in games:  # played, then resigned, written past the server as a crash would leave it: unrated
        play_in_the_past(server.store, game["id"], [("A", 3), ("A", 2)])
        server.store.append(game["id"], 2, "resign", "0", 0, None)
    server.games.cache.clear()
    fresh.portal.call(server.ratings.settle_missed, server.games.load)
    assert len(fresh.get("/api/players/Ada").json()["history"]) == 3 and ada
