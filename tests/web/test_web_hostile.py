"""Hostile input over the WebSocket: each refusal is a clear error that changes nothing."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import (
    Player,
    connect,
    create,
    get_state,
    snapshot,
)
from web_helpers import first_legal_move



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
    "unknown-type": lambda s: json.dumps({"type": "teleport", "version": s["version"]}),
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


@pytest.mark.parametrize(
    "name",
    ["Ada\u202eadA", "Bo\x07", "Bo\nBo", "Bo\u200f", "quiltmaker max", " Quiltmaker Expert", "x" * 41],
    ids=["a bidi override", "a control character", "a line break", "a direction mark", "the computer's name", "the computer's, cased", "too long"],
)
def test_a_seat_name_that_would_hide_reorder_or_pose_is_refused(client: TestClient, name: str) -> None:
    """Issue 26: seat names took control and bidi characters, and "quiltmaker max" (chat refused them)."""
    for body in ({"mode": "local", "names": [name, "Bo"]}, {"mode": "ai", "names": [name]}):
        refused = client.post("/api/games", json=body)
        assert refused.status_code == 422, refused.text
    assert client.post("/api/puzzles", json={"name": name}).status_code == 422


def test_a_seat_name_in_any_alphabet_is_taken(client: TestClient) -> None:
    created = client.post("/api/games", json={"mode": "local", "names": ["Łucja Żak", "Zoë 李"]})
    assert created.status_code == 200, created.text
    assert client.get(f"/api/games/{created.json()['id']}").json()["names"] == ["Łucja Żak", "Zoë 李"]
