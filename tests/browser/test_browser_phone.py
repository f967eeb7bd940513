"""The game on a phone: a 390x844 touch screen holds the quilt, the patches on offer and the action at once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import Pages, Server, aim_square, ghost, screenshot, square_centre, synced_state, version, wait_above
from web_helpers import poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def on_screen(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844 and box["x"] >= 0 and box["x"] + box["width"] <= 390


def open_ai_game(pages: Pages, server: Server) -> tuple[Page, dict[str, Any]]:
    game: dict[str, Any] = httpx.post(
        f"{server.url}/api/games", json={"mode": "ai", "level": "beginner", "seat": 0, "seed": 4}, timeout=30
    ).json()
    page = pages.open("phone", **PHONE)
    page.goto("/")
    page.evaluate(
        "([id, entry]) => localStorage.setItem('quiltmaker.games', JSON.stringify({[id]: entry}))",
        [game["id"], {"token": game["token"], "seat": game["seat"]}],
    )
    page.goto(f"/game/{game['id']}")
    expect(page.locator(".offer.affordable").first).to_be_visible()
    return page, game


def test_one_phone_screen_holds_the_quilt_the_offers_and_the_action(pages: Pages, server: Server) -> None:
    page, _ = open_ai_game(pages, server)
    for selector in (".player.mine .quilt-board", ".offer", "#advance", "#turn"):
        assert on_screen(page, selector), selector
    # Panels line up: each as wide as the page, none wider than the screen.
    widths = page.eval_on_selector_all(".game .panel", "nodes => nodes.filter(n => n.offsetParent).map(n => Math.round(n.getBoundingClientRect().width))")
    assert len(set(widths)) == 1 and widths[0] <= 390, widths
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "phone-00-start", full_page=False)
    pages.assert_no_script_errors()


def test_tap_to_pick_and_tap_to_place_needs_no_scrolling(pages: Pages, server: Server) -> None:
    page, game = open_ai_game(pages, server)
    state = synced_state(server, page)
    seat = game["seat"]
    buy = next(b for b in state["legal"]["buys"] if b["affordable"] and b["orientations"][0]["anchors"])
    orientation = buy["orientations"][0]  # the page picks a patch up in the first orientation that fits
    anchor = orientation["anchors"][len(orientation["anchors"]) // 2]
    page.get_by_test_id(f"offer-{buy['patch']}").tap()
    poll(lambda: ghost(page), 10, what="the patch in hand")
    row, col = aim_square(server, buy["patch"], orientation["transform"], anchor)
    x, y = square_centre(page, seat, row, col)
    page.touchscreen.tap(x, y)  # the first tap shows where it would go
    expected = f"{buy['patch']}{orientation['transform']}@"
    poll(lambda: (g := ghost(page)) and g[0].startswith(expected) and g[1] == "true", 10, what="a green ghost under the finger")
    screenshot(page, "phone-01-patch-in-hand", full_page=False)
    before = version(page)
    page.touchscreen.tap(x, y)  # the second, on the same place, sews it
    wait_above(page, before)
    played = server.state(game["id"])["moves"][0]["move"]
    assert played.startswith(expected), played
    assert page.evaluate("window.scrollY") == 0, "placing a patch must not need scrolling"
    pages.assert_no_script_errors()


def test_a_patch_dragged_by_touch_onto_the_quilt_is_sewn_where_the_finger_lifts(pages: Pages, server: Server) -> None:
    """A finger on an offer, moved onto the quilt and lifted: Chromium's own touch events (as a phone sends them)."""
    page, game = open_ai_game(pages, server)
    state = synced_state(server, page)
    seat = game["seat"]
    buy = next(b for b in state["legal"]["buys"] if b["affordable"] and b["orientations"][0]["anchors"])
    orientation = buy["orientations"][0]
    anchor = orientation["anchors"][len(orientation["anchors"]) // 2]
    offer = page.get_by_test_id(f"offer-{buy['patch']}").bounding_box()
    assert offer
    row, col = aim_square(server, buy["patch"], orientation["transform"], anchor)
    x, y = square_centre(page, seat, row, col)
    touch = page.context.new_cdp_session(page)

    def finger(kind: str, at: tuple[float, float] | None) -> None:
        points = [] if at is None else [{"x": at[0], "y": at[1], "id": 1}]
        touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    start = (offer["x"] + offer["width"] / 2, offer["y"] + offer["height"] / 2)
    finger("touchStart", start)
    for step in range(1, 11):
        finger("touchMove", (start[0] + (x - start[0]) * step / 10, start[1] + (y - start[1]) * step / 10))
    expected = f"{buy['patch']}{orientation['transform']}@"
    poll(lambda: (g := ghost(page)) and g[0].startswith(expected) and g[1] == "true" or None, 10, what="a green ghost under the finger")
    screenshot(page, "phone-02-touch-drag", full_page=False)
    shown = ghost(page)
    assert shown is not None
    before = version(page)
    finger("touchEnd", None)
    wait_above(page, before)
    played = server.state(game["id"])["moves"][0]["move"]
    # Under a finger the patch is held a little above it, so that it stays in sight: it is sewn where it was shown.
    assert played == shown[0], (played, shown)
    assert page.evaluate("window.scrollY") == 0, "dragging a patch must not scroll the page"
    pages.assert_no_script_errors()
