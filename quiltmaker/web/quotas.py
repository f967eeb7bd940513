"""Rate limits per client: how often one address may create games and send intents.

Counted with the ``limits`` library (moving windows, in this process's
memory): one client cannot flood the database or the workers, and a refusal
says how long to wait. Several server processes each count their own share.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from .settings import Settings


class Quotas:
    """The rate limits of one server process."""

    def __init__(self, settings: Settings) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.kinds: dict[str, list[RateLimitItem]] = {
            "create": parse_many(settings.create_limit),
            "intent": parse_many(settings.intent_limit),
            "account": parse_many(settings.account_limit),
            "chat": parse_many(settings.chat_limit),
            "hello": parse_many(settings.hello_limit),
            "offer": parse_many(settings.offer_limit),
            "sign_in_failure": parse_many(settings.sign_in_failures),  # counted by account, not address
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
