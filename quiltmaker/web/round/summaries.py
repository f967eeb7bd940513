"""A finished game's line in every list, written once when it ends: profiles and lists read these, never logs.

A list of a hundred games used to replay a hundred logs (0.4 s of the server
cold; a game's log grows to 2,000 events). A finished game does not change
(a rematch is another game), so its line is kept in ``game_summaries`` as it
ended, and read back in one query. A game finished before this table existed
is summed up the first time a list shows it. A game still being played is
loaded as it stands (it is in memory while anyone plays it).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from ..bus import GameEnded
from ..db.database import Database
from ..protocol import ProtocolError
from .clocks import TimeControl
from .game import StoredGame
from ..db.schema import SummaryRow
from .views import summary_view

_KEEP = insert(SummaryRow)
_KEPT = select(SummaryRow.game_id, SummaryRow.summary).where(SummaryRow.game_id.in_(bindparam("ids", expanding=True)))


class Summaries:
    """The kept lines of finished games (thread-safe; blocking calls)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def keep(self, stored: StoredGame) -> None:
        """Keep a finished game's line (the clock as its control, worded when shown: the reader's language)."""
        line = {**summary_view(stored), "clock": None if stored.control is None else stored.control.short}
        with contextlib.suppress(IntegrityError), self.database.writing_rows() as connection:  # (another process kept it first)
            connection.execute(_KEEP, {"game_id": stored.id, "summary": line})  # (a plain statement: an ORM merge read the row first)

    async def on_game_ended(self, news: GameEnded) -> None:
        """A game ended here: its line in every list, once."""
        if news.stored is not None:
            await asyncio.to_thread(self.keep, news.stored)

    def kept(self, game_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The kept lines of those of ``game_ids`` that have one."""
        if not game_ids:
            return {}
        with self.database.reading_rows() as connection:  # (every list reads these: a plain statement, made once)
            return {row.game_id: row.summary for row in connection.execute(_KEPT, {"ids": game_ids})}


async def lines_of(server: Any, game_ids: list[str], kept: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The lines of games, in order, as a list shows them: kept ones read at once (or given: ``kept``, as
    :meth:`Summaries.kept` read them), the others loaded (and kept, once finished); an unknown game is left out, a
    damaged one is a line saying so (``status`` "corrupt")."""
    known = await asyncio.to_thread(server.summaries.kept, game_ids) if kept is None else kept
    lines = []
    for game_id in game_ids:
        if game_id in known:
            line = known[game_id]
            lines.append({**line, "clock": None if line["clock"] is None else TimeControl.parse(line["clock"]).words})
            continue
        try:
            stored = await server.games.load(game_id)
        except ProtocolError as error:
            if error.code == "corrupt":
                lines.append({"id": game_id, "status": "corrupt", "message": str(error)})
            continue
        if stored.is_finished:
            await asyncio.to_thread(server.summaries.keep, stored)
        lines.append(summary_view(stored))
    return lines
