"""An account from the lobby: a guest's game taken along at sign-up, and played from another browser signed in."""

from __future__ import annotations

import re

from browser_helpers import Pages, Server, accessibility_violations, create_in_lobby, screenshot
from playwright.sync_api import expect


def test_sign_up_takes_the_guest_game_along_and_another_browser_plays_it_signed_in(pages: Pages, server: Server) -> None:
    home = pages.open("home")
    game = create_in_lobby(home, "ai", level="beginner", seat=0, names=("Guest",))
    home.goto("/")
    home.get_by_test_id("account-name").fill("Quilter")
    home.get_by_test_id("account-password").fill("patchwork forever")
    home.get_by_test_id("sign-up").click()
    expect(home.get_by_test_id("account-message")).to_contain_text("1 game of this browser now belongs to your account")
    expect(home.get_by_test_id("account-shown")).to_have_text("Quilter")
    assert accessibility_violations(home) == []
    screenshot(home, "account-00-signed-up")

    away = pages.open("another-browser")
    away.goto("/")
    expect(away.get_by_test_id("your-games")).to_contain_text("No games yet")
    away.get_by_test_id("account-name").fill("quilter")  # names match whatever their case
    away.get_by_test_id("account-password").fill("patchwork forever")
    away.get_by_test_id("sign-in").click()
    expect(away.get_by_test_id("account-shown")).to_have_text("Quilter")
    away.get_by_test_id(f"open-{game}").click()
    away.wait_for_url(re.compile(rf"/game/{game}$"))
    expect(away.locator("#game-title")).to_contain_text("you play as Guest")  # the seat, without this browser's token
    expect(away.get_by_test_id("advance")).to_be_enabled()

    home.get_by_test_id("sign-out-everywhere").click()
    expect(home.get_by_test_id("account-message")).to_contain_text("Signed out on every browser")
    away.goto("/")
    expect(away.get_by_test_id("sign-in")).to_be_visible()
    pages.assert_no_script_errors()
