"""Ratings: Glicko-2 for rated games, one rating per time-control family, the AI's levels at fixed ratings.

The arithmetic is Glickman's Glicko-2, vendored in :mod:`.glicko2` (from his
paper, tested against its worked example; docs/design.md says why vendored).
What is decided here:

- Each rated game is a rating period of its own for both players, as on
  Lichess, so a rating moves after every game. Before a game, a player's
  deviation grows with the time since their last rated game (Glickman's
  step 6, one period every :data:`DAYS_PER_PERIOD` days), up to a new
  player's 350.
- Families: ``realtime`` and ``correspondence``, by the game's clock. A
  rated game needs a clock, and every seat a person holds needs an account.
- A rating is *provisional* while its deviation is above
  :data:`PROVISIONAL_RD` (Lichess's threshold): the page shows it with a
  question mark, and the leaderboard lists only established ones.
- The AI's levels sit in the ladder at fixed ratings: ``beginner`` at
  :data:`BEGINNER_RATING`, each level above it by the Elo its matches
  measured (docs/strength.md; a test holds the two equal). Glicko-2 and Elo
  share the logistic scale, so the differences carry over. A game against a
  level moves only the person's rating, and is rated only on a clock that
  leaves the level the thinking time its rating was measured at
  (:func:`level_rated_on`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import bindparam, select, update

from ...ai.levels import LEVELS
from . import glicko2
from ..bus import GameEnded
from ..db.database import Database, as_utc
from .fairness import why_unrated
from ..round.clocks import TimeControl, thinking_cap
from ..round.game import StoredGame
from ..round.kinds import Mode
from ..db.schema import AccountRow, RatedGameRow, RatingChangeRow, RatingRow, public_game
from ..round.views import result_view

FAMILIES = ("realtime", "correspondence")
log = logging.getLogger("quiltmaker.web")
NEW_RATING, NEW_RD, NEW_VOLATILITY = 1500.0, 350.0, 0.06
TAU = 0.75  # Glicko-2's system constant: how fast volatility may change (Lichess's choice)
PROVISIONAL_RD = 110.0
PROVISIONAL_OPPONENT = 0.5  # the share of its usual change an established rating takes from a provisional opponent's game
MIN_RD = 45.0  # a floor, so that a long-settled rating still moves (Lichess keeps one too)
DAYS_PER_PERIOD = 4.665  # a rating period's length for the deviation's growth when idle (Lichess: 0.21436 periods a day)

# The measured ladder (docs/strength.md, "Matches"): each level's Elo over the one below it.
LADDER_STEPS = {"casual": 576, "strong": 372, "expert": 478, "max": 156}
BEGINNER_RATING = 1200.0  # below a new player's 1500: a newcomer who knows the rules should beat a player that never plans ahead
AI_RD = 50.0  # the levels' ratings are known to about this (the matches' intervals are ±50 to ±130 Elo)


def level_rated_on(level: str, control: TimeControl) -> bool:
    """Whether a game against ``level`` on ``control`` may be rated: where the clock leaves it the time a move its
    fixed rating was measured at (at the start: :func:`..round.clocks.thinking_cap` of the whole clock). On a shorter
    clock it searches less and is weaker than its rating says (max on 0.25+0 lost to expert 2 games of 10)."""
    seconds = LEVELS[level].seconds
    return control.kind != "realtime" or seconds is None or seconds <= thinking_cap(control.initial, control)


def ai_ratings() -> dict[str, float]:
    """Each AI level's fixed rating: the beginner's anchor plus the measured steps above it."""
    ratings = {"beginner": BEGINNER_RATING}
    rating = BEGINNER_RATING
    for level, step in LADDER_STEPS.items():
        rating += step
        ratings[level] = rating
    return ratings


@dataclass(frozen=True)
class Rating:
    rating: float
    rd: float
    volatility: float
    games: int

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


NEW = Rating(NEW_RATING, NEW_RD, NEW_VOLATILITY, 0)


def after_idle(rating: Rating, last: datetime | None, now: datetime) -> Rating:
    """The rating with its deviation grown for the time since its last game (Glickman's step 6), at most a new player's."""
    if last is None or rating.games == 0:
        return rating
    periods = max(0.0, (now - last).total_seconds() / 86400 / DAYS_PER_PERIOD)
    mu, phi = glicko2.to_glicko2(rating.rating, rating.rd)
    _, rd = glicko2.from_glicko2(mu, glicko2.idle(phi, rating.volatility, periods))
    return Rating(rating.rating, min(NEW_RD, rd), rating.volatility, rating.games)


def rated(player: Rating, opponent: Rating, score: float) -> Rating:
    """The player's rating after one game against ``opponent`` (score 1 a win, 0 a loss): one Glicko-2 period."""
    mu, phi = glicko2.to_glicko2(player.rating, player.rd)
    new = glicko2.update(mu, phi, player.volatility, [(*glicko2.to_glicko2(opponent.rating, opponent.rd), score)], TAU)
    rating, rd = glicko2.from_glicko2(new.mu, new.phi)
    return Rating(rating, max(MIN_RD, rd), new.sigma, player.games + 1)


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's chance of winning by the two ratings (Glicko-2's E, with the opponent's deviation)."""
    mu, _ = glicko2.to_glicko2(player.rating, player.rd)
    mu_j, phi_j = glicko2.to_glicko2(opponent.rating, opponent.rd)
    return glicko2.expected(mu, mu_j, phi_j)


def family_of(kind: str) -> str:
    """The rating family of a clock's kind."""
    return "correspondence" if kind == "correspondence" else "realtime"


# The reads of every player's page and every game's state, made once: building a statement costs about what running
# it does (SQLAlchemy's coercions), and they run on bare connections for the same reason.
_RATINGS_OF = select(RatingRow.family, RatingRow.rating, RatingRow.rd, RatingRow.volatility, RatingRow.games).where(
    RatingRow.account_id == bindparam("account")
)
_HISTORY = (
    select(RatingChangeRow.game_id, RatingChangeRow.family, RatingChangeRow.before, RatingChangeRow.after, RatingChangeRow.rd,
           RatingChangeRow.at, public_game(RatingChangeRow.game_id).label("public"))
    .where(RatingChangeRow.account_id == bindparam("account"))
    .order_by(RatingChangeRow.id.desc())
    .limit(bindparam("limit"))
)
_RATED_GAMES = select(RatedGameRow.game_id, RatedGameRow.family, RatedGameRow.settled, RatedGameRow.unrated, RatedGameRow.accounts).where(
    RatedGameRow.game_id.in_(bindparam("ids", expanding=True))
)
_CHANGES_IN = select(RatingChangeRow.game_id, RatingChangeRow.account_id, RatingChangeRow.before, RatingChangeRow.after).where(
    RatingChangeRow.game_id.in_(bindparam("ids", expanding=True))
)


class Ratings:
    """Ratings in the games' database (thread-safe; blocking calls)."""

    def __init__(self, database: Database) -> None:
        self._sessions = database.reading
        self._reading_rows = database.reading_rows
        self._writing = database.writing

    async def settle_now(self, stored: StoredGame) -> None:
        """Rate a rated game that has just ended (once across processes; a failure is retried by :meth:`settle_missed`)."""
        try:
            await asyncio.to_thread(self.settle, stored)
            stored.rating = await asyncio.to_thread(self.game_view, stored.id)
        except Exception:
            log.exception("rating game %s failed", stored.id)

    async def on_game_ended(self, news: GameEnded) -> None:
        """A game ended here: a rated one is rated now."""
        stored = news.stored
        if stored is not None and stored.rating is not None and not stored.rating["settled"]:
            await self.settle_now(stored)

    async def settle_missed(self, load: Callable[[str], Awaitable[StoredGame]]) -> None:
        """Rate every finished rated game left unrated (its process died first), a page of ids at a time; ``load`` loads a game."""
        after = ""
        while page := await asyncio.to_thread(self.unsettled, after):
            for game_id in page:
                with contextlib.suppress(Exception):
                    stored = await load(game_id)
                    if stored.is_finished:
                        await self.settle_now(stored)
            after = page[-1]

    # A rated game's seats ----------------------------------------------------------

    def rated_game(self, game_id: str) -> tuple[str, list[int | None]] | None:
        """A rated game's family and seats' accounts; None for a casual game."""
        with self._sessions() as session:
            row = session.get(RatedGameRow, game_id)
            return None if row is None else (row.family, list(row.accounts))

    def game_view(self, game_id: str) -> dict[str, Any] | None:
        """What a game's state says of its rating: None for a casual game, else its family and, once settled,
        each seat's rating before and after (None for the AI's seat)."""
        return self.game_views([game_id]).get(game_id)

    def game_views(self, game_ids: list[str]) -> dict[str, dict[str, Any]]:
        """:meth:`game_view` of each rated game of ``game_ids``, in two queries (a list's)."""
        with self._reading_rows() as connection:
            rows = connection.execute(_RATED_GAMES, {"ids": game_ids}).all()
            changes = {(c.game_id, c.account_id): c for c in connection.execute(_CHANGES_IN, {"ids": game_ids})}
        return {
            row.game_id: {
                "family": row.family,
                "settled": row.settled,
                "unrated": row.unrated,
                "changes": [
                    [round(c.before), round(c.after)] if (c := changes.get((row.game_id, a))) is not None else None for a in row.accounts
                ],
            }
            for row in rows
        }

    # Settling -----------------------------------------------------------------------

    def settle(self, stored: StoredGame, now: datetime | None = None) -> dict[int, tuple[float, float]] | None:
        """Rate a finished rated game, exactly once across processes; return each account's (before, after).

        None when there is nothing to do: a casual game, one not over, one
        aborted (no result), or one already settled.
        """
        result = result_view(stored)
        if result is None and stored.status != "aborted":
            return None  # still being played
        now = now or datetime.now(timezone.utc)
        with self._writing() as session:
            claimed = session.execute(
                update(RatedGameRow).where(RatedGameRow.game_id == stored.id, RatedGameRow.settled.is_(False)).values(settled=True)
            )
            if claimed.rowcount != 1:  # type: ignore[attr-defined]
                return None  # not rated, or another process settled it
            if result is None:
                return None  # aborted: settled without a result
            row = session.get(RatedGameRow, stored.id)
            assert row is not None
            family, accounts = row.family, list(row.accounts)
            if stored.mode == Mode.ONLINE and None in accounts:
                log.warning("rated game %s has a seat without its account: left unrated", stored.id)
                return None
            if result["by"] == "time" and stored.ai_seat is not None and result["winner"] != stored.ai_seat:
                row.unrated = "computer_time"  # the server's doing, not the player's skill
                return None
            row.unrated = why_unrated(session, stored, accounts, now)  # (rating.fairness: no farming)
            if row.unrated is not None:
                return None
            level_rating = ai_ratings().get(stored.ai_level or "", None)
            current: list[Rating] = []
            last: list[datetime | None] = []
            for seat in (0, 1):
                account_id = accounts[seat]
                if account_id is None:  # the AI's seat: its level's fixed rating
                    current.append(Rating(level_rating if level_rating is not None else NEW_RATING, AI_RD, NEW_VOLATILITY, 0))
                    last.append(None)
                    continue
                rating_row = session.get(RatingRow, (account_id, family), with_for_update=True)
                if rating_row is None:
                    current.append(NEW)
                    last.append(None)
                else:
                    current.append(Rating(rating_row.rating, rating_row.rd, rating_row.volatility, rating_row.games))
                    last.append(as_utc(rating_row.updated))
            current = [after_idle(current[seat], last[seat], now) for seat in (0, 1)]
            changes: dict[int, tuple[float, float]] = {}
            for seat in (0, 1):
                account_id = accounts[seat]
                if account_id is None:
                    continue
                new = rated(current[seat], current[1 - seat], 1.0 if result["winner"] == seat else 0.0)
                if current[1 - seat].provisional and not current[seat].provisional:
                    # An established rating moves less for a provisional opponent's result, whose rating says little yet.
                    new = replace(new, rating=current[seat].rating + PROVISIONAL_OPPONENT * (new.rating - current[seat].rating))
                rating_row = session.get(RatingRow, (account_id, family))
                if rating_row is None:
                    rating_row = RatingRow(account_id=account_id, family=family)
                    session.add(rating_row)
                rating_row.rating, rating_row.rd, rating_row.volatility, rating_row.games = new.rating, new.rd, new.volatility, new.games
                rating_row.updated = now
                session.add(
                    RatingChangeRow(
                        game_id=stored.id, account_id=account_id, family=family, before=current[seat].rating, after=new.rating, rd=new.rd, at=now
                    )
                )
                changes[account_id] = (current[seat].rating, new.rating)
            return changes

    def unsettled(self, after: str = "", limit: int = 100) -> list[str]:
        """Rated games not settled yet, by id after ``after`` (most are being played; a finished one was missed by a crash)."""
        with self._sessions() as session:
            query = select(RatedGameRow.game_id).where(RatedGameRow.settled.is_(False), RatedGameRow.game_id > after)
            return list(session.scalars(query.order_by(RatedGameRow.game_id).limit(limit)))

    # Reading ------------------------------------------------------------------------

    def ratings_of(self, account_id: int) -> dict[str, Rating]:
        with self._reading_rows() as connection:
            rows = connection.execute(_RATINGS_OF, {"account": account_id})
            return {row.family: Rating(row.rating, row.rd, row.volatility, row.games) for row in rows}

    def history(self, account_id: int, limit: int = 500, private: bool = False) -> list[dict[str, Any]]:
        """The account's rating after each rated game, oldest first; a game by private invitation named only if
        ``private`` (its player's own history)."""
        with self._reading_rows() as connection:
            rows = list(connection.execute(_HISTORY, {"account": account_id, "limit": limit}))
        return [
            {"game": row.game_id if row.public or private else None, "family": row.family, "before": round(row.before), "after": round(row.after), "rd": round(row.rd), "at": as_utc(row.at).isoformat()}
            for row in reversed(rows)
        ]

    def leaderboard(self, family: str, limit: int = 50) -> list[dict[str, Any]]:
        """The established (not provisional) ratings of a family, best first, with the AI's levels in their places."""
        with self._sessions() as session:
            query = (
                select(AccountRow.name, RatingRow.rating, RatingRow.rd, RatingRow.games)
                .join(RatingRow, RatingRow.account_id == AccountRow.id)
                .where(RatingRow.family == family, RatingRow.rd <= PROVISIONAL_RD)
                .order_by(RatingRow.rating.desc())
                .limit(limit)
            )
            people = [{"name": r.name, "rating": round(r.rating), "rd": round(r.rd), "games": r.games, "computer": False} for r in session.execute(query)]
        levels = [{"name": f"quiltmaker {name}", "level": name, "rating": round(rating), "rd": round(AI_RD), "games": None, "computer": True} for name, rating in ai_ratings().items()]
        return sorted(people + levels, key=lambda entry: -float(entry["rating"]))


def rating_view(rating: Rating | None) -> dict[str, Any]:
    """A rating as the pages show it: rounded, with "provisional" while its deviation is large."""
    shown = rating or NEW
    return {"rating": round(shown.rating), "rd": round(shown.rd), "games": shown.games, "provisional": shown.provisional}
