"""The lobby in the browser: a challenge offered and accepted live, a quick match paired, and the computer when nobody comes."""

from __future__ import annotations

import re

from browser_helpers import PHONE, Pages, screenshot, sign_up_in_lobby
from playwright.sync_api import expect

GAME_PAGE = re.compile(r"/game/[^/?]+$")


def test_a_challenge_offered_in_the_lobby_appears_live_for_another_player_who_accepts_it(pages: Pages) -> None:
    ada, bob = pages.open("ada"), pages.open("bob", **PHONE)
    sign_up_in_lobby(ada, "Hana")
    sign_up_in_lobby(bob, "Gus")
    expect(bob.get_by_test_id("challenge-list")).to_contain_text("No open challenges")
    ada.get_by_test_id("mode").select_option("online")
    ada.get_by_test_id("offer").select_option("open")
    expect(ada.locator("#offer-hint")).to_have_text("A challenge in the lobby needs a clock.")
    ada.get_by_test_id("clock").select_option("10+5")
    expect(ada.locator("#offer-hint")).to_be_hidden()
    ada.get_by_test_id("within").select_option("200")
    ada.get_by_test_id("seat").select_option("0")
    ada.get_by_test_id("create-game").click()
    ada.wait_for_url(GAME_PAGE)
    # Gus's lobby was open all along: the challenge comes to it by itself.
    accept = bob.locator("[data-testid^='accept-']")
    expect(accept).to_be_visible()
    expect(bob.get_by_test_id("challenge-list")).to_contain_text("Hana (1500) · 10 minutes + 5 seconds a move · casual · ratings ±200")
    screenshot(bob, "lobby-01-challenge-phone")
    accept.click()
    bob.wait_for_url(GAME_PAGE)
    expect(bob.get_by_test_id("game-title")).to_contain_text("Hana vs Gus")
    expect(ada.locator("#turn")).to_contain_text("Your turn")
    bob.goto("/")
    expect(bob.get_by_test_id("playing-list")).to_contain_text("Hana vs Gus")
    expect(bob.get_by_test_id("online-now")).to_contain_text("Gus")
    pages.assert_no_script_errors()


def test_two_players_asking_for_a_quick_match_are_paired_and_the_computer_is_offered_when_nobody_comes(pages: Pages) -> None:
    first, second = pages.open("first"), pages.open("second")
    for page in (first, second):
        page.goto("/")
        page.get_by_test_id("quick-clock").select_option("5+3")
    expect(first.get_by_test_id("quick-rated")).to_be_hidden()  # guests play casual games
    first.get_by_test_id("quick-start").click()
    expect(first.get_by_test_id("quick-waiting")).to_contain_text("Looking for an opponent rated")
    second.get_by_test_id("quick-start").click()
    for page in (first, second):
        page.wait_for_url(GAME_PAGE)
        expect(page.get_by_test_id("game-title")).to_contain_text("5 minutes + 3 seconds a move")
    assert first.url == second.url, "one game, a seat each"
    alone = pages.open("alone", **PHONE)
    alone.goto("/")
    alone.get_by_test_id("quick-start").click()
    offer = alone.get_by_test_id("quick-computer")
    expect(offer).to_be_visible(timeout=40_000)
    expect(offer).to_have_text(re.compile(r"Nobody yet: play quiltmaker \w+ \(rated \d+\) instead"))
    screenshot(alone, "lobby-02-computer-offered-phone", full_page=False)
    offer.click()
    alone.wait_for_url(GAME_PAGE)
    expect(alone.get_by_test_id("game-title")).to_contain_text("against quiltmaker")
    expect(alone.get_by_test_id("game-title")).to_contain_text("10 minutes + 5 seconds a move")
    pages.assert_no_script_errors()


def test_a_quick_match_cannot_be_asked_for_before_the_clocks_have_come(pages: Pages) -> None:
    """On a slow line the card shows before the catalogue: "Find an opponent" waits for a clock to ask for."""
    page = pages.open("slow")
    held: list = []
    page.route("**/api/catalogue", lambda route: held.append(route))
    page.goto("/")
    expect(page.get_by_test_id("quick-start")).to_be_disabled()
    expect(page.get_by_test_id("quick-clock")).to_have_value("")
    held[0].continue_()
    expect(page.get_by_test_id("quick-start")).to_be_enabled()
    expect(page.get_by_test_id("quick-clock")).to_have_value("10+5")
    pages.assert_no_script_errors()


def test_the_lobby_follows_signing_in_and_out_without_a_reload(pages: Pages) -> None:
    """A rated challenge a guest may not accept becomes acceptable once they sign up, and not once they sign out;
    "Online now" names them while they are signed in: the lobby's socket is opened again as who is signed in changes."""
    ada, gus = pages.open("ada"), pages.open("gus")
    sign_up_in_lobby(ada, "Ines")
    gus.goto("/")
    ada.get_by_test_id("mode").select_option("online")
    ada.get_by_test_id("offer").select_option("open")
    ada.get_by_test_id("clock").select_option("10+5")
    ada.get_by_test_id("rated").check()
    ada.get_by_test_id("create-game").click()
    ada.wait_for_url(GAME_PAGE)
    challenges = gus.get_by_test_id("challenge-list")
    expect(challenges).to_contain_text("sign in to play rated games")
    expect(gus.locator("[data-testid^='accept-']")).to_have_count(0)
    gus.get_by_test_id("account-name").fill("Olaf")  # on the page as it is: no reload
    gus.get_by_test_id("account-password").fill("correct horse")
    gus.get_by_test_id("sign-up").click()
    expect(gus.locator("[data-testid^='accept-']")).to_be_visible()
    expect(challenges).not_to_contain_text("sign in to play rated games")
    expect(gus.get_by_test_id("online-now")).to_contain_text("Olaf")
    expect(gus.get_by_test_id("account-shown")).to_have_text("Olaf")
    gus.get_by_test_id("sign-out").click()
    expect(gus.get_by_test_id("account-message")).to_contain_text("Signed out")
    expect(gus.locator("[data-testid^='accept-']")).to_have_count(0)
    expect(challenges).to_contain_text("sign in to play rated games")
    expect(gus.get_by_test_id("rated-field")).to_be_hidden()
    pages.assert_no_script_errors()
