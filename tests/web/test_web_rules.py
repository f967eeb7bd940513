"""What the server accepts and what the log accepts are one thing (quiltmaker.web.round.rules).

Every intent, in every kind of game and state, goes through both paths: sent
live over the socket, and, written into the log as the event it would make,
replayed from the database by a fresh load. A live acknowledgement must load;
a live refusal, written anyway, must make the log corrupt. The one exception
is the lesson's advice (code ``lesson``): the tutor's, not the game's, and
checked live only, so that a later version's lessons never corrupt a stored one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import connect, create, join, play_against_the_beginner
from web_helpers import first_legal_move

from quiltmaker.web.round import rules
from quiltmaker.web.round.store import StoreError

Setup = Callable[[TestClient], tuple[str, dict[int, str]]]  # a game brought to a state: its id, each seat's token


def _online(moves: int = 0, ending: str | None = None) -> Setup:
    def setup(client: TestClient) -> tuple[str, dict[int, str]]:
        game = create(client, mode="online", seat=0, seed=4)
        tokens = {0: game["token"], 1: join(client, game).json()["token"]}
        with connect(client, game["id"], tokens[0]) as first, connect(client, game["id"], tokens[1]) as second:
            players = {0: first, 1: second}
            for version in range(moves):
                for seen in players.values():
                    seen.wait_for(lambda s, v=version: s["version"] >= v)
                assert players[first.state["to_move"]].move("A")["type"] == "ack"
            for seen in players.values():
                seen.wait_for(lambda s: s["version"] >= moves)
            if ending is not None:
                assert first.intent(ending)["type"] == "ack"
        return game["id"], tokens

    return setup


def _waiting(client: TestClient) -> tuple[str, dict[int, str]]:
    game = create(client, mode="online", seat=0, seed=4)
    return game["id"], {0: game["token"]}


def _ai(moves: int = 0, clock: str | None = None) -> Setup:
    def setup(client: TestClient) -> tuple[str, dict[int, str]]:
        game = create(client, mode="ai", level="beginner", seat=0, seed=6, **({"clock": clock} if clock else {}))
        with connect(client, game["id"], game["token"]) as player:
            for _ in range(moves):
                player.wait_for(lambda s: s["to_move"] == 0 and not s["ai"]["thinking"], "the human's turn")
                player.play_first_legal()
            player.wait_for(lambda s: s["to_move"] == 0 and not s["ai"]["thinking"], "the human's turn")
        return game["id"], {0: game["token"]}

    return setup


def _ai_over(rematch: bool = False) -> Setup:
    def setup(client: TestClient) -> tuple[str, dict[int, str]]:
        game = play_against_the_beginner(client)
        if rematch:
            with connect(client, game["id"], game["token"]) as player:
                assert player.intent("rematch")["type"] == "ack"
        return game["id"], {0: game["token"]}

    return setup


def _local(moves: int = 0) -> Setup:
    def setup(client: TestClient) -> tuple[str, dict[int, str]]:
        game = create(client, mode="local", seed=5)
        with connect(client, game["id"], game["token"]) as player:
            for _ in range(moves):
                player.play_first_legal()
        return game["id"], {0: game["token"], 1: game["token"]}

    return setup


def _lesson(client: TestClient) -> tuple[str, dict[int, str]]:
    game = create(client, mode="lesson", lesson=2)
    return game["id"], {0: game["token"]}


STATES: dict[str, Setup] = {
    "online, waiting for the second player": _waiting,
    "online, started": _online(),
    "online, one side moved": _online(1),
    "online, both sides moved": _online(2),
    "online, resigned": _online(2, "resign"),
    "online, aborted": _online(1, "abort"),
    "against the AI, at the start": _ai(),
    "against the AI, under way": _ai(2),
    "against the AI, with a clock": _ai(2, clock="10+5"),
    "against the AI, over": _ai_over(),
    "against the AI, over and rematched": _ai_over(rematch=True),
    "pass-and-play, at the start": _local(),
    "pass-and-play, under way": _local(3),
    "a lesson": _lesson,
}

def _legal(state: dict[str, Any]) -> str:
    return first_legal_move(state) if state["result"] is None and state["status"] != "aborted" else "A"  # (over: none is)


# Each intent: its message, and the event it would write (kind, value), from the state as the page saw it.
INTENTS: dict[str, Callable[[dict[str, Any]], tuple[dict[str, Any], tuple[str, str]]]] = {
    "a legal move": lambda s: ({"type": "move", "move": _legal(s)}, ("move", _legal(s))),
    "an illegal move": lambda s: ({"type": "move", "move": "S@a1"}, ("move", "S@a1")),  # no special patch to place
    "undo": lambda s: ({"type": "undo"}, ("undo", "1")),
    "resign": lambda s: ({"type": "resign"}, ("resign", "SEAT")),
    "abort": lambda s: ({"type": "abort"}, ("abort", "SEAT")),
    "rematch": lambda s: ({"type": "rematch"}, ("rematch", "elsewhere")),
}


@pytest.mark.parametrize("intent", list(INTENTS))
@pytest.mark.parametrize("state", list(STATES))
def test_the_live_checks_and_the_replay_of_the_log_agree(client: TestClient, state: str, intent: str) -> None:
    game_id, tokens = STATES[state](client)
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with connect(client, game_id) as watcher:
        to_move, mode = watcher.state["to_move"], watcher.state["mode"]
    # The seat that asks: the player to move (any player once the game is over).
    seat = to_move if to_move in tokens else next(iter(tokens))
    with connect(client, game_id, tokens[seat]) as player:
        before = player.state["version"]
        message, (kind, value) = INTENTS[intent](player.state)
        reply = player.intent(message.pop("type"), **message)
    recorded_seat = seat if to_move is None or mode != "local" else to_move
    if reply["type"] == "ack":
        store.load(game_id)  # the event the server wrote replays: it raises if the log's rules refused it
        return
    assert reply["type"] == "error" and reply["code"] not in ("stale", "duplicate", "internal"), reply
    stored = store.load(game_id)
    store.append(game_id, before, kind, value.replace("SEAT", str(recorded_seat)), recorded_seat, None)
    if reply["code"] == "lesson":
        assert store.load(game_id).version == before + 1, "the lesson's advice is the tutor's, not a rule of the log"
        return
    if kind == "undo" and stored.is_finished and rules.allows(rules.undo_count, stored) and value == str(rules.undo_count(stored)):
        # No undo once a game is over is the live rule alone: a game undone after it was played out, before the rule, loads.
        assert store.load(game_id).version == before + 1
        return
    with pytest.raises(StoreError) as refused:
        store.load(game_id)
    assert refused.value.code == "corrupt", f"{state}: {intent} was refused live ({reply['message']}) but the log accepts it"


def test_the_two_rules_the_log_once_accepted_are_refused_in_both_paths(client: TestClient) -> None:
    """An undo in an online game, and resigning one that has not started: refused live before, accepted by the replay."""
    game_id, tokens = _online(1)(client)
    with connect(client, game_id, tokens[1]) as player:
        refused = player.intent("undo")
        assert refused["code"] == "not_allowed" and "no undo in an online game" in refused["message"]
    store = client.app.state.server.store  # type: ignore[attr-defined]
    store.append(game_id, 1, "undo", "1", 0, None)
    with pytest.raises(StoreError, match="no undo in an online game"):
        store.load(game_id)
    waiting, seats = _waiting(client)
    with connect(client, waiting, seats[0]) as player:
        refused = player.intent("resign")
        assert refused["code"] == "not_allowed" and "has not started" in refused["message"]
    store.append(waiting, 0, "resign", "0", 0, None)
    with pytest.raises(StoreError, match="has not started"):
        store.load(waiting)
