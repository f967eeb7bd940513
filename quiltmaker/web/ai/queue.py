"""The order of the AI's moves when more are asked for than there are workers.

A plain pool serves its jobs first come, first served, so one client with a
dozen games (or games nobody plays any more) could make everyone else's AI
wait. Here the next move to run is the one whose client has the fewest AI
moves running, then the client served longest ago (round robin: with one
worker, "fewest running" is 0 for everyone once a move ends, so it alone
would fall back to arrival order), then one whose game has a seated player
connected now, then the oldest: every client gets its turn, and games being
played come before abandoned ones.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class _Waiting:
    client: str
    urgent: Callable[[], bool]
    order: int
    ready: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class MoveQueue:
    """At most ``slots`` AI moves at once; the rest wait, and leave in the order above."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.running: Counter[str] = Counter()  # client -> its AI moves running now
        self.waiting: list[_Waiting] = []
        self._order = itertools.count()
        # When each client last had a move started, kept while it has one running or waiting (so it stays bounded).
        self.last_started: dict[str, int] = {}
        self._starts = itertools.count()

    async def run(self, client: str, urgent: Callable[[], bool], work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work()`` when its turn comes; ``urgent()`` says, when asked, whether its game is being played."""
        if self.waiting or sum(self.running.values()) >= self.slots:
            entry = _Waiting(client, urgent, next(self._order))
            self.waiting.append(entry)
            try:
                await entry.ready  # _start_next counted it as running
            except asyncio.CancelledError:
                if entry in self.waiting:
                    self.waiting.remove(entry)
                elif entry.ready.done() and not entry.ready.cancelled():
                    self._finished(client)  # woken, then cancelled before it ran: give the slot on
                raise
        else:
            self._start(client)
        try:
            return await work()
        finally:
            self._finished(client)

    def _start(self, client: str) -> None:
        self.running[client] += 1
        self.last_started[client] = next(self._starts)

    def _finished(self, client: str) -> None:
        self.running[client] -= 1
        if self.running[client] <= 0:
            del self.running[client]
            if not any(w.client == client for w in self.waiting):
                self.last_started.pop(client, None)  # nothing more of its: it comes back as a new client
        self._start_next()

    def _start_next(self) -> None:
        while self.waiting and sum(self.running.values()) < self.slots:
            best = min(self.waiting, key=lambda w: (self.running[w.client], self.last_started.get(w.client, -1), not w.urgent(), w.order))
            self.waiting.remove(best)
            self._start(best.client)
            best.ready.set_result(None)
