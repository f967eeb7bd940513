"""What the full-screen game needs beyond the rules: the ghost patch, forecasts, turn reasons.

Nothing here imports Textual, so the logic of moving, turning and mirroring
a patch before it is placed can be checked on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core.components import BOARD_SIZE, FLIPPED, PATCHES, TURNED, Cell
from ..core.moves import Move
from ..i18n import _, ngettext
from ..ai.players import forecast as forecast  # re-exported: the screen and its tests read it here
from ..core.position import Position

YOU = "you"
"""The record's name for the person who plays the AI at this keyboard: the screen words them in the second person."""


def shown_names(players: Sequence[str]) -> list[str]:
    """The players' names as the terminal shows them: the person (:data:`YOU` in the record) as "you" in the language in use."""
    return [_("you") if name == YOU else name for name in players]


@dataclass(frozen=True)
class Ghost:
    """A patch shown on a quilt before it is placed: what Enter would play.

    Attributes:
        patch: The patch id, or ``None`` for a special 1x1 patch.
        transform: Orientation name, ``R0``..``R3`` (turned clockwise) or
            ``F0``..``F3`` (mirrored, then turned); always ``R0`` for a special patch.
        row: Top row of the shape's bounding box, 0..8.
        col: Left column of the shape's bounding box, 0..8.
    """

    patch: int | None
    transform: str = "R0"
    row: int = 0
    col: int = 0

    @property
    def shape(self) -> tuple[Cell, ...]:
        """The covered squares relative to the top-left of the bounding box."""
        if self.patch is None:
            return ((0, 0),)
        patch = PATCHES[self.patch]
        return patch.orientations[patch.transform_to_orientation[self.transform]].cells

    @property
    def height(self) -> int:
        """Rows of the bounding box."""
        return max(r for r, _ in self.shape) + 1

    @property
    def width(self) -> int:
        """Columns of the bounding box."""
        return max(c for _, c in self.shape) + 1

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The quilt squares the ghost covers."""
        return tuple((self.row + r, self.col + c) for r, c in self.shape)

    @property
    def move(self) -> Move:
        """The move that places this ghost."""
        if self.patch is None:
            return Move.special((self.row, self.col))
        return Move.place(self.patch, self.transform, self.row, self.col)

    def clamped(self) -> Ghost:
        """The same ghost pushed back inside the quilt where it sticks out."""
        row = min(max(self.row, 0), BOARD_SIZE - self.height)
        col = min(max(self.col, 0), BOARD_SIZE - self.width)
        return replace(self, row=row, col=col)

    def shifted(self, rows: int, cols: int) -> Ghost:
        """The ghost moved by ``rows`` and ``cols`` squares, stopping at the edges."""
        return replace(self, row=self.row + rows, col=self.col + cols).clamped()

    def rotated(self) -> Ghost:
        """The ghost turned a quarter clockwise (``R1`` to ``R2``, ``F3`` to ``F0``), top-left kept."""
        if self.patch is None:
            return self
        return replace(self, transform=TURNED[self.transform]).clamped()

    def flipped(self) -> Ghost:
        """The ghost mirrored left to right, as it lies now, top-left kept (``Rk`` becomes ``F(-k)`` and back)."""
        if self.patch is None:
            return self
        return replace(self, transform=FLIPPED[self.transform]).clamped()


def first_fit(position: Position, player: int, patch: int | None) -> Ghost:
    """Where a newly chosen patch appears: the first place it fits on ``player``'s quilt.

    Reading order, printed orientation first, so that Enter at once plays a
    legal placement when there is one; a patch that fits nowhere starts on a1.
    """
    quilt = position.quilts[player]
    if patch is None:
        for row in range(BOARD_SIZE):
            for col in range(BOARD_SIZE):
                if not quilt >> (row * BOARD_SIZE + col) & 1:
                    return Ghost(None, "R0", row, col)
        return Ghost(None)
    for orientation in PATCHES[patch].orientations:
        for row in range(BOARD_SIZE - orientation.height + 1):
            for col in range(BOARD_SIZE - orientation.width + 1):
                if not orientation.mask_at(row, col) & quilt:
                    return Ghost(patch, orientation.transform, row, col)
    return Ghost(patch)


def ghost_for_move(move: Move) -> Ghost | None:
    """The ghost that shows ``move`` (a purchase or a special patch), or ``None`` for advancing."""
    if not move.cells:
        return None
    row = min(r for r, _ in move.cells)
    col = min(c for _, c in move.cells)
    orientation = move.orientation
    return Ghost(move.patch, orientation or "R0", row, col)



def advance_preview(position: Position) -> tuple[int, int] | None:
    """Where advancing takes the player to move and the buttons it earns (income included).

    ``None`` when advancing is not allowed now (game over, or a special patch waits).
    """
    player = position.to_move
    advance = Move.advance()
    if player is None or position.why_illegal(advance) is not None:
        return None
    after = position.play_unchecked(advance)
    return after.times[player], after.buttons[player] - position.buttons[player]


def turn_reason(position: Position, names: list[str]) -> str:
    """Whose turn it is and why, in a sentence: to the person (named "you" in the record) in the second person.

    The rules decide it (:attr:`Position.turn_cause`).
    """
    cause = position.turn_cause
    if cause.player is None:
        return _("The game is over.")
    name = names[cause.player]
    you = name == YOU
    if cause.kind == "special":
        count = cause.pending
        if you:
            return ngettext(
                "You must place the special 1x1 patch just earned ({n} to place).",
                "You must place the special 1x1 patches just earned ({n} to place).",
                count,
            ).format(n=count)
        return ngettext(
            "{name} must place the special 1x1 patch just earned ({n} to place).",
            "{name} must place the special 1x1 patches just earned ({n} to place).",
            count,
        ).format(name=name, n=count)
    if cause.kind == "behind":
        if you:
            return _("You are behind on the time track ({space} < {other}), so you move.").format(space=cause.space, other=cause.other_space)
        return _("{name} is behind on the time track ({space} < {other}), so {name} moves.").format(
            name=name, space=cause.space, other=cause.other_space
        )
    if cause.kind == "start":
        return _("You start the game.") if you else _("{name} starts the game.").format(name=name)
    if you:
        return _("You are on top on space {space}: the last to arrive acts first.").format(space=cause.space)
    return _("{name} is on top on space {space}: the last to arrive acts first.").format(name=name, space=cause.space)
