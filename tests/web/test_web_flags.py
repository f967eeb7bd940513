"""The state says what each player may do, by the round's rules, so that the page decides nothing (docs/web.md)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_client import connect, create, get_state, join, new_account, play_against_the_beginner

from quiltmaker.web.round import rules


def test_a_game_against_the_computer_played_to_its_end_takes_no_undo_and_offers_the_rematch(client: TestClient) -> None:
    # Its end is what the lists keep and the analysis studies: the server refuses an undo then, and says so in the state.
    finished = play_against_the_beginner(client)
    state = finished["state"]
    assert state["result"] is not None and state["status"] == "over"
    assert state["undo"] is False and state["may_move"] == [False, False] and state["may_rematch"] is True
    with connect(client, finished["id"], finished["token"]) as player:
        refused = player.intent("undo")
        assert refused["type"] == "error" and refused["code"] == "not_allowed" and "over" in refused["message"]
        assert player.intent("rematch")["type"] == "ack"
        assert player.state["may_rematch"] is False  # one rematch a game: the link to it is offered instead


def test_only_the_player_to_move_may_move_and_never_for_the_computer(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=0, seed=3)
    with connect(client, game["id"], game["token"]) as player:
        assert player.state["to_move"] == 0 and player.state["may_move"] == [True, False]
        assert player.state["undo"] is False  # nothing of the player's to take back yet
        player.play_first_legal()
        state = player.wait_for(lambda s: s["to_move"] == 0 and not s["ai"]["thinking"], "the player's turn again")
        assert state["may_move"] == [True, False] and state["undo"] is True
    waiting = create(client, mode="online", seat=0)
    assert get_state(client, waiting["id"])["may_move"] == [False, False], "nobody moves before the invitation is taken"


def test_a_lesson_and_a_puzzle_offer_no_rematch(client: TestClient) -> None:
    lesson = create(client, mode="lesson", lesson=1)
    assert get_state(client, lesson["id"])["may_rematch"] is False
    puzzle = client.post("/api/puzzles", json={}).json()
    with connect(client, puzzle["id"], puzzle["token"]) as player:
        player.play_first_legal()  # answered, right or wrong: over
        assert player.state["status"] == "over" and player.state["may_rematch"] is False and player.state["may_move"] == [False, False]


def test_a_game_undone_after_it_was_played_out_before_this_rule_still_loads(client: TestClient) -> None:
    finished = play_against_the_beginner(client)
    server = client.app.state.server  # type: ignore[attr-defined]
    stored = server.store.load(finished["id"])
    count = rules.undo_count(stored)  # what the older rule took back once the game was played out
    server.store.append(finished["id"], stored.version, "undo", str(count), 1 - stored.ai_seat, None)
    again = server.store.load(finished["id"])  # replayed by the rules: the log's older undo is no corruption
    assert again.version == stored.version + 1 and len(again.game.moves) == len(stored.game.moves) - count


def test_an_online_rematch_keeps_each_account_in_its_new_seat(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0)
    new_account(fresh, "Bob")
    taken = join(fresh, game)
    assert taken.status_code == 200
    with connect(fresh, game["id"], taken.json()["token"]) as player:
        assert player.intent("resign")["type"] == "ack"
        assert player.intent("rematch")["type"] == "ack"
        rematch = player.state["rematch"]
    state = get_state(fresh, rematch)
    assert state["accounts"] == [True, True], "neither player is a guest in the rematch"
    server = fresh.app.state.server  # type: ignore[attr-defined]
    assert server.accounts.seat_in(server.accounts.find("Ada"), rematch) == "1" and server.accounts.seat_in(server.accounts.find("Bob"), rematch) == "0"
