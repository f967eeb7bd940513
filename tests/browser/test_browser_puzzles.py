"""Puzzles as a player meets them: from the front page, on the board, by mouse on a desktop and by touch on a phone.

Which move solves a puzzle is read from the shipped set (the solver's proof);
the move is made through the page, and the server judges it.
"""

from __future__ import annotations

import re
import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import (
    PHONE,
    Pages,
    Server,
    Turning,
    accessibility_violations,
    aim_square,
    ghost_transform,
    mouse_place,
    on_screen,
    open_seat,
    parse_move,
    screenshot,
    tap_into_place,
    synced_state,
    turning_plan,
    version,
    wait_above,
)
from web_helpers import poll

from quiltmaker.core.position import Position
from quiltmaker.puzzles import Puzzle, load

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

PUZZLES = {p.id: p for p in load()}
def a_buying_puzzle(kind: str) -> Puzzle:
    """A puzzle of ``kind`` whose best move buys a patch (placed on the board, so the page's placing is what is tried)."""
    return next(p for p in PUZZLES.values() if p.kind == kind and "@" in p.solutions[0].move)


def placement(move: str) -> tuple[int, str, int]:
    """A placement's (patch, transform, anchor square index), as the helpers take it."""
    patch, transform, row, col = parse_move(move)
    return patch, transform, row * 9 + col


def touch_place(page: Page, server: Server, seat: int, move: str) -> None:
    """Buy and place ``move`` by touch: tap the offer, Turn/Flip until it lies right, tap the square, tap the preview."""
    patch, transform, anchor = placement(move)
    page.get_by_test_id(f"offer-{patch}").tap()
    for action, expected in turning_plan(server.patch(patch), ghost_transform(page), transform):
        page.locator("#rotate" if action == "turn" else "#flip").tap()
        poll(lambda: ghost_transform(page) == expected, 10, what=f"the patch in hand to show {expected}")
    tap_into_place(page, seat, move, aim_square(server, patch, transform, anchor))


def test_a_puzzle_from_the_front_page_solved_by_mouse_says_so_and_leads_to_the_next(pages: Pages, server: Server) -> None:
    page = pages.open("solver")
    page.goto("/")
    expect(page.get_by_test_id("puzzles")).to_contain_text(f"{len(PUZZLES)} puzzles from real games")
    page.get_by_test_id("puzzle-start").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    state = synced_state(server, page)
    puzzle = PUZZLES[state["puzzle"]["id"]]
    seat = puzzle.to_move
    expect(page.get_by_test_id("puzzle")).to_contain_text(state["puzzle"]["task"])
    assert accessibility_violations(page) == []
    before = version(page)
    best = puzzle.solutions[0].move
    if best == "A":
        page.get_by_test_id("advance").click()
    elif "@" in best:
        mouse_place(page, server, seat, *placement(best), Turning())
    else:
        raise AssertionError(f"a puzzle whose best move is a special patch's square: {best}")
    wait_above(page, before)
    expect(page.get_by_test_id("puzzle-verdict")).to_contain_text("Solved.")
    expect(page.locator("#turn")).to_contain_text("Puzzle solved.")
    expect(page.get_by_test_id("puzzle")).to_contain_text("Sign in to have a puzzle rating")
    expect(page.get_by_test_id("replay")).to_be_hidden()  # a puzzle is not a game to study move by move
    screenshot(page, "puzzles-01-solved")
    assert accessibility_violations(page) == []
    first = page.url
    page.get_by_test_id("next-puzzle").click()
    page.wait_for_url(lambda url: url != first and "/game/" in url)
    expect(page.get_by_test_id("puzzle-task")).to_be_visible()
    page.goto("/")
    expect(page.locator("#your-games")).not_to_contain_text("Opponent")  # puzzles are not listed as games to resume
    pages.assert_no_script_errors()


def test_a_puzzle_on_a_phone_by_touch_missed_then_solved_with_the_board_and_the_verdict_in_view(pages: Pages, server: Server) -> None:
    page = pages.open("phone-solver", **PHONE)
    missed, solved = a_buying_puzzle("only-move"), a_buying_puzzle("win")
    for puzzle, right in ((missed, False), (solved, True)):
        created = httpx.post(f"{server.url}/api/puzzles", json={"puzzle": puzzle.id}, timeout=30).json()
        open_seat(page, created["id"], created["token"], created["seat"])
        page.evaluate("([id]) => { const g = JSON.parse(localStorage.getItem('quiltmaker.games')); g[id].puzzle = true; localStorage.setItem('quiltmaker.games', JSON.stringify(g)); }", [created["id"]])
        seat = puzzle.to_move
        expect(page.get_by_test_id("lesson-task")).to_contain_text("Puzzle (rated")
        for selector in ("[data-testid=lesson-task]", "[data-testid=track]", f"[data-testid=quilt-{seat}]", f"[data-testid=quilt-{1 - seat}]", ".offer >> nth=2", "#advance"):
            assert on_screen(page, selector), f"{selector} is not in view"
        solutions = {s.move for s in puzzle.solutions}
        position = Position.from_text(puzzle.position)
        move = puzzle.solutions[0].move if right else next(m.text() for m in position.legal_moves() if "@" in m.text() and m.text() not in solutions)
        before = version(page)
        touch_place(page, server, seat, move)
        wait_above(page, before)
        verdict = page.get_by_test_id("puzzle-verdict")
        expect(verdict).to_contain_text("Solved." if right else "Not this time.")
        assert page.evaluate("window.scrollY") == 0
        assert on_screen(page, "[data-testid=puzzle-verdict]") and on_screen(page, "[data-testid=next-puzzle]"), "the verdict is at the top"
        if not right:
            answer = synced_state(server, page)["puzzle"]["answer"]
            expect(page.get_by_test_id("puzzle-solution")).to_contain_text(f"The move that wins: {answer['best_words']}, which wins")
            expect(verdict).not_to_contain_text("@")  # words, not notation
            expect(page.get_by_test_id("puzzle-mark")).to_have_count(1)  # the move that wins, drawn on the quilt
        screenshot(page, f"puzzles-02-phone-{'solved' if right else 'missed'}", full_page=False)
        assert accessibility_violations(page) == []
    pages.assert_no_script_errors()


def test_a_signed_in_players_answer_moves_their_puzzle_rating(pages: Pages, server: Server) -> None:
    page = pages.open("rated-solver")
    page.goto("/")
    page.get_by_test_id("account-name").fill("Solver")
    page.get_by_test_id("account-password").fill("correct horse battery")
    page.get_by_test_id("sign-up").click()
    expect(page.get_by_test_id("account-shown")).to_have_text("Solver")
    expect(page.get_by_test_id("puzzles")).to_contain_text("Sign in to have a puzzle rating")  # none yet: no answer
    page.get_by_test_id("puzzle-start").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    state = synced_state(server, page)
    puzzle = PUZZLES[state["puzzle"]["id"]]
    solutions = {s.move for s in puzzle.solutions}
    wrong = next((m.text() for m in Position.from_text(puzzle.position).legal_moves() if m.text() not in solutions and m.text() == "A"), None)
    before = version(page)
    if wrong:
        page.get_by_test_id("advance").click()
    elif puzzle.solutions[0].move == "A":
        page.get_by_test_id("advance").click()
    else:
        mouse_place(page, server, puzzle.to_move, *placement(puzzle.solutions[0].move), Turning())
    wait_above(page, before)
    expect(page.get_by_test_id("puzzle-rating-change")).to_contain_text("Your puzzle rating: 1500 → ")
    page.goto("/")
    expect(page.get_by_test_id("puzzles")).to_contain_text(re.compile(r"Your puzzle rating: \d+ \(provisional: too few answers yet to be sure\), (0|1) solved of 1\."))
    pages.assert_no_script_errors()
