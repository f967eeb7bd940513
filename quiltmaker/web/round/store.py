"""Games in a database: a row of metadata per game and an append-only log of events (:mod:`.game` says what they mean).

Event *n* of a game is unique, so two writers (threads or server processes)
can never both append it, and the loser learns its view was stale. Every
write commits before the caller acknowledges it. Loading a game replays its
log through the round's rules (:meth:`.game.StoredGame.apply`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError, ProgrammingError

from ...core.errors import QuiltmakerError
from ...core.game import Game
from ...core.position import Position
from ...i18n import _
from ..db.commits import Rows, sent_together
from ..db.database import Database, as_utc, utc_now
from . import log
from .clocks import Clock, TimeControl
from .game import BOTH_SEATS, Event, StoredGame
from .kinds import EventKind, Mode
from ..db.schema import AccountGameRow, Base, BeatRow, ChatRow, ClockRow, EventRow, GameRow, LessonRow, RatingChangeRow

# The statements run every second (or more often) in every process, idle or not, made once: building a statement
# costs more than running it (SQLAlchemy's coercions), and an idle server spent 18 ms a second on these passes.
_DUE = select(ClockRow.game_id).where(ClockRow.deadline <= bindparam("now")).order_by(ClockRow.deadline).limit(bindparam("limit"))
# A move's: sent with the other moves of its commit, in one statement each (:mod:`..db.commits`).
_APPEND = sent_together(insert(EventRow))
_DEADLINE = sent_together(update(ClockRow).where(ClockRow.game_id == bindparam("game")).values(deadline=bindparam("deadline")))
_BEAT = update(BeatRow).where(BeatRow.process == bindparam("name")).values(seen=bindparam("now"))  # (not the columns' names)
_FORGET_BEATS = delete(BeatRow).where(BeatRow.seen < bindparam("before"))


class StoreError(QuiltmakerError):
    """A request the store refuses; ``code`` says why, for the protocol's error replies."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def replay(stored: StoredGame, events: list[Event]) -> None:
    """Apply logged events to a game; a log the rules reject is the game's ``corrupt`` error."""
    try:
        log.replay(stored, events)
    except log.CorruptLog as error:
        raise StoreError("corrupt", str(error)) from error


def _event(game_id: str, row: EventRow) -> Event:
    try:
        kind = EventKind(row.kind)
    except ValueError:
        raise StoreError("corrupt", f"game {game_id} has a corrupt log at event {row.number}: unknown event kind {row.kind!r}") from None
    return Event(row.number, kind, row.value, row.seat, row.client_id, as_utc(row.created))


@contextlib.contextmanager
def _damage_is_corrupt(game_id: str) -> Iterator[None]:
    """Storage the database itself cannot read (a damaged SQLite page) is the game's ``corrupt`` error.

    Only that: a locked or unreachable database (OperationalError) is not the game's fault.
    """
    try:
        yield
    except (OperationalError, IntegrityError, ProgrammingError):
        raise
    except DatabaseError as error:
        raise StoreError("corrupt", f"game {game_id} cannot be read from the database (damaged storage): {error.orig}") from None


def _delete_games(session: Any, ids: list[str]) -> None:
    """Delete games and every row that refers to them, in any table (the accounts', the ratings', ...)."""
    for table in reversed(Base.metadata.sorted_tables):  # the referring tables before the games'
        column = table.c.get("game_id")
        if column is not None and any(key.column.table.name == GameRow.__tablename__ for key in column.foreign_keys):
            session.execute(delete(table).where(column.in_(ids)))
    session.execute(delete(GameRow).where(GameRow.id.in_(ids)))


_HELD_SEATS = select(AccountGameRow.seat).where(AccountGameRow.game_id == bindparam("game"))


def _account_seats(held: Iterable[str]) -> list[bool]:
    """Whether an account holds each seat, from the seats a game's accounts hold ("0", "1" or "both")."""
    seats = set(held)
    return [BOTH_SEATS in seats or "0" in seats, BOTH_SEATS in seats or "1" in seats]


def _watched(clock: Clock) -> datetime | None:
    """The deadline the processes watch: a running real-time clock's (correspondence games end by a claim)."""
    return clock.deadline if clock.control.kind == "realtime" and clock.running is not None else None


class GameStore:
    """Create, load and extend games in one database (thread-safe; blocking calls)."""

    def __init__(self, database: Database | str) -> None:
        self.database = database if isinstance(database, Database) else Database(database)
        self.engine = self.database.engine
        self._sessions = self.database.reading
        self.writing = self.database.writing

    def close(self) -> None:
        self.database.close()

    # Deleting (a new game is :mod:`..setup`'s) ---------------------------------------

    def delete_unstarted(self, created_before: datetime) -> int:
        """Delete the games created before ``created_before`` in which no move was made (none at all, or only
        resigned, aborted or rematched at once), but those a rating counted; return how many."""
        with self.writing() as session:
            started = select(EventRow.game_id).where(EventRow.kind == EventKind.MOVE).distinct()
            rated = select(RatingChangeRow.game_id)
            ids = list(
                session.scalars(
                    select(GameRow.id).where(GameRow.created < created_before, GameRow.id.not_in(started), GameRow.id.not_in(rated))
                )
            )
            if ids:
                _delete_games(session, ids)
            return len(ids)

    def delete_unplayed(self, game_id: str) -> bool:
        """Delete a game that has no events yet (a rematch that lost a race); return whether it did."""
        with self.writing() as session:
            if session.scalar(select(EventRow.id).where(EventRow.game_id == game_id).limit(1)) is not None:
                return False
            row = session.get(GameRow, game_id)
            if row is not None:
                _delete_games(session, [game_id])
            return row is not None

    # Reading -----------------------------------------------------------------

    def load(self, game_id: str) -> StoredGame:
        """The game with its log replayed.

        Raises:
            StoreError: No such game (``not_found``), or a log the rules reject (``corrupt``).
        """
        with _damage_is_corrupt(game_id), self._sessions() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise StoreError("not_found", _("no game {game}").format(game=repr(game_id)))
            events = session.scalars(select(EventRow).where(EventRow.game_id == game_id).order_by(EventRow.number)).all()
            lesson_number = session.scalar(select(LessonRow.number).where(LessonRow.game_id == game_id))
            control = session.scalar(select(ClockRow.control).where(ClockRow.game_id == game_id))
            held = list(session.scalars(_HELD_SEATS, {"game": game_id}))
        try:
            game = Game(Position.from_text(row.start), row.names)
        except (QuiltmakerError, ValueError) as error:
            raise StoreError("corrupt", f"game {game_id} has a corrupt start position: {error}") from error
        try:
            control = None if control is None else TimeControl.from_json(control)
        except (QuiltmakerError, KeyError, TypeError, ValueError) as error:
            raise StoreError("corrupt", f"game {game_id} has a corrupt time control: {error}") from error
        try:
            mode = Mode(row.mode)
        except ValueError:
            raise StoreError("corrupt", f"game {game_id} has an unknown mode {row.mode!r}") from None
        stored = StoredGame(
            id=row.id,
            created=row.created,
            mode=mode,
            names=list(row.names),
            ai_level=row.ai_level,
            ai_seat=row.ai_seat,
            token_hashes=list(row.token_hashes),
            invite_open=row.invite_hash is not None,
            game=game,
            lesson_number=lesson_number,
            control=control,
            account_seats=_account_seats(held),
        )
        replay(stored, [_event(game_id, e) for e in events])
        return stored

    def refresh(self, stored: StoredGame) -> list[Event]:
        """Events appended since ``stored`` was loaded (by anyone), and its seats; the caller applies them."""
        with _damage_is_corrupt(stored.id), self._sessions() as session:
            row = session.get(GameRow, stored.id)
            if row is None:
                raise StoreError("not_found", f"no game {stored.id!r}")
            stored.token_hashes = list(row.token_hashes)
            stored.invite_open = row.invite_hash is not None
            stored.names = list(row.names)  # a signed-in player who joined plays under their account's name
            stored.account_seats = _account_seats(session.scalars(_HELD_SEATS, {"game": stored.id}))
            stored.game.players = list(row.names)  # (and the records say so)
            query = select(EventRow).where(EventRow.game_id == stored.id, EventRow.number >= stored.version)
            return [_event(stored.id, e) for e in session.scalars(query.order_by(EventRow.number))]

    def heads(self, game_ids: list[str]) -> dict[str, tuple[int, int]]:
        """Each game's version and its last chat line's id (0 for none): two indexed queries for any number of games."""
        heads = dict.fromkeys(game_ids, (0, 0))
        with self._sessions() as session:
            for start in range(0, len(game_ids), 500):  # a bounded IN list
                some = game_ids[start : start + 500]
                events = select(EventRow.game_id, func.max(EventRow.number)).where(EventRow.game_id.in_(some)).group_by(EventRow.game_id)
                for game_id, last in session.execute(events):
                    heads[game_id] = (last + 1, 0)
                chat = select(ChatRow.game_id, func.max(ChatRow.id)).where(ChatRow.game_id.in_(some)).group_by(ChatRow.game_id)
                for game_id, last in session.execute(chat):
                    heads[game_id] = (heads[game_id][0], last)
        return heads

    def exists(self, game_id: str) -> bool:
        with self._sessions() as session:
            return session.get(GameRow, game_id) is not None

    # Writing -----------------------------------------------------------------

    def append(
        self,
        game_id: str,
        version: int,
        kind: str,
        value: str,
        seat: int | None,
        client_id: str | None,
        at: datetime | None = None,
        clock: Clock | None = None,
        rows: Rows | None = None,
    ) -> int:
        """Append event number ``version``, made at ``at`` (now by default); return the new version.

        The caller has checked the event against the state of that version;
        the unique (game, number) constraint makes the check and the write
        one atomic step across threads and processes. A clocked game's
        ``clock`` after the event sets its deadline in the same transaction.
        In a caller's ``rows``, in its transaction (a shared commit's: :mod:`..db.commits`).

        Raises:
            StoreError: ``stale`` when another event took that number first.
        """
        row = {"game_id": game_id, "number": version, "kind": kind, "value": value, "seat": seat, "client_id": client_id, "created": at or utc_now()}
        with contextlib.nullcontext(rows) if rows is not None else self.database.writing_rows() as connection:
            try:
                connection.execute(_APPEND, row)
            except IntegrityError:
                raise StoreError("stale", _("the game has moved on since you saw it (version {seen}): here is the new state").format(seen=version)) from None
            if clock is not None:
                connection.execute(_DEADLINE, {"game": game_id, "deadline": _watched(clock)})
        return version + 1

    def set_deadline(self, game_id: str, clock: Clock) -> None:
        """Put a clocked game's deadline right (one found not yet come, or missed)."""
        with self.writing() as session:
            session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(deadline=_watched(clock)))

    def clear_deadline(self, game_id: str) -> None:
        """Stop watching a game's clock (one that cannot be loaded)."""
        with self.writing() as session:
            session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(deadline=None))

    def beat(self, process: str, now: datetime) -> None:
        """Note that server process ``process`` is alive at ``now`` (and forget processes silent for a day)."""
        with self.database.writing_rows() as connection:
            if connection.execute(_BEAT, {"name": process, "now": now}).rowcount == 0:
                connection.execute(insert(BeatRow), {"process": process, "seen": now})
            connection.execute(_FORGET_BEATS, {"before": now - timedelta(days=1)})

    def last_beat(self) -> datetime | None:
        """When a server process was last alive, by its heartbeat (None: no process ever beat)."""
        with self._sessions() as session:
            seen = session.scalar(select(func.max(BeatRow.seen)))
        return None if seen is None else as_utc(seen)

    def watched(self) -> list[str]:
        """The games whose real-time clock is running and watched (each with a deadline)."""
        with self._sessions() as session:
            return list(session.scalars(select(ClockRow.game_id).where(ClockRow.deadline.is_not(None))))

    def due(self, now: datetime, limit: int = 100) -> list[str]:
        """The games whose real-time clock's deadline has come by ``now``, earliest first."""
        with self.database.reading_rows() as connection:
            return list(connection.scalars(_DUE, {"now": now, "limit": limit}))

    def analysis(self, game_id: str) -> Any:
        with self._sessions() as session:
            row = session.get(GameRow, game_id)
            return None if row is None else row.analysis

    def save_analysis(self, game_id: str, analysis: Any) -> None:
        with self.database.writing_rows() as connection:
            connection.execute(update(GameRow).where(GameRow.id == game_id).values(analysis=json.loads(json.dumps(analysis))))
