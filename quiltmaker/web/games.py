"""The live games of one server process: loading, the intents of the players, telling the sockets.

Every intent is checked against the stored game with the rules engine,
appended to the game's log, committed, and only then acknowledged and
broadcast (see docs/web.md). Blocking work (the database, the rules) runs
in threads; the AI runs in worker processes (:mod:`.ai_service`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import OrderedDict, defaultdict
from collections.abc import Coroutine
from concurrent.futures import Executor
from datetime import datetime, timedelta, timezone
from typing import Any

from ..core.errors import QuiltmakerError
from ..core.moves import Move
from ..core.position import Position
from .. import tutorial
from .accounts import Accounts
from .ai_service import AIService
from .protocol import GAME_ID, SEND_SECONDS, Connection, ProtocolError, client_id_of
from .pubsub import CHAT, PRESENCE_EVERY, PRESENCE_FOR, Broker, LocalBroker
from .quotas import Quotas
from .lobby import MATCH_SECONDS, Lobby
from .ratings import Ratings
from .settings import Settings
from .store import BOTH_SEATS, GameStore, StoredGame, StoreError, may_abort
from .views import state_view, turn_reason, with_names

CACHED_GAMES = 2000
CLOCK_WATCH = 0.25  # seconds between looks at the real-time deadlines: how late past its time a game may end
MAX_CHAT = 300  # characters of a chat line
log = logging.getLogger("quiltmaker.web")


class GameServer:
    """The live part of a server process: games in memory, sockets by game, the AI, the broker."""

    def __init__(self, settings: Settings, executor: Executor | None = None) -> None:
        self.settings = settings
        self.store = GameStore(settings.database_url)
        self.broker: Broker = settings.broker or LocalBroker()
        self.ai = AIService(self, settings, executor)
        self.connections: dict[str, set[Connection]] = defaultdict(set)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.cache: OrderedDict[str, StoredGame] = OrderedDict()
        self.announcing: set[asyncio.Task[None]] = set()
        self.players: dict[str, str] = {}  # game id -> the address of its player seated last (the AI's queue is fair by it)
        self.quotas = Quotas(settings)
        self.accounts = Accounts(self.store)
        self.ratings = Ratings(self.store)
        self.lobby = Lobby(self.store, self.ratings)
        self.lobby_sockets: set[Any] = set()  # the lobby's live sockets (lobby_api.LobbySocket)
        # Who is here in other processes, as they said: game id -> process id -> (seats, until when, monotonic).
        self.elsewhere: dict[str, dict[str, tuple[set[int], float]]] = {}
        self.chores: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self.ai.start()
        await self.broker.start(self.on_change, self.catch_up, self.on_presence)
        self.chores = [
            asyncio.create_task(self._expire_unstarted_games()),
            asyncio.create_task(self._watch_clocks()),
            asyncio.create_task(self._match_seeks()),
            asyncio.create_task(self._tell_presence()),
        ]

    async def stop(self) -> None:
        for task in [*self.announcing, *self.chores]:
            task.cancel()
        await self.broker.close()
        self.ai.stop()
        self.store.close()

    async def _expire_unstarted_games(self) -> None:
        """Every hour, delete the games nobody has made a move in for ``unstarted_days``, and rate any
        finished rated game left unrated (a process that ended it died before it could)."""
        while True:
            try:
                cutoff = datetime.now(timezone.utc) - timedelta(days=self.settings.unstarted_days)
                deleted = await asyncio.to_thread(self.store.delete_unstarted, cutoff)
                if deleted:
                    log.info("deleted %d games nobody started in %g days", deleted, self.settings.unstarted_days)
                await self._settle_missed()
            except Exception:  # the database is away: try again next hour
                log.exception("the hourly upkeep failed")
            await asyncio.sleep(3600)

    # The lobby -----------------------------------------------------------------

    async def _match_seeks(self) -> None:
        """Pair the quick-match seeks every MATCH_SECONDS (every process does; see lobby.Lobby.match)."""
        while True:
            try:
                await asyncio.to_thread(self.lobby.match)
            except Exception:  # the database is away: try again soon
                log.exception("matching the quick-match seeks failed")
            await asyncio.sleep(MATCH_SECONDS)

    # Clocks --------------------------------------------------------------------

    async def _settle_missed(self) -> None:
        """Rate every finished rated game left unrated, a page of ids at a time through all of them."""
        after = ""
        while page := await asyncio.to_thread(self.ratings.unsettled, after):
            for game_id in page:
                with contextlib.suppress(ProtocolError):
                    stored = await self.load(game_id)
                    if stored.is_finished:
                        await self.settle(stored)
            after = page[-1]

    async def _watch_clocks(self) -> None:
        """End real-time games on time: every CLOCK_WATCH seconds, look at the games whose deadline has come.

        Every server process watches; the event log's unique numbers let
        exactly one of them write each game's timeout (the others find their
        view stale), and the deadlines are in the database, so a restart loses none.
        """
        while True:
            try:
                for game_id in await asyncio.to_thread(self.store.due, _now()):
                    await self.end_on_time(game_id)
            except Exception:  # the database is away: look again soon
                log.exception("watching the clocks failed")
            await asyncio.sleep(CLOCK_WATCH)

    async def end_on_time(self, game_id: str, claimed_by: int | None = None) -> bool:
        """Write the timeout of a game whose side to move has run out of time; return whether this call wrote it.

        For a real-time game the server does it (``claimed_by`` None); for a
        correspondence game the opponent claims it. A game whose time has not run
        out only has its stored deadline put right.
        """
        async with self.locks[game_id]:
            try:
                stored = await self.load(game_id)
            except ProtocolError:
                # Gone or damaged: stop watching it, or it would be looked at four times a second for ever.
                await asyncio.to_thread(self.store.clear_deadline, game_id)
                return False
            now = _now()
            clock = stored.clock_at(now)
            if clock is None:
                return False
            flagged = clock.flagged
            if flagged is None or (clock.control.kind == "correspondence") != (claimed_by is not None):
                await asyncio.to_thread(self.store.set_deadline, game_id, clock)
                return False
            try:
                await self.record(stored, stored.version, "timeout", str(flagged), claimed_by, None, now)
            except StoreError:  # another process (or a move just in time) took the version: it decided
                return False
        self.announce(stored)
        return True

    async def record(
        self, stored: StoredGame, version: int, kind: str, value: str, seat: int | None, client_id: str | None, at: datetime | None = None
    ) -> int:
        """Append an event made now (with the clocks it leaves) and apply it to ``stored``; return the new version.

        The caller holds the game's lock and has checked the event.

        Raises:
            StoreError: ``stale`` when another writer took the version first.
        """
        at = at or _now()
        clock = stored.clock_after(kind, value, at)
        new_version = await asyncio.to_thread(self.store.append, stored.id, version, kind, value, seat, client_id, at, clock)
        stored.apply([(version, kind, value, client_id, at)])  # skipped if a refresh already brought it in
        if stored.rating is not None and stored.is_finished and not stored.rating["settled"]:
            await self.settle(stored)
        if kind == "abort":
            await asyncio.to_thread(self.lobby.withdraw, stored.id)  # a challenge called off leaves the lobby
        return new_version

    async def settle(self, stored: StoredGame) -> None:
        """Rate a rated game that has just ended (once across processes; a failure is retried by the hourly sweep)."""
        try:
            await asyncio.to_thread(self.ratings.settle, stored)
            stored.rating = await asyncio.to_thread(self.ratings.game_view, stored.id)
        except Exception:
            log.exception("rating game %s failed", stored.id)

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
                stored.rating = await asyncio.to_thread(self.ratings.game_view, game_id)
                if stored.status == "waiting":
                    challenge = await asyncio.to_thread(self.lobby.challenge, game_id)
                    if challenge is not None and challenge["kind"] in ("open", "named"):
                        stored.offer = {"kind": challenge["kind"], "for": challenge["for"]}
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
                if stored.rating is not None and not stored.rating["settled"] and stored.is_finished:
                    stored.rating = await asyncio.to_thread(self.ratings.game_view, game_id)  # settled by another process
            return stored
        except StoreError as error:
            if error.code == "corrupt":
                self.cache.pop(game_id, None)
            raise ProtocolError(error.code, str(error)) from None

    def state(self, stored: StoredGame) -> dict[str, Any]:
        return state_view(stored, ai_thinking=self.ai.is_thinking(stored), presence=self.presence(stored), now=_now())

    def seats_here(self, game_id: str) -> list[int]:
        """The seats with a socket open to this process in a game (pass-and-play's one token holds both)."""
        seats = {c.seat for c in self.connections.get(game_id, ())}
        return [seat for seat in (0, 1) if seat in seats or BOTH_SEATS in seats]

    def presence(self, stored: StoredGame) -> list[bool]:
        """Whether each seat is here: a seated socket open in this process or, as they said lately, in another
        (the AI's seat always is)."""
        seats = set(self.seats_here(stored.id)) | self._heard_here(stored.id, time.monotonic())
        here = [0 in seats, 1 in seats]
        if stored.against_ai and stored.ai_seat is not None:
            here[stored.ai_seat] = True
        return here

    async def seats_changed(self, game_id: str) -> None:
        """A seated player came or went: the other processes hear who is here now, and everyone watching
        the game here is sent its state again (same version)."""
        with contextlib.suppress(Exception):
            await self.broker.publish_presence(game_id, self.seats_here(game_id))
        stored = self.cache.get(game_id)
        if stored is not None and self.connections.get(game_id):
            with contextlib.suppress(Exception):
                await self.broadcast(stored)

    def _heard_here(self, game_id: str, now: float) -> set[int]:
        """The seats of a game that other processes said lately have a socket open to them."""
        return {seat for held, until in self.elsewhere.get(game_id, {}).values() if until > now for seat in held}

    async def on_presence(self, game_id: str, origin: str, seats: list[int]) -> None:
        """Another process said which seats of a game have a socket open to it: our sockets hear if that changed."""
        now = time.monotonic()
        before = self._heard_here(game_id, now)
        heard = self.elsewhere.setdefault(game_id, {})
        if seats:
            heard[origin] = (set(seats), now + PRESENCE_FOR)
        else:
            heard.pop(origin, None)
        if not heard:
            del self.elsewhere[game_id]
        if before != self._heard_here(game_id, now):
            stored = self.cache.get(game_id)
            if stored is not None and self.connections.get(game_id):
                with contextlib.suppress(Exception):
                    await self.broadcast(stored)

    async def _tell_presence(self) -> None:
        """Every PRESENCE_EVERY seconds, say again who is here in each game (so that what others heard stays
        fresh), and forget what others said that has gone stale (a process that died)."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            now = time.monotonic()
            for game_id in [g for g, heard in self.elsewhere.items() if all(until <= now for _, until in heard.values())]:
                del self.elsewhere[game_id]
                with contextlib.suppress(Exception):
                    stored = self.cache.get(game_id)
                    if stored is not None and self.connections.get(game_id):
                        await self.broadcast(stored)  # a seat that was here elsewhere is away now
            for game_id in list(self.connections):
                seats = self.seats_here(game_id)
                if seats:
                    with contextlib.suppress(Exception):
                        await self.broker.publish_presence(game_id, seats)

    async def on_change(self, game_id: str, version: int) -> None:
        """Another server process changed a game (or its chat): send its state (or the new lines) to our sockets."""
        if not self.connections.get(game_id):
            return
        if version == CHAT:
            await self.deliver_chat(game_id)
            return
        with contextlib.suppress(ProtocolError):
            await self.broadcast(await self.load(game_id))

    async def catch_up(self) -> None:
        """News from other processes may have been missed: reload every game with sockets here, and send what changed."""
        for game_id in list(self.connections):
            await self.on_change(game_id, 0)  # sockets that have the version already are skipped
            await self.deliver_chat(game_id)

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

    def in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` without waiting for it (kept until it ends; cancelled when the server stops)."""
        task = asyncio.create_task(work)
        self.announcing.add(task)
        task.add_done_callback(self.announcing.discard)

    def announce_seats(self, game_id: str) -> None:
        """:meth:`seats_changed`, without waiting for it."""
        self.in_background(self.seats_changed(game_id))

    def announce(self, stored: StoredGame) -> None:
        """:meth:`changed`, without waiting for it: an acknowledgement never waits on a slow socket or broker."""
        self.in_background(self.changed(stored))

    async def changed(self, stored: StoredGame) -> None:
        """The game changed here: start the AI if it is its turn, tell our sockets, then the other processes.

        The change is already committed, so a failure to tell anyone is
        logged, never reported as a failure of the intent: a reload shows it.
        """
        self.ai.maybe_move(stored)
        try:
            await self.broadcast(stored)
            await self.broker.publish(stored.id, stored.version)
        except Exception:
            log.exception("telling the sockets and processes about game %s failed", stored.id)

    # Intents ------------------------------------------------------------------

    async def handle(self, game_id: str, connection: Connection, message: dict[str, Any]) -> dict[str, Any]:
        """Carry out one intent and return the reply; raise ProtocolError to refuse it."""
        kind = message.get("type")
        if kind == "hello":
            return await self._hello(game_id, connection, message.get("token"))
        if kind == "chat":
            return await self._chat(game_id, connection, message.get("text"))
        if kind not in ("move", "undo", "hint", "rematch", "resign", "abort", "claim"):
            raise ProtocolError(
                "malformed",
                f"unknown message type {kind!r}: expected hello, move, undo, hint, rematch, resign, abort, claim or chat",
            )
        client_id = client_id_of(message)
        self._count(connection, "intent", "requests")
        version = message.get("version")
        if type(version) is not int:
            raise ProtocolError("malformed", "'version' must be the integer version of the state you saw")
        if connection.seat is None:
            raise ProtocolError("forbidden", "spectators cannot act: open the game with a seat's link")
        if kind == "hint":
            return await self.ai.hint(await self.load(game_id), version)
        if kind == "claim":
            return await self._claim(game_id, connection)
        async with self.locks[game_id]:
            stored = await self.load(game_id)
            if client_id is not None and client_id in stored.client_ids:
                raise ProtocolError("duplicate", f"message {client_id!r} was already carried out")
            if version != stored.version and kind not in ("resign", "abort"):
                # (Resigning means the same whatever happened meanwhile; an abort is checked against the game as it is.)
                raise ProtocolError("stale", f"you saw version {version}, the game is at version {stored.version}")
            version = stored.version
            if stored.version >= self.settings.max_events:
                raise ProtocolError("not_allowed", f"this game has reached its {self.settings.max_events} events: it takes no more")
            now = _now()
            if kind == "move":
                value = self._check_move(stored, connection, message.get("move"))
                clock = stored.clock_at(now)
                # Real-time: a move after the flag is too late. Correspondence: it counts until the win is claimed.
                if clock is not None and clock.flagged is not None and clock.control.kind == "realtime":
                    self.in_background(self.end_on_time(game_id))  # once this intent lets go of the game's lock
                    raise ProtocolError("time", f"{stored.names[clock.flagged]}'s time is up: the move came too late")
            elif kind == "undo":
                value = str(self._undo_count(stored))
            elif kind in ("resign", "abort"):
                value = str(self._ending_seat(stored, connection, kind))
            else:
                value = await self._create_rematch(stored)
            try:
                new_version = await self.record(stored, version, kind, value, _seat_number(connection.seat, stored), client_id, now)
            except BaseException as error:
                if kind == "rematch":  # not recorded (another process started one first, a database error): drop ours
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(self.store.delete_unplayed, value)
                if isinstance(error, StoreError):
                    raise ProtocolError(error.code, str(error)) from None
                raise
        # Committed: acknowledge now. The new state goes out beside the ack (a spectator that
        # does not read, or a broker that hangs, must not hold the mover's acknowledgement).
        self.announce(stored)
        return {"type": "ack", "version": new_version}

    async def _claim(self, game_id: str, connection: Connection) -> dict[str, Any]:
        """A correspondence game's player claims the win: the opponent, to move, is past their days."""
        stored = await self.load(game_id)
        clock = stored.clock_at(_now())
        if clock is None or clock.control.kind != "correspondence":
            raise ProtocolError("not_allowed", "only a correspondence game's win on time is claimed: a real-time clock ends the game itself")
        if stored.is_finished:
            raise ProtocolError("game_over", "the game is over")
        if not isinstance(connection.seat, int) or clock.running is None or connection.seat == clock.running:
            raise ProtocolError("not_allowed", "only the player waiting for the other's move can claim the win")
        if clock.flagged is None:
            raise ProtocolError("not_allowed", f"{stored.names[clock.running]} still has time to move")
        if not await self.end_on_time(game_id, claimed_by=connection.seat):
            raise ProtocolError("stale", "the game changed meanwhile; here is the new state")
        return {"type": "ack", "version": stored.version}

    async def _hello(self, game_id: str, connection: Connection, token: Any) -> dict[str, Any]:
        if token is not None and (not isinstance(token, str) or len(token) > 128):
            raise ProtocolError("malformed", "the token must be a string")
        stored = await self.load(game_id)
        seat = stored.seat_of(token)
        if not token and connection.session:
            # No token (another browser): the seat the signed-in account holds in this game, if any.
            account = await asyncio.to_thread(self.accounts.account_of, connection.session)
            held = await asyncio.to_thread(self.accounts.seat_in, account, game_id) if account else None
            seat = BOTH_SEATS if held == BOTH_SEATS else int(held) if held is not None else None
        if token and seat is None:
            connection.seat = None
            raise ProtocolError("forbidden", "this token holds no seat in this game: you are watching")
        connection.seat = seat
        if connection.session:
            with contextlib.suppress(Exception):  # only "who is online": never a reason to refuse a seat
                account = await asyncio.to_thread(self.accounts.account_of, connection.session)
                if account is not None:
                    await asyncio.to_thread(self.lobby.seen, account)
        if seat is not None:
            self.announce_seats(game_id)
            self.players[game_id] = connection.client
            if len(self.players) > CACHED_GAMES:
                del self.players[next(iter(self.players))]
            if stored.mode == "online" and isinstance(seat, int):
                self.in_background(self.deliver_chat(game_id, connection))  # the chat so far, after the welcome
            # A seated player came (back): an AI turn left hanging (a restart, failures) resumes now.
            # Only for a seat: watching a game, or opening a socket, never starts the AI's work.
            self.ai.retry(stored)
        return {"type": "welcome", "seat": seat}

    def _count(self, connection: Connection, kind: str, what: str) -> None:
        """Count a socket's request against its address's quota; ``rate_limited`` past it."""
        wait = self.quotas.wait(kind, connection.client)
        if wait is not None:
            raise ProtocolError("rate_limited", f"too many {what} from your address: wait {wait:.0f} s")

    # Chat ------------------------------------------------------------------------

    async def _chat(self, game_id: str, connection: Connection, text: Any) -> dict[str, Any]:
        """A line from a player to the other: bounded, rate-limited, stored, and sent to the players only."""
        if not isinstance(connection.seat, int):
            raise ProtocolError("forbidden", "only the two players of an online game chat")
        stored = await self.load(game_id)
        if stored.mode != "online":
            raise ProtocolError("not_allowed", "chat is for online games")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHAT:
            raise ProtocolError("malformed", f"'text' must be a line of 1 to {MAX_CHAT} characters")
        line = " ".join(text.split())  # one line: no line breaks, tabs or runs of spaces
        if any(not c.isprintable() for c in line):
            raise ProtocolError("malformed", "a chat line holds printable characters only")
        self._count(connection, "chat", "chat lines")
        await asyncio.to_thread(self.store.add_chat, game_id, connection.seat, line)
        self.in_background(self._announce_chat(game_id))
        return {"type": "sent"}

    async def _announce_chat(self, game_id: str) -> None:
        await self.deliver_chat(game_id)
        try:
            await self.broker.publish_chat(game_id)
        except Exception:
            log.exception("telling the other processes about chat in game %s failed", game_id)

    async def deliver_chat(self, game_id: str, only: Connection | None = None) -> None:
        """Send each seated socket of the game here the chat lines it has not had (spectators get none)."""
        targets = [only] if only is not None else [c for c in self.connections.get(game_id, ()) if isinstance(c.seat, int)]
        if not targets:
            return
        since = min(c.chat_seen for c in targets)
        lines = await asyncio.to_thread(self.store.chat, game_id, since)
        for connection in targets:
            fresh = [line for line in lines if line["id"] > connection.chat_seen]
            if fresh:
                connection.chat_seen = fresh[-1]["id"]
                await self._send(connection, json.dumps({"type": "chat", "lines": fresh}))

    def _check_move(self, stored: StoredGame, connection: Connection, text: Any) -> str:
        position = stored.game.position
        if stored.status == "waiting":
            raise ProtocolError("not_allowed", "the game starts when your friend opens the invitation link")
        if stored.is_finished:
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
        if stored.lesson is not None:
            reason = tutorial.refusal(stored.lesson, stored.game, move)
            if reason is not None:
                raise ProtocolError("lesson", reason[0].upper() + reason[1:])
        return move.text()

    def _ending_seat(self, stored: StoredGame, connection: Connection, kind: str) -> int:
        """The seat that resigns or aborts: a player of an online game or of one against the AI."""
        if stored.mode not in ("online", "ai") or not isinstance(connection.seat, int):
            raise ProtocolError("not_allowed", f"there is no {kind} in this game: only a player online or against the computer")
        if stored.is_finished:
            raise ProtocolError("game_over", "the game is over")
        if stored.status == "waiting" and kind == "resign":
            raise ProtocolError("not_allowed", "the game has not started: abort it instead")
        if kind == "abort" and not may_abort(stored.game):
            raise ProtocolError("not_allowed", "both sides have moved: the game can no longer be aborted, only resigned")
        return connection.seat

    def _undo_count(self, stored: StoredGame) -> int:
        if stored.ended is not None:
            raise ProtocolError("not_allowed", "the game is over")
        if stored.mode == "online" or stored.control is not None:
            raise ProtocolError("not_allowed", "there is no undo in an online game or a game with a clock")
        if stored.rematch is not None:
            raise ProtocolError("not_allowed", "the rematch has started: this game can no longer change")
        movers = stored.game.movers
        if stored.mode == "local":
            if not movers:
                raise ProtocolError("not_allowed", "there is no move to undo")
            return 1
        # Against the AI: back to the human's last turn, taking the AI's replies with it.
        count = stored.game.turn_start(1 - (stored.ai_seat or 0))
        if count is None or (stored.lesson is not None and count > len(stored.game.moves) - stored.lesson.ply):
            raise ProtocolError("not_allowed", "you have no move to undo yet")  # a lesson's script is not yours to undo
        return count

    async def _create_rematch(self, stored: StoredGame) -> str:
        """Store the next game between the same seats (see :meth:`GameStore.create_rematch`); return its id."""
        if stored.lesson is not None:
            raise ProtocolError("not_allowed", "a lesson has no rematch: go on to the next lesson, or start this one again")
        if not stored.is_finished or stored.status == "aborted":
            raise ProtocolError("not_allowed", "a rematch can be asked for once the game is over")
        if stored.rematch is not None:
            raise ProtocolError("not_allowed", f"the rematch has already started: game {stored.rematch}")
        start = Position.initial(secrets.randbits(63), first_player=0, variant=stored.game.position.variant)
        rematch = str(await asyncio.to_thread(self.store.create_rematch, stored, start))
        if stored.rating is not None:
            await asyncio.to_thread(self.ratings.rematch, stored.id, rematch)
        return rematch


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _seat_number(seat: int | str | None, stored: StoredGame) -> int | None:
    """The seat an event is recorded for: pass-and-play's one token acts for the player to move (seat 0 once over)."""
    if seat == BOTH_SEATS:
        to_move = stored.game.position.to_move
        return 0 if to_move is None else to_move
    return seat if isinstance(seat, int) else None
