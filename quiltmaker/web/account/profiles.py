"""The HTTP API of players: a profile (ratings, their history, the games played) and the leaderboard."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException

from ...i18n import N_, _
from .. import contract
from .accounts import Account
from ..dependencies import Server, Viewer, quota
from ..rating.ratings import FAMILIES, ai_ratings, rating_view
from ..round.summaries import lines_of
from ..round.views import held_seat

router = APIRouter(prefix="/api")
PROFILE_GAMES = 50  # the games a profile lists at once: a page (the next from ``before``, the last game's id)


@router.get("/players/{name}", response_model=contract.Profile, dependencies=[quota("intent", N_("too many requests from your address: wait {seconds} s"))])
async def profile(name: str, server: Server, viewer: Viewer, before: str | None = None) -> dict[str, Any]:
    """A player's page: each family's rating (provisional while uncertain), its history, and their latest games, a
    page at a time (games by private invitation only on the player's own page: a game's id is enough to watch it).
    Finished games are read from their kept lines (:mod:`..round.summaries`), never replayed."""
    found = await asyncio.to_thread(_read_profile, server, name[:64], viewer, before[:32] if before else None)
    if found is None:
        raise HTTPException(404, _("no player named {name}").format(name=repr(name[:40])))
    account, ratings, history, page, kept, rated = found
    seats = dict(page[:PROFILE_GAMES])
    lines = [line for line in await lines_of(server, list(seats), kept) if line["status"] != "corrupt"]  # a damaged one is left out
    return {
        "name": account.name,
        "ratings": {family: rating_view(ratings.get(family)) for family in FAMILIES},
        "history": history,
        "games": [{**line, "seat": held_seat(seats[line["id"]]), "rating": rated.get(line["id"])} for line in lines],
        "more": page[PROFILE_GAMES - 1][0] if len(page) > PROFILE_GAMES else None,
    }


def _read_profile(server: Any, name: str, viewer: Account | None, before: str | None) -> tuple[Any, ...] | None:
    """What a player's page reads, in one of the server's threads (not one each: a page is read far more often than
    it changes, and each hand-over to a thread and back costs about what a read does); None for an unknown name."""
    account = server.accounts.find(name)
    if account is None:
        return None
    own = viewer is not None and viewer.id == account.id
    page = server.accounts.recent_games(account, PROFILE_GAMES + 1, own, before)
    shown = [game_id for game_id, _seat in page[:PROFILE_GAMES]]
    return (
        account,
        server.ratings.ratings_of(account.id),
        server.ratings.history(account.id, private=own),
        page,
        server.summaries.kept(shown),
        server.ratings.game_views(shown),
    )


@router.get("/leaderboard", response_model=contract.Leaderboard)
async def leaderboard(server: Server, family: str = "realtime") -> dict[str, Any]:
    """The best established ratings of a family, with the AI's levels at their fixed ratings among them."""
    if family not in FAMILIES:
        raise HTTPException(422, f"unknown family {family[:20]!r}: expected one of {', '.join(FAMILIES)}")
    entries = await asyncio.to_thread(server.ratings.leaderboard, family)
    return {"family": family, "entries": entries, "levels": ai_ratings()}
