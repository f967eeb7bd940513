"""Puzzles on the server: a game of one move from the shipped set, its answer judged and rated (docs/web.md, "Puzzles").

The puzzles and their solutions are the package's (:mod:`quiltmaker.puzzles`,
proven by the exact solver); this module keeps who tried which, and the
ratings. As Lichess rates its puzzles, a signed-in player's answer is a
Glicko-2 game between the player and the puzzle: solved, the player wins;
missed, the puzzle does. A guest's answer is judged and shown but rates
nothing, so that nobody can move a puzzle's rating without an account.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select

from ...core.moves import ADVANCE, Move
from ...core.position import Position
from ...i18n import N_, _, ngettext
from ...puzzles import Puzzle, load
from ...words import move_summary, orientation_words
from ..bus import GameEnded
from ..db.database import Database
from ..rating.ratings import NEW, Rating, rated
from ..round.game import StoredGame
from ..round.kinds import Mode
from ..db.schema import AccountRow, PuzzleGameRow, PuzzlePlayerRow, PuzzleRatingRow

PUZZLE_RD = 200.0  # a shipped puzzle's first deviation: its rating is an estimate (docs/puzzles.md) until players answer it
NEAREST = 12  # the next puzzle is drawn from this many untried ones nearest the player's rating

TASKS = {
    "win": N_("Find the move that wins."),
    "only-move": N_("Only one move wins: find it, the patch and its place."),
    "bonus": N_("Find the move that wins: it takes the 7x7 bonus."),
}


@dataclass(frozen=True)
class Attempt:
    """A puzzle game's row: the puzzle, who tries it, and how the answer went (``solved`` None until answered)."""

    puzzle: Puzzle
    account_id: int | None
    solved: bool | None
    player: tuple[float, float] | None
    rating: tuple[float, float] | None


class Puzzles:
    """The shipped puzzles, each game's attempt, and the ratings of puzzles and players."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.all = load()
        self.by_id = {puzzle.id: puzzle for puzzle in self.all}

    # Choosing ------------------------------------------------------------------

    def choose(self, account_id: int | None, rng: random.Random) -> Puzzle:
        """The next puzzle for an account: one it has not tried, near its puzzle rating; for a guest, near a new player's."""
        with self.database.reading() as session:
            ratings = {row.puzzle_id: row.rating for row in session.scalars(select(PuzzleRatingRow))}
            tried: set[str] = set()
            player = NEW.rating
            if account_id is not None:
                tried = set(session.scalars(select(PuzzleGameRow.puzzle_id).where(PuzzleGameRow.account_id == account_id)))
                row = session.get(PuzzlePlayerRow, account_id)
                player = row.rating if row is not None else NEW.rating
        untried = [p for p in self.all if p.id not in tried] or list(self.all)
        untried.sort(key=lambda p: (abs(ratings.get(p.id, p.rating) - player), p.id))
        return rng.choice(untried[:NEAREST])

    # The answer ------------------------------------------------------------------

    async def on_game_ended(self, news: GameEnded) -> None:
        """A puzzle game ended here (its move was made): judged and rated once, before anyone sees it."""
        stored = news.stored
        if stored is not None and stored.mode == Mode.PUZZLE:
            stored.puzzle = await asyncio.to_thread(self.state_of, stored)

    def state_of(self, stored: StoredGame) -> dict[str, Any] | None:
        """A puzzle game's puzzle for its state (:func:`view`; None for a game that sets no puzzle of this version's set).

        Its one move, once made, is judged first, once, and rated for a
        signed-in player: the answer and both ratings in one transaction.
        """
        with self.database.reading() as session:
            shown = self._shown(session, stored)
            if shown is not None or not stored.game.moves:
                return shown
        with self.database.writing() as session:
            row = session.get(PuzzleGameRow, stored.id)
            if row is not None and row.puzzle_id in self.by_id and row.solved is None:  # another process may have judged it meanwhile
                now = datetime.now(timezone.utc)
                row.solved, row.answered = stored.game.moves[0].text() in {s.move for s in self.by_id[row.puzzle_id].solutions}, now
                if row.account_id is not None:
                    self._rate(session, row, row.solved, now)
            return self._shown(session, stored, judged=True)

    def _shown(self, session: Any, stored: StoredGame, judged: bool = False) -> dict[str, Any] | None:
        """The view of ``stored``'s puzzle as the session reads it; None when its made move waits to be judged (unless ``judged``)."""
        row = session.get(PuzzleGameRow, stored.id)
        if row is None or row.puzzle_id not in self.by_id:
            return None
        if row.solved is None and stored.game.moves and not judged:
            return None
        puzzle = self.by_id[row.puzzle_id]
        rating = session.get(PuzzleRatingRow, puzzle.id)
        return view(_attempt(puzzle, row), stored, rating.rating if rating is not None else float(puzzle.rating))

    def _rate(self, session: Any, row: PuzzleGameRow, solved: bool, now: datetime) -> None:
        """Rate an account's answer against the puzzle: its first answer to this puzzle only (as Lichess does). A puzzle
        tried again, its solution seen, is judged and never rated: one account cannot farm its rating on one puzzle,
        nor move the puzzle's rating for everyone by missing it again and again."""
        session.get(AccountRow, row.account_id, with_for_update=True)  # one answer of an account's at a time (PostgreSQL)
        earlier = session.scalar(
            select(PuzzleGameRow.game_id).where(
                PuzzleGameRow.account_id == row.account_id, PuzzleGameRow.puzzle_id == row.puzzle_id,
                PuzzleGameRow.game_id != row.game_id, PuzzleGameRow.solved.is_not(None),
            ).limit(1)
        )  # fmt: skip
        if earlier is not None:
            return
        puzzle = self.by_id[row.puzzle_id]
        player_row = session.get(PuzzlePlayerRow, row.account_id)
        if player_row is None:
            player_row = PuzzlePlayerRow(account_id=row.account_id, rating=NEW.rating, rd=NEW.rd, volatility=NEW.volatility, attempts=0, solved=0, updated=now)
            session.add(player_row)
        puzzle_row = session.get(PuzzleRatingRow, row.puzzle_id)
        if puzzle_row is None:
            puzzle_row = PuzzleRatingRow(puzzle_id=row.puzzle_id, rating=float(puzzle.rating), rd=PUZZLE_RD, volatility=NEW.volatility, attempts=0, solved=0)
            session.add(puzzle_row)
        player = Rating(player_row.rating, player_row.rd, player_row.volatility, player_row.attempts)
        problem = Rating(puzzle_row.rating, puzzle_row.rd, puzzle_row.volatility, puzzle_row.attempts)
        player_after, problem_after = rated(player, problem, 1.0 if solved else 0.0), rated(problem, player, 0.0 if solved else 1.0)
        row.player_before, row.player_after = player.rating, player_after.rating
        row.puzzle_before, row.puzzle_after = problem.rating, problem_after.rating
        player_row.rating, player_row.rd, player_row.volatility = player_after.rating, player_after.rd, player_after.volatility
        player_row.attempts, player_row.solved, player_row.updated = player_row.attempts + 1, player_row.solved + solved, now
        puzzle_row.rating, puzzle_row.rd, puzzle_row.volatility = problem_after.rating, problem_after.rd, problem_after.volatility
        puzzle_row.attempts, puzzle_row.solved = puzzle_row.attempts + 1, puzzle_row.solved + solved

    def player_rating(self, account_id: int) -> dict[str, Any] | None:
        """An account's puzzle rating, attempts and solves (None before its first rated answer)."""
        with self.database.reading() as session:
            row = session.get(PuzzlePlayerRow, account_id)
            if row is None:
                return None
            rating = Rating(row.rating, row.rd, row.volatility, row.attempts)
            return {"rating": round(rating.rating), "provisional": rating.provisional, "attempts": row.attempts, "solved": row.solved}


def _attempt(puzzle: Puzzle, row: PuzzleGameRow) -> Attempt:
    player = None if row.player_before is None or row.player_after is None else (row.player_before, row.player_after)
    rating = None if row.puzzle_before is None or row.puzzle_after is None else (row.puzzle_before, row.puzzle_after)
    return Attempt(puzzle, row.account_id, row.solved, player, rating)


def move_words(move: Move) -> str:
    """A puzzle's move as a player says it: "patch 25, turned once, at c4", "advancing", "the special patch on e5"."""
    text = move.text()
    if move.kind == ADVANCE:
        return _("advancing")
    square = text.split("@")[1]
    if move.patch is None:
        return _("the special patch on {square}").format(square=square)
    transform = text.split("@")[0].removeprefix(str(move.patch))
    return _("patch {patch}, {orientation}, at {square}").format(patch=move.patch, orientation=orientation_words(transform), square=square)


def outcome_words(winner: int, margin: int, mover: int) -> str:
    """A move's exact outcome for its mover, in words: "wins by 6 points", "loses by 2 points", "wins on the tie-break"."""
    won = winner == mover
    if margin == 0:
        return _("wins on the tie-break") if won else _("loses on the tie-break")
    points = abs(margin)
    if won:
        return ngettext("wins by {n} point", "wins by {n} points", points).format(n=points)
    return ngettext("loses by {n} point", "loses by {n} points", points).format(n=points)


def view(attempt: Attempt | None, stored: StoredGame, rating: float) -> dict[str, Any] | None:
    """A puzzle game's puzzle as the page shows it: the task, and once answered the verdict with the solution drawn."""
    if attempt is None:
        return None
    puzzle = attempt.puzzle
    start = Position.from_text(puzzle.position)
    answer = None
    if attempt.solved is not None and stored.game.moves:
        played = stored.game.moves[0]
        best = puzzle.solutions[0]
        move = Move.from_text(best.move)
        played_result = next((s for s in puzzle.solutions if s.move == played.text()), None)
        answer = {
            "solved": attempt.solved,
            "played": played.text(),
            "played_summary": move_summary(start, played),
            "played_words": move_words(played),
            "played_outcome": outcome_words(played_result.winner, played_result.margin, puzzle.to_move) if played_result else _("loses"),
            "solutions": [s.move for s in puzzle.solutions],
            "best": best.move,
            "best_summary": move_summary(start, move),
            "best_words": move_words(move),
            "best_outcome": outcome_words(best.winner, best.margin, puzzle.to_move),
            "best_cells": [list(cell) for cell in move.cells],
            "player_rating": None if attempt.player is None else {"before": round(attempt.player[0]), "after": round(attempt.player[1])},
            "puzzle_rating": None if attempt.rating is None else {"before": round(attempt.rating[0]), "after": round(attempt.rating[1])},
        }
    return {
        "id": puzzle.id,
        "kind": puzzle.kind,
        "task": _(TASKS[puzzle.kind]),
        "rating": round(rating),
        "seat": puzzle.to_move,
        "answer": answer,
    }
