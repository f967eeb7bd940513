"""Moves in their two lossless forms: a readable move with a text notation, and a fixed action index.

Text notation (case-insensitive on input; :meth:`Move.text` writes the canonical form):

* ``A``: advance and receive buttons.
* ``12R1@e5``: buy patch 12, lay it in orientation ``R1`` with the top-left of
  its bounding box on square ``e5``. Orientations are named by
  :data:`~quiltmaker.core.components.TRANSFORMS`: ``R<k>`` turns the printed shape
  ``k`` quarter turns clockwise, ``F<k>`` mirrors it left-right and then turns
  it. Several names can give the same squares; the canonical text uses the
  first. ``12@e5`` means ``12R0@e5``, and ``12@e5,f5,f6`` names the covered
  squares directly.
* ``S@e5``: place a special 1x1 patch on ``e5``.

Squares are a column letter ``a``..``i`` (left to right) and a row digit
``1``..``9`` (top to bottom): ``a1`` is row 0, column 0 of a record.

Action index (size :data:`ACTION_COUNT`): ``0`` advances; ``1 + row * 9 + col``
places a special patch on ``(row, col)``; from :data:`FIRST_BUY_ACTION` on,
one index per distinct placement, ordered by patch id, then orientation index,
then anchor row, then anchor column.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .components import (
    BOARD_SIZE,
    PATCHES,
    SQUARES,
    TRANSFORMS,
    Cell,
    _normalise,
    cells_to_mask,
    mask_to_cells,
    square_bit,
)
from .errors import InvalidMoveError

ADVANCE = "advance"
"""Move.kind of advancing."""
BUY = "buy"
"""Move.kind of buying a patch."""
SPECIAL = "special"
"""Move.kind of placing a special patch."""

COLUMNS = "abcdefghi"
"""The quilt's column letters, left to right: a square is named column then row (``e5``)."""


def square_name(row: int, col: int) -> str:
    """Return the name of square ``(row, col)``, e.g. ``(4, 4)`` is ``"e5"``."""
    return f"{COLUMNS[col]}{row + 1}"


def parse_square(text: str) -> Cell:
    """Return ``(row, col)`` for a square name such as ``"e5"``.

    Raises:
        InvalidMoveError: ``text`` is not a square of the 9x9 quilt.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a square must be text such as 'e5', not {type(text).__name__}")
    name = text.strip().lower()
    if len(name) != 2 or name[0] not in COLUMNS or name[1] not in "123456789":
        raise InvalidMoveError(f"{text!r} is not a square: expected a column a-i and a row 1-9, e.g. 'e5'")
    return int(name[1]) - 1, COLUMNS.index(name[0])


class Move(NamedTuple):
    """A move: advance, buy a patch onto given squares, or place a special patch.

    Every possible move exists once, built at import; the constructors below
    return those shared values, so moves compare and hash by value.

    >>> Move.from_text("12r1@A1") == Move.from_text("12R1@a1")
    True
    >>> Move.from_text("A").action, Move.from_text("S@e5").text()
    (0, 'S@e5')

    Attributes:
        kind: ADVANCE, BUY or SPECIAL.
        patch: The patch bought, or None.
        mask: The squares it covers, as a quilt bitboard (0 for advancing).
    """

    kind: str
    patch: int | None
    mask: int

    @classmethod
    def advance(cls) -> Move:
        """The advance move."""
        return ACTIONS[0]

    @classmethod
    def special(cls, cell: Cell) -> Move:
        """Placing a special patch on ``cell`` = ``(row, col)``."""
        row, col = _check_cell(cell)
        return ACTIONS[1 + row * BOARD_SIZE + col]

    @classmethod
    def buy(cls, patch: int, cells: object) -> Move:
        """Buying ``patch`` and covering exactly ``cells``, in any orientation.

        Raises:
            InvalidMoveError: No orientation of the patch covers exactly those squares.
        """
        if not isinstance(patch, int) or isinstance(patch, bool) or not 0 <= patch < len(PATCHES):
            raise InvalidMoveError(f"there is no patch {patch!r}: patch ids are 0..{len(PATCHES) - 1}")
        try:
            cell_list = [_check_cell(cell) for cell in cells]  # type: ignore[attr-defined]
        except TypeError:
            raise InvalidMoveError(f"cells must be a list of [row, col] pairs, not {cells!r}") from None
        move = _BUY_BY_MASK.get((patch, cells_to_mask(cell_list)))
        if move is None or len(set(cell_list)) != len(cell_list):
            names = ", ".join(square_name(r, c) for r, c in cell_list) or "no squares"
            raise InvalidMoveError(f"{names} is not a way to lay patch {patch} (shape {'/'.join(PATCHES[patch].shape)})")
        return move

    @classmethod
    def place(cls, patch: int, transform: str, row: int, col: int) -> Move:
        """Buying ``patch`` in orientation ``transform`` (e.g. ``"R1"``) with its top-left at ``(row, col)``.

        Raises:
            InvalidMoveError: Unknown patch or orientation, or the patch would leave the quilt.
        """
        if type(patch) is not int or not 0 <= patch < len(PATCHES):
            raise InvalidMoveError(f"there is no patch {patch!r}: patch ids are 0..{len(PATCHES) - 1}")
        if not isinstance(transform, str):
            raise InvalidMoveError(f"an orientation is a name such as 'R1', not {transform!r}")
        name = transform.upper()
        if name not in TRANSFORMS:
            raise InvalidMoveError(f"{transform!r} is not an orientation: expected one of {', '.join(TRANSFORMS)}")
        orientation = PATCHES[patch].orientations[PATCHES[patch].transform_to_orientation[name]]
        _check_cell((row, col))
        if row + orientation.height > BOARD_SIZE or col + orientation.width > BOARD_SIZE:
            raise InvalidMoveError(
                f"patch {patch} in orientation {name} is {orientation.height}x{orientation.width}: "
                f"with its top-left on {square_name(row, col)} it would leave the quilt"
            )
        return _BUY_BY_MASK[(patch, orientation.mask_at(row, col))]

    @classmethod
    def from_action(cls, action: int) -> Move:
        """The move with this action index.

        Raises:
            InvalidMoveError: ``action`` is not in ``range(ACTION_COUNT)``.
        """
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < ACTION_COUNT:
            raise InvalidMoveError(f"{action!r} is not an action index: expected an integer 0..{ACTION_COUNT - 1}")
        return ACTIONS[action]

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse a move in the text notation of this module.

        Raises:
            InvalidMoveError: The text is not a move; the message says what was expected.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text, not {type(text).__name__}")
        known = _MOVE_OF_TEXT.get(text)  # a canonical text seen before: most of those read (a server's, a log's)
        if known is not None:
            return known
        source = text.strip()
        if source.upper() in ("A", "ADVANCE"):
            return ACTIONS[0]
        match = _SPECIAL_TEXT.fullmatch(source)
        if match:
            return cls.special(parse_square(match.group(1)))
        match = _BUY_TEXT.fullmatch(source)
        if not match:
            raise InvalidMoveError(
                f"{text!r} is not a move: expected 'A' (advance), a purchase such as '12R1@e5' "
                f"(patch, orientation R0-R3/F0-F3, top-left square) or a special patch such as 'S@e5'"
            )
        patch = int(match.group(1))
        transform = match.group(2)
        squares = match.group(3).split(",")
        if len(squares) > 1:
            if transform:
                raise InvalidMoveError(f"{text!r}: give an orientation and a top-left square, or the covered squares")
            return cls.buy(patch, [parse_square(s) for s in squares])
        row, col = parse_square(squares[0])
        return cls.place(patch, transform or "R0", row, col)

    @property
    def exists(self) -> bool:
        """Whether this is one of the game's moves (a hand-built ``Move(...)`` may not be)."""
        return self in _ACTION_OF

    @property
    def action(self) -> int:
        """The fixed action index of this move."""
        return _ACTION_OF[self]

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The squares this move covers, in reading order (none for advancing)."""
        cells = _CELLS_OF_MASK.get(self.mask)  # (a hand-built move's may not be there)
        return cells if cells is not None else mask_to_cells(self.mask)

    @property
    def orientation(self) -> str | None:
        """For a purchase, the canonical orientation name (e.g. ``"R1"``); else ``None``."""
        if self.patch is None:
            return None
        patch = PATCHES[self.patch]
        shape = _normalise(list(self.cells))
        return next(o.transform for o in patch.orientations if o.cells == shape)

    def text(self) -> str:
        """The canonical text of this move."""
        text = _TEXT_OF.get(self)
        if text is None:
            text = self._spelled()
            if self in _ACTION_OF:  # (a hand-built move that is none of the game's is spelled each time)
                _TEXT_OF[self] = text
                _MOVE_OF_TEXT[text] = self
        return text

    def _spelled(self) -> str:
        if self.kind == ADVANCE:
            return "A"
        top, left = _bounding_top_left(self.mask)
        if self.kind == SPECIAL:
            return f"S@{square_name(top, left)}"
        return f"{self.patch}{self.orientation}@{square_name(top, left)}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.from_text({self.text()!r})"


# Each of the game's moves' canonical text, and back, kept as each is first spelled: a state words every move of a
# game's list, and a server reads the texts its players send and its logs hold (a bounded set: the game's moves).
_TEXT_OF: dict[Move, str] = {}
_MOVE_OF_TEXT: dict[str, Move] = {}
_SPECIAL_TEXT = re.compile(r"[sS]@?([a-iA-I][1-9])")
_BUY_TEXT = re.compile(r"([0-9]{1,2})([rRfF][0-3])?@([a-iA-I][1-9](?:,[a-iA-I][1-9])*)")


def _check_cell(cell: object) -> Cell:
    if not isinstance(cell, (list, tuple)) or len(cell) != 2:
        raise InvalidMoveError(f"{cell!r} is not a square: expected [row, col]")
    row, col = cell
    if not isinstance(row, int) or not isinstance(col, int) or isinstance(row, bool) or isinstance(col, bool):
        raise InvalidMoveError(f"{cell!r} is not a square: row and column must be integers")
    if not (0 <= row < BOARD_SIZE and 0 <= col < BOARD_SIZE):
        raise InvalidMoveError(f"{cell!r} is not a square: rows and columns count 0..{BOARD_SIZE - 1}")
    return row, col


def _bounding_top_left(mask: int) -> Cell:
    cells = mask_to_cells(mask)
    return min(r for r, _ in cells), min(c for _, c in cells)


def _build_actions() -> tuple[list[Move], list[tuple[Move, ...]]]:
    actions = [Move(ADVANCE, None, 0)]
    actions.extend(Move(SPECIAL, None, 1 << square) for square in range(SQUARES))
    placements: list[tuple[Move, ...]] = []
    for patch in PATCHES:
        of_patch = []
        for orientation in patch.orientations:
            for row in range(BOARD_SIZE - orientation.height + 1):
                for col in range(BOARD_SIZE - orientation.width + 1):
                    of_patch.append(Move(BUY, patch.id, orientation.mask_at(row, col)))
        placements.append(tuple(of_patch))
        actions.extend(of_patch)
    return actions, placements


ACTIONS, PLACEMENTS = _build_actions()
"""ACTIONS[i] is the move with action index i; PLACEMENTS[p] are all purchases of patch p."""

ACTION_COUNT = len(ACTIONS)
"""The fixed number of action indices: advance, 81 special placements, then every placement of every patch."""
FIRST_BUY_ACTION = 1 + SQUARES
"""The action index of the first purchase (after advancing and the 81 special placements)."""
_ACTION_OF: dict[Move, int] = {move: index for index, move in enumerate(ACTIONS)}
# Every move's squares, worked out once: a game's views draw each quilt from its moves' squares again at every state.
_CELLS_OF_MASK: dict[int, tuple[Cell, ...]] = {m.mask: mask_to_cells(m.mask) for m in ACTIONS}
_BUY_BY_MASK: dict[tuple[int | None, int], Move] = {(m.patch, m.mask): m for m in ACTIONS if m.kind == BUY}
SPECIAL_MOVES: tuple[Move, ...] = tuple(ACTIONS[1 : 1 + SQUARES])
"""The 81 special-patch placements, square a1 first, row by row."""
assert len(_ACTION_OF) == ACTION_COUNT and square_bit(8, 8) == SPECIAL_MOVES[-1].mask
