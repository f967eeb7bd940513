"""Quick match: players waiting for an opponent at a time control, paired by rating as they wait (Lichess's pools).

A *seek* is a player waiting for a quick match at a time control. Each
process's matcher pairs the seeks every :data:`MATCH_SECONDS`: two seeks
match when their ratings are within both players' ranges, a range that
widens the longer a player waits (:func:`seek_range`). Pairing creates the
game with a seat token for each, kept in the seek's row for its player to
fetch: a poll waits up to :data:`POLL_WAIT` for the pairing, so a player
learns of it as soon as it is made. A seek whose player stops asking for
:data:`SEEK_TIMEOUT` seconds is dropped (a paired one too, its seat long
fetched), and after :data:`AI_FALLBACK` seconds the player is offered the AI
level nearest their rating instead.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import hmac
import logging
import secrets
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from ...core.position import Position
from ...i18n import _
from ..account.accounts import Account
from ..bus import Bus, GameStarted, Paired
from ..db.database import Database, as_utc, utc_now
from .challenges import Lobby
from ..rating.ratings import ai_ratings, family_of, level_rated_on
from ..round.clocks import TimeControl
from ..round.game import secret_hash
from ..round.kinds import Mode, OfferKind
from ..db.schema import SeekRow
from ..setup import GameMaker, GameSetup, Offer
from ..round.store import StoreError

log = logging.getLogger("quiltmaker.web")
MATCH_SECONDS = 1.0
# A pass's pairs are written this many to a transaction: a burst of seeks costs a few commits, not one a
# pair, and the seeks' own writes still get their turn between them.
PAIRS_PER_COMMIT = 16
POLL_WAIT = 2.0  # seconds a poll of a waiting seek waits for this process to pair it, before answering that it still waits
SEEK_TIMEOUT = 15.0  # seconds without a poll after which a seek is dropped (the page asks again as each poll ends)
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

    def __init__(self, database: Database, maker: GameMaker, lobby: Lobby, bus: Bus) -> None:
        self.maker = maker
        self.bus = bus
        self.lobby = lobby
        self._sessions = database.reading
        self._writing = database.writing
        self._writing_rows = database.writing_rows
        self._reading_rows = database.reading_rows
        self._matching = threading.Lock()
        self._again = threading.Event()  # a new seek came while a pass was running: run another at once
        # On the event loop: the matcher's sleep between passes, and the polls waiting for their seek's pairing.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        # The matcher's own thread: under a burst, the shared pool's queue holds the seeks' requests, and a pass
        # queued behind them would pair nobody until every seek was in.
        self._matcher = ThreadPoolExecutor(1, thread_name_prefix="quickmatch")
        self._waiting: dict[str, set[asyncio.Future[dict[str, Any] | None]]] = {}  # None: paired by another process
        self._telling: set[asyncio.Task[None]] = set()  # the news of the pairs made here, on its way

    async def run(self) -> None:
        """Pair the quick-match seeks every MATCH_SECONDS, or at once when a new seek found a pass running
        (every process does; see :meth:`match`)."""
        self._loop = asyncio.get_running_loop()
        while True:
            self._again.clear()
            self._wake.clear()
            try:
                await self._loop.run_in_executor(self._matcher, self.match)
            except Exception:  # the database is away: try again soon
                log.exception("matching the quick-match seeks failed")
            if not self._again.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), MATCH_SECONDS)

    def stop(self) -> None:
        """Let the matcher's thread go (the server is stopping; its loop's task was cancelled)."""
        self._matcher.shutdown(wait=False, cancel_futures=True)

    async def poll_or_wait(self, seek_id: str, secret: str, seconds: float) -> dict[str, Any]:
        """:meth:`poll`; for a seek still waiting, its seat the moment this process pairs it, if within ``seconds``.

        A seek another process pairs is heard of through the broker (:meth:`paired_elsewhere`), and read.

        Raises:
            StoreError: as :meth:`poll`.
        """
        self._loop = asyncio.get_running_loop()
        paired = self._loop.create_future()
        waiters = self._waiting.setdefault(seek_id, set())
        waiters.add(paired)  # before the read: a pairing made while it runs is not missed
        try:
            answer = await asyncio.to_thread(self.poll, seek_id, secret)
            if answer["matched"]:
                return answer
            seat: dict[str, Any] | None = None
            with contextlib.suppress(TimeoutError):
                seat = await asyncio.wait_for(paired, seconds)
            if seat is not None:
                return seat
            # Paired by another process (its seat is read), or still waiting (how long it has waited now, its range).
            return await asyncio.to_thread(self.poll, seek_id, secret)
        finally:
            waiters.discard(paired)
            if not waiters and self._waiting.get(seek_id) is waiters:
                del self._waiting[seek_id]

    def _call_on_loop(self, callback: Any, *arguments: Any) -> None:
        """Run ``callback`` on the event loop (the matcher and the seeks run in threads)."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the server is stopping
                self._loop.call_soon_threadsafe(callback, *arguments)

    def _hand_over(self, game_id: str, seats: dict[str, dict[str, Any]]) -> None:
        """On the event loop: answer the polls waiting here for these seeks' pairing, and tell the bus (the other
        processes' polls may be waiting for them)."""
        self._answer(seats)
        task = asyncio.create_task(self._tell(game_id, list(seats)))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell(self, game_id: str, seek_ids: list[str]) -> None:
        await self.bus.publish(GameStarted(game_id, Mode.ONLINE.value))
        await self.bus.publish(Paired(seek_ids))

    def paired_elsewhere(self, seek_ids: list[str]) -> None:
        """On the event loop: another process paired these seeks; the polls waiting for them here read their seats."""
        self._answer(dict.fromkeys(seek_ids))

    def _answer(self, seats: Mapping[str, dict[str, Any] | None]) -> None:
        """Wake the polls waiting for these seeks, each with its seat (None: read it)."""
        for seek_id, seat in seats.items():
            for waiter in self._waiting.pop(seek_id, ()):
                if not waiter.done():
                    waiter.set_result(seat)

    def seek(self, account: Account | None, name: str, control: str, rated: bool) -> tuple[str, str, dict[str, Any] | None]:
        """A new seek, paired at once if someone waits for exactly it; its id, the secret its player polls with, and
        its seat if it was paired at once (as :meth:`poll` hands it over: its player need not ask)."""
        seek_id, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(18)
        now = utc_now()
        rating = self.lobby.rating_of(account, family_of(TimeControl.parse(control).kind))
        new = Seeker(seek_id, account.id if account else None, name, rating, control, rated, now)
        # Plain statements on bare connections for a seek's own rows (its insert, its partner's query, its polls):
        # through ORM sessions they cost a burst of seeks several times their statements.
        with self._writing_rows() as connection:
            connection.execute(_SEEK, [{**dataclasses.asdict(new), "secret_hash": secret_hash(secret), "polled": now, "game_id": None, "seat": None, "token": None}])
        seats = self._match_now(utc_now(), new)  # someone may be waiting for exactly this
        return seek_id, secret, seats.get(seek_id)

    def poll(self, seek_id: str, secret: str) -> dict[str, Any]:
        """Where a seek stands: its game and seat once paired, or how it waits.

        The seat is handed over as often as its player asks (with the seek's
        secret), so that an answer lost on the way loses no seat; the row goes
        once its player stops asking, as every seek's does.

        Raises:
            StoreError: ``not_found`` for an unknown seek or a wrong secret (dropped, cancelled, or never).
        """
        now = utc_now()
        # Read first: a waiting seek is polled every second, and most polls need write nothing.
        with self._reading_rows() as connection:
            row = connection.execute(_SEEK_ROW, {"id": seek_id}).first()
        if row is None or not hmac.compare_digest(row.secret_hash, secret_hash(secret)):
            raise StoreError("not_found", _("this quick match is no longer waiting: start another"))
        if row.game_id is not None and row.token is not None and row.seat is not None:
            return seat_of(row.game_id, row.token, row.seat)
        if (now - as_utc(row.polled)).total_seconds() > SEEK_TIMEOUT / 3:  # still here: noted now and then, not every poll
            with self._writing_rows() as connection:
                connection.execute(_POLLED, {"seek": seek_id, "now": now})
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

    def match(self, now: datetime | None = None, new: Seeker | None = None) -> list[str]:
        """Pair the waiting seeks that fit each other's ranges, nearest ratings first; return the games made.

        With ``new``, only that seek looks for a partner (a new seek, at
        once); without, every waiting one does (the matcher, each second).
        Within a queue (a clock, rated or casual) the seeks are sorted by
        rating, so each looks only at its neighbours: a thousand seekers are
        paired in one pass. Any process may run this at any time: a pair is
        claimed by a compare-and-set on both seeks, and a game made for a pair
        another process claimed first is deleted again.
        """
        return list(dict.fromkeys(seat["game"] for seat in self._match_now(now or utc_now(), new).values()))

    def _match_now(self, now: datetime, new: Seeker | None) -> dict[str, dict[str, Any]]:
        """:meth:`match`: the seat of each seek paired."""
        # This process's threads match one at a time (they would only race for the same seeks). A new seek that finds
        # a pass running does not wait for it: under a burst, its threads would queue here and hold every thread the
        # server has (200 seeks at once were paired in 6 s). The matcher runs another pass at once instead.
        if not self._matching.acquire(blocking=new is None):
            self._again.set()
            self._call_on_loop(self._wake.set)  # the matcher may be asleep: it runs the next pass now, not in a second
            return {}
        try:
            return self._match(now, new)
        finally:
            self._matching.release()

    def _match(self, now: datetime, new: Seeker | None) -> dict[str, dict[str, Any]]:
        if new is not None:  # one new seek: the nearest partner for it alone, found by the database
            partner = self._partner(now, new)
            return self._pair([(new, partner)]) if partner is not None else {}
        with self._writing_rows() as connection:
            connection.execute(_FORGET_UNPOLLED, {"before": now - timedelta(seconds=SEEK_TIMEOUT)})
            connection.execute(_FORGET_UNFINISHED, {"before": now - timedelta(minutes=5)})
            waiting = [Seeker(*row) for row in connection.execute(_WAITING)]
        queues: dict[tuple[str, bool], list[Seeker]] = {}
        for seek in waiting:
            queues.setdefault((seek.control, seek.rated), []).append(seek)
        pairs: list[tuple[Seeker, Seeker]] = []
        for queue in queues.values():
            queue.sort(key=lambda seek: seek.rating)
            ratings = [seek.rating for seek in queue]
            reach = {seek.id: seek_range((now - as_utc(seek.created)).total_seconds()) for seek in queue}
            paired: set[str] = set()
            for first in sorted(queue, key=lambda seek: seek.created):  # the longest waiting first
                if first.id in paired:
                    continue
                low = bisect.bisect_left(ratings, first.rating - reach[first.id])
                high = bisect.bisect_right(ratings, first.rating + reach[first.id])
                second, nearest = None, (MAX_RANGE + 1, first.created)
                for other in queue[low:high]:
                    gap = abs(other.rating - first.rating)
                    if (
                        (gap, other.created) < nearest
                        and gap <= reach[other.id]
                        and other.id != first.id
                        and other.id not in paired
                        and (other.account_id is None or other.account_id != first.account_id)
                    ):
                        second, nearest = other, (gap, other.created)
                if second is not None:
                    pairs.append((first, second))
                    paired.update((first.id, second.id))
        made: dict[str, dict[str, Any]] = {}
        for start in range(0, len(pairs), PAIRS_PER_COMMIT):
            made |= self._pair(pairs[start : start + PAIRS_PER_COMMIT])
        return made

    def _partner(self, now: datetime, new: Seeker) -> Seeker | None:
        """The waiting seek a pass would pair a new seek with (nearest rating, then longest waiting), if any.

        A new seek's own range is the narrowest (:func:`seek_range` of 0 s), and
        every other seek's is at least as wide, so the partner is simply the
        nearest within it: one query, however many wait.
        """
        reach = seek_range((now - as_utc(new.created)).total_seconds())
        values = {
            "control": new.control, "rated": new.rated, "seek": new.id, "low": new.rating - reach, "high": new.rating + reach,
            "since": now - timedelta(seconds=SEEK_TIMEOUT), "rating": new.rating, "account": new.account_id,
        }
        with self._reading_rows() as connection:
            found = connection.execute(_PARTNER if new.account_id is None else _PARTNER_NOT_SELF, values).first()
        return None if found is None else Seeker(*found)

    def _pair(self, pairs: list[tuple[Seeker, Seeker]]) -> dict[str, dict[str, Any]]:
        """Make the games of these pairs of seeks in one transaction, and tell their waiting polls; each paired seek's seat.

        If another thread or process claimed a seek of them first, the
        transaction is rolled back and each pair is tried on its own.
        """
        try:
            # Plain statements on a bare connection: through an ORM session, a pair's rows cost several times their
            # statements, and a burst of seeks is paired while its players wait.
            with self._writing_rows() as connection:
                # Every seek of the batch locked first, in one order (PostgreSQL; SQLite has one writer anyway):
                # two processes pairing overlapping batches then wait for each other instead of deadlocking.
                ids = sorted(seek.id for pair in pairs for seek in pair)
                free = connection.execute(_FREE, {"ids": ids}).all()
                if len(free) != len(ids):
                    raise _Paired
                games = [self._make(connection, first, second) for first, second in pairs]
        except _Paired:
            return {} if len(pairs) == 1 else {seek: seat for pair in pairs for seek, seat in self._pair([pair]).items()}
        for game_id, seats in games:
            self._call_on_loop(self._hand_over, game_id, seats)
        return {seek: seat for _game, seats in games for seek, seat in seats.items()}

    def _make(self, connection: Connection, first: Seeker, second: Seeker) -> tuple[str, dict[str, dict[str, Any]]]:
        """Make the game of two seeks and give each its seat; raise :class:`_Paired` if either was claimed meanwhile.
        The game and each seek's seat (as :meth:`poll` hands it over)."""
        seats = [first, second] if secrets.randbelow(2) == 0 else [second, first]
        made = self.maker.make(GameSetup(
            Mode.ONLINE, Position.initial(secrets.randbits(63), first_player=0), [seats[0].name, seats[1].name], 0,
            (seats[0].account_id, seats[1].account_id), control=TimeControl.parse(first.control), rated=first.rated,
            offer=Offer(OfferKind.QUICK, seats[0].rating), both_seated=True,
        ), rows=connection)  # fmt: skip
        game_id, token0, token1 = made.id, made.token, made.other_token
        assert token1 is not None  # (both seated)
        for seat, (seek, token) in enumerate(zip(seats, (token0, token1))):
            claimed = connection.execute(_CLAIM, {"seek": seek.id, "game": game_id, "seat": seat, "token": token})
            if claimed.rowcount != 1:
                raise _Paired  # rolls the whole transaction back
        return game_id, {seats[0].id: seat_of(game_id, token0, 0), seats[1].id: seat_of(game_id, token1, 1)}


@dataclasses.dataclass(frozen=True, slots=True)
class Seeker:
    """What pairing reads of a waiting seek (plain values: a pass reads every waiting seek, and ORM objects cost more
    than the pairing itself)."""

    id: str
    account_id: int | None
    name: str
    rating: float
    control: str
    rated: bool
    created: datetime


# The seeks' columns a Seeker is made of, in its fields' order (``Seeker(*row)``): derived, so the two cannot drift apart.
SEEKER_COLUMNS = tuple(getattr(SeekRow, field.name) for field in dataclasses.fields(Seeker))

# A pass's statements (each second in every process, idle or not), made once: building one costs more than running it.
_FORGET_UNPOLLED = delete(SeekRow).where(SeekRow.polled < bindparam("before"))
# Claimed for a game that was never finished (the process pairing them died): their players start again.
_FORGET_UNFINISHED = delete(SeekRow).where(SeekRow.game_id.is_not(None), SeekRow.token.is_(None), SeekRow.created < bindparam("before"))
_WAITING = select(*SEEKER_COLUMNS).where(SeekRow.game_id.is_(None))
# A new seek's partner (:meth:`QuickMatch._partner`), for a guest and for an account (never its own other seek).
_PARTNER = select(*SEEKER_COLUMNS).where(
    SeekRow.game_id.is_(None), SeekRow.control == bindparam("control"), SeekRow.rated == bindparam("rated"), SeekRow.id != bindparam("seek"),
    SeekRow.rating.between(bindparam("low"), bindparam("high")), SeekRow.polled >= bindparam("since"),
).order_by(func.abs(SeekRow.rating - bindparam("rating")), SeekRow.created).limit(1)
_PARTNER_NOT_SELF = _PARTNER.where(or_(SeekRow.account_id.is_(None), SeekRow.account_id != bindparam("account")))
# A seek's own: its insert, its poll's read and the note that its player is still there.
_SEEK = insert(SeekRow)
_SEEK_ROW = select(SeekRow.__table__).where(SeekRow.id == bindparam("id"))
_POLLED = update(SeekRow).where(SeekRow.id == bindparam("seek")).values(polled=bindparam("now"))  # ("id" is the column's)
# A pairing's: the batch's seeks still free, locked (in one order), and each one's claim by its game.
_FREE = select(SeekRow.id).where(SeekRow.id.in_(bindparam("ids", expanding=True)), SeekRow.game_id.is_(None)).order_by(SeekRow.id).with_for_update()
_CLAIM = update(SeekRow).where(SeekRow.id == bindparam("seek"), SeekRow.game_id.is_(None)).values(
    game_id=bindparam("game"), seat=bindparam("seat"), token=bindparam("token"))


def seat_of(game_id: str, token: str, seat: int) -> dict[str, Any]:
    """A paired seek's answer: its game, seat and the seat's token."""
    return {"matched": True, "game": game_id, "token": token, "seat": seat}


class _Paired(Exception):
    """One of the two seeks was paired by another process meanwhile."""
