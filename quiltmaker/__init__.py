"""quiltmaker: an exact Patchwork rules engine, notation, records and players.

>>> from quiltmaker import Game
>>> game = Game.new(seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)
>>> len(game.moves)
1
"""

from .core.components import DEFAULT_VARIANT, PATCHES, TIME_TRACKS, Patch, TimeTrack
from .core import record
from .core.errors import IllegalMoveError, InvalidMoveError, InvalidPlayerError, InvalidPositionError, InvalidRecordError, InvalidSeedError, QuiltmakerError
from .core.game import Game
from .core.moves import ACTION_COUNT, Move
from .core.position import MoveEffect, Position, TurnCause

__all__ = [
    "ACTION_COUNT",
    "DEFAULT_VARIANT",
    "PATCHES",
    "TIME_TRACKS",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPlayerError",
    "InvalidPositionError",
    "InvalidRecordError",
    "InvalidSeedError",
    "Move",
    "MoveEffect",
    "Patch",
    "Position",
    "QuiltmakerError",
    "TimeTrack",
    "TurnCause",
    "record",
]
__version__ = "0.1.0"
