"""The server's database: its migrations, run when a server starts, and the connection every part of the server shares.

Upgrading never loses a game, by construction: the schema is changed only by
Alembic's migrations (:mod:`.migrations`), each in one transaction that
either completes or leaves the database as it was (PostgreSQL and SQLite
both change their schema transactionally), never by a service creating
tables as it starts. Two server processes starting at once take turns (an
advisory lock on PostgreSQL, the write lock on SQLite). A database that a
newer version has migrated is refused, with what to do, before anything
reads it. docs/web.md, "Upgrading", says how to back up first.
"""

from __future__ import annotations

import contextlib
import functools
import select
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, exc, inspect, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from ...core.errors import QuiltmakerError
from .commits import Commits, OneWriter

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0x717569_6C74  # PostgreSQL's advisory lock for migrating ("quilt")
# The threads a process gives its blocking calls with a database server (docs/web.md, "Several server processes"). Its
# threads mostly wait on the network there: the event loop's default (the cores + 4: 6 on two cores) was saturated by
# those waits while a thousand players arrived (ack p99 1.7 and 3.4 s, against 0.4 to 0.6 s with 16, when the moves'
# writes were made in them too). SQLite answers in the process, so there the default stands.
SERVER_THREADS = 12
# The threads that commit the moves and chat lines (:class:`Commits`) with a database server. A commit waits on the
# network for each of its statements, and on the interpreter's lock after each, so one thread's commits were the
# queue under a thousand players (ack p99 1.1 to 1.8 s with two; 0.45 to 0.8 s with six or eight). SQLite writes one
# transaction at a time: one there. The pool holds a connection for each thread, the matcher's and two more.
SERVER_COMMIT_LANES = 6
SERVER_CONNECTIONS = SERVER_THREADS + SERVER_COMMIT_LANES + 3


class SchemaError(QuiltmakerError):
    """A database this version cannot use as it is: made by a newer version, or not yet migrated."""


def database_url_for(data_dir: Path) -> str:
    """The default database: a SQLite file in the data folder."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / 'quiltmaker.sqlite3'}"


def as_utc(moment: datetime) -> datetime:
    """A stored moment as an aware UTC datetime (SQLite hands them back without their zone)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


# Migrations --------------------------------------------------------------------


@functools.cache
def _scripts() -> ScriptDirectory:
    """The migrations' scripts, read once (they are part of the installed package)."""
    return ScriptDirectory.from_config(_config())


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The revision of the schema this version of quiltmaker keeps."""
    revision = _scripts().get_current_head()
    assert revision is not None
    return revision


def revision_of(connection: Connection) -> str | None:
    """The revision a database is at (None: never migrated: empty, or kept by a version before migrations)."""
    return MigrationContext.configure(connection).get_current_revision()


def revision_at(url: str) -> str | None:
    """The revision of the database at ``url`` (None: never migrated), refused when a newer version migrated it."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            revision = _recorded_revision(connection, url)
    finally:
        engine.dispose()
    _known(revision, url)
    return revision


def _recorded_revision(connection: Connection, url: str) -> str | None:
    """The revision the database records, refused with what to do when its record cannot be right: two revisions
    (Alembic's own error was a traceback), or none while the tables are there (the baseline would then fail on the first
    index it makes again, and the words of that failure led an operator to set an intact database aside)."""
    inspector = inspect(connection)
    if not inspector.has_table("alembic_version"):
        return None
    recorded = [row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))]
    shown = _shown(url)
    if len(recorded) > 1:
        raise SchemaError(
            f"the database {shown} records {len(recorded)} schema revisions ({', '.join(map(repr, recorded))}) in its table "
            "alembic_version, which holds one: leave the row of the newest revision this version knows "
            f"(it knows up to {head()!r}), or restore a backup (docs/web.md, 'Upgrading'). Its games are not touched."
        )
    if not recorded and inspector.has_table("games"):
        raise SchemaError(
            f"the database {shown} has its games but no record of its schema's revision (its table alembic_version is "
            f"empty). Its games are intact: do not set it aside. Write the revision it is at back (for this version's "
            f"schema: INSERT INTO alembic_version VALUES ('{head()}')), or restore a backup (docs/web.md, 'Upgrading')."
        )
    return recorded[0] if recorded else None


def _known(revision: str | None, url: str) -> None:
    if revision is None:
        return
    if revision not in {script.revision for script in _scripts().walk_revisions()}:
        raise SchemaError(
            f"the database {_shown(url)} was upgraded by a newer version of quiltmaker (its schema is at revision "
            f"{revision!r}; this version knows up to {head()!r}). Run the newer version, or restore the backup taken before "
            "that upgrade (docs/web.md, 'Upgrading')."
        )


def migrate(url: str) -> list[str]:
    """Bring the database at ``url`` to this version's schema; return the revisions applied (none when it was there).

    Raises:
        SchemaError: the database was migrated by a newer version.
    """
    engine = _migrating_engine(url)
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            before = _recorded_revision(connection, url)
            _known(before, url)
            command.upgrade(_config(connection), "head")
            after = revision_of(connection)
        if after == before:
            return []
        return [script.revision for script in reversed(list(_scripts().iterate_revisions(after, before or "base")))]
    finally:
        engine.dispose()


def new_revision(message: str) -> Path:
    """Write the next migration's file, its operations drafted by Alembic from the difference between the
    newest revision's schema and :mod:`.schema` (for a developer to read and finish); return its path."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'head.sqlite3'}"
        migrate(url)
        engine = create_engine(url)
        try:
            with engine.connect() as connection:
                config = _config(connection)
                config.set_main_option("file_template", "r%%(rev)s_%%(slug)s")  # a module name: not a digit first
                script = command.revision(config, message, autogenerate=True, rev_id=f"{int(head()) + 1:04d}")
        finally:
            engine.dispose()
    assert script is not None and not isinstance(script, list)
    return Path(script.path)


def _migrating_engine(url: str) -> Engine:
    """An engine for migrating: on SQLite, one whose transaction takes the write lock at its start and holds the DDL too.

    (Python's sqlite3 module commits before DDL by default, which would let a
    half-done migration stand; here it is told to leave transactions to us.)
    """
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute("PRAGMA busy_timeout=30000")

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _shown(url: str) -> str:
    """A database URL as it may be shown: without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


# The connection -------------------------------------------------------------------


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run beside the writer; FULL syncs every commit, so an
    # acknowledged move survives a killed process (and a lost machine).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


IDLE_BEFORE_PING = 30.0  # seconds a pooled connection may sit unused before it is pinged on checkout


def _ping_when_in_doubt(engine: Engine) -> None:
    """Find a database server's dropped connections before use, at the cost of a ping only when one may be dropped.

    SQLAlchemy's ``pool_pre_ping`` pings on every checkout: a round trip that was a fifth of a move's CPU on
    PostgreSQL. A pooled connection is idle, so the server has nothing to say on it unless it ended the session
    (a restart, ``pg_terminate_backend``: its goodbye, or the socket's end, is waiting to be read). So a
    connection is pinged only when its socket has something to read, or when it has sat unused long enough for
    the network to have dropped it silently; a failed ping raises ``DisconnectionError``, on which the pool
    throws the connection away and checks out a fresh one.
    """

    def remember_use(dbapi_connection: Any, record: Any, *_: Any) -> None:  # made, or given back: idle from now
        record.info["used"] = time.monotonic()

    def check(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        idle = time.monotonic() - record.info.get("used", 0.0)
        try:
            readable, _, _ = select.select([dbapi_connection.fileno()], [], [], 0)
            if readable or idle > IDLE_BEFORE_PING:
                engine.dialect.do_ping(dbapi_connection)
        except (engine.dialect.loaded_dbapi.Error, OSError, ValueError) as error:
            raise exc.DisconnectionError(f"a pooled connection was dropped: {error}") from error

    event.listen(engine, "connect", remember_use)
    event.listen(engine, "checkin", remember_use)
    event.listen(engine, "checkout", check)


class Database:
    """One database of the server's, at this version's schema: sessions to read in, and one way to write (thread-safe).

    Raises:
        SchemaError: the database is not at this version's schema (:func:`migrate` first; a server does at start-up).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        sqlite = make_url(url).get_backend_name() == "sqlite"
        self.engine: Engine = create_engine(url) if sqlite else create_engine(url, pool_size=SERVER_CONNECTIONS, max_overflow=2)
        self.threads = None if sqlite else SERVER_THREADS  # for the blocking calls (None: the event loop's default)
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            _ping_when_in_doubt(self.engine)
        with self.engine.connect() as connection:
            revision = _recorded_revision(connection, url)
        _known(revision, url)
        if revision != head():
            self.engine.dispose()
            raise SchemaError(
                f"the database {_shown(url)} is at schema revision {revision!r}, this version keeps {head()!r}: "
                "run `quiltmaker migrate` (a server does it when it starts)"
            )
        self.reading = sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time, and a thread that finds the file locked sleeps and
        # retries (for up to tens of milliseconds a try): under load, threads of one process
        # queueing on that lock took a move from a few milliseconds to seconds. So this
        # process's writers queue on a lock of its own first, which wakes the next at once.
        self._one_writer = OneWriter() if sqlite else None
        self.commits = Commits(self.writing_rows, 1 if sqlite else SERVER_COMMIT_LANES)

    @contextlib.contextmanager
    def writing(self) -> Iterator[Session]:
        """A session whose transaction commits at the end (every write of the server's parts goes through here)."""
        with self._one_writer.held() if self._one_writer else contextlib.nullcontext(), self.reading.begin() as session:
            yield session

    @contextlib.contextmanager
    def writing_rows(self, urgent: bool = False) -> Iterator[Connection]:
        """A transaction that commits at the end, on a bare connection: for the statements of every move (an event's
        insert), where an ORM session's unit of work and bookkeeping cost twice the write itself. ``urgent`` (the
        moves' commits): on SQLite, before the other writers waiting."""
        with self._one_writer.held(urgent) if self._one_writer else contextlib.nullcontext(), self.engine.begin() as connection:
            yield connection

    def reading_rows(self) -> Connection:
        """A bare connection for plain reads (the pool's, given back when closed): for the reads made every second or
        every move, where an ORM session costs more than the statement."""
        return self.engine.connect()

    def close(self) -> None:
        self.commits.close()
        self.engine.dispose()
