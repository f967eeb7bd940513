"""Make tests/data/schema-0/: a games database as the server kept it before migrations existed.

The migration test (tests/web/test_web_migrations.py) builds a database of
that schema on SQLite and on PostgreSQL, fills it with these rows, upgrades
it and checks that nothing was lost. So the fixture must come from the code
of that time, the last commit whose services created their tables with
``create_all`` (3ece939): this script imports that code's modules and runs
only against them. To make the fixture again:

    git worktree add /tmp/schema-0 3ece939
    cp tests/data/make_schema_0.py /tmp/schema-0/tests/data/
    cd /tmp/schema-0 && python tests/data/make_schema_0.py OUT

It plays through the real app (HTTP and WebSockets, the AI on a thread):
accounts; rated games (a finished one, with its rating changes, a running
correspondence one with chat); games against the AI finished and rematched,
with an undo; a pass-and-play game with an undo; an aborted game; a game lost on
time; a lesson; open and named challenges in the lobby. Then it writes the
schema's DDL for both dialects, every row, and what each game replays to.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # (pytest imports this module for its doctests: the code of that time only when run)
    sys.path[:0] = [str(Path(__file__).parents[1]), str(Path(__file__).parents[1] / "web")]
    from fastapi.testclient import TestClient
    from sqlalchemy import create_engine, select
    from sqlalchemy.dialects import postgresql, sqlite
    from sqlalchemy.schema import CreateIndex, CreateTable
    from web_client import act_as, connect, create, new_account, play_against_the_beginner
    from web_helpers import play_in_the_past, poll

    from quiltmaker.web.app import Settings, create_app
    from quiltmaker.web.store import Base

# The moment at which each clocked game's clocks are written down (long after the games were played).
CLOCKS_AT = datetime(2030, 1, 1, tzinfo=timezone.utc)


def ddl(dialect: Any) -> str:
    statements = []
    for table in Base.metadata.sorted_tables:
        statements.append(str(CreateTable(table).compile(dialect=dialect)).strip())
        statements += [str(CreateIndex(index).compile(dialect=dialect)).strip() for index in table.indexes]
    return ";\n\n".join(statements) + ";\n"


def jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    return value


def play(client: Any) -> dict[str, str]:
    """Play the games; return what each is, by id (the test names them by these words)."""
    games: dict[str, str] = {}
    ada = new_account(client, "Ada")
    bob = new_account(client, "Bob")
    cy = new_account(client, "Cyd")

    # A rated real-time game, both moved, Bob resigned: rated and settled.
    act_as(client, ada)
    rated = create(client, mode="online", seat=0, clock="10+5", rated=True)
    act_as(client, bob)
    bob_seat = client.post(f"/api/games/{rated['id']}/join", json={"invite": rated["invite"]}).json()
    with connect(client, rated["id"], rated["token"]) as first, connect(client, rated["id"], bob_seat["token"]) as second:
        assert first.move("A")["type"] == "ack"
        second.wait_for(lambda s: s["version"] == 1)
        assert second.move("A")["type"] == "ack"
        first.wait_for(lambda s: s["version"] == 2)
        first.play_first_legal()
        second.wait_for(lambda s: s["version"] == 3)
        assert second.intent("resign")["type"] == "ack"
        second.wait_for(lambda s: s["rating"]["settled"])
    games[rated["id"]] = "rated realtime, resigned"

    # A rated correspondence game under way, with chat.
    act_as(client, ada)
    mail = create(client, mode="online", seat=1, clock="2d", rated=True)
    act_as(client, bob)
    bob_mail = client.post(f"/api/games/{mail['id']}/join", json={"invite": mail["invite"]}).json()
    with connect(client, mail["id"], bob_mail["token"]) as bob_player, connect(client, mail["id"], mail["token"]) as ada_player:
        for _ in range(5):
            mover = bob_player if bob_player.state["to_move"] == 0 else ada_player
            mover.play_first_legal()
            (ada_player if mover is bob_player else bob_player).wait_for(lambda s, v=mover.state["version"]: s["version"] >= v)
        assert ada_player.send({"type": "chat", "text": "Good luck, Bob!"})["type"] == "sent"
        assert bob_player.send({"type": "chat", "text": "zażółć gęślą jaźń"})["type"] == "sent"
    games[mail["id"]] = "rated correspondence, playing"

    # A rated game against the AI, finished.
    act_as(client, cy)
    games[play_against_the_beginner(client, clock="30+20", rated=True)["id"]] = "rated against the AI, over"

    # A guest's game against the AI played to its end, then its rematch, moved in and undone.
    act_as(client, None)
    finished = play_against_the_beginner(client, names=["Dee"])
    with connect(client, finished["id"], finished["token"]) as player:
        assert player.intent("rematch")["type"] == "ack"
        rematch = player.state["rematch"]
    games[finished["id"]] = "against the AI, over, rematched"
    with connect(client, rematch, finished["token"]) as player:
        for _ in range(3):  # the guest has seat 1 now: the seats swap in a rematch
            player.wait_for(lambda s: s["to_move"] == 1 and not s["ai"]["thinking"], "the human's turn")
            player.play_first_legal()
        player.wait_for(lambda s: s["to_move"] == 1 and not s["ai"]["thinking"], "the human's turn")
        assert player.intent("undo")["type"] == "ack"
    games[rematch] = "against the AI, the rematch, playing with an undo"

    # Pass-and-play, with an undo.
    local = create(client, mode="local", seed=5)
    with connect(client, local["id"], local["token"]) as player:
        for _ in range(6):
            player.play_first_legal()
        assert player.intent("undo")["type"] == "ack"
    games[local["id"]] = "pass-and-play, playing with an undo"

    # An online guest game, one move, aborted.
    aborted = create(client, mode="online", seat=0, seed=1)
    client.post(f"/api/games/{aborted['id']}/join", json={"invite": aborted["invite"]})
    with connect(client, aborted["id"], aborted["token"]) as player:
        player.play_first_legal()
        assert player.intent("abort")["type"] == "ack"
    games[aborted["id"]] = "online, aborted"

    # A real-time game lost on time (the server's clock watcher ended it).
    timed = create(client, mode="online", seat=0, seed=2, clock="0.25+0")
    client.post(f"/api/games/{timed['id']}/join", json={"invite": timed["invite"]})
    store = client.app.state.server.store  # type: ignore[attr-defined]
    play_in_the_past(store, timed["id"], [("A", 21), ("A", 20)])
    poll(lambda: client.get(f"/api/games/{timed['id']}").json()["result"], what="the timeout")
    games[timed["id"]] = "online real-time, lost on time"

    # A lesson under way.
    lesson = create(client, mode="lesson", lesson=2)
    games[lesson["id"]] = "lesson 2, playing"

    # The lobby: an open challenge of Cy's and a named one for Bob.
    act_as(client, cy)
    games[create(client, mode="online", seat=0, clock="5+3", rated=True, offer="open")["id"]] = "open rated challenge, waiting"
    games[create(client, mode="online", seat=1, clock="1d", offer="named", opponent="Bob")["id"]] = "named challenge, waiting"
    time.sleep(0.5)
    return games


def expected(stored: Any) -> dict[str, Any]:
    """What is written down of each game (tests/web/test_web_migrations.py reads an upgraded game the same way)."""
    clock = stored.clock_at(CLOCKS_AT)
    return {
        "version": stored.version,
        "position": stored.game.position.text(),
        "moves": [move.text() for move in stored.game.moves],
        "status": stored.status,
        "ended": None if stored.ended is None else [stored.ended.by, stored.ended.loser],
        "rematch": stored.rematch,
        "names": stored.names,
        "lesson": None if stored.lesson is None else stored.lesson.number,
        "client_ids": sorted(stored.client_ids),
        "clock": None if clock is None else {"remaining": list(clock.remaining), "running": clock.running, "flagged": clock.flagged},
    }


def main(out: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    out.mkdir(parents=True, exist_ok=True)
    path = out / "made.sqlite3"
    path.unlink(missing_ok=True)
    settings = Settings(
        database_url=f"sqlite:///{path}", hint_seconds=0.05, analysis_iterations=50, create_limit="100000/minute", intent_limit="100000/second"
    )
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        games = play(client)
        server = client.app.state.server  # type: ignore[attr-defined]
        states = {game_id: {"what": what, **expected(server.store.load(game_id))} for game_id, what in games.items()}
    engine = create_engine(f"sqlite:///{path}")
    rows: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            rows[table.name] = [{k: jsonable(v) for k, v in row._mapping.items()} for row in connection.execute(select(table))]
    engine.dispose()
    path.unlink()
    (out / "sqlite.sql").write_text(ddl(sqlite.dialect()))
    (out / "postgresql.sql").write_text(ddl(postgresql.dialect()))
    (out / "rows.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    (out / "games.json").write_text(json.dumps({"clocks_at": CLOCKS_AT.isoformat(), "games": states}, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(states)} games, {sum(map(len, rows.values()))} rows in {len(rows)} tables written to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "schema-0")
