"""The replay of a game's log: every event through the round's rules, then applied.

The live server passes every event through the same gate before it writes
it (:func:`.rules.check_live`, in :meth:`quiltmaker.web.live.LiveGames.record`),
and once it is written applies it with the same
:meth:`~.game.StoredGame.apply` the replay calls after its check: what the
server accepts and what a replay accepts are one thing.
"""

from __future__ import annotations

from ...core.errors import QuiltmakerError
from . import rules
from .game import Event, StoredGame


class CorruptLog(QuiltmakerError):
    """A log the rules reject: a gap, or an event that could not have been accepted."""


def replay(game: StoredGame, events: list[Event]) -> None:
    """Replay events onto ``game``, each checked by the rules first; those it already has are skipped.

    Raises:
        CorruptLog: when the log has a gap or an event the rules reject.
    """
    for event in events:
        if event.number < game.version:
            continue
        try:
            if event.number != game.version:
                raise QuiltmakerError(f"event {game.version} is missing")
            rules.check(game, event.kind, event.value, event.seat, event.at)
            game.apply(event)
        except (QuiltmakerError, ValueError) as error:
            raise CorruptLog(f"game {game.id} has a corrupt log at event {event.number}: {error}") from error
