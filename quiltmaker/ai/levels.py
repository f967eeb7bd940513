"""Named levels for people, and the specifications of this package's AI players.

A specification is a level name (``beginner`` .. ``max``), ``random``,
``greedy``, or ``mcts`` with a limit and options, e.g. ``mcts:time=0.5``,
``mcts:iterations=2000,playouts=random,placements=0``. An outside engine
(``engine:COMMAND``) is a player too, built by :mod:`quiltmaker.specs`,
which sits above both the AI and the engine protocol.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..i18n import N_
from ..core.errors import InvalidPlayerError
from .players import PLAYER_TYPES, Limit, Player
from .mcts import MCTSPlayer, SearchConfig


@dataclass(frozen=True)
class Level:
    """A named strength: a player and its limit.

    Attributes:
        name: The level's name.
        spec: The player specification it stands for.
        description: What it is, for people choosing an opponent.
    """

    name: str
    spec: str
    description: str

    @property
    def seconds(self) -> float | None:
        """The thinking time its moves are given (None: bounded by playouts instead, a fraction of a second)."""
        _kind, _, options = self.spec.partition(":")
        for option in options.split(","):
            key, _, value = option.partition("=")
            if key == "time":
                return float(value)
        return None


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        # Each says how strong it is (the measured ladder, docs/strength.md) and how long it thinks;
        # marked for the catalogues, worded in the reader's language where it is shown.
        Level("beginner", "greedy", N_("for your first games: takes the patch that looks best right now and never plans ahead; answers at once")),
        Level("casual", "mcts:iterations=300", N_("looks a few moves ahead and beats the beginner in 96 games of 100; answers at once")),
        Level("strong", "mcts:iterations=3000", N_("plans further and beats casual in 9 games of 10; thinks for a moment")),
        Level("expert", "mcts:time=1", N_("hard to beat: wins 94 games of 100 against strong; thinks for a second a move")),
        Level("max", "mcts:time=5", N_("the strongest: beats expert in about 7 games of 10; thinks for five seconds a move")),
    )
}
"""The named levels, weakest first."""

_CONFIG_FIELDS = {"exploration": float, "placements": int, "special_squares": int, "playouts": str, "epsilon": float, "margin_weight": float}
_LIMIT_FIELDS = {"time": float, "iterations": int}


def ai_player_from_spec(spec: str, seed: int | None = None, move_time: float | None = None) -> Player:
    """Build a player of this package's AI from its specification (see the module docstring; any player,
    outside engines too: :func:`quiltmaker.specs.player_from_spec`).

    ``move_time`` is the time per move of a bare ``mcts`` player; levels keep their own limits.

    Raises:
        InvalidPlayerError: The specification is not understood.
    """
    text = spec.strip()
    if text == "mcts" and move_time is not None:
        text = f"mcts:time={move_time}"
    if text in LEVELS:
        player = ai_player_from_spec(LEVELS[text].spec, seed)
        player.name = text
        return player
    if text in PLAYER_TYPES:
        return PLAYER_TYPES[text](seed)
    kind, _, options = text.partition(":")
    if kind != "mcts":
        known = ", ".join([*LEVELS, *PLAYER_TYPES, "mcts:..."])
        raise InvalidPlayerError(f"unknown player {spec!r}: expected one of {known}")
    limit: dict[str, float | int] = {}
    config: dict[str, float | int | str] = {}
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        kinds = _LIMIT_FIELDS if key in _LIMIT_FIELDS else _CONFIG_FIELDS
        if key not in kinds:
            raise InvalidPlayerError(f"unknown MCTS option {key!r}: expected {', '.join([*_LIMIT_FIELDS, *_CONFIG_FIELDS])}")
        try:
            parsed = kinds[key](value)
        except ValueError:
            raise InvalidPlayerError(f"MCTS option {key}={value!r} is not a {kinds[key].__name__}") from None
        (limit if key in _LIMIT_FIELDS else config)[key] = parsed
    if not limit:
        raise InvalidPlayerError(f"{spec!r}: an MCTS player needs time=SECONDS or iterations=N")
    if any(not 0 < value < math.inf for value in limit.values()):
        raise InvalidPlayerError(f"{spec!r}: limits must be positive and finite")
    if config.get("playouts", "greedy") not in ("greedy", "random"):
        raise InvalidPlayerError(f"{spec!r}: playouts must be 'greedy' or 'random'")
    return MCTSPlayer(Limit(**limit), SearchConfig(**config), seed=seed, name=text)  # type: ignore[arg-type]
