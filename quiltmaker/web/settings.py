"""How a web server process runs: the database, the broker, the AI's workers and budgets."""

from __future__ import annotations

from dataclasses import dataclass

from .pubsub import Broker


@dataclass
class Settings:
    """How a server runs.

    Attributes:
        database_url: SQLAlchemy URL of the games database.
        broker: Pub/sub between server processes (in-process by default).
        ai_workers: Worker processes for the moves of the levels that think for seconds (expert, max).
        quick_workers: Worker processes for the moves bounded by playouts (beginner, casual, strong, the
            tutor: a fraction of a second each), so that no flood of long searches delays them.
        advice_workers: Worker processes for hints and analyses, apart from the moves' own, so
            that advice never holds up anyone's AI move.
        hint_seconds: Search time of a hint.
        analysis_iterations: Playouts per position when analysing a finished game. Fewer make the
            evaluation graph swing from noise alone (docs/web.md, "Decisions").
        optional_work_limit: Hints and analyses allowed to wait for or use the AI workers at
            once. Beyond it a hint is refused as ``busy`` and an analysis waits for a later
            request, so that they cannot pile up ahead of the AI's moves.
        create_limit: Games one client (address) may create, in the ``limits`` library's notation.
        intent_limit: Intents (moves, undos, hints, rematches) one client may send.
        max_events: Events a game's log may hold; past it the game takes no more.
        game_cache_mb: The memory the games kept in memory may take (estimated, :func:`.live.game_bytes`); past it
            the least recently used are forgotten (and read from the database again when needed).
        unstarted_days: A game nobody has made a move in is deleted after this many days.
        allowed_origins: Page origins accepted besides the server's own address (the
            ``Origin`` of cookie-authenticated writes and of WebSockets), for a reverse
            proxy that serves the pages under another name, e.g. ``https://play.example``.
        account_limit: Sign-ups, sign-ins and password changes one client may try.
        sign_in_failures: Failed sign-ins one account may take from one address; past it that address's sign-ins to
            the account wait (another address's do not: nobody locks an owner out).
        new_place_failures: Failed sign-ins one account may take from all the addresses it was not seen from lately,
            together; past it their sign-ins wait, so that many addresses cannot guess one password, while the
            owner's own addresses (:class:`.rating.fairness.AccountAddresses`) still sign in.
        password_queue: Password checks (argon2, 64 MiB each) that may wait for the one that runs; past
            it a sign-in is refused as busy, so that a flood of them cannot take every core.
        hello_limit: Socket greetings (a page opening or reopening a game) one client may send.
        offer_limit: Challenges one client may offer in the lobby.
        sockets_per_client: Sockets (games and the lobby) one client may hold open at once.
        chat_limit: Chat lines one client may send.
        puzzle_limit: Puzzles one account may take (and so answer, rated): a script cannot answer hundreds a minute.
        check_states: Check every game state sent against the contract (:func:`.contract.check_state`) before sending
            it. On by default, and so in the tests; ``quiltmaker serve`` turns it off unless given ``--check-states`` (the
            tests' servers are): a service skips it, where it took a fifth of a move's CPU (docs/design.md).
    """

    database_url: str
    broker: Broker | None = None
    ai_workers: int = 1
    quick_workers: int = 1
    advice_workers: int = 1
    hint_seconds: float = 1.0
    analysis_iterations: int = 20000
    optional_work_limit: int = 8
    create_limit: str = "30/minute;300/day"
    intent_limit: str = "10/second;300/minute"
    max_events: int = 2000
    game_cache_mb: int = 256
    unstarted_days: float = 7.0
    allowed_origins: tuple[str, ...] = ()
    account_limit: str = "10/minute;100/day"
    sign_in_failures: str = "5/minute;30/hour"
    new_place_failures: str = "20/minute;100/hour"
    password_queue: int = 8
    hello_limit: str = "10/second;120/minute"
    offer_limit: str = "6/hour;20/day"
    sockets_per_client: int = 64
    chat_limit: str = "12/minute;300/day"
    puzzle_limit: str = "12/minute;500/day"
    check_states: bool = True
