"""The language of each request and socket: the player's choice in a cookie, else the browser's ``Accept-Language``.

A player chooses on any page (``POST /api/language``); the choice is kept in
a cookie, and with the account of a signed-in player, whose next sign-in on
another browser brings it back. :class:`Languages` sets the language in use
(:func:`quiltmaker.i18n.using`) around every request and socket, so what
the server words (refusals, the state's reasons and summaries, the pages)
is in the language of whoever reads it.
"""

from __future__ import annotations

import asyncio
from http.cookies import SimpleCookie
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import i18n
from .dependencies import Server, Writer

LANGUAGE_COOKIE = "quiltmaker_language"
COOKIE_DAYS = 400  # the longest a browser keeps a cookie

router = APIRouter(prefix="/api/language")


def chosen(cookie: str | None, accept_language: str | None) -> str:
    """The language of a request: the cookie's, if it names one of ours, else the best match of the browser's."""
    return cookie if cookie is not None and cookie in i18n.LANGUAGES else i18n.negotiate(accept_language)


class Languages:
    """Plain ASGI middleware: every HTTP request and socket is worded in its reader's language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name: value.decode("latin-1") for name, value in scope.get("headers", []) if name in (b"cookie", b"accept-language")}
        cookie = None
        if b"cookie" in headers:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(headers[b"cookie"])
            except Exception:  # a malformed cookie header chooses nothing
                jar.clear()
            cookie = jar[LANGUAGE_COOKIE].value if LANGUAGE_COOKIE in jar else None
        with i18n.using(chosen(cookie, headers.get(b"accept-language"))):
            await self.app(scope, receive, send)


class Choice(BaseModel):
    language: str = Field(max_length=8)


def set_language_cookie(request: Request, response: Response, code: str) -> None:
    response.set_cookie(
        LANGUAGE_COOKIE, code, max_age=COOKIE_DAYS * 86400, samesite="lax", secure=request.url.scheme == "https", path="/"
    )


@router.post("")
async def choose(request: Request, response: Response, choice: Choice, account: Writer, server: Server) -> dict[str, Any]:
    """Word every page from now on in the language chosen; a signed-in player's account keeps it too."""
    if choice.language not in i18n.LANGUAGES:
        raise HTTPException(422, i18n._("not a language of this site: {code}").format(code=choice.language))
    set_language_cookie(request, response, choice.language)
    if account is not None:
        await asyncio.to_thread(server.accounts.choose_language, account, choice.language)
    return {"language": choice.language}
