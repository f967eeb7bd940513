"""The tutorial as a newcomer meets it: every lesson from the lobby, by mouse, in a real browser.

Which move to try is worked out here from the lesson's own steps and the
core's rules (as a reader of the lesson would choose), but every move is made
through the page, and the server is the one that accepts or refuses it.
"""

from __future__ import annotations

import re
from typing import Any

from browser_helpers import (
    Pages,
    Server,
    Turning,
    accessibility_violations,
    acting_or_over,
    advance_by_mouse,
    aim_square,
    game_id,
    message,
    mouse_place,
    move_text,
    placements,
    point_at,
    screenshot,
    special_by_mouse,
    synced_state,
    turn_to,
    version,
    wait_ghost,
)
from playwright.sync_api import Page, expect
from web_helpers import poll

from quiltmaker.core.game import Game
from quiltmaker.core.moves import Move
from quiltmaker.tutorial import LESSONS, refusal, setup


REFUSED = "Not what this lesson asks"  # how the page begins a lesson's refusal, in English


def lesson_game(state: dict[str, Any]) -> Game:
    """The core's game of a lesson state: the lessons' setup and every move since."""
    game = Game(setup())
    for entry in state["moves"]:
        game.play(entry["move"])
    return game


def candidates(state: dict[str, Any]) -> list[Move]:
    """The learner's legal moves, advancing last."""
    moves = [Move.from_text(move_text(*placement)) for placement in placements(state)]
    return [*moves, Move.advance()] if state["legal"]["advance"] else moves


def make(page: Page, server: Server, state: dict[str, Any], move: Move, turning: Turning) -> None:
    """Make ``move`` through the page: the offer and the quilt for a purchase, the Advance button, a square."""
    if move.kind == "advance":
        advance_by_mouse(page)
    elif move.kind == "special":
        special_by_mouse(page, state, 0)
    else:
        patch, transform, anchor = next(p for p in placements(state) if move_text(*p) == move.text())
        mouse_place(page, server, 0, patch, transform, anchor, turning)


def refused_by_mouse(page: Page, server: Server, state: dict[str, Any], turning: Turning, refused_words: str = REFUSED) -> bool:
    """Try a legal move the lesson refuses (when there is one): the page says why (``refused_words`` first) and nothing changes."""
    game = lesson_game(state)
    lesson = LESSONS[state["lesson"]["number"] - 1]
    refused = [m for m in candidates(state) if refusal(lesson, game, m) is not None]
    # A purchase when one is refused (the page's ghost shows it as legal first), else advancing.
    move = next((m for m in refused if m.kind == "buy"), refused[0] if refused else None)
    if move is None:
        return False
    before = version(page)
    if move.kind == "advance":
        page.get_by_test_id("advance").click()
    else:
        patch, transform, anchor = next(p for p in placements(state) if move_text(*p) == move.text())
        page.get_by_test_id(f"offer-{patch}").click()
        turn_to(page, server, 0, patch, transform, turning)
        x, y = point_at(page, 0, *aim_square(server, patch, transform, anchor))
        wait_ghost(page, move.text())
        page.mouse.click(x, y)
    poll(lambda: message(page)[0].startswith(refused_words) or None, 15, what="the lesson's refusal")
    box, size = page.get_by_test_id("message").bounding_box(), page.viewport_size
    assert box and size and 0 <= box["y"] and box["y"] + box["height"] <= size["height"], f"the refusal is out of view: {box}"
    assert version(page) == before, "a refused move changed the game"
    assert server.state(game_id(page))["version"] == before
    return True


def finish_lesson(page: Page, server: Server, turning: Turning, shots: str, refused_words: str = REFUSED) -> tuple[dict[str, Any], bool]:
    """Do the lesson's steps on the board until the server says it is done (a refusal begins with ``refused_words``).

    Returns the last state, and whether a move the lesson refuses was tried first.
    """
    refused_once = False
    for _ in range(60):
        state = synced_state(server, page)
        lesson = state["lesson"]
        if lesson["done"]:
            return state, refused_once
        if acting_or_over(page, timeout=90) == "over":
            continue
        state = synced_state(server, page)
        if state["lesson"]["done"]:
            return state, refused_once
        if not refused_once and not state["legal"]["specials"]:
            refused_once = refused_by_mouse(page, server, state, turning, refused_words)
            if refused_once:
                screenshot(page, f"{shots}-refused")
        game = lesson_game(state)
        lesson_rules = LESSONS[lesson["number"] - 1]
        if state["legal"]["specials"]:
            move = Move.from_text(state["legal"]["specials"][0]["move"])
        else:
            move = next(m for m in candidates(state) if refusal(lesson_rules, game, m) is None)
        make(page, server, state, move, turning)
    raise AssertionError(f"lesson {state['lesson']['number']} was not done in 60 moves")


def test_every_lesson_from_the_lobby_by_mouse_with_leaving_and_resuming(pages: Pages, server: Server) -> None:
    page = pages.open("learner")
    page.goto("/")
    learn = page.get_by_test_id("learn")
    expect(learn).to_contain_text("Learn to play")
    expect(page.get_by_test_id("lesson-list").locator("li")).to_have_count(len(LESSONS))
    screenshot(page, "tutorial-00-lobby")
    page.get_by_test_id("learn-start").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))

    turning = Turning()
    refused = []
    games: list[str] = []
    for number, lesson in enumerate(LESSONS, start=1):
        panel = page.get_by_test_id("lesson")
        expect(panel).to_contain_text(f"Lesson {number} of {len(LESSONS)}: {lesson.title}")
        expect(page.locator("#game-title")).to_contain_text(f"lesson {number} of {len(LESSONS)}")
        expect(page.get_by_test_id("hint")).to_be_hidden()  # a lesson says what to do
        games.append(game_id(page))
        assert server.state(games[-1])["position"] == lesson.start.text(), "the lesson starts at its own position"
        screenshot(page, f"tutorial-{number:02d}-start")
        if number == 1:
            assert accessibility_violations(page) == []
        if number == 3:
            # Leave in the middle, and come back from the lobby to the same game.
            page.goto("/")
            expect(page.get_by_test_id("learn-start")).to_have_text(f"Continue: lesson 3, {lesson.title}")
            expect(page.get_by_test_id("lesson-1")).to_contain_text("done")
            page.get_by_test_id("learn-start").click()
            page.wait_for_url(re.compile(rf"/game/{re.escape(games[-1])}$"))
            expect(panel).to_contain_text(f"Lesson 3 of {len(LESSONS)}")
        final, was_refused = finish_lesson(page, server, turning, f"tutorial-{number:02d}")
        if was_refused:
            refused.append(number)
        expect(page.get_by_test_id("lesson-praise")).to_be_visible()
        expect(page.get_by_test_id("ai-thinking")).to_be_hidden()  # the tutor waits for the next lesson
        expect(page.get_by_test_id("lesson-steps").locator("li.done")).to_have_count(len(lesson.steps))
        screenshot(page, f"tutorial-{number:02d}-done")
        if number < len(LESSONS):
            page.get_by_test_id("next-lesson").click()
            page.wait_for_url(re.compile(r"/game/[^/?]+$"))
            expect(page.get_by_test_id("lesson")).to_contain_text(f"Lesson {number + 1} of")
        else:
            assert final["result"] is not None, "the last lesson plays the game to its end"
            expect(page.get_by_test_id("result")).to_be_visible()
            expect(page.get_by_test_id("tutorial-finished")).to_be_visible()
            expect(page.locator("#lesson-task")).to_contain_text(f"Lesson {len(LESSONS)} done. That was the last: play the computer")
            expect(page.locator("#lesson-task")).not_to_contain_text("next lesson")
            assert accessibility_violations(page) == []
            page.get_by_test_id("tutorial-finished").click()
            page.wait_for_url(re.compile(r"/\?level=beginner#new-game-card$"))
            expect(page.get_by_test_id("level")).to_have_value("beginner")
            heading = page.locator("#new-game-title").bounding_box()
            assert heading and heading["y"] >= 0, "the new game's heading stays in view"

    page.goto("/")
    for number in range(1, len(LESSONS) + 1):
        expect(page.get_by_test_id(f"lesson-{number}")).to_contain_text("done")
    expect(page.get_by_test_id("learn-start")).to_have_text("Play every lesson again")
    expect(page.get_by_test_id("your-games")).not_to_contain_text("Tutor")  # lessons are not listed as games
    screenshot(page, "tutorial-99-lobby-done")
    assert turning.turns or turning.flips, "the turning lesson turned a patch"
    # Lesson 1 refuses only advancing (every purchase does), the others refuse a purchase too.
    assert refused == list(range(1, len(LESSONS) + 1)), f"lessons that refused a move: {refused}"
    pages.assert_no_script_errors()
