"""The HTTP API of accounts: sign up, sign in and out (here or everywhere), the password, the account's games.

Every write here and every cookie-authenticated write elsewhere must come
from the server's own pages: the ``Origin`` is checked (:func:`check_origin`),
on top of the cookie's ``SameSite=Lax``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from .accounts import SESSION_COOKIE, SESSION_DAYS, Account, same_origin
from .games import GameServer
from .protocol import GAME_ID, ProtocolError
from .store import StoreError
from .views import summary_view

router = APIRouter(prefix="/api/account")


class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=256)


class NewPassword(BaseModel):
    current: str = Field(max_length=256)
    new: str = Field(max_length=256)


class SeatClaim(BaseModel):
    id: str = Field(max_length=64)
    token: str = Field(max_length=128)


class Claim(BaseModel):
    games: list[SeatClaim] = Field(max_length=200)


def _server(request: Request) -> GameServer:
    server: GameServer = request.app.state.server
    return server


def check_origin(request: Request) -> None:
    """Refuse a write whose page is not one of this server's (a cross-site request riding on the cookie)."""
    server = _server(request)
    if not same_origin(request.headers.get("origin"), request.headers.get("host"), server.settings.allowed_origins):
        raise HTTPException(403, "this request comes from another site's page: refused")


async def current_account(request: Request) -> Account | None:
    token = request.cookies.get(SESSION_COOKIE)
    return await asyncio.to_thread(_server(request).accounts.account_of, token) if token else None


async def _signed_in(request: Request) -> Account:
    account = await current_account(request)
    if account is None:
        raise HTTPException(401, "sign in first")
    return account


def count_request(request: Request, kind: str, what: str) -> None:
    """Count an HTTP request against its address's quota of ``kind``; 429 with Retry-After past it."""
    wait = _server(request).quotas.wait(kind, request.client.host if request.client else "")
    if wait is not None:
        raise HTTPException(429, f"too many {what} from your address: wait {wait:.0f} s", headers={"Retry-After": str(int(wait) + 1)})


def _count_attempt(request: Request) -> None:
    count_request(request, "account", "attempts")


def _set_session(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_DAYS * 86400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def _view(account: Account | None) -> dict[str, Any]:
    return {"account": None if account is None else {"name": account.name}}


@router.get("")
async def who(request: Request) -> dict[str, Any]:
    return _view(await current_account(request))


@router.post("/signup")
async def sign_up(request: Request, response: Response, credentials: Credentials) -> dict[str, Any]:
    check_origin(request)
    _count_attempt(request)
    account, token = await asyncio.to_thread(_server(request).accounts.sign_up, credentials.name, credentials.password)
    _set_session(request, response, token)
    return _view(account)


@router.post("/signin")
async def sign_in(request: Request, response: Response, credentials: Credentials) -> dict[str, Any]:
    check_origin(request)
    _count_attempt(request)
    try:
        account, token = await asyncio.to_thread(_server(request).accounts.sign_in, credentials.name, credentials.password)
    except StoreError as error:
        raise HTTPException(403, str(error)) from None
    _set_session(request, response, token)
    return _view(account)


@router.post("/signout")
async def sign_out(request: Request, response: Response) -> dict[str, Any]:
    check_origin(request)
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await asyncio.to_thread(_server(request).accounts.sign_out, token)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return _view(None)


@router.post("/signout-everywhere")
async def sign_out_everywhere(request: Request, response: Response) -> dict[str, Any]:
    check_origin(request)
    account = await _signed_in(request)
    await asyncio.to_thread(_server(request).accounts.sign_out_everywhere, account)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return _view(None)


@router.post("/password")
async def change_password(request: Request, response: Response, change: NewPassword) -> dict[str, Any]:
    check_origin(request)
    _count_attempt(request)
    account = await _signed_in(request)
    try:
        token = await asyncio.to_thread(_server(request).accounts.change_password, account, change.current, change.new)
    except StoreError as error:
        raise HTTPException(403 if error.code == "forbidden" else 422, str(error)) from None
    _set_session(request, response, token)  # this browser stays signed in; every other session has ended
    return _view(account)


@router.post("/claim")
async def claim(request: Request, claim: Claim) -> dict[str, Any]:
    """Take this browser's guest seats into the account: each seat's token proves it is this browser's."""
    check_origin(request)
    account = await _signed_in(request)
    server = _server(request)
    claimed = []
    for seat_claim in claim.games:
        if not GAME_ID.fullmatch(seat_claim.id):
            continue
        try:
            stored = await server.load(seat_claim.id)
        except ProtocolError:
            continue
        seat = stored.seat_of(seat_claim.token)
        if seat is not None:
            await asyncio.to_thread(server.accounts.claim, account, stored.id, str(seat))
            claimed.append(stored.id)
    return {"claimed": claimed}


@router.get("/games")
async def games(request: Request) -> dict[str, Any]:
    account = await _signed_in(request)
    server = _server(request)
    listed = []
    for game_id, seat in await asyncio.to_thread(server.accounts.games, account):
        try:
            listed.append({**summary_view(await server.load(game_id)), "seat": seat})
        except ProtocolError:
            continue
    return {"games": listed}
