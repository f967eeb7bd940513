"""One family of errors, all ``ValueError``, each naming what was wrong."""


class QuiltmakerError(ValueError):
    """Base class of every error quiltmaker raises for bad input."""


class InvalidMoveError(QuiltmakerError):
    """A move that does not exist: malformed text, an unknown patch, a shape that does not fit the patch."""


class IllegalMoveError(QuiltmakerError):
    """A well-formed move that the rules forbid in this position; the message names the rule."""


class InvalidPositionError(QuiltmakerError):
    """Position text that is malformed or describes an impossible position."""


class InvalidRecordError(QuiltmakerError):
    """A game record that is malformed, or whose moves do not replay."""


class InvalidSeedError(QuiltmakerError):
    """A seed that is not an integer from 0 to 2**64 - 1 (:mod:`quiltmaker.core.seeds`)."""


class InvalidPlayerError(QuiltmakerError):
    """A player specification (``expert``, ``mcts:iterations=2000``, ``engine:./bot``) that names no player."""


# Users catch and read these as ``quiltmaker.IllegalMoveError`` and so on, and tracebacks and
# pickles name them so (the package re-exports them), whatever module defines them.
_ERRORS = (
    QuiltmakerError,
    InvalidMoveError,
    IllegalMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidSeedError,
    InvalidPlayerError,
)
for _error in _ERRORS:
    _error.__module__ = "quiltmaker"
