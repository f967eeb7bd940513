"""The games in memory of one server process (:class:`LiveGames`), and what the services need of its sockets
(:class:`Sockets`).

A game is read from its log once and kept; it is written one event at a
time, through :meth:`LiveGames.holding` (its lock and latest version) and
:meth:`LiveGames.record` (the gate of the log, the write, the same apply as
the replay's): a player's intent, the clock's timeout, the computer's move
and a credit of time alike. The server's root (:class:`.games.GameServer`)
makes one and hands it to the services that read or write games; what they
need of the sockets is :class:`Sockets`, which the root is.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Coroutine, MutableMapping
from datetime import datetime
from typing import Any, Protocol

from cachetools import LRUCache

from ..i18n import _
from .bus import Bus, GameEnded
from .db.database import utc_now
from .lobby.challenges import Lobby
from .protocol import GAME_ID, Connection, ProtocolError
from .puzzle.puzzles import Puzzles
from .rating.ratings import Ratings
from .round import rules
from .round.game import Event, StoredGame
from .round.kinds import EventKind, Mode, OfferKind
from .round.store import GameStore, StoreError, replay
from .settings import Settings

CACHED_GAMES = 2000  # the addresses of games' players remembered (for the AI's fair queue)
# What a game in memory holds, measured with tracemalloc: a finished game of 42 moves, with its views in one
# language, held 41 KB, about a kilobyte a move (a position each) and a few for the rest.
GAME_BYTES, MOVE_BYTES = 8 * 1024, 1024


def game_bytes(stored: StoredGame) -> int:
    """About what a game holds in memory: its positions, with the move list worded in each language it was shown in."""
    return GAME_BYTES + MOVE_BYTES * len(stored.game.positions) * max(1, len(stored.move_entries))


class GameCache(LRUCache[str, StoredGame]):
    """The games in memory within a budget of bytes (:func:`game_bytes`, measured again each time a game is stored
    back), the least recently used forgotten first (with their lock, when nobody holds it)."""

    def __init__(self, budget: int, locks: dict[str, asyncio.Lock], current: set[str]) -> None:
        super().__init__(budget, getsizeof=game_bytes)
        self.locks = locks
        self.current = current

    def popitem(self) -> tuple[str, StoredGame]:
        game_id, stored = super().popitem()
        self.current.discard(game_id)
        lock = self.locks.get(game_id)
        if lock is not None and not lock.locked():
            del self.locks[game_id]
        return game_id, stored


class LiveGames:
    """The games in memory of one server process: loaded from their logs, held by one writer at a time, written
    through the gate of the log."""

    def __init__(self, settings: Settings, store: GameStore, bus: Bus, ratings: Ratings, puzzles: Puzzles, lobby: Lobby) -> None:
        self.store = store
        self.bus = bus
        self.ratings = ratings  # (a game's rating, its puzzle and its lobby offer are read with it)
        self.puzzles = puzzles
        self.lobby = lobby
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Games whose last event in the database this process wrote or read, with no news of another's since.
        self.current: set[str] = set()
        self.cache: MutableMapping[str, StoredGame] = GameCache(settings.game_cache_mb * 1024 * 1024, self.locks, self.current)
        self.players: MutableMapping[str, str] = LRUCache(CACHED_GAMES)  # game id -> the address of its player seated last (the AI's queue is fair by it)

    @contextlib.asynccontextmanager
    async def holding(self, game_id: str, trust_cache: bool = False) -> AsyncIterator[StoredGame]:
        """A game at its latest version (:meth:`load`), held for the block: nothing else here writes to it meanwhile.
        The one way to read a game and then write to it (a player's intent, the clock's timeout, the computer's move,
        a credit of time)."""
        async with self.locks[game_id]:
            yield await self.load(game_id, trust_cache)

    async def record(
        self, stored: StoredGame, version: int, kind: EventKind, value: str, seat: int | None, client_id: str | None, at: datetime | None = None
    ) -> int:
        """The one way an event enters a game (its lock held: :meth:`holding`): checked by the gate of the log that
        its replay passes too (:func:`.round.rules.check_live`), appended with the clocks it leaves, applied by the
        function the replay applies, and a game's end published. Returns the new version.

        Raises:
            Refusal: the rules do not allow it; nothing is written.
            StoreError: ``stale`` when another writer took the version first.
        """
        at, finished = at or utc_now(), stored.is_finished
        value = rules.check_live(stored, kind, value, seat, at)
        clock = stored.clock_after(kind, value, at)
        try:
            new_version = await self.store.database.commits.write(  # with the moves of other games that come meanwhile
                stored.id, lambda rows: self.store.append(stored.id, version, kind, value, seat, client_id, at, clock, rows))
        except StoreError:
            self.current.discard(stored.id)  # another process wrote first: the next load reads what it wrote
            raise
        if stored.version == version:  # (a refresh meanwhile may have brought it in already)
            stored.apply(Event(version, kind, value, seat, client_id, at))  # as the replay applies it, after the same check
        if stored.is_finished and not finished:
            ending = "played" if stored.ended is None else stored.ended.by
            await self.bus.publish(GameEnded(stored.id, new_version, ending, stored))
        return new_version

    async def load(self, game_id: str, trust_cache: bool = False) -> StoredGame:
        """The game at its latest version (``not_found`` for anything that is not a game id).

        Games stay in memory once loaded; a load reads only the events appended since (by this process or another)
        and replays them. ``trust_cache`` (an intent; a greeting, just after its socket's opening read the game; a
        chat line) skips even that read for a game still being played whose last event this process wrote or read,
        with no news of another process's since (:attr:`current`): if another wrote meanwhile, an intent's append
        finds its number taken and is answered ``stale``, as in any race. A socket's opening always reads.
        """
        if not GAME_ID.fullmatch(game_id):
            raise ProtocolError("not_found", _("no game {game}").format(game=repr(game_id[:40])))
        try:
            stored = self.cache.get(game_id)
            if trust_cache and stored is not None and game_id in self.current and not stored.is_finished:
                return stored
            if stored is None:
                stored = await asyncio.to_thread(self.store.load, game_id)
                stored.rating = await asyncio.to_thread(self.ratings.game_view, game_id)
                if stored.mode == Mode.PUZZLE:
                    stored.puzzle = await asyncio.to_thread(self.puzzles.state_of, stored)
                if stored.status == "waiting":
                    challenge = await asyncio.to_thread(self.lobby.challenge, game_id)
                    if challenge is not None and challenge["kind"] in (OfferKind.OPEN, OfferKind.NAMED):
                        stored.offer = {"kind": challenge["kind"], "for": challenge["for"]}
                self.cache[game_id] = stored
            else:
                # Applied here on the event loop, never in the thread, so no two coroutines apply at once.
                replay(stored, await asyncio.to_thread(self.store.refresh, stored))
                if stored.rating is not None and not stored.rating["settled"] and stored.is_finished:
                    stored.rating = await asyncio.to_thread(self.ratings.game_view, game_id)  # settled by another process
                if stored.puzzle is not None and stored.puzzle["answer"] is None and stored.is_finished:
                    stored.puzzle = await asyncio.to_thread(self.puzzles.state_of, stored)  # answered through another process
                self.cache[game_id] = stored  # its size measured again
            self.current.add(game_id)
            return stored
        except StoreError as error:
            if error.code == "corrupt":
                self.cache.pop(game_id, None)
            raise ProtocolError(error.code, str(error)) from None


class Sockets(Protocol):
    """What the services need of this process's sockets (the root, :class:`.games.GameServer`)."""

    connections: dict[str, set[Connection]]

    async def changed(self, stored: StoredGame) -> None: ...

    async def broadcast(self, stored: StoredGame) -> None: ...

    async def send(self, connection: Connection, text: str) -> None: ...

    def announce(self, stored: StoredGame) -> None: ...

    def in_background(self, work: Coroutine[Any, Any, Any]) -> None: ...

    def count(self, connection: Connection, kind: str, what: str) -> None: ...
