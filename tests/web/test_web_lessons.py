"""Lesson games on the server: created at their moment of the script, checked step by step, never undone past it."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from web_client import connect, create, get_state

from quiltmaker.core.game import Game
from quiltmaker.tutorial import LESSONS, refusal, setup


def core_game(state: dict[str, Any]) -> Game:
    game = Game(setup())
    for entry in state["moves"]:
        game.play(entry["move"])
    return game


def lesson_moves(state: dict[str, Any]) -> tuple[str | None, str]:
    """A legal move the lesson refuses (``None`` when it takes any) and one it accepts, as the core finds them."""
    lesson = LESSONS[state["lesson"]["number"] - 1]
    game = core_game(state)
    moves = game.position.legal_moves()
    refused = next((m.text() for m in moves if refusal(lesson, game, m) is not None), None)
    accepted = next(m for m in moves if refusal(lesson, game, m) is None)
    return refused, accepted.text()


def test_the_catalogue_lists_the_lessons(client: TestClient) -> None:
    lessons = client.get("/api/catalogue").json()["lessons"]
    assert [(entry["number"], entry["title"]) for entry in lessons] == [(lesson.number, lesson.title) for lesson in LESSONS]


def test_a_lesson_game_starts_after_its_script_with_the_lessons_words(client: TestClient) -> None:
    lesson = LESSONS[2]
    game = create(client, mode="lesson", lesson=lesson.number, names=["Ada"])
    state = get_state(client, game["id"])
    assert state["mode"] == "lesson" and state["names"] == ["Ada", "Tutor"]
    assert state["position"] == lesson.start.text()
    assert [entry["move"] for entry in state["moves"]] == list(lesson.script), "the game so far is its history"
    view = state["lesson"]
    assert view["number"] == lesson.number and view["count"] == len(LESSONS) and view["title"] == lesson.title
    assert str(lesson.start.times[0]) in view["intro"][1], "the words name the position's numbers"
    assert not view["done"] and view["praise"] is None and [s["done"] for s in view["steps"]] == [False]
    assert state["hints"] is False and state["undo"] is False
    assert state["ai"]["seat"] == 1


def test_a_move_the_lesson_does_not_ask_for_is_refused_and_changes_nothing(client: TestClient) -> None:
    game = create(client, mode="lesson", lesson=4)  # advancing
    with connect(client, game["id"], game["token"]) as player:
        player.wait_for(lambda s: True)
        refused, accepted = lesson_moves(player.state)
        assert refused is not None
        before = player.state["version"]
        reply = player.move(refused)
        assert reply["type"] == "error" and reply["code"] == "lesson", reply
        assert "advancing" in reply["message"]
        assert get_state(client, game["id"])["version"] == before
        assert player.move(accepted)["type"] == "ack"
        done = player.wait_for(lambda s: s["version"] > before)
        assert done["lesson"]["done"] and done["lesson"]["praise"]
        assert done["lesson"]["next"] == 5
        # Done: the tutor, whose turn it is now, does not start thinking; the lesson is over.
        assert done["to_move"] == 1 and done["ai"]["thinking"] is False and done["ai"]["plays"] is False
        assert player.move("A")["code"] == "not_your_turn"
    assert get_state(client, game["id"])["version"] == before + 1
    summary = client.get(f"/api/games?ids={game['id']}").json()["games"][0]
    assert summary["lesson"] == {"number": 4, "done": True}


def test_undo_in_a_lesson_takes_back_the_learners_move_but_never_the_script(client: TestClient) -> None:
    game = create(client, mode="lesson", lesson=2)  # two moves in a row
    with connect(client, game["id"], game["token"]) as player:
        start = player.wait_for(lambda s: True)
        assert player.intent("undo")["code"] == "not_allowed"
        _, accepted = lesson_moves(start)
        assert player.move(accepted)["type"] == "ack"
        moved = player.wait_for(lambda s: s["version"] > start["version"])
        assert moved["undo"] is True and moved["lesson"]["steps"][0]["done"]
        assert player.intent("undo")["type"] == "ack"
        back = player.wait_for(lambda s: s["version"] > moved["version"])
        assert back["position"] == start["position"] and not back["lesson"]["steps"][0]["done"]
        assert player.intent("undo")["code"] == "not_allowed"


def test_hints_are_not_for_lessons(client: TestClient) -> None:
    game = create(client, mode="lesson", lesson=1)
    with connect(client, game["id"], game["token"]) as player:
        player.wait_for(lambda s: True)
        assert player.intent("hint")["code"] == "not_allowed"


def test_a_lesson_needs_a_lesson_number_in_range(client: TestClient) -> None:
    assert client.post("/api/games", json={"mode": "lesson"}).status_code == 422
    assert client.post("/api/games", json={"mode": "lesson", "lesson": 0}).status_code == 422
    assert client.post("/api/games", json={"mode": "lesson", "lesson": len(LESSONS) + 1}).status_code == 422
    # Fields the mode would ignore are refused, not dropped.
    refused = client.post("/api/games", json={"mode": "lesson", "lesson": 1, "seat": 1, "level": "max"})
    assert refused.status_code == 422 and "level, seat" in refused.text
    assert client.post("/api/games", json={"mode": "ai", "lesson": 2}).status_code == 422


def test_the_last_lesson_plays_to_the_end_with_the_tutor(client: TestClient) -> None:
    game = create(client, mode="lesson", lesson=len(LESSONS))
    with connect(client, game["id"], game["token"]) as player:
        for _ in range(60):
            state = player.wait_for(lambda s: s["result"] is not None or (s["to_move"] == 0 and not s["ai"]["thinking"]), "the learner's turn")
            if state["result"] is not None:
                break
            _, accepted = lesson_moves(state)
            assert player.move(accepted)["type"] == "ack"
        assert state["lesson"]["done"] and state["result"] is not None
        assert any(entry["player"] == 1 for entry in state["moves"][LESSONS[-1].ply :]), "the tutor played its turns"
        assert player.intent("rematch")["code"] == "not_allowed"
