"""The lobby: open and named challenges, who is online, and the games being played.

Everything lives in the database, so every server process shows the same
lobby (quick match, the pairing of players who wait, is :mod:`.quickmatch`):

- A *challenge* is an online game waiting for its second player, listed in
  the lobby (``open``, for anyone within its rating range) or shown only to
  one account (``named``). Accepting it takes the free seat directly: no
  invitation code.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, select

from ..account.accounts import Account
from ..bus import GameEnded
from ..db.database import utc_now
from ..rating.ratings import NEW_RATING, Ratings, family_of
from ..round.clocks import TimeControl
from ..round.kinds import OfferKind
from ..db.schema import AccountRow, ChallengeRow, SeenRow, SummaryRow
from ..round.store import GameStore

ONLINE_SECONDS = 120.0  # an account seen this recently is online
RANGES = (100, 200, 300, 500)  # a challenge's "within ± of my rating" choices
CHALLENGE_HOURS = 24.0  # a challenge nobody accepted leaves the lobby after this
MAX_WAITING = 3  # challenges one account may have waiting at once
MAX_WAITING_NEW = 1  # ... and one in its first day (accounts.NEW_ACCOUNT_DAYS)


class Lobby:
    """Challenges and who is online, in the games' database (thread-safe; blocking calls)."""

    def __init__(self, store: GameStore, ratings: Ratings) -> None:
        self.store = store
        self.ratings = ratings
        self._sessions = store.database.reading
        self._writing = store.writing
        self._seen_written: dict[int, datetime] = {}

    def rating_of(self, account: Account | None, family: str) -> float:
        if account is None:
            return NEW_RATING
        found = self.ratings.ratings_of(account.id).get(family)
        return found.rating if found is not None else NEW_RATING

    # Challenges -----------------------------------------------------------------------

    def challenge(self, game_id: str) -> dict[str, Any] | None:
        with self._sessions() as session:
            row = session.get(ChallengeRow, game_id)
            return None if row is None else _challenge_view(row)

    def may_accept(self, game_id: str, account: Account | None) -> str | None:
        """Why ``account`` may not accept the challenge (None: it may)."""
        found = self.challenge(game_id)
        if found is None or found["taken"]:
            return "this challenge is no longer open"
        if found["for_id"] is not None and (account is None or account.id != found["for_id"]):
            return f"this challenge is for {found['for']} only"
        if found["rated"] and account is None:
            return "this is a rated game: sign in (or create an account) to accept it"
        if account is not None and account.id == found["creator_id"]:
            return "this is your own challenge"
        if found["within"] is not None:
            rating = self.rating_of(account, family_of(TimeControl.parse(found["control"]).kind))
            if abs(rating - found["rating"]) > found["within"]:
                return f"this challenge is for ratings within ±{found['within']:g} of {found['rating']}; yours is {round(rating)}"
        return None

    async def on_game_ended(self, news: GameEnded) -> None:
        """A challenge called off (aborted) before anyone accepted leaves the lobby."""
        if news.ending == "abort":
            await asyncio.to_thread(self.withdraw, news.game)

    def withdraw(self, game_id: str) -> None:
        """The challenge's game was aborted before anyone accepted: it leaves the lobby."""
        with self._writing() as session:
            session.execute(delete(ChallengeRow).where(ChallengeRow.game_id == game_id, ChallengeRow.taken.is_(None)))

    def open_challenges(self) -> list[dict[str, Any]]:
        """The challenges waiting, of the last CHALLENGE_HOURS: the open ones, then the named ones (each viewer sees
        only those meant for them; counted apart, so that named ones cannot push the open ones out)."""
        since = utc_now() - timedelta(hours=CHALLENGE_HOURS)
        found = []
        with self._sessions() as session:
            for kind, limit in ((OfferKind.OPEN, 200), (OfferKind.NAMED, 2000)):
                query = select(ChallengeRow).where(ChallengeRow.taken.is_(None), ChallengeRow.kind == kind, ChallengeRow.created >= since)
                found += [_challenge_view(row) for row in session.scalars(query.order_by(ChallengeRow.created.desc()).limit(limit))]
        return found

    def waiting_count(self, account: Account) -> int:
        """How many challenges an account has waiting (MAX_WAITING at most)."""
        since = utc_now() - timedelta(hours=CHALLENGE_HOURS)
        with self._sessions() as session:
            query = select(ChallengeRow.game_id).where(
                ChallengeRow.creator_id == account.id, ChallengeRow.taken.is_(None), ChallengeRow.created >= since
            )
            return len(list(session.scalars(query)))

    def recently_taken(self, limit: int = 40) -> list[str]:
        """Games started from the lobby in the last day and not finished, newest first (the caller keeps those still
        being played). A finished game has its kept line (:mod:`..round.summaries`): it is left out here, not loaded to be
        found over (40 finished games of a busy day, each replayed from its log, cold)."""
        since = utc_now() - timedelta(days=1)
        finished = exists(select(SummaryRow.game_id).where(SummaryRow.game_id == ChallengeRow.game_id))
        with self._sessions() as session:
            query = select(ChallengeRow.game_id).where(ChallengeRow.taken >= since, ChallengeRow.kind != OfferKind.NAMED, ~finished)
            return list(session.scalars(query.order_by(ChallengeRow.taken.desc()).limit(limit)))

    # Presence -------------------------------------------------------------------------

    def seen(self, account: Account) -> None:
        """Note that an account is here now (written at most every half minute per account and process)."""
        now = utc_now()
        last = self._seen_written.get(account.id)
        if last is not None and (now - last).total_seconds() < ONLINE_SECONDS / 4:
            return
        self._seen_written[account.id] = now
        if len(self._seen_written) > 10000:
            self._seen_written.clear()
        with self._writing() as session:
            row = session.get(SeenRow, account.id)
            if row is None:
                session.add(SeenRow(account_id=account.id, at=now))
            else:
                row.at = now

    def online(self, limit: int = 100) -> list[str]:
        since = utc_now() - timedelta(seconds=ONLINE_SECONDS)
        with self._sessions() as session:
            query = select(AccountRow.name).join(SeenRow, SeenRow.account_id == AccountRow.id).where(SeenRow.at >= since)
            return sorted(session.scalars(query.limit(limit)), key=str.lower)

def _challenge_view(row: ChallengeRow) -> dict[str, Any]:
    control = TimeControl.parse(row.control)
    return {
        "id": row.game_id,
        "kind": row.kind,
        "control": row.control,
        "words": control.words,
        "family": family_of(control.kind),
        "rated": row.rated,
        "by": row.creator_name,
        "creator_id": row.creator_id,
        "rating": round(row.creator_rating),
        "for": row.for_name,
        "for_id": row.for_id,
        "within": row.within,
        "taken": row.taken is not None,
    }
