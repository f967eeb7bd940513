"""The AI's side of a server process: its worker pools, its moves, hints and analyses.

The search runs in worker processes (:mod:`.worker`), never on the event
loop, in three lanes, each a pool of its own: the moves of the levels that
think for seconds (``expert``, ``max``), the quick moves of those bounded by
playouts (a fraction of a second: ``beginner``, ``casual``, ``strong``, the
tutor), and advice (hints and analyses). So no amount of advice delays
anyone's AI move, and no flood of long searches delays a quick one. Each
lane serves its clients in turn (:class:`.queue.MoveQueue`), an analysis
goes to its lane a few positions at a time, so a hint waits for one piece of
it at most, and advice waiting or running is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import zlib
from collections import Counter
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from cachetools import LRUCache

from ... import tutorial
from ...ai.levels import LEVELS
from ...i18n import _
from . import worker as ai_worker
from .advice import hint_view, review_view
from .queue import MoveQueue
from ..live import LiveGames, Sockets
from ..protocol import ProtocolError
from ..round import rules
from ..round.clocks import thinking_cap
from ..round.game import StoredGame, credit_value
from ..round.kinds import EventKind
from ..round.rules import Refusal
from ..settings import Settings

CACHED = 2000  # hints and attempt counts remembered, the least recently used forgotten first
LAG_CHARGED = 0.1  # seconds of a computer's turn beyond its thinking that are charged (its messages' way), not given back
ANALYSIS_PIECE = 6  # positions of an analysis sent to a worker at once: about a hint's second at the default playouts
AI_ATTEMPTS = 3  # tries at one version before the AI waits for someone to reconnect
log = logging.getLogger("quiltmaker.web")


@dataclass
class Lane:
    """One kind of AI work: its worker pool, and the queue that takes its clients in turn."""

    workers: int
    queue: MoveQueue
    executor: Executor | None = None  # started by AIService.start (or handed in: tests run every lane in one thread)


def lane_of(level: str) -> str:
    """Which lane a level's moves run in: "moves" for a level that thinks for seconds, "quick" for one bounded by playouts."""
    return "quick" if LEVELS[level].seconds is None else "moves"


def seed_for(game_id: str, version: int) -> int:
    # The AI's seed follows from the game and its version: a replayed game replays the same AI.
    return zlib.crc32(f"{game_id}:{version}".encode())


class OptionalWork:
    """The places for hints and analyses waiting for or using the advice's workers: ``limit`` in all, at most a
    quarter of them (one at least) a client's at once, and a quarter kept for hints, which a player waits on now.

    One address that asked for the analyses of eight games of its own took every place, and another player's hints
    were answered ``busy`` for half a minute: a client's share is bounded, and analyses never take the hints' room.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings  # (its optional_work_limit, read at each request: an operator may change it)
        self.taken = 0
        self.by_client: Counter[str] = Counter()

    def take(self, client: str, hint: bool) -> bool:
        """Take a place for ``client``'s hint (or analysis): False when there is none for it."""
        limit = self.settings.optional_work_limit
        share, for_hints = max(1, limit // 4), limit // 4
        if self.taken >= (limit if hint else limit - for_hints) or self.by_client[client] >= share:
            return False
        self.taken += 1
        self.by_client[client] += 1
        return True

    def give_back(self, client: str) -> None:
        self.taken -= 1
        self.by_client[client] -= 1
        if self.by_client[client] <= 0:
            del self.by_client[client]


class AIService:
    """The worker pool and the work in flight on it, for the games of one server process."""

    def __init__(self, games: LiveGames, sockets: Sockets, settings: Settings, executor: Executor | None = None) -> None:
        self.games = games
        self.sockets = sockets
        self.settings = settings
        # "moves": the levels that think for seconds; "quick": the moves bounded by playouts; "advice": hints and analyses.
        self.lanes = {
            name: Lane(workers, MoveQueue(workers), executor)
            for name, workers in (("moves", settings.ai_workers), ("quick", settings.quick_workers), ("advice", settings.advice_workers))
        }
        self.in_flight: dict[str, int] = {}  # game id -> the version the AI is thinking about
        self.attempts: LRUCache[tuple[str, int], int] = LRUCache(CACHED)
        self.analysing: set[str] = set()
        # One hint per game and version, shared by everyone in this process who asks for it.
        self.hints: LRUCache[tuple[str, int], asyncio.Task[Any]] = LRUCache(CACHED)
        self.optional = OptionalWork(settings)  # hints and analyses in the worker queue
        self.pool_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()

    # The worker pool ---------------------------------------------------------

    async def start(self) -> None:
        for lane in self.lanes.values():
            if lane.executor is None:
                lane.executor = self._new_pool(lane.workers)

    @staticmethod
    def _new_pool(workers: int) -> Executor:
        # Spawned, not forked: a fork of a running event loop and its threads is unsafe.
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=ai_worker.warm_up, initargs=(os.getpid(),)
        )
        # A pool starts its processes on demand: one job each starts them all now, so that
        # they have loaded the search (their initializer) before the first AI move is asked for.
        for _worker in range(workers):
            pool.submit(ai_worker.ready)
        return pool

    def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for pool in {lane.executor for lane in self.lanes.values()}:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)

    async def run(self, lane_name: str, client: str, urgent: Callable[[], bool], function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` in a lane's pool when the lane's queue lets ``client`` in (see
        :class:`.queue.MoveQueue`); a broken pool is replaced once, for every caller."""
        lane = self.lanes[lane_name]
        return await lane.queue.run(client, urgent, lambda: self._in_worker(lane, function, *args))

    async def _in_worker(self, lane: Lane, function: Any, *args: Any) -> Any:
        executor = lane.executor
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, function, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory). Whoever sees it first swaps
            # in a fresh pool; the others find it already swapped.
            async with self.pool_lock:
                if lane.executor is executor:
                    log.error("an AI worker pool broke; starting a new one")
                    if executor is not None:
                        executor.shutdown(wait=False, cancel_futures=True)
                    lane.executor = None
                    await self.start()
            raise ProtocolError("internal", _("the AI's worker stopped; please ask again")) from None

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _spawn_optional(self, make: Callable[[], Coroutine[Any, Any, Any]], client: str, hint: bool) -> asyncio.Task[Any] | None:
        """Start ``client``'s hint or analysis work in a place of :class:`OptionalWork`; ``None`` when there is none for it."""
        if not self.optional.take(client, hint):
            return None
        task = self._spawn(make())
        task.add_done_callback(lambda _task: self.optional.give_back(client))
        return task

    # The AI's moves ------------------------------------------------------------

    def is_thinking(self, stored: StoredGame) -> bool:
        return self.in_flight.get(stored.id) == stored.version

    def maybe_move(self, stored: StoredGame) -> None:
        """Start the AI's move if it is its turn and it is not already thinking about this version."""
        position = stored.game.position
        if not stored.against_ai or stored.is_finished or position.to_move != stored.ai_seat:
            return
        if stored.lesson is not None and not tutorial.tutor_moves(stored.lesson, stored.game):
            return  # the tutor plays only where the lesson says so
        if self.is_thinking(stored):
            return
        attempts = self.attempts.get((stored.id, stored.version), 0)
        if attempts >= AI_ATTEMPTS:
            return  # failed every time at this version: wait for a reconnect rather than loop
        self.attempts[(stored.id, stored.version)] = attempts + 1
        self.in_flight[stored.id] = stored.version
        self._spawn(self._move(stored.id, stored.version, position.text(), stored.ai_level or "casual", self._time_cap(stored)))

    @staticmethod
    def _time_cap(stored: StoredGame) -> float | None:
        """On a real-time clock, the AI thinks at most a share of what it has left (:func:`..round.clocks.thinking_cap`)."""
        clock = stored.clock_at(datetime.now(timezone.utc))
        if clock is None or clock.control.kind != "realtime" or stored.ai_seat is None:
            return None
        return thinking_cap(clock.remaining[stored.ai_seat], clock.control)

    def retry(self, stored: StoredGame) -> None:
        """Someone (re)connected: forget past failures at this version, and move if it is the AI's turn."""
        self.attempts.pop((stored.id, stored.version), None)
        self.maybe_move(stored)

    async def _move(self, game_id: str, version: int, position_text: str, level: str, time_cap: float | None = None) -> None:
        games, sockets = self.games, self.sockets
        try:
            move, thinking = await self.run(
                lane_of(level),
                games.players.get(game_id, ""),
                lambda: any(c.seat is not None for c in sockets.connections.get(game_id, ())),
                ai_worker.choose_move, position_text, level, seed_for(game_id, version), time_cap,
            )
            async with games.holding(game_id) as stored:
                if stored.version != version:
                    return  # the game moved on (an undo) while the AI thought
                now = datetime.now(timezone.utc)
                after_credit = await self._give_back_the_wait(stored, version, thinking, now)
                try:
                    await games.record(stored, after_credit, EventKind.MOVE, move, None, None, now)  # checked like anyone's
                except Refusal as refusal:
                    if refusal.code != "time":
                        raise
                    # Its own thinking ran its clock out: it loses on time.
                    await games.record(stored, after_credit, EventKind.TIMEOUT, str(stored.ai_seat), None, None, now)
        except Exception as error:  # a broken worker, the database: log it; the AI tries again below
            log.warning("AI move in game %s at version %d failed: %s", game_id, version, error)
        finally:
            if self.in_flight.get(game_id) == version:
                del self.in_flight[game_id]
        with contextlib.suppress(Exception):
            stored = await games.load(game_id)
            await sockets.changed(stored)  # the new state, or "not thinking" and a fresh try after a failure

    async def _give_back_the_wait(self, stored: StoredGame, version: int, thinking: float, now: datetime) -> int:
        """On a real-time clock, give the AI back the time its turn took beyond its thinking (waiting for a worker,
        a restart): its clock runs only while it thinks. Returns the game's version after."""
        seat = stored.ai_seat
        if seat is None or rules.creditable(stored, now) != seat:
            return version
        waited = (now - stored.move_times[-1]).total_seconds() - thinking - stored.credited_this_turn()
        if waited < LAG_CHARGED:
            return version
        return await self.games.record(stored, version, EventKind.CREDIT, credit_value(seat, waited), None, None, now)

    # Hints ---------------------------------------------------------------------

    async def hint(self, stored: StoredGame, version: int, client: str = "") -> dict[str, Any]:
        """The hint message for the player to move at ``version`` (searched once, shared by every asker), asked for by ``client``."""
        try:
            rules.may_hint(stored)
        except Refusal as refusal:
            raise ProtocolError(refusal.code, str(refusal)) from None
        position = stored.game.position
        if version != stored.version:
            raise ProtocolError.stale(version, stored.version)
        key = (stored.id, version)
        hint = self.hints.get(key)
        if hint is None:
            text, seed = position.text(), seed_for(stored.id, version)
            hint = self._spawn_optional(
                lambda: self.run("advice", client, lambda: True, ai_worker.hint, text, self.settings.hint_seconds, seed), client, hint=True
            )
            if hint is None:
                raise ProtocolError("busy", _("the AI is busy with other requests; ask again in a moment"))
            hint.add_done_callback(lambda done: self._forget_failed_hint(key, done))
            self.hints[key] = hint
        # Shielded: one asker leaving (a closed socket) must not cancel the others' hint.
        result = await asyncio.shield(hint)
        return {"type": "hint", "version": version, **result, **hint_view(position, result["best_move"])}

    def _forget_failed_hint(self, key: tuple[str, int], hint: asyncio.Task[Any]) -> None:
        if (hint.cancelled() or hint.exception() is not None) and self.hints.get(key) is hint:
            del self.hints[key]  # a failure is not an answer: the next request tries again

    # Analysis of finished games --------------------------------------------------

    async def analysis(self, stored: StoredGame, client: str = "") -> tuple[int, dict[str, Any]]:
        """The HTTP status and body of a game's analysis: every position, evaluated once the game is over
        (asked for by ``client``, whose turn in the advice's queue the analysis takes)."""
        game = stored.game
        positions = [
            {
                "ply": ply,
                "to_move": p.to_move,
                "times": list(p.times),
                "buttons": list(p.buttons),
                "income": list(p.income),
                "scores": list(p.scores),
                "win_probability_player0": None,
                "expected_margin_player0": None,
                "best_move": None,
            }
            for ply, p in enumerate(game.positions)
        ]
        # Only finished games are evaluated: in an online game evaluations would be
        # hints, and a live game would need a fresh analysis after every move. A
        # lesson's game is the tutorial's, not the learner's to study: not evaluated.
        if not game.position.is_over or stored.lesson is not None:
            return 200, {"status": "positions only", "positions": positions}
        saved = await asyncio.to_thread(self.games.store.analysis, stored.id)
        if saved is None or saved.get("version") != stored.moves_version:
            if stored.id not in self.analysing:
                if self._spawn_optional(lambda: self._analyse(stored, client), client, hint=False) is None:
                    return 202, {"status": "waiting", "positions": positions}  # asked again, it starts when there is room
                self.analysing.add(stored.id)
            return 202, {"status": "computing", "positions": positions}
        for entry, evaluation in zip(positions, saved["positions"]):
            entry.update(evaluation)
        return 200, {"status": "done", "positions": positions, **review_view(game, positions)}

    async def _analyse(self, stored: StoredGame, client: str) -> None:
        # Read now: the game may change (an undo) while the analysis runs, and
        # the result must be filed under the version it describes.
        version, texts = stored.moves_version, [position.text() for position in stored.game.positions]
        try:
            evaluations: list[dict[str, Any]] = []
            for at in range(0, len(texts), ANALYSIS_PIECE):
                # A piece at a time, each taking its turn in the queue: another client's hint waits for one piece at most.
                # (Not urgent: a hint, for a player thinking now, goes first among equals.)
                piece = texts[at : at + ANALYSIS_PIECE]
                evaluations += await self.run("advice", client, lambda: False, ai_worker.analyse_positions, piece, self.settings.analysis_iterations, 0)
            await asyncio.to_thread(self.games.store.save_analysis, stored.id, {"version": version, "positions": evaluations})
        except Exception as error:
            log.warning("analysis of game %s failed: %s", stored.id, error)
        finally:
            self.analysing.discard(stored.id)
