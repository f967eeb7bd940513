"""A mutable game: a starting position, the moves played since, and undo."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .components import DEFAULT_VARIANT
from .errors import QuiltmakerError
from .moves import Move
from .position import Position


ENDINGS = ("resignation", "time", "claim", "abort")
"""The ways a game ends before it is played out (see :class:`Ending`)."""


@dataclass(frozen=True)
class Ending:
    """How a game ended before it was played out (one played out ends by its score, and has no ending).

    Attributes:
        by: "resignation" (``loser`` resigned), "time" (``loser``'s clock ran out), "claim" (the opponent claimed
            the win of ``loser``, past their days for a move in a correspondence game) or "abort" (called off
            before it really began: no result).
        loser: The seat that resigned or ran out of time; None for an abort.
    """

    by: str
    loser: int | None

    def __post_init__(self) -> None:
        if self.by not in ENDINGS:
            raise QuiltmakerError(f"unknown ending {self.by!r}: expected one of {', '.join(ENDINGS)}")
        if (self.loser is None) != (self.by == "abort") or self.loser not in (None, 0, 1):
            raise QuiltmakerError("an abort has no loser, and every other ending has one: seat 0 or 1")

    @property
    def winner(self) -> int | None:
        """The other seat than the loser's; None for an abort."""
        return None if self.loser is None else 1 - self.loser


class Game:
    """The history of one game, for play, undo, replay and records.

    >>> game = Game.new(circle=[*range(1, 33), 0], first_player=0)
    >>> game.play("A"); game.play("1R0@a1")
    >>> [m.text() for m in game.moves], game.position.times
    (['A', '1R0@a1'], (1, 3))
    >>> game.undo().text(), game.position.times
    ('1R0@a1', (1, 0))

    Attributes:
        start: The starting position.
        moves: The moves played, in order.
        players: A name for each seat, written into records.
        ending: How it ended before it was played out (a resignation, say; see :meth:`end`), or None.
    """

    def __init__(self, start: Position, players: Sequence[str] = ("player 0", "player 1")) -> None:
        self.start = start
        self.moves: list[Move] = []
        self.players = list(players)
        self.ending: Ending | None = None
        self._positions = [start]

    @classmethod
    def new(
        cls,
        seed: int | None = None,
        *,
        circle: Sequence[int] | None = None,
        first_player: int | None = None,
        variant: str = DEFAULT_VARIANT,
        players: Sequence[str] = ("player 0", "player 1"),
    ) -> Game:
        """A game from a new setup; see :meth:`Position.initial`."""
        return cls(Position.initial(seed, circle=circle, first_player=first_player, variant=variant), players)

    @property
    def position(self) -> Position:
        """The current position."""
        return self._positions[-1]

    @property
    def positions(self) -> tuple[Position, ...]:
        """Every position of the game so far, the start first."""
        return tuple(self._positions)

    @property
    def movers(self) -> list[int]:
        """The player who made each move."""
        return [p.to_move for p in self._positions[:-1]]  # type: ignore[misc]

    def legal_moves(self) -> list[Move]:
        """The legal moves of the current position."""
        return self.position.legal_moves()

    def play(self, move: Move | str) -> None:
        """Play a move (or its text) after checking it.

        Raises:
            InvalidMoveError: Text that is not a move.
            IllegalMoveError: The rules forbid it; the game is unchanged.
        """
        if self.ending is not None:
            raise QuiltmakerError(f"the game has ended ({self.ending.by})")
        if isinstance(move, str):
            move = Move.from_text(move)
        self._positions.append(self.position.play(move))
        self.moves.append(move)

    def end(self, ending: Ending) -> None:
        """End the game before it is played out: by resignation, time, claim or abort.

        Raises:
            QuiltmakerError: The game is over already (played out, or ended before).
        """
        if self.position.is_over or self.ending is not None:
            raise QuiltmakerError("the game is over already")
        self.ending = ending

    def undo(self) -> Move:
        """Take back the last move and return it.

        Raises:
            QuiltmakerError: No move has been played.
        """
        if not self.moves:
            raise QuiltmakerError("there is no move to undo")
        if self.ending is not None:
            raise QuiltmakerError(f"the game has ended ({self.ending.by})")
        self._positions.pop()
        return self.moves.pop()

    def turn_start(self, player: int) -> int | None:
        """How many moves :meth:`undo_turn` would take back for ``player``; ``None`` if they have not moved.

        A turn begins where the player is to move with no special patch
        pending: a purchase and the special patches it earned are one turn,
        and the opponent's moves since are taken back with it.
        """
        for count in range(1, len(self.moves) + 1):
            before = self._positions[-count - 1]
            if before.to_move == player and not before.pending:
                return count
        return None

    def undo_turn(self, player: int) -> list[Move]:
        """Take back moves to the start of ``player``'s last turn; return them, the last played first.

        >>> game = Game.new(circle=[*range(1, 33), 0], first_player=0)
        >>> game.play("A"); game.play("A")   # player 0 advances, then player 1 passes them
        >>> [m.text() for m in game.undo_turn(0)], len(game.moves)
        (['A', 'A'], 0)

        Raises:
            QuiltmakerError: The player has no move to take back.
        """
        count = self.turn_start(player)
        if count is None:
            raise QuiltmakerError(f"player {player} has no move to undo")
        return [self.undo() for _ in range(count)]

    def __repr__(self) -> str:
        return f"<Game {len(self.moves)} moves, position {self.position.text()!r}>"

    def _repr_svg_(self) -> str:
        """The game's current position drawn as SVG (what Jupyter shows), with the players' names and the move count."""
        from .svg import position_svg

        moves = len(self.moves)
        title = f"after {moves} move{'' if moves == 1 else 's'}" + (" (game over)" if self.position.is_over else "")
        return position_svg(self.position, title, (self.players[0], self.players[1]))
