"""The replay that teaches (issue 22): every move classed, each player's accuracy, the better move shown in view, playing on.

A game the player lost to the AI is opened at a desktop's size and at a phone's
(390x844, touch); choosing a marked move draws the better move on the board,
which must then be in the viewport with the note that explains it, and "Play on
from here" starts a game against the AI from that very position.
"""

from __future__ import annotations

import math
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import PHONE, Pages, Server, a_new_tap, accessibility_violations, create, open_seat, play_until, screenshot
from web_helpers import poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

SIZES = {"desktop": {}, "phone": PHONE}


@pytest.fixture(scope="module")
def lost_game(server: Server) -> dict[str, Any]:
    """A game against the beginner, its first legal move every time (it loses), played to its end and analysed."""
    created = create(server, mode="ai", level="beginner", seat=0, seed=3)
    # The human's turns only (the computer answers by itself), until the game ends.
    state = play_until(server, created, lambda s: s["result"] is not None, seat=created["seat"], messages=2000, timeout=60)
    url = f"{server.url}/api/games/{created['id']}/analysis"
    analysis = poll(lambda: (r := httpx.get(url, timeout=30)).status_code == 200 and r.json(), 180, what="the analysis")
    return {**created, "state": state, "analysis": analysis}


def in_view(page: Page, selector: str) -> bool:
    """Whether every match lies wholly inside the viewport."""
    size = page.viewport_size
    assert size
    boxes = [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]
    return bool(boxes) and all(
        b is not None
        and b["y"] >= 0
        and b["y"] + b["height"] <= size["height"]
        and b["x"] >= 0
        and b["x"] + b["width"] <= size["width"]
        for b in boxes
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_marked_move_chosen_shows_the_better_move_on_the_board_in_view_and_plays_on(
    pages: Pages, server: Server, lost_game: dict[str, Any], size: str
) -> None:
    analysis, total = lost_game["analysis"], len(lost_game["state"]["moves"])
    assert lost_game["state"]["result"]["winner"] == 1, "the first legal move every time loses to the beginner"
    page = pages.open(f"review-{size}", **SIZES[size])
    open_seat(page, lost_game["id"], lost_game["token"], 0)
    table = page.get_by_test_id("review-table")
    expect(table).to_be_visible(timeout=180_000)

    # Each player's accuracy and points lost, as the server counted them (the page counts nothing).
    for column, summary in enumerate(analysis["players"], start=2):
        expect(table.locator(f"tbody tr:nth-child(1) td:nth-child({column})")).to_have_text(
            f"{math.floor(summary['accuracy'] + 0.5)}%"
        )
        expect(table.locator(f"tbody tr:nth-child(2) td:nth-child({column})")).to_have_text(f"{summary['points_lost']:.1f}")
        counts = f"{summary['inaccuracies']}, {summary['mistakes']}, {summary['blunders']}"
        expect(table.locator(f"tbody tr:nth-child(3) td:nth-child({column})")).to_have_text(counts)
    # Every marked move of both players is listed, inaccuracies too.
    judgements = analysis["judgements"]
    assert {j["label"] for j in judgements} <= {"inaccuracy", "mistake", "blunder"}
    expect(page.locator("[data-testid=judgements] li")).to_have_count(len(judgements))

    # The marked move that lost the most points (with squares to draw), chosen from the list.
    marked = max((j for j in judgements if j["better_cells"]), key=lambda j: j["points"])
    button = page.get_by_test_id(f"judgement-{marked['ply']}")
    button.scroll_into_view_if_needed()
    (button.tap if size == "phone" else button.click)()  # by touch on the phone
    expect(page.locator("#replay-position")).to_have_text(
        ("start" if marked["ply"] == 1 else f"move {marked['ply'] - 1}") + f" of {total}"
    )
    note = page.get_by_test_id("judgement-note")
    expect(note).to_contain_text(marked["cost"])
    cells = f"[data-testid=quilt-{marked['player']}] [data-testid=better-mark] .overlay-cell"
    expect(page.locator(cells)).to_have_count(len(marked["better_cells"]))
    # The better move on the board, and the note that explains it, both in view once the page settles.
    # On a desktop the review sits beside the quilts, so the turning point clicked stays in view as well.
    wanted = [cells, "[data-testid=judgement-note]", *([f"[data-testid=judgement-{marked['ply']}]"] if size == "desktop" else [])]
    try:
        poll(lambda: all(in_view(page, selector) for selector in wanted), 10, what="the better move and its note in view")
    except AssertionError:
        boxes = {selector: page.locator(selector).first.bounding_box() for selector in wanted}
        raise AssertionError(f"not all in view at scrollY {page.evaluate('scrollY')}: {boxes}") from None
    if size == "phone":
        # On a phone the quilt with the better move is drawn large.
        expect(page.locator(f".player:has([data-testid=quilt-{marked['player']}])")).to_have_class(re.compile(r"\bfront\b"))
    expect(button).to_be_focused()
    screenshot(page, f"review-{size}-better-move", full_page=False)
    assert accessibility_violations(page) == []

    # "What if": a new game against the AI from the position before the marked move, the same board.
    play_on = page.get_by_test_id("play-on")
    if size == "phone":
        a_new_tap(page)
        play_on.tap()
    else:
        play_on.click()
    page.wait_for_url(re.compile(r"/game/(?!" + re.escape(lost_game["id"]) + r"$)[^/?]+$"))
    expect(page.get_by_test_id("version")).to_have_text(re.compile(r"^v\d+$"))
    played_on = page.url.rsplit("/", 1)[1]
    state = server.state(played_on)
    source = httpx.get(f"{server.url}/api/games/{lost_game['id']}/positions", timeout=30).json()["positions"][marked["ply"] - 1]
    assert state["position"] == source["position"] and state["quilts"] == source["quilts"]
    assert state["mode"] == "ai" and state["ai"]["level"] == "beginner" and state["result"] is None
    assert state["to_move"] == marked["player"]  # seated to play the better move
    expect(page.get_by_test_id("turn")).to_contain_text("Your turn")
    screenshot(page, f"review-{size}-played-on", full_page=False)
    assert accessibility_violations(page) == []
    pages.assert_no_script_errors()
