"""The engine protocol: a line protocol over stdin/stdout, in the spirit of UCI.

``quiltmaker engine`` speaks it (:func:`quiltmaker.engine.server.serve`),
and :class:`quiltmaker.engine.client.EnginePlayer` drives any program that
speaks it, so bots can play ours and ours can play them. This module holds
what both sides share: the constants, the errors and the reading of a
``position`` command. One command a line; the engine answers with the lines shown:

====================================================  ===========================================
client                                                engine
====================================================  ===========================================
``protocol``                                          ``id name ...``, ``id version ...``,
                                                      ``option ...`` lines, then ``protocolok``
``isready``                                           ``readyok`` at once, even during a search
``newgame``                                           (forgets its search tree)
``setoption name <name> value <value>``               (``Level`` or an MCTS option)
``position start [seed S] [circle a,b,..] [first P]   (sets the position; ``moves`` plays moves
[variant V] [moves M ...]``                           from it, in the move notation)
``position text <8 fields> [moves M ...]``
``go [time S] [movetime MS] [iterations N]            ``info iterations N winprob P margin M
[infinite]``                                          best MOVE`` lines, then ``bestmove MOVE``
``stop``                                              ends a search: ``bestmove MOVE``
``quit``                                              exits
====================================================  ===========================================

``winprob`` and ``margin`` are for the player to move, calibrated
(:mod:`quiltmaker.ai.calibration`); an ``info`` line that
ends with ``exact`` comes from the endgame solver. Anything malformed gets
one line ``error <reason>`` and changes nothing; the engine keeps running.
Blank lines are ignored, as in UCI.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.components import DEFAULT_VARIANT
from ..core.errors import QuiltmakerError
from ..core.position import Position

PROTOCOL_VERSION = 1
"""The protocol's version, sent in the handshake (``protocol 1``)."""
DEFAULT_MOVE_TIME = 1.0
"""Seconds a move when ``go`` names no limit."""
HANDSHAKE_TIMEOUT = 60.0
"""A first start may compile the search core."""
ANSWER_GRACE = 10.0
"""Seconds an engine may overrun its move time before we give up."""


class ProtocolError(QuiltmakerError):
    """A malformed command, or an engine that broke the protocol."""


def parse_position(words: Sequence[str]) -> Position:
    """The position of a ``position`` command's arguments.

    Raises:
        QuiltmakerError: Malformed arguments, an invalid position or an illegal move.
    """
    moves: list[str] = []
    if "moves" in words:
        split = list(words).index("moves")
        words, moves = words[:split], list(words[split + 1 :])
    if not words:
        raise ProtocolError("position needs 'start' or 'text'")
    if words[0] == "text":
        if len(words) != 9:
            raise ProtocolError("position text needs the 8 fields of a position's text")
        position = Position.from_text(" ".join(words[1:]))
    elif words[0] == "start":
        options = _pairs(words[1:], {"seed", "circle", "first", "variant"})
        try:
            seed = int(options["seed"]) if "seed" in options else None
            circle = [int(p) for p in options["circle"].split(",")] if "circle" in options else None
            first = int(options["first"]) if "first" in options else None
        except ValueError:
            raise ProtocolError("seed, circle and first take integers") from None
        if seed is None and circle is None:
            raise ProtocolError("position start needs a seed or a circle")
        position = Position.initial(seed, circle=circle, first_player=first, variant=options.get("variant", DEFAULT_VARIANT))
    else:
        raise ProtocolError(f"position {words[0]!r}: expected 'start' or 'text'")
    for number, text in enumerate(moves, 1):
        try:
            position = position.play(text)
        except QuiltmakerError as error:
            raise ProtocolError(f"move {number} ({text}): {error}") from None
    return position


def _pairs(words: Sequence[str], allowed: set[str]) -> dict[str, str]:
    if len(words) % 2:
        raise ProtocolError(f"expected pairs of a name and a value, got {' '.join(words)!r}")
    pairs = dict(zip(words[::2], words[1::2]))
    unknown = set(pairs) - allowed
    if unknown:
        raise ProtocolError(f"unknown {', '.join(sorted(unknown))}: expected {', '.join(sorted(allowed))}")
    return pairs
