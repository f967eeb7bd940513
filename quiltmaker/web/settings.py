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
        ai_workers: Worker processes for AI moves, hints and analysis.
        hint_seconds: Search time of a hint.
        analysis_iterations: Playouts per position when analysing a finished game. Fewer make the
            evaluation graph swing from noise alone (docs/web.md, "Decisions").
        optional_work_limit: Hints and analyses allowed to wait for or use the AI workers at
            once. Beyond it a hint is refused as ``busy`` and an analysis waits for a later
            request, so that they cannot pile up ahead of the AI's moves.
    """

    database_url: str
    broker: Broker | None = None
    ai_workers: int = 1
    hint_seconds: float = 1.0
    analysis_iterations: int = 20000
    optional_work_limit: int = 8
