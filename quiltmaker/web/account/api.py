"""The HTTP API of accounts: sign up, sign in and out (here or everywhere), the password, the account's games.

Every write here comes from the server's own pages (:data:`..dependencies.SameSite`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from ...i18n import N_
from .. import contract
from .accounts import SESSION_COOKIE, SESSION_DAYS, Account
from ..bus import SessionsEnded
from ..dependencies import SameSite, Server, SignedIn, Viewer, address_of, quota, too_many
from ..games import GameServer
from ..languages import set_language_cookie
from ..protocol import GAME_ID, ProtocolError
from ..round.game import secret_hash
from ..round.store import StoreError
from ..round.summaries import lines_of
from ..round.views import held_seat

ACCOUNT_GAMES = 50  # the games the lobby lists for an account (the player's page lists them all, 50 at a time)

router = APIRouter(prefix="/api/account")
ATTEMPT = quota("account", N_("too many attempts from your address: wait {seconds} s"))  # signing up or in, or changing the password: argon2's work, counted


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


@router.get("", response_model=contract.AccountView)
async def who(account: Viewer) -> dict[str, Any]:
    return _view(account)


@router.post("/signup", response_model=contract.AccountView, dependencies=[SameSite, ATTEMPT])
async def sign_up(request: Request, response: Response, credentials: Credentials, server: Server) -> dict[str, Any]:
    account, token = await server.password_work.run(server.accounts.sign_up, credentials.name, credentials.password)
    _set_session(request, response, token)
    await server.addresses.note(account.id, address_of(request))  # (rating.fairness)
    return _view(account)


@router.post("/signin", response_model=contract.AccountView, dependencies=[SameSite, ATTEMPT])
async def sign_in(request: Request, response: Response, credentials: Credentials, server: Server) -> dict[str, Any]:
    # Failures are counted by account and address: one address's guesses hold up that address alone. Those from every
    # address the account was not seen from lately are counted together too, so that many addresses cannot guess one
    # password; the owner, from an address of theirs, is never held up by them.
    address, account_key = address_of(request), credentials.name.lower()
    from_here = f"{account_key} {address}"
    wait = server.quotas.exhausted("sign_in_failure", from_here)
    if wait is not None:
        raise too_many(wait, N_("too many failed sign-ins to this account from your address: wait {seconds} s"))
    known = await asyncio.to_thread(_seen_from, server, credentials.name, address)
    if not known:
        wait = server.quotas.exhausted("new_place_failure", account_key)
        if wait is not None:
            raise too_many(wait, N_("too many failed sign-ins to this account from new places: wait {seconds} s (from where you have signed in before, you can now)"))
    try:
        account, token = await server.password_work.run(server.accounts.sign_in, credentials.name, credentials.password)
        await server.addresses.note(account.id, address)  # (rating.fairness; and a place the account is known from)
    except StoreError as error:
        if error.code == "busy":
            raise  # (503, by the app's handler of StoreError)
        server.quotas.count("sign_in_failure", from_here)
        if not known:
            server.quotas.count("new_place_failure", account_key)
        raise HTTPException(403, str(error)) from None
    _set_session(request, response, token)
    if account.language is not None:  # the language chosen on another browser comes along
        set_language_cookie(request, response, account.language)
    return _view(account)


def _seen_from(server: GameServer, name: str, address: str) -> bool:
    """Whether the account named ``name`` (if there is one) was seen from ``address`` lately."""
    account = server.accounts.find(name)
    return account is not None and server.addresses.knows(account.id, address)


@router.post("/signout", response_model=contract.AccountView, dependencies=[SameSite])
async def sign_out(request: Request, response: Response, server: Server) -> dict[str, Any]:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        account = await asyncio.to_thread(server.accounts.account_of, token)
        await asyncio.to_thread(server.accounts.sign_out, token)
        if account is not None:
            await server.bus.publish(SessionsEnded(account.id, only=secret_hash(token)))
    response.delete_cookie(SESSION_COOKIE, path="/")
    return _view(None)


@router.post("/signout-everywhere", response_model=contract.AccountView, dependencies=[SameSite])
async def sign_out_everywhere(response: Response, account: SignedIn, server: Server) -> dict[str, Any]:
    await asyncio.to_thread(server.accounts.sign_out_everywhere, account)
    await server.bus.publish(SessionsEnded(account.id))
    response.delete_cookie(SESSION_COOKIE, path="/")
    return _view(None)


@router.post("/password", response_model=contract.AccountView, dependencies=[SameSite, ATTEMPT])
async def change_password(request: Request, response: Response, change: NewPassword, account: SignedIn, server: Server) -> dict[str, Any]:
    try:
        token = await server.password_work.run(server.accounts.change_password, account, change.current, change.new)
    except StoreError as error:
        if error.code == "busy":
            raise
        raise HTTPException(403 if error.code == "forbidden" else 422, str(error)) from None
    await server.bus.publish(SessionsEnded(account.id, keep=secret_hash(token)))
    _set_session(request, response, token)  # this browser stays signed in; every other session has ended
    return _view(account)


@router.post("/claim", response_model=contract.Claimed, dependencies=[SameSite])
async def claim(claim: Claim, account: SignedIn, server: Server) -> dict[str, Any]:
    """Take this browser's guest seats into the account: each seat's token proves it is this browser's."""
    claimed = []
    for seat_claim in claim.games:
        if not GAME_ID.fullmatch(seat_claim.id):
            continue
        try:
            stored = await server.games.load(seat_claim.id)
        except ProtocolError:
            continue
        seat = stored.seat_of(seat_claim.token)
        if seat is not None:
            await asyncio.to_thread(server.maker.claim, account.id, stored.id, str(seat))
            claimed.append(stored.id)
    return {"claimed": claimed}


@router.get("/games", response_model=contract.AccountGames)
async def games(account: SignedIn, server: Server) -> dict[str, Any]:
    """The lobby's "your games": the account's newest ACCOUNT_GAMES (its profile has the rest, a page at a time;
    lessons are listed with the lessons), read from their kept lines as every list is (:mod:`..round.summaries`)."""
    seats = dict(await asyncio.to_thread(server.accounts.recent_games, account, ACCOUNT_GAMES, True))
    lines = [line for line in await lines_of(server, list(seats)) if line["status"] != "corrupt"]  # a damaged one is left out
    return {"games": [{**line, "seat": held_seat(seats[line["id"]])} for line in lines]}
