"""Whole games over the WebSocket (docs/web.md): against the AI, pass-and-play, online, rematches."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import (
    AI_GAME_NAME,
    Player,
    connect,
    create,
    game_count,
    get_state,
    join,
    play_against_the_beginner,
    snapshot,
)
from web_helpers import first_legal_move, legal_moves, poll

from quiltmaker.core.game import Ending
from quiltmaker.ai.judgement import LABELS, classify
from quiltmaker.core import record
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position


# A whole game against the AI ------------------------------------------------------
def test_whole_game_against_the_ai_ends_with_a_result(finished_ai_game: dict[str, Any]) -> None:
    state = finished_ai_game["state"]
    assert state["status"] == "over" and state["to_move"] is None
    assert state["result"]["winner"] in (0, 1)
    assert not state["hints"] and state["legal"] == {"advance": None, "buys": [], "specials": []}
    assert {m["player"] for m in state["moves"]} == {0, 1}
    assert state["version"] == len(state["moves"])  # no undo: one event a move


def test_result_breakdown_adds_up_to_the_scores(finished_ai_game: dict[str, Any]) -> None:
    result = finished_ai_game["state"]["result"]
    for player, part in enumerate(result["breakdown"]):
        assert part["buttons"] + part["bonus"] + part["penalty"] == part["total"] == result["scores"][player]
        assert part["penalty"] == -2 * part["empty"]


def test_record_json_replays_to_the_final_position(client: TestClient, finished_ai_game: dict[str, Any]) -> None:
    response = client.get(f"/api/games/{finished_ai_game['id']}/record.json")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    game = record.from_json(response.text)
    assert game.position.text() == finished_ai_game["state"]["position"]
    assert game.players[0] == AI_GAME_NAME.strip()


def test_the_replay_gets_every_position_drawn_by_the_server(client: TestClient, finished_ai_game: dict[str, Any]) -> None:
    """GET .../positions: the board after every ply, as the live state draws it (the page rebuilds none)."""
    body = client.get(f"/api/games/{finished_ai_game['id']}/positions").json()
    game = record.from_json(client.get(f"/api/games/{finished_ai_game['id']}/record.json").text)
    assert [p["ply"] for p in body["positions"]] == list(range(len(game.moves) + 1))
    for shown, position in zip(body["positions"], game.positions):
        assert shown["position"] == position.text()
        assert shown["circle"] == list(position.circle) and shown["offered"] == list(position.offered)
        assert (shown["times"], shown["on_top"], shown["to_move"]) == (list(position.times), position.on_top, position.to_move)
        for seat in (0, 1):
            covered = sum(cell is not None for row in shown["quilts"][seat] for cell in row)
            assert covered == position.quilts[seat].bit_count()
    final = body["positions"][-1]
    state = finished_ai_game["state"]
    assert {key: final[key] for key in final if key != "ply"} == {key: state[key] for key in final if key != "ply"}
    assert client.get("/api/games/nonexistent/positions").status_code == 404


def test_record_txt_loads_to_the_final_position(client: TestClient, finished_ai_game: dict[str, Any]) -> None:
    response = client.get(f"/api/games/{finished_ai_game['id']}/record.txt")
    assert response.status_code == 200
    game = record.load(response.text)
    assert game.position.text() == finished_ai_game["state"]["position"]
    assert game.players == [AI_GAME_NAME, "quiltmaker beginner"]


def test_move_after_game_over_is_refused(client: TestClient, finished_ai_game: dict[str, Any]) -> None:
    game_id = finished_ai_game["id"]
    before = snapshot(client, game_id)
    with connect(client, game_id, finished_ai_game["token"]) as player:
        reply = player.move("A")
        assert reply["code"] == "game_over"
        assert player.intent("hint")["code"] == "game_over"
    assert snapshot(client, game_id) == before


def test_analysis_of_a_finished_game_gives_a_win_probability_per_position(
    client: TestClient, finished_ai_game: dict[str, Any]
) -> None:
    url = f"/api/games/{finished_ai_game['id']}/analysis"
    first = client.get(url)
    assert first.status_code == 202 and first.json()["status"] == "computing"
    done = poll(lambda: (r := client.get(url)).status_code == 200 and r.json(), timeout=120, what="the analysis")
    positions = done["positions"]
    assert done["status"] == "done"
    assert len(positions) == len(finished_ai_game["state"]["moves"]) + 1
    for entry in positions:
        assert 0.0 <= entry["win_probability_player0"] <= 1.0
    # The marked moves: each a real loss for its mover by these figures, classed by the worse of its two losses,
    # with a legal better move drawn and what it cost in words.
    game = record.from_json(client.get(f"/api/games/{finished_ai_game['id']}/record.json").json())
    assert done["judgements"], "the human's first legal moves, judged at 50 playouts a position, lose something somewhere"
    for judged in done["judgements"]:
        ply, mover = judged["ply"], judged["player"]
        sign = 1 if mover == 0 else -1
        before, after = positions[ply - 1], positions[ply]
        chance = sign * (before["win_probability_player0"] - after["win_probability_player0"])
        points = sign * (before["expected_margin_player0"] - after["expected_margin_player0"])
        assert judged["drop"] == pytest.approx(max(0.0, chance), abs=1e-3)
        assert judged["points"] == pytest.approx(max(0.0, points), abs=0.051)
        assert (judged["label"], judged["by"]) == classify(judged["drop"], judged["points"])
        shown = f"{judged['points']:.1f} points of the final margin"
        assert shown in judged["cost"] and f"{round(judged['drop'] * 100)}% of the chance to win" in judged["cost"]
        assert judged["cost"].startswith(shown) == (judged["by"] == "points")
        better = Move.from_text(judged["better"])
        assert game.positions[ply - 1].why_illegal(better) is None and judged["better"] == positions[ply - 1]["best_move"]
        assert judged["better"] != judged["played"]
        assert judged["better_cells"] == [list(cell) for cell in better.cells]
    # Each player's accuracy and points lost, over every move they made.
    players = done["players"]
    assert [p["player"] for p in players] == [0, 1]
    assert [p["moves"] for p in players] == [game.movers.count(0), game.movers.count(1)]
    for summary in players:
        assert 0 <= summary["accuracy"] <= 100 and summary["points_lost"] >= 0
        labels = [j["label"] for j in done["judgements"] if j["player"] == summary["player"]]
        assert [summary["inaccuracies"], summary["mistakes"], summary["blunders"]] == [labels.count(k) for k in LABELS]


def test_a_finished_game_is_played_on_from_any_position_against_the_ai(client: TestClient, finished_ai_game: dict[str, Any]) -> None:
    """"What if": a new game from the position after a move, its moves up to there the source's, the player seated to move there."""
    source = finished_ai_game["id"]
    game = record.from_json(client.get(f"/api/games/{source}/record.json").json())
    ply = next(k for k, position in enumerate(game.positions) if position.to_move == 1 and k > 2)  # the AI's side to move
    response = client.post("/api/games", json={"mode": "ai", "from_game": source, "from_ply": ply})
    assert response.status_code == 200, response.text
    created = response.json()
    assert created["seat"] == 1 and created["invite"] is None  # the player takes the side to move there
    state = get_state(client, created["id"])
    assert state["position"] == game.positions[ply].text() and state["version"] == ply
    assert [m["move"] for m in state["moves"]] == [m.text() for m in game.moves[:ply]]  # the whole game so far: quilts, list, replay
    assert (state["ai"]["seat"], state["ai"]["level"]) == (0, "beginner")  # the source game's level, unless another is asked for
    assert state["hints"] and state["clock"] is None  # a study: hints and undo, no clock
    played_on = record.from_json(client.get(f"/api/games/{created['id']}/record.json").json())
    assert played_on.start == game.start and played_on.moves == game.moves[:ply] and played_on.position == game.positions[ply]
    assert get_state(client, created["id"])["quilts"] == client.get(f"/api/games/{source}/positions").json()["positions"][ply]["quilts"]
    # The player moves there, and the game goes on against the AI.
    with connect(client, created["id"], created["token"]) as player:
        player.play_first_legal()
        player.wait_for(lambda s: s["version"] >= ply + 1, "the move")
    # Another level, or the other seat, when asked for.
    other = client.post("/api/games", json={"mode": "ai", "from_game": source, "from_ply": 0, "level": "casual", "seat": 1}).json()
    assert (get_state(client, other["id"])["ai"]["seat"], get_state(client, other["id"])["ai"]["level"]) == (0, "casual")


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"mode": "ai", "from_game": "FINISHED"}, 422),  # the ply too
        ({"mode": "ai", "from_ply": 3}, 422),  # the game too
        ({"mode": "local", "from_game": "FINISHED", "from_ply": 3}, 422),  # against the computer only
        ({"mode": "ai", "from_game": "FINISHED", "from_ply": 3, "clock": "5+3"}, 422),  # no clock: a study
        ({"mode": "ai", "from_game": "FINISHED", "from_ply": 3, "seed": 4}, 422),  # the position is the setup
        ({"mode": "ai", "from_game": "FINISHED", "from_ply": -1}, 422),
        ({"mode": "ai", "from_game": "FINISHED", "from_ply": 9999}, 422),  # past the game's end
        ({"mode": "ai", "from_game": "FINISHED", "from_ply": "LAST"}, 409),  # the game ends there
        ({"mode": "ai", "from_game": "PLAYING", "from_ply": 0}, 409),  # a game under way is not studied with the AI
        ({"mode": "ai", "from_game": "nonexistent", "from_ply": 0}, 404),
    ],
    ids=["no-ply", "no-game", "local", "clock", "seed", "negative", "past-the-end", "at-the-end", "unfinished", "unknown"],
)
def test_playing_on_is_refused_where_the_rules_say_no_and_creates_nothing(
    client: TestClient, finished_ai_game: dict[str, Any], local_game: dict[str, Any], body: dict[str, Any], status: int
) -> None:
    names = {"FINISHED": finished_ai_game["id"], "PLAYING": local_game["id"]}
    body = {k: names.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    if body.get("from_ply") == "LAST":
        body["from_ply"] = len(finished_ai_game["state"]["moves"])
    before = game_count(client)
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    assert game_count(client) == before


# Pass-and-play -------------------------------------------------------------------
def test_pass_and_play_token_plays_both_seats(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"]) as player:
        assert player.hello(local_game["token"]) == {"type": "welcome", "seat": "both", "id": None}
        for _ in range(30):
            if {m["player"] for m in player.state["moves"]} == {0, 1}:
                break
            before = player.state["version"]
            assert player.play_first_legal()["version"] == before + 1
        assert {m["player"] for m in player.state["moves"]} == {0, 1}


def test_pass_and_play_undo_takes_back_one_move(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"], local_game["token"]) as player:
        assert player.intent("undo")["code"] == "not_allowed"  # nothing to undo yet
        player.play_first_legal()
        after_one = player.state
        player.play_first_legal()
        reply = player.intent("undo")
        assert reply["type"] == "ack" and reply["version"] == 3
        state = player.wait_for(lambda s: s["version"] == 3)
        assert state["position"] == after_one["position"] and state["moves"] == after_one["moves"]
    assert snapshot(client, local_game["id"]) == (3, after_one["position"])


def test_pass_and_play_hint_is_a_legal_move_and_changes_nothing(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"], local_game["token"]) as player:
        player.play_first_legal()
        before = snapshot(client, local_game["id"])
        hint = player.intent("hint", id="h1")
        assert hint["type"] == "hint" and hint["id"] == "h1"
        assert hint["best_move"] in legal_moves(player.state)
        assert 0.0 <= hint["win_probability"] <= 1.0
        assert isinstance(hint["expected_margin"], (int, float))
        # What the page draws and says of it comes with it: the page reads no move text.
        move = Move.from_text(hint["best_move"])
        assert hint["best_move_cells"] == [list(cell) for cell in move.cells] and hint["best_move_patch"] == move.patch
        assert hint["best_move_words"] and (move.patch is None or f"patch {move.patch}" in hint["best_move_words"])
        assert hint["best_move_why"] and all(isinstance(why, str) and why for why in hint["best_move_why"])
    assert snapshot(client, local_game["id"]) == before


def test_a_hints_reasons_come_from_the_rules_numbers() -> None:
    """Why a hinted purchase helps: its income, the squares it covers for its price, what it earns on the way."""
    from quiltmaker.core.components import PATCHES
    from quiltmaker.web.ai.advice import hint_view

    position = Position.initial(circle=[*range(1, 33), 0], first_player=0)
    for move in position.legal_moves():
        why = " | ".join(hint_view(position, move.text())["best_move_why"])
        if move.kind == "buy":
            patch = PATCHES[move.patch]  # type: ignore[index]
            assert f"covers {patch.size} squares for {patch.cost} button" in why, why
            assert (f"adds {patch.income} to your income" in why) == (patch.income > 0), why
        else:
            assert "advancing pays" in why, why


# Against the AI ------------------------------------------------------------------


def test_undo_against_the_ai_returns_to_the_humans_turn_taking_the_ai_reply_too(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=0, seed=0)
    human, ai = 0, 1
    with connect(client, game["id"], game["token"]) as player:
        assert player.state["to_move"] == human
        # Play until the AI has answered (the human may move several times in a row).
        before_last_human_move = player.state
        while not (player.state["moves"] and player.state["moves"][-1]["player"] == ai):
            player.wait_for(lambda s: s["to_move"] == human)
            before_last_human_move = player.state
            player.play_first_legal()
            player.wait_for(lambda s: s["to_move"] == human, "the AI's reply")
        version = player.state["version"]
        reply = player.intent("undo")
        assert reply["type"] == "ack" and reply["version"] == version + 1
        state = player.wait_for(lambda s: s["version"] == version + 1)
    assert state["to_move"] == human
    assert state["position"] == before_last_human_move["position"]
    assert state["moves"] == before_last_human_move["moves"]
    assert snapshot(client, game["id"]) == (version + 1, before_last_human_move["position"])


def test_undo_after_a_purchase_and_its_special_patch_takes_back_both(client: TestClient) -> None:
    """The whole turn goes: the special patch is not left to place again (Game.undo_turn decides it)."""
    game = create(client, mode="ai", level="beginner", seat=0, seed=0)
    human = 0
    with connect(client, game["id"], game["token"]) as player:
        while True:
            state = player.wait_for(lambda s: s["to_move"] == human, "the human's turn")
            position = Position.from_text(state["position"])
            if position.pending:
                break
            before_earning = state
            player.play_first_legal()
        player.play_first_legal()  # the special patch
        player.wait_for(lambda s: s["to_move"] == human and not Position.from_text(s["position"]).pending, "the AI's reply")
        version = player.state["version"]
        assert player.intent("undo")["type"] == "ack"
        state = player.wait_for(lambda s: s["version"] == version + 1)
    assert state["position"] == before_earning["position"] and not Position.from_text(state["position"]).pending
    assert state["moves"] == before_earning["moves"]


def test_undo_against_the_ai_before_any_human_move_is_not_allowed(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=1, seed=0)  # the AI (seat 0) starts
    with connect(client, game["id"], game["token"]) as player:
        player.wait_for(lambda s: s["version"] >= 1 and s["to_move"] == 1, "the AI's opening")
        before = snapshot(client, game["id"])
        assert player.intent("undo")["code"] == "not_allowed"
    assert snapshot(client, game["id"]) == before


def test_human_cannot_move_on_the_ais_turn(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=1, seed=0)
    # Nobody connected yet, so the AI has not moved: it is the AI's turn.
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        player = Player(ws)
        assert player.first["state"]["to_move"] == 0
        player.ws.send_text(json.dumps({"type": "hello", "token": game["token"]}))
        # The AI starts as the socket connects, so its move may land before ours: either way ours is refused.
        reply = player.reply()
        assert reply["seat"] == 1
        answer = player.move("A", version=0)
        assert answer["type"] == "error" and answer["code"] in ("not_your_turn", "stale")


# Online games --------------------------------------------------------------------
def test_online_creator_cannot_move_while_waiting_for_the_friend(client: TestClient, online_game: dict[str, Any]) -> None:
    with connect(client, online_game["id"], online_game["token"]) as player:
        assert player.state["status"] == "waiting"
        reply = player.move(first_legal_move(player.state))
        assert reply["code"] == "not_allowed"
    assert snapshot(client, online_game["id"])[0] == 0


def test_online_join_gives_the_other_seat_and_starts_the_game(client: TestClient, online_game: dict[str, Any]) -> None:
    with connect(client, online_game["id"], online_game["token"]) as creator:
        response = join(client, online_game)
        assert response.status_code == 200
        joined = response.json()
        assert joined["seat"] == 1 and joined["token"] != online_game["token"]
        # Everyone watching learns that the game has started.
        creator.wait_for(lambda s: s["status"] == "playing", "the game to start")
    with connect(client, online_game["id"]) as friend:
        assert friend.hello(joined["token"])["seat"] == 1


def test_a_seat_taken_through_another_process_is_greeted_even_before_its_news_comes(
    client: TestClient, online_game: dict[str, Any]
) -> None:
    # The socket opens on the game while its second seat is free; the seat is then taken through another process
    # (the store written behind this one's back, no news sent): the greeting with the new token still seats it.
    with connect(client, online_game["id"]) as friend:
        token, seat = client.app.state.server.maker.take_free_seat(online_game["id"], online_game["invite"], None)  # type: ignore[attr-defined]
        assert friend.hello(token)["seat"] == seat == 1


def test_online_invitation_cannot_be_used_twice(client: TestClient, online_game: dict[str, Any]) -> None:
    assert join(client, online_game).status_code == 200
    second = join(client, online_game)
    assert second.status_code == 403 and "invitation" in second.json()["detail"]


def test_online_wrong_invitation_is_refused_and_does_not_spend_the_real_one(
    client: TestClient, online_game: dict[str, Any]
) -> None:
    assert join(client, online_game, "not-the-code").status_code == 403
    assert get_state(client, online_game["id"])["status"] == "waiting"
    assert join(client, online_game).status_code == 200


def test_joining_an_unknown_game_is_404(client: TestClient) -> None:
    assert client.post("/api/games/nope/join", json={"invite": "x"}).status_code == 404


def test_joining_a_local_game_is_refused(client: TestClient, local_game: dict[str, Any]) -> None:
    assert join(client, local_game, "anything").status_code == 403


def test_online_each_seat_moves_only_on_its_own_turn(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    with connect(client, game["id"], game["tokens"][0]) as zero, connect(client, game["id"], game["tokens"][1]) as one:
        players = {0: zero, 1: one}
        for _ in range(4):
            mover = zero.state["to_move"]
            waiter = players[1 - mover]
            waiter.wait_for(lambda s: s["version"] == zero.state["version"])
            before = snapshot(client, game["id"])
            refused = waiter.move(first_legal_move(waiter.state))
            assert refused["code"] == "not_your_turn" and "turn" in refused["message"]
            assert snapshot(client, game["id"]) == before
            players[mover].wait_for(lambda s: s["version"] == before[0])
            players[mover].play_first_legal()
            zero.wait_for(lambda s: s["version"] == before[0] + 1)


def test_online_hint_and_undo_are_not_allowed(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    state = get_state(client, game["id"])
    mover = state["to_move"]
    with connect(client, game["id"], game["tokens"][mover]) as player:
        player.play_first_legal()
        before = snapshot(client, game["id"])
        assert player.intent("undo")["code"] == "not_allowed"
        assert player.intent("hint")["code"] == "not_allowed"
    assert snapshot(client, game["id"]) == before


@pytest.mark.parametrize("hello", [None, {"type": "hello"}, {"type": "hello", "token": None}, {"type": "hello", "token": ""}])
def test_spectator_gets_the_state_but_cannot_move(
    client: TestClient, started_online_game: dict[str, Any], hello: dict[str, Any] | None
) -> None:
    game = started_online_game
    before = snapshot(client, game["id"])
    with connect(client, game["id"]) as spectator:
        assert spectator.state["id"] == game["id"] and spectator.state["version"] == before[0]
        if hello is not None:
            assert spectator.send(hello) == {"type": "welcome", "seat": None, "id": None}
        reply = spectator.move(first_legal_move(spectator.state))
        assert reply["code"] == "forbidden"
    assert snapshot(client, game["id"]) == before


def test_spectator_receives_the_state_after_a_players_move(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    mover = get_state(client, game["id"])["to_move"]
    with connect(client, game["id"]) as spectator, connect(client, game["id"], game["tokens"][mover]) as player:
        move = first_legal_move(player.state)
        player.move(move)
        # (The player's arrival re-sent the state at version 0 first: presence changed.)
        seen = spectator.wait_for(lambda s: s["version"] == 1, "the move")
    assert seen["moves"][0]["move"] == move


def test_player_who_reconnects_gets_the_same_seat(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    for seat in (0, 1):
        for _ in range(2):
            with connect(client, game["id"]) as player:
                assert player.hello(game["tokens"][seat])["seat"] == seat


# Rematch -------------------------------------------------------------------------


def test_rematch_against_the_ai_swaps_the_seats_and_keeps_the_token(client: TestClient) -> None:
    finished = play_against_the_beginner(client)
    game_id, token = finished["id"], finished["token"]
    analysis = f"/api/games/{game_id}/analysis"
    poll(lambda: client.get(analysis).status_code == 200, timeout=120, what="the analysis")
    with connect(client, game_id, token) as player, connect(client, game_id) as spectator:
        assert player.state["rematch"] is None
        assert spectator.intent("rematch")["code"] == "forbidden"
        reply = player.intent("rematch", id="r1")
        assert reply == {"type": "ack", "id": "r1", "version": finished["state"]["version"] + 1}
        rematch = player.state["rematch"]
        assert rematch and spectator.wait_for(lambda s: s["rematch"] == rematch)["result"] == finished["state"]["result"]
        assert player.intent("rematch")["code"] == "not_allowed"  # one rematch per game
        assert player.intent("undo")["code"] == "not_allowed"  # and the old game is closed
    old = get_state(client, game_id)
    assert old["moves"] == finished["state"]["moves"] and old["rematch"] == rematch
    assert client.get(analysis).json()["status"] == "done"  # the rematch changed no position: nothing to redo
    new = get_state(client, rematch)
    assert new["mode"] == "ai" and new["ai"]["level"] == "beginner" and new["ai"]["seat"] == 0
    assert new["names"] == list(reversed(finished["state"]["names"])) and new["variant"] == old["variant"]
    with connect(client, rematch, token) as player:
        assert player.first["type"] == "state"
        assert player.wait_for(lambda s: s["to_move"] == 1, "the AI's first move")["moves"][0]["player"] == 0
        player.play_first_legal()


def test_rematch_of_an_online_game_seats_both_friends_without_a_new_invitation(
    client: TestClient, started_online_game: dict[str, Any]
) -> None:
    game = started_online_game
    with connect(client, game["id"], game["tokens"][0]) as zero, connect(client, game["id"], game["tokens"][1]) as one:
        players = {0: zero, 1: one}
        assert zero.intent("rematch")["code"] == "not_allowed"  # not before the end
        for _ in range(400):
            state = zero.wait_for(lambda s: s["version"] >= one.state.get("version", 0))
            if state["result"] is not None:
                break
            mover = players[state["to_move"]]
            mover.wait_for(lambda s, v=state["version"]: s["version"] == v)
            mover.play_first_legal()
        else:
            raise AssertionError("the game did not end")
        one.wait_for(lambda s: s["result"] is not None)
        assert one.intent("rematch")["type"] == "ack"
        rematch = zero.wait_for(lambda s: s["rematch"] is not None)["rematch"]
    new = get_state(client, rematch)
    assert new["status"] == "playing" and new["mode"] == "online" and new["to_move"] == 0
    assert new["names"] == list(reversed(get_state(client, game["id"])["names"]))
    with connect(client, rematch, game["tokens"][0]) as zero, connect(client, rematch, game["tokens"][1]) as one:
        assert zero.hello(game["tokens"][0])["seat"] == 1 and one.hello(game["tokens"][1])["seat"] == 0
        assert zero.move(first_legal_move(zero.state))["code"] == "not_your_turn"
        one.play_first_legal()  # the friend who moved second now moves first


def test_rematch_of_pass_and_play_keeps_the_one_token_and_trades_names(client: TestClient) -> None:
    game = create(client, mode="local", seed=8, names=["Ada", "Grace"])
    with connect(client, game["id"], game["token"]) as player:
        while player.state["result"] is None:
            player.play_first_legal()
        assert player.intent("rematch")["type"] == "ack"
        rematch = player.state["rematch"]
    assert get_state(client, rematch)["names"] == ["Grace", "Ada"]
    with connect(client, rematch, game["token"]) as player:
        assert player.hello(game["token"])["seat"] == "both"


def test_each_seat_sees_whether_the_other_is_here(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game, tokens = started_online_game["id"], started_online_game["tokens"]
    with connect(client, game, tokens[0]) as host:
        host.wait_for(lambda s: s["presence"] == [True, False], "the host alone")
        with connect(client, game, tokens[1]):
            host.wait_for(lambda s: s["presence"] == [True, True], "the guest to arrive")
        host.wait_for(lambda s: s["presence"] == [True, False], "the guest to leave")
        with connect(client, game) as watcher:  # a spectator is no seat
            assert watcher.state["presence"] == [True, False]


# Ending a game early -----------------------------------------------------------------


def test_an_online_game_can_be_aborted_until_both_sides_have_moved(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game, tokens = started_online_game["id"], started_online_game["tokens"]
    with connect(client, game, tokens[0]) as host, connect(client, game, tokens[1]) as guest:
        assert host.state["can_abort"] and host.state["can_resign"]
        assert host.play_first_legal()["type"] == "ack"  # one side has moved: still abortable
        guest.wait_for(lambda s: s["version"] == 1, "the host's move")
        assert guest.state["can_abort"]
        assert guest.intent("abort")["type"] == "ack"
        over = guest.state
        assert over["status"] == "aborted" and over["result"] is None and not over["can_abort"] and not over["can_resign"]
        assert host.intent("move", move="A", version=over["version"])["code"] == "game_over"
        assert host.intent("rematch", version=over["version"])["code"] == "not_allowed"
        assert guest.intent("resign", version=over["version"])["code"] == "game_over"
    assert client.get(f"/api/games?ids={game}").json()["games"][0]["status"] == "aborted"


def test_resigning_gives_the_other_seat_the_win_and_survives_a_reload(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game, tokens = started_online_game["id"], started_online_game["tokens"]
    with connect(client, game, tokens[0]) as host, connect(client, game, tokens[1]) as guest:
        while len({m["player"] for m in host.state["moves"]}) < 2:
            mover = host if host.state["to_move"] == 0 else guest
            mover.wait_for(lambda s: s["version"] == host.state["version"])
            assert mover.play_first_legal()["type"] == "ack"
            host.wait_for(lambda s, v=mover.state["version"]: s["version"] >= v)
        assert host.intent("abort")["code"] == "not_allowed", "both sides have moved"
        assert guest.intent("resign", version=host.state["version"])["type"] == "ack"
        result = guest.state["result"]
        assert result["winner"] == 0 and result["by"] == "resignation" and guest.state["status"] == "over"
        host.wait_for(lambda s: s["result"] is not None, "the resignation")
        assert host.intent("undo")["code"] == "not_allowed"
    client.app.state.server.games.cache.clear()  # type: ignore[attr-defined]  # as after a restart: replayed from the log
    reloaded = get_state(client, game)
    assert reloaded["result"] == result and reloaded["status"] == "over"
    saved = record.from_json(client.get(f"/api/games/{game}/record.json").text)  # the record says how it ended (issue 25)
    assert saved.ending == Ending("resignation", 1) and saved.moves == [Move.from_text(m["move"]) for m in reloaded["moves"]]


def test_resigning_against_the_ai_stops_it_and_pass_and_play_has_no_resignation(client: TestClient, local_game: dict[str, Any]) -> None:
    game = create(client, mode="ai", level="beginner", seat=0, seed=4)
    with connect(client, game["id"], game["token"]) as player:
        assert player.intent("resign")["type"] == "ack"
        assert player.state["result"]["winner"] == 1 and player.state["ai"]["thinking"] is False
    with connect(client, local_game["id"], local_game["token"]) as both:
        assert both.intent("resign")["code"] == "not_allowed"


# Chat ------------------------------------------------------------------------------


def chat_lines(player: Player, count: int) -> list[dict[str, Any]]:
    """Read until ``count`` chat lines have come (states and replies are skipped)."""
    lines: list[dict[str, Any]] = []
    while len(lines) < count:
        message = player.receive()
        if message["type"] == "chat":
            lines.extend(message["lines"])
    return lines


def test_chat_goes_between_the_players_only_and_is_kept_with_the_game(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game, tokens = started_online_game["id"], started_online_game["tokens"]
    with connect(client, game, tokens[0]) as host, connect(client, game, tokens[1]) as guest, connect(client, game) as watcher:
        assert host.send({"type": "chat", "text": "  good   luck\n<b>Gus</b> "})["type"] == "sent"
        line = chat_lines(guest, 1)[0]
        assert line["seat"] == 0 and line["text"] == "good luck <b>Gus</b>"  # one line; the page shows it as text
        assert chat_lines(host, 1)[0]["id"] == line["id"]
        assert watcher.send({"type": "chat", "text": "hi"})["code"] == "forbidden"
        assert not [m for m in watcher.received if m["type"] == "chat"], "spectators are sent no chat"
        version = get_state(client, game)["version"]
        assert host.play_first_legal()["version"] == version + 1, "a chat line is no event: it never makes a move stale"
    with connect(client, game, tokens[1]) as back:  # the chat so far comes after the welcome
        assert [l["text"] for l in chat_lines(back, 1)] == ["good luck <b>Gus</b>"]


@pytest.mark.parametrize("text", ["", "   ", "x" * 301, "bell\x07", 5, None])
def test_a_bad_chat_line_is_refused_and_stores_nothing(client: TestClient, started_online_game: dict[str, Any], text: Any) -> None:
    game, tokens = started_online_game["id"], started_online_game["tokens"]
    with connect(client, game, tokens[0]) as host:
        assert host.send({"type": "chat", "text": text})["code"] == "malformed"
    assert client.app.state.server.chat.lines.since(game) == []  # type: ignore[attr-defined]


def test_chat_is_for_online_games(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"], local_game["token"]) as both:
        assert both.send({"type": "chat", "text": "hello"})["code"] == "forbidden"
