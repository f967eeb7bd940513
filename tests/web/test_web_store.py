"""The event store under the server: a second server, duplicate appends, corrupt logs, lost rematches."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web_client import (
    Player,
    connect,
    create,
    get_state,
    make_app,
    snapshot,
)

from web_helpers import new_game, appended_together, migrated_store

from quiltmaker.core.position import Position
from quiltmaker.web.round import rules
from quiltmaker.web.db.schema import EventRow
from quiltmaker.web.setup import GameMaker
from quiltmaker.web.round.store import StoreError


# Persistence and the store ---------------------------------------------------------


def test_second_server_on_the_same_database_sees_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with TestClient(make_app(path)) as first:
        game = create(first, mode="local", seed=7)
        with connect(first, game["id"], game["token"]) as player:
            player.play_first_legal()
            player.play_first_legal()
        seen_by_first = snapshot(first, game["id"])
        with TestClient(make_app(path)) as second:
            assert snapshot(second, game["id"]) == seen_by_first
            # And a move through the second server is seen by the first, with the same token.
            with connect(second, game["id"], game["token"]) as player:
                player.play_first_legal()
            assert snapshot(first, game["id"]) == snapshot(second, game["id"])
            assert snapshot(first, game["id"])[0] == 3
    with TestClient(make_app(path)) as reopened:
        assert snapshot(reopened, game["id"])[0] == 3


def test_store_refuses_a_second_append_of_the_same_event_number(tmp_path: Path) -> None:
    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        game_id = new_game(store, "local", Position.initial(0, first_player=0), ["a", "b"]).id
        assert store.append(game_id, 0, "move", "A", 0, "one") == 1
        with pytest.raises(StoreError) as error:
            store.append(game_id, 0, "move", "A", 0, "two")
        assert error.value.code == "stale"
        loaded = store.load(game_id)
        assert loaded.version == 1 and loaded.client_ids == {"one"}
    finally:
        store.close()


def test_moves_sent_at_once_share_one_commit_in_order_and_a_stale_one_fails_alone(tmp_path: Path) -> None:
    from sqlalchemy import event

    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        first = new_game(store, "local", Position.initial(0, first_player=0), ["a", "b"]).id
        second = new_game(store, "local", Position.initial(1, first_player=0), ["a", "b"]).id
        inserts = []

        def counted(_connection: object, _cursor: object, statement: str, *_: object) -> None:
            inserts.extend([statement] if statement.startswith("INSERT INTO events") else [])

        event.listen(store.database.engine, "before_cursor_execute", counted)
        results, commits = appended_together(store, [(first, 0, "A", 0), (first, 1, "A", 1), (second, 0, "A", 0)])
        event.remove(store.database.engine, "before_cursor_execute", counted)
        assert results == [1, 2, 1] and commits == 1 and len(inserts) == 1  # three moves: one transaction, one insert
        results, commits = appended_together(store, [(first, 2, "A", 0), (first, 2, "A", 0), (second, 1, "A", 1)])
        assert results[0] == 3 and results[2] == 2 and commits == 2  # the shared commit failed: each alone, the good two kept
        assert isinstance(results[1], StoreError) and results[1].code == "stale"
        assert store.load(first).version == 3 and store.load(second).version == 2
    finally:
        store.close()


def test_a_shared_commit_that_fails_itself_tells_every_write_and_tries_none_again(tmp_path: Path) -> None:
    from sqlalchemy import event

    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    game = new_game(store, "local", Position.initial(0, first_player=0), ["a", "b"]).id
    tries = []

    def disk_full(_connection: object) -> None:
        tries.append(1)
        raise OSError("disk full")

    event.listen(store.database.engine, "commit", disk_full)
    try:
        results, _ = appended_together(store, [(game, 0, "A", 0), (game, 1, "A", 1)])
        # Its end unknown, the commit may have stored them: neither is tried again, both are told.
        assert [str(result) for result in results] == ["disk full", "disk full"] and len(tries) == 1
        event.remove(store.database.engine, "commit", disk_full)
        assert store.load(game).version == 0
    finally:
        store.close()


def test_a_move_found_stale_in_a_shared_commit_is_told_in_its_players_language(tmp_path: Path) -> None:
    import asyncio

    from quiltmaker import i18n

    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    game = new_game(store, "local", Position.initial(0, first_player=0), ["a", "b"]).id

    async def as_pl() -> None:
        with i18n.using("pl"):
            await store.database.commits.write(game, lambda rows: store.append(game, 0, "move", "A", 0, None, rows=rows))

    try:
        store.append(game, 0, "move", "A", 0, None)
        with pytest.raises(StoreError) as raised:
            asyncio.run(as_pl())
        assert raised.value.code == "stale"
        with i18n.using("pl"):
            assert str(raised.value) == i18n._("the game has moved on since you saw it (version {seen}): here is the new state").format(seen=0)
        assert "moved on" not in str(raised.value)
    finally:
        store.close()


def test_the_moves_commit_goes_before_the_other_writers_waiting(tmp_path: Path) -> None:
    import threading
    import time

    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    order: list[str] = []

    def write(name: str, urgent: bool) -> None:
        with store.database.writing_rows(urgent=urgent):
            order.append(name)

    try:
        with store.database.writing_rows():  # held: a seek's transaction, say
            others = [threading.Thread(target=write, args=(f"seek {n}", False)) for n in range(3)]
            for thread in others:
                thread.start()
            moves = threading.Thread(target=write, args=("moves", True))
            moves.start()
            deadline = time.monotonic() + 10
            while store.database._one_writer._urgent == 0 and time.monotonic() < deadline:  # (the moves' commit is waiting)
                time.sleep(0.01)
        for thread in [*others, moves]:
            thread.join()
        assert order[0] == "moves" and sorted(order[1:]) == ["seek 0", "seek 1", "seek 2"]
    finally:
        store.close()


@pytest.fixture
def corrupt_game(client: TestClient) -> str:
    """A game whose log holds an illegal move, written past the server straight into the database."""
    game = create(client, mode="local", seed=11)
    state = get_state(client, game["id"])
    not_offered = next(p for p in state["circle"] if p not in state["offered"])
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with Session(store.engine) as session, session.begin():
        session.add(
            EventRow(
                game_id=game["id"],
                number=0,
                kind="move",
                value=f"{not_offered}R0@a1",
                seat=0,
                client_id=None,
                created=datetime.now(timezone.utc),
            )
        )
    return str(game["id"])


def test_store_load_of_a_corrupt_log_raises_corrupt(client: TestClient, corrupt_game: str) -> None:
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with pytest.raises(StoreError) as error:
        store.load(corrupt_game)
    assert error.value.code == "corrupt"


def test_corrupt_game_is_a_500_with_a_message_and_the_server_lives_on(client: TestClient, corrupt_game: str) -> None:
    response = client.get(f"/api/games/{corrupt_game}")
    assert response.status_code == 500
    assert "corrupt" in response.json()["detail"] and response.json()["code"] == "corrupt"
    assert client.get(f"/api/games/{corrupt_game}/record.json").status_code == 500
    listed = client.get("/api/games", params={"ids": corrupt_game}).json()["games"]
    assert [(g["id"], g["status"]) for g in listed] == [(corrupt_game, "corrupt")]
    with client.websocket_connect(f"/ws/games/{corrupt_game}") as ws:
        player = Player(ws)
        assert player.first["type"] == "error" and player.first["code"] == "corrupt"
        assert player.receive()["type"] == "closed"
    # Other games are served as before.
    assert client.get("/api/catalogue").status_code == 200
    other = create(client, mode="local", seed=12)
    assert get_state(client, other["id"])["version"] == 0


def test_a_log_with_a_rematch_before_the_end_is_corrupt(tmp_path: Path) -> None:
    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    game_id = new_game(store, "local", Position.initial(1, first_player=0), ["A", "B"]).id
    store.append(game_id, 0, "rematch", "elsewhere", 0, None)
    with pytest.raises(StoreError) as error:
        store.load(game_id)
    assert error.value.code == "corrupt" and "rematch" in str(error.value)


@pytest.mark.parametrize(
    ("events", "why"),
    [
        ([("resign", "0", 0), ("move", "A", 1)], "the game is over"),
        ([("move", "A", 0), ("move", "A", 1), ("abort", "0", 0)], "both sides have moved"),
        ([("resign", "0", 0), ("resign", "1", 1)], "the game is over"),
        ([("resign", "2", 0)], "a resign by seat '2'"),
        ([("move", "A", 1)], "it is not your turn"),
        ([("undo", "1", 0)], "no undo in an online game"),
    ],
)
def test_a_log_that_ends_a_game_wrongly_is_corrupt(tmp_path: Path, events: list[tuple[str, str, int]], why: str) -> None:
    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    made = new_game(store, "online", Position.initial(1, first_player=0), ["A", "B"])
    game_id = made.id
    assert made.invite is not None
    GameMaker(store.database).take_free_seat(game_id, made.invite, None)
    for number, (kind, value, seat) in enumerate(events):
        store.append(game_id, number, kind, value, seat, None)
    with pytest.raises(StoreError) as error:
        store.load(game_id)
    assert error.value.code == "corrupt" and why in str(error.value)


def test_only_a_game_without_events_is_deleted_as_a_lost_rematch(tmp_path: Path) -> None:
    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    played = new_game(store, "local", Position.initial(1, first_player=0), ["A", "B"]).id
    store.append(played, 0, "move", "A", 0, None)
    stored = store.load(played)
    fresh = GameMaker(store.database).rematch(stored, rules.rematch_of(stored), Position.initial(2, first_player=0))
    assert store.load(fresh).names == ["B", "A"]
    assert not store.delete_unplayed(played) and store.exists(played)
    assert store.delete_unplayed(fresh) and not store.exists(fresh)
