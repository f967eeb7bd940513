"""Quick match: players waiting for an opponent at a time control, paired by rating as they wait (Lichess's pools).

A *seek* is a player waiting for a quick match at a time control. Each
process's matcher pairs the seeks every :data:`MATCH_SECONDS`: two seeks
match when their ratings are within both players' ranges, a range that
widens the longer a player waits (:func:`seek_range`). Pairing creates the
game with a seat token for each, kept in the seek's row until its player
fetches it (then the row goes). A seek whose player stops asking for
:data:`SEEK_TIMEOUT` seconds is dropped, and after :data:`AI_FALLBACK`
seconds the player is offered the AI level nearest their rating instead.
"""

from __future__ import annotations

import asyncio
import bisect
import hmac
import logging
import secrets
import threading
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update

from ..core.position import Position
from ..i18n import _
from .accounts import Account
from .database import as_utc, utc_now
from .lobby import Lobby
from .ratings import Ratings, ai_ratings, family_of, level_rated_on
from .round.clocks import TimeControl
from .round.game import secret_hash
from .schema import AccountGameRow, ChallengeRow, SeekRow
from .store import GameStore, StoreError

log = logging.getLogger("quiltmaker.web")
MATCH_SECONDS = 1.0
SEEK_TIMEOUT = 15.0  # seconds without a poll after which a seek is dropped (the page polls every second)
AI_FALLBACK = 20.0  # seconds of waiting after which the page offers a computer level instead
BASE_RANGE, RANGE_PER_SECOND, MAX_RANGE = 100.0, 20.0, 800.0


def seek_range(waited: float) -> float:
    """How far (in rating points) a seek looks for an opponent after ``waited`` seconds: ±100, widening by 20 a second, up to ±800."""
    return min(MAX_RANGE, BASE_RANGE + RANGE_PER_SECOND * max(0.0, waited))


def nearest_level(rating: float, control: TimeControl, rated: bool) -> tuple[str, float]:
    """The AI level whose fixed rating is nearest ``rating`` (for a rated game, of those rated on ``control``)."""
    levels = [(level, fixed) for level, fixed in ai_ratings().items() if not rated or level_rated_on(level, control)]
    return min(levels, key=lambda item: abs(item[1] - rating))


class QuickMatch:
    """The seeks in the games' database and their pairing (thread-safe; blocking calls, and the matcher's loop)."""

    def __init__(self, store: GameStore, ratings: Ratings, lobby: Lobby) -> None:
        self.store = store
        self.ratings = ratings
        self.lobby = lobby
        self._sessions = store.database.reading
        self._writing = store.writing
        self._matching = threading.Lock()
        self._again = threading.Event()  # a new seek came while a pass was running: run another at once

    async def run(self) -> None:
        """Pair the quick-match seeks every MATCH_SECONDS, or at once again after a pass that new seeks came during
        (every process does; see :meth:`match`)."""
        while True:
            self._again.clear()
            try:
                await asyncio.to_thread(self.match)
            except Exception:  # the database is away: try again soon
                log.exception("matching the quick-match seeks failed")
            if not self._again.is_set():
                await asyncio.sleep(MATCH_SECONDS)

    def seek(self, account: Account | None, name: str, control: str, rated: bool) -> tuple[str, str]:
        """A new seek; its id and the secret its player polls with."""
        seek_id, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(18)
        now = utc_now()
        rating = self.lobby.rating_of(account, family_of(TimeControl.parse(control).kind))
        with self._writing() as session:
            session.add(
                SeekRow(
                    id=seek_id,
                    secret_hash=secret_hash(secret),
                    account_id=account.id if account else None,
                    name=name,
                    rating=rating,
                    control=control,
                    rated=rated,
                    created=now,
                    polled=now,
                )
            )
        return seek_id, secret

    def poll(self, seek_id: str, secret: str) -> dict[str, Any]:
        """Where a seek stands: its game and seat once paired (handed over once: the row goes), or how it waits.

        Raises:
            StoreError: ``not_found`` for an unknown seek or a wrong secret (dropped, cancelled, or never).
        """
        now = utc_now()
        # Read first: a waiting seek is polled every second, and most polls need write nothing.
        with self._sessions() as session:
            row = session.get(SeekRow, seek_id)
        if row is None or not hmac.compare_digest(row.secret_hash, secret_hash(secret)):
            raise StoreError("not_found", _("this quick match is no longer waiting: start another"))
        if row.game_id is not None and row.token is not None and row.seat is not None:
            with self._writing() as session:
                handed = session.execute(delete(SeekRow).where(SeekRow.id == seek_id))
            if handed.rowcount != 1:  # type: ignore[attr-defined]
                raise StoreError("not_found", _("this quick match's seat was handed over already"))
            return {"matched": True, "game": row.game_id, "token": row.token, "seat": row.seat}
        if (now - as_utc(row.polled)).total_seconds() > SEEK_TIMEOUT / 3:  # still here: noted now and then, not every poll
            with self._writing() as session:
                session.execute(update(SeekRow).where(SeekRow.id == seek_id).values(polled=now))
        waited = (now - as_utc(row.created)).total_seconds()
        level, level_rating = nearest_level(row.rating, TimeControl.parse(row.control), row.rated)
        return {
            "matched": False,
            "control": row.control,
            "rated": row.rated,
            "waited": round(waited, 1),
            "rating": round(row.rating),
            "range": round(seek_range(waited)),
            "fallback": {"level": level, "rating": round(level_rating), "after": AI_FALLBACK},
        }

    def cancel(self, seek_id: str, secret: str) -> dict[str, Any] | None:
        """Withdraw a seek not yet paired (None); if it was paired meanwhile, its seat (as :meth:`poll` hands it)."""
        with self._writing() as session:
            row = session.get(SeekRow, seek_id)
            if row is None or not hmac.compare_digest(row.secret_hash, secret_hash(secret)):
                raise StoreError("not_found", _("this quick match is no longer waiting"))
            gone = session.execute(delete(SeekRow).where(SeekRow.id == seek_id, SeekRow.game_id.is_(None)))
            if gone.rowcount == 1:  # type: ignore[attr-defined]
                return None
        paired = self.poll(seek_id, secret)
        return paired if paired.get("matched") else None

    def seeking(self) -> int:
        since = utc_now() - timedelta(seconds=SEEK_TIMEOUT)
        with self._sessions() as session:
            return len(list(session.scalars(select(SeekRow.id).where(SeekRow.game_id.is_(None), SeekRow.polled >= since))))

    def match(self, now: datetime | None = None, seek_id: str | None = None) -> list[str]:
        """Pair the waiting seeks that fit each other's ranges, nearest ratings first; return the games made.

        With ``seek_id``, only that seek looks for a partner (a new seek, at
        once); without, every waiting one does (the matcher, each second).
        Within a queue (a clock, rated or casual) the seeks are sorted by
        rating, so each looks only at its neighbours: a thousand seekers are
        paired in one pass. Any process may run this at any time: a pair is
        claimed by a compare-and-set on both seeks, and a game made for a pair
        another process claimed first is deleted again.
        """
        # This process's threads match one at a time (they would only race for the same seeks). A new seek that finds
        # a pass running does not wait for it: under a burst, its threads would queue here and hold every thread the
        # server has (200 seeks at once were paired in 6 s). The matcher runs another pass at once instead.
        if not self._matching.acquire(blocking=seek_id is None):
            self._again.set()
            return []
        try:
            return self._match(now or utc_now(), seek_id)
        finally:
            self._matching.release()

    def _match(self, now: datetime, seek_id: str | None) -> list[str]:
        if seek_id is None:
            with self._writing() as session:
                session.execute(delete(SeekRow).where(SeekRow.polled < now - timedelta(seconds=SEEK_TIMEOUT)))
                # Claimed for a game that was never finished (the process pairing them died): their players start again.
                session.execute(
                    delete(SeekRow).where(SeekRow.game_id.is_not(None), SeekRow.token.is_(None), SeekRow.created < now - timedelta(minutes=5))
                )
                waiting = list(session.scalars(select(SeekRow).where(SeekRow.game_id.is_(None))))
        else:  # one new seek: only its own queue, within the widest range, is read
            with self._sessions() as session:
                mine = session.get(SeekRow, seek_id)
                if mine is None or mine.game_id is not None:
                    return []
                query = select(SeekRow).where(
                    SeekRow.game_id.is_(None),
                    SeekRow.control == mine.control,
                    SeekRow.rated == mine.rated,
                    SeekRow.rating.between(mine.rating - MAX_RANGE, mine.rating + MAX_RANGE),
                    SeekRow.polled >= now - timedelta(seconds=SEEK_TIMEOUT),
                )
                waiting = list(session.scalars(query.limit(2000)))
        queues: dict[tuple[str, bool], list[SeekRow]] = {}
        for seek in waiting:
            queues.setdefault((seek.control, seek.rated), []).append(seek)
        made: list[str] = []
        for queue in queues.values():
            queue.sort(key=lambda seek: seek.rating)
            ratings = [seek.rating for seek in queue]
            paired: set[str] = set()
            seekers = [seek for seek in queue if seek_id is None or seek.id == seek_id]
            for first in sorted(seekers, key=lambda seek: seek.created):  # the longest waiting first
                if first.id in paired:
                    continue
                reach = seek_range((now - as_utc(first.created)).total_seconds())
                low, high = bisect.bisect_left(ratings, first.rating - reach), bisect.bisect_right(ratings, first.rating + reach)
                fits = [
                    other
                    for other in queue[low:high]
                    if other.id != first.id
                    and other.id not in paired
                    and (other.account_id is None or other.account_id != first.account_id)
                    and abs(other.rating - first.rating) <= seek_range((now - as_utc(other.created)).total_seconds())
                ]
                if not fits:
                    continue
                second = min(fits, key=lambda other: (abs(other.rating - first.rating), other.created))
                game_id = self._pair(first, second)
                if game_id is not None:
                    made.append(game_id)
                    paired.update((first.id, second.id))
        return made

    def _pair(self, first: SeekRow, second: SeekRow) -> str | None:
        """Make the game of two seeks and hand each its seat, in one transaction: both seeks are claimed by a
        compare-and-set (None, and nothing made, if either was taken meanwhile). One commit a pair, so that a burst
        of seeks is paired at the pace of the disk's writes, not a handful of them a pair."""
        seats = [first, second] if secrets.randbelow(2) == 0 else [second, first]
        control = TimeControl.parse(first.control)
        start = Position.initial(secrets.randbits(63), first_player=0)
        try:
            with self._writing() as session:
                game_id, token0, token1 = self.store.create(
                    "online", start, [seats[0].name, seats[1].name], creator_seat=0, control=control, session=session, both_seated=True
                )
                for seat, (seek, token) in enumerate(zip(seats, (token0, token1))):
                    claimed = session.execute(
                        update(SeekRow).where(SeekRow.id == seek.id, SeekRow.game_id.is_(None)).values(game_id=game_id, seat=seat, token=token)
                    )
                    if claimed.rowcount != 1:  # type: ignore[attr-defined]
                        raise _Paired  # rolls the whole pairing back
                if first.rated:  # a player who opens the game at once sees it rated
                    self.ratings.open_game(game_id, family_of(control.kind), [s.account_id for s in seats], session=session)
                session.add(
                    ChallengeRow(
                        game_id=game_id, kind="quick", control=first.control, rated=first.rated, creator_id=seats[0].account_id,
                        creator_name=seats[0].name, creator_rating=seats[0].rating, for_id=None, for_name=None, within=None,
                        created=utc_now(), taken=utc_now(),
                    )
                )
                for seat, seek in enumerate(seats):
                    if seek.account_id is not None:
                        session.add(AccountGameRow(account_id=seek.account_id, game_id=game_id, seat=str(seat)))
        except _Paired:
            return None  # another thread or process paired one of them first: nothing was made
        return game_id


class _Paired(Exception):
    """One of the two seeks was paired by another process meanwhile."""
