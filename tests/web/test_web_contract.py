"""The contract with the page (quiltmaker.web.contract): its models, the page's generated types, and what the page is sent in place of rules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from web_client import Player, connect, create, get_state

from quiltmaker.core.moves import Move, square_name
from quiltmaker.web import contract

ROOT = Path(__file__).resolve().parents[2]
TYPES = ROOT / "quiltmaker" / "web" / "static" / "contract.d.ts"


def test_the_pages_types_are_generated_from_the_contract_as_it_stands() -> None:
    """static/contract.d.ts is what `make types` makes of the models now: a changed message fails until it is remade."""
    schema = subprocess.run([sys.executable, "-m", "quiltmaker.web.contract"], capture_output=True, text=True, check=True).stdout
    assert schema == contract.schema_text()
    if not (ROOT / "node_modules" / ".bin" / "json2ts").exists():
        pytest.fail("the page's tooling is not installed: run `npm ci` (make test does)")
    made = subprocess.run([str(ROOT / "scripts" / "page-types.sh")], input=schema, capture_output=True, text=True, check=True).stdout
    assert made == TYPES.read_text(encoding="utf-8"), "static/contract.d.ts is out of date: run `make types`"
    for message in ("GameState", "Catalogue", "Lobby", "Profile", "Replay", "Hint", "Welcome"):
        assert f"export interface {message} {{" in made


def test_a_message_that_breaks_the_contract_is_not_sent(client: TestClient) -> None:
    """A field the models do not know, or one missing, is an error on the server, not a surprise in the page."""
    state = get_state(client, create(client, mode="local", seed=3)["id"])
    assert contract.wire({"type": "state", "state": state})  # as sent
    with pytest.raises(ValidationError, match="extra_field"):
        contract.wire({"type": "state", "state": {**state, "extra_field": 1}})
    with pytest.raises(ValidationError, match="rematch_seats"):
        contract.wire({"type": "state", "state": {k: v for k, v in state.items() if k != "rematch_seats"}})
    with pytest.raises(ValidationError):
        contract.wire({"type": "no such message"})


def test_a_state_is_sent_as_its_own_json_and_the_check_finds_what_breaks_the_contract(client: TestClient) -> None:
    """The text of a state is the state's JSON whether or not it was checked (a service skips the check), so the
    check the tests run is of the very text a service sends."""
    state = get_state(client, create(client, mode="local", seed=3)["id"])
    contract.check_state(state)
    sent = contract.StateMessage.model_validate_json(contract.state_text(state))
    assert sent.state.model_dump(by_alias=True) == state
    with pytest.raises(ValidationError, match="extra_field"):
        contract.check_state({**state, "extra_field": 1})
    with pytest.raises(ValidationError, match="to_move"):
        contract.check_state({**state, "to_move": "0"})  # (strict: a seat is a number)


def test_the_catalogue_names_every_square_as_the_core_does(client: TestClient) -> None:
    squares = client.get("/api/catalogue").json()["squares"]
    assert [[square_name(row, col) for col in range(9)] for row in range(9)] == squares
    assert squares[4][4] == "e5"


def _play(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    return player.send({"type": "move", "version": player.state["version"], **message})


def test_a_placement_is_the_move_the_core_names(client: TestClient) -> None:
    """The page sends {patch, orientation, row, col}; the server plays Move.place's move, and says why not as for its text."""
    game = create(client, mode="local", seed=4)
    with connect(client, game["id"], game["token"]) as player:
        buy = next(b for b in player.state["legal"]["buys"] if any(o["anchors"] for o in b["orientations"]))
        orientation = next(o for o in buy["orientations"] if o["anchors"])
        anchor = orientation["anchors"][-1]
        placement = {"patch": buy["patch"], "orientation": orientation["transform"], "row": anchor // 9, "col": anchor % 9}
        for wrong, why in (
            ({**placement, "row": "1"}, "whole numbers"),
            ({**placement, "orientation": "R9"}, "not an orientation"),
            ({**placement, "row": 9}, "not a square|leave the quilt"),
            ({"patch": buy["patch"]}, "'placement' is an object"),
            ([], "'placement' is an object"),
            ({**placement, "row": True}, "whole numbers"),
            ({**placement, "extra": 1}, "'placement' is an object"),
        ):
            reply = _play(player, {"placement": wrong})
            assert reply["type"] == "error" and reply["code"] == "malformed", reply
            assert re.search(why, reply["message"]), reply
        both = _play(player, {"placement": placement, "move": "A"})
        assert both["code"] == "malformed" and "not several" in both["message"], both
        special = _play(player, {"special": {"row": 0, "col": 0}})
        assert special["code"] == "illegal" and "S@a1" in special["message"], "a special square is the core's move, refused by the rules"
        assert get_state(client, game["id"])["version"] == 0, "a refused placement changes nothing"
        assert _play(player, {"placement": placement})["type"] == "ack"
        state = player.wait_for(lambda s: s["version"] == 1)
    expected = Move.place(placement["patch"], placement["orientation"], placement["row"], placement["col"])
    assert state["moves"][0]["move"] == expected.text()


def test_a_placement_out_of_turn_hears_so_before_it_is_read(client: TestClient) -> None:
    """The turn is checked first, however the move is written: a waiting game says it waits, not that the move is malformed."""
    game = create(client, mode="online", seat=0, seed=2)
    with connect(client, game["id"], game["token"]) as player:
        reply = _play(player, {"placement": {"patch": 999, "orientation": "R9", "row": -1, "col": 0}})
    assert reply["code"] == "not_allowed" and "invitation" in reply["message"], reply


def test_the_state_says_who_moves_first_on_a_shared_space_and_where_each_seat_goes_in_a_rematch(client: TestClient) -> None:
    online = get_state(client, create(client, mode="online", seat=0, seed=1)["id"])
    assert online["times"] == [0, 0] and online["shared_space"] == {"on_top": online["on_top"], "moves_first": True}
    assert online["rematch_seats"] == [1, 0], "online and against the AI each player keeps their token and the seats swap"
    local = get_state(client, create(client, mode="local", seed=1)["id"])
    assert local["rematch_seats"] == [0, 1], "pass-and-play keeps its seats (the players trade names)"
    assert local["rematch_first"] == local["names"][1] and online["rematch_first"] == online["names"][1], "who moved second starts"
