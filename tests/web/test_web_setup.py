"""One way to make a game (quiltmaker.web.setup): who writes which table, and a game made whole or not at all."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from web_client import connect, create, join, new_account, play_against_the_beginner
from web_helpers import migrated_store, poll

from quiltmaker.core.position import Position
from quiltmaker.web.db import schema
from quiltmaker.web.bus import GameStarted
from quiltmaker.web.round.clocks import TimeControl
from quiltmaker.web.round.kinds import Mode, OfferKind
from quiltmaker.web.setup import GameMaker, GameSetup, Offer

WEB = Path(__file__).parents[2] / "quiltmaker" / "web"

# Which module writes which table: its rows' owner, and the setup for everything a new game or a taken seat writes.
# A new writer of a table is a decision: make it here, beside the reason.
WRITERS = {
    "games": {"setup", "round.store"},  # made and seated by the setup; its analysis kept, and the unplayed deleted, by the store
    "lessons": {"setup"},
    "puzzle_games": {"setup"},  # (the answer is the puzzles' edit of the row they read)
    "clocks": {"setup", "round.store"},  # made with the game; its deadline moved by each event
    "events": {"setup", "round.store"},  # a script's moves written with the game; every later event appended by the store
    "account_games": {"setup"},
    "rated_games": {"setup", "rating.ratings"},  # opened and seated by the setup; settled by the ratings
    "challenges": {"setup", "lobby.challenges"},  # offered and taken by the setup; withdrawn (an abort) by the lobby
    "seeks": {"lobby.quickmatch"},
    "chat": {"chat"},
    "beats": {"round.store"},
    "accounts": {"account.accounts"},
    "sessions": {"account.accounts"},
    "account_addresses": {"rating.fairness"},
    "ratings": {"rating.ratings"},
    "rating_changes": {"rating.ratings"},
    "seen": {"lobby.challenges"},
    "game_summaries": {"round.summaries"},
    "puzzle_ratings": {"puzzle.puzzles"},
    "puzzle_players": {"puzzle.puzzles"},
}
MADE_WITH_A_GAME = {"games", "lessons", "puzzle_games", "clocks", "account_games", "rated_games", "challenges"}


def written_tables() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """By table: the web modules whose code writes it (an insert, update or delete statement of its row class, or a
    new row object), and those that insert into it. Migrations are the schema's own, and left out."""
    rows = {cls.__name__: cls.__tablename__ for cls in schema.Base.__subclasses__()}
    writers: dict[str, set[str]] = collections.defaultdict(set)
    inserters: dict[str, set[str]] = collections.defaultdict(set)
    for path in sorted(WEB.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        module = path.relative_to(WEB).with_suffix("").as_posix().replace("/", ".")
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if called in ("insert", "update", "delete") and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in rows:
                writers[rows[node.args[0].id]].add(module)
                if called == "insert":
                    inserters[rows[node.args[0].id]].add(module)
            elif called in rows:  # a new ORM row, added to a session
                writers[rows[called]].add(module)
                inserters[rows[called]].add(module)
    return writers, inserters


def test_each_table_is_written_by_its_owner_and_a_game_is_made_only_by_the_setup() -> None:
    writers, inserters = written_tables()
    assert dict(writers) == WRITERS
    for table in MADE_WITH_A_GAME:
        assert inserters[table] == {"setup"}, f"{table}: a new game's rows are the setup's alone"


def test_a_game_is_made_whole_or_not_at_all(tmp_path: Path) -> None:
    # The lobby offer is written last; an offer to an account that does not exist fails there, and nothing of the game
    # is left (its row, clock, rating, seats were written in the same transaction).
    store = migrated_store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    broken = GameSetup(
        Mode.ONLINE, Position.initial(1, first_player=0), ["Ann", "Bob"], control=TimeControl.parse("5+3"),
        offer=Offer(OfferKind.NAMED, 1500.0, (404, "nobody")),
    )  # fmt: skip
    with pytest.raises(IntegrityError):
        GameMaker(store.database).make(broken)
    with store.database.reading() as session:
        for table in (schema.GameRow, schema.ClockRow, schema.ChallengeRow):
            assert session.scalar(select(func.count()).select_from(table)) == 0, table.__tablename__
    store.close()


@pytest.mark.parametrize(
    "wrong",
    [
        {"mode": Mode.AI},  # against the computer with no level
        {"mode": Mode.LOCAL, "ai_level": "casual"},
        {"mode": Mode.ONLINE, "rated": True},  # rated with no clock
        {"mode": Mode.AI, "ai_level": "casual", "offer": Offer(OfferKind.OPEN, 1500.0)},
        {"mode": Mode.PUZZLE},  # a puzzle that names none
        {"mode": Mode.ONLINE, "names": ["one"]},
    ],
)
def test_a_setup_that_cannot_be_made_is_refused_before_anything_is_written(wrong: dict[str, object]) -> None:
    fields: dict[str, object] = {"start": Position.initial(1, first_player=0), "names": ["Ann", "Bob"], **wrong}
    with pytest.raises(ValueError):
        GameSetup(**fields)  # type: ignore[arg-type]


def test_a_rated_challenge_is_offered_rated_and_seated_at_once_and_its_taker_joins_every_row(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    offered = create(fresh, mode="online", seat=0, clock="5+3", rated=True, offer="open")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    ada = server.accounts.find("Ada")
    assert server.ratings.rated_game(offered["id"]) == ("realtime", [ada.id, None])
    assert server.lobby.challenge(offered["id"])["kind"] == "open" and server.accounts.seat_in(ada, offered["id"]) == "0"
    fresh.cookies.clear()
    new_account(fresh, "Bob")
    taken = fresh.post(f"/api/games/{offered['id']}/accept")
    assert taken.status_code == 200, taken.text
    bob = server.accounts.find("Bob")
    assert server.ratings.rated_game(offered["id"]) == ("realtime", [ada.id, bob.id])
    assert server.lobby.challenge(offered["id"])["taken"] and server.accounts.seat_in(bob, offered["id"]) == "1"


def test_an_invitation_joined_by_its_own_creator_seats_the_account_once(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0)
    assert join(fresh, game).status_code == 200  # (casual: one may play oneself from two browsers)
    server = fresh.app.state.server  # type: ignore[attr-defined]
    assert server.accounts.seat_in(server.accounts.find("Ada"), game["id"]) == "0"


def test_every_way_of_starting_a_game_is_news_of_its_start(client: TestClient) -> None:
    # Each way a person starts a game, through the API; each game is news on the bus, once, with its mode.
    server = client.app.state.server  # type: ignore[attr-defined]
    started: list[GameStarted] = []

    async def on_start(news: GameStarted) -> None:
        started.append(news)

    server.bus.subscribe(GameStarted, on_start, elsewhere=False)
    made = [
        create(client, mode="ai", seat=0)["id"],
        create(client, mode="local")["id"],
        create(client, mode="online", seat=1)["id"],
        create(client, mode="lesson", lesson=1)["id"],
        client.post("/api/puzzles", json={}).json()["id"],
    ]
    finished = play_against_the_beginner(client)
    made.append(create(client, mode="ai", from_game=finished["id"], from_ply=2)["id"])  # a "what if"
    with connect(client, finished["id"], finished["token"]) as player:
        assert player.intent("rematch")["type"] == "ack"
        made.append(player.state["rematch"])
    seeks = [client.post("/api/quickmatch", json={"clock": "5+3", "rated": False}).json() for _ in range(2)]
    paired = [client.post(f"/api/quickmatch/{s['seek']}/poll", json={"secret": s["secret"]}).json() for s in seeks]
    assert paired[0]["game"] == paired[1]["game"]
    made.append(paired[0]["game"])
    alone = client.post("/api/quickmatch", json={"clock": "5+3", "rated": False}).json()
    made.append(client.post(f"/api/quickmatch/{alone['seek']}/computer", json={"secret": alone["secret"]}).json()["game"])
    poll(lambda: len(started) >= len(made) + 1 or None, what="the news of every start")  # (+1: the game played out)
    assert [news.game for news in started if news.game != finished["id"]] == made
    assert [news.mode for news in started if news.game != finished["id"]] == [
        "ai", "local", "online", "lesson", "puzzle", "ai", "ai", "online", "ai"
    ]
