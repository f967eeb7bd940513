"""The game in Polish, as a Polish browser opens it (docs/languages.md): the front page, a game to a move, the first lessons, at desktop and phone sizes."""

from __future__ import annotations

import re

import pytest
from browser_helpers import PHONE, Pages, Server, Turning, screenshot
from playwright.sync_api import Page, expect
from test_browser_tutorial import finish_lesson

from quiltmaker.tutorial import LESSONS

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


ENGLISH = re.compile(r"\b(the|patch|lesson|your|buy|move|tutor|turn)\b", re.IGNORECASE)  # words no Polish sentence holds


def polish_only(page: Page, *test_ids: str) -> None:
    """The parts of the page named read in Polish: none of them holds an English word."""
    for test_id in test_ids:
        for text in page.get_by_test_id(test_id).all_inner_texts():
            assert not ENGLISH.search(text), f"{test_id} reads English: {text!r}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_polish_browser_plays_the_first_two_lessons_in_polish(pages: Pages, server: Server, size: str) -> None:
    """The tutorial's first lessons in Polish: the titles, what to do, the tutor's refusal and the praise are
    the server's words for this reader, and no text runs out of its box (Polish words are longer)."""
    page = pages.open(f"polish-lessons-{size}", **POLISH, **(PHONE if size == "phone" else {}))
    page.goto("/")
    expect(page.get_by_test_id("lesson-list")).to_contain_text("Kupowanie łatki")
    page.get_by_test_id("learn-start").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    turning = Turning()
    for number, title in ((1, "Kupowanie łatki"), (2, "Czyja tura")):
        panel = page.get_by_test_id("lesson")
        expect(panel).to_contain_text(f"Lekcja {number} z {len(LESSONS)}: {title}")
        expect(page.get_by_test_id("lesson-task")).to_contain_text(f"Lekcja {number}:")
        polish_only(page, "lesson", "lesson-task", "turn")
        no_overflow(page)
        screenshot(page, f"polish-lesson-{number}-{size}", full_page=False)
        _final, refused = finish_lesson(page, server, turning, f"polish-lesson-{number}-{size}", "Nie o to prosi ta lekcja")
        assert refused, "each of the first two lessons refuses some legal move, in Polish"
        expect(page.get_by_test_id("lesson-praise")).to_be_visible()
        polish_only(page, "lesson", "lesson-praise", "message")
        no_overflow(page)
        screenshot(page, f"polish-lesson-{number}-done-{size}", full_page=False)
        page.get_by_test_id("next-lesson").click()
    expect(page.get_by_test_id("lesson")).to_contain_text("Lekcja 3 z")
    pages.assert_no_script_errors()
