"""The HTTP API (docs/web.md): the catalogue, creating games, records, replays, unknown games."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_client import (
    Player,
    connect,
    create,
    game_count,
    get_state,
)



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


def test_each_orientation_is_named_in_words_as_its_turns_and_mirror_make_it(client: TestClient) -> None:
    """The page and its screen readers say "flipped and turned once", never the notation "F1"."""
    patch = next(p for p in client.get("/api/catalogue").json()["patches"] if len(p["orientations"]) == 8)
    words = {o["transform"]: o["words"] for o in patch["orientations"]}
    assert words == {
        "R0": "as drawn", "R1": "turned once", "R2": "turned twice", "R3": "turned three times",
        "F0": "flipped", "F1": "flipped and turned once", "F2": "flipped and turned twice", "F3": "flipped and turned three times",
    }  # fmt: skip


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
    assert state["ai"] == {"level": "beginner", "seat": 1, "thinking": False, "plays": True}
    assert state["names"] == ["Player", "quiltmaker beginner"]
    assert state["to_move"] == 0 and state["hints"] and not state["undo"]


def test_ai_in_seat_0_moves_first_once_its_player_says_hello_and_never_for_a_mere_socket(client: TestClient) -> None:
    game = create(client, mode="ai", level="beginner", seat=1, seed=0)
    state = get_state(client, game["id"])
    assert state["ai"]["seat"] == 0 and state["to_move"] == 0
    assert state["version"] == 0  # nobody is there yet: the AI waits
    # A socket that says nothing, and a spectator's hello, start no AI work: only a seat's does.
    with connect(client, game["id"]) as silent:
        assert silent.state["ai"]["thinking"] is False
    with connect(client, game["id"]) as watcher:
        assert watcher.hello(None)["seat"] is None
        assert watcher.state["ai"]["thinking"] is False
    assert client.app.state.server.ai.in_flight == {}  # type: ignore[attr-defined]
    assert get_state(client, game["id"])["version"] == 0
    with connect(client, game["id"], game["token"]) as player:
        after = player.wait_for(lambda s: s["version"] >= 1, "the AI's first move")
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
