"""The game in Polish, as a Polish browser opens it (docs/languages.md): the front page, a game to a move, at desktop and phone sizes."""

from __future__ import annotations

import re

import pytest
from browser_helpers import PHONE, Pages, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

POLISH = {"locale": "pl-PL"}  # Chromium then sends Accept-Language: pl-PL

# Text that runs out of its own box (a box cut short with an ellipsis on purpose aside); the page itself
# must not scroll sideways (the patch circle scrolls inside its own panel, as it is meant to).
OVERFLOWING = """() => [...document.querySelectorAll("button, h1, h2, h3, p, label, li, span, strong, td, th")]
  .filter((e) => e.offsetParent !== null && e.childElementCount === 0 && e.textContent.trim() && !e.closest(".visually-hidden") && getComputedStyle(e).clipPath === "none")
  .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow !== "ellipsis" && getComputedStyle(e).display !== "inline")
  .map((e) => e.textContent.trim().slice(0, 60))"""


def no_overflow(page: Page) -> None:
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_polish_browser_reads_the_front_page_and_a_game_in_polish(pages: Pages, size: str) -> None:
    page = pages.open(f"polish-{size}", **POLISH, **(PHONE if size == "phone" else {}))
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_test_id("learn")).to_contain_text("Naucz się grać")
    expect(page.get_by_test_id("puzzles")).to_contain_text("zagadek z prawdziwych gier")  # 300: the plural of many
    expect(page.get_by_test_id("create-game")).to_have_text("Zacznij grę")
    no_overflow(page)
    screenshot(page, f"polish-01-lobby-{size}", full_page=False)
    page.get_by_test_id("create-game").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    turn = page.get_by_test_id("turn")
    expect(turn).to_contain_text("Twoja tura", timeout=30_000)
    expect(turn).to_contain_text("Dlaczego:")
    advance = page.get_by_test_id("advance")
    expect(advance).to_have_text(re.compile(r"Spasuj o \d+ (pole|pola|pól)"))
    no_overflow(page)
    screenshot(page, f"polish-02-game-{size}", full_page=False)
    advance.click()
    moves = page.get_by_test_id("moves")
    expect(moves).to_contain_text("pasuje o")  # the server's summary, worded for this reader
    expect(page.get_by_test_id("message")).not_to_contain_text("Played")
    no_overflow(page)
    pages.assert_no_script_errors()


def test_the_switch_turns_the_page_to_english_and_the_choice_is_kept(pages: Pages) -> None:
    page = pages.open("switch", **POLISH)
    page.goto("/")
    expect(page.get_by_test_id("create-game")).to_have_text("Zacznij grę")
    page.get_by_test_id("language").select_option("en")
    expect(page.get_by_test_id("create-game")).to_have_text("Start the game")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.goto("/")
    expect(page.get_by_test_id("create-game")).to_have_text("Start the game")
    pages.assert_no_script_errors()
