"""The puzzles' HTTP API: the set's size and the player's puzzle rating, and the next puzzle as a game of one move.

The puzzle, its solutions and its judging are :mod:`.puzzles`'; a puzzle is
played on the game page as a ``puzzle`` game whose start is the puzzle's
position, the player seated to move (docs/web.md, "Puzzles").
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field, field_validator

from ...core.position import Position
from ...i18n import N_, _
from .. import contract
from ..account.accounts import seat_name_refusal
from ..dependencies import Server, Viewer, Writer, quota, too_many
from ..round.kinds import Mode
from ..setup import GameSetup, held_by

router = APIRouter(prefix="/api")
OTHER_SIDE = N_("Opponent")  # the puzzle's other seat: nobody plays it (the puzzle ends with the player's move)


class NextPuzzle(BaseModel):
    puzzle: str | None = Field(default=None, max_length=16)  # one puzzle by its id (a link to it); else the server chooses
    name: str | None = Field(default=None, max_length=40)  # a guest's name on the quilt

    @field_validator("name")
    @classmethod
    def _a_seat_name(cls, name: str | None) -> str | None:
        refused = None if name is None else seat_name_refusal(name)
        if refused is not None:
            raise ValueError(refused)
        return name


@router.get("/puzzles", response_model=contract.PuzzleSet)
async def puzzle_set(account: Viewer, server: Server) -> dict[str, Any]:
    """How many puzzles there are of each kind, and the signed-in player's puzzle rating (None before their first)."""
    puzzles = server.puzzles
    player = None if account is None else await asyncio.to_thread(puzzles.player_rating, account.id)
    return {"count": len(puzzles.all), "kinds": dict(Counter(p.kind for p in puzzles.all)), "player": player}


@router.post("/puzzles", response_model=contract.SeatTaken, dependencies=[quota("create", N_("too many new games from your address: wait {seconds} s"))])
async def next_puzzle(wanted: NextPuzzle, account: Writer, server: Server) -> dict[str, Any]:
    """A new puzzle game: the one asked for, or one the player has not tried, near their puzzle rating."""
    puzzles = server.puzzles
    if account is not None:
        wait = server.quotas.wait("puzzle", f"account {account.id}")
        if wait is not None:
            raise too_many(wait, N_("too many puzzles for one account: wait {seconds} s"))
    if wanted.puzzle is not None:
        puzzle = puzzles.by_id.get(wanted.puzzle)
        if puzzle is None:
            raise HTTPException(404, _("no puzzle {puzzle}").format(puzzle=repr(wanted.puzzle)))
    else:
        puzzle = await asyncio.to_thread(puzzles.choose, account.id if account else None, random.Random())
    seat = puzzle.to_move
    names = [_(OTHER_SIDE), _(OTHER_SIDE)]
    names[seat] = account.name if account is not None else (wanted.name or "").strip() or _("Player")
    made = await server.maker.start(
        GameSetup(Mode.PUZZLE, Position.from_text(puzzle.position), names, seat, held_by(seat, account.id if account else None), puzzle=puzzle.id)
    )
    return made.seat_taken()
