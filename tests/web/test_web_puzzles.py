"""Puzzles on the server (docs/web.md, "Puzzles"): a game of one move from the shipped set, judged once, rated for accounts."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import TEST_QUOTAS, act_as, connect, create, get_state, make_app, new_account, play_against_the_beginner

from quiltmaker.core.position import Position
from quiltmaker.puzzles import Puzzle, generate, generated_game, load
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.round.finished import finished_games
from quiltmaker.web.round.game import Event, StoredGame
from quiltmaker.web.round.log import CorruptLog, replay

PUZZLES = {p.id: p for p in load()}


def a_puzzle(kind: str | None = None) -> Puzzle:
    return next(p for p in PUZZLES.values() if kind is None or p.kind == kind)


def losing_move(puzzle: Puzzle) -> str:
    solutions = {s.move for s in puzzle.solutions}
    return next(m.text() for m in Position.from_text(puzzle.position).legal_moves() if m.text() not in solutions)


def start(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/puzzles", json=body)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def test_a_puzzle_is_a_game_from_its_position_with_the_player_to_move_and_nothing_else_to_do(client: TestClient) -> None:
    act_as(client, None)
    puzzle = a_puzzle("bonus")
    created = start(client, puzzle=puzzle.id, name="Ada")
    state = get_state(client, created["id"])
    assert created["seat"] == puzzle.to_move == state["to_move"]
    assert state["mode"] == "puzzle" and state["position"] == puzzle.position and state["status"] == "playing"
    assert state["names"][puzzle.to_move] == "Ada"
    assert state["puzzle"] == {"id": puzzle.id, "kind": "bonus", "task": "Find the move that wins: it takes the 7x7 bonus.",
                               "rating": puzzle.rating, "seat": puzzle.to_move, "answer": None}  # fmt: skip
    assert (state["hints"], state["undo"], state["can_resign"], state["can_abort"], state["ai"]) == (False, False, False, False, None)


def test_the_solution_solves_it_once_and_the_game_takes_no_second_move(client: TestClient) -> None:
    act_as(client, None)
    puzzle = a_puzzle("win")
    created = start(client, puzzle=puzzle.id)
    with connect(client, created["id"], created["token"]) as player:
        assert player.move(puzzle.solutions[-1].move)["type"] == "ack"  # any winning move is a solution
        answer = player.state["puzzle"]["answer"]
        assert answer["solved"] is True and answer["played"] == puzzle.solutions[-1].move
        assert answer["solutions"] == [s.move for s in puzzle.solutions] and answer["best"] == puzzle.solutions[0].move
        assert answer["best_outcome"].startswith("wins") and answer["player_rating"] is None  # a guest's answer rates nothing
        assert player.state["status"] == "over" and player.state["result"] is None
        again = player.move("A")
        assert again["type"] == "error" and again["code"] == "game_over" and "the puzzle is answered" in again["message"]


def test_a_losing_move_misses_it_and_says_what_won(client: TestClient) -> None:
    act_as(client, None)
    puzzle = a_puzzle("only-move")
    created = start(client, puzzle=puzzle.id)
    wrong = losing_move(puzzle)
    with connect(client, created["id"], created["token"]) as player:
        assert player.move(wrong)["type"] == "ack"
    answer = get_state(client, created["id"])["puzzle"]["answer"]
    assert answer["solved"] is False and answer["played"] == wrong and answer["played_outcome"] == "loses"
    assert answer["solutions"] == [puzzle.solutions[0].move] and answer["best_cells"]
    patch, square = puzzle.solutions[0].move.split("R")[0].split("F")[0], puzzle.solutions[0].move.split("@")[1]
    assert answer["best_words"].startswith(f"patch {patch}, ") and answer["best_words"].endswith(f", at {square}")
    assert answer["played_words"] == "advancing" if wrong == "A" else answer["played_words"].endswith(f"at {wrong.split('@')[1]}")


def test_an_account_is_rated_against_the_puzzle_and_is_offered_one_it_has_not_tried(client: TestClient) -> None:
    new_account(client, "Puzzler")
    assert client.get("/api/puzzles").json()["player"] is None
    first = start(client)
    puzzle = PUZZLES[get_state(client, first["id"])["puzzle"]["id"]]
    with connect(client, first["id"], first["token"]) as player:
        assert player.move(puzzle.solutions[0].move)["type"] == "ack"
        answer = player.state["puzzle"]["answer"]
    assert answer["player_rating"]["before"] == 1500 and answer["player_rating"]["after"] > 1500
    assert answer["puzzle_rating"]["after"] < answer["puzzle_rating"]["before"] == puzzle.rating
    listed = client.get("/api/puzzles").json()
    assert listed["count"] == len(PUZZLES) >= 300 and sum(listed["kinds"].values()) == listed["count"]
    assert listed["player"] == {"rating": answer["player_rating"]["after"], "provisional": True, "attempts": 1, "solved": 1}
    seen = {puzzle.id}
    for _ in range(5):
        seen.add(get_state(client, start(client)["id"])["puzzle"]["id"])
    second = start(client)
    assert get_state(client, second["id"])["puzzle"]["id"] != puzzle.id or len(seen) > 1
    # The next puzzle for this account is never the one it answered.
    for _ in range(8):
        assert get_state(client, start(client)["id"])["puzzle"]["id"] != puzzle.id


def test_the_log_of_an_answered_puzzle_replays_by_the_same_rules(client: TestClient) -> None:
    """What the live server refused (a second move) the replay of the log refuses too: one gate for both."""
    act_as(client, None)
    puzzle = next(p for p in PUZZLES.values() if not Position.from_text(p.position).play(p.solutions[0].move).is_over)
    created = start(client, puzzle=puzzle.id)
    with connect(client, created["id"], created["token"]) as player:
        player.move(puzzle.solutions[0].move)
    stored: StoredGame = client.app.state.server.store.load(created["id"])  # type: ignore[attr-defined]
    assert stored.is_finished and len(stored.game.moves) == 1
    after = Position.from_text(puzzle.position).play(puzzle.solutions[0].move)
    second = Event(stored.version, "move", after.legal_moves()[0].text(), after.to_move, None, datetime.now(timezone.utc))
    with pytest.raises(CorruptLog, match="the puzzle is answered"):
        replay(stored, [second])


def test_an_unknown_puzzle_is_a_clear_404_and_changes_nothing(client: TestClient) -> None:
    act_as(client, None)
    response = client.post("/api/puzzles", json={"puzzle": "ffffffffffff"})
    assert response.status_code == 404 and "no puzzle" in response.json()["detail"]
    assert client.post("/api/puzzles", json={"puzzle": "x" * 40}).status_code == 422


def test_a_servers_finished_games_are_read_back_for_puzzles_and_taken_before_generated_ones(tmp_path: Path) -> None:
    """``quiltmaker puzzles generate --data``: the games played to their end, not lessons, puzzles or games under way."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with TestClient(make_app(tmp_path / "db.sqlite3")) as client:
        finished = play_against_the_beginner(client)
        create(client, mode="local")  # under way
        create(client, mode="lesson", lesson=1)
        client.post("/api/puzzles", json={})
    games = list(finished_games(url))
    assert [source for _, source in games] == [{"game": finished["id"]}]
    assert [m["move"] for m in finished["state"]["moves"]] == [m.text() for m in games[0][0].moves]
    # Given games come before generated ones: the first shipped puzzle's game, as if a server had played it.
    game, _ = generated_game(0, 0)
    first = generate(1, seed=12345, games=iter([(game, {"game": "from-a-server"})]))
    assert first[0].source["game"] == "from-a-server" and first[0].id == load()[0].id


def test_only_an_account_s_first_answer_to_a_puzzle_is_rated(client: TestClient) -> None:
    """One miss then five re-solves of one puzzle took an account from 1500 to 1715 and the puzzle from 1501 to 1345; a
    second account missing a puzzle 11 times pushed it from 1477 to 1566."""
    new_account(client, "Farmer")
    puzzle = a_puzzle("win")
    first = start(client, puzzle=puzzle.id)
    with connect(client, first["id"], first["token"]) as player:
        assert player.move(losing_move(puzzle))["type"] == "ack"
        missed = player.state["puzzle"]["answer"]
    assert missed["solved"] is False and missed["player_rating"]["after"] < 1500
    after_the_miss = client.get("/api/puzzles").json()["player"]
    for _ in range(5):
        again = start(client, puzzle=puzzle.id)
        with connect(client, again["id"], again["token"]) as player:
            assert player.move(puzzle.solutions[0].move)["type"] == "ack"
            answer = player.state["puzzle"]["answer"]
        assert answer["solved"] is True and answer["player_rating"] is None and answer["puzzle_rating"] is None
    assert client.get("/api/puzzles").json()["player"] == after_the_miss, "re-solving a puzzle moves no rating"


def test_one_account_takes_puzzles_at_a_bounded_pace(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", **{**TEST_QUOTAS, "puzzle_limit": "3/minute"})
    with TestClient(create_app(settings)) as limited:
        new_account(limited, "Script")
        codes = [limited.post("/api/puzzles", json={}).status_code for _ in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        limited.cookies.clear()
        assert limited.post("/api/puzzles", json={}).status_code == 200, "a guest (rated nothing) is bounded by the games' quota"
