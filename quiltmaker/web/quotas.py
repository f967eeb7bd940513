"""Rate limits per client: how often one address may create games and send intents.

Counted with the ``limits`` library (moving windows, in this process's
memory): one client cannot flood the database or the workers, and a refusal
says how long to wait. Several server processes each count their own share.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from .settings import Settings


SWEEP_SECONDS = 1.0  # how often the old entries of every process's counts are dropped


class SweptMemoryStorage(MemoryStorage):
    """The library's in-memory storage, its old entries dropped every SWEEP_SECONDS by one thread for the process.

    The library starts a new ``threading.Timer`` whenever its last one has run, every 10 ms under load, and
    starting a thread waits until it runs: on the event loop, beside busy threads, that held requests for up to
    half a second under 1,000 players (docs/benchmarks.md, "Capacity"). A moving window is read from its
    entries' times, so when they are dropped changes only the memory they take.
    """

    _all: weakref.WeakSet[SweptMemoryStorage] = weakref.WeakSet()
    _sweeper: threading.Thread | None = None
    _starting = threading.Lock()

    def __init__(self) -> None:
        super().__init__()
        SweptMemoryStorage._all.add(self)
        with SweptMemoryStorage._starting:
            if SweptMemoryStorage._sweeper is None:
                SweptMemoryStorage._sweeper = threading.Thread(target=SweptMemoryStorage._sweep, name="quotas-sweeper", daemon=True)
                SweptMemoryStorage._sweeper.start()

    @staticmethod
    def _sweep() -> None:
        while True:
            time.sleep(SWEEP_SECONDS)
            for storage in list(SweptMemoryStorage._all):
                getattr(storage, "_MemoryStorage__expire_events")()  # the library's own clean-up, on our schedule

    def _MemoryStorage__schedule_expiry(self) -> None:  # the library's private hook (its name mangled): _sweep does it
        pass


class Quotas:
    """The rate limits of one server process."""

    def __init__(self, settings: Settings) -> None:
        self.limiter = MovingWindowRateLimiter(SweptMemoryStorage())
        self.kinds: dict[str, list[RateLimitItem]] = {
            "create": parse_many(settings.create_limit),
            "intent": parse_many(settings.intent_limit),
            "account": parse_many(settings.account_limit),
            "chat": parse_many(settings.chat_limit),
            "hello": parse_many(settings.hello_limit),
            "offer": parse_many(settings.offer_limit),
            "sign_in_failure": parse_many(settings.sign_in_failures),  # counted by account and address
            "new_place_failure": parse_many(settings.new_place_failures),  # by account, from the addresses it is new to
            "puzzle": parse_many(settings.puzzle_limit),  # by account
        }

    def wait(self, kind: str, client: str) -> float | None:
        """Count one ``kind`` of request by ``client``; ``None`` when allowed, else the seconds until it would be."""
        return self._until_allowed(kind, client, self.limiter.hit)

    def exhausted(self, kind: str, key: str) -> float | None:
        """Whether ``key``'s quota of ``kind`` is used up, without counting: ``None`` when not, else the seconds to wait."""
        return self._until_allowed(kind, key, self.limiter.test)

    def _until_allowed(self, kind: str, key: str, allows: Callable[[RateLimitItem, str, str], bool]) -> float | None:
        for item in self.kinds[kind]:
            if not allows(item, kind, key):
                reset = self.limiter.get_window_stats(item, kind, key).reset_time
                return max(reset - time.time(), 0.1)
        return None

    def count(self, kind: str, key: str) -> None:
        """Count one ``kind`` against ``key``, allowed or not (a failure, known only once it happened)."""
        for item in self.kinds[kind]:
            self.limiter.hit(item, kind, key)
