"""Games in a database: a row of metadata per game and an append-only log of events.

A game's state is never stored, only derived: its start position with the
log replayed through the rules engine. An event is ``move TEXT``, ``undo N``,
``resign SEAT``, ``abort SEAT`` (calling the game off before each side has
moved), ``timeout SEAT`` (the seat ran out of time on its clock) or, once the
game is over, ``rematch GAME-ID`` (the next game between the same seats);
each event keeps the moment it was made, from which a clocked game's clocks
are derived (:mod:`.clocks`). Event *n* of a game is unique, so two writers
(threads or server processes) can never both append it, and the loser learns
its view was stale. Every write commits before the caller acknowledges it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from ..core.errors import QuiltmakerError
from ..core.game import Game
from ..core.moves import Move
from ..core.position import Position
from ..tutorial import Lesson, lesson_of
from .clocks import Clock, TimeControl, clock_at

MODES = ("ai", "local", "online", "lesson")  # a lesson: an AI game against the tutor from a lesson's start
BOTH_SEATS = "both"


class StoreError(QuiltmakerError):
    """A request the store refuses; ``code`` says why, for the protocol's error replies."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    mode: Mapped[str] = mapped_column(String(8))
    start: Mapped[str] = mapped_column(Text)
    names: Mapped[list[str]] = mapped_column(JSON)
    ai_level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    ai_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # SHA-256 of each seat's token (the local mode's one token sits in seat 0),
    # and of the online mode's one-time invitation code.
    token_hashes: Mapped[list[str | None]] = mapped_column(JSON)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    analysis: Mapped[Any] = mapped_column(JSON, nullable=True)


class LessonRow(Base):
    """Which lesson a ``lesson`` game is (a table of its own, so that older databases gain it unchanged)."""

    __tablename__ = "lessons"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer)


class ClockRow(Base):
    """A clocked game's time control, and when its side to move runs out (a table of its own, so older databases gain it).

    ``deadline`` is what the server processes watch to end real-time games on
    time: written with every event, in the same transaction, and only a hint
    (the clock itself is derived from the log; a process finding a deadline
    that has not come puts it right).
    """

    __tablename__ = "clocks"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    control: Mapped[Any] = mapped_column(JSON)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


class ChatRow(Base):
    """A line of a game's chat between its players: kept apart from the event log, so it never makes a move stale."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(300))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # "move", "undo", "rematch", "resign", "abort" or "timeout"
    value: Mapped[str] = mapped_column(String(64))  # the move's text, how many to undo, the rematch's id, or the seat
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # who sent it (None: the AI)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass
class StoredGame:
    """A game as the store knows it: metadata and the replayed :class:`Game`."""

    id: str
    created: datetime
    mode: str
    names: list[str]
    ai_level: str | None
    ai_seat: int | None
    token_hashes: list[str | None]
    invite_open: bool
    game: Game
    version: int
    client_ids: set[str] = field(default_factory=set)
    move_entries: list[tuple[Move, dict[str, Any]]] = field(default_factory=list)  # the views' move list, kept between states
    rematch: str | None = None  # the id of the next game between the same seats
    ended: tuple[str, int] | None = None  # ("resigned", "aborted" or "timeout", the seat that did it or ran out): over before its end
    lesson: Lesson | None = None  # the lesson a "lesson" game is (None when no lesson of this version starts there)
    control: TimeControl | None = None  # the clock's time control; None: no clock
    move_times: list[datetime] = field(default_factory=list)  # when each move of the game was made
    ended_at: datetime | None = None  # when it was resigned, aborted or lost on time
    rating: dict[str, Any] | None = None  # a rated game's family and rating changes (ratings.Ratings.game_view); None: casual
    offer: dict[str, Any] | None = None  # a game offered in the lobby: {"kind": "open" or "named", "for": name}

    def apply(self, events: list[Event]) -> None:
        """Replay events onto this game; those it already has are skipped.

        Raises:
            StoreError: ``corrupt`` when the log has a gap or an event the rules reject.
        """
        for number, kind, value, client_id, created in events:
            if number < self.version:
                continue
            try:
                if number != self.version:
                    raise QuiltmakerError(f"event {self.version} is missing")
                if kind == "move":
                    if self.ended is not None:
                        raise QuiltmakerError("a move after the game was resigned or aborted")
                    self.game.play(value)
                    self.move_times.append(created)
                elif kind == "undo":
                    if self.rematch is not None or self.ended is not None:
                        raise QuiltmakerError("an undo after the rematch started")
                    for _ in range(int(value)):
                        self.game.undo()
                        self.move_times.pop()
                elif kind == "rematch":
                    if not self.is_finished or self.rematch is not None:
                        raise QuiltmakerError("a rematch before the end of the game, or a second one")
                    self.rematch = value
                elif kind in ("resign", "abort"):
                    seat = int(value)
                    if self.is_finished or seat not in (0, 1):
                        raise QuiltmakerError(f"a {kind} by seat {value} of a game already over")
                    if kind == "abort" and not may_abort(self.game):
                        raise QuiltmakerError("an abort after both sides have moved")
                    self.ended = ("resigned" if kind == "resign" else "aborted", seat)
                    self.ended_at = created
                elif kind == "timeout":
                    seat = int(value)
                    clock = self.clock_at(created)
                    if self.is_finished or clock is None or clock.flagged != seat:
                        raise QuiltmakerError(f"a timeout of seat {value} whose time had not run out")
                    self.ended = ("timeout", seat)
                    self.ended_at = created
                else:
                    raise QuiltmakerError(f"unknown event kind {kind!r}")
            except (QuiltmakerError, ValueError) as error:
                raise StoreError("corrupt", f"game {self.id} has a corrupt log at event {number}: {error}") from error
            self.version += 1
            if client_id:
                self.client_ids.add(client_id)

    def clock_at(self, now: datetime) -> Clock | None:
        """The game's clocks at ``now`` (None for a game without a clock)."""
        if self.control is None:
            return None
        position = self.game.position
        if self.ended_at is not None and not position.is_over:
            # Stopped by a resignation or the time running out: the side to move spent its time until then.
            stopped = clock_at(self.control, self.game.movers, self.move_times, position.to_move, self.ended_at)
            return replace(stopped, running=None, deadline=None)
        return clock_at(self.control, self.game.movers, self.move_times, position.to_move, now)

    def clock_after(self, kind: str, value: str, at: datetime) -> Clock | None:
        """The clocks as they will be once event ``kind value``, made at ``at``, is applied (None without a clock).

        (Only online games have clocks, and they have no undo.)
        """
        if self.control is None:
            return None
        position = self.game.position
        if kind != "move" or position.to_move is None:
            return clock_at(self.control, self.game.movers, self.move_times, None, at)  # the game ends, or is over
        after = position.play(Move.from_text(value))
        return clock_at(self.control, [*self.game.movers, position.to_move], [*self.move_times, at], after.to_move, at)

    @property
    def against_ai(self) -> bool:
        """Whether seat ``ai_seat`` is played by the server: the computer, or the tutor of a lesson."""
        return self.mode in ("ai", "lesson")

    @property
    def moves_version(self) -> int:
        """The version of the last move or undo: what the game's positions depend on (a rematch, resign or abort changes none)."""
        return self.version - (self.rematch is not None) - (self.ended is not None)

    def seat_of(self, token: str | None) -> int | str | None:
        """The seat a token holds: 0, 1, ``"both"`` (pass-and-play) or ``None``."""
        if not token:
            return None
        digest = secret_hash(token)
        for seat, stored in enumerate(self.token_hashes):
            if stored is not None and hmac.compare_digest(stored, digest):
                return BOTH_SEATS if self.mode == "local" else seat
        return None

    @property
    def is_finished(self) -> bool:
        """Over: played to its end, resigned or aborted. Nothing but a rematch may follow."""
        return self.game.position.is_over or self.ended is not None

    @property
    def status(self) -> str:
        if self.ended is not None and self.ended[0] == "aborted":
            return "aborted"
        if self.is_finished:
            return "over"
        if self.mode == "online" and self.invite_open:
            return "waiting"
        return "playing"


def may_abort(game: Game) -> bool:
    """A game may be called off, without a result, until each side has made a move."""
    return len(set(game.movers)) < 2


# An event as read from the log: number, kind (see the module's docstring), value, client id, when it was made.
Event = tuple[int, str, str, str | None, datetime]


def _event(row: EventRow) -> Event:
    return row.number, row.kind, row.value, row.client_id, as_utc(row.created)


def as_utc(moment: datetime) -> datetime:
    """A stored moment as an aware UTC datetime (SQLite hands them back without their zone)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


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


def _watched(clock: Clock) -> datetime | None:
    """The deadline the processes watch: a running real-time clock's (correspondence games end by a claim)."""
    return clock.deadline if clock.control.kind == "realtime" and clock.running is not None else None


def _chat_view(row: ChatRow) -> dict[str, Any]:
    return {"id": row.id, "seat": row.seat, "text": row.text, "at": row.created.isoformat()}


def secret_hash(secret: str) -> str:
    """What is stored of a secret (a token, an invitation): its SHA-256."""
    return hashlib.sha256(secret.encode()).hexdigest()


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def create_tables(engine: Engine, tables: Sequence[Any]) -> None:
    """Create the tables a part of the server keeps beside the games' (an older database gains them)."""
    try:
        Base.metadata.create_all(engine, tables=tables)
    except (OperationalError, ProgrammingError, IntegrityError):
        Base.metadata.create_all(engine, tables=tables)  # another server process created them at the same moment


def database_url_for(data_dir: Path) -> str:
    """The default database: a SQLite file in the data folder."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / 'quiltmaker.sqlite3'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run beside the writer; FULL syncs every commit, so an
    # acknowledged move survives a killed process (and a lost machine).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class GameStore:
    """Create, load and extend games in one database (thread-safe; blocking calls)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = create_engine(url, pool_pre_ping=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            Base.metadata.create_all(self.engine)
        except (OperationalError, ProgrammingError, IntegrityError):
            # Another server process created the tables at the same moment; they exist now.
            Base.metadata.create_all(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time, and a thread that finds the file locked sleeps and
        # retries (for up to tens of milliseconds a try): under load, threads of one process
        # queueing on that lock took a move from a few milliseconds to seconds. So this
        # process's writers queue on a lock of its own first, which wakes the next at once.
        self._one_writer = threading.Lock() if self.engine.dialect.name == "sqlite" else None

    @contextlib.contextmanager
    def writing(self) -> Iterator[Session]:
        """A session whose transaction commits at the end (every write of the server's parts goes through here)."""
        with self._one_writer or contextlib.nullcontext(), self._sessions.begin() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()

    # Creating ----------------------------------------------------------------

    def create(
        self,
        mode: str,
        start: Position,
        names: list[str],
        ai_level: str | None = None,
        ai_seat: int | None = None,
        creator_seat: int = 0,
        lesson: int | None = None,
        script: Sequence[str] = (),
        control: TimeControl | None = None,
        game_id: str | None = None,
    ) -> tuple[str, str, str | None]:
        """Store a new game; return its id, the creator's token and (online) the invitation code.

        A lesson's game is stored with its number and with the moves played before
        the lesson (``script``, already checked by the rules) as its first events;
        a clocked game with its time control.
        """
        if mode not in MODES:
            raise StoreError("malformed", f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
        game_id = game_id or secrets.token_urlsafe(9)  # (the lobby picks a quick match's id before it exists)
        token = secrets.token_urlsafe(24)
        invite = secrets.token_urlsafe(18) if mode == "online" else None
        hashes: list[str | None] = [None, None]
        hashes[0 if mode == "local" else creator_seat] = secret_hash(token)
        row = GameRow(
            id=game_id,
            created=utc_now(),
            mode=mode,
            start=start.text(),
            names=names,
            ai_level=ai_level,
            ai_seat=ai_seat,
            token_hashes=hashes,
            invite_hash=secret_hash(invite) if invite else None,
        )
        with self.writing() as session:
            session.add(row)
            session.flush()  # the game's row first: the lesson and its events refer to it
            if lesson is not None:
                session.add(LessonRow(game_id=game_id, number=lesson))
            if control is not None:
                session.add(ClockRow(game_id=game_id, control=control.to_json(), deadline=None))
            created = utc_now()
            for number, move in enumerate(script):
                session.add(EventRow(game_id=game_id, number=number, kind="move", value=move, seat=None, client_id=None, created=created))
        return game_id, token, invite

    def create_rematch(self, stored: StoredGame, start: Position) -> str:
        """Store the next game between ``stored``'s seats, swapped so that the other side starts; return its id.

        Each seat keeps its token (only their hashes are known here, and they
        move with the seats), so nobody needs a new link or invitation.
        """
        swap = stored.mode != "local"  # pass-and-play has one token; its players trade names instead
        hashes = [stored.token_hashes[1], stored.token_hashes[0]] if swap else list(stored.token_hashes)
        row = GameRow(
            id=secrets.token_urlsafe(9),
            created=utc_now(),
            mode=stored.mode,
            start=start.text(),
            names=[stored.names[1], stored.names[0]],
            ai_level=stored.ai_level,
            ai_seat=None if stored.ai_seat is None else 1 - stored.ai_seat,
            token_hashes=hashes,
            invite_hash=None,
        )
        with self.writing() as session:
            session.add(row)
            if stored.control is not None:  # the same time control
                session.flush()
                session.add(ClockRow(game_id=row.id, control=stored.control.to_json(), deadline=None))
        return row.id

    def delete_unstarted(self, created_before: datetime) -> int:
        """Delete the games created before ``created_before`` that have no event yet; return how many."""
        with self.writing() as session:
            started = select(EventRow.game_id).distinct()
            ids = list(session.scalars(select(GameRow.id).where(GameRow.created < created_before, GameRow.id.not_in(started))))
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

    def join(self, game_id: str, invite: str, name: str | None = None) -> tuple[str, int]:
        """Spend an online game's invitation code on the free seat (its player named ``name``, if given); return its token and seat."""
        return self._take_free_seat(game_id, invite, name)

    def accept(self, game_id: str, name: str | None = None) -> tuple[str, int]:
        """Take an online game's free seat without its code: a challenge accepted in the lobby (the caller checked who may)."""
        return self._take_free_seat(game_id, None, name)

    def _take_free_seat(self, game_id: str, invite: str | None, name: str | None) -> tuple[str, int]:
        with self.writing() as session:
            row = session.get(GameRow, game_id, with_for_update=True)
            if row is None:
                raise StoreError("not_found", f"no game {game_id!r}")
            if invite is not None and (row.invite_hash is None or not hmac.compare_digest(row.invite_hash, secret_hash(invite))):
                raise StoreError("forbidden", "this invitation is not valid (already used, or not for this game)")
            if row.invite_hash is None:
                raise StoreError("forbidden", "someone has just taken this game's free seat")
            seat = row.token_hashes.index(None)
            token = secrets.token_urlsafe(24)
            hashes = list(row.token_hashes)
            hashes[seat] = secret_hash(token)
            names = list(row.names)
            if name is not None:
                names[seat] = name
            # Compare-and-set on the invitation: of two browsers racing, one wins.
            result = session.execute(
                update(GameRow)
                .where(GameRow.id == game_id, GameRow.invite_hash == row.invite_hash)
                .values(token_hashes=hashes, invite_hash=None, names=names)
            )
            if result.rowcount != 1:  # type: ignore[attr-defined]
                raise StoreError("forbidden", "this invitation has just been used")
        return token, seat

    # Reading -----------------------------------------------------------------

    def load(self, game_id: str) -> StoredGame:
        """The game with its log replayed.

        Raises:
            StoreError: No such game (``not_found``), or a log the rules reject (``corrupt``).
        """
        with _damage_is_corrupt(game_id), self._sessions() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                raise StoreError("not_found", f"no game {game_id!r}")
            events = session.scalars(select(EventRow).where(EventRow.game_id == game_id).order_by(EventRow.number)).all()
            lesson_number = session.scalar(select(LessonRow.number).where(LessonRow.game_id == game_id))
            control = session.scalar(select(ClockRow.control).where(ClockRow.game_id == game_id))
        try:
            game = Game(Position.from_text(row.start), row.names)
        except (QuiltmakerError, ValueError) as error:
            raise StoreError("corrupt", f"game {game_id} has a corrupt start position: {error}") from error
        stored = StoredGame(
            id=row.id,
            created=row.created,
            mode=row.mode,
            names=list(row.names),
            ai_level=row.ai_level,
            ai_seat=row.ai_seat,
            token_hashes=list(row.token_hashes),
            invite_open=row.invite_hash is not None,
            game=game,
            version=0,
        )
        try:
            stored.control = None if control is None else TimeControl.from_json(control)
        except (QuiltmakerError, KeyError, TypeError, ValueError) as error:
            raise StoreError("corrupt", f"game {game_id} has a corrupt time control: {error}") from error
        stored.apply([_event(e) for e in events])
        if lesson_number is not None:
            stored.lesson = lesson_of(lesson_number, stored.game)
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
            query = select(EventRow).where(EventRow.game_id == stored.id, EventRow.number >= stored.version)
            return [_event(e) for e in session.scalars(query.order_by(EventRow.number))]

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
    ) -> int:
        """Append event number ``version``, made at ``at`` (now by default); return the new version.

        The caller has checked the event against the state of that version;
        the unique (game, number) constraint makes the check and the write
        one atomic step across threads and processes. A clocked game's
        ``clock`` after the event sets its deadline in the same transaction.

        Raises:
            StoreError: ``stale`` when another event took that number first.
        """
        try:
            with self.writing() as session:
                session.add(
                    EventRow(
                        game_id=game_id,
                        number=version,
                        kind=kind,
                        value=value,
                        seat=seat,
                        client_id=client_id,
                        created=at or utc_now(),
                    )
                )
                if clock is not None:
                    session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(deadline=_watched(clock)))
        except IntegrityError:
            raise StoreError("stale", f"the game has moved on from version {version}; here is the new state") from None
        return version + 1

    def set_deadline(self, game_id: str, clock: Clock) -> None:
        """Put a clocked game's deadline right (one found not yet come, or missed)."""
        with self.writing() as session:
            session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(deadline=_watched(clock)))

    def clear_deadline(self, game_id: str) -> None:
        """Stop watching a game's clock (one that cannot be loaded)."""
        with self.writing() as session:
            session.execute(update(ClockRow).where(ClockRow.game_id == game_id).values(deadline=None))

    def due(self, now: datetime, limit: int = 100) -> list[str]:
        """The games whose real-time clock's deadline has come by ``now``, earliest first."""
        with self._sessions() as session:
            query = select(ClockRow.game_id).where(ClockRow.deadline <= now).order_by(ClockRow.deadline).limit(limit)
            return list(session.scalars(query))

    def add_chat(self, game_id: str, seat: int, text: str) -> dict[str, Any]:
        """Store a chat line; return it as sent to the players."""
        row = ChatRow(game_id=game_id, seat=seat, text=text, created=utc_now())
        with self.writing() as session:
            session.add(row)
        return _chat_view(row)

    def chat(self, game_id: str, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """The game's chat lines with an id above ``after``, the last ``limit`` of them, oldest first."""
        with self._sessions() as session:
            query = select(ChatRow).where(ChatRow.game_id == game_id, ChatRow.id > after).order_by(ChatRow.id.desc()).limit(limit)
            return [_chat_view(row) for row in reversed(list(session.scalars(query)))]

    def analysis(self, game_id: str) -> Any:
        with self._sessions() as session:
            row = session.get(GameRow, game_id)
            return None if row is None else row.analysis

    def save_analysis(self, game_id: str, analysis: Any) -> None:
        with self.writing() as session:
            row = session.get(GameRow, game_id)
            if row is not None:
                row.analysis = json.loads(json.dumps(analysis))
