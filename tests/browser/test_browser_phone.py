"""The game on a phone: a 390x844 touch screen holds the quilt, the patches on offer and the action at once."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import (
    PHONE,
    Pages,
    a_new_tap,
    on_screen,
    Server,
    acting_or_over,
    aim_square,
    ghost,
    message,
    move_text,
    open_seat,
    screenshot,
    square_centre,
    synced_state,
    tap_into_place,
    version,
    wait_above,
)
from web_helpers import poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

SMALL_PHONE = {**PHONE, "viewport": {"width": 360, "height": 740}}


def open_ai_game(pages: Pages, server: Server, phone: dict[str, Any] = PHONE, seed: int = 4) -> tuple[Page, dict[str, Any]]:
    game: dict[str, Any] = httpx.post(
        f"{server.url}/api/games", json={"mode": "ai", "level": "beginner", "seat": 0, "seed": seed}, timeout=30
    ).json()
    page = pages.open(f"phone-{phone['viewport']['width']}", **phone)
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
    assert_a_turn_in_view(page)
    # Panels line up: each as wide as the page, none wider than the screen; the two quilts share a row.
    widths = page.eval_on_selector_all(
        ".game .panel:not(.player)", "nodes => nodes.filter(n => n.offsetParent).map(n => Math.round(n.getBoundingClientRect().width))"
    )
    assert len(set(widths)) == 1 and widths[0] <= 390, widths
    mine, other = (quilt_box(page, seat) for seat in (0, 1))
    assert mine["width"] > 2 * other["width"], "this browser's quilt is drawn large, the other small"
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


def finger_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> Any:
    """A finger put down at `start` and moved to `end` (Chromium's own touch events); returns the lift."""
    touch = page.context.new_cdp_session(page)

    def finger(kind: str, at: tuple[float, float] | None) -> None:
        points = [] if at is None else [{"x": at[0], "y": at[1], "id": 1}]
        touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    finger("touchStart", start)
    for step in range(1, 11):
        finger("touchMove", (start[0] + (end[0] - start[0]) * step / 10, start[1] + (end[1] - start[1]) * step / 10))
    return lambda: finger("touchEnd", None)


def assert_a_turn_in_view(page: Page) -> None:
    """What a turn needs, on one screen: the track with both tokens, both quilts, the offers and the actions."""
    assert page.evaluate("window.scrollY") == 0, "the page scrolled during play"
    for selector in (
        "#turn",
        "[data-testid=last-move]",
        "[data-testid=track]",
        "[data-testid=token-0]",
        "[data-testid=token-1]",
        "[data-testid=quilt-0]",
        "[data-testid=quilt-1]",
        "#advance",
    ):
        assert on_screen(page, selector), f"{selector} is not in view"
    offers = page.locator(".offer")
    for index in range(offers.count()):
        assert on_screen(page, f".offer >> nth={index}"), f"offer {index + 1} is not in view"
    assert page.evaluate("document.documentElement.scrollWidth") <= (page.viewport_size or {"width": 0})["width"]


def quilt_box(page: Page, seat: int) -> dict[str, float]:
    box = page.get_by_test_id(f"quilt-{seat}").bounding_box()
    assert box
    return box


def buy_by_touch(page: Page, server: Server, state: dict[str, Any], seat: int, drag: bool) -> bool:
    """Buy a patch by a tap on the offer and two on the quilt (or by dragging it there); False when none fits."""
    buys = [b for b in state["legal"]["buys"] if b["affordable"] and b["orientations"][0]["anchors"]]
    if not buys:
        return False
    buy = buys[0]
    orientation = buy["orientations"][0]  # the page picks a patch up in its first orientation that fits
    anchor = orientation["anchors"][-1]
    target = square_centre(page, seat, *aim_square(server, buy["patch"], orientation["transform"], anchor))
    expected = move_text(buy["patch"], orientation["transform"], anchor)
    before_box, before = quilt_box(page, seat), version(page)
    offer = page.get_by_test_id(f"offer-{buy['patch']}")
    if drag:
        box = offer.bounding_box()
        assert box
        # A finger's patch is held 1.2 squares above it: aim that much lower.
        size = before_box["width"] / 9
        lift = finger_drag(page, (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2), (target[0], target[1] + 1.2 * size))
        poll(lambda: (g := ghost(page)) and g == (expected, "true") or None, 10, what=f"a green {expected} under the finger")
        assert quilt_box(page, seat) == before_box, "the quilt moved while a patch was held"
        lift()
    else:
        offer.tap()
        poll(lambda: ghost(page), 10, what="the patch in hand")
        assert quilt_box(page, seat) == before_box, "picking a patch up moved the quilt"
        assert on_screen(page, "#hold-controls")
        # The preview goes under the finger, and a tap on it sews it there; the quilt never moves meanwhile.
        tap_into_place(page, seat, expected, aim_square(server, buy["patch"], orientation["transform"], anchor), still=before_box)
    wait_above(page, before)
    assert server.state(state["id"])["moves"][len(state["moves"])]["move"] == expected
    return True


@pytest.mark.parametrize("phone", [PHONE, SMALL_PHONE], ids=["390x844", "360x740"])
def test_a_whole_game_by_touch_with_the_turn_in_view(pages: Pages, server: Server, phone: dict[str, Any]) -> None:
    """Every turn of a game against the AI played by touch (taps, drags, special patches, advancing), and at each
    turn the track, both quilts, the offers and the actions in view without scrolling; the other side's move is read at the top."""
    page, game = open_ai_game(pages, server, phone, seed=11)
    seat, turn, bought, dragged, specials = game["seat"], 0, 0, 0, 0
    width = phone["viewport"]["width"]
    while acting_or_over(page) == "acting":
        state = synced_state(server, page)
        assert_a_turn_in_view(page)
        last = state["moves"][-1] if state["moves"] else None
        if last and last["player"] != seat:
            expect(page.get_by_test_id("last-move")).to_contain_text(f"quiltmaker beginner {last['summary']}")
        if turn == 2:
            screenshot(page, f"phone-{width}-game-turn", full_page=False)
        before = version(page)
        if state["legal"]["specials"]:  # a special patch to sew: a tap on an empty square
            square = state["legal"]["specials"][-1]
            expect(page.get_by_test_id("special-banner")).to_contain_text("Tap any empty square of your quilt.")  # touch words
            a_new_tap(page)
            page.touchscreen.tap(*square_centre(page, seat, *square["cell"]))
            wait_above(page, before)
            specials += 1
        elif turn % 3 != 2 and buy_by_touch(page, server, state, seat, drag=turn % 3 == 1):
            bought += 1
            dragged += turn % 3 == 1
        else:
            a_new_tap(page)
            page.get_by_test_id("advance").tap()
            wait_above(page, before)
        turn += 1
        assert turn < 200, "the game did not end"
    assert page.evaluate("window.scrollY") == 0
    assert on_screen(page, "#turn"), "the result is said at the top"
    expect(page.get_by_test_id("turn")).to_contain_text("Game over")
    screenshot(page, f"phone-{width}-game-over", full_page=False)
    assert bought >= 3 and dragged >= 1 and specials >= 1, (bought, dragged, specials)
    pages.assert_no_script_errors()


LANDSCAPE = {**PHONE, "viewport": {"width": 844, "height": 390}}


def test_a_phone_on_its_side_keeps_the_quilt_in_view_while_the_offers_scroll(pages: Pages, server: Server) -> None:
    """Landscape: the quilt whole on the left, the turn and the track beside it; scrolling to the offers leaves the
    quilt where it is, and a patch bought by touch from there is sewn where it was tapped."""
    page, game = open_ai_game(pages, server, LANDSCAPE, seed=4)
    seat = game["seat"]
    for selector in (f"[data-testid=quilt-{seat}]", "#turn", "#advance", "[data-testid=track]", "[data-testid=token-0]", "[data-testid=token-1]"):
        assert on_screen(page, selector), f"{selector} is not in view"
    assert page.evaluate("document.documentElement.scrollWidth") <= 844
    page.locator(".offer").first.scroll_into_view_if_needed()
    for selector in (f"[data-testid=quilt-{seat}]", ".offer >> nth=0", ".offer >> nth=2"):
        assert on_screen(page, selector), f"{selector} is not in view once the offers are"
    state = synced_state(server, page)
    assert state["to_move"] == seat, "seed 4 gives the player the first move"
    assert buy_by_touch(page, server, state, seat, drag=False)
    screenshot(page, "phone-landscape", full_page=False)
    pages.assert_no_script_errors()


def test_a_lesson_by_touch_keeps_its_task_its_refusal_and_its_praise_in_view(pages: Pages, server: Server) -> None:
    """Lesson 1 on a phone: the step to do, the board and the action on one screen; a refused move says why
    there; and once it is done, the praise and the way on are at the top, without scrolling."""
    page = pages.open("lesson", **PHONE)
    lesson = httpx.post(f"{server.url}/api/games", json={"mode": "lesson", "lesson": 1, "names": ["Ada"]}, timeout=30).json()
    open_seat(page, lesson["id"], lesson["token"], 0)
    expect(page.get_by_test_id("lesson-task")).to_contain_text("Lesson 1: Buy one of the three patches")
    for selector in ("[data-testid=lesson-task]", "#advance", "[data-testid=quilt-0]", "[data-testid=track]", ".offer >> nth=2"):
        assert on_screen(page, selector), f"{selector} is not in view"
    state = synced_state(server, page)
    before = version(page)
    page.get_by_test_id("advance").tap()  # the lesson asks for a purchase
    expect(page.get_by_test_id("message")).to_contain_text("Not what this lesson asks")
    assert on_screen(page, "[data-testid=message]"), "the refusal is said where the player looks"
    assert version(page) == before
    screenshot(page, "phone-lesson-refused", full_page=False)
    assert buy_by_touch(page, server, state, 0, drag=False)
    expect(page.get_by_test_id("lesson-praise")).to_contain_text("Well done")
    assert page.evaluate("window.scrollY") == 0
    for selector in ("[data-testid=lesson-praise]", "[data-testid=next-lesson]"):
        assert on_screen(page, selector), f"{selector} is not in view once the lesson is done"
    screenshot(page, "phone-lesson-done", full_page=False)
    pages.assert_no_script_errors()


def test_a_preview_that_does_not_fit_is_never_sent_and_place_stays_off(pages: Pages, server: Server) -> None:
    """A red preview tapped on a phone is not sent (no "Place ...?" to confirm, no refusal worded by the rules for
    the log): the line says how to make it fit, the patch stays in hand, and Place is off while it does not fit."""
    page, game = open_ai_game(pages, server)
    seat = game["seat"]
    state = synced_state(server, page)
    buy = next(b for b in state["legal"]["buys"] if b["affordable"] and b["orientations"][0]["anchors"])
    orientation = buy["orientations"][0]
    anchor = orientation["anchors"][0]
    page.get_by_test_id(f"offer-{buy['patch']}").tap()
    poll(lambda: ghost(page), 10, what="the patch in hand")
    before = version(page)
    tap_into_place(page, seat, move_text(buy["patch"], orientation["transform"], anchor), aim_square(server, buy["patch"], orientation["transform"], anchor))
    wait_above(page, before)
    assert acting_or_over(page) == "acting"  # (the computer has moved: a square of this quilt is covered now)
    state = synced_state(server, page)
    covered = [(r, c) for r in range(9) for c in range(9) if state["quilts"][seat][r][c] is not None]
    buy = next(b for b in state["legal"]["buys"] if b["affordable"] and any(o["anchors"] for o in b["orientations"]))
    page.get_by_test_id(f"offer-{buy['patch']}").tap()
    poll(lambda: ghost(page), 10, what="the patch in hand")
    for row, col in covered:
        page.touchscreen.tap(*square_centre(page, seat, row, col))  # the preview moves under the finger
        shown = poll(lambda: ghost(page), 10, what="the preview")
        if shown[1] == "false":
            break
    else:
        raise AssertionError("the preview was never red over a covered square")
    expect(page.locator("#place")).to_be_disabled()
    before = version(page)
    box = page.get_by_test_id("ghost").bounding_box()
    assert box is not None
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # a tap on the red preview itself
    text, kind = poll(lambda: (m := message(page))[1] == "error" and m, 10, what="the line to say it does not fit")
    assert re.fullmatch(rf"Patch {buy['patch']} does not fit at [a-i][1-9]: move it until its preview turns green\.", text), text
    expect(page.get_by_test_id("confirm-move")).to_be_hidden()
    assert ghost(page) is not None, "the patch stays in hand"
    assert version(page) == before and server.state(game["id"])["version"] == before, "nothing was sent"
    screenshot(page, "phone-03-red-preview-not-sent", full_page=False)
    pages.assert_no_script_errors()
