"""The root of one server process (:class:`GameServer`): it makes every part and gives each what it uses; it holds
the sockets of the games, carries out the players' intents and tells the sockets what changed.

Every event is written through the live games (:class:`.live.LiveGames`): checked by the round's rules
(:mod:`.round.rules`), the same ones the replay of the log applies, appended to the game's log, committed (with the
others that come meanwhile: :mod:`.db.commits`), and only then acknowledged and broadcast (see docs/web.md).
Blocking work (the database) runs in threads; the computer thinks in worker processes (:mod:`.ai.service`). The
server's other parts are packages and modules of their own (docs/design.md draws them)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import defaultdict
from collections.abc import Coroutine
from concurrent.futures import Executor
from datetime import datetime, timedelta
from math import ceil
from typing import Any

from .. import i18n
from ..core.position import Position
from ..i18n import N_, _
from . import contract
from .round import intents
from .account.accounts import Accounts, PasswordWork
from .ai.service import AIService
from .chat import Chat
from .db.database import Database, utc_now
from .rating.fairness import AccountAddresses
from .live import LiveGames
from .lobby.challenges import Lobby
from .presence import Presence
from .protocol import SEND_SECONDS, SESSION_ENDED, TOO_SLOW, Connection, OpenSockets, ProtocolError, client_id_of, close_quietly
from .bus import Bus, GameChanged, GameEnded, GameStarted, SessionsEnded
from .news import News
from .puzzle.puzzles import Puzzles
from .lobby.quickmatch import QuickMatch
from .quotas import Quotas
from .rating.ratings import Ratings
from .round import rules
from .round.game import BOTH_SEATS, StoredGame, secret_hash
from .round.kinds import ENDINGS, EventKind, Mode
from .round.rules import Refusal
from .settings import Settings
from .setup import GameMaker
from .round.store import GameStore, StoreError
from .round.summaries import Summaries
from .round.timeouts import Timeouts
from .round.views import changed_fields, state_view

log = logging.getLogger("quiltmaker.web")


class GameServer:
    """The root of a server process: the parts it makes, the games' sockets, and the players' intents."""

    def __init__(self, settings: Settings, executor: Executor | None = None) -> None:
        # The process's root: each part is made here and given what it uses; the live games and the sockets are the
        # two things the services share (:mod:`.live`).
        self.settings = settings
        self.database = Database(settings.database_url)
        self.store = GameStore(self.database)
        self.bus = Bus(settings.broker)
        self.quotas = Quotas(settings)
        self.accounts = Accounts(self.database)
        self.password_work = PasswordWork(settings.password_queue)
        self.ratings = Ratings(self.database)
        self.addresses = AccountAddresses(self.database)
        self.summaries = Summaries(self.database)
        self.puzzles = Puzzles(self.database)
        self.lobby = Lobby(self.store, self.ratings)
        self.maker = GameMaker(self.database, self.bus)
        self.quickmatch = QuickMatch(self.database, self.maker, self.lobby, self.bus)
        self.games = LiveGames(settings, self.store, self.bus, self.ratings, self.puzzles, self.lobby)
        self.connections: dict[str, set[Connection]] = defaultdict(set)
        self.background: set[asyncio.Task[None]] = set()
        self.lobby_sockets: set[Any] = set()  # the lobby's live sockets (lobby.api.LobbySocket)
        self.open_sockets = OpenSockets(settings.sockets_per_client)
        self.ai = AIService(self.games, self, settings, executor)
        self.presence = Presence(self.games, self, self.bus)
        self.chat = Chat(self.games, self, self.bus)
        self.timeouts = Timeouts(self.games, self)
        self.news = News(self.games, self, self.bus, self.chat, self.presence, self.quickmatch, self.timeouts)
        self.chores: list[asyncio.Task[None]] = []
        # What a game's end sets off here, in this order, before the intent that ended it is acknowledged.
        self.bus.subscribe(GameEnded, self.summaries.on_game_ended, elsewhere=False)
        self.bus.subscribe(GameEnded, self.ratings.on_game_ended, elsewhere=False)
        self.bus.subscribe(GameEnded, self.lobby.on_game_ended, elsewhere=False)
        self.bus.subscribe(GameEnded, self.puzzles.on_game_ended, elsewhere=False)
        self.bus.subscribe(GameChanged, self._changed_here, elsewhere=False)  # (the others': :class:`.news.News`)
        self.bus.subscribe(SessionsEnded, self._sessions_ended)

    async def start(self) -> None:
        await self.ai.start()
        await self.timeouts.recover()  # (the app's start-up: no request is served before it)
        await self.bus.start(self.news)
        self.chores = [
            asyncio.create_task(self._hourly()),
            asyncio.create_task(self.timeouts.run()),
            asyncio.create_task(self.quickmatch.run()),
            asyncio.create_task(self.presence.run()),
        ]

    async def stop(self) -> None:
        for task in [*self.background, *self.chores]:
            task.cancel()
        await self.bus.close()
        self.quickmatch.stop()
        self.ai.stop()
        self.database.close()

    async def _hourly(self) -> None:
        """Every hour: delete the games nobody has made a move in for ``unstarted_days``, purge the expired
        sessions, and rate any finished rated game left unrated (a process that ended it died before it could)."""
        while True:
            try:
                cutoff = utc_now() - timedelta(days=self.settings.unstarted_days)
                deleted = await asyncio.to_thread(self.store.delete_unstarted, cutoff)
                if deleted:
                    log.info("deleted %d games nobody started in %g days", deleted, self.settings.unstarted_days)
                await asyncio.to_thread(self.accounts.purge_sessions)
                await asyncio.to_thread(self.addresses.purge)
                await self.ratings.settle_missed(self.games.load)
            except Exception:  # the database is away: try again next hour
                log.exception("the hourly upkeep failed")
            await asyncio.sleep(3600)

    # Broadcasting ---------------------------------------------------------------

    def state(self, stored: StoredGame) -> dict[str, Any]:
        return state_view(stored, ai_thinking=self.ai.is_thinking(stored), presence=self.presence.of(stored), now=utc_now())

    async def send_state(self, connection: Connection, stored: StoredGame) -> None:
        """Send one socket the whole state (its first, or one it must see whole: a stale intent's)."""
        await self._send_states([connection], stored, whole=True)

    async def broadcast(self, stored: StoredGame) -> None:
        """Send a game's sockets what changed since the state each was sent last (the whole state to one that has none):
        each state worded and checked once for each language its readers use."""
        await self._send_states(list(self.connections.get(stored.id, ())), stored)

    async def _send_states(self, connections: list[Connection], stored: StoredGame, whole: bool = False) -> None:
        states: dict[str, dict[str, Any]] = {}
        texts: dict[tuple[str, int], str] = {}  # by language and the state a socket was shown (many share one)
        decided: list[tuple[Connection, dict[str, Any], str]] = []
        for connection in connections:
            # Two broadcasts of one game can interleave at the awaits below; the version check keeps each socket's
            # states in order, and what a socket is sent is decided here, before any await, against what it was shown.
            if stored.version < connection.version_sent:
                continue
            if connection.language not in states:
                with i18n.using(connection.language):
                    states[connection.language] = state = self.state(stored)
                    if self.settings.check_states:
                        contract.check_state(state)
            state = states[connection.language]
            shown = connection.shown if connection.wants_changes and not whole else None
            key = (connection.language, id(shown))
            if key not in texts:
                if shown is None:
                    texts[key] = contract.state_text(state)
                else:
                    fields, kept = changed_fields(shown, state)
                    unchanged = not fields and kept == len(shown["moves"]) == len(state["moves"])
                    texts[key] = "" if unchanged else contract.changed_text(state, shown["version"], fields, kept)
            decided.append((connection, state, texts[key]))
        # Every text made (a state that breaks the contract raises above, and nobody's record of what it was shown moves):
        # now each socket's record, then the sends.
        for connection, state, _text in decided:
            connection.version_sent, connection.shown = stored.version, state
        sends = [self.send(connection, text) for connection, _state, text in decided if text]
        if len(sends) == 1:
            await sends[0]  # (most games are watched by their players alone: a gather's tasks would cost more than the send)
        elif sends:
            await asyncio.gather(*sends)

    async def send(self, connection: Connection, text: str) -> None:
        """Send one message; a socket that does not take it within SEND_SECONDS is closed, never waited on."""
        try:
            async with asyncio.timeout(SEND_SECONDS):  # (no task of its own, as wait_for's: one send a socket a move)
                await connection.socket.send_text(text)
        except Exception:  # closed, or too slow: its handler cleans up; a reload reconnects it
            await close_quietly(connection.socket, TOO_SLOW)

    def in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` without waiting for it (kept until it ends; cancelled when the server stops)."""
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def announce_seats(self, game_id: str) -> None:
        """:meth:`.presence.Presence.changed`, without waiting for it."""
        self.in_background(self.presence.changed(game_id))

    def announce(self, stored: StoredGame) -> None:
        """:meth:`changed`, without waiting for it: an acknowledgement never waits on a slow socket or broker."""
        self.in_background(self.changed(stored))

    async def changed(self, stored: StoredGame) -> None:
        """The game changed here: start the AI if it is its turn, tell our sockets, then the other processes.

        The change is already committed, so a failure to tell anyone is
        logged, never reported as a failure of the intent: a reload shows it.
        """
        self.ai.maybe_move(stored)
        await self.bus.publish(GameChanged(stored.id, stored.version, stored))

    async def _changed_here(self, news: GameChanged) -> None:
        if news.stored is not None:
            await self.broadcast(news.stored)

    async def _sessions_ended(self, news: SessionsEnded) -> None:
        """Sessions ended (here or in another process): a socket one of them seated (or is seating: a hello waiting) is a
        seat no more, at once. It is closed (``SESSION_ENDED``), the page that reconnects is greeted as whoever it is now,
        and everyone watching hears that the seat went."""
        ended, games = [], set()
        for game_id, connections in list(self.connections.items()):
            for connection in list(connections):
                if connection.seated_by is not None and news.ends(*connection.seated_by):
                    if connection.seat is not None:
                        games.add(game_id)
                    connection.seat, connection.seated_by = None, None
                    ended.append(connection)
        for game_id in games:
            self.announce_seats(game_id)
        if ended:  # closed beside the sign-out's answer, not before it
            self.in_background(self._close_signed_out(ended))

    @staticmethod
    async def _close_signed_out(connections: list[Connection]) -> None:
        await asyncio.gather(*(close_quietly(connection.socket, SESSION_ENDED, "signed out") for connection in connections))

    # Intents ------------------------------------------------------------------

    async def handle(self, game_id: str, connection: Connection, message: dict[str, Any]) -> dict[str, Any]:
        """Carry out one intent and return the reply; raise ProtocolError to refuse it."""
        kind = message.get("type")
        if kind == "hello":
            return await self._hello(game_id, connection, message.get("token"), message.get("changes"))
        if kind == "chat":
            return await self.chat.say(game_id, connection, message.get("text"))
        if kind not in intents.INTENTS:
            raise ProtocolError("malformed", f"unknown message type {kind!r}: expected hello, {', '.join(intents.INTENTS)} or chat")
        client_id = client_id_of(message)
        self.count(connection, "intent", N_("too many requests from your address: wait {seconds} s"))
        if kind == EventKind.REMATCH:  # a new game, like any other: resigning and asking again must not bypass the limit
            self.count(connection, "create", N_("too many new games from your address: wait {seconds} s"))
        version = message.get("version")
        if type(version) is not int:
            raise ProtocolError("malformed", "'version' must be the integer version of the state you saw")
        if connection.seat is None:
            raise ProtocolError("forbidden", _("spectators cannot act: open the game with a seat's link"))
        if kind == "hint":
            return await self.ai.hint(await self.games.load(game_id), version, connection.client)
        if kind == "claim":
            return await self.timeouts.claim(game_id, connection)
        return await self._event_intent(game_id, connection, intents.EVENT_INTENTS[kind], version, client_id, message)

    async def _event_intent(
        self, game_id: str, connection: Connection, kind: EventKind, version: int, client_id: str | None, message: dict[str, Any]
    ) -> dict[str, Any]:
        """An intent that asks for an event of the game's log: checked by the round's rules, recorded, acknowledged."""
        async with self.games.holding(game_id, trust_cache=True) as stored:
            if version > stored.version:  # the client knows of a later event than this process (written by another)
                self.games.current.discard(game_id)
                stored = await self.games.load(game_id)
            if client_id is not None and client_id in stored.client_ids:
                raise ProtocolError("duplicate", f"message {client_id!r} was already carried out")
            if version != stored.version and kind not in ENDINGS:
                # (Resigning means the same whatever happened meanwhile; an abort is checked against the game as it is.)
                raise ProtocolError.stale(version, stored.version)
            if stored.version >= self.settings.max_events:
                raise ProtocolError("not_allowed", _("this game has reached its {n} events: it takes no more").format(n=self.settings.max_events))
            now, seat = utc_now(), stored.seat_number(connection.seat)
            value: Any = None
            try:
                value = await self._event_value(stored, kind, seat, message, now)
                new_version = await self.games.record(stored, stored.version, kind, value, seat, client_id, now)
            except BaseException as error:
                if kind == EventKind.REMATCH and value is not None:  # made but not recorded (another process started one first): drop ours
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(self.store.delete_unplayed, value)
                if isinstance(error, Refusal):
                    if error.code == "time":
                        self.in_background(self.timeouts.end_on_time(game_id))  # once this intent lets go of the game's lock
                    raise ProtocolError(error.code, str(error)) from None
                if isinstance(error, StoreError):
                    raise ProtocolError(error.code, str(error)) from None
                raise
        if kind == EventKind.REMATCH and value is not None:
            await self.bus.publish(GameStarted(value, stored.mode))
        # Committed: acknowledge now. The new state goes out beside the ack (a spectator that
        # does not read, or a broker that hangs, must not hold the mover's acknowledgement).
        self.announce(stored)
        return {"type": "ack", "version": new_version}

    async def _event_value(self, stored: StoredGame, kind: EventKind, seat: int | None, message: dict[str, Any], now: datetime) -> Any:
        """The value of the event an intent asks for (:func:`.round.intents.event_value`; a rematch's: the new game, made here)."""
        if kind == EventKind.REMATCH:
            rules.may_rematch(stored)
            start = Position.initial(secrets.randbits(63), first_player=0, variant=stored.game.position.variant)
            return await asyncio.to_thread(self.maker.rematch, stored, rules.rematch_of(stored), start)
        return intents.event_value(stored, kind, seat, message, now)

    async def _hello(self, game_id: str, connection: Connection, token: Any, changes: Any = None) -> dict[str, Any]:
        self.count(connection, "hello", N_("too many greetings from your address: wait {seconds} s"))
        connection.wants_changes = changes is True  # sent what changed after each move, not the whole state (the page)
        if token is not None and (not isinstance(token, str) or len(token) > 128):
            raise ProtocolError("malformed", "the token must be a string")
        stored = await self.games.load(game_id, trust_cache=True)
        if token and stored.seat_of(token) is None:  # a seat taken through another process a moment ago: its row says so
            stored = await self.games.load(game_id)
        seat = stored.seat_of(token)
        account = None
        connection.seated_by = None
        if connection.session:
            with contextlib.suppress(Exception):  # only "who is online" and a seat without a token: never a refusal
                account = await asyncio.to_thread(self.accounts.account_of, connection.session)
                if account is not None and not token:
                    # Marked before anything more is awaited: a session that ends while this hello waits clears it.
                    connection.seated_by = (account.id, secret_hash(connection.session))
                if account is not None:
                    await asyncio.to_thread(self.lobby.seen, account)
        if not token and account is not None and connection.session and (by := connection.seated_by) is not None:
            # No token (another browser): the seat the signed-in account holds in this game, if any, for as long as
            # the session lasts (:meth:`_sessions_ended`). The session is read again after the seat: ended meanwhile,
            # its news heard here (the mark cleared) or not yet (the read finds it gone), it seats nobody.
            held = await asyncio.to_thread(self.accounts.seat_in, account, game_id)
            still = await asyncio.to_thread(self.accounts.account_of, connection.session)
            if held is not None and still is not None and connection.seated_by is by:
                seat = BOTH_SEATS if held == BOTH_SEATS else int(held)
        if token or seat is None:
            connection.seated_by = None  # (a token's seat is the token's: no session ends it)
        if token and seat is None:
            connection.seat = None
            raise ProtocolError("forbidden", _("this token holds no seat in this game: you are watching"))
        seats_before = self.presence.seats_here(game_id)
        connection.seat = seat
        if seat is not None:
            if self.presence.seats_here(game_id) != seats_before:
                self.announce_seats(game_id)  # only a seat that came tells everyone: a repeated hello sends nobody anything
            self.games.players[game_id] = connection.client
            if stored.mode == Mode.ONLINE and isinstance(seat, int):
                self.in_background(self.chat.deliver(game_id, connection))  # the chat so far, after the welcome
            # A seated player came (back): an AI turn left hanging (a restart, failures) resumes now.
            # Only for a seat: watching a game, or opening a socket, never starts the AI's work.
            self.ai.retry(stored)
        return {"type": "welcome", "seat": seat}

    def count(self, connection: Connection, kind: str, refusal: str) -> None:
        """Count a socket's request against its address's quota; past it, ``rate_limited`` with ``refusal`` (marked with N_, ``{seconds}`` filled)."""
        wait = self.quotas.wait(kind, connection.client)
        if wait is not None:
            raise ProtocolError("rate_limited", _(refusal).format(seconds=ceil(wait)))
