"""Accounts: a unique name and a password, sessions in a cookie, and the games an account holds.

Accounts are optional: a guest plays with seat tokens alone, as before. A
password is kept only as its argon2 hash (argon2-cffi) and never logged. A
session is a random token in an HttpOnly cookie; the database keeps only its
SHA-256, so signing out everywhere is deleting the account's rows. Writes
authenticated by the cookie must come from the server's own pages (see
:func:`same_origin`).
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from argon2 import PasswordHasher
from confusable_homoglyphs import categories, confusables
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import and_, bindparam, delete, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...i18n import _
from ..db.database import Database, as_utc, utc_now
from ..round.game import secret_hash
from ..round.kinds import Mode
from ..db.schema import AccountGameRow, AccountRow, GameRow, SessionRow, public_game
from ..round.store import StoreError

NAME = re.compile(r"[A-Za-z0-9_-]{3,24}")
MIN_PASSWORD, MAX_PASSWORD = 8, 128
SESSION_COOKIE = "quiltmaker_session"
SESSION_DAYS = 30

COMPUTER_PREFIX = "quiltmaker "  # the computer's seats are "quiltmaker <level>": a person's name may not pass for one


def seat_name_refusal(name: str) -> str | None:
    """Why a name typed for a seat is refused, or None: at most 40 characters, printable (no control or bidi
    characters, which would reorder or hide the text around it), and not the computer's."""
    if len(name) > 40:
        return "a name is at most 40 characters"
    try:
        name.encode()
    except UnicodeEncodeError:
        return "a name must be Unicode text"
    if not name.isprintable():
        return "a name holds printable characters only (no control or direction characters)"
    if name.strip().casefold().startswith(COMPUTER_PREFIX.casefold()):
        return "a name cannot pass for the computer's (quiltmaker and a level)"
    if any(_deceiving(word) for word in unicodedata.normalize("NFKC", name).split()):
        return "a word of the name mixes lookalike letters of different scripts: write each word in one script"
    return None


# Scripts written together in one word (Unicode's "highly restrictive" sets, UTS #39): Japanese mixes kanji and kana,
# Korean hangul and hanja, Chinese han and bopomofo, and any of them may take Latin letters.
_WRITTEN_TOGETHER = ({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}, {"LATIN", "HAN", "HANGUL"}, {"LATIN", "HAN", "BOPOMOFO"})


def _deceiving(word: str) -> bool:
    """A word of lookalike letters from scripts not written together ("Аda" with a Cyrillic A): made to pass for another.
    (A name may hold words of different scripts, "Zoë 李"; and "山田カオリ" is one word in one way of writing.)"""
    scripts = {categories.alias(char) for char in word} - {"COMMON", "INHERITED"}
    if any(scripts <= together for together in _WRITTEN_TOGETHER):
        return False
    return bool(confusables.is_dangerous(word))


def compared_name(name: str) -> str:
    """A typed name as it is compared with the accounts' names: its compatibility form (full-width letters as letters),
    casefolded (an account's name key is its lower case: its letters are ASCII)."""
    return unicodedata.normalize("NFKC", name).strip().casefold()

NEW_ACCOUNT_DAYS = 1.0
_hasher = PasswordHasher()
T = TypeVar("T")

# The reads of every signed-in request and every player's page, made once: building a statement costs about what
# running it does (SQLAlchemy's coercions), and these run on bare connections for the same reason.
_SIGNED_IN = (
    select(AccountRow.id, AccountRow.name, AccountRow.language, SessionRow.created)
    .join(SessionRow, SessionRow.account_id == AccountRow.id)
    .where(SessionRow.token_hash == bindparam("token_hash"))
)
_NAMED = select(AccountRow.id, AccountRow.name).where(AccountRow.name_key == bindparam("key"))


class PasswordWork:
    """argon2's work (64 MiB and tens of milliseconds a check) one at a time, with at most ``queue`` waiting.

    Sign-ins from many addresses each pass their own address's quota; run at
    once, they would take every core from the games. One at a time they take
    one; past the queue a request is refused as ``busy`` at once, unhashed.
    """

    def __init__(self, queue: int) -> None:
        self.queue = queue
        self.waiting = 0
        self._one = asyncio.Lock()

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a thread, when the checks before it are done."""
        if self.waiting >= self.queue:
            raise StoreError("busy", _("the server is busy signing others in: try again in a moment"))
        self.waiting += 1
        try:
            await self._one.acquire()
        finally:
            self.waiting -= 1
        try:
            return await asyncio.to_thread(work, *args)
        finally:
            self._one.release()
# Verified against when a name is unknown, so that a wrong name costs the same time as a wrong password.
_UNKNOWN = _hasher.hash(secrets.token_urlsafe(16))


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    language: str | None = None  # the language the player chose, kept for every browser they sign in on


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise StoreError("malformed", _("a name is 3 to 24 letters, digits, '_' or '-'"))
    return name


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise StoreError("malformed", _("a password is {least} to {most} characters").format(least=MIN_PASSWORD, most=MAX_PASSWORD))
    return password


class Accounts:
    """Accounts and sessions in the games database (blocking calls, thread-safe)."""

    def __init__(self, database: Database) -> None:
        self._sessions = database.reading
        self._reading_rows = database.reading_rows
        self._writing = database.writing

    def sign_up(self, name: str, password: str) -> tuple[Account, str]:
        """A new account and a session token for it."""
        check_name(name)
        row = AccountRow(name=name, name_key=name.lower(), password_hash=_hasher.hash(check_password(password)), created=utc_now())
        try:
            with self._writing() as session:
                session.add(row)
        except IntegrityError:
            raise StoreError("taken", _("the name {name} is taken").format(name=repr(name))) from None
        account = Account(row.id, row.name)
        return account, self.new_session(account)

    def sign_in(self, name: str, password: str) -> tuple[Account, str]:
        """The account whose name and password these are, and a new session; ``forbidden`` otherwise."""
        with self._sessions() as session:
            row = session.scalar(select(AccountRow).where(AccountRow.name_key == name.lower()))
        try:
            _hasher.verify(row.password_hash if row else _UNKNOWN, password)
        except (VerificationError, InvalidHashError):
            row = None
        if row is None:
            raise StoreError("forbidden", _("that name and password do not match an account"))
        account = Account(row.id, row.name, row.language)
        if _hasher.check_needs_rehash(row.password_hash):
            self._set_password(account.id, password)
        return account, self.new_session(account)

    def is_new(self, account: Account) -> bool:
        """Whether the account is in its first NEW_ACCOUNT_DAYS (what it may do is bounded more tightly)."""
        with self._sessions() as session:
            created = session.scalar(select(AccountRow.created).where(AccountRow.id == account.id))
        return created is None or utc_now() - as_utc(created) < timedelta(days=NEW_ACCOUNT_DAYS)

    def find(self, name: str) -> Account | None:
        """The account of a name (any case), or None."""
        if not NAME.fullmatch(name):
            return None
        with self._reading_rows() as connection:
            row = connection.execute(_NAMED, {"key": name.lower()}).first()
        return None if row is None else Account(row.id, row.name)

    def new_session(self, account: Account) -> str:
        token = secrets.token_urlsafe(32)
        with self._writing() as session:
            session.add(SessionRow(token_hash=secret_hash(token), account_id=account.id, created=utc_now()))
        return token

    def account_of(self, token: str | None) -> Account | None:
        """The account a session token belongs to (``None`` for no token, an unknown or an expired one)."""
        if not token or len(token) > 128:
            return None
        with self._reading_rows() as connection:
            found = connection.execute(_SIGNED_IN, {"token_hash": secret_hash(token)}).first()
        if found is None:
            return None
        created = as_utc(found.created)
        if (utc_now() - created).days >= SESSION_DAYS:
            return None
        return Account(found.id, found.name, found.language)

    def choose_language(self, account: Account, code: str) -> None:
        """Keep the language the player chose with their account (a code of :data:`quiltmaker.i18n.LANGUAGES`)."""
        with self._writing() as session:
            session.execute(update(AccountRow).where(AccountRow.id == account.id).values(language=code))

    def purge_sessions(self) -> int:
        """Delete the sessions that have expired (they sign nobody in any more); return how many."""
        with self._writing() as session:
            expired = delete(SessionRow).where(SessionRow.created < utc_now() - timedelta(days=SESSION_DAYS))
            return int(session.execute(expired).rowcount)  # type: ignore[attr-defined]

    def sign_out(self, token: str) -> None:
        with self._writing() as session:
            session.execute(delete(SessionRow).where(SessionRow.token_hash == secret_hash(token)))

    def sign_out_everywhere(self, account: Account) -> None:
        with self._writing() as session:
            session.execute(delete(SessionRow).where(SessionRow.account_id == account.id))

    def change_password(self, account: Account, current: str, new: str) -> str:
        """Change the password (the current one must match); every session ends but a new one, returned."""
        self.sign_in(account.name, current)
        check_password(new)
        self._set_password(account.id, new)
        self.sign_out_everywhere(account)
        return self.new_session(account)

    def _set_password(self, account_id: int, password: str) -> None:
        with self._writing() as session:
            row = session.get(AccountRow, account_id)
            if row is not None:
                row.password_hash = _hasher.hash(password)

    def seat_in(self, account: Account, game_id: str) -> str | None:
        """The seat the account holds in a game ("0", "1", "both"), or ``None``."""
        with self._sessions() as session:
            row = session.get(AccountGameRow, (account.id, game_id))
            return None if row is None else row.seat

    def recent_games(self, account: Account, limit: int, private: bool = False, before: str | None = None) -> list[tuple[str, str]]:
        """The (game id, seat) pairs of the account's newest ``limit`` games, lessons left out, newest first, from
        the one after game ``before`` on (a page: a game's id is the cursor); games by private invitation only if
        ``private`` (its player's own list)."""
        with self._sessions() as session:
            query = (
                select(AccountGameRow.game_id, AccountGameRow.seat)
                .join(GameRow, GameRow.id == AccountGameRow.game_id)
                .where(AccountGameRow.account_id == account.id, GameRow.mode != Mode.LESSON)
            )
            if not private:
                query = query.where(public_game(AccountGameRow.game_id))
            if before is not None and (cursor := session.scalar(select(GameRow.created).where(GameRow.id == before))) is not None:
                query = query.where(or_(GameRow.created < cursor, and_(GameRow.created == cursor, GameRow.id < before)))
            rows = session.execute(query.order_by(GameRow.created.desc(), GameRow.id.desc()).limit(limit))
            return [(row.game_id, row.seat) for row in rows]


def same_origin(origin: str | None, host: str | None, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a request's ``Origin`` is this server's own address (or one configured for a reverse proxy).

    No ``Origin`` at all is a client that is not a browser (browsers send one
    with every cross-site request, and with every POST and WebSocket).
    """
    if origin is None or origin in allowed:
        return True
    # Either scheme: behind a proxy that terminates TLS the page is https and this server sees http.
    return host is not None and origin in (f"http://{host}", f"https://{host}")
