"""Rated games in the browser: the lobby's rated choice, both ratings after the game, the profile and the leaderboard."""

from __future__ import annotations

import re

from browser_helpers import PHONE, Pages, Server, accessibility_violations, screenshot, sign_up_in_lobby
from playwright.sync_api import Page, expect



def advance(page: Page) -> None:
    """Advance by the button, confirming when the page asks (online games confirm by default)."""
    page.get_by_test_id("advance").click()
    confirm = page.get_by_test_id("confirm-move")
    confirm.wait_for(state="visible")
    confirm.click()


def test_a_rated_game_between_two_accounts_moves_both_ratings_and_fills_the_profile(pages: Pages, server: Server) -> None:
    ada = pages.open("ada")
    page = ada
    page.goto("/")
    page.get_by_test_id("mode").select_option("online")
    page.get_by_test_id("clock").select_option("5+3")
    expect(page.locator("#rated-hint")).to_have_text("Sign in to play rated games.")
    expect(page.get_by_test_id("rated")).to_be_hidden()
    sign_up_in_lobby(ada, "Ada")
    bob = pages.open("bob", **PHONE)
    sign_up_in_lobby(bob, "Bob")
    ada.get_by_test_id("mode").select_option("online")
    ada.get_by_test_id("clock").select_option("")
    expect(ada.get_by_test_id("rated")).to_be_hidden()  # no clock, no rating
    ada.get_by_test_id("clock").select_option("5+3")
    ada.get_by_test_id("rated").check()
    ada.get_by_test_id("seat").select_option("0")
    ada.get_by_test_id("create-game").click()
    ada.wait_for_url(re.compile(r"/game/[^/?]+$"))
    expect(ada.get_by_test_id("game-title")).to_contain_text("rated (real-time)")
    invite = ada.get_by_test_id("invite-link").get_attribute("href")
    assert invite
    bob.goto(invite)
    expect(bob.get_by_test_id("game-title")).to_contain_text("Ada vs Bob")
    advance(ada)
    expect(bob.get_by_test_id("advance")).to_be_enabled()
    advance(bob)
    expect(ada.get_by_test_id("resign")).to_be_visible()
    server.forget_addresses()  # Ada and Bob in two places
    ada.get_by_test_id("resign").click()
    ada.locator("#ending-yes").click()
    for page in (ada, bob):
        expect(page.get_by_test_id("rating-changes")).to_have_text("Ada 1500 → 1338 (−162) · Bob 1500 → 1662 (+162)")
    screenshot(bob, "ratings-01-result-phone")
    bob.goto("/player/Bob")
    expect(bob.get_by_test_id("rating-realtime")).to_contain_text("1662?")
    expect(bob.get_by_test_id("rating-realtime")).to_contain_text("1 rated game · provisional")
    # One game is a line from where it began (1500) to where it ended, not a lone dot.
    expect(bob.get_by_test_id("rating-history").locator("circle")).to_have_count(2)
    ends = bob.get_by_test_id("rating-history").locator("circle").evaluate_all("cs => cs.map(c => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))])")
    assert ends[0][0] < ends[1][0] and ends[0][1] > ends[1][1], f"the line rises from 1500 to 1662: {ends}"
    expect(bob.get_by_test_id("played")).to_contain_text("against Ada · won by resignation · 5 minutes + 3 seconds a move · rated +162")
    assert accessibility_violations(bob) == []
    screenshot(bob, "ratings-02-profile-phone")
    ada.goto("/")
    board = ada.get_by_test_id("leaderboard-list")
    expect(board.locator("li")).to_have_count(5)  # nobody established yet: the levels alone
    expect(board.locator("li").first).to_contain_text("quiltmaker max")
    ada.get_by_role("button", name="Correspondence").click()
    expect(ada.get_by_role("button", name="Correspondence")).to_have_attribute("aria-pressed", "true")
    expect(ada.locator("#level option[value='casual']")).to_have_text(re.compile(r"casual \(rated \d+\)"))
    ada.get_by_test_id("profile-link").click()
    expect(ada.get_by_test_id("player-title")).to_have_text("Ada")
    pages.assert_no_script_errors()


def test_a_profile_shows_fifty_games_and_the_rest_on_asking(pages: Pages, server: Server) -> None:
    page = pages.open("many", **PHONE)
    sign_up_in_lobby(page, "Many")
    for seed in range(55):
        made = page.request.post("/api/games", data={"mode": "ai", "level": "beginner", "seat": 0, "seed": seed}, headers={"Origin": server.url})
        assert made.ok, made.text()
    page.goto("/player/Many")
    games = page.get_by_test_id("played").locator("li")
    expect(games).to_have_count(50)
    page.get_by_test_id("more-games").click()
    expect(games).to_have_count(55)
    expect(page.get_by_test_id("more-games")).to_be_hidden()
    pages.assert_no_script_errors()
