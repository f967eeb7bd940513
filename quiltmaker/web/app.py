"""The web server: FastAPI over HTTP and WebSockets, the server the authority.

Every intent is checked against the stored game with the rules engine,
appended to the game's log, committed, and only then acknowledged and
broadcast (see docs/web.md). Blocking work (the database, the rules) runs
in threads; the AI runs in worker processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import random
import re
import secrets
import zlib
from collections import OrderedDict, defaultdict
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, field_validator

from ..core import record
from ..ai.levels import LEVELS
from ..core.components import DEFAULT_VARIANT, TIME_TRACKS, VARIANT_ALIASES
from ..core.errors import QuiltmakerError
from ..core.moves import Move
from ..core.position import Position
from . import ai_worker
from .pubsub import Broker, LocalBroker
from .store import BOTH_SEATS, GameStore, StoredGame, StoreError
from .views import catalogue, hint_view, replay_view, state_view, summary_view, turn_reason, with_names

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE_BYTES = 4096
MAX_CLIENT_ID = 64
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # ids are secrets.token_urlsafe: nothing else reaches the database
CACHED_GAMES = 2000
AI_ATTEMPTS = 3  # tries at one version before the AI waits for someone to reconnect
SEND_SECONDS = 5.0  # a socket that cannot take a state this fast is closed, so it cannot stall a game
log = logging.getLogger("quiltmaker.web")


@dataclass
class Settings:
    """How a server runs.

    Attributes:
        database_url: SQLAlchemy URL of the games database.
        broker: Pub/sub between server processes (in-process by default).
        ai_workers: Worker processes for AI moves, hints and analysis.
        hint_seconds: Search time of a hint.
        analysis_iterations: Playouts per position when analysing a finished game.
        optional_work_limit: Hints and analyses allowed to wait for or use the AI workers at
            once. Beyond it a hint is refused as ``busy`` and an analysis waits for a later
            request, so that they cannot pile up ahead of the AI's moves.
    """

    database_url: str
    broker: Broker | None = None
    ai_workers: int = 1
    hint_seconds: float = 1.0
    analysis_iterations: int = 2000
    optional_work_limit: int = 8


class NewGame(BaseModel):
    mode: Literal["ai", "local", "online"]
    level: str = "casual"
    seat: Literal[0, 1] | None = None
    variant: str = DEFAULT_VARIANT
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    names: list[str] | None = Field(default=None, max_length=2)

    @field_validator("level")
    @classmethod
    def _known_level(cls, level: str) -> str:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
        return level

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, variant: str) -> str:
        variant = VARIANT_ALIASES.get(variant, variant)
        if variant not in TIME_TRACKS:
            raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(TIME_TRACKS)}")
        return variant

    @field_validator("names")
    @classmethod
    def _short_names(cls, names: list[str] | None) -> list[str] | None:
        if names is not None and any(len(n) > 40 for n in names):
            raise ValueError("a name is at most 40 characters")
        try:
            "".join(names or []).encode()
        except UnicodeEncodeError:
            raise ValueError("a name must be Unicode text") from None
        if any("\x00" in n for n in names or []):
            raise ValueError("a name cannot hold a NUL character")
        return names


class Join(BaseModel):
    invite: str = Field(max_length=64)


class ProtocolError(Exception):
    """An intent refused: sent back as an ``error`` message; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False)
class Connection:
    socket: WebSocket
    seat: int | str | None = None
    version_sent: int = -1  # the newest state sent: never follow it with an older one


def _seed_for(game_id: str, version: int) -> int:
    # The AI's seed follows from the game and its version: a replayed game replays the same AI.
    return zlib.crc32(f"{game_id}:{version}".encode())


class GameServer:
    """The live part of a server process: sockets by game, the AI in flight, the broker."""

    def __init__(self, settings: Settings, executor: Executor | None = None) -> None:
        self.settings = settings
        self.store = GameStore(settings.database_url)
        self.broker: Broker = settings.broker or LocalBroker()
        self.executor = executor
        self.connections: dict[str, set[Connection]] = defaultdict(set)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.ai_in_flight: dict[str, int] = {}  # game id -> the version the AI is thinking about
        self.ai_attempts: dict[tuple[str, int], int] = {}
        self.analysing: set[str] = set()
        # One hint per game and version, shared by everyone in this process who asks for it.
        self.hints: OrderedDict[tuple[str, int], asyncio.Task[Any]] = OrderedDict()
        self.optional_work = 0  # hints and analyses in the worker queue
        self.cache: OrderedDict[str, StoredGame] = OrderedDict()
        self.pool_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        await self.start_executor()
        await self.broker.start(self.on_change)

    async def in_worker(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` in the AI worker pool; a broken pool is replaced once, for every caller."""
        executor = self.executor
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, function, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory). Whoever sees it first swaps
            # in a fresh pool; the others find it already swapped.
            async with self.pool_lock:
                if self.executor is executor:
                    log.error("the AI worker pool broke; starting a new one")
                    if executor is not None:
                        executor.shutdown(wait=False, cancel_futures=True)
                    self.executor = None
                    await self.start_executor()
            raise ProtocolError("internal", "the AI's worker stopped; please ask again") from None

    async def start_executor(self) -> None:
        if self.executor is None:
            # Spawned, not forked: a fork of a running event loop and its threads is unsafe.
            self.executor = ProcessPoolExecutor(
                max_workers=self.settings.ai_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=ai_worker.warm_up,
            )

    async def stop(self) -> None:
        await self.broker.close()
        for task in list(self._tasks):
            task.cancel()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    # Loading and broadcasting ---------------------------------------------------

    async def load(self, game_id: str) -> StoredGame:
        """The game at its latest version (``not_found`` for anything that is not a game id).

        Games stay in memory once loaded; a load reads only the events
        appended since (by this process or another) and replays them.
        """
        if not GAME_ID.fullmatch(game_id):
            raise ProtocolError("not_found", f"no game {game_id[:40]!r}")
        try:
            stored = self.cache.get(game_id)
            if stored is None:
                stored = await asyncio.to_thread(self.store.load, game_id)
                self.cache[game_id] = stored
                if len(self.cache) > CACHED_GAMES:
                    evicted, _ = self.cache.popitem(last=False)
                    lock = self.locks.get(evicted)
                    if lock is not None and not lock.locked():
                        del self.locks[evicted]
            else:
                self.cache.move_to_end(game_id)
                # Applied here on the event loop, never in the thread, so no two coroutines apply at once.
                stored.apply(await asyncio.to_thread(self.store.refresh, stored))
            return stored
        except StoreError as error:
            if error.code == "corrupt":
                self.cache.pop(game_id, None)
            raise ProtocolError(error.code, str(error)) from None

    def state(self, stored: StoredGame) -> dict[str, Any]:
        return state_view(stored, ai_thinking=self.ai_in_flight.get(stored.id) == stored.version)

    async def on_change(self, game_id: str, version: int) -> None:
        """Another server process changed a game: send its state to our sockets."""
        if not self.connections.get(game_id):
            return
        with contextlib.suppress(ProtocolError):
            await self.broadcast(await self.load(game_id))

    async def send_state(self, connection: Connection, stored: StoredGame) -> None:
        await self._send_states([connection], stored.version, json.dumps({"type": "state", "state": self.state(stored)}))

    async def broadcast(self, stored: StoredGame) -> None:
        text = json.dumps({"type": "state", "state": self.state(stored)})
        await self._send_states(list(self.connections.get(stored.id, ())), stored.version, text)

    async def _send_states(self, connections: list[Connection], version: int, text: str) -> None:
        fresh = []
        for connection in connections:
            # Two broadcasts of one game can interleave at the awaits below;
            # the version check keeps each socket's states in order.
            if version >= connection.version_sent:
                connection.version_sent = version
                fresh.append(connection)
        await asyncio.gather(*(self._send(connection, text) for connection in fresh))

    async def _send(self, connection: Connection, text: str) -> None:
        """Send one message; a socket that does not take it within SEND_SECONDS is closed, never waited on."""
        try:
            await asyncio.wait_for(connection.socket.send_text(text), SEND_SECONDS)
        except Exception:  # closed, or too slow: its handler cleans up; a reload reconnects it
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.socket.close(code=1013), 1.0)

    async def changed(self, stored: StoredGame) -> None:
        """The game changed here: start the AI if it is its turn, tell our sockets, then the other processes.

        The change is already committed, so a failure to tell anyone is
        logged, never reported as a failure of the intent: a reload shows it.
        """
        self.maybe_start_ai(stored)
        try:
            await self.broadcast(stored)
            await self.broker.publish(stored.id, stored.version)
        except Exception:
            log.exception("telling the sockets and processes about game %s failed", stored.id)

    # The AI -------------------------------------------------------------------

    def maybe_start_ai(self, stored: StoredGame) -> None:
        position = stored.game.position
        if stored.mode != "ai" or position.to_move is None or position.to_move != stored.ai_seat:
            return
        if self.ai_in_flight.get(stored.id) == stored.version:
            return
        attempts = self.ai_attempts.get((stored.id, stored.version), 0)
        if attempts >= AI_ATTEMPTS:
            return  # failed every time at this version: wait for a reconnect rather than loop
        self.ai_attempts[(stored.id, stored.version)] = attempts + 1
        if len(self.ai_attempts) > CACHED_GAMES:
            self.ai_attempts.clear()
        self.ai_in_flight[stored.id] = stored.version
        self._spawn(self._ai_move(stored.id, stored.version, position.text(), stored.ai_level or "casual"))

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _spawn_optional(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> asyncio.Task[Any] | None:
        """Start hint or analysis work, counted against ``optional_work_limit``; ``None`` when there is no room."""
        if self.optional_work >= self.settings.optional_work_limit:
            return None
        self.optional_work += 1
        task = self._spawn(make())
        task.add_done_callback(lambda _task: self._optional_done())
        return task

    def _optional_done(self) -> None:
        self.optional_work -= 1

    async def _ai_move(self, game_id: str, version: int, position_text: str, level: str) -> None:
        try:
            move = await self.in_worker(ai_worker.choose_move, position_text, level, _seed_for(game_id, version))
            async with self.locks[game_id]:
                stored = await self.load(game_id)
                if stored.version != version:
                    return  # the game moved on (an undo) while the AI thought
                stored.game.position.play(move)  # the rules check the AI like anyone else
                await asyncio.to_thread(self.store.append, game_id, version, "move", move, None, None)
                stored.apply([(version, "move", move, None)])
        except Exception as error:  # a broken worker, the database: log it; the AI tries again below
            log.warning("AI move in game %s at version %d failed: %s", game_id, version, error)
        finally:
            if self.ai_in_flight.get(game_id) == version:
                del self.ai_in_flight[game_id]
        with contextlib.suppress(Exception):
            stored = await self.load(game_id)
            await self.changed(stored)  # the new state, or "not thinking" and a fresh try after a failure

    # Intents ------------------------------------------------------------------

    async def handle(self, game_id: str, connection: Connection, message: dict[str, Any]) -> dict[str, Any]:
        """Carry out one intent and return the reply; raise ProtocolError to refuse it."""
        kind = message.get("type")
        if kind == "hello":
            token = message.get("token")
            if token is not None and (not isinstance(token, str) or len(token) > 128):
                raise ProtocolError("malformed", "the token must be a string")
            stored = await self.load(game_id)
            seat = stored.seat_of(token)
            if token and seat is None:
                connection.seat = None
                raise ProtocolError("forbidden", "this token holds no seat in this game: you are watching")
            connection.seat = seat
            return {"type": "welcome", "seat": seat}
        if kind not in ("move", "undo", "hint", "rematch"):
            raise ProtocolError("malformed", f"unknown message type {kind!r}: expected hello, move, undo, hint or rematch")
        client_id = message.get("id")
        if client_id is not None and (not isinstance(client_id, str) or len(client_id) > MAX_CLIENT_ID or "\x00" in client_id):
            raise ProtocolError("malformed", f"'id' must be a string of at most {MAX_CLIENT_ID} characters")
        version = message.get("version")
        if type(version) is not int:
            raise ProtocolError("malformed", "'version' must be the integer version of the state you saw")
        if connection.seat is None:
            raise ProtocolError("forbidden", "spectators cannot act: open the game with a seat's link")
        if kind == "hint":
            return await self._hint(game_id, connection, version)
        async with self.locks[game_id]:
            stored = await self.load(game_id)
            if client_id is not None and client_id in stored.client_ids:
                raise ProtocolError("duplicate", f"message {client_id!r} was already carried out")
            if version != stored.version:
                raise ProtocolError("stale", f"you saw version {version}, the game is at version {stored.version}")
            if kind == "move":
                value = self._check_move(stored, connection, message.get("move"))
            elif kind == "undo":
                value = str(self._undo_count(stored, connection))
            else:
                value = await self._create_rematch(stored)
            try:
                new_version = await asyncio.to_thread(
                    self.store.append, game_id, version, kind, value, _seat_number(connection.seat, stored), client_id
                )
            except BaseException as error:
                if kind == "rematch":  # not recorded (another process started one first, a database error): drop ours
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(self.store.delete_unplayed, value)
                if isinstance(error, StoreError):
                    raise ProtocolError(error.code, str(error)) from None
                raise
            stored.apply([(version, kind, value, client_id)])  # skipped if a refresh already brought it in
        await self.changed(stored)
        return {"type": "ack", "version": new_version}

    def _check_move(self, stored: StoredGame, connection: Connection, text: Any) -> str:
        position = stored.game.position
        if stored.status == "waiting":
            raise ProtocolError("not_allowed", "the game starts when your friend opens the invitation link")
        if position.to_move is None:
            raise ProtocolError("game_over", "the game is over")
        if connection.seat != BOTH_SEATS and connection.seat != position.to_move:
            raise ProtocolError("not_your_turn", f"it is not your turn: {turn_reason(position, stored.names)}")
        if not isinstance(text, str) or len(text) > 64:
            raise ProtocolError("malformed", "'move' must be the text of a move, such as 'A' or '12R1@e5'")
        try:
            move = Move.from_text(text)
        except QuiltmakerError as error:
            raise ProtocolError("malformed", str(error)) from None
        reason = position.why_illegal(move) if move.exists else "no such move"
        if reason is not None:
            raise ProtocolError("illegal", f"{move.text()} is illegal: {with_names(reason, stored.names)}")
        return move.text()

    def _undo_count(self, stored: StoredGame, connection: Connection) -> int:
        if stored.mode == "online":
            raise ProtocolError("not_allowed", "there is no undo in an online game")
        if stored.rematch is not None:
            raise ProtocolError("not_allowed", "the rematch has started: this game can no longer change")
        movers = stored.game.movers
        if stored.mode == "local":
            if not movers:
                raise ProtocolError("not_allowed", "there is no move to undo")
            return 1
        # Against the AI: back to the human's last turn, taking the AI's replies with it.
        count = stored.game.turn_start(1 - (stored.ai_seat or 0))
        if count is None:
            raise ProtocolError("not_allowed", "you have no move to undo yet")
        return count

    async def _create_rematch(self, stored: StoredGame) -> str:
        """Store the next game between the same seats (see :meth:`GameStore.create_rematch`); return its id."""
        if not stored.game.position.is_over:
            raise ProtocolError("not_allowed", "a rematch can be asked for once the game is over")
        if stored.rematch is not None:
            raise ProtocolError("not_allowed", f"the rematch has already started: game {stored.rematch}")
        start = Position.initial(secrets.randbits(63), first_player=0, variant=stored.game.position.variant)
        return str(await asyncio.to_thread(self.store.create_rematch, stored, start))

    async def _hint(self, game_id: str, connection: Connection, version: int) -> dict[str, Any]:
        stored = await self.load(game_id)
        if stored.mode == "online":
            raise ProtocolError("not_allowed", "hints are not given in online games")
        position = stored.game.position
        if position.to_move is None:
            raise ProtocolError("game_over", "the game is over")
        if version != stored.version:
            raise ProtocolError("stale", f"you saw version {version}, the game is at version {stored.version}")
        key = (game_id, version)
        hint = self.hints.get(key)
        if hint is None:
            text, seed = position.text(), _seed_for(game_id, version)
            hint = self._spawn_optional(lambda: self.in_worker(ai_worker.hint, text, self.settings.hint_seconds, seed))
            if hint is None:
                raise ProtocolError("busy", "the AI is busy with other requests; ask again in a moment")
            hint.add_done_callback(lambda done: self._forget_failed_hint(key, done))
            self.hints[key] = hint
            while len(self.hints) > CACHED_GAMES:
                self.hints.popitem(last=False)
        # Shielded: one asker leaving (a closed socket) must not cancel the others' hint.
        result = await asyncio.shield(hint)
        return {"type": "hint", "version": version, **result, **hint_view(position, result["best_move"])}

    def _forget_failed_hint(self, key: tuple[str, int], hint: asyncio.Task[Any]) -> None:
        if (hint.cancelled() or hint.exception() is not None) and self.hints.get(key) is hint:
            del self.hints[key]  # a failure is not an answer: the next request tries again

    # Analysis of finished games --------------------------------------------------

    async def analysis(self, game_id: str) -> tuple[int, dict[str, Any]]:
        stored = await self.load(game_id)
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
        # hints, and a live game would need a fresh analysis after every move.
        if not game.position.is_over:
            return 200, {"status": "positions only", "positions": positions}
        saved = await asyncio.to_thread(self.store.analysis, game_id)
        if saved is None or saved.get("version") != stored.moves_version:
            if game_id not in self.analysing:
                if self._spawn_optional(lambda: self._analyse(stored)) is None:
                    return 202, {"status": "waiting", "positions": positions}  # asked again, it starts when there is room
                self.analysing.add(game_id)
            return 202, {"status": "computing", "positions": positions}
        for entry, evaluation in zip(positions, saved["positions"]):
            entry.update(evaluation)
        return 200, {"status": "done", "positions": positions}

    async def _analyse(self, stored: StoredGame) -> None:
        # Read now: the game may change (an undo) while the analysis runs, and
        # the result must be filed under the version it describes.
        version, start, moves = stored.moves_version, stored.game.start.text(), [m.text() for m in stored.game.moves]
        try:
            evaluations = await self.in_worker(ai_worker.analyse, start, moves, self.settings.analysis_iterations, 0)
            await asyncio.to_thread(self.store.save_analysis, stored.id, {"version": version, "positions": evaluations})
        except Exception as error:
            log.warning("analysis of game %s failed: %s", stored.id, error)
        finally:
            self.analysing.discard(stored.id)


def _seat_number(seat: int | str | None, stored: StoredGame) -> int | None:
    """The seat an event is recorded for: pass-and-play's one token acts for the player to move (seat 0 once over)."""
    if seat == BOTH_SEATS:
        to_move = stored.game.position.to_move
        return 0 if to_move is None else to_move
    return seat if isinstance(seat, int) else None


def create_app(settings: Settings, executor: Executor | None = None) -> FastAPI:
    """The web application. ``executor`` replaces the AI's process pool (tests pass a thread pool)."""
    server = GameServer(settings, executor)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    app = FastAPI(title="quiltmaker", lifespan=lifespan)
    app.state.server = server
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    levels = {name: level.description for name, level in LEVELS.items()}

    @app.get("/", include_in_schema=False)
    async def lobby() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    @app.get("/api/catalogue")
    async def get_catalogue() -> dict[str, Any]:
        return catalogue(levels)

    @app.post("/api/games")
    async def create_game(new: NewGame) -> dict[str, Any]:
        rng = random.Random(new.seed)
        # Seat 0 moves first, so choosing a seat is choosing to start or not.
        start = Position.initial(rng.randrange(2**63), first_player=0, variant=new.variant)
        seat = new.seat if new.seat is not None else rng.randrange(2)
        if new.mode == "ai":
            # A name, not "You": messages speak of players in the third person.
            names = ["Player", f"quiltmaker {new.level}"] if seat == 0 else [f"quiltmaker {new.level}", "Player"]
        else:
            names = ["Player 1", "Player 2"]
        for index, name in enumerate(new.names or []):
            if name.strip() and not (new.mode == "ai" and index != seat):
                names[index] = name.strip()
        game_id, token, invite = await asyncio.to_thread(
            server.store.create,
            new.mode,
            start,
            names,
            new.level if new.mode == "ai" else None,
            1 - seat if new.mode == "ai" else None,
            seat,
        )
        return {"id": game_id, "token": token, "seat": BOTH_SEATS if new.mode == "local" else seat, "invite": invite}

    @app.post("/api/games/{game_id}/join")
    async def join_game(game_id: str, join: Join) -> dict[str, Any]:
        try:
            token, seat = await asyncio.to_thread(server.store.join, game_id, join.invite)
        except StoreError as error:
            raise HTTPException(404 if error.code == "not_found" else 403, str(error)) from None
        with contextlib.suppress(Exception):  # the seat is taken: the token must reach its owner whatever happens
            await server.changed(await server.load(game_id))  # the game leaves "waiting" for everyone watching
        return {"token": token, "seat": seat}

    async def load_or_404(game_id: str) -> StoredGame:
        try:
            return await server.load(game_id)
        except ProtocolError as error:
            raise HTTPException(404 if error.code == "not_found" else 500, str(error)) from None

    @app.get("/api/games")
    async def list_games(ids: str = "") -> dict[str, Any]:
        wanted = [i for i in ids.split(",") if i][:100]
        games = []
        for game_id in wanted:
            with contextlib.suppress(HTTPException):
                games.append(summary_view(await load_or_404(game_id)))
        return {"games": games}

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> dict[str, Any]:
        return server.state(await load_or_404(game_id))

    @app.get("/api/games/{game_id}/record.json")
    async def record_json(game_id: str) -> Response:
        stored = await load_or_404(game_id)
        return JSONResponse(
            record.to_json(stored.game), headers={"Content-Disposition": f'attachment; filename="quiltmaker-{game_id}.json"'}
        )

    @app.get("/api/games/{game_id}/record.txt")
    async def record_text(game_id: str) -> Response:
        stored = await load_or_404(game_id)
        return PlainTextResponse(
            record.to_text(stored.game), headers={"Content-Disposition": f'attachment; filename="quiltmaker-{game_id}.txt"'}
        )

    @app.get("/api/games/{game_id}/positions")
    async def get_positions(game_id: str) -> dict[str, Any]:
        return replay_view(await load_or_404(game_id))

    @app.get("/api/games/{game_id}/analysis")
    async def get_analysis(game_id: str) -> Response:
        await load_or_404(game_id)
        status, body = await server.analysis(game_id)
        return JSONResponse(body, status_code=status)

    @app.websocket("/ws/games/{game_id}")
    async def play(socket: WebSocket, game_id: str) -> None:
        await socket.accept()
        try:
            stored = await server.load(game_id)
        except ProtocolError as error:
            await socket.send_json({"type": "error", "id": None, "code": error.code, "message": str(error)})
            await socket.close(code=4404)
            return
        connection = Connection(socket)
        server.connections[game_id].add(connection)
        try:
            server.ai_attempts.pop((stored.id, stored.version), None)
            server.maybe_start_ai(stored)  # after a restart, an AI turn left hanging resumes here
            await server.send_state(connection, stored)
            while True:
                raw = await socket.receive()
                if raw["type"] == "websocket.disconnect":
                    break
                reply = await _reply(server, game_id, connection, raw)
                await socket.send_json(reply)
        except WebSocketDisconnect:
            pass
        finally:
            server.connections[game_id].discard(connection)
            if not server.connections[game_id]:
                del server.connections[game_id]

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        # Say what is wrong without echoing the input back: it may not even encode.
        problems = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))} for e in error.errors()]
        return JSONResponse({"detail": problems}, status_code=422)

    @app.exception_handler(StoreError)
    async def store_error(_request: Request, error: StoreError) -> JSONResponse:
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=400)

    return app


async def _reply(server: GameServer, game_id: str, connection: Connection, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Parse one WebSocket message and carry it out; every failure becomes an error reply."""
    client_id: Any = None
    try:
        text = raw.get("text")
        if text is None:
            data = raw.get("bytes") or b""
            if len(data) > MAX_MESSAGE_BYTES:
                raise ProtocolError("too_large", f"messages are at most {MAX_MESSAGE_BYTES} bytes")
            try:
                text = data.decode()
            except UnicodeDecodeError:
                raise ProtocolError("malformed", "messages are JSON text") from None
        if len(text.encode()) > MAX_MESSAGE_BYTES:
            raise ProtocolError("too_large", f"messages are at most {MAX_MESSAGE_BYTES} bytes")
        try:
            message = json.loads(text)
            # Strings that are not Unicode text (lone surrogates, legal in JSON) would fail later, in the database.
            json.dumps(message, ensure_ascii=False).encode()
        except (ValueError, RecursionError):
            raise ProtocolError("malformed", "messages are JSON objects such as {\"type\": \"move\", ...}") from None
        if not isinstance(message, dict):
            raise ProtocolError("malformed", "messages are JSON objects such as {\"type\": \"move\", ...}")
        client_id = message.get("id") if isinstance(message.get("id"), str) else None
        reply = await server.handle(game_id, connection, message)
    except ProtocolError as error:
        reply = {"type": "error", "code": error.code, "message": str(error)}
        if error.code == "stale":
            # Send the fresh state along, so the client can show what changed.
            with contextlib.suppress(ProtocolError):
                await server.send_state(connection, await server.load(game_id))
    except Exception:  # a bug or a broken worker: the player hears of it, the server carries on
        log.exception("intent in game %s failed", game_id)
        reply = {"type": "error", "code": "internal", "message": "the server hit an error doing that; reload to see the game as stored"}
    reply["id"] = client_id
    return reply


def run_server(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the app with uvicorn until interrupted, after saying where to open it."""
    import uvicorn

    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    print(f"quiltmaker is running: open http://{shown}:{port}/ in your browser (Ctrl+C stops it)", flush=True)
    # ws_max_size caps a WebSocket frame before it is read; the app refuses anything over 4 KiB itself.
    # No per-message deflate: a state is a few kilobytes, and compressing every
    # one cost the server a third of its time per move (measured with cProfile).
    uvicorn.run(create_app(settings), host=host, port=port, ws_max_size=65536, ws_per_message_deflate=False, log_level="warning")
