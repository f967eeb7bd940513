"""Learn to play: lessons on one fixed game, each a position and steps the learner does on the board.

Every lesson is a moment of the same game (:data:`SCRIPT`, a game between two
``casual`` players from :data:`SCRIPT_SEED`): a lesson's game begins with the
script's moves up to that moment already played, so the lessons read as one
game that moves on between them, with its quilts and its history. The last
lesson is an ending that game could have had instead (:data:`TIE_SCRIPT`,
which leaves it just before lesson 7): one played to a tie. The learner always holds seat 0 and
plays against the tutor in seat 1. A step names what to do and which moves do
it, in the rules' own numbers (:class:`~quiltmaker.core.position.MoveEffect`);
a legal move that does not do it is refused with the reason, and changes
nothing. Interfaces show the words and the marks; they decide none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .ai.players import forecast
from .core.components import BONUS_AREAS, LAST_SPACE, TIME_TRACKS, Cell, mask_to_cells
from .core.game import Game
from .core.moves import ADVANCE, SPECIAL, Move
from .core.position import MoveEffect, Position
from .i18n import N_, _

LEARNER, TUTOR = 0, 1

SCRIPT_SEED = 0
# Played by `casual` against `casual` from Position.initial(SCRIPT_SEED, first_player=0).
SCRIPT: tuple[str, ...] = tuple(
    (
        "A A 30R0@a1 21R0@f7 20R3@f4 11R0@g1 15R0@e2 27R0@a1 22R1@h4 24R1@b3 23R1@d4 5F0@d1 A A A A 19R1@c4 S@f1 31R0@g1 "
        "16R1@d2 2R0@a9 14F1@g2 S@a3 32R1@b6 0R0@d1 8R3@a6 S@i3 6R1@a4 1R3@a8 28R3@e5 S@i4 7F2@a2 12F3@b4 17R0@d9 A "
        "25R0@b7 A 3R0@g6 13R0@f8 S@i5 A 4R1@h6 A"
    ).split()
)
# The game of the tie lesson: SCRIPT's first 37 moves, then another ending, found by scripts/find_tie_lesson.py.
# From ply 43 (the lesson) no patch left fits the tutor's quilt, so its one move left is an advance.
TIE_SCRIPT: tuple[str, ...] = SCRIPT[:37] + tuple("4R1@h5 A S@g2 3R3@g6 A A 13R0@f8 A".split())


@dataclass(frozen=True)
class Step:
    """One thing the learner does.

    The words are English, marked for the catalogues (:func:`~quiltmaker.i18n.N_`): an
    interface translates them when it shows them, then fills the ``{name}`` fields.

    Attributes:
        task: What to do, in the second person; ``{name}`` fields come from :func:`facts`.
        accepts: Whether a move (by its effect) does it.
        refusal: Why a legal move that does not do it is refused (or, for a reason that
            depends on the move, a function of its effect that says it, in the language in use).
        until_over: The step lasts until the game ends, and the tutor plays the other side.
    """

    task: str
    accepts: Callable[[MoveEffect], bool]
    refusal: str | Callable[[MoveEffect], str] = ""
    until_over: bool = False


@dataclass(frozen=True)
class Lesson:
    """A lesson: where in the script it starts, what it says, what the learner does.

    Attributes:
        number: Its place in :data:`LESSONS`, from 1.
        title: A few words.
        ply: Moves of its ``line`` played before the lesson starts (the learner to move).
        intro: Paragraphs read before the first step.
        steps: What the learner does, in order.
        praise: Read once every step is done.
        spotlight: The part of the board the lesson is about, for an interface to point at:
            ``circle``, ``track``, ``hand``, ``advance`` or ``quilt``.
        line: The game the lesson is a moment of, from :func:`setup`: :data:`SCRIPT`, or another
            ending of it (:data:`TIE_SCRIPT`).
    """

    number: int
    title: str
    ply: int
    intro: tuple[str, ...]
    steps: tuple[Step, ...]
    praise: str
    spotlight: str
    line: tuple[str, ...] = SCRIPT

    @property
    def script(self) -> tuple[str, ...]:
        """The moves of the game before the lesson: a lesson's game starts with them, from :func:`setup`."""
        return self.line[: self.ply]

    @cached_property
    def start(self) -> Position:
        """The position the learner finds."""
        position = setup()
        for move in self.script:
            position = position.play(move)
        return position


def setup() -> Position:
    """The start of the lessons' game."""
    return Position.initial(SCRIPT_SEED, first_player=LEARNER)


def _any_move(_effect: MoveEffect) -> bool:
    return True


def _ends_level(effect: MoveEffect) -> bool:
    """Whether the move takes the learner onto the last space first, with the score the tutor will end with.

    The tutor's end is its forecast: right for the tie lesson, where the tutor can only advance (a test holds it).
    """
    after = effect.after
    first = after.times[LEARNER] == LAST_SPACE and after.times[TUTOR] < LAST_SPACE and not after.pending
    return first and after.score(LEARNER) == forecast(after, TUTOR)


def _not_level(effect: MoveEffect) -> str:
    after = effect.after
    if after.times[LEARNER] != LAST_SPACE:
        return _("That move stops on space {space}: make the move that takes you onto space {last_space}.").format(
            space=after.times[LEARNER], last_space=LAST_SPACE
        )
    mine, theirs = after.score(LEARNER), forecast(after, TUTOR)
    return _(
        "That move ends your game with {mine} points, and the tutor's ends with {theirs}: count what each patch on "
        "offer would bring you, and make the move that ends level, on {theirs}."
    ).format(mine=mine, theirs=theirs)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        1,
        N_("Buying a patch"),
        0,
        (
            N_(
                "Patchwork is a race to sew the better quilt. Each of you has a 9x9 quilt, empty at the start, "
                "and {buttons} buttons: buttons are both your money and your points."
            ),
            N_(
                "The patches lie in a circle. Only the three after the neutral token are on offer; they are marked "
                "in the row of patches. Each shows its price in buttons, the time it takes to sew, and the buttons "
                "printed on it."
            ),
        ),
        (
            Step(
                N_(
                    "Buy one of the three patches on offer that you can pay for: pick it, then lay it anywhere on your "
                    "quilt and place it."
                ),
                lambda effect: effect.patch is not None,
                N_("This lesson is about buying: pick one of the three patches on offer instead of advancing."),
            ),
        ),
        N_(
            "You paid its price in buttons, and sewing it cost you time: your token moved along the time track by "
            "the patch's time. The neutral token now stands where your patch was, so the next three patches are on offer."
        ),
        "circle",
    ),
    Lesson(
        2,
        N_("Whose turn it is"),
        5,
        (
            N_(
                "Turns do not alternate. The time track decides: the player whose token is further behind moves next. "
                "Your token is on space {space}, the tutor's on {other_space}, so it is your turn."
            ),
            N_(
                "If you are still behind after your move, or level with the tutor (the token that arrived last is on "
                "top and moves first), you move again: several turns in a row."
            ),
        ),
        (
            Step(
                N_("Buy a patch that costs little time, so that your token stays behind the tutor's or lands on the same space."),
                lambda effect: effect.after.to_move == effect.player and not effect.after.pending,
                N_(
                    "That move would take your token past the tutor's, and the turn would pass to the tutor: pick a "
                    "patch whose time is at most {to_other} so that you move again."
                ),
            ),
            Step(N_("It is your turn again: make any move."), _any_move),
        ),
        N_(
            "Two turns in a row. Patches that cost little time give you more turns; patches that cost a lot give the "
            "tutor several turns in a row."
        ),
        "track",
    ),
    Lesson(
        3,
        N_("Button income"),
        9,
        (
            N_(
                "The buttons printed on the patches of your quilt are your income: {income} buttons so far. You are "
                "paid your income each time your token reaches or passes a button space on the time track, whatever "
                "the move."
            ),
            N_("Your token is on space {space}; the next button space is {next_income}."),
        ),
        (
            Step(
                N_("Make a move that takes your token to space {next_income} or beyond, and collect your income."),
                lambda effect: effect.income > 0,
                N_(
                    "That move stops before the button space on {next_income}, so it pays no income: pick a patch with "
                    "a time of at least {to_income}, or advance."
                ),
            ),
        ),
        N_(
            "Paid. Patches with buttons on them cost more at first but pay again at every button space still ahead, "
            "so they are worth most early in the game."
        ),
        "track",
    ),
    Lesson(
        4,
        N_("Advancing for buttons"),
        12,
        (
            N_(
                "Instead of buying, you can always advance: your token moves to the space just ahead of the tutor's, "
                "and you take one button for every space it moves."
            ),
            N_("You hold {buttons} buttons. Advancing now takes you from space {space} to {advance_to}."),
        ),
        (
            Step(
                N_("Advance: press the Advance button (or the A key)."),
                lambda effect: effect.move.kind == ADVANCE,
                N_("This lesson is about advancing: press Advance instead of buying."),
            ),
        ),
        N_(
            "You moved ahead of the tutor and were paid a button a space. Now the tutor is behind, so it is the "
            "tutor's turn. Advancing is how you get buttons when nothing on offer is worth its price."
        ),
        "advance",
    ),
    Lesson(
        5,
        N_("Turning and flipping"),
        14,
        (
            N_(
                "A patch can be laid in any of its turns and mirror images, as long as it lies inside your quilt and "
                "covers no covered square. Patches need not touch."
            ),
            N_(
                "With a patch in hand, Turn (the R key) turns it a quarter clockwise and Flip (the F key) mirrors it; "
                "on a phone, use the Turn and Flip buttons that appear with the patch in hand."
            ),
        ),
        (
            Step(
                N_("Buy a patch and lay it turned or flipped, not the way it is drawn in the circle."),
                lambda effect: effect.move.patch is not None and effect.move.orientation != "R0",
                lambda effect: (
                    _("this lesson is about laying a patch turned or flipped: pick one of the patches on offer.")
                    if effect.move.patch is None
                    else _(
                        "that way round the patch lies just as it is drawn in the circle (a patch turned all the "
                        "way round, or one that looks the same every way, does too): turn or flip it so that it lies "
                        "differently."
                    )
                ),
            ),
        ),
        N_("Turning patches to fit the gaps is the craft of the game: every square left empty at the end costs you two points."),
        "hand",
    ),
    Lesson(
        6,
        N_("Special patches"),
        29,
        (
            N_(
                "The time track began with five small 1x1 patches on the spaces marked on it; {specials_left} are left. "
                "The first player to reach or pass one takes it and at once sews it onto any empty square of their "
                "quilt, for free."
            ),
            N_("Your token is on space {space}; the next special patch lies on space {next_special}."),
        ),
        (
            Step(
                N_(
                    "Make a move that takes your token to space {next_special} or beyond, then place the special patch "
                    "on any empty square."
                ),
                lambda effect: effect.specials_earned > 0,
                N_(
                    "That move stops before the special patch on {next_special}: pick a patch with a time of at least {to_special}."
                ),
            ),
        ),
        N_("A special patch is the best filler there is: one square, anywhere. Racing to them is often worth a little time."),
        "track",
    ),
    Lesson(
        7,
        N_("The 7x7 bonus and the end of the game"),
        38,
        (
            N_(
                "The first player to cover any 7x7 area of their quilt completely takes the bonus tile: 7 points at "
                "the end. Your quilt lacks only the marked squares of one."
            ),
            N_(
                "The game ends when both tokens reach space {last_space}. Then each player scores their buttons, plus "
                "7 for the bonus tile, minus 2 for every empty square of their quilt; the higher score wins. On a tie, the player whose "
                "token reached space {last_space} first wins: a game is never drawn."
            ),
        ),
        (
            Step(
                N_("Buy a patch that covers the marked squares, and take the 7x7 bonus."),
                lambda effect: effect.bonus_earned,
                N_("That move leaves the marked squares open, so it does not complete the 7x7 area: cover them."),
            ),
            Step(N_("Play on to the end of the game; the tutor plays the other side."), _any_move, until_over=True),
        ),
        N_(
            "That is the whole game, won or lost. The score table shows where the points came from: buttons, the "
            "bonus, and two points off for each empty square. One lesson more: a game that ends level, and who wins it."
        ),
        "quilt",
    ),
    Lesson(
        8,
        N_("A tie, and who wins it"),
        43,
        (
            N_(
                "The same game, ended another way, and nearly over: your token is on space {space}, the tutor's on {other_space}."
            ),
            N_(
                "You have {score} points as things stand, the tutor {other_score}. None of the patches left in the "
                "circle fits the tutor's quilt, so its last move can only be an advance onto space {last_space}: it "
                "will end with its forecast, {other_forecast} points. Whatever you do now takes your token onto space "
                "{last_space} first."
            ),
            N_(
                "When the scores are level at the end, the player whose token reached space {last_space} first wins: "
                "a game is never drawn. So you need not beat {other_forecast} points: level with them, you win."
            ),
        ),
        (
            Step(
                N_(
                    "Make the move that takes you onto space {last_space} with {other_forecast} points, level with the "
                    "tutor: count what each patch on offer would bring you (its squares, its income, its price)."
                ),
                _ends_level,
                _not_level,
            ),
            Step(N_("Play on to the end of the game; the tutor plays the other side."), _any_move, until_over=True),
        ),
        N_(
            "Level, and the game is yours: the tutor's last advance brought it to the same score as you, and your "
            "token reached space 53 first, so the tie-break gave you the win. Near the end, getting to space 53 first "
            "settles any tie in your favour. You are ready to play the computer: start with the beginner level."
        ),
        "track",
        TIE_SCRIPT,
    ),
)


def lesson_of(number: int, game: Game) -> Lesson | None:
    """Lesson ``number`` (from 1) if ``game`` is a game of it (it begins with the lesson's script), else ``None``.

    ``None`` too for a lesson game stored by a version whose lessons were different.
    """
    if not 1 <= number <= len(LESSONS):
        return None
    lesson = LESSONS[number - 1]
    played = [move.text() for move in game.moves[: lesson.ply]]
    return lesson if game.start == setup() and tuple(played) == lesson.script else None


def facts(position: Position) -> dict[str, Any]:
    """The numbers a lesson's words name, for the learner, read from the rules' position."""
    track = TIME_TRACKS[position.variant]
    space, other = position.times[LEARNER], position.times[TUTOR]
    next_income = next(iter(position.income_spaces_ahead(LEARNER)), LAST_SPACE)
    next_special = next((s for s in track.special_spaces if s > space and position.specials >> s & 1), LAST_SPACE)
    return {
        "space": space,
        "other_space": other,
        "buttons": position.buttons[LEARNER],
        "income": position.income[LEARNER],
        "next_income": next_income,
        "to_income": next_income - space,
        "next_special": next_special,
        "to_special": next_special - space,
        "to_other": other - space,
        "score": position.score(LEARNER),
        "other_score": position.score(TUTOR),
        "other_forecast": forecast(position, TUTOR),
        "advance_to": min(other + 1, LAST_SPACE),
        "specials_left": bin(position.specials).count("1"),
        "last_space": LAST_SPACE,
    }


@dataclass(frozen=True)
class Progress:
    """How far a learner is in a lesson's game.

    Attributes:
        step: The index of the step to do now (``len(steps)`` once all are done).
        done: Every step done (the last one's special patch placed, the game over for ``until_over``).
    """

    step: int
    done: bool


def progress(lesson: Lesson, game: Game) -> Progress:
    """Replay the learner's moves of ``game`` (a game of ``lesson``: see :func:`lesson_of`) against its steps."""
    step = 0
    played = zip(game.positions, game.movers, game.moves)
    for position, mover, move in list(played)[lesson.ply :]:
        if mover != LEARNER or move.kind == SPECIAL or step == len(lesson.steps) or lesson.steps[step].until_over:
            continue
        if lesson.steps[step].accepts(position.effect(move)):
            step += 1
    position = game.position
    if step < len(lesson.steps) and lesson.steps[step].until_over:
        return Progress(step, position.is_over)
    placing = position.pending and position.on_top == LEARNER
    return Progress(step, step == len(lesson.steps) and not placing)


def refusal(lesson: Lesson, game: Game, move: Move) -> str | None:
    """Why the lesson refuses a legal ``move`` by the learner, or ``None`` when it goes ahead."""
    now = progress(lesson, game)
    if now.done:
        return _("this lesson is complete: go on to the next lesson, or start this one again")
    if move.kind == SPECIAL or now.step == len(lesson.steps):
        return None  # placing a special patch just earned: the rules demand it
    step = lesson.steps[now.step]
    effect = game.position.effect(move)
    if step.until_over or step.accepts(effect):
        return None
    if callable(step.refusal):
        return step.refusal(effect)
    return _(step.refusal).format(**facts(game.position))


def tutor_moves(lesson: Lesson, game: Game) -> bool:
    """Whether the tutor plays its turns now: only in a step that lasts to the end of the game."""
    now = progress(lesson, game)
    return not now.done and now.step < len(lesson.steps) and lesson.steps[now.step].until_over


def marked_squares(lesson: Lesson, game: Game) -> tuple[Cell, ...]:
    """Squares of the learner's quilt the lesson points at: the gaps of the 7x7 area the bonus step asks to finish."""
    now = progress(lesson, game)
    if now.done or now.step == len(lesson.steps):
        return ()
    position = game.position
    if position.to_move != LEARNER or position.pending:
        return ()
    quilt = position.quilts[LEARNER]
    for move in position.legal_moves():
        effect = position.effect(move)
        if lesson.steps[now.step].accepts(effect) and effect.bonus_earned:
            covered = quilt | move.mask
            area = next(a for a in BONUS_AREAS if covered & a == a and quilt & a != a)
            return mask_to_cells(area & ~quilt)
    return ()
