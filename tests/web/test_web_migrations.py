"""Upgrades never lose a game: a database kept by the server before migrations, upgraded, holds everything it held.

tests/data/schema-0/ is such a database (made by tests/data/make_schema_0.py
with the code of that time): its schema's DDL for SQLite and PostgreSQL, its
rows, and what each game replayed to then. Each test builds it on a real
database, upgrades it as a server does when it starts, and checks every
game, account, rating and challenge, and that play goes on.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from data.make_schema_0 import CLOCKS_AT, expected  # what the fixture wrote down of each game, read the same way now
from services import BINARIES, postgres
from sqlalchemy import MetaData, create_engine, insert, text
from web_client import TEST_QUOTAS, connect, create
from web_helpers import new_game, first_legal_move

from quiltmaker.core.errors import QuiltmakerError
from quiltmaker.tutorial import LESSONS, setup
from quiltmaker.web.account.accounts import Accounts
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.db.database import Database, SchemaError, head, migrate
from quiltmaker.web.lobby.challenges import Lobby
from quiltmaker.web.rating.ratings import Ratings
from quiltmaker.web.db.schema import Base
from quiltmaker.web.round.store import GameStore

FIXTURE = Path(__file__).parents[1] / "data" / "schema-0"
GAMES = json.loads((FIXTURE / "games.json").read_text(encoding="utf-8"))
ROWS = json.loads((FIXTURE / "rows.json").read_text(encoding="utf-8"))
PASSWORD = "correct horse"  # the fixture's accounts' (Ada, Bob, Cyd)

HAVE_POSTGRES = bool(BINARIES) or bool(os.environ.get("CI"))

REVISIONS = ["0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008"]  # every revision, in order: a new one is added here


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    with postgres() as url:
        yield url


_databases = iter(range(1, 10**6))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=[pytest.mark.slow, pytest.mark.skipif(not HAVE_POSTGRES, reason="needs PostgreSQL's server binaries")])])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database, on SQLite or on a throwaway PostgreSQL server (a database of its own each test)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.sqlite3'}"
    server: str = request.getfixturevalue("postgres_server")
    name = f"migrations_{next(_databases)}"
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return server.rsplit("/", 1)[0] + f"/{name}"


def _value(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"datetime"}:
        moment = datetime.fromisoformat(value["datetime"])
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)  # stored as UTC
    return value


def build_schema_0(url: str, without: str | None = None) -> None:
    """The database as the server before migrations left it: its tables by their DDL then, and the fixture's rows.

    ``without``: a table left out, as a still older version (one before that table) left its database.
    """
    engine = create_engine(url)
    with engine.begin() as connection:
        for statement in (FIXTURE / f"{engine.dialect.name}.sql").read_text(encoding="utf-8").split(";\n"):
            if statement.strip() and not (without and f"TABLE {without} (" in statement):
                connection.exec_driver_sql(statement)
        tables = MetaData()
        tables.reflect(connection)
        for name, rows in ROWS.items():  # in the order the tables refer to each other
            if rows and name != without:
                connection.execute(insert(tables.tables[name]), [{k: _value(v) for k, v in row.items()} for row in rows])
        if engine.dialect.name == "postgresql":  # rows written with their ids: the id sequences go on after them
            for name in ("accounts", "chat", "events", "rating_changes"):
                connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))"))
    engine.dispose()


def test_the_fixture_holds_every_kind_of_game() -> None:
    assert datetime.fromisoformat(GAMES["clocks_at"]) == CLOCKS_AT
    kinds = " ".join(game["what"] for game in GAMES["games"].values())
    for kind in ("rated realtime", "correspondence", "against the AI", "rematch", "pass-and-play", "aborted", "lost on time", "lesson", "challenge"):
        assert kind in kinds
    assert {name: len(rows) > 0 for name, rows in ROWS.items() if name != "seeks"} == {name: True for name in ROWS if name != "seeks"}


def test_a_database_from_before_migrations_upgrades_with_every_game_account_rating_and_challenge(empty_url: str) -> None:
    build_schema_0(empty_url)
    assert migrate(empty_url) == REVISIONS and head() == REVISIONS[-1]
    database = Database(empty_url)
    store = GameStore(database)
    for game_id, before in GAMES["games"].items():
        assert expected(store.load(game_id)) == {k: v for k, v in before.items() if k != "what"}, before["what"]
    accounts = Accounts(database)
    ratings = Ratings(database)
    for row in ROWS["accounts"]:
        account, _session = accounts.sign_in(row["name"], PASSWORD)  # the password hashes came through
        assert account.id == row["id"]
        held = {r["family"]: round(r["rating"], 6) for r in ROWS["ratings"] if r["account_id"] == account.id}
        assert {family: round(r.rating, 6) for family, r in ratings.ratings_of(account.id).items()} == held
    rated = next(g for g, game in GAMES["games"].items() if game["what"] == "rated realtime, resigned")
    view = ratings.game_view(rated)
    assert view is not None and view["settled"] and all(change is not None for change in view["changes"])
    lobby = Lobby(store, ratings)
    for row in ROWS["challenges"]:
        challenge = lobby.challenge(row["game_id"])
        assert challenge is not None and (challenge["kind"], challenge["for"], challenge["rated"]) == (row["kind"], row["for_name"], row["rated"])
    database.close()
    assert migrate(empty_url) == [], "a second start migrates nothing"


def test_play_goes_on_in_an_upgraded_database(empty_url: str) -> None:
    """The server upgrades the database as it starts; a player signs in and moves in their game, and new games and accounts follow."""
    build_schema_0(empty_url)
    mail = next(g for g, game in GAMES["games"].items() if game["what"] == "rated correspondence, playing")
    with TestClient(make_app_on(empty_url)) as client:
        state = client.get(f"/api/games/{mail}").json()
        mover = state["names"][state["to_move"]]
        signed_in = client.post("/api/account/signin", json={"name": mover, "password": PASSWORD})
        assert signed_in.status_code == 200, signed_in.text
        with connect(client, mail) as player:
            welcome = player.hello(None)  # no token: the seat the signed-in account holds
            assert welcome["type"] == "welcome" and welcome["seat"] == state["to_move"]
            reply = player.move(first_legal_move(player.state))
            assert reply["type"] == "ack" and reply["version"] == state["version"] + 1
        fresh = create(client, mode="local", seed=3)  # new rows beside the old: the id sequences go on
        with connect(client, fresh["id"], fresh["token"]) as player:
            assert player.move(first_legal_move(player.state))["type"] == "ack"
        assert client.post("/api/account/signup", json={"name": "Dana", "password": PASSWORD}).status_code == 200
        client.cookies.clear()


def make_app_on(url: str) -> Any:
    """The app (as the tests' make_app) on the database at ``url``."""
    return create_app(Settings(database_url=url, hint_seconds=0.05, analysis_iterations=50, **TEST_QUOTAS), executor=ThreadPoolExecutor(1))


def test_a_database_from_before_the_lessons_gains_their_table(tmp_path: Path) -> None:
    """A version before lessons (and before migrations) kept no lessons table: the baseline adds it, and lessons play."""
    url = f"sqlite:///{tmp_path / 'older.sqlite3'}"
    build_schema_0(url, without="lessons")
    assert migrate(url) == REVISIONS
    store = GameStore(url)
    game_id = new_game(store, "lesson", setup(), ["Player", "Tutor"], ai_level="beginner", lesson=LESSONS[1].number, script=LESSONS[1].script).id
    assert store.load(game_id).lesson is LESSONS[1]
    store.close()


def test_the_migrations_build_exactly_the_schema(empty_url: str) -> None:
    migrate(empty_url)
    engine = create_engine(empty_url)
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    engine.dispose()


def with_schema_record(url: str, statement: str) -> None:
    """The database at ``url``, migrated, its record of its revision then changed by ``statement``."""
    migrate(url)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text(statement))
    engine.dispose()


def refusals(url: str) -> list[str]:
    """What migrating, opening and starting an app on ``url`` each refuse with (each must refuse)."""
    said = []
    for refused in (lambda: migrate(url), lambda: Database(url), lambda: make_app_on(url)):
        with pytest.raises(SchemaError) as raised:
            refused()
        assert isinstance(raised.value, QuiltmakerError)
        said.append(str(raised.value))
    return said


def test_a_database_newer_than_the_code_is_refused_with_what_to_do(empty_url: str) -> None:
    with_schema_record(empty_url, "UPDATE alembic_version SET version_num = '9999'")
    for said in refusals(empty_url):
        assert "newer version of quiltmaker" in said and "'9999'" in said and "backup" in said


def test_an_unmigrated_database_is_not_opened() -> None:
    with pytest.raises(SchemaError) as raised:
        Database("sqlite://")
    assert "quiltmaker migrate" in str(raised.value)


def test_servers_starting_together_migrate_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'together.sqlite3'}"
    results: list[list[str]] = []
    threads = [threading.Thread(target=lambda: results.append(migrate(url))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [[], [], [], REVISIONS]


def test_a_schema_record_with_two_revisions_is_refused_with_what_to_do(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'two.sqlite3'}"
    with_schema_record(url, "INSERT INTO alembic_version VALUES ('r0003')")
    for said in refusals(url):  # (Alembic's own error was a raw traceback)
        assert "records 2 schema revisions" in said and "alembic_version" in said


def test_an_emptied_schema_record_is_refused_and_the_database_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "emptied.sqlite3"
    url = f"sqlite:///{path}"
    migrate(url)
    store = GameStore(url)
    game = new_game(store, "local", setup(), ["Ann", "Bob"]).id
    store.close()
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM alembic_version"))
    engine.dispose()
    with pytest.raises(SchemaError) as raised:
        make_app_on(url)
    said = str(raised.value)
    assert "no record of its schema's revision" in said and "do not set it aside" in said and head() in said
    assert "move it aside" not in said, "the words that led an operator to set an intact database aside"
    engine = create_engine(url)
    with engine.begin() as connection:  # done as the words say, it opens, with its game
        connection.execute(text(f"INSERT INTO alembic_version VALUES ('{head()}')"))
    engine.dispose()
    assert migrate(url) == [] and GameStore(url).load(game).names == ["Ann", "Bob"]


def test_a_database_that_cannot_be_written_says_so_not_that_it_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    migrate(f"sqlite:///{path}")
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM alembic_version"))  # (a migration must write)
        connection.execute(text("DROP TABLE games"))
        connection.execute(text("DROP TABLE IF EXISTS game_summaries"))
    engine.dispose()
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"  # storage that cannot be written (root ignores a file's mode)
    with pytest.raises(QuiltmakerError) as raised:
        make_app_on(read_only)
    assert "cannot write the games database" in str(raised.value) and "damaged" not in str(raised.value)
