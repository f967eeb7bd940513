"""The lessons: each starts where its script leaves the learner, can be done, and refuses what it does not ask."""

from __future__ import annotations

import pytest

from quiltmaker.ai.players import GreedyPlayer
from quiltmaker.core.game import Game
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position
from quiltmaker.tutorial import (
    LEARNER,
    LESSONS,
    SCRIPT,
    TUTOR,
    facts,
    lesson_of,
    marked_squares,
    progress,
    refusal,
    setup,
    tutor_moves,
)


def lesson_game(number: int) -> Game:
    game = Game(setup())
    for move in LESSONS[number - 1].script:
        game.play(move)
    return game


def test_the_script_is_a_whole_legal_game_from_the_lessons_setup() -> None:
    game = Game(setup())
    for move in SCRIPT:
        game.play(move)  # the rules check every move
    assert game.position.is_over


@pytest.mark.parametrize("number", range(1, len(LESSONS) + 1))
def test_a_lesson_starts_with_the_learner_to_move_at_its_own_moment(number: int) -> None:
    lesson = LESSONS[number - 1]
    game = lesson_game(number)
    assert lesson.number == number
    assert game.position == lesson.start
    assert lesson.start.to_move == LEARNER and not lesson.start.pending
    assert lesson_of(number, game) is lesson
    assert progress(lesson, game).step == 0 and not progress(lesson, game).done
    fixed = [step.refusal for step in lesson.steps if isinstance(step.refusal, str)]
    for text in (*lesson.intro, *(step.task for step in lesson.steps), *fixed):
        text.format(**facts(lesson.start))  # every {name} is a fact


@pytest.mark.parametrize("number", range(1, len(LESSONS) + 1))
def test_a_lesson_refuses_a_legal_move_it_does_not_ask_for_and_the_reason_names_the_facts(number: int) -> None:
    lesson = LESSONS[number - 1]
    game = lesson_game(number)
    refused = {move: refusal(lesson, game, move) for move in lesson.start.legal_moves()}
    reasons = [reason for reason in refused.values() if reason is not None]
    assert reasons, "a lesson that accepts every move checks nothing"
    assert any(reason is None for reason in refused.values()), "the lesson asks for something no move does"
    assert all("{" not in reason for reason in reasons)


@pytest.mark.parametrize("number", range(1, len(LESSONS) + 1))
def test_doing_what_each_step_asks_completes_the_lesson(number: int) -> None:
    """The learner takes the first move each step accepts; the tutor plays greedy where the lesson lets it."""
    lesson = LESSONS[number - 1]
    game = lesson_game(number)
    tutor = GreedyPlayer(seed=1)
    for _ in range(80):
        position = game.position
        if progress(lesson, game).done:
            break
        if position.to_move == TUTOR:
            assert tutor_moves(lesson, game), "the tutor's turn came in a step where it does not play"
            game.play(tutor.choose_move(position))
            continue
        move = next(m for m in position.legal_moves() if refusal(lesson, game, m) is None)
        game.play(move)
    now = progress(lesson, game)
    assert now.done and now.step == len(lesson.steps) - (1 if lesson.steps[-1].until_over else 0)
    assert refusal(lesson, game, Move.advance()) is not None or game.position.is_over  # done: nothing more to do
    if lesson.steps[-1].until_over:
        assert game.position.is_over


def test_the_turning_lesson_says_why_it_refuses_advancing_and_a_patch_laid_as_drawn() -> None:
    lesson = LESSONS[4]
    game = lesson_game(5)
    assert "about laying a patch turned or flipped" in (refusal(lesson, game, Move.advance()) or "")
    as_drawn = next(m for m in game.position.legal_moves() if m.patch is not None and m.orientation == "R0")
    assert "lies just as it is drawn" in (refusal(lesson, game, as_drawn) or "")


def test_placing_a_special_patch_just_earned_is_never_refused() -> None:
    lesson = LESSONS[5]  # special patches
    game = lesson_game(6)
    move = next(m for m in game.position.legal_moves() if game.position.effect(m).specials_earned)
    game.play(move)
    assert game.position.pending
    assert not progress(lesson, game).done, "the special patch is still to place"
    assert all(refusal(lesson, game, m) is None for m in game.position.legal_moves())
    game.play(game.position.legal_moves()[0])
    assert progress(lesson, game).done


def test_the_bonus_lesson_marks_the_gaps_that_one_purchase_fills() -> None:
    lesson = LESSONS[-1]
    game = lesson_game(len(LESSONS))
    marks = set(marked_squares(lesson, game))
    assert marks
    position = game.position
    quilt = position.quilts[LEARNER]
    assert all(not quilt >> (row * 9 + col) & 1 for row, col in marks), "only empty squares are marked"
    earning = [m for m in position.legal_moves() if position.effect(m).bonus_earned]
    assert earning and all(marks <= set(m.cells) for m in earning)


def test_a_game_that_is_not_the_lessons_is_no_lesson() -> None:
    assert lesson_of(3, Game(Position.initial(7, first_player=0))) is None
    assert lesson_of(0, lesson_game(1)) is None and lesson_of(len(LESSONS) + 1, lesson_game(1)) is None
    other = Game(setup())
    other.play(next(m for m in setup().legal_moves() if m.text() != SCRIPT[0]))
    assert lesson_of(2, other) is None, "a game that left the script is not lesson 2"
