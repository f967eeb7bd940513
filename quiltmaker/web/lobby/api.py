"""The lobby's HTTP API and live socket: challenges to accept, quick match with its AI fallback, who is online.

The rules of pairing are in :mod:`.challenges`; this module checks who asks and
hands out seats. The live socket (``/ws/lobby``) sends each page the lobby as
its viewer sees it, again whenever it changes: every process recomputes it
from the database each second while it has lobby sockets, so a challenge
posted through one process shows on pages connected to another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, HTTPException, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field

from ...core.errors import QuiltmakerError
from ...core.position import Position
from ...i18n import N_, _
from .. import contract
from ..account.accounts import SESSION_COOKIE, Account
from ..dependencies import Server, Writer, admitted, quota
from ..games import GameServer
from ..protocol import GAME_ID, SEND_SECONDS, TOO_SLOW, ProtocolError, close_quietly
from .quickmatch import POLL_WAIT, QuickMatch
from ..round.clocks import TimeControl
from ..round.kinds import Mode
from ..setup import GameSetup, held_by
from ..round.store import StoreError

log = logging.getLogger(__name__)
router = APIRouter()
PUSH_SECONDS = 1.0
PLAYING_SHOWN = 20


# The lobby as a viewer sees it --------------------------------------------------------


async def lobby_base(server: GameServer) -> dict[str, Any]:
    """What every viewer's lobby is made of: open challenges, games being played, who is online, how many seek."""
    challenges = await asyncio.to_thread(server.lobby.open_challenges)
    playing = []
    for game_id in await asyncio.to_thread(server.lobby.recently_taken):
        with contextlib.suppress(ProtocolError):
            stored = await server.games.load(game_id)
            if stored.status == "playing":
                words = stored.control.words if stored.control else None
                playing.append({"id": stored.id, "names": stored.names, "clock": words, "rated": stored.rating is not None})
            elif stored.is_finished:  # its line was not kept (its process stopped first): kept now, and not read here again
                await asyncio.to_thread(server.summaries.keep, stored)
        if len(playing) >= PLAYING_SHOWN:
            break
    online = await asyncio.to_thread(server.lobby.online)
    seeking = await asyncio.to_thread(server.quickmatch.seeking)
    return {"challenges": challenges, "playing": playing, "online": online, "seeking": seeking}


SHOWN_CHALLENGES = 100


def lobby_for(base: dict[str, Any], account: Account | None, ratings: dict[str, float]) -> dict[str, Any]:
    """The lobby for one viewer: named challenges only to their two players, and whether each can be accepted and why not."""
    shown = []
    for challenge in base["challenges"]:
        mine = account is not None and challenge["creator_id"] == account.id
        if challenge["for_id"] is not None and not mine and (account is None or challenge["for_id"] != account.id):
            continue
        why = None
        if mine:
            why = "your challenge"
        elif challenge["rated"] and account is None:
            why = "sign in to play rated games"
        elif challenge["within"] is not None:
            rating = ratings.get(challenge["family"], 1500.0)
            if abs(rating - challenge["rating"]) > challenge["within"]:
                why = f"for ratings {challenge['rating'] - challenge['within']:g} to {challenge['rating'] + challenge['within']:g}"
        public = {k: v for k, v in challenge.items() if k not in ("creator_id", "for_id", "taken")}
        shown.append({**public, "mine": mine, "can_accept": why is None, "why_not": why})
    return {"type": "lobby", **{k: v for k, v in base.items() if k != "challenges"}, "challenges": shown[:SHOWN_CHALLENGES]}


async def _viewer_ratings(server: GameServer, account: Account | None) -> dict[str, float]:
    if account is None:
        return {}
    found = await asyncio.to_thread(server.ratings.ratings_of, account.id)
    return {family: rating.rating for family, rating in found.items()}


@router.get("/api/lobby", response_model=contract.Lobby)
async def get_lobby(account: Writer, server: Server) -> dict[str, Any]:
    """The lobby as this viewer sees it (a signed-in viewer is seen online: a write, so from this site's pages only)."""
    if account is not None:
        await asyncio.to_thread(server.lobby.seen, account)
    return lobby_for(await lobby_base(server), account, await _viewer_ratings(server, account))


@dataclass(eq=False)
class LobbySocket:
    socket: WebSocket
    account: Account | None
    ratings: dict[str, float] = field(default_factory=dict)
    sent: str = ""


@router.websocket("/ws/lobby")
async def lobby_socket(socket: WebSocket, server: Server) -> None:
    async with admitted(socket, server) as let_in:
        if let_in:
            await _lobby_socket(socket, server)


async def _lobby_socket(socket: WebSocket, server: GameServer) -> None:
    await socket.accept()
    account = await asyncio.to_thread(server.accounts.account_of, socket.cookies.get(SESSION_COOKIE))
    if account is not None:
        await asyncio.to_thread(server.lobby.seen, account)
    viewer = LobbySocket(socket, account, await _viewer_ratings(server, account))
    server.lobby_sockets.add(viewer)
    if len(server.lobby_sockets) == 1:
        server.in_background(_push_lobby(server))
    try:
        await _send_lobby(viewer, await lobby_base(server))
        while True:  # nothing is read from a lobby socket but its closing
            if (await socket.receive())["type"] == "websocket.disconnect":
                break
    except WebSocketDisconnect:
        pass
    finally:
        server.lobby_sockets.discard(viewer)


async def _send_lobby(viewer: LobbySocket, base: dict[str, Any]) -> None:
    text = contract.LOBBY.dump_json(contract.LOBBY.validate_python(lobby_for(base, viewer.account, viewer.ratings)), by_alias=True).decode()
    if text == viewer.sent:
        return
    viewer.sent = text
    try:
        await asyncio.wait_for(viewer.socket.send_text(text), SEND_SECONDS)
    except Exception:  # gone or too slow: its handler cleans up, the page reconnects
        await close_quietly(viewer.socket, TOO_SLOW)


async def _push_lobby(server: GameServer) -> None:
    """While lobby sockets are open here: each second, the lobby again, to every socket whose view changed."""
    ticks = 0
    failing = False
    while server.lobby_sockets:
        await asyncio.sleep(PUSH_SECONDS)
        ticks += 1
        try:
            base = await lobby_base(server)
            viewers = list(server.lobby_sockets)
            for viewer in viewers:
                if viewer.account is not None and ticks % 30 == 0:  # a minute: still here, and ratings that may have moved
                    await asyncio.to_thread(server.lobby.seen, viewer.account)
                    viewer.ratings = await _viewer_ratings(server, viewer.account)
            await asyncio.gather(*(_send_lobby(viewer, base) for viewer in viewers))
            failing = False
        except Exception:  # the database is away (or a bug): said once, and the next second tries again
            if not failing:
                log.exception("the lobby could not be sent; trying again each second")
            failing = True


# Accepting a challenge ---------------------------------------------------------------


@router.post("/api/games/{game_id}/accept", response_model=contract.SeatTaken, dependencies=[quota("create", N_("too many games joined from your address: wait {seconds} s"))])
async def accept(game_id: str, account: Writer, server: Server) -> dict[str, Any]:
    """Take a challenge's free seat (the lobby's "Accept"); who may is :meth:`.challenges.Lobby.may_accept`."""
    if not GAME_ID.fullmatch(game_id):
        raise HTTPException(404, _("no such challenge"))
    why = await asyncio.to_thread(server.lobby.may_accept, game_id, account)
    if why is not None:
        raise HTTPException(403, why)
    taker = (account.id, account.name) if account is not None else None
    try:
        token, seat = await asyncio.to_thread(server.maker.take_free_seat, game_id, None, taker)
    except StoreError as error:
        raise HTTPException(404 if error.code == "not_found" else 409, str(error)) from None
    with contextlib.suppress(Exception):
        server.announce(await server.games.load(game_id))  # the game starts for its creator
    return {"id": game_id, "token": token, "seat": seat}


# Quick match --------------------------------------------------------------------------


class Seek(BaseModel):
    clock: str = Field(max_length=20)
    rated: bool = False


class SeekSecret(BaseModel):
    secret: str = Field(max_length=64)


@router.post("/api/quickmatch", response_model=contract.Seek, dependencies=[quota("create", N_("too many quick matches from your address: wait {seconds} s"))])
async def quick_match(seek: Seek, account: Writer, server: Server) -> dict[str, Any]:
    """Wait for an opponent at a time control: a seek, which the page polls until it is paired."""
    try:
        TimeControl.parse(seek.clock)
    except QuiltmakerError as error:
        raise HTTPException(422, str(error)) from None
    if seek.rated and account is None:
        raise HTTPException(403, _("sign in to play rated games: a rating belongs to an account"))
    name = account.name if account else f"Guest {random.randrange(1000, 10000)}"  # two guests paired are told apart
    # Stored, then paired at once with anyone waiting for exactly this, in one trip to a thread.
    seek_id, secret, seat = await asyncio.to_thread(server.quickmatch.seek, account, name, seek.clock, seek.rated)
    return {"seek": seek_id, "secret": secret, "paired": seat}


def _seek_id(seek_id: str) -> str:
    if not GAME_ID.fullmatch(seek_id):
        raise HTTPException(404, _("no such quick match"))
    return seek_id


@router.post("/api/quickmatch/{seek_id}/poll", response_model=contract.Waiting | contract.Paired)
async def poll_seek(seek_id: str, body: SeekSecret, server: Server) -> dict[str, Any]:
    """Where the seek stands: paired (with the game, the seat and its token) or still waiting, and for how long.

    A seek still waiting is answered once this process pairs it, or after POLL_WAIT (then the page asks again).
    """
    try:
        return await server.quickmatch.poll_or_wait(_seek_id(seek_id), body.secret, POLL_WAIT)
    except StoreError as error:
        raise HTTPException(404, str(error)) from None


@router.post("/api/quickmatch/{seek_id}/cancel", response_model=contract.Paired | contract.Withdrawn)
async def cancel_seek(seek_id: str, body: SeekSecret, server: Server) -> dict[str, Any]:
    """Stop waiting; if a match was made meanwhile, it is handed over instead."""
    try:
        paired = await asyncio.to_thread(server.quickmatch.cancel, _seek_id(seek_id), body.secret)
    except StoreError as error:
        raise HTTPException(404, str(error)) from None
    return paired or {"matched": False, "cancelled": True}


@router.post("/api/quickmatch/{seek_id}/computer", response_model=contract.Paired)
async def play_the_computer(seek_id: str, body: SeekSecret, account: Writer, server: Server) -> dict[str, Any]:
    """Nobody came: stop waiting and play the AI level nearest your rating, with the same clock (rated if the seek was)."""
    quickmatch = server.quickmatch
    waiting = await asyncio.to_thread(_poll_or_404, quickmatch, _seek_id(seek_id), body.secret)
    if waiting.get("matched"):
        return waiting
    seek = waiting
    paired = await asyncio.to_thread(_cancel_or_404, quickmatch, seek_id, body.secret)
    if paired is not None:
        return paired  # a person came after all
    control = TimeControl.parse(seek["control"])
    level = seek["fallback"]["level"]  # the one the poll offered (nearest the rating, rated on this clock if the seek is)
    seat = random.randrange(2)
    names = ["", ""]
    names[seat] = account.name if account else _("Player")
    names[1 - seat] = f"quiltmaker {level}"
    start = Position.initial(random.randrange(2**63), first_player=0)
    wanted = GameSetup(
        Mode.AI, start, names, seat, held_by(seat, account.id if account else None), ai_level=level, control=control, rated=seek["rated"] and account is not None
    )
    made = await server.maker.start(wanted)
    game_id, token = made.id, made.token
    return {"matched": True, "game": game_id, "token": token, "seat": seat, "computer": level}


def _poll_or_404(quickmatch: QuickMatch, seek_id: str, secret: str) -> dict[str, Any]:
    try:
        return quickmatch.poll(seek_id, secret)
    except StoreError as error:
        raise HTTPException(404, str(error)) from None


def _cancel_or_404(quickmatch: QuickMatch, seek_id: str, secret: str) -> dict[str, Any] | None:
    try:
        return quickmatch.cancel(seek_id, secret)
    except StoreError as error:
        raise HTTPException(404, str(error)) from None
