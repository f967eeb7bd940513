"""What every HTTP request meets before the app: security headers, bounded headers and bounded bodies.

Plain ASGI middleware, so it wraps every route, the static files and the
error pages alike; nothing here knows about games. What comes before a
request (headers in time, idle connections) is the front proxy's and
uvicorn's public settings' (:func:`.app.uvicorn_config`, deploy/nginx.conf).
"""

from __future__ import annotations

import asyncio
import json
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 64 * 1024  # the largest request the API takes is a few hundred bytes
MAX_HEADER_BYTES = 16 * 1024  # a request's headers, names and values together (a browser's are a few hundred bytes)
BODY_SECONDS = 10.0  # the whole body must arrive within this

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
# Over HTTPS (TLS at the proxy, which says so in X-Forwarded-Proto), the browser is told to come back by HTTPS only,
# for a year: a later plain-HTTP visit could otherwise be intercepted and its session cookie read or its page rewritten.
# Sent only over HTTPS, where it counts (browsers ignore it over HTTP), so a server tried on plain HTTP is not pinned.
HSTS = (b"strict-transport-security", b"max-age=31536000")


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response, and :data:`HSTS` to every one over HTTPS."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        headers = [*SECURITY_HEADERS, HSTS] if scope.get("scheme") == "https" else SECURITY_HEADERS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in headers if h[0] not in names)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BoundedHeaders:
    """Refuse a request (or a socket's handshake) whose headers pass ``max_bytes`` in all: 431 for a request, the
    handshake refused for a socket. uvicorn bounds headers that arrive in pieces, but one long header sent at once
    passed it whole (60,000 bytes were answered 200)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_HEADER_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and sum(len(name) + len(value) for name, value in scope.get("headers", [])) > self.max_bytes:
            if scope["type"] == "http":
                await _refuse(send, 431, f"request headers are at most {self.max_bytes} bytes")
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)


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
