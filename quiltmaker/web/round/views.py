"""What the browser sees: JSON views of games, built by the rules engine.

The page draws these and nothing else: legal moves, the reason for the
turn, the buttons an advance earns and the scoring all come from here.
"""

from __future__ import annotations

import functools
import operator
import weakref
from datetime import datetime, timezone
from typing import Any

from cachetools import LRUCache

from ... import i18n
from ...ai.players import forecast
from ...core.components import BOARD_SIZE, SQUARES, PATCHES, TIME_TRACKS
from ...core.game import Game
from ...core.moves import PLACEMENTS, SPECIAL, SPECIAL_MOVES, Move, square_name
from ...core.position import NO_BONUS, Position
from ...i18n import _, ngettext
from ...tutorial import LESSONS, facts, marked_squares, progress, tutor_moves
from ...words import move_summary, turn_reason
from . import rules
from .clocks import clock_view
from .game import BOTH_SEATS, StoredGame
from .kinds import EventKind


class QuiltSquares:
    """Which patch covers each square of a game's two quilts, moved on a move at a time: a patch id, ``"S"`` (special)
    or ``None``; ``"X"`` for a square covered already at the game's start (a puzzle's, whose earlier moves it does not
    hold).

    Every state draws both quilts, and drawing them from the whole move list again took most of the board's view;
    a live game's squares are kept (:func:`quilt_grids`) and moved on by the moves played since.
    """

    def __init__(self, game: Game) -> None:
        self.moves: list[Move] = []  # the moves drawn, the very objects of the game's list (an undo is told by them)
        self.start = game.positions[0].quilts
        self.squares = self._blank()
        self.rows = [self._rows(0), self._rows(1)]  # (shared by the states sent: made anew when a quilt changes, never changed)

    def _blank(self) -> list[list[int | str | None]]:
        return [["X" if quilt >> square & 1 else None for square in range(SQUARES)] for quilt in self.start]

    def _rows(self, player: int) -> list[list[int | str | None]]:
        squares = self.squares[player]
        return [squares[row : row + BOARD_SIZE] for row in range(0, SQUARES, BOARD_SIZE)]

    def at(self, game: Game, ply: int) -> list[list[list[int | str | None]]]:
        """Both quilts after ``ply`` moves of the game, as rows; moving back (an undo, a replay's earlier step) draws again."""
        changed = set()
        if ply < len(self.moves) or still_played(self.moves, game.moves) < len(self.moves):
            self.moves, self.squares = [], self._blank()
            changed = {0, 1}
        drawn = len(self.moves)
        positions = game.positions if ply > drawn else ()
        for index in range(drawn, ply):
            move = game.moves[index]
            covered = "S" if move.kind == SPECIAL else move.patch
            player = positions[index].to_move
            assert player is not None  # (a move is made by the player to move)
            squares = self.squares[player]
            for square in _squares(move):
                squares[square] = covered
            changed.add(player)
            self.moves.append(move)
        for player in changed:
            self.rows[player] = self._rows(player)
        return list(self.rows)


def still_played(drawn: list[Move], moves: list[Move]) -> int:
    """How many of the moves a view was drawn from are still the game's first moves: the very objects, so that an
    undo followed by another move in its place is told from the move it replaced."""
    if len(drawn) <= len(moves) and all(map(operator.is_, drawn, moves)):
        return len(drawn)  # (the usual case, a move or more played since: one pass in C)
    return next((ply for ply, (was, played) in enumerate(zip(drawn, moves)) if was is not played), min(len(drawn), len(moves)))


# Each game's quilts, as long as the game is in memory. Read on the event loop only.
_QUILTS: weakref.WeakKeyDictionary[Game, QuiltSquares] = weakref.WeakKeyDictionary()


def quilt_grids(game: Game, ply: int | None = None) -> list[list[list[int | str | None]]]:
    """Both quilts after ``ply`` moves of ``game`` (all by default), from the squares kept for it (:class:`QuiltSquares`)."""
    kept = _QUILTS.get(game)
    if kept is None:
        _QUILTS[game] = kept = QuiltSquares(game)
    return kept.at(game, len(game.moves) if ply is None else min(ply, len(game.moves)))


@functools.cache
def _squares(move: Move) -> tuple[int, ...]:
    return tuple(row * BOARD_SIZE + col for row, col in move.cells)


def legal_view(position: Position, names: list[str]) -> dict[str, Any]:
    """The moves of the player to move, grouped for drawing: advance, buys by patch and orientation, specials.

    The same moves as :meth:`Position.legal_moves`, read off a table of each
    patch's placements by orientation (a test holds the two equal): a state
    is sent after every move, and listing the moves as objects first took
    most of its time.
    """
    player = position.to_move
    view: dict[str, Any] = {"advance": None, "buys": [], "specials": []}
    if player is None:
        return view
    if position.pending:
        quilt = position.quilts[player]
        view["specials"] = [dict(entry) for mask, entry in _SPECIALS if not mask & quilt]
        return view
    after = position.play_unchecked(Move.advance())
    view["advance"] = {
        "move": "A",
        "spaces": after.times[player] - position.times[player],
        "buttons": after.buttons[player] - position.buttons[player],
    }
    quilt, buttons = position.quilts[player], position.buttons[player]
    for patch_id in position.offered:
        patch = PATCHES[patch_id]
        affordable = patch.cost <= buttons
        entry: dict[str, Any] = {"patch": patch_id, "affordable": affordable, "reason": None}
        if not affordable:
            entry["reason"] = ngettext("costs {n} button; {name} has {buttons}", "costs {n} buttons; {name} has {buttons}", patch.cost).format(
                n=patch.cost, name=names[player], buttons=buttons
            )
        entry["orientations"] = _orientations(patch_id, quilt if affordable else -1)
        if affordable and not any(o["anchors"] for o in entry["orientations"]):
            entry["reason"] = _("fits nowhere on the quilt")
        view["buys"].append(entry)
    return view


def _placements() -> list[list[tuple[str, list[tuple[int, int]]]]]:
    """Each patch's purchases by orientation (in its orientations' order): each one's squares as a mask, and its anchor
    square (its bounding box's top-left), in the order of the moves. Computed once."""
    table = []
    for patch in PATCHES:
        by_transform: dict[str, list[tuple[int, int]]] = {o.transform: [] for o in patch.orientations}
        for move in PLACEMENTS[patch.id]:
            assert move.orientation is not None
            anchor = min(r for r, _ in move.cells) * BOARD_SIZE + min(c for _, c in move.cells)
            by_transform[move.orientation].append((move.mask, anchor))
        table.append(list(by_transform.items()))
    return table


_PLACEMENTS = _placements()


# A player's quilt is often the same at their next turn, and two of the three patches on offer stay: the placements
# found are kept (shared by the states sent, never changed).
@functools.lru_cache(maxsize=4096)
def _orientations(patch_id: int, quilt: int) -> list[dict[str, Any]]:
    """Where each orientation of a patch fits on ``quilt`` (its anchors; -1: nowhere, the patch is not affordable)."""
    return [
        {"transform": transform, "anchors": [anchor for mask, anchor in placements if not mask & quilt] if quilt >= 0 else []}
        for transform, placements in _PLACEMENTS[patch_id]
    ]


# A special patch's placements (the core's, each square once) and each one's entry, worded once.
_SPECIALS = [(m.mask, {"move": m.text(), "square": square_name(*m.cells[0]), "cell": list(m.cells[0])}) for m in SPECIAL_MOVES]


def score_breakdown(position: Position) -> list[dict[str, int]]:
    """Each player's score in the rules' rows (:meth:`Position.score_rows`): buttons, the bonus, the empty squares, their penalty."""
    return [{**position.score_rows(player)._asdict(), "total": position.score(player)} for player in (0, 1)]


def result_view(stored: StoredGame) -> dict[str, Any] | None:
    """How the game ended: the winner, ``by`` score (with the tie-break), resignation, time or claim, and the scoring.

    ``None`` while it is played, and for an aborted game (no result).
    """
    position = stored.game.position
    ending = stored.ended
    if ending is not None:
        if ending.winner is None:
            return None  # aborted
        return {
            "winner": ending.winner,
            "by": ending.by,
            "tiebreak": False,
            "scores": list(position.scores),  # as they stood when the game was resigned or its time ran out
            "breakdown": score_breakdown(position),
        }
    if not position.is_over:
        return None
    return {
        "winner": position.winner,
        "by": "score",
        "tiebreak": position.decided_by_tiebreak,
        "scores": list(position.scores),
        "breakdown": score_breakdown(position),
    }


# The parts of a state that only its game's version decides (the board, the moves that can be made, the forecast),
# for the states of the same version sent again: a socket's greeting and each player's coming or going send the
# version every socket already has. Keyed by the game, its version, the language and the seats' names (the turn's
# reason names them); bounded, since a game's start offers hundreds of placements. Read on the event loop only.
VERSION_VIEWS: LRUCache[tuple[str, int, str, tuple[str, ...]], dict[str, Any]] = LRUCache(maxsize=256)


def _version_view(stored: StoredGame) -> dict[str, Any]:
    key = (stored.id, stored.version, i18n.language(), tuple(stored.names))
    view = VERSION_VIEWS.get(key)
    if view is None:
        game = stored.game
        position = game.position
        view = {
            **board_view(game, len(game.moves), stored.names),
            "forecast": [forecast(position, 0), forecast(position, 1)],
            "legal": legal_view(position, stored.names),
        }
        VERSION_VIEWS[key] = view
    return view


def state_view(
    stored: StoredGame, ai_thinking: bool = False, presence: list[bool] | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The whole state of a game, as every client is sent it (its clocks as they stand at ``now``)."""
    game = stored.game
    now = now or datetime.now(timezone.utc)
    clock = stored.clock_at(now)
    position = game.position
    positions = game.positions
    # The move list grows by a move a state: entries are kept while their move is unchanged (an undo drops them).
    drawn, entries = stored.move_entries.setdefault(i18n.language(), ([], []))
    moves = game.moves
    kept = still_played(drawn, moves)
    del drawn[kept:], entries[kept:]
    for ply in range(len(drawn), len(moves)):
        move = moves[ply]
        before = positions[ply]
        drawn.append(move)
        entries.append({"ply": ply + 1, "player": before.to_move, "move": move.text(), "summary": move_summary(before, move)})
    ai = None
    if stored.against_ai:
        # `plays`: whether it takes its turn now (a lesson's tutor waits once the lesson is done).
        plays = stored.lesson is None or tutor_moves(stored.lesson, game)
        ai = {"level": stored.ai_level, "seat": stored.ai_seat, "thinking": ai_thinking, "plays": plays}
    rematch = rules.rematch_of(stored)
    return {
        "id": stored.id,
        "version": stored.version,
        "mode": stored.mode,
        "status": stored.status,
        "rematch": stored.rematch,
        "rematch_seats": rematch.seats,
        "rematch_first": rematch.names[0],  # the rematch's seat 0, who moves first in it
        "variant": position.variant,
        "names": stored.names,
        # Whether an account holds each seat: the page marks a guest's name as a guest's, which no name can hide.
        "accounts": stored.account_seats,
        "ai": ai,
        **_version_view(stored),
        "income_spaces": list(TIME_TRACKS[position.variant].income_spaces),
        "moves": list(entries),
        "result": result_view(stored),
        # What a player may do now, by the round's rules (the server checks again when asked).
        "may_move": rules.seats_that_may_move(stored),
        "may_rematch": stored.is_finished and rules.allows(rules.may_rematch, stored),  # (only a finished game's: asked at once)
        "hints": rules.allows(rules.may_hint, stored),
        "undo": rules.allows(rules.may_undo, stored),
        "can_resign": rules.allows(rules.may_end, stored, EventKind.RESIGN),
        "can_abort": rules.allows(rules.may_end, stored, EventKind.ABORT),
        "lesson": lesson_view(stored),
        "puzzle": stored.puzzle,  # a puzzle game's task and, once answered, its verdict (puzzles.view)
        # Whether each seat's player is here now (a socket open to this server process; the AI always is).
        "presence": presence if presence is not None else [False, False],
        "clock": None if clock is None else clock_view(clock, now),
        # A rated game's family and, once rated, each seat's rating before and after (None: casual).
        "rating": stored.rating,
        # A game waiting for its second player in the lobby: an open challenge, or one for a named player.
        "offer": stored.offer if stored.status == "waiting" else None,
        # The seat that may claim the win on time (a correspondence opponent past their days).
        "claimable_by": rules.claimable_by(stored, now),
    }


def changed_fields(shown: dict[str, Any], state: dict[str, Any]) -> tuple[set[str], int]:
    """What differs between the state a socket was sent last and the new one: the fields (but the move list) whose
    values differ, and how many of the shown move list's entries the new one keeps (an undo drops some; a move adds)."""
    fields = {name for name, value in state.items() if name != "moves" and shown.get(name) != value}
    kept = 0
    for before, now in zip(shown["moves"], state["moves"]):
        if before is not now and before != now:  # (the entries of a game's list are kept objects: mostly the same)
            break
        kept += 1
    return fields, kept


def lesson_view(stored: StoredGame) -> dict[str, Any] | None:
    """A lesson game's words, its steps and how far the learner is, the numbers filled in from the lesson's start."""
    lesson = stored.lesson
    if lesson is None:
        return None
    now = progress(lesson, stored.game)
    numbers = facts(lesson.start)
    return {
        "number": lesson.number,
        "count": len(LESSONS),
        "title": _(lesson.title),
        "intro": [_(paragraph).format(**numbers) for paragraph in lesson.intro],
        "steps": [
            # The last step is ticked with the lesson (a special patch it earned placed too).
            {"task": _(step.task).format(**numbers), "done": now.done or (index < now.step and index < len(lesson.steps) - 1)}
            for index, step in enumerate(lesson.steps)
        ],
        "done": now.done,
        "praise": _(lesson.praise) if now.done else None,
        "spotlight": lesson.spotlight,
        "marks": [list(cell) for cell in marked_squares(lesson, stored.game)],
        "next": lesson.number + 1 if lesson.number < len(LESSONS) else None,
    }


def last_move_view(game: Game, ply: int) -> dict[str, Any]:
    """The move that led to position ``ply``, for the page to mark and to animate.

    Who, what, which squares, the income paid at each button space crossed,
    and for a special patch the track space it came from.
    """
    before, move = game.positions[ply - 1], game.moves[ply - 1]
    effect = before.effect(move)
    crossed = effect.income_spaces
    return {
        "player": effect.player,
        "kind": move.kind,
        "patch": move.patch,
        "cells": [list(cell) for cell in move.cells],
        # Each income space crossed pays the same (the quilt's income after the purchase): [space, buttons] each.
        "income_paid": [[space, effect.income // len(crossed)] for space in crossed] if effect.income else [],
        "from_space": _special_source(game, ply - 1) if move.kind == SPECIAL else None,
    }


def _special_source(game: Game, index: int) -> int | None:
    """The track space of the special patch placed by move ``index``: taken by the last move that was not a placement."""
    crossing = index - 1
    while crossing >= 0 and game.moves[crossing].kind == SPECIAL:
        crossing -= 1
    if crossing < 0:
        return None
    taken = game.positions[crossing].effect(game.moves[crossing]).specials_taken
    placed = index - crossing - 1  # the first, second... placement after the move that took them
    return taken[placed] if placed < len(taken) else None


def board_view(game: Game, ply: int, names: list[str]) -> dict[str, Any]:
    """What the board shows after ``ply`` moves of ``game``: the live state's drawing, and each step of a replay."""
    position = game.positions[ply]
    track = TIME_TRACKS[position.variant]
    last = game.moves[ply - 1] if ply else None
    return {
        "position": position.text(),
        # The move that led here, for the page to mark until the next one: who, what, which squares.
        "last_move": None if last is None else last_move_view(game, ply),
        "to_move": position.to_move,
        "turn_reason": turn_reason(position, names),
        "times": list(position.times),
        "buttons": list(position.buttons),
        "income": list(position.income),
        "on_top": position.on_top,
        "shared_space": shared_space(position),
        "specials": [s for s in track.special_spaces if position.specials >> s & 1],
        "bonus": position.bonus if position.bonus != NO_BONUS else -1,
        "pending": position.pending,
        "quilts": quilt_grids(game, ply),
        "circle": list(position.circle),
        "offered": list(position.offered),
        "scores": list(position.scores),
        "score_breakdown": score_breakdown(position),  # what each score is made of, for the page to put in words
    }


def shared_space(position: Position) -> dict[str, Any] | None:
    """Both tokens on one space: whose is on top, and whether that player moves next for it (the rules' :attr:`Position.to_move`)."""
    if position.times[0] != position.times[1]:
        return None
    return {"on_top": position.on_top, "moves_first": position.to_move == position.on_top}


def replay_view(stored: StoredGame) -> dict[str, Any]:
    """The board after every ply of a game, the start first, for the replay (the page keeps no rules to rebuild them)."""
    game = stored.game
    return {
        "version": stored.version,
        "variant": game.position.variant,
        "positions": [{"ply": ply, **board_view(game, ply, stored.names)} for ply in range(len(game.moves) + 1)],
    }


def held_seat(stored_seat: str) -> int | str:
    """A seat an account holds, as the page reads it: 0, 1 or "both" (the accounts' table keeps it as text)."""
    return stored_seat if stored_seat == BOTH_SEATS else int(stored_seat)


def summary_view(stored: StoredGame) -> dict[str, Any]:
    """A line of the lobby's list of games."""
    position = stored.game.position
    return {
        "id": stored.id,
        "mode": stored.mode,
        "status": stored.status,
        "names": stored.names,
        "version": stored.version,
        "to_move": position.to_move,
        "result": result_view(stored),
        "created": stored.created.isoformat(),
        "lesson": None if stored.lesson is None else {"number": stored.lesson.number, "done": progress(stored.lesson, stored.game).done},
        "clock": None if stored.control is None else stored.control.words,
    }
