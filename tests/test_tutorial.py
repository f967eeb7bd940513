"""The lessons: each starts where its script leaves the learner, can be done, and refuses what it does not ask."""

from __future__ import annotations

import pytest

from quiltmaker.ai.players import GreedyPlayer, forecast
from quiltmaker.core.components import LAST_SPACE
from quiltmaker.core.game import Game
from quiltmaker.core.moves import PLACEMENTS, Move
from quiltmaker.core.position import Position
from quiltmaker.tutorial import (
    LEARNER,
    LESSONS,
    SCRIPT,
    TIE_SCRIPT,
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
    lesson = LESSONS[6]
    game = lesson_game(7)
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


def test_every_lesson_but_the_tie_is_a_moment_of_the_script_as_before() -> None:
    """Lesson games stored by earlier versions still load: the first seven lessons' scripts are unchanged."""
    assert [(lesson.number, lesson.ply) for lesson in LESSONS[:7]] == [(1, 0), (2, 5), (3, 9), (4, 12), (5, 14), (6, 29), (7, 38)]
    assert all(lesson.script == SCRIPT[: lesson.ply] for lesson in LESSONS[:7])
    tie = LESSONS[-1]
    assert tie.title == "A tie, and who wins it" and tie.script == TIE_SCRIPT[: tie.ply]
    assert TIE_SCRIPT[:37] == SCRIPT[:37] and TIE_SCRIPT[37] != SCRIPT[37], "it leaves the script on move 38, before lesson 7"


def test_the_tie_script_is_a_whole_legal_game_that_ends_level_and_the_learner_wins_on_the_tie_break() -> None:
    game = Game(setup())
    for move in TIE_SCRIPT:
        game.play(move)
    end = game.position
    assert end.is_over and end.scores == (27, 27)
    assert end.decided_by_tiebreak and end.winner == LEARNER


def test_the_tie_lesson_starts_where_every_move_reaches_the_last_space_first_and_the_tutor_can_only_advance() -> None:
    """What its intro says: the tutor's forecast is its end, and any move takes the learner onto the last space first."""
    start = LESSONS[-1].start
    assert start.times == (51, 52) and start.scores == (4, 15) and forecast(start, TUTOR) == 27
    assert not any(not placement.mask & start.quilts[TUTOR] for patch in start.circle for placement in PLACEMENTS[patch])
    for move in start.legal_moves():
        after = start.play(move)
        assert after.times == (LAST_SPACE, 52) and not after.pending
        assert [m.text() for m in after.legal_moves()] == ["A"], "the tutor's one move left is an advance"


def test_the_tie_lesson_accepts_the_moves_that_end_level_and_refuses_the_others_with_the_scores() -> None:
    lesson = LESSONS[-1]
    game = lesson_game(lesson.number)
    refused = {move: refusal(lesson, game, move) for move in lesson.start.legal_moves()}
    assert {move.patch for move, reason in refused.items() if reason is None} == {13}, "patch 13, laid any way"
    assert refused[Move.advance()] == (
        "That move ends your game with 20 points, and the tutor's ends with 27: count what each patch on offer "
        "would bring you, and make the move that ends level, on 27."
    )
    assert all("with 22 points" in (reason or "") for move, reason in refused.items() if move.patch == 10)


def test_the_tie_lesson_done_as_it_asks_ends_level_won_on_the_tie_break_whatever_the_tutor_does() -> None:
    """Every move the step accepts, then every legal reply of the tutor's to the end (not just one player's choice)."""
    lesson = LESSONS[-1]
    game = lesson_game(lesson.number)
    ends = []

    def play_out() -> None:
        position = game.position
        if position.is_over:
            assert position.scores[LEARNER] == position.scores[TUTOR] and position.decided_by_tiebreak
            assert position.winner == LEARNER, "the learner reached the last space first"
            assert progress(lesson, game).done
            ends.append(position.scores)
            return
        if position.to_move == TUTOR:
            assert tutor_moves(lesson, game)
        for move in position.legal_moves():
            if position.to_move == LEARNER and refusal(lesson, game, move) is not None:
                continue
            game.play(move)
            play_out()
            game.undo()

    play_out()
    assert len(ends) == 7 and set(ends) == {(27, 27)}, "patch 13's seven placements, each answered by the tutor's advance"
