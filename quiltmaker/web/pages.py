"""The site's three pages (the lobby, a game, a player), rendered in the reader's language with Jinja2.

The pages' words are marked in the templates (``{{ _("...") }}`` and
``{% trans %}`` blocks, extracted by ``make messages``); each page carries
the words its scripts need, in its language, as JSON (``#page-words``,
read by ``static/i18n.js``), so the page shows no English first and asks
for nothing more.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from .. import i18n

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"  # the pages' scripts, styles and icons, served as they are
THEME_COLOUR = "#2f6f5e"  # the page's accent (static/style.css's --accent): the browser's bar, the app's icons

router = APIRouter(include_in_schema=False)


@functools.cache
def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), extensions=["jinja2.ext.i18n"]
    )
    # Looked up at each call, so one environment serves every language: the one in use (quiltmaker.i18n).
    environment.install_gettext_callables(  # type: ignore[attr-defined]
        lambda message: i18n._(message), lambda singular, plural, n: i18n.ngettext(singular, plural, n), newstyle=True
    )
    return environment


@functools.cache
def _words(code: str) -> dict[str, Any]:
    return {"language": code, "messages": i18n.page_catalogue(code)}


def render(template: str) -> HTMLResponse:
    """A page in the language in use: its words, its ``lang``, the language switch and the scripts' words."""
    code = i18n.language()
    page = _environment().get_template(template).render(lang=code, languages=i18n.LANGUAGES, words=_words(code), theme_colour=THEME_COLOUR)
    # Worded for this reader: a shared cache must not hand it to a reader of another language.
    return HTMLResponse(page, headers={"Vary": "Cookie, Accept-Language", "Content-Language": code})


@router.get("/")
async def lobby() -> HTMLResponse:
    return render("index.html")


@router.get("/player/{name}")
async def player_page(name: str) -> HTMLResponse:
    return render("player.html")


@router.get("/game/{game_id}")
async def game_page(game_id: str) -> HTMLResponse:
    return render("game.html")
