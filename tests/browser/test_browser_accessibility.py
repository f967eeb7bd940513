"""axe-core on every screen a player sees: no serious or critical violation.

axe-core comes from npm (package.json; `make test` runs `npm ci`) and is
injected into the page under test.
"""

from __future__ import annotations


import pytest
from playwright.sync_api import expect

from browser_helpers import Pages, Server, accessibility_violations, create, ghost, open_seat, play_until, screenshot
from web_helpers import poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`


def test_the_lobby_has_no_serious_violation(pages: Pages) -> None:
    page = pages.open("lobby")
    page.goto("/")
    page.locator("#level option").first.wait_for(state="attached")
    assert accessibility_violations(page) == []


def test_a_game_in_play_has_no_serious_violation(pages: Pages, server: Server) -> None:
    game = create(server, mode="ai", level="beginner", seat=0, seed=4)
    page = pages.open("player")
    open_seat(page, game["id"], game["token"], 0)
    offer = page.locator(".offer.affordable").first
    expect(offer).to_be_visible()
    assert accessibility_violations(page) == []
    offer.click()  # with a patch in hand: the ghost, the hold controls
    poll(lambda: ghost(page), 10, what="the patch in hand")
    assert accessibility_violations(page) == []


def test_the_end_of_a_game_and_its_replay_have_no_serious_violation(pages: Pages, server: Server) -> None:
    game = create(server, mode="local", seed=11, names=["Ada", "Grace"])
    play_until(server, game, lambda state: state["result"] is not None)
    page = pages.open("player")
    open_seat(page, game["id"], game["token"], "both")
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
