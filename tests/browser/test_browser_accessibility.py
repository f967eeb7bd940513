"""axe-core on every screen a player sees: no serious or critical violation.

axe-core comes from npm (package.json; `make test` runs `npm ci`) and is
injected into the page under test.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from browser_helpers import Pages, Server, accessibility_violations, ghost, screenshot
from web_helpers import first_legal_move, poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`


def hold_seat(page: Page, game: dict[str, Any], seat: int | str) -> None:
    page.goto("/")
    page.evaluate(
        "([id, entry]) => localStorage.setItem('quiltmaker.games', JSON.stringify({[id]: entry}))",
        [game["id"], {"token": game["token"], "seat": seat}],
    )


def finished(server: Server) -> dict[str, Any]:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 11, "names": ["Ada", "Grace"]}).json()
    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game['id']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        for number in range(600):
            reply = json.loads(ws.recv(timeout=30))
            if reply["type"] == "state":
                if reply["state"]["result"] is not None:
                    return game
                state = reply["state"]
                ws.send(json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"], "id": str(number)}))
    raise AssertionError("the game did not end")


def test_the_lobby_has_no_serious_violation(pages: Pages) -> None:
    page = pages.open("lobby")
    page.goto("/")
    page.locator("#level option").first.wait_for(state="attached")
    assert accessibility_violations(page) == []


def test_a_game_in_play_has_no_serious_violation(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "ai", "level": "beginner", "seat": 0, "seed": 4}).json()
    page = pages.open("player")
    hold_seat(page, game, 0)
    page.goto(f"/game/{game['id']}")
    offer = page.locator(".offer.affordable").first
    expect(offer).to_be_visible()
    assert accessibility_violations(page) == []
    offer.click()  # with a patch in hand: the ghost, the hold controls
    poll(lambda: ghost(page), 10, what="the patch in hand")
    assert accessibility_violations(page) == []


def test_the_end_of_a_game_and_its_replay_have_no_serious_violation(pages: Pages, server: Server) -> None:
    game = finished(server)
    page = pages.open("player")
    hold_seat(page, game, "both")
    page.goto(f"/game/{game['id']}")
    expect(page.get_by_test_id("result")).to_be_visible()
    assert accessibility_violations(page) == []
    expect(page.get_by_test_id("eval-caption")).to_be_visible(timeout=180_000)
    page.get_by_test_id("replay-first").click()
    expect(page.get_by_test_id("replay-banner")).to_be_visible()
    screenshot(page, "a11y-00-replay")
    assert accessibility_violations(page) == []


def test_an_unknown_game_has_no_serious_violation(pages: Pages) -> None:
    page = pages.open("lost")
    page.goto("/game/no-such-game-here")
    expect(page.get_by_test_id("missing")).to_be_visible()
    assert accessibility_violations(page) == []
