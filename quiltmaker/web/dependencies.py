"""What the routers are handed through FastAPI's ``Depends``: the server, the checks before a write, who is signed in.

Every write authenticated by the session cookie must come from the
server's own pages: the ``Origin`` is checked (:data:`SameSite`, or
:data:`Writer` where a guest may write too), on top of the cookie's
``SameSite=Lax``. Requests are counted against their address's quotas by
:func:`quota`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from math import ceil
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, WebSocket
from starlette.requests import HTTPConnection

from ..i18n import _
from .account.accounts import SESSION_COOKIE, Account, same_origin
from .games import GameServer
from .protocol import TOO_MANY_SOCKETS


# The dependencies are coroutines, even those that never wait: FastAPI runs a plain function in a worker
# thread, a hop that cost every request more than the work itself.
async def _server(connection: HTTPConnection) -> GameServer:
    server: GameServer = connection.app.state.server
    return server


Server = Annotated[GameServer, Depends(_server)]


async def _same_site(request: Request, server: Server) -> None:
    """Refuse a write whose page is not one of this server's (a cross-site request riding on the cookie)."""
    refuse_other_sites(request, server)


def refuse_other_sites(request: Request, server: GameServer) -> None:
    """403 for a request whose Origin is not one of this server's pages."""
    if not same_origin(request.headers.get("origin"), request.headers.get("host"), server.settings.allowed_origins):
        raise HTTPException(403, _("this request comes from another site's page: refused"))


SameSite = Depends(_same_site)  # for a route's ``dependencies``: every write of the account API


async def _viewer(request: Request, server: Server) -> Account | None:
    token = request.cookies.get(SESSION_COOKIE)
    return await asyncio.to_thread(server.accounts.account_of, token) if token else None


Viewer = Annotated[Account | None, Depends(_viewer)]  # the signed-in account, or None for a guest


async def _writer(request: Request, server: Server) -> Account | None:
    if not request.cookies.get(SESSION_COOKIE):
        return None
    refuse_other_sites(request, server)  # a signed-in player's write: the cookie must not be ridden from another site
    account = await _viewer(request, server)
    if account is not None:
        await server.addresses.note(account.id, address_of(request))  # where it was seen (rating.fairness)
    return account


Writer = Annotated[Account | None, Depends(_writer)]  # the account of a write a guest may make too (None: a guest)


async def _signed_in(viewer: Viewer) -> Account:
    if viewer is None:
        raise HTTPException(401, _("sign in first"))
    return viewer


SignedIn = Annotated[Account, Depends(_signed_in)]


def address_of(connection: HTTPConnection) -> str:
    """The client's address (a request's or a socket's), by which its quotas are counted: an IPv6 client by its /64
    network, which is one subscriber's (a client rotating its addresses within it is still one client)."""
    return client_address(connection.client.host if connection.client else "")


def client_address(host: str) -> str:
    """An address as quotas count it: an IPv4 address as it is, an IPv6 one as its /64 network."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # (not an address: a test client's name, a Unix socket)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@contextlib.asynccontextmanager
async def admitted(socket: WebSocket, server: GameServer) -> AsyncIterator[bool]:
    """Whether a socket is let in, counted among its client's open sockets while it is (:class:`.protocol.OpenSockets`).

    Refused before the handshake completes: another site's page (closed with 4403), or a client that
    holds its share of sockets already (closed with TOO_MANY_SOCKETS).
    """
    if not same_origin(socket.headers.get("origin"), socket.headers.get("host"), server.settings.allowed_origins):
        await socket.close(code=4403)
        yield False
        return
    client = address_of(socket)
    if not server.open_sockets.take(client):
        await socket.close(code=TOO_MANY_SOCKETS)
        yield False
        return
    try:
        yield True
    finally:
        server.open_sockets.give_back(client)


def too_many(wait: float, refusal: str) -> HTTPException:
    """429 with Retry-After: ``refusal`` (marked with N_, ``{seconds}`` filled) for a quota used up for ``wait`` seconds more."""
    return HTTPException(429, _(refusal).format(seconds=ceil(wait)), headers={"Retry-After": str(int(wait) + 1)})


def quota(kind: str, refusal: str) -> Any:
    """A dependency that counts the request against its address's quota of ``kind``: past it, :func:`too_many`."""

    async def count(request: Request, server: Server) -> None:  # (the quotas are in this process's memory)
        wait = server.quotas.wait(kind, address_of(request))
        if wait is not None:
            raise too_many(wait, refusal)

    counted: Callable[..., Awaitable[None]] = count
    return Depends(counted)
