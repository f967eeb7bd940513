"""Which rated games count: the rules that keep a rating from being farmed.

One person with puppet accounts that lose to them on purpose climbed from
1500 to 2057 in 18 games. A rated game between people is settled without
rating anyone (:data:`UNRATED` says why, and the page says so) when:

- a side never made a move of its own (a game resigned before it began is
  an abort in all but name, as on Lichess);
- the two accounts were seen from one address in the last
  :data:`ADDRESS_DAYS` days and chose each other (a named challenge, an
  invitation link, or an open challenge of the lobby: every way but the
  quick match, whose pairing is the server's);
- the two accounts have had :data:`PAIR_GAMES_PER_DAY` rated games together
  in the last day already.

An address is kept as a digest, written when an account signs up or in and
on its writes (creating, joining or accepting a game, seeking), and
forgotten after :data:`ADDRESS_DAYS`. The rating arithmetic, and how much a
provisional opponent counts, is :mod:`.ratings`'.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from datetime import datetime, timedelta

from cachetools import TTLCache
from sqlalchemy import and_, bindparam, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from ..db.database import Database, utc_now
from ..round.game import StoredGame
from ..round.kinds import OfferKind
from ..db.schema import AccountAddressRow, ChallengeRow, RatingChangeRow

ADDRESS_DAYS = 30
PAIR_GAMES_PER_DAY = 5
NOTED_AGAIN = 600.0  # seconds before this process writes the same account's same address again
# Why a rated game rated nobody, as the state says it (the page words it): a side never moved, the accounts were seen
# from one address, they have had their rated games together for the day, or the computer ran out of time.
UNRATED = ("moves", "address", "pair", "computer_time")
_KNOWN = select(AccountAddressRow.seen).where(
    AccountAddressRow.account_id == bindparam("account"), AccountAddressRow.address_key == bindparam("key"), AccountAddressRow.seen >= bindparam("since")
)


def address_key(address: str) -> str:
    """An address as it is kept: a digest."""
    return hashlib.sha256(f"quiltmaker address {address}".encode()).hexdigest()


class AccountAddresses:
    """The addresses accounts were seen from (thread-safe; blocking calls)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._noted: TTLCache[tuple[int, str], bool] = TTLCache(maxsize=20_000, ttl=NOTED_AGAIN)

    async def note(self, account_id: int, address: str) -> None:
        """Account ``account_id`` was seen from ``address`` now (written at most every NOTED_AGAIN seconds: a write
        noted lately costs nothing more)."""
        key = (account_id, address_key(address))
        if not address or key in self._noted:
            return
        self._noted[key] = True
        await asyncio.to_thread(self._write, account_id, key[1])

    def _write(self, account_id: int, key: str) -> None:
        with contextlib.suppress(IntegrityError), self.database.writing() as session:  # (another process noted it at once)
            session.merge(AccountAddressRow(account_id=account_id, address_key=key, seen=utc_now()))

    def knows(self, account_id: int, address: str) -> bool:
        """Whether the account was seen from ``address`` in the last ADDRESS_DAYS days (signed up or in, or wrote)."""
        with self.database.reading_rows() as connection:
            since = utc_now() - timedelta(days=ADDRESS_DAYS)
            return connection.execute(_KNOWN, {"account": account_id, "key": address_key(address), "since": since}).first() is not None

    def purge(self) -> int:
        """Forget the addresses not seen for ADDRESS_DAYS; return how many."""
        with self.database.writing() as session:
            old = delete(AccountAddressRow).where(AccountAddressRow.seen < utc_now() - timedelta(days=ADDRESS_DAYS))
            return int(session.execute(old).rowcount)  # type: ignore[attr-defined]


def why_unrated(session: Session, stored: StoredGame, accounts: list[int | None], now: datetime) -> str | None:
    """Why a finished rated game rates nobody (a key of :data:`UNRATED`), or None when it counts."""
    if len(set(stored.game.movers)) < 2:
        return "moves"
    if None in accounts:
        return None  # against the computer: the rules below are about two people
    first, second = accounts
    if not _from_the_quick_match(session, stored.id) and _seen_together(session, first, second, now):  # type: ignore[arg-type]
        return "address"
    if _games_together(session, first, second, now) >= PAIR_GAMES_PER_DAY:  # type: ignore[arg-type]
        return "pair"
    return None


def _from_the_quick_match(session: Session, game_id: str) -> bool:
    return session.scalar(select(ChallengeRow.kind).where(ChallengeRow.game_id == game_id)) == OfferKind.QUICK


def _seen_together(session: Session, first: int, second: int, now: datetime) -> bool:
    mine, theirs = aliased(AccountAddressRow), aliased(AccountAddressRow)
    since = now - timedelta(days=ADDRESS_DAYS)
    shared = (
        select(mine.address_key)
        .join(theirs, and_(theirs.address_key == mine.address_key, theirs.account_id == second, theirs.seen >= since))
        .where(mine.account_id == first, mine.seen >= since)
        .limit(1)
    )
    return session.scalar(shared) is not None


def _games_together(session: Session, first: int, second: int, now: datetime) -> int:
    """Rated games the two accounts have had rated together in the last day."""
    mine, theirs = aliased(RatingChangeRow), aliased(RatingChangeRow)
    together = (
        select(func.count())
        .select_from(mine)
        .join(theirs, and_(theirs.game_id == mine.game_id, theirs.account_id == second))
        .where(mine.account_id == first, mine.at >= now - timedelta(days=1))
    )
    return int(session.scalar(together) or 0)
