"""The WebSocket protocol's wire level: reading a frame, the refusal every intent can meet.

What each message means is docs/web.md; what the server does with it is
:mod:`.games`. Everything here is about a frame from an untrusted client:
its size, its encoding, its shape.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from fastapi import WebSocket

from ..core.errors import QuiltmakerError
from ..core.moves import Move
from ..i18n import _

MAX_MESSAGE_BYTES = 4096
MAX_CLIENT_ID = 64
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # ids are secrets.token_urlsafe: nothing else reaches the database
SEND_SECONDS = 5.0  # a socket that cannot take a state this fast is closed, so it cannot stall a game


class ProtocolError(Exception):
    """An intent refused: sent back as an ``error`` message; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @classmethod
    def stale(cls, seen: int, now: int) -> ProtocolError:
        """The refusal of an intent made against version ``seen`` of a game now at version ``now``."""
        return cls("stale", _("the game has moved on since you saw it (version {seen}, now {now}): here is the new state").format(seen=seen, now=now))


@dataclass(eq=False)
class Connection:
    """One open socket on a game: whose seat it holds (``None`` for a spectator)."""

    socket: WebSocket
    seat: int | str | None = None
    client: str = ""  # the client's address, for its rate limits
    session: str | None = None  # the account session cookie the socket came with, if any
    seated_by: tuple[int, str] | None = None  # the account and session hash that seated it (no token): ended with it
    chat_seen: int = 0  # the id of the last chat line sent to this socket
    version_sent: int = -1  # the newest state sent: never follow it with an older one
    wants_changes: bool = False  # its hello asked for what changed after each move rather than the whole state
    shown: dict[str, Any] | None = None  # the state it was sent last: what the next is sent as the changes to
    language: str = "en"  # the language its reader chose (quiltmaker.i18n): its states are worded in it


class OpenSockets:
    """The sockets (games' and the lobby's) each client holds open, at most ``limit`` each: idle sockets cost
    the server memory, and one client must not hold thousands of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.by_client: Counter[str] = Counter()

    def take(self, client: str) -> bool:
        """Count one more socket of ``client``'s; False (and nothing counted) when it holds ``limit`` already."""
        if self.by_client[client] >= self.limit:
            return False
        self.by_client[client] += 1
        return True

    def give_back(self, client: str) -> None:
        self.by_client[client] -= 1
        if self.by_client[client] <= 0:
            del self.by_client[client]


TOO_MANY_SOCKETS = 4429  # the close code of a socket refused by OpenSockets (a 4000s code: the application's own)
SESSION_ENDED = 4401  # the close code of a socket whose seat came with a session that has ended (signed out)
TOO_SLOW = 1013  # the close code of a socket that did not take a message within SEND_SECONDS (the page reconnects)


async def close_quietly(socket: WebSocket, code: int, reason: str = "") -> None:
    """Close a socket within a second, whatever state it is in (one gone already, or stalled, is left to its handler)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.close(code=code, reason=reason), 1.0)


def read_message(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object of one received frame, text or bytes; ``ProtocolError`` for anything else."""
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
        raise ProtocolError("malformed", 'messages are JSON objects such as {"type": "move", ...}') from None
    if not isinstance(message, dict):
        raise ProtocolError("malformed", 'messages are JSON objects such as {"type": "move", ...}')
    return message


def move_of(message: Mapping[str, Any]) -> Any:
    """The move a ``move`` intent asks for, as text: its ``move``, or the text of its ``placement`` or ``special``.

    The page sends a purchase as a placement, ``{"patch": 12, "orientation":
    "R1", "row": 4, "col": 4}`` (the patch's top-left square), and a special
    patch as its square, ``{"row": 4, "col": 4}``: it names squares by number
    and leaves the notation to the core (:meth:`Move.place`, :meth:`Move.special`).
    """
    if sum(key in message for key in ("move", "placement", "special")) > 1:
        raise ProtocolError("malformed", "a move is one of 'move', 'placement' or 'special', not several")
    try:
        if "placement" in message:
            patch, orientation, row, col = _fields(message["placement"], "placement", ("patch", "orientation", "row", "col"))
            if type(patch) is not int:
                raise ProtocolError("malformed", "a placement's 'patch' is a whole number")
            return Move.place(patch, orientation, row, col).text()
        if "special" in message:
            row, col = _fields(message["special"], "special", ("row", "col"))
            return Move.special((row, col)).text()
    except QuiltmakerError as error:
        raise ProtocolError("malformed", str(error)) from None
    return message.get("move")


def _fields(value: Any, name: str, fields: tuple[str, ...]) -> list[Any]:
    """The fields of an intent's object, in order; its ``row`` and ``col`` whole numbers."""
    if not isinstance(value, dict) or set(value) != set(fields):
        raise ProtocolError("malformed", f"{name!r} is an object with {', '.join(repr(field) for field in fields)}")
    if not all(type(value[coordinate]) is int for coordinate in ("row", "col")):
        raise ProtocolError("malformed", f"a {name}'s 'row' and 'col' are whole numbers")
    return [value[field] for field in fields]


def client_id_of(message: Mapping[str, Any]) -> str | None:
    """The id a client gave its message, checked: repeated in the reply, and refused as a duplicate."""
    client_id = message.get("id")
    if client_id is not None and (not isinstance(client_id, str) or len(client_id) > MAX_CLIENT_ID or "\x00" in client_id):
        raise ProtocolError("malformed", f"'id' must be a string of at most {MAX_CLIENT_ID} characters")
    return client_id
