"""A server's finished games read back from its database, for what studies them outside it (``quiltmaker puzzles generate --data``).

Only games played to their end count (not resigned, aborted, lessons or
puzzles): their last positions are real endgames. Each is replayed by the
rules as the server loads it; a game whose log the rules reject is skipped,
as the server would refuse to show it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import select

from ...core.game import Game
from ..db.database import Database
from .kinds import Mode
from ..db.schema import GameRow
from .store import GameStore, StoreError

STUDIED = (Mode.AI, Mode.LOCAL, Mode.ONLINE)  # the modes whose games are players' own


def finished_games(url: str) -> Iterator[tuple[Game, dict[str, Any]]]:
    """The games of the database at ``url`` played to their end, oldest first, each with its id as its source."""
    database = Database(url)
    store = GameStore(database)
    try:
        with database.reading() as session:
            ids = list(session.scalars(select(GameRow.id).where(GameRow.mode.in_(STUDIED)).order_by(GameRow.created, GameRow.id)))
        for game_id in ids:
            try:
                stored = store.load(game_id)
            except StoreError:
                continue
            if stored.ended is None and stored.game.position.is_over:
                yield stored.game, {"game": game_id}
    finally:
        store.close()
