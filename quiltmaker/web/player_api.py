"""The HTTP API of players: a profile (ratings, their history, the games played) and the leaderboard."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException

from ..i18n import N_, _
from . import contract
from .dependencies import Server, Viewer, quota
from .protocol import ProtocolError
from .ratings import FAMILIES, ai_ratings, rating_view
from .views import held_seat, summary_view

router = APIRouter(prefix="/api")
PROFILE_GAMES = 100  # the most recent games a profile lists


@router.get("/players/{name}", response_model=contract.Profile, dependencies=[quota("intent", N_("too many requests from your address: wait {seconds} s"))])  # each loads up to PROFILE_GAMES games
async def profile(name: str, server: Server, viewer: Viewer) -> dict[str, Any]:
    """A player's page: each family's rating (provisional while uncertain), its history, and their latest games
    (games by private invitation only on the player's own page: a game's id is enough to watch it)."""
    account = await asyncio.to_thread(server.accounts.find, name[:64])
    if account is None:
        raise HTTPException(404, _("no player named {name}").format(name=repr(name[:40])))
    own = viewer is not None and viewer.id == account.id
    ratings = await asyncio.to_thread(server.ratings.ratings_of, account.id)
    history = await asyncio.to_thread(server.ratings.history, account.id, private=own)
    games = []
    for game_id, seat in await asyncio.to_thread(server.accounts.recent_games, account, PROFILE_GAMES, private=own):
        try:
            stored = await server.load(game_id)
        except ProtocolError:
            continue  # damaged: the profile lists what it can
        games.append({**summary_view(stored), "seat": held_seat(seat), "rating": stored.rating})
    return {
        "name": account.name,
        "ratings": {family: rating_view(ratings.get(family)) for family in FAMILIES},
        "history": history,
        "games": games,
    }


@router.get("/leaderboard", response_model=contract.Leaderboard)
async def leaderboard(server: Server, family: str = "realtime") -> dict[str, Any]:
    """The best established ratings of a family, with the AI's levels at their fixed ratings among them."""
    if family not in FAMILIES:
        raise HTTPException(422, f"unknown family {family[:20]!r}: expected one of {', '.join(FAMILIES)}")
    entries = await asyncio.to_thread(server.ratings.leaderboard, family)
    return {"family": family, "entries": entries, "levels": ai_ratings()}
