"""Clocks of online games (docs/web.md, "Clocks"): sent with every state, charged by the server, ended on time.

A clock is derived from when each move was made, so these tests set a game's
past by writing its first moves with earlier times through the store (as a
game looks after a server was down for a while), instead of waiting minutes.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import TEST_QUOTAS, connect, create, game_count, get_state, join
from web_helpers import new_game, migrated_store, play_in_the_past, poll

from quiltmaker.core import record
from quiltmaker.core.game import Ending
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.round.clocks import TimeControl
from quiltmaker.web.round.store import GameStore, StoreError
from quiltmaker.web.round.timeouts import CLOCK_WATCH, DOWNTIME


def clocked_game(client: TestClient, clock: str) -> dict[str, Any]:
    game = create(client, mode="online", seat=0, seed=2, clock=clock)
    joined = join(client, game).json()
    return {**game, "tokens": {0: game["token"], 1: joined["token"]}}


def server_store(client: TestClient) -> GameStore:
    return client.app.state.server.store  # type: ignore[attr-defined,no-any-return]


def test_every_state_carries_both_clocks_which_start_once_each_side_has_moved(client: TestClient) -> None:
    game = clocked_game(client, "10+5")
    with connect(client, game["id"], game["tokens"][0]) as host, connect(client, game["id"], game["tokens"][1]) as guest:
        clock = host.state["clock"]
        assert clock["control"] == "10+5" and clock["words"] == "10 minutes + 5 seconds a move" and clock["kind"] == "realtime"
        assert clock["remaining"] == [600, 600] and clock["running"] is None and not clock["started"]
        assert host.move("A")["type"] == "ack"
        assert host.state["clock"]["running"] is None, "one side has moved: the clocks wait for the other"
        guest.wait_for(lambda s: s["version"] == 1)
        assert guest.move("A")["type"] == "ack"
        clock = guest.state["clock"]
        assert clock["started"] and clock["running"] == guest.state["to_move"] == 0
        assert clock["remaining"][1] == 600, "the move that started the clocks costs nothing"
        assert 590 < clock["remaining"][0] <= 600 and clock["deadline"] is not None
        host.wait_for(lambda s: s["version"] == 2)
        assert host.move("A")["type"] == "ack"
        assert 600 < host.state["clock"]["remaining"][0] <= 605, "the increment comes after each move"
    assert create(client, mode="online", seat=0)["id"] and get_state(client, create(client, mode="online")["id"])["clock"] is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"mode": "local", "clock": "2d"}, "a clock is for online games and games against the computer"),
        ({"mode": "lesson", "lesson": 1, "clock": "2d"}, "a clock is for online games and games against the computer"),
        ({"mode": "online", "clock": "10"}, "not a time control"),
        ({"mode": "online", "clock": "0.1+0"}, "starts with 15 s"),
        ({"mode": "online", "clock": "10+90"}, "the increment is 0 to 60 seconds"),
        ({"mode": "online", "clock": "9d"}, "1, 2 or 3 days"),
    ],
)
def test_a_clock_that_is_not_offered_is_refused_and_creates_nothing(client: TestClient, body: dict[str, Any], words: str) -> None:
    before = game_count(client)
    response = client.post("/api/games", json=body)
    assert response.status_code == 422 and words in response.text, response.text
    assert game_count(client) == before


def test_the_server_ends_a_real_time_game_whose_time_ran_out_and_a_late_move_is_refused(client: TestClient) -> None:
    game = clocked_game(client, "0.25+0")  # 15 seconds each
    with connect(client, game["id"], game["tokens"][0]) as host, connect(client, game["id"], game["tokens"][1]) as guest:
        # The clocks started 20 s ago: seat 0, to move, ran out 5 s ago, and nobody has told the server.
        play_in_the_past(server_store(client), game["id"], [("A", 21), ("A", 20)])
        over = guest.wait_for(lambda s: s["result"] is not None, "the game to end on time")
        assert over["result"]["by"] == "time" and over["result"]["winner"] == 1 and over["status"] == "over"
        assert over["clock"]["running"] is None and over["clock"]["remaining"][0] == 0 and not over["can_resign"]
        host.wait_for(lambda s: s["result"] is not None)
        assert host.move("A")["code"] == "game_over"
    stored = server_store(client).load(game["id"])
    assert stored.ended == Ending("time", 0) and stored.version == 3, "one timeout, after the two moves"
    # The rematch keeps the time control.
    with connect(client, game["id"], game["tokens"][1]) as guest:
        assert guest.intent("rematch")["type"] == "ack"
        assert get_state(client, guest.state["rematch"])["clock"]["control"] == "0.25+0"


def test_a_correspondence_player_past_their_days_may_still_move_until_the_opponent_claims_the_win(client: TestClient) -> None:
    day = 86400
    late_but_in = clocked_game(client, "1d")
    play_in_the_past(server_store(client), late_but_in["id"], [("A", 2 * day + 60), ("A", 2 * day)])
    with connect(client, late_but_in["id"], late_but_in["tokens"][0]) as late:
        assert late.state["claimable_by"] == 1
        assert late.move("A")["type"] == "ack", "no end by itself: the move counts while nobody has claimed"
        assert late.state["claimable_by"] is None and late.state["clock"]["flagged"] is None
    game = clocked_game(client, "1d")
    play_in_the_past(server_store(client), game["id"], [("A", 2 * day + 60), ("A", 2 * day)])  # seat 0 to move, a day late
    with connect(client, game["id"], game["tokens"][0]) as late, connect(client, game["id"], game["tokens"][1]) as waiting:
        state = late.state
        assert state["clock"]["flagged"] == 0 and state["claimable_by"] == 1 and state["result"] is None, "no end by itself"
        assert late.intent("claim")["code"] == "not_allowed", "the late side cannot claim"
        assert waiting.intent("claim")["type"] == "ack"
        result = waiting.state["result"]
        assert result == {**result, "winner": 1, "by": "claim"} and waiting.state["claimable_by"] is None
        assert waiting.intent("claim")["code"] == "game_over"
    client.app.state.server.games.cache.clear()  # type: ignore[attr-defined]  # replayed from the log, as after a restart
    assert get_state(client, game["id"])["result"]["by"] == "claim"
    # The records say so too (issue 25): a claim, the scores as they stood.
    saved = client.get(f"/api/games/{game['id']}/record.json").json()
    assert saved["result"] == {"by": "claim", "winner": 1, "scores": saved["result"]["scores"]}
    assert '[Ending "claim"]' in client.get(f"/api/games/{game['id']}/record.txt").text
    assert record.from_json(saved).ending == Ending("claim", 0)


def test_a_claim_is_refused_while_the_other_side_still_has_time_and_in_a_real_time_game(client: TestClient) -> None:
    game = clocked_game(client, "3d")
    play_in_the_past(server_store(client), game["id"], [("A", 60), ("A", 30)])
    with connect(client, game["id"], game["tokens"][1]) as waiting:
        refused = waiting.intent("claim")
        assert refused["code"] == "not_allowed" and "still has time" in refused["message"]
        assert get_state(client, game["id"])["clock"]["deadline"] is not None
    fast = clocked_game(client, "5+3")
    with connect(client, fast["id"], fast["tokens"][1]) as player:
        assert player.intent("claim")["code"] == "not_allowed"
    untimed = create(client, mode="online", seat=0)
    with connect(client, untimed["id"], untimed["token"]) as player:
        assert player.intent("claim")["code"] == "not_allowed"


def test_a_log_whose_timeout_came_before_the_time_ran_out_is_corrupt(tmp_path: Any) -> None:
    from quiltmaker.core.position import Position

    store = migrated_store(f"sqlite:///{tmp_path / 'clocks.sqlite3'}")
    game_id = new_game(store, "online", Position.initial(3, first_player=0), ["A", "B"], control=TimeControl.parse("5+0")).id
    play_in_the_past(store, game_id, [("A", 10), ("A", 5)])
    store.append(game_id, 2, "timeout", "0", None, None)  # seat 0 has almost all of its five minutes
    with pytest.raises(StoreError) as refused:
        store.load(game_id)
    assert refused.value.code == "corrupt" and "time has not run out" in str(refused.value)
    store.close()


@pytest.mark.parametrize(
    ("value", "seat", "why"),
    [
        ("1 3.0", None, "for a turn of"),  # more than the turn has lasted (about 2 s)
        ("0 1.0", None, "real-time side to move"),  # the side not to move
        ("1 1.0", 0, "only the server"),  # sent by a player
        ("1 -1", None, "a credit of"),  # no such amount
    ],
)
def test_a_log_whose_credit_the_turn_does_not_allow_is_corrupt(tmp_path: Any, value: str, seat: int | None, why: str) -> None:
    from quiltmaker.core.position import Position

    store = migrated_store(f"sqlite:///{tmp_path / 'clocks.sqlite3'}")
    game_id = new_game(store, "online", Position.initial(3, first_player=0), ["A", "B"], control=TimeControl.parse("5+0")).id
    play_in_the_past(store, game_id, [("A", 10), ("A", 5), ("A", 2)])  # seat 1 to move, for two seconds now
    assert store.load(game_id).game.position.to_move == 1
    store.append(game_id, 3, "credit", value, seat, None)
    with pytest.raises(StoreError) as refused:
        store.load(game_id)
    assert refused.value.code == "corrupt" and why in str(refused.value), str(refused.value)
    store.close()


def test_the_credits_of_one_turn_together_never_exceed_it(tmp_path: Any) -> None:
    from quiltmaker.core.position import Position

    store = migrated_store(f"sqlite:///{tmp_path / 'clocks.sqlite3'}")
    game_id = new_game(store, "online", Position.initial(3, first_player=0), ["A", "B"], control=TimeControl.parse("5+0")).id
    play_in_the_past(store, game_id, [("A", 10), ("A", 5), ("A", 2)])  # seat 1 to move, for two seconds now
    store.append(game_id, 3, "credit", "1 1.500", None, None)
    assert store.load(game_id).credited_this_turn() == 1.5  # one credit within the turn loads
    store.append(game_id, 4, "credit", "1 1.000", None, None)  # each alone within the turn, together past it
    with pytest.raises(StoreError) as refused:
        store.load(game_id)
    assert refused.value.code == "corrupt" and "given back already" in str(refused.value), str(refused.value)
    store.close()


@pytest.mark.slow  # the AI's move is held for longer than its whole clock: 16 seconds
def test_the_computers_clock_runs_while_it_thinks_not_while_its_move_waits_for_a_worker(tmp_path: Any) -> None:
    """Issue 26: a player flooded the AI's workers until the AI's move, waiting in the queue, lost on time, and the
    player's rated loss became an unrated win. The AI is charged its thinking only; the wait is given back."""
    executor = ThreadPoolExecutor(1)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=executor)) as own_client:
        game = create(own_client, mode="ai", level="beginner", seat=0, seed=3, clock="0.25+0")  # 15 seconds each
        with connect(own_client, game["id"], game["token"]) as player:
            player.play_first_legal()
            player.wait_for(lambda s: s["to_move"] == 0 and s["clock"]["started"], "the AI's first reply, which starts the clocks")
            held = executor.submit(time.sleep, 16.5)  # the worker busy with other work for longer than the AI has
            time.sleep(0.1)
            version = player.play_first_legal()["version"]
            state = player.wait_for(lambda s: s["version"] > version + 1 or s["status"] != "playing", "the AI's reply, or the end")
            held.result()
        assert state["status"] == "playing" and state["result"] is None, "the AI did not lose on time waiting for a worker"
        assert state["clock"]["remaining"][1] > 13.0, state["clock"]  # charged its thinking, not the 16.5 s wait
        replayed = server_store(own_client).load(game["id"])  # the log, credit and all, replays through the rules
        assert len(replayed.credits) == 1 and replayed.credits[0][0] == 1 and replayed.credits[0][1] > 15.5, replayed.credits


@pytest.mark.parametrize("down_for", [19.0, 1.0])
def test_time_no_server_ran_is_given_back_to_the_clocks_at_restart(tmp_path: Any, down_for: float) -> None:
    """Issue 26: a 25 s restart cost the player to move 25.5 s, and a 15 s game was lost on time at the restart.
    Each process beats every second; at start, the time no process beat is given back to the running clocks."""
    from datetime import datetime, timedelta, timezone

    from quiltmaker.core.position import Position

    url = f"sqlite:///{tmp_path / 'clocks.sqlite3'}"
    store = migrated_store(url)
    game_id = new_game(store, "online", Position.initial(3, first_player=0), ["A", "B"], control=TimeControl.parse("0.25+0")).id
    play_in_the_past(store, game_id, [("A", 30), ("A", 25), ("A", 20)])  # seat 1's 15 s ran out 5 s ago...
    store.beat("a process now gone", datetime.now(timezone.utc) - timedelta(seconds=down_for))  # ... while no server ran, or for 1 s only
    store.close()
    with TestClient(create_app(Settings(database_url=url), executor=ThreadPoolExecutor(1))) as client:
        poll(lambda: client.app.state.server.store.last_beat() > datetime.now(timezone.utc) - timedelta(seconds=5), what="this process's beat")  # type: ignore[attr-defined]
        time.sleep(2 * CLOCK_WATCH)
        state = get_state(client, game_id)
        ended = client.app.state.server.store.load(game_id).ended  # type: ignore[attr-defined]
    if down_for > DOWNTIME:
        assert state["status"] == "playing", "the game was not lost on time for the service's downtime"
        assert 11.0 < state["clock"]["remaining"][1] < 14.5, state["clock"]  # 15 s less the one second before the service went down
    else:
        assert state["status"] == "over" and ended == Ending("time", 1), "a second's gap is no downtime: the time ran out"
