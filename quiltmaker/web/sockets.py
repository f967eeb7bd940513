"""The WebSocket endpoint: one socket per player or spectator of a game, intents in, states out."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketDisconnected

from .. import i18n
from . import contract
from .account.accounts import SESSION_COOKIE
from .dependencies import Server, address_of, admitted
from .games import GameServer
from .protocol import Connection, ProtocolError, read_message

router = APIRouter()
log = logging.getLogger("quiltmaker.web")


@router.websocket("/ws/games/{game_id}")
async def play(socket: WebSocket, game_id: str, server: Server) -> None:
    async with admitted(socket, server) as let_in:
        if let_in:
            await _play(socket, game_id, server, address_of(socket))


async def _play(socket: WebSocket, game_id: str, server: GameServer, client: str) -> None:
    await socket.accept()
    try:
        stored = await server.games.load(game_id)
    except ProtocolError as error:
        await socket.send_text(contract.wire({"type": "error", "id": None, "code": error.code, "message": str(error)}))
        await socket.close(code=4404)
        return
    connection = Connection(socket, client=client, session=socket.cookies.get(SESSION_COOKIE), language=i18n.language())
    server.connections[game_id].add(connection)
    try:
        await server.send_state(connection, stored)
        while True:
            raw = await socket.receive()
            if raw["type"] == "websocket.disconnect":
                break
            await socket.send_text(await _reply(server, game_id, connection, raw))
    except (WebSocketDisconnect, WebSocketDisconnected):  # the client went: before its reply was sent, for the second
        pass
    finally:
        server.connections[game_id].discard(connection)
        if not server.connections[game_id]:
            del server.connections[game_id]
        if connection.seat is not None:
            server.announce_seats(game_id)  # the others (here and in other processes) see this seat go


async def _reply(server: GameServer, game_id: str, connection: Connection, raw: Mapping[str, Any]) -> str:
    """Read one frame and carry it out: the reply's text, checked by the contract; every failure becomes an error reply."""
    client_id: Any = None
    try:
        message = read_message(raw)
        client_id = message.get("id") if isinstance(message.get("id"), str) else None
        reply = await server.handle(game_id, connection, message)
        reply["id"] = client_id
        return contract.wire(reply)  # a reply that breaks the contract is a bug: the except below says so
    except ProtocolError as error:
        reply = {"type": "error", "code": error.code, "message": str(error)}
        if error.code == "stale":
            # Send the fresh state along, so the client can show what changed.
            with contextlib.suppress(ProtocolError):
                await server.send_state(connection, await server.games.load(game_id))
    except Exception:  # a bug or a broken worker: the player hears of it, the server carries on
        log.exception("intent in game %s failed", game_id)
        reply = {
            "type": "error",
            "code": "internal",
            "message": "the server hit an error doing that; reload to see the game as stored",
        }
    reply["id"] = client_id
    return contract.wire(reply)
