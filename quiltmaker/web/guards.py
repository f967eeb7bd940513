"""What every HTTP connection meets before the app: security headers, bounded bodies, headers in time.

Plain ASGI middleware (so it wraps every route, the static files and the
error pages alike) and a uvicorn protocol; nothing here knows about games.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_BODY_BYTES = 64 * 1024  # the largest request the API takes is a few hundred bytes
BODY_SECONDS = 10.0  # the whole body must arrive within this
HEADER_SECONDS = 10.0  # a request's headers must arrive within this

# The page loads only its own scripts, styles and sockets; nothing may frame it.
# Styles set from scripts (element.style) are not inline style attributes, so 'self' holds for styles too.
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # An invitation link carries its secret code: never send it on as a referrer.
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in SECURITY_HEADERS if h[0] not in names)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BoundedBodies:
    """Refuse a request body over ``max_bytes`` (413) or slower than ``seconds`` in all (408), before it is kept.

    A declared Content-Length over the limit is refused before a byte is read;
    a chunked body is counted as it arrives. Past a limit the refusal is sent
    at once and the app is told the client left, so it stops reading (whatever
    it would answer then is dropped).
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, seconds: float = BODY_SECONDS) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, 413, f"request bodies are at most {self.max_bytes} bytes")
            return
        deadline = time.monotonic() + self.seconds
        received = 0
        refused = False

        async def refuse(status: int, detail: str) -> Message:
            nonlocal refused
            if not refused:
                refused = True
                await _refuse(send, status, detail)
            return {"type": "http.disconnect"}

        async def bounded_receive() -> Message:
            nonlocal received
            if refused:
                return {"type": "http.disconnect"}
            try:
                message = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0.001))
            except asyncio.TimeoutError:
                return await refuse(408, f"the request body did not arrive within {self.seconds:g} seconds")
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    return await refuse(413, f"request bodies are at most {self.max_bytes} bytes")
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, bounded_receive, guarded_send)


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HeadersInTime(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request headers do not arrive in time.

    Stock uvicorn waits forever for the rest of a request's headers, so each
    half-sent request holds a connection open: enough of them exhaust the
    server. Here a request must be complete up to its body within
    ``header_seconds`` of its first byte (of the connection, or after the
    previous response); the body has its own limit (:class:`BoundedBodies`).
    """

    def __init__(self, *args: Any, header_seconds: float = HEADER_SECONDS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_seconds = header_seconds
        self.header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_header_timer()

    def data_received(self, data: bytes) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self._start_header_timer()
        super().data_received(data)
        headers_done = self.cycle is not None and not self.cycle.response_complete
        if headers_done or self.transport.get_protocol() is not self:  # a request under way, or a WebSocket now
            self._cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _start_header_timer(self) -> None:
        if self.header_timer is None:
            self.header_timer = self.loop.call_later(self.header_seconds, self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _headers_too_slow(self) -> None:
        self.header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
