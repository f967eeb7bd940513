"""After the first state, a socket is sent what changed: applied as the page applies it, it is the whole state again."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from web_client import connect, create, get_state

from quiltmaker.web.contract import StateChanged


def test_a_socket_sent_the_changes_holds_the_whole_state_after_every_move_and_undo(client: TestClient) -> None:
    game = create(client, mode="local", seed=4)
    changed_bytes, whole_bytes = 0, 0
    with connect(client, game["id"], game["token"]) as player, connect(client, game["id"]) as spectator, connect(client, game["id"]) as old:
        assert player.first["type"] == "state"  # the whole state on connecting
        assert spectator.hello(None)["seat"] is None  # asking for the changes (the page does; ``old`` does not)
        for turn in range(30):
            if turn % 7 == 6:
                assert player.intent("undo")["type"] == "ack"
            else:
                player.play_first_legal()
            spectator.wait_for(lambda s: s["version"] == player.state["version"])
            whole = get_state(client, game["id"])
            old.wait_for(lambda s: s["version"] == player.state["version"])
            assert player.state == whole and spectator.state == whole and old.state == whole, f"turn {turn}"
            assert "changed" not in old.received[-1], "a client that did not ask is sent the whole state"
            last = player.received[-1]
            assert "changed" in last, "a move is sent as what changed"
            StateChanged.model_validate_json(json.dumps(last["changed"]))  # the contract's
            changed_bytes += len(json.dumps(last["changed"]))
            whole_bytes += len(json.dumps({"type": "state", "state": whole}))
    assert changed_bytes < whole_bytes * 0.8, (changed_bytes, whole_bytes)  # (the later in a game, the smaller: docs/benchmarks.md)


def test_a_state_that_changes_nothing_is_not_sent_again(client: TestClient) -> None:
    game = create(client, mode="local", seed=4)
    server = client.app.state.server  # type: ignore[attr-defined]
    with connect(client, game["id"], game["token"]) as player, connect(client, game["id"]) as old:
        player.play_first_legal()
        old.wait_for(lambda s: s["version"] == player.state["version"])
        counts = len(player.received), len(old.received)
        client.portal.call(server.broadcast, server.games.cache[game["id"]])  # the same version again, nothing new in it
        assert player.hello(game["token"])["type"] == "welcome"  # (a reply: what was sent before it has come)
        assert [m["type"] for m in player.received[counts[0]:]] == ["welcome"], "nothing changed: nothing sent"
        old.ws.send_text('{"type": "hello", "token": null}')  # a client that did not ask is sent the whole state again
        assert [m["type"] for m in old.received[counts[1]:]] == [] and old.reply()["type"] == "welcome"
        assert [m["type"] for m in old.received[counts[1]:]] == ["state", "welcome"]
