"""The writes of every move and chat line, committed together (:class:`Commits`), and SQLite's one writer at a time,
which lets them go first (:class:`OneWriter`). docs/web.md ("Several server processes") says what they promise,
docs/benchmarks.md ("Capacity") what they were measured to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from .database import Database

COMMIT_MOST = 64  # writes in one commit: a long batch holds the writes that arrive while it commits


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
    number taken, a disk error), each of its writes is tried again alone, so the failure reaches only its own.
    """

    def __init__(self, database: Database, lanes: int) -> None:
        self._lanes = [_Lane(database, f"commits-{index}") for index in range(lanes)]

    async def write(self, key: str, work: Callable[[Connection], T]) -> T:
        """``work(connection)``'s result once committed (or what it raised); ``key`` (a game's id) picks the lane."""
        return await self._lanes[zlib.crc32(key.encode()) % len(self._lanes)].write(work)

    def close(self) -> None:
        for lane in self._lanes:
            lane.executor.shutdown(wait=True)


class _Lane:
    def __init__(self, database: Database, name: str) -> None:
        self.database = database
        self.executor = ThreadPoolExecutor(1, thread_name_prefix=name)
        self.waiting: list[tuple[Callable[[Connection], Any], asyncio.Future[Any]]] = []
        self.committing: asyncio.Task[None] | None = None

    async def write(self, work: Callable[[Connection], T]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.waiting.append((work, future))
        if self.committing is None:
            self.committing = asyncio.create_task(self._commit_waiting())
        return await future

    async def _commit_waiting(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.waiting:
                batch, self.waiting = self.waiting[:COMMIT_MOST], self.waiting[COMMIT_MOST:]
                try:
                    outcomes = await loop.run_in_executor(self.executor, self._commit, [work for work, _ in batch])
                except BaseException as error:  # cancelled (the server stopping), or the lane shut: nobody waits forever
                    for _, future in batch + self.waiting:
                        if not future.done():
                            future.set_exception(error if isinstance(error, Exception) else RuntimeError("the server is stopping"))
                    self.waiting = []
                    raise
                for (_, future), (value, failure) in zip(batch, outcomes):
                    if future.done():  # (its writer gone: a closed socket; the write stands)
                        continue
                    if failure is not None:
                        future.set_exception(failure)
                    else:
                        future.set_result(value)
        finally:
            self.committing = None

    def _commit(self, works: list[Callable[[Connection], Any]]) -> list[tuple[Any, Exception | None]]:
        try:
            with self.database.writing_rows(urgent=True) as connection:
                values = [work(connection) for work in works]
            return [(value, None) for value in values]
        except Exception as error:
            if len(works) == 1:
                return [(None, error)]
        outcomes: list[tuple[Any, Exception | None]] = []
        for work in works:  # one of them failed and took the transaction with it: each alone, its failure its own
            try:
                with self.database.writing_rows(urgent=True) as connection:
                    outcomes.append((work(connection), None))
            except Exception as error:
                outcomes.append((None, error))
        return outcomes
