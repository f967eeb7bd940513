"""Player specifications, the one text that names any player: this package's AI, or an outside engine.

A specification is one of :mod:`quiltmaker.ai.levels`'s (a level name,
``random``, ``greedy``, ``mcts:...``) or ``engine:COMMAND``, any program
that speaks the engine protocol (docs/engine-protocol.md). This module sits
above both :mod:`quiltmaker.ai` and :mod:`quiltmaker.engine`, so that
neither imports the other's players: the engine serves the AI, and the AI
knows nothing of engines.
"""

from __future__ import annotations

import shlex

from .ai.levels import ai_player_from_spec
from .ai.players import Player
from .core.errors import InvalidPlayerError


def player_from_spec(spec: str, seed: int | None = None, move_time: float | None = None) -> Player:
    """Build a player from a specification (see the module docstring).

    ``move_time`` is the time per move of an outside engine (``engine:COMMAND``)
    and of a bare ``mcts`` player; levels keep their own limits.

    Raises:
        InvalidPlayerError: The specification is not understood, or its engine cannot be started.
    """
    text = spec.strip()
    if not text.startswith("engine:"):
        return ai_player_from_spec(spec, seed, move_time)
    from .engine.client import EnginePlayer
    from .engine.protocol import DEFAULT_MOVE_TIME

    try:
        command = shlex.split(text[len("engine:") :])
    except ValueError as error:
        raise InvalidPlayerError(f"{spec!r}: {error}") from None
    if not command:
        raise InvalidPlayerError("engine: needs the command that starts the engine")
    try:
        return EnginePlayer(command, move_time or DEFAULT_MOVE_TIME)
    except OSError as error:
        raise InvalidPlayerError(f"cannot start engine {command[0]!r}: {error}") from None
