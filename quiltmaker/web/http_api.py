"""The HTTP API: the catalogue, creating and joining games, states, records, replays and analyses."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field, field_validator, model_validator

from ..ai.levels import LEVELS
from ..core import record
from ..core.components import DEFAULT_VARIANT, TIME_TRACKS, VARIANT_ALIASES
from ..core.errors import QuiltmakerError
from ..core.position import Position
from ..i18n import N_, _, ngettext
from ..tutorial import LEARNER, LESSONS, setup
from . import contract
from .account.accounts import compared_name, seat_name_refusal
from .catalogue import catalogue
from .dependencies import Server, Writer, address_of, quota, too_many
from .games import GameServer
from .lobby.challenges import MAX_WAITING, MAX_WAITING_NEW
from .protocol import GAME_ID, ProtocolError
from .rating.ratings import ai_ratings, family_of, level_rated_on
from .round import rules
from .round.clocks import TimeControl, thinking_cap
from .round.game import StoredGame
from .round.kinds import Mode, OfferKind
from .setup import GameSetup, Offer, held_by
from .round.store import StoreError
from .round.summaries import lines_of
from .round.views import replay_view

router = APIRouter(prefix="/api")
LEVEL_DESCRIPTIONS = {name: level.description for name, level in LEVELS.items()}


class NewGame(BaseModel):
    mode: Literal[Mode.AI, Mode.LOCAL, Mode.ONLINE, Mode.LESSON]  # (a puzzle is made by /api/puzzles)
    level: str = "casual"
    lesson: int | None = Field(default=None, ge=1, le=len(LESSONS))  # which lesson, for a lesson
    seat: Literal[0, 1] | None = None
    variant: str = DEFAULT_VARIANT
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    names: list[str] | None = Field(default=None, max_length=2)
    clock: str | None = Field(default=None, max_length=20)  # a time control, e.g. "10+5" or "2d" (online or against the AI)
    rated: bool = False  # a rated game: needs a clock, and an account for every person seated
    # Who may take an online game's second seat: whoever has the invitation link, anyone in the
    # lobby (within ``within`` rating points of the creator, if given), or one named account.
    offer: Literal["invite", OfferKind.OPEN, OfferKind.NAMED] = "invite"
    opponent: str | None = Field(default=None, max_length=24)
    within: Literal[100, 200, 300, 500] | None = None
    # "What if": a game against the AI from the position after move ``from_ply`` of the finished game
    # ``from_game`` (0: its start). The server takes that position from its own replay of the game's log.
    from_game: str | None = Field(default=None, max_length=64)
    from_ply: int | None = Field(default=None, ge=0, le=100_000)

    @field_validator("level")
    @classmethod
    def _known_level(cls, level: str) -> str:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
        return level

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, variant: str) -> str:
        variant = VARIANT_ALIASES.get(variant, variant)
        if variant not in TIME_TRACKS:
            raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(TIME_TRACKS)}")
        return variant

    @field_validator("names")
    @classmethod
    def _short_names(cls, names: list[str] | None) -> list[str] | None:
        for name in names or []:
            refused = seat_name_refusal(name)
            if refused is not None:
                raise ValueError(refused)
        return names


    @model_validator(mode="after")
    def _fields_of_the_mode(self) -> NewGame:
        # A field the mode would ignore is a mistake of the caller's: say so rather than drop it.
        if self.mode == Mode.LESSON:
            ignored = sorted(self.model_fields_set & {"level", "seat", "variant", "seed"})
            if ignored:
                raise ValueError(f"a lesson has its own setup: drop {', '.join(ignored)}")
            if self.lesson is None:
                raise ValueError(f"a lesson game needs 'lesson': a number from 1 to {len(LESSONS)}")
        elif self.lesson is not None:
            raise ValueError("'lesson' is for mode 'lesson'")
        if self.clock is not None:
            if self.mode not in (Mode.ONLINE, Mode.AI):
                raise ValueError("a clock is for online games and games against the computer (pass-and-play and lessons have none)")
            try:
                TimeControl.parse(self.clock)
            except QuiltmakerError as error:
                raise ValueError(str(error)) from None
        if self.rated and self.clock is None:
            raise ValueError("a rated game needs a clock: choose a time control")
        if self.offer != "invite" and (self.mode != Mode.ONLINE or self.clock is None):
            raise ValueError("a challenge in the lobby is an online game with a clock (so nobody waits on it forever)")
        if (self.offer == OfferKind.NAMED) != (self.opponent is not None):
            raise ValueError("a named challenge needs 'opponent', the account challenged (and only it does)")
        if self.within is not None and self.offer != OfferKind.OPEN:
            raise ValueError("'within' is the rating range of an open challenge")
        if (self.from_game is None) != (self.from_ply is None):
            raise ValueError("playing on from a game needs both 'from_game' and 'from_ply' (the position after that move)")
        if self.from_game is not None:
            if self.mode != Mode.AI:
                raise ValueError("a game is played on from against the computer: mode 'ai'")
            ignored = sorted(self.model_fields_set & {"variant", "seed", "clock", "rated", "offer", "opponent", "within"})
            if ignored:
                raise ValueError(f"the position played on from decides the setup, and the game has no clock: drop {', '.join(ignored)}")
        return self


class Join(BaseModel):
    invite: str = Field(max_length=64)


async def _load_or_404(server: GameServer, game_id: str) -> StoredGame:
    try:
        return await server.games.load(game_id)
    except ProtocolError as error:
        if error.code == "corrupt":
            raise StoreError("corrupt", str(error)) from None  # answered with its code (app.store_error)
        raise HTTPException(404 if error.code == "not_found" else 500, str(error)) from None


@router.get("/catalogue", response_model=contract.Catalogue)
async def get_catalogue() -> dict[str, Any]:
    body = catalogue({name: _(description) for name, description in LEVEL_DESCRIPTIONS.items()})
    levels = ai_ratings()
    for level in body["levels"]:
        level["rating"] = round(levels[level["name"]])  # its fixed place in the rating ladder
    return body


@router.post("/games", response_model=contract.SeatTaken, dependencies=[quota("create", N_("too many new games from your address: wait {seconds} s"))])
async def create_game(new: NewGame, account: Writer, server: Server, request: Request) -> dict[str, Any]:
    if new.rated and account is None:
        raise HTTPException(403, _("sign in to play a rated game: a rating belongs to an account"))
    if new.rated and new.mode == Mode.AI and new.clock is not None and not level_rated_on(new.level, control := TimeControl.parse(new.clock)):
        raise HTTPException(422, _(
            "quiltmaker {level} is rated only on a clock that leaves it its {seconds:g} s a move (a fortieth of the starting time "
            "and most of the increment; {clock} leaves {cap:.1f} s): choose a longer clock, or a casual game"
        ).format(level=new.level, seconds=LEVELS[new.level].seconds, clock=new.clock, cap=thinking_cap(control.initial, control)))
    challenged = None
    if new.offer != "invite":
        if account is None:
            raise HTTPException(403, _("sign in to offer a challenge in the lobby (as a guest: a quick match, or an invitation link)"))
        # A new account may have one challenge waiting, so that a crowd of throwaway accounts cannot fill the lobby.
        most = MAX_WAITING_NEW if await asyncio.to_thread(server.accounts.is_new, account) else MAX_WAITING
        if await asyncio.to_thread(server.lobby.waiting_count, account) >= most:
            raise HTTPException(429, ngettext(
                    "you have {n} challenge waiting already: abort it, or wait for someone to accept",
                    "you have {n} challenges waiting already: abort one, or wait for someone to accept",
                    most,
                ).format(n=most))
        wait = server.quotas.wait("offer", address_of(request))
        if wait is not None:
            raise too_many(wait, N_("too many challenges from your address: wait {seconds} s"))
    if new.opponent is not None:
        challenged = await asyncio.to_thread(server.accounts.find, new.opponent)
        if challenged is None:
            raise HTTPException(404, _("no player named {name}").format(name=repr(new.opponent)))
        if account is not None and challenged.id == account.id:
            raise HTTPException(422, _("a challenge is for someone else"))
    if new.mode == Mode.ONLINE:
        for typed in new.names or []:
            # A name typed for an online seat is seen by others: an account's name would pass for that account.
            holder = await asyncio.to_thread(server.accounts.find, compared_name(typed)) if typed.strip() else None
            if holder is not None and (account is None or holder.id != account.id):
                raise HTTPException(422, _("{name} is the name of an account: sign in to play under it, or choose another").format(name=typed.strip()))
    name = account.name if account is not None else None
    if new.from_game is not None:
        wanted = await _what_if(server, new, name)
    else:
        wanted = _lesson(new, name) if new.mode == Mode.LESSON else _game(new, name)
    if account is not None:
        offer = None
        if new.offer != "invite" and wanted.control is not None:
            # Listed before anyone loads the game, so its first load knows the offer. (An offer needs an
            # account, under whose name its creator plays.)
            rating = await asyncio.to_thread(server.lobby.rating_of, account, family_of(wanted.control.kind))
            for_account = (challenged.id, challenged.name) if challenged is not None else None
            offer = Offer(OfferKind(new.offer), rating, for_account, new.within)
        wanted = dataclasses.replace(wanted, accounts=held_by(wanted.seat, account.id), rated=new.rated, offer=offer)
    made = await server.maker.start(wanted)
    return made.seat_taken()


def _game(
    new: NewGame, account_name: str | None, start: Position | None = None, script: list[str] | None = None, level: str | None = None
) -> GameSetup:
    """A new game from a fresh setup, or from ``start`` with the moves ``script`` (another game's) played first,
    against ``level`` or ``new.level``."""
    rng = random.Random(new.seed)
    if start is None:
        # Seat 0 moves first, so choosing a seat is choosing to start or not.
        start = Position.initial(rng.randrange(2**63), first_player=0, variant=new.variant)
    seat = new.seat if new.seat is not None else rng.randrange(2)
    level = level or new.level
    mode = Mode(new.mode)
    if mode is Mode.AI:
        # A name, not "You": messages speak of players in the third person. Default names are worded in
        # the creator's language and kept with the game, as a name typed in is.
        names = [_("Player"), f"quiltmaker {level}"] if seat == 0 else [f"quiltmaker {level}", _("Player")]
    else:
        names = [_("Player 1"), _("Player 2")]
    for index, name in enumerate(new.names or []):
        if name.strip() and not (mode is Mode.AI and index != seat):
            names[index] = name.strip()
    if account_name is not None and mode is not Mode.LOCAL:
        names[seat] = account_name  # a signed-in player plays under their account's name
    return GameSetup(
        mode, start, names, seat, ai_level=level if mode is Mode.AI else None, script=script or (),
        control=TimeControl.parse(new.clock) if new.clock else None,
    )  # fmt: skip


async def _what_if(server: GameServer, new: NewGame, account_name: str | None) -> GameSetup:
    """A "what if" game: against the AI from a position of a finished game, the player seated to move there.

    The new game's log starts with the source game's moves up to that position
    (the server's own, from its replay of the source's log, not the page's), each
    checked again by the rules as the new log is loaded, so its record, move list,
    quilts and replay tell the whole game; its level is the one asked for, else
    the source game's own.
    """
    assert new.from_game is not None and new.from_ply is not None  # the model requires both
    source = await _load_or_404(server, new.from_game)
    try:
        start = rules.play_on_from(source, new.from_ply)
    except rules.Refusal as refusal:
        raise HTTPException(422 if refusal.code == "malformed" else 409, str(refusal)) from None
    if new.seat is None:
        new = new.model_copy(update={"seat": start.to_move})
    level = new.level if "level" in new.model_fields_set else source.ai_level or new.level
    moves = [move.text() for move in source.game.moves[: new.from_ply]]
    return _game(new, account_name, source.game.start, moves, level)


def _lesson(new: NewGame, account_name: str | None) -> GameSetup:
    """A lesson's game: the learner against the tutor (the beginner level), from the lesson's start."""
    assert new.lesson is not None  # the model requires it
    names = [_("Player"), _("Tutor")]
    if new.names and new.names[0].strip():
        names[LEARNER] = new.names[0].strip()
    if account_name is not None:
        names[LEARNER] = account_name
    lesson = LESSONS[new.lesson - 1]
    return GameSetup(Mode.LESSON, setup(), names, LEARNER, ai_level="beginner", lesson=lesson.number, script=lesson.script)


@router.post("/games/{game_id}/join", response_model=contract.SeatTaken)
async def join_game(game_id: str, join: Join, account: Writer, server: Server) -> dict[str, Any]:
    """Spend an invitation on the free seat (a signed-in player joins under their account's name)."""
    rated = await asyncio.to_thread(server.ratings.rated_game, game_id) if GAME_ID.fullmatch(game_id) else None
    if rated is not None:
        # A rated game's second seat needs an account too, and another one than the first seat's.
        if account is None:
            raise HTTPException(403, _("this is a rated game: sign in (or create an account) to join it"))
        if account.id in rated[1]:
            raise HTTPException(403, _("you already play in this rated game: the invitation is for your opponent"))
    taker = (account.id, account.name) if account is not None else None
    try:
        token, seat = await asyncio.to_thread(server.maker.take_free_seat, game_id, join.invite, taker)
    except StoreError as error:
        raise HTTPException(404 if error.code == "not_found" else 403, str(error)) from None
    with contextlib.suppress(Exception):  # the seat is taken: the token must reach its owner whatever happens
        server.announce(await server.games.load(game_id))  # the game leaves "waiting" for everyone watching
    return {"token": token, "seat": seat}


@router.get("/games", response_model=contract.GameList)
async def list_games(server: Server, ids: str = "") -> dict[str, Any]:
    wanted = [i for i in ids.split(",") if GAME_ID.fullmatch(i)][:100]
    # Finished games from their kept lines; an unknown one is left out (the lobby says so), a damaged one says so.
    return {"games": await lines_of(server, wanted)}


@router.get("/games/{game_id}", response_model=contract.GameState)
async def get_game(game_id: str, server: Server) -> dict[str, Any]:
    return server.state(await _load_or_404(server, game_id))


@router.get("/games/{game_id}/record.json")
async def record_json(game_id: str, server: Server) -> Response:
    stored = await _load_or_404(server, game_id)
    return JSONResponse(
        record.to_json(stored.game), headers={"Content-Disposition": f'attachment; filename="quiltmaker-{game_id}.json"'}
    )


@router.get("/games/{game_id}/record.txt")
async def record_text(game_id: str, server: Server) -> Response:
    stored = await _load_or_404(server, game_id)
    return PlainTextResponse(
        record.to_text(stored.game), headers={"Content-Disposition": f'attachment; filename="quiltmaker-{game_id}.txt"'}
    )


@router.get("/games/{game_id}/positions", response_model=contract.Replay)
async def get_positions(game_id: str, server: Server) -> dict[str, Any]:
    return replay_view(await _load_or_404(server, game_id))


@router.get("/games/{game_id}/analysis", response_model=contract.Analysis)
async def get_analysis(game_id: str, server: Server, request: Request) -> Response:
    status, body = await server.ai.analysis(await _load_or_404(server, game_id), address_of(request))
    # 202 while it is computed: a response model would answer 200, so the contract is checked here.
    return Response(contract.ANALYSIS.dump_json(contract.ANALYSIS.validate_python(body)), status_code=status, media_type="application/json")
