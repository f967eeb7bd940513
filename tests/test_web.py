"""Tests of the web server (docs/web.md) over HTTP and WebSockets, against the real app.

The app runs inside Starlette's TestClient (which runs its lifespan), with a
thread pool in place of the AI's process pool and the ``beginner`` level
(greedy, instant) for every AI game, so that whole games take a second.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from web_helpers import first_legal_move, legal_moves, poll

from quiltmaker.core import record
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.store import EventRow, GameRow, GameStore, StoreError

TIMEOUT = 20.0  # seconds to wait for any one message; generous for a loaded machine


def make_app(path: Path) -> Any:
    settings = Settings(database_url=f"sqlite:///{path}", hint_seconds=0.05, analysis_iterations=50)
    return create_app(settings, executor=ThreadPoolExecutor(1))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    # One app for the module: games are independent by id, and startup is not what is tested here.
    with TestClient(make_app(tmp_path_factory.mktemp("web") / "db.sqlite3")) as test_client:
        yield test_client


# A WebSocket client -------------------------------------------------------------


class Player:
    """One WebSocket connection to a game; keeps the newest state the server sent.

    States may arrive at any time (the AI, another player), so requests read
    past them to their reply; a state older than one already seen is ignored,
    as the page ignores it.
    """

    _ids = itertools.count(1)

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []
        first = self.receive()
        assert first["type"] in ("state", "error"), first
        self.first = first

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        # TestClient's receive() waits forever; this one fails the test after a deadline instead.
        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await self.ws._send_rx.receive()

        raw = self.ws.portal.call(get)
        if raw["type"] == "websocket.close":
            message = {"type": "closed", "code": raw.get("code")}
        else:
            message = json.loads(raw["text"])
        self.received.append(message)
        if message["type"] == "state" and message["state"]["version"] >= self.state.get("version", -1):
            self.state = message["state"]
        return message

    def reply(self) -> dict[str, Any]:
        """The next message that is not a state (the reply to the last request)."""
        while True:
            message = self.receive()
            if message["type"] != "state":
                return message

    def send(self, message: Any) -> dict[str, Any]:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))
        return self.reply()

    def hello(self, token: str | None) -> dict[str, Any]:
        return self.send({"type": "hello", "token": token})

    def intent(self, kind: str, version: int | None = None, id: str | None = None, **fields: Any) -> dict[str, Any]:
        message = {"type": kind, "version": self.state["version"] if version is None else version, **fields}
        message["id"] = id or f"c{next(self._ids)}"
        return self.send(message)

    def move(self, text: str, **kw: Any) -> dict[str, Any]:
        return self.intent("move", move=text, **kw)

    def play_first_legal(self) -> dict[str, Any]:
        reply = self.move(first_legal_move(self.state))
        assert reply["type"] == "ack", reply
        return reply

    def wait_for(self, check: Any, what: str = "a state") -> dict[str, Any]:
        """Read messages until the newest state passes ``check``."""
        for _ in range(1000):
            if self.state and check(self.state):
                return self.state
            self.receive()
        raise AssertionError(f"no state came for {what}")


@contextlib.contextmanager
def connect(client: TestClient, game_id: str, token: str | None = None) -> Iterator[Player]:
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        player = Player(ws)
        if token is not None:
            welcome = player.hello(token)
            assert welcome["type"] == "welcome", welcome
        yield player


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def get_state(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def snapshot(client: TestClient, game_id: str) -> tuple[int, str]:
    state = get_state(client, game_id)
    return state["version"], state["position"]


def game_count(client: TestClient) -> int:
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with Session(store.engine) as session:
        return session.scalar(select(func.count()).select_from(GameRow)) or 0


# The catalogue ------------------------------------------------------------------


def test_catalogue_lists_33_patches_with_their_orientations(client: TestClient) -> None:
    catalogue = client.get("/api/catalogue").json()
    patches = catalogue["patches"]
    assert sorted(p["id"] for p in patches) == list(range(33))
    for patch in patches:
        assert 1 <= len(patch["orientations"]) <= 8
        for orientation in patch["orientations"]:
            assert orientation["transform"][0] in "RF"
            assert len(orientation["cells"]) == patch["size"]


def test_catalogue_has_both_tracks_and_the_levels_in_order(client: TestClient) -> None:
    catalogue = client.get("/api/catalogue").json()
    assert set(catalogue["tracks"]) == {"revised", "original"}
    for track in catalogue["tracks"].values():
        assert track["income_spaces"] and track["special_spaces"]
    assert [level["name"] for level in catalogue["levels"]] == ["beginner", "casual", "strong", "expert", "max"]
    assert catalogue["board_size"] == 9


# Creating games -----------------------------------------------------------------


def test_ai_game_with_the_human_in_seat_0_waits_for_the_human(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=0, seed=0)
    assert game["seat"] == 0 and game["invite"] is None and game["token"]
    state = get_state(client, game["id"])
    assert state["mode"] == "ai" and state["status"] == "playing" and state["version"] == 0
    assert state["ai"] == {"level": "beginner", "seat": 1, "thinking": False}
    assert state["names"] == ["Player", "quiltmaker beginner"]
    assert state["to_move"] == 0 and state["hints"] and not state["undo"]


def test_ai_in_seat_0_moves_first_on_its_own_once_a_socket_connects(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=1, seed=0)
    state = get_state(client, game["id"])
    assert state["ai"]["seat"] == 0 and state["to_move"] == 0
    assert state["version"] == 0  # nobody is watching yet: the AI waits
    with connect(client, game["id"]) as watcher:  # a spectator is enough
        after = watcher.wait_for(lambda s: s["version"] >= 1, "the AI's first move")
    assert after["moves"][0]["player"] == 0


def test_seat_0_called_first_in_the_lobby_moves_first(client: TestClient) -> None:
    # index.html offers seat 0 as "first (player 0)"; seeds 2..5 and 7 draw player 1 to start.
    starters = [get_state(client, create(client, mode="ai", level="beginner", seat=0, seed=s)["id"])["to_move"] for s in range(8)]
    assert starters == [0] * 8


def test_local_game_gives_one_token_for_both_seats(client: TestClient) -> None:
    game = create(client, mode="local", seed=1, names=["Ada", "Grace"])
    assert game["seat"] == "both" and game["invite"] is None
    state = get_state(client, game["id"])
    assert state["mode"] == "local" and state["ai"] is None and state["names"] == ["Ada", "Grace"]


def test_online_game_waits_for_the_friend_with_an_invitation(client: TestClient) -> None:
    game = create(client, mode="online", seat=1, seed=1)
    assert game["seat"] == 1 and game["invite"]
    state = get_state(client, game["id"])
    assert state["status"] == "waiting" and not state["hints"] and not state["undo"]


def test_game_seed_fixes_the_setup(client: TestClient) -> None:
    one, two = (create(client, mode="local", seed=42) for _ in range(2))
    assert get_state(client, one["id"])["position"] == get_state(client, two["id"])["position"]


@pytest.mark.parametrize(
    "body",
    [
        {"mode": "tournament"},
        {"mode": "ai", "level": "grandmaster"},
        {"mode": "local", "variant": "deluxe"},
        {"mode": "local", "names": ["x" * 41, "Bo"]},
        {"mode": "local", "names": ["a", "b", "c"]},
        {"mode": "local", "seed": -1},
        {"mode": "local", "seed": 2**63},
        {"mode": "ai", "seat": 2},
        {"mode": "local", "seed": "seven"},
        {},
    ],
    ids=["mode", "level", "variant", "long-name", "three-names", "negative-seed", "huge-seed", "seat", "seed-type", "empty"],
)
def test_invalid_new_game_is_refused_with_422_and_creates_nothing(client: TestClient, body: dict[str, Any]) -> None:
    before = game_count(client)
    response = client.post("/api/games", json=body)
    assert response.status_code == 422, response.text
    assert game_count(client) == before


# A whole game against the AI ------------------------------------------------------

AI_GAME_NAME = 'Ada "the\nquilter"; [x]'  # quotes, a line break, ';' and brackets: the records must escape them


@pytest.fixture(scope="module")
def finished_ai_game(client: TestClient) -> dict[str, Any]:
    return play_against_the_beginner(client, names=[AI_GAME_NAME])


def play_against_the_beginner(client: TestClient, **body: Any) -> dict[str, Any]:
    """A whole game against the beginner, played through the socket by always taking the first legal move."""
    game = create(client, mode="ai", level="beginner", seat=0, seed=3, **body)
    seat = game["seat"]
    with connect(client, game["id"], game["token"]) as player:
        for _ in range(400):
            state = player.wait_for(lambda s: s["result"] is not None or s["to_move"] == seat, "the human's turn")
            if state["result"] is not None:
                break
            player.play_first_legal()
        else:
            raise AssertionError("the game did not end")
    return {**game, "state": player.state}


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
    assert game.players == ['Ada "the\nquilter"; [x]', "quiltmaker beginner"]


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


# Pass-and-play -------------------------------------------------------------------


@pytest.fixture
def local_game(client: TestClient) -> dict[str, Any]:
    return create(client, mode="local", seed=5)


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
    assert snapshot(client, local_game["id"]) == before


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


@pytest.fixture
def online_game(client: TestClient) -> dict[str, Any]:
    return create(client, mode="online", seat=0, seed=1)


def join(client: TestClient, game: dict[str, Any], code: str | None = None) -> Any:
    return client.post(f"/api/games/{game['id']}/join", json={"invite": code or game["invite"]})


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


@pytest.fixture
def started_online_game(client: TestClient, online_game: dict[str, Any]) -> dict[str, Any]:
    joined = join(client, online_game).json()
    return {**online_game, "tokens": {0: online_game["token"], 1: joined["token"]}}


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
        message = spectator.receive()
    assert message["type"] == "state" and message["state"]["version"] == 1
    assert message["state"]["moves"][0]["move"] == move


def test_player_who_reconnects_gets_the_same_seat(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    for seat in (0, 1):
        for _ in range(2):
            with connect(client, game["id"]) as player:
                assert player.hello(game["tokens"][seat])["seat"] == seat


# Hostile input -------------------------------------------------------------------


@pytest.fixture
def hostile(client: TestClient, local_game: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Player]]:
    """A pass-and-play game one move in, and its player's socket."""
    with connect(client, local_game["id"], local_game["token"]) as player:
        player.play_first_legal()
        yield local_game, player


def _move(state: dict[str, Any], **fields: Any) -> str:
    return json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"], "id": "x", **fields})


MALFORMED_FRAMES = {
    "not-json": lambda s: '{"type": "move",',
    "json-array": lambda s: json.dumps(["move", "A", s["version"]]),
    "json-string": lambda s: json.dumps("move A"),
    "json-null": lambda s: "null",
    "unknown-type": lambda s: json.dumps({"type": "resign", "version": s["version"]}),
    "missing-type": lambda s: json.dumps({"move": "A", "version": s["version"]}),
    "missing-version": lambda s: json.dumps({"type": "move", "move": first_legal_move(s)}),
    "string-version": lambda s: _move(s, version=str(s["version"])),
    "float-version": lambda s: _move(s, version=float(s["version"])),
    "bool-version": lambda s: _move(s, version=True),
    "move-not-text": lambda s: _move(s, move=12),
    "move-bad-text": lambda s: _move(s, move="12Q9@z0"),
    "move-off-the-quilt": lambda s: _move(s, move=f"{s['offered'][0]}R0@i9"),
    "move-overlong": lambda s: _move(s, move="A" * 65),
    "id-overlong": lambda s: _move(s, id="x" * 65),
    "id-not-text": lambda s: _move(s, id=7),
    "token-not-text": lambda s: json.dumps({"type": "hello", "token": 12345}),
    "token-overlong": lambda s: json.dumps({"type": "hello", "token": "t" * 129}),
}


@pytest.mark.parametrize("frame", MALFORMED_FRAMES.values(), ids=MALFORMED_FRAMES.keys())
def test_malformed_message_is_refused_and_changes_nothing(
    client: TestClient, hostile: tuple[dict[str, Any], Player], frame: Any
) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    reply = player.send(frame(player.state))
    assert reply["type"] == "error" and reply["code"] == "malformed", reply
    assert reply["message"]
    assert snapshot(client, game["id"]) == before
    # The connection survives, the seat too: a good move still goes through.
    assert player.play_first_legal()["version"] == before[0] + 1


@pytest.mark.parametrize("kind", ["text", "bytes"])
def test_message_over_4_kib_is_too_large(client: TestClient, hostile: tuple[dict[str, Any], Player], kind: str) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    frame = _move(player.state, padding="p" * 4096)
    assert len(frame.encode()) > 4096
    if kind == "text":
        player.ws.send_text(frame)
    else:
        player.ws.send_bytes(frame.encode())
    reply = player.reply()
    assert reply["type"] == "error" and reply["code"] == "too_large"
    assert snapshot(client, game["id"]) == before


def test_message_of_exactly_4_kib_is_accepted(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    _, player = hostile
    frame = _move(player.state, id="exact", padding="")
    frame = frame[:-1] + ', "pad": "' + "p" * (4096 - len(frame.encode()) - 11) + '"}'
    assert len(frame.encode()) == 4096
    assert player.send(frame)["type"] == "ack"


def test_bytes_frame_of_json_is_read_like_text(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    _, player = hostile
    player.ws.send_bytes(_move(player.state).encode())
    assert player.reply()["type"] == "ack"


def test_bytes_frame_that_is_not_utf8_is_malformed(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    player.ws.send_bytes(b"\xff\xfe{}")
    assert player.reply()["code"] == "malformed"
    assert snapshot(client, game["id"]) == before


# The next tests open their own socket: the bugs they show end the connection with an
# exception, which would otherwise surface again in a fixture's teardown.


def test_deeply_nested_json_under_4_kib_is_malformed(client: TestClient, local_game: dict[str, Any]) -> None:
    before = snapshot(client, local_game["id"])
    with connect(client, local_game["id"], local_game["token"]) as player:
        reply = player.send("[" * 2000 + "]" * 2000)  # 4,000 bytes: under the limit
        assert reply["type"] == "error" and reply["code"] == "malformed"
    assert snapshot(client, local_game["id"]) == before


def test_token_with_a_lone_surrogate_is_refused_not_a_crash(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"]) as player:
        reply = player.send('{"type": "hello", "token": "\\ud800"}')
        assert reply["type"] == "error" and reply["code"] in ("malformed", "forbidden")


def test_message_id_with_a_lone_surrogate_is_refused_not_a_crash(client: TestClient, local_game: dict[str, Any]) -> None:
    before = snapshot(client, local_game["id"])
    with connect(client, local_game["id"], local_game["token"]) as player:
        frame = json.dumps({"type": "move", "move": first_legal_move(player.state), "version": 0, "id": "\ud800"})
        reply = player.send(frame)
        assert reply["type"] == "error" and reply["code"] == "malformed"
    assert snapshot(client, local_game["id"]) == before


def test_name_with_a_lone_surrogate_is_refused_or_shown(client: TestClient) -> None:
    body = b'{"mode": "local", "names": ["Ada\\ud800", "Bo"]}'
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    if response.status_code != 422:
        assert response.status_code == 200
        assert client.get(f"/api/games/{response.json()['id']}").status_code == 200


def test_illegal_move_is_refused_with_the_reason(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    circle = player.state["circle"]
    not_offered = next(p for p in circle if p not in player.state["offered"])
    reply = player.move(f"{not_offered}R0@a1")
    assert reply["code"] == "illegal"
    assert f"{not_offered}R0@a1 is illegal" in reply["message"] and "not among the next three patches" in reply["message"]
    special = player.move("S@e5")
    assert special["code"] == "illegal" and "no special patch" in special["message"]
    assert snapshot(client, game["id"]) == before


def test_stale_version_is_refused_and_the_fresh_state_sent(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    player.ws.send_text(_move(player.state, version=before[0] - 1))
    fresh, reply = player.receive(), player.receive()
    seen = [(m["type"], m.get("state", m).get("version")) for m in player.received]
    assert fresh["type"] == "state" and fresh["state"]["version"] == before[0], seen
    assert reply["type"] == "error" and reply["code"] == "stale" and reply["id"] == "x", reply
    assert player.move(first_legal_move(player.state), version=before[0] + 5)["code"] == "stale"
    assert snapshot(client, game["id"]) == before


def test_replayed_message_id_is_a_duplicate(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    game, player = hostile
    assert player.move(first_legal_move(player.state), id="once")["type"] == "ack"
    before = snapshot(client, game["id"])
    # The same id again, even with the right version and a legal move: carried out once only.
    reply = player.move(first_legal_move(player.state), id="once")
    assert reply["code"] == "duplicate" and reply["id"] == "once"
    assert snapshot(client, game["id"]) == before


def test_replies_repeat_the_clients_id(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    _, player = hostile
    assert player.move("S@a1", id="mine")["id"] == "mine"
    assert player.move(first_legal_move(player.state), id="ours")["id"] == "ours"


@pytest.mark.parametrize("source", ["forged", "other-game"])
def test_token_holding_no_seat_is_forbidden_and_cannot_move(client: TestClient, local_game: dict[str, Any], source: str) -> None:
    token = secrets.token_urlsafe(24) if source == "forged" else create(client, mode="local", seed=9)["token"]
    before = snapshot(client, local_game["id"])
    with connect(client, local_game["id"]) as intruder:
        refused = intruder.hello(token)
        assert refused["type"] == "error" and refused["code"] == "forbidden"
        assert intruder.move(first_legal_move(intruder.state))["code"] == "forbidden"
        assert intruder.intent("undo")["code"] == "forbidden"
        assert intruder.intent("hint")["code"] == "forbidden"
    assert snapshot(client, local_game["id"]) == before


def test_forged_hello_after_a_real_one_drops_the_seat(client: TestClient, hostile: tuple[dict[str, Any], Player]) -> None:
    game, player = hostile
    before = snapshot(client, game["id"])
    assert player.hello("forged")["code"] == "forbidden"
    assert player.move(first_legal_move(player.state))["code"] == "forbidden"
    assert snapshot(client, game["id"]) == before


def test_move_out_of_turn_is_refused(client: TestClient, started_online_game: dict[str, Any]) -> None:
    game = started_online_game
    before = snapshot(client, game["id"])
    waiting = 1 - get_state(client, game["id"])["to_move"]
    with connect(client, game["id"], game["tokens"][waiting]) as player:
        reply = player.move("A")
        assert reply["code"] == "not_your_turn"
    assert snapshot(client, game["id"]) == before


# Unknown games ------------------------------------------------------------------


def test_unknown_game_is_404(client: TestClient) -> None:
    for path in ("/api/games/nope", "/api/games/nope/record.json", "/api/games/nope/record.txt", "/api/games/nope/analysis"):
        assert client.get(path).status_code == 404, path


def test_websocket_to_an_unknown_game_gets_not_found_and_is_closed(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/nope") as ws:
        player = Player(ws)
        assert player.first["type"] == "error" and player.first["code"] == "not_found"
        assert player.receive()["type"] == "closed"


def test_game_list_holds_only_existing_games(client: TestClient, local_game: dict[str, Any]) -> None:
    other = create(client, mode="ai", level="beginner", seat=0, seed=2)
    response = client.get("/api/games", params={"ids": f"nope,{local_game['id']},,{other['id']},gone"})
    games = response.json()["games"]
    assert [g["id"] for g in games] == [local_game["id"], other["id"]]
    assert games[0]["mode"] == "local" and games[1]["status"] == "playing"
    assert client.get("/api/games").json() == {"games": []}


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
    store = GameStore(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        game_id, _, _ = store.create("local", Position.initial(0), ["a", "b"])
        assert store.append(game_id, 0, "move", "A", 0, "one") == 1
        with pytest.raises(StoreError) as error:
            store.append(game_id, 0, "move", "A", 0, "two")
        assert error.value.code == "stale"
        loaded = store.load(game_id)
        assert loaded.version == 1 and loaded.client_ids == {"one"}
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
    assert "corrupt" in response.json()["detail"]
    assert client.get(f"/api/games/{corrupt_game}/record.json").status_code == 500
    assert client.get("/api/games", params={"ids": corrupt_game}).json() == {"games": []}
    with client.websocket_connect(f"/ws/games/{corrupt_game}") as ws:
        player = Player(ws)
        assert player.first["type"] == "error" and player.first["code"] == "corrupt"
        assert player.receive()["type"] == "closed"
    # Other games are served as before.
    assert client.get("/api/catalogue").status_code == 200
    other = create(client, mode="local", seed=12)
    assert get_state(client, other["id"])["version"] == 0


# Regressions from review ------------------------------------------------------------


def test_a_game_id_that_is_not_an_id_is_not_found_and_never_reaches_the_database(client: TestClient) -> None:
    # A NUL byte would be a driver error on PostgreSQL: ids are checked first.
    assert client.get("/api/games/abc%00def").status_code == 404
    with client.websocket_connect("/ws/games/abc%00def") as ws:
        player = Player(ws)
        assert player.first["type"] == "error" and player.first["code"] == "not_found"


def test_a_message_id_with_a_nul_byte_is_malformed(client: TestClient, local_game: dict[str, Any]) -> None:
    with connect(client, local_game["id"], local_game["token"]) as player:
        reply = player.intent("move", id="a\x00b", move="A")
        assert reply["type"] == "error" and reply["code"] == "malformed"
    assert snapshot(client, local_game["id"])[0] == 0


def test_a_worker_killed_under_the_server_is_replaced(tmp_path: Path) -> None:
    """The real process pool: a dead worker costs one request an 'internal' error, then hints work again."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05)
    with TestClient(create_app(settings)) as own_client:
        game = create(own_client, mode="local", seed=3)
        with connect(own_client, game["id"], game["token"]) as player:
            assert player.intent("hint")["type"] == "hint"
            server = own_client.app.state.server  # type: ignore[attr-defined]
            for process in list(server.executor._processes.values()):
                process.kill()
                process.join()
            player.play_first_legal()  # a new version: the hint before is not reused
            assert player.intent("hint")["code"] == "internal"
            assert player.intent("hint")["type"] == "hint"


class CountingExecutor(ThreadPoolExecutor):
    """A one-thread pool that counts the jobs it is given."""

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.jobs += 1
        return super().submit(*args, **kwargs)


def test_a_hint_is_searched_once_per_version_and_shared(tmp_path: Path) -> None:
    executor = CountingExecutor()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05)
    with TestClient(create_app(settings, executor=executor)) as own_client:
        game = create(own_client, mode="local", seed=5)
        with connect(own_client, game["id"], game["token"]) as first, connect(own_client, game["id"], game["token"]) as second:
            jobs = executor.jobs
            hints = [first.intent("hint", id="a"), second.intent("hint", id="b"), first.intent("hint", id="c")]
            assert executor.jobs == jobs + 1
            assert [h["id"] for h in hints] == ["a", "b", "c"]
            assert len({(h["version"], h["best_move"], h["win_probability"], h["expected_margin"]) for h in hints}) == 1
            first.play_first_legal()
            assert first.intent("hint")["version"] == hints[0]["version"] + 1
            assert executor.jobs == jobs + 2


def test_hints_and_analyses_past_the_limit_wait_and_change_nothing(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, analysis_iterations=20, optional_work_limit=0
    )
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as own_client:
        server = own_client.app.state.server  # type: ignore[attr-defined]
        local = create(own_client, mode="local", seed=5)
        before = snapshot(own_client, local["id"])
        with connect(own_client, local["id"], local["token"]) as player:
            busy = player.intent("hint", id="h")
            assert busy["type"] == "error" and busy["code"] == "busy" and busy["id"] == "h"
            assert snapshot(own_client, local["id"]) == before
            finished = play_against_the_beginner(own_client)
            url = f"/api/games/{finished['id']}/analysis"
            waiting = own_client.get(url)
            assert waiting.status_code == 202 and waiting.json()["status"] == "waiting"
            server.settings.optional_work_limit = 2  # room again: both are served
            assert player.intent("hint")["type"] == "hint"
            assert own_client.get(url).json()["status"] in ("computing", "done")
            poll(lambda: own_client.get(url).status_code == 200, timeout=120, what="the analysis")
            assert server.optional_work == 0


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


def test_a_log_with_a_rematch_before_the_end_is_corrupt(tmp_path: Path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    game_id, _token, _invite = store.create("local", Position.initial(1, first_player=0), ["A", "B"])
    store.append(game_id, 0, "rematch", "elsewhere", 0, None)
    with pytest.raises(StoreError) as error:
        store.load(game_id)
    assert error.value.code == "corrupt" and "rematch" in str(error.value)


def test_only_a_game_without_events_is_deleted_as_a_lost_rematch(tmp_path: Path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    played, _token, _invite = store.create("local", Position.initial(1, first_player=0), ["A", "B"])
    store.append(played, 0, "move", "A", 0, None)
    fresh = store.create_rematch(store.load(played), Position.initial(2, first_player=0))
    assert store.load(fresh).names == ["B", "A"]
    assert not store.delete_unplayed(played) and store.exists(played)
    assert store.delete_unplayed(fresh) and not store.exists(fresh)
