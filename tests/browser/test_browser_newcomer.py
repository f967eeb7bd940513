"""What a newcomer's tryout on a desktop and a phone found (issue 22, item 6), each with the test that it is fixed.

Games are made over the HTTP API where the page that makes them is not what is
tested; the front page's form is filled in as a player would.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from browser_helpers import PHONE, Pages, Server, Turning, create, mouse_place, open_seat, placements, play_until, screenshot, synced_state

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`



def test_the_front_page_starts_a_newcomer_at_the_beginner_level_and_then_offers_the_last_one_played(pages: Pages) -> None:
    page = pages.open("newcomer")
    page.goto("/")
    expect(page.get_by_test_id("level")).to_have_value("beginner")
    page.get_by_test_id("level").select_option("strong")
    page.locator("#create-game").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    expect(page.locator("#player-0, #player-1").filter(has_text="quiltmaker strong")).to_have_count(1)
    page.goto("/")
    expect(page.get_by_test_id("level")).to_have_value("strong")
    pages.assert_no_script_errors()


def test_pass_and_play_names_its_players_as_the_empty_fields_say(pages: Pages) -> None:
    page = pages.open("pass-and-play")
    page.goto("/")
    page.locator("#mode").select_option("local")
    first, second = page.get_by_test_id("name-0"), page.get_by_test_id("name-1")
    expect(first).to_have_attribute("placeholder", "First player")
    expect(second).to_have_attribute("placeholder", "Second player")
    page.locator("#mode").select_option("online")
    expect(first).to_have_attribute("placeholder", "Host")
    expect(second).to_have_attribute("placeholder", "Guest")
    page.locator("#mode").select_option("local")
    page.locator("#create-game").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    expect(page.locator("#player-0 .player-name")).to_have_text("First player")
    expect(page.locator("#player-1 .player-name")).to_have_text("Second player")
    pages.assert_no_script_errors()


def test_notify_me_of_my_turn_is_offered_only_where_someone_else_moves(pages: Pages, server: Server) -> None:
    page = pages.open("settings", **PHONE)
    lesson = create(server, mode="lesson", lesson=1, names=["Ada"])
    local = create(server, mode="local", names=["Ada", "Gus"])
    ai = create(server, mode="ai", level="beginner", seat=0, names=["Ada", ""])
    for game, seat, offered in ((lesson, 0, False), (local, "both", False), (ai, 0, True)):
        open_seat(page, game["id"], game["token"], seat)
        expect(page.get_by_test_id("confirm-setting")).to_be_attached()
        notify = page.get_by_test_id("notify-setting")
        if offered:
            expect(notify).to_be_visible()
        else:
            expect(notify).to_be_hidden()
    pages.assert_no_script_errors()


def test_both_help_pages_teach_the_tie_break(pages: Pages, server: Server) -> None:
    page = pages.open("help")
    page.goto("/")
    expect(page.locator("#about-title + ul")).to_contain_text("on a tie, whoever reached the last space of the time track first wins")
    game = create(server, mode="ai", level="beginner", seat=0, names=["Ada", ""])
    open_seat(page, game["id"], game["token"], 0)
    expect(page.locator("#help-list")).to_contain_text("on a tie, whoever reached space 53 first wins, so a game is never drawn")
    pages.assert_no_script_errors()


def test_the_evaluation_graph_labels_sit_over_the_curve(pages: Pages, server: Server) -> None:
    """The labels saying who is winning where are drawn after the line, with a halo: the curve never hides them."""
    game = create(server, mode="local", seed=3, names=["Ada", "Gus"])
    play_until(server, game, lambda s: s["result"] is not None)
    page = pages.open("graph")
    open_seat(page, game["id"], game["token"], "both")
    graph = page.get_by_test_id("eval-graph")
    expect(graph).to_be_visible(timeout=120_000)
    order = graph.evaluate("svg => [...svg.children].map(n => n.getAttribute('class') || n.tagName)")
    line = order.index("eval-line")
    labels = [i for i, name in enumerate(order) if "side-label" in name]
    assert len(labels) == 2 and min(labels) > line, order
    screenshot(page, "newcomer-graph")
    pages.assert_no_script_errors()


def test_a_first_turn_reads_without_jargon_on_a_desktop(pages: Pages, server: Server) -> None:
    """The start's large negative score explains itself, Undo waits for a move to take back, two tokens on one
    space both show their number, and after a purchase the neutral token and the message say what happened in words."""
    page = pages.open("first-turn")
    # Pass-and-play, so that no reply of the computer's replaces the message before it is read.
    game = create(server, mode="local", seed=4, names=["Ada", "Gus"])
    open_seat(page, game["id"], game["token"], "both")
    state = synced_state(server, page)
    rows = state["score_breakdown"][0]
    expect(page.get_by_test_id("score-explained-0")).to_have_text(
        f"Score now: {rows['buttons']} buttons − {-rows['penalty']} for {rows['empty']} empty squares = −{-rows['total']}"
    )
    expect(page.get_by_test_id("undo")).to_be_hidden()  # nothing of the player's to take back yet
    tokens = [page.get_by_test_id(f"token-{seat}").bounding_box() for seat in (0, 1)]
    assert tokens[0] and tokens[1] and state["times"] == [0, 0]
    overlap = min(tokens[0]["y"] + tokens[0]["height"], tokens[1]["y"] + tokens[1]["height"]) - max(tokens[0]["y"], tokens[1]["y"])
    assert overlap <= 0.3 * tokens[0]["height"], f"two tokens on one space hide each other: {tokens}"
    patch, transform, anchor = placements(state)[0]
    move = mouse_place(page, server, 0, patch, transform, anchor, Turning())
    expect(page.get_by_test_id("message")).to_contain_text(f"Played: Place patch {patch} at ")
    assert "@" not in (page.get_by_test_id("message").text_content() or ""), "the message speaks words, not notation"
    expect(page.locator(".neutral-taken")).to_have_text(f"took #{patch}")
    expect(page.get_by_test_id("neutral-token")).to_have_attribute("aria-label", re.compile(rf"Ada took patch {patch} from here"))
    expect(page.get_by_test_id("undo")).to_be_visible()
    assert server.state(game["id"])["moves"][0]["move"] == move
    pages.assert_no_script_errors()


def test_a_touch_screen_is_spoken_to_in_taps(pages: Pages, server: Server) -> None:
    page = pages.open("touch-words", **PHONE)
    game = create(server, mode="ai", level="beginner", seat=0, names=["Ada", ""])
    open_seat(page, game["id"], game["token"], 0)
    help_list = page.locator("#help-list")
    expect(help_list).to_contain_text("tap a patch on offer (or drag it onto your quilt)")
    expect(help_list).not_to_contain_text("right-click")
    pages.assert_no_script_errors()
