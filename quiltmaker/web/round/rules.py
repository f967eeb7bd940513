"""The rules of a game on the server, beyond the board's: who may do what, and when.

One function a rule, each answering for a game as it stands (a
:class:`~.game.StoredGame`) and raising :class:`Refusal` when the answer is
no. The server's live checks call them before an intent is written, and the
replay of the log calls the same ones, through :func:`check`, for every
event it reads: what the server accepts and what the log accepts cannot
drift apart. The board's own rules (a move's legality, scoring) are the
core's (:class:`~quiltmaker.core.position.Position`); the clocks' are in
:mod:`.clocks`. Nothing here touches a database, a socket or the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import tutorial
from ...core.errors import QuiltmakerError
from ...core.game import Game
from ...core.moves import Move
from ...core.position import Position
from ...i18n import _
from ...words import illegal, turn_reason
from .game import parse_credit
from .kinds import EventKind, Mode

if TYPE_CHECKING:
    from .game import StoredGame



class Refusal(QuiltmakerError):
    """An intent (or a logged event) the rules do not allow; ``code`` says why, as the protocol's error replies do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def is_assisted(game: StoredGame) -> bool:
    """Whether the player may have help (hints, undo): a game against the computer, a lesson or pass-and-play, without a clock.

    An online game, and any game with a clock, is played unaided: two people
    measure themselves there, and a clock's time would mean nothing with undo.
    """
    return game.mode in (Mode.AI, Mode.LOCAL, Mode.LESSON) and game.control is None


def may_hint(game: StoredGame) -> None:
    """A hint may be asked for in an assisted game under way (a lesson says what to do instead)."""
    if not is_assisted(game):
        raise Refusal("not_allowed", _("hints are not given in online games or games with a clock"))
    if game.lesson is not None:
        raise Refusal("not_allowed", _("a lesson says what to do: the hint is for games"))
    if game.is_finished:
        raise Refusal("game_over", _("the game is over"))


def may_move(game: StoredGame, seat: int | None) -> None:
    """Whether ``seat`` (None: the server's own) may move now at all, whatever the move: the game started, not over, its turn."""
    if game.status == "waiting":
        raise Refusal("not_allowed", _("the game starts when your friend opens the invitation link"))
    if game.is_finished:
        raise Refusal("game_over", _("the puzzle is answered: take the next one") if game.mode == Mode.PUZZLE else _("the game is over"))
    position = game.game.position
    if seat is not None and seat != position.to_move:
        raise Refusal("not_your_turn", _("it is not your turn: {reason}").format(reason=turn_reason(position, game.names)))


def seats_that_may_move(game: StoredGame) -> list[bool]:
    """Whether each seat's player may move now (:func:`may_move`; never the computer's seat, which the server plays).

    Only the seat to move can be allowed: the other is not asked (its
    refusal would word the turn's reason, at every state sent).
    """
    seats = [False, False]
    to_move = game.game.position.to_move
    if to_move is not None and not (game.against_ai and to_move == game.ai_seat):
        seats[to_move] = allows(may_move, game, to_move)
    return seats


def check_move(game: StoredGame, seat: int | None, text: Any, at: datetime) -> Move:
    """The move ``text`` sent by ``seat`` (None: the server's own, the computer's or a lesson's script), if it may be played at ``at``.

    A real-time move after its player's flag fell is too late (``time``); a
    correspondence move counts until the win is claimed.
    """
    position = game.game.position
    may_move(game, seat)
    if not isinstance(text, str) or len(text) > 64:
        raise Refusal("malformed", _("'move' must be the text of a move, such as 'A' or '12R1@e5'"))
    try:
        move = Move.from_text(text)
    except QuiltmakerError as error:
        raise Refusal("malformed", str(error)) from None
    reason = illegal(position, move, game.names) if move.exists else _("there is no such move")
    if reason is not None:
        raise Refusal("illegal", _("{move} is illegal: {reason}").format(move=move.text(), reason=reason))
    clock = game.clock_at(at)
    if clock is not None and clock.flagged is not None and clock.control.kind == "realtime":
        raise Refusal("time", _("{name}'s time is up: the move came too late").format(name=game.names[clock.flagged]))
    return move


def check_lesson_move(game: StoredGame, seat: int | None, move: Move) -> None:
    """A lesson's tutor turns down a legal move of the learner's that is not the step the lesson teaches.

    The tutor's advice, not a rule of the game: checked when the learner moves,
    never in the replay of the log, since a later version may word or order a
    lesson's steps otherwise and a stored lesson must still load.
    """
    if game.lesson is not None and seat is not None:
        refused = tutorial.refusal(game.lesson, game.game, move)
        if refused is not None:
            raise Refusal("lesson", refused[0].upper() + refused[1:])


def may_undo(game: StoredGame) -> int:
    """An undo a player may ask for now, and how many moves it takes back (:func:`undo_count`): never once the game is
    over, played to its end too. Its end is what the lists keep and the analysis studies (to try another line, play on
    from any of its positions: :func:`play_on_from`).

    The log's replay checks :func:`undo_count` alone: a game played before this rule, undone after it was played
    out, still loads (the one rule the live server holds stricter than the replay, as a lesson's advice).
    """
    if game.is_finished:
        raise Refusal("not_allowed", _("the game is over"))
    return undo_count(game)


def undo_count(game: StoredGame) -> int:
    """How many moves an undo takes back: pass-and-play one; against the computer, back to the human's last turn."""
    if game.ended is not None:
        raise Refusal("not_allowed", _("the game is over"))
    if not is_assisted(game):
        raise Refusal("not_allowed", _("there is no undo in an online game or a game with a clock"))
    if game.rematch is not None:
        raise Refusal("not_allowed", _("the rematch has started: this game can no longer change"))
    if game.mode == Mode.LOCAL:
        if not game.game.moves:
            raise Refusal("not_allowed", _("there is no move to undo"))
        return 1
    # Against the computer: back to the human's last turn, taking the computer's replies with it.
    count = game.game.turn_start(1 - (game.ai_seat or 0))
    if count is None or (game.lesson is not None and count > len(game.game.moves) - game.lesson.ply):
        raise Refusal("not_allowed", _("you have no move to undo yet"))  # a lesson's script is not yours to undo
    return count


def may_abort(game: Game) -> bool:
    """A game may be called off, without a result, until each side has made a move."""
    return len(set(game.movers)) < 2


def may_end(game: StoredGame, kind: EventKind) -> None:
    """A player may resign (``kind`` RESIGN) or call the game off (ABORT): online or against the computer."""
    if game.mode not in (Mode.ONLINE, Mode.AI):
        raise Refusal(
            "not_allowed",
            _("there is no resigning in this game: only a player online or against the computer resigns")
            if kind == EventKind.RESIGN
            else _("there is no aborting in this game: only a player online or against the computer aborts"),
        )
    if game.is_finished:
        raise Refusal("game_over", _("the game is over"))
    if game.status == "waiting" and kind == EventKind.RESIGN:
        raise Refusal("not_allowed", _("the game has not started: abort it instead"))
    if kind == EventKind.ABORT and not may_abort(game.game):
        raise Refusal("not_allowed", _("both sides have moved: the game can no longer be aborted, only resigned"))


def may_claim(game: StoredGame, seat: int | None, at: datetime) -> int:
    """Seat ``seat`` may claim a correspondence game's win at ``at``: its opponent, to move, is past their days. Returns that opponent."""
    clock = game.clock_at(at)
    if clock is None or clock.control.kind != "correspondence":
        raise Refusal("not_allowed", _("only a correspondence game's win on time is claimed: a real-time clock ends the game itself"))
    if game.is_finished:
        raise Refusal("game_over", _("the game is over"))
    if seat not in (0, 1) or clock.running is None or seat == clock.running:
        raise Refusal("not_allowed", _("only the player waiting for the other's move can claim the win"))
    if clock.flagged is None:
        raise Refusal("not_allowed", _("{name} still has time to move").format(name=game.names[clock.running]))
    return clock.flagged


def flagged(game: StoredGame, at: datetime) -> int | None:
    """The seat whose real-time clock has run out at ``at`` (the server then ends the game), or None."""
    clock = game.clock_at(at)
    if clock is None or clock.control.kind != "realtime" or game.is_finished:
        return None
    return clock.flagged


def ended_by_the_server(game: StoredGame, at: datetime) -> int | None:
    """The seat whose real-time clock the server ends the game on at ``at``: :func:`flagged`, but never the
    computer's, whose time only its own move ends (its clock runs while it thinks, not while its move waits)."""
    loser = flagged(game, at)
    return None if game.against_ai and loser == game.ai_seat else loser


def claimable_by(game: StoredGame, at: datetime) -> int | None:
    """The seat that may claim the win on time at ``at`` (:func:`may_claim`), if either may."""
    if game.control is None or game.control.kind != "correspondence":
        return None  # (at once: every state sent asks)
    return next((seat for seat in (0, 1) if allows(may_claim, game, seat, at)), None)


def creditable(game: StoredGame, at: datetime) -> int | None:
    """The seat the server may give time back to at ``at``: the side to move on a running real-time clock, in a game
    under way since its first move (None: nobody's clock is running that way)."""
    clock = game.clock_at(at)
    if clock is None or clock.control.kind != "realtime" or clock.running is None or game.is_finished or not game.move_times:
        return None
    return clock.running


def may_credit(game: StoredGame, value: str, seat: int | None, at: datetime) -> None:
    """The server may give back to the real-time side to move the time it took from it in this turn (never more, all
    of this turn's credits together)."""
    try:
        credited, seconds = parse_credit(value)
    except ValueError:
        raise Refusal("malformed", f"a credit of {value[:40]!r}") from None
    if seat is not None or creditable(game, at) != credited:
        raise Refusal("not_allowed", "only the server gives time back, to the real-time side to move")
    turn = (at - game.move_times[-1]).total_seconds()
    if game.credited_this_turn() + seconds > turn:
        raise Refusal("not_allowed", f"a credit of {seconds:g} s, {game.credited_this_turn():g} s given back already, for a turn of {turn:g} s")


def may_time_out(game: StoredGame, loser: int, by: int | None, at: datetime) -> None:
    """Seat ``loser`` may lose on time at ``at``: a real-time flag the server saw (``by`` None), or a correspondence win claimed by ``by``."""
    if by is None:
        if flagged(game, at) != loser:
            raise Refusal("not_allowed", f"seat {loser}'s time has not run out")
    elif may_claim(game, by, at) != loser:
        raise Refusal("not_allowed", f"seat {loser} is not the player past their days")


def may_rematch(game: StoredGame) -> None:
    """A rematch may be asked for once the game is over with a result, and only once (a lesson has none)."""
    if game.lesson is not None:
        raise Refusal("not_allowed", _("a lesson has no rematch: go on to the next lesson, or start this one again"))
    if game.mode == Mode.PUZZLE:
        raise Refusal("not_allowed", _("a puzzle has no rematch: take the next puzzle"))
    if not game.is_finished or game.status == "aborted":
        raise Refusal("not_allowed", _("a rematch can be asked for once the game is over"))
    if game.rematch is not None:
        raise Refusal("not_allowed", _("the rematch has already started: game {game}").format(game=game.rematch))


def play_on_from(game: StoredGame, ply: int) -> Position:
    """The position after move ``ply`` of ``game``, to play on from against the computer ("what if"): a finished game's only.

    A game still being played is not studied with the computer's help (that
    would be a hint in an online game); a lesson's game is the tutorial's, not
    the learner's to study (as its analysis). The position is the server's own,
    replayed from the game's log by the rules: nothing of it comes from the page.
    """
    if game.mode == Mode.LESSON:
        raise Refusal("not_allowed", _("a lesson's game is the tutorial's: start the lesson again instead"))
    if not game.is_finished or game.status == "aborted":
        raise Refusal("not_allowed", _("a game can be played on from once it is over"))
    positions = game.game.positions
    if not 0 <= ply < len(positions):
        raise Refusal("malformed", f"the game has positions 0 to {len(positions) - 1}, not {ply}")
    position = positions[ply]
    if position.is_over:
        raise Refusal("not_allowed", _("the game ends there: there is nothing to play on"))
    return position


@dataclass(frozen=True)
class Rematch:
    """The next game between a game's seats: each seat keeps its token, and the other side starts.

    (Seat 0 always starts, so the seats swap. Pass-and-play has one token for
    both seats: there the players trade names instead.)
    """

    names: list[str]
    ai_seat: int | None
    token_hashes: list[str | None]
    seats: list[int]  # the seat each seat's player (and token) takes in the rematch


def rematch_of(game: StoredGame) -> Rematch:
    seats = [0, 1] if game.mode == Mode.LOCAL else [1, 0]
    hashes: list[str | None] = [None, None]
    for seat, new_seat in enumerate(seats):
        hashes[new_seat] = game.token_hashes[seat]
    ai_seat = None if game.ai_seat is None else 1 - game.ai_seat
    return Rematch([game.names[1], game.names[0]], ai_seat, hashes, seats)


def allows(rule: Callable[..., object], *args: Any) -> bool:
    """Whether ``rule`` allows it (for the views, which say what a player may do without asking first)."""
    try:
        rule(*args)
    except Refusal:
        return False
    return True


def check(game: StoredGame, kind: str, value: Any, seat: int | None, at: datetime) -> str:
    """Whether the event ``kind value`` by ``seat`` (None: the server's), made at ``at``, may follow ``game`` as it
    stands; the value as the log keeps it (a move's canonical text: a player may write ``12r1@A1``).

    The one gate of the log: the replay calls it for every event, and the live
    server for every event it writes (:meth:`..live.LiveGames.record`), so
    what the server accepts and what a replay accepts are one thing.
    """
    try:
        checked = _CHECKS[EventKind(kind)]
    except ValueError:
        raise Refusal("malformed", f"unknown event kind {kind!r}") from None
    kept = checked(game, EventKind(kind), value, seat, at)
    return kept if kept is not None else str(value)


def check_live(game: StoredGame, kind: EventKind, value: Any, seat: int | None, at: datetime) -> str:
    """:func:`check`, then what only an event asked for now hears and a replay never does: the tutor's advice on a
    learner's move (:func:`check_lesson_move`)."""
    kept = check(game, kind, value, seat, at)
    if kind == EventKind.MOVE and seat is not None:
        check_lesson_move(game, seat, Move.from_text(kept))  # (the text just checked: a lookup, not a parse)
    return kept


def _check_move(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> str:
    return check_move(game, seat, value, at).text()


def _check_undo(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> None:
    if value != str(undo_count(game)):
        raise Refusal("not_allowed", f"an undo of {value} moves where the rules take back {undo_count(game)}")


def _check_end(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> None:
    if value not in ("0", "1"):
        raise Refusal("malformed", f"a {kind} by seat {value!r}")
    may_end(game, kind)


def _check_timeout(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> None:
    if value not in ("0", "1"):
        raise Refusal("malformed", f"a timeout of seat {value!r}")
    may_time_out(game, int(value), seat, at)


def _check_rematch(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> None:
    may_rematch(game)


def _check_credit(game: StoredGame, kind: EventKind, value: str, seat: int | None, at: datetime) -> None:
    may_credit(game, value, seat, at)


# Each kind's check; a check that returns a value gives the value as the log keeps it.
_CHECKS: dict[EventKind, Callable[[StoredGame, EventKind, str, int | None, datetime], str | None]] = {
    EventKind.MOVE: _check_move,
    EventKind.UNDO: _check_undo,
    EventKind.RESIGN: _check_end,
    EventKind.ABORT: _check_end,
    EventKind.TIMEOUT: _check_timeout,
    EventKind.REMATCH: _check_rematch,
    EventKind.CREDIT: _check_credit,
}
