"""The writes of every move and chat line, committed together (:class:`Commits`), and SQLite's one writer at a time,
which lets them go first (:class:`OneWriter`). docs/web.md ("Several server processes") says what they promise,
docs/benchmarks.md ("Capacity") what they were measured to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import threading
import weakref
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

# How a commit's transaction is begun: :meth:`.database.Database.writing_rows` (urgent: before SQLite's other writers).
Writing = Callable[[bool], contextlib.AbstractContextManager[Connection]]

COMMIT_MOST = 64  # writes in one commit: a long batch holds the writes that arrive while it commits
_SENT_TOGETHER: dict[int, Executable] = {}  # the statements :func:`sent_together` marked, by identity
E = TypeVar("E", bound=Executable)


def sent_together(statement: E) -> E:
    """Mark a statement made once whose rows a shared commit sends in one go at its end, for all its writes (an insert
    of many rows, an executemany): one that returns nothing, and that nothing else in a commit reads back. On
    PostgreSQL each statement is a round trip (and, under load, a wait for the interpreter's lock after it): a commit
    of seven moves took 14 of them."""
    _SENT_TOGETHER[id(statement)] = statement
    return statement


class Rows:
    """The connection a shared commit's writes are given: the statements marked :func:`sent_together` are kept and
    sent at the commit's end, one per statement with every write's rows; any other runs at once (a chat line's insert,
    whose id it returns)."""

    def __init__(self, connection: Connection, keep: bool) -> None:
        self.connection = connection
        self._keep = keep
        self._kept: dict[int, list[dict[str, Any]]] = {}

    def execute(self, statement: Executable, parameters: dict[str, Any] | list[dict[str, Any]] | None = None) -> Any:
        if self._keep and id(statement) in _SENT_TOGETHER:
            self._kept.setdefault(id(statement), []).extend([parameters] if isinstance(parameters, dict) else parameters or [])
            return None
        return self.connection.execute(statement, parameters)

    def send(self) -> None:
        for statement, rows in self._kept.items():
            self.connection.execute(_SENT_TOGETHER[statement], rows)
        self._kept.clear()


class OneWriter:
    """This process's one SQLite writer at a time, whose urgent writers (the moves' commits) go before the others waiting.

    Under load a seek's or a pairing's transaction holds the writer for several milliseconds (each call into SQLite
    gives the interpreter's lock away, and taking it back waits for the threads beside it): the moves, queued behind
    a burst of them in turn, took hundreds of milliseconds to be acknowledged. Now they wait for one at most.
    """

    def __init__(self) -> None:
        self._state = threading.Condition()
        self._held = False
        self._urgent = 0  # urgent writers waiting

    @contextlib.contextmanager
    def held(self, urgent: bool = False) -> Iterator[None]:
        with self._state:
            self._urgent += urgent
            try:
                while self._held or (self._urgent and not urgent):
                    self._state.wait()
            finally:
                self._urgent -= urgent
            self._held = True
        try:
            yield
        finally:
            with self._state:
                self._held = False
                self._state.notify_all()


T = TypeVar("T")


class Commits:
    """The writes of every move and chat line, committed together: those that arrive while one commit runs share the next.

    Under load SQLite's one writer was the queue: each move's transaction held it for 3 to 5 ms (its statements, the
    commit's fsync, and the interpreter's lock, taken back after each call into SQLite from the threads beside it), so
    a thousand players' 200 writes a second kept it busy, and the writers waiting on it held every thread of the
    event loop's pool, which the reads of everything else (a game's load, a poll, the chat) then waited behind for
    hundreds of milliseconds (docs/benchmarks.md). Here a write waits for the commit running, if any, then is
    committed with the others that came meanwhile, in a transaction of their own, on a thread of its own. A
    game's writes go to one lane (its id's hash), so they stay in order. When a commit fails (a move finds its
    number taken), each of its writes is tried again alone, so the failure reaches only its own; when the commit
    itself fails (its start or end, the connection), every write of it is told so, none tried again (a commit whose
    end is unknown may have stored them).
    """

    def __init__(self, writing: Writing, lanes: int) -> None:
        self._lanes = [_Lane(writing, f"commits-{index}", sort=lanes > 1) for index in range(lanes)]

    async def write(self, key: str, work: Callable[[Rows], T]) -> T:
        """``work(rows)``'s result once committed (or what it raised); ``key`` (a game's id) picks the lane.
        ``work`` runs in its writer's context (its language, for the words of an error it raises)."""
        return await self._lanes[zlib.crc32(key.encode()) % len(self._lanes)].write(key, work)

    def close(self) -> None:
        for lane in self._lanes:
            lane.executor.shutdown(wait=True)


class _Failed(Exception):
    """A shared commit's own failure (its transaction's start or end, the connection): none of its writes is known to
    be at fault, and a write tried again might be stored twice, so every one of them is told it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


@dataclasses.dataclass(slots=True)
class _Write:
    key: str
    work: Callable[[Rows], Any]
    context: contextvars.Context
    future: asyncio.Future[Any]

    def run(self, rows: Rows) -> Any:
        return self.context.run(self.work, rows)


@dataclasses.dataclass(slots=True)
class _Queue:
    """The writes waiting on one event loop, and that loop's task committing them (a server has one loop; tests more)."""

    waiting: list[_Write] = dataclasses.field(default_factory=list)
    committing: asyncio.Task[None] | None = None


class _Lane:
    def __init__(self, writing: Writing, name: str, sort: bool) -> None:
        self.writing = writing
        self.executor = ThreadPoolExecutor(1, thread_name_prefix=name)
        # With a database server, a commit's rows are written in the order of their games' ids (a game's own stay in
        # theirs): two processes' commits then lock rows in one order, and never wait for each other in a cycle.
        self.sort = sort
        self.queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = weakref.WeakKeyDictionary()

    async def write(self, key: str, work: Callable[[Rows], T]) -> T:
        loop = asyncio.get_running_loop()
        queue = self.queues.setdefault(loop, _Queue())
        future: asyncio.Future[T] = loop.create_future()
        queue.waiting.append(_Write(key, work, contextvars.copy_context(), future))
        if queue.committing is None or queue.committing.done():
            queue.committing = asyncio.create_task(self._commit_waiting(queue))
        return await future

    async def _commit_waiting(self, queue: _Queue) -> None:
        loop = asyncio.get_running_loop()
        while queue.waiting:
            batch, queue.waiting = queue.waiting[:COMMIT_MOST], queue.waiting[COMMIT_MOST:]
            if self.sort:
                batch.sort(key=lambda write: write.key)  # (stable: a game's writes keep their order)
            try:
                outcomes = await loop.run_in_executor(self.executor, self._commit, batch)
            except BaseException as error:  # the loop's end cancelled this, or the lane was shut: nobody waits forever
                for write in batch + queue.waiting:
                    if not write.future.done():
                        write.future.set_exception(error if isinstance(error, Exception) else RuntimeError("the server is stopping"))
                queue.waiting = []
                if not isinstance(error, Exception):
                    raise
                return
            for write, (value, failure) in zip(batch, outcomes):
                if write.future.done():  # (its writer gone: a closed socket; the write stands)
                    continue
                if failure is not None:
                    write.future.set_exception(failure)
                else:
                    write.future.set_result(value)

    def _commit(self, batch: list[_Write]) -> list[tuple[Any, Exception | None]]:
        try:
            return [(value, None) for value in self._together(batch)]
        except _Failed as failed:
            return [(None, failed.error)] * len(batch)
        except Exception as error:
            if len(batch) == 1:
                return [(None, error)]
        outcomes: list[tuple[Any, Exception | None]] = []
        for write in batch:  # one of them failed and took the transaction with it: each alone, its failure its own
            try:
                outcomes.append((self._together([write])[0], None))
            except _Failed as failed:
                outcomes.append((None, failed.error))
            except Exception as error:
                outcomes.append((None, error))
        return outcomes

    def _together(self, batch: list[_Write]) -> list[Any]:
        """The batch's writes in one transaction; what a write raised, as it is, or the transaction's failure as _Failed."""
        values: list[Any] = []
        try:
            with self.writing(True) as connection:
                rows = Rows(connection, keep=len(batch) > 1)  # (alone, a write's statements run as it makes them)
                for write in batch:
                    try:
                        values.append(write.run(rows))
                    except Exception as error:
                        raise _Blamed(error) from error
                try:
                    rows.send()
                except Exception as error:  # one write's row (a move's number taken): each alone finds whose
                    raise _Blamed(error) from error
        except _Blamed as blamed:
            raise blamed.error from None
        except Exception as error:  # the transaction's start or commit, or the connection
            raise _Failed(error) from error
        return values


class _Blamed(Exception):
    """What one write raised, carried out of the transaction (which it rolls back) as that write's own."""

    def __init__(self, error: Exception) -> None:
        self.error = error
