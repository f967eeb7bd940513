"""Making games: one typed description of a game to make, and the one service that writes it (as Lichess's ``setup``).

Every way a game starts (against the computer, pass-and-play, an invitation,
an open or named challenge, a quick match, the computer after a quick match
nobody answered, a puzzle, a lesson, a "what if", a rematch) describes it as a
:class:`GameSetup` and hands it to :class:`GameMaker`, which writes the game,
its seats' accounts, its rating and its lobby offer in one transaction: a game
is never left half made (rated without its rating row, offered without its
seat). Taking a game's free seat (an invitation spent, a challenge accepted)
is here too, for the same reason. No other module writes these rows; a test
holds which module writes which table (tests/web/test_web_setup.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from ..core.position import Position
from ..i18n import _
from .bus import Bus, GameStarted
from .db.database import Database, utc_now
from .rating.ratings import family_of
from .round.clocks import TimeControl
from .round.game import BOTH_SEATS, StoredGame, secret_hash
from .round.kinds import EventKind, Mode, OfferKind
from .round.rules import Rematch
from .db.schema import AccountGameRow, ChallengeRow, ClockRow, EventRow, GameRow, LessonRow, PuzzleGameRow, RatedGameRow
from .round.store import StoreError


@dataclass(frozen=True)
class Offer:
    """A game offered in the lobby: to anyone (``within`` rating points of its creator, if given), to one account
    (``for_account``: its id and name), or a quick match's pair (listed as being played from the start)."""

    kind: OfferKind
    creator_rating: float
    for_account: tuple[int, str] | None = None
    within: float | None = None


@dataclass(frozen=True)
class GameSetup:
    """A game to make: who plays it, from where, on what clock, rated or not, and how it is offered.

    ``seat`` is the creator's: its token is the one handed back (pass-and-play's
    one token holds both seats). ``accounts`` are the accounts holding each seat
    from the start (their games list it; a rated game rates them). Against the
    computer (and a lesson's tutor), the computer plays the other seat at
    ``ai_level``. ``both_seated``: an online game whose two seats are taken at
    once (a quick match's), whose other token is handed back in place of an
    invitation. ``script``: moves played before the game is handed over (a
    lesson's opening, the moves of a game played on from), already checked by
    the rules, which check them again as the log is loaded.
    """

    mode: Mode
    start: Position
    names: Sequence[str]
    seat: int = 0
    accounts: tuple[int | None, int | None] = (None, None)
    ai_level: str | None = None
    control: TimeControl | None = None
    rated: bool = False
    lesson: int | None = None
    script: Sequence[str] = ()
    puzzle: str | None = None
    offer: Offer | None = None
    both_seated: bool = False
    game_id: str | None = None  # (a quick match's batch picks its ids itself)

    def __post_init__(self) -> None:
        # Broken only by a caller's bug (the routes check what people send): say which, before anything is written.
        mode = Mode(self.mode)
        if len(self.names) != 2 or self.seat not in (0, 1):
            raise ValueError("a game has two seats, named, and its creator holds one of them")
        if mode.against_ai != (self.ai_level is not None):
            raise ValueError("a game against the computer (or a lesson's tutor) names its level, and only it does")
        if (mode is Mode.LESSON) != (self.lesson is not None) or (mode is Mode.PUZZLE) != (self.puzzle is not None):
            raise ValueError("a lesson names its lesson and a puzzle its puzzle, and only they do")
        if self.rated and self.control is None:
            raise ValueError("a rated game has a clock")
        if (self.offer is not None or self.both_seated) and mode is not Mode.ONLINE:
            raise ValueError("only an online game is offered in the lobby or seated by a quick match")

    @property
    def ai_seat(self) -> int | None:
        return 1 - self.seat if Mode(self.mode).against_ai else None

    @property
    def account_seats(self) -> list[tuple[int, str]]:
        """Each account seated from the start, with the seat its games list says it holds (a puzzle's account is the
        one trying it, kept with the attempt: a puzzle is not one of the player's games)."""
        if self.mode == Mode.PUZZLE:
            return []
        if self.mode == Mode.LOCAL:
            return [(account, BOTH_SEATS) for account in dict.fromkeys(a for a in self.accounts if a is not None)]
        return [(account, str(seat)) for seat, account in enumerate(self.accounts) if account is not None]


def held_by(seat: int, account_id: int | None) -> tuple[int | None, int | None]:
    """A game's seats' accounts when at most one, ``account_id``'s, holds ``seat`` (a ``GameSetup``'s ``accounts``)."""
    return (account_id, None) if seat == 0 else (None, account_id)


@dataclass(frozen=True)
class Made:
    """A game made: its id, the creator's seat and token, and the invitation for the other seat (an online game's) or,
    when both were seated at once, the other seat's token."""

    id: str
    seat: int | str  # 0, 1, or "both" (pass-and-play)
    token: str
    invite: str | None = None
    other_token: str | None = None

    def seat_taken(self) -> dict[str, Any]:
        """As the API hands a new game's seat to its creator (``contract.SeatTaken``)."""
        return {"id": self.id, "token": self.token, "seat": self.seat, "invite": self.invite}


class GameMaker:
    """Writes new games and their free seats' takers (thread-safe; blocking calls)."""

    def __init__(self, database: Database, bus: Bus | None = None) -> None:
        self.database = database
        self.bus = bus or Bus()

    async def start(self, setup: GameSetup) -> Made:
        """:meth:`make`, then the news that the game started."""
        made = await asyncio.to_thread(self.make, setup)
        await self.bus.publish(GameStarted(made.id, Mode(setup.mode).value))
        return made

    def make(self, setup: GameSetup, rows: Connection | None = None) -> Made:
        """Write the game ``setup`` describes, with all its rows, in one transaction (a caller's ``rows``: in its own)."""
        mode = Mode(setup.mode)
        game_id = setup.game_id or secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(24)
        other = secrets.token_urlsafe(24) if setup.both_seated else None
        invite = secrets.token_urlsafe(18) if mode is Mode.ONLINE and not setup.both_seated else None
        hashes: list[str | None] = [None, None]
        hashes[0 if mode is Mode.LOCAL else setup.seat] = secret_hash(token)
        if other is not None:
            hashes[1 - setup.seat] = secret_hash(other)
        now = utc_now()
        # Plain statements, in the order of the rows' references: a quick match makes its games in bursts, and through
        # the ORM's unit of work a game's rows cost several times their statements.
        with contextlib.nullcontext(rows) if rows is not None else self.database.writing_rows() as connection:
            connection.execute(insert(GameRow), [{
                "id": game_id, "created": now, "mode": mode.value, "start": setup.start.text(), "names": list(setup.names),
                "ai_level": setup.ai_level, "ai_seat": setup.ai_seat, "token_hashes": hashes,
                "invite_hash": secret_hash(invite) if invite else None,
            }])  # fmt: skip
            if setup.lesson is not None:
                connection.execute(insert(LessonRow), [{"game_id": game_id, "number": setup.lesson}])
            if setup.puzzle is not None:
                connection.execute(insert(PuzzleGameRow), [{"game_id": game_id, "puzzle_id": setup.puzzle, "account_id": setup.accounts[setup.seat]}])
            if setup.control is not None:
                connection.execute(insert(ClockRow), [{"game_id": game_id, "control": setup.control.to_json(), "deadline": None}])
            if setup.script:
                connection.execute(insert(EventRow), [
                    {"game_id": game_id, "number": number, "kind": EventKind.MOVE.value, "value": move, "seat": None, "client_id": None, "created": now}
                    for number, move in enumerate(setup.script)
                ])  # fmt: skip
            if setup.account_seats:
                connection.execute(insert(AccountGameRow), [{"account_id": a, "game_id": game_id, "seat": s} for a, s in setup.account_seats])
            if setup.rated:
                assert setup.control is not None  # (the setup says so)
                connection.execute(insert(RatedGameRow), [
                    {"game_id": game_id, "family": family_of(setup.control.kind), "accounts": list(setup.accounts), "settled": False, "unrated": None}
                ])  # fmt: skip
            if setup.offer is not None:
                offer = setup.offer
                creator = setup.accounts[setup.seat]
                connection.execute(insert(ChallengeRow), [{
                    "game_id": game_id, "kind": offer.kind.value, "control": setup.control.short if setup.control else "", "rated": setup.rated,
                    "creator_id": creator, "creator_name": setup.names[setup.seat], "creator_rating": offer.creator_rating,
                    "for_id": offer.for_account[0] if offer.for_account else None, "for_name": offer.for_account[1] if offer.for_account else None,
                    "within": offer.within, "created": now, "taken": now if offer.kind is OfferKind.QUICK else None,
                }])  # fmt: skip
        return Made(game_id, BOTH_SEATS if mode is Mode.LOCAL else setup.seat, token, invite, other)

    def rematch(self, stored: StoredGame, rematch: Rematch, start: Position) -> str:
        """Write ``stored``'s rematch (:func:`.round.rules.rematch_of`) from ``start``; return its id.

        Each seat keeps its token (only their hashes are known here, and they
        move with the seats), so nobody needs a new link or invitation. The
        same clock; a rated game's rematch is rated too, between the same
        accounts, and each account holds its new seat.
        """
        game_id = secrets.token_urlsafe(9)
        with self.database.writing_rows() as connection:
            connection.execute(insert(GameRow), [{
                "id": game_id, "created": utc_now(), "mode": stored.mode, "start": start.text(), "names": rematch.names,
                "ai_level": stored.ai_level, "ai_seat": rematch.ai_seat, "token_hashes": rematch.token_hashes, "invite_hash": None,
            }])  # fmt: skip
            if stored.control is not None:
                connection.execute(insert(ClockRow), [{"game_id": game_id, "control": stored.control.to_json(), "deadline": None}])
            held = connection.execute(_SEATS_HELD, {"game": stored.id}).all()
            if held:  # each account holds its seat's new seat (pass-and-play's "both" stays)
                connection.execute(insert(AccountGameRow), [
                    {"account_id": account, "game_id": game_id, "seat": seat if seat == BOTH_SEATS else str(rematch.seats[int(seat)])}
                    for account, seat in held
                ])  # fmt: skip
            rated = connection.execute(_RATED, {"game": stored.id}).first()
            if rated is not None:
                accounts: list[int | None] = [None, None]
                for seat, new_seat in enumerate(rematch.seats):
                    accounts[new_seat] = rated.accounts[seat]
                connection.execute(insert(RatedGameRow), [
                    {"game_id": game_id, "family": rated.family, "accounts": accounts, "settled": False, "unrated": None}
                ])  # fmt: skip
        return game_id

    def take_free_seat(self, game_id: str, invite: str | None, account: tuple[int, str] | None) -> tuple[str, int]:
        """Take an online game's free seat, with its invitation code or (``invite`` None: a challenge accepted in the
        lobby, the caller checked who may) without; return its token and seat.

        ``account`` (id, name): the signed-in taker, who plays under their
        name, holds the seat in their games and, in a rated game, is rated.
        The seat, the lobby's "taken", the rating's seat and the account's seat
        are one transaction.

        Raises:
            StoreError: ``not_found``, or ``forbidden`` for a spent or wrong invitation.
        """
        with self.database.writing_rows() as connection:
            row = connection.execute(_SEATS, {"game": game_id}).first()
            if row is None:
                raise StoreError("not_found", _("no game {game}").format(game=repr(game_id)))
            if invite is not None and (row.invite_hash is None or not hmac.compare_digest(row.invite_hash, secret_hash(invite))):
                raise StoreError("forbidden", _("this invitation is not valid (already used, or not for this game)"))
            if row.invite_hash is None:
                raise StoreError("forbidden", _("someone has just taken this game's free seat"))
            seat = list(row.token_hashes).index(None)
            token = secrets.token_urlsafe(24)
            hashes, names = list(row.token_hashes), list(row.names)
            hashes[seat] = secret_hash(token)
            if account is not None:
                names[seat] = account[1]
            # Compare-and-set on the invitation: of two browsers racing, one wins.
            taken = connection.execute(_TAKE, {"game": game_id, "before": row.invite_hash, "new_hashes": hashes, "new_names": names})
            if taken.rowcount != 1:
                raise StoreError("forbidden", _("this invitation has just been used"))
            connection.execute(_CHALLENGE_TAKEN, {"game": game_id, "now": utc_now()})  # a challenge joined by its link too
            if account is not None:
                if connection.execute(_HELD, {"account": account[0], "game": game_id}).first() is None:  # (its creator's own link)
                    connection.execute(insert(AccountGameRow), [{"account_id": account[0], "game_id": game_id, "seat": str(seat)}])
                found = connection.execute(_RATED, {"game": game_id}).first()
                if found is not None:
                    accounts = list(found.accounts)
                    accounts[seat] = account[0]
                    connection.execute(_RATED_SEATS, {"game": game_id, "seated": accounts})
        return token, seat

    def claim(self, account_id: int, game_id: str, seat: str) -> None:
        """Record that an account holds ``seat`` of a game it played as a guest (the caller has checked the seat's token)."""
        with self.database.writing_rows() as connection:
            if connection.execute(_HELD, {"account": account_id, "game": game_id}).first() is None:
                connection.execute(insert(AccountGameRow), [{"account_id": account_id, "game_id": game_id, "seat": seat}])


_SEATS = select(GameRow.token_hashes, GameRow.names, GameRow.invite_hash).where(GameRow.id == bindparam("game")).with_for_update()
_TAKE = update(GameRow).where(GameRow.id == bindparam("game"), GameRow.invite_hash == bindparam("before")).values(
    token_hashes=bindparam("new_hashes"), invite_hash=None, names=bindparam("new_names"))  # (not the columns' names)
_CHALLENGE_TAKEN = update(ChallengeRow).where(ChallengeRow.game_id == bindparam("game")).values(taken=bindparam("now"))
_RATED = select(RatedGameRow.family, RatedGameRow.accounts).where(RatedGameRow.game_id == bindparam("game")).with_for_update()
_RATED_SEATS = update(RatedGameRow).where(RatedGameRow.game_id == bindparam("game")).values(accounts=bindparam("seated"))
_SEATS_HELD = select(AccountGameRow.account_id, AccountGameRow.seat).where(AccountGameRow.game_id == bindparam("game"))
_HELD = select(AccountGameRow.seat).where(AccountGameRow.account_id == bindparam("account"), AccountGameRow.game_id == bindparam("game"))
