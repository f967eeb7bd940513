"""The game's components as data: patches, their orientations, the time track.

Everything here is derived once, at import, from the packaged copy of
``patchwork-components.json``; nothing about a patch is typed twice. The
quilt is a bitboard: square ``(row, col)`` is bit ``row * 9 + col``, rows and
columns counting 0..8 from the top-left.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

BOARD_SIZE = 9
"""A quilt is BOARD_SIZE x BOARD_SIZE squares."""
SQUARES = BOARD_SIZE * BOARD_SIZE
"""Squares of a quilt: 81."""
FULL_QUILT = (1 << SQUARES) - 1
"""The bitboard of a quilt with every square covered."""
LAST_SPACE = 53
"""The time track's last space: the game ends when both tokens reach it."""
OFFER_SIZE = 3
"""The patches that may be bought: the next three of the circle."""


def load_component_data() -> dict[str, Any]:
    """Return the packaged component data, exactly as the JSON file holds it."""
    text = resources.files("quiltmaker").joinpath("data/patchwork-components.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


DATA = load_component_data()
"""The component data file, as loaded (quiltmaker components prints it)."""
STARTING_BUTTONS: int = DATA["starting_buttons"]
"""Buttons each player starts with."""
BONUS_POINTS: int = DATA["bonus_points"]
"""Points of the bonus tile."""
BONUS_SIZE: int = DATA["bonus_square_size"]
"""The side of the square area that earns the bonus: 7."""
EMPTY_SQUARE_PENALTY: int = DATA["empty_square_penalty"]
"""Points lost at the end for each empty square of a quilt."""
STARTING_PATCH_ID: int = DATA["starting_patch_id"]
"""The patch the neutral token starts next to: the circle's last, so the first patch on offer follows it."""
assert DATA["board_size"] == BOARD_SIZE and DATA["time_track"]["last_space"] == LAST_SPACE

Cell = tuple[int, int]
"""A square of a quilt as ``(row, col)``, both from 0."""

TRANSFORMS: tuple[str, ...] = ("R0", "R1", "R2", "R3", "F0", "F1", "F2", "F3")
"""The eight symmetries of a shape, in the order used to name an orientation: R<k> turns the printed shape k quarter turns clockwise; F<k> mirrors it left-right first, then turns it k quarter turns clockwise."""


def square_bit(row: int, col: int) -> int:
    """Return the bitboard of the single square ``(row, col)``."""
    return 1 << (row * BOARD_SIZE + col)


def cells_to_mask(cells: Any) -> int:
    """Return the bitboard covering ``cells``, a collection of ``(row, col)`` pairs."""
    mask = 0
    for row, col in cells:
        mask |= square_bit(row, col)
    return mask


def set_bits(mask: int) -> list[int]:
    """The numbers of a mask's set bits, lowest first (a bitboard's squares, a track's spaces)."""
    found = []
    while mask:
        lowest = mask & -mask
        found.append(lowest.bit_length() - 1)
        mask ^= lowest
    return found


def mask_to_cells(mask: int) -> tuple[Cell, ...]:
    """Return the ``(row, col)`` squares of a bitboard, in reading order."""
    return tuple(divmod(square, BOARD_SIZE) for square in set_bits(mask))


def _normalise(cells: list[Cell]) -> tuple[Cell, ...]:
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return tuple(sorted((r - top, c - left) for r, c in cells))


def transform_cells(cells: tuple[Cell, ...], transform: str) -> tuple[Cell, ...]:
    """Apply one of :data:`TRANSFORMS` to a shape and move it to the top-left."""
    result = list(cells)
    if transform[0] == "F":
        width = max(c for _, c in result) + 1
        result = [(r, width - 1 - c) for r, c in result]
    for _ in range(int(transform[1])):
        height = max(r for r, _ in result) + 1
        result = [(c, height - 1 - r) for r, c in result]  # clockwise quarter turn
    return _normalise(result)


def _successors() -> tuple[dict[str, str], dict[str, str]]:
    """Where a quarter turn clockwise and a left-right mirror take each transform, read off a shape with no symmetry."""
    asymmetric = ((0, 1), (0, 2), (1, 0), (1, 1), (2, 1))  # the F pentomino: all eight transforms differ
    named = {transform_cells(asymmetric, name): name for name in TRANSFORMS}
    turned = {name: named[transform_cells(transform_cells(asymmetric, name), "R1")] for name in TRANSFORMS}
    flipped = {name: named[transform_cells(transform_cells(asymmetric, name), "F0")] for name in TRANSFORMS}
    return turned, flipped


# The one home of turning and flipping: every interface moves between orientations with these.
TURNED, FLIPPED = _successors()


@dataclass(frozen=True)
class Orientation:
    """One distinct way a patch can lie: the squares it covers at the top-left.

    Attributes:
        index: Position among the patch's distinct orientations.
        transform: The first name in :data:`TRANSFORMS` that gives this shape.
        cells: Covered squares, relative to the top-left of the bounding box.
        height: Rows of the bounding box.
        width: Columns of the bounding box.
        turned: Index of the orientation a quarter turn clockwise from this one.
        flipped: Index of the orientation this one mirrored left to right.
    """

    index: int
    transform: str
    cells: tuple[Cell, ...]
    height: int
    width: int
    turned: int = -1
    flipped: int = -1

    def mask_at(self, row: int, col: int) -> int:
        """Return the bitboard of this orientation with its top-left at ``(row, col)``."""
        return cells_to_mask((row + r, col + c) for r, c in self.cells)


@dataclass(frozen=True)
class Patch:
    """A regular patch: its printed shape and its cost, time and income.

    Attributes:
        id: Its number, 0 to 32, as the component data names it.
        cost: Its price in buttons.
        time: The spaces its owner's token moves when it is bought.
        income: The buttons printed on it, paid at every button space crossed.
        shape: The printed shape, a row a string, ``#`` for a covered square.
        orientations: Its distinct orientations (turns and mirror images), the printed one first.
        transform_to_orientation: Each of the eight transforms (R0..F3) to the index of the orientation it gives.
    """

    id: int
    cost: int
    time: int
    income: int
    shape: tuple[str, ...]
    orientations: tuple[Orientation, ...]
    transform_to_orientation: dict[str, int]

    @property
    def size(self) -> int:
        """Number of squares the patch covers."""
        return len(self.orientations[0].cells)

    def __hash__(self) -> int:
        return self.id


def _build_patch(entry: dict[str, Any]) -> Patch:
    printed = tuple((r, c) for r, row in enumerate(entry["shape"]) for c, ch in enumerate(row) if ch == "#")
    orientations: list[Orientation] = []
    by_cells: dict[tuple[Cell, ...], int] = {}
    transform_to_orientation: dict[str, int] = {}
    for name in TRANSFORMS:
        cells = transform_cells(printed, name)
        if cells not in by_cells:
            by_cells[cells] = len(orientations)
            height = max(r for r, _ in cells) + 1
            width = max(c for _, c in cells) + 1
            orientations.append(Orientation(len(orientations), name, cells, height, width))
        transform_to_orientation[name] = by_cells[cells]
    orientations = [
        replace(
            o,
            turned=transform_to_orientation[TURNED[o.transform]],
            flipped=transform_to_orientation[FLIPPED[o.transform]],
        )
        for o in orientations
    ]
    return Patch(
        id=entry["id"],
        cost=entry["cost"],
        time=entry["time"],
        income=entry["income"],
        shape=tuple(entry["shape"]),
        orientations=tuple(orientations),
        transform_to_orientation=transform_to_orientation,
    )


PATCHES: tuple[Patch, ...] = tuple(_build_patch(entry) for entry in sorted(DATA["patches"], key=lambda e: e["id"]))
"""Every regular patch, by id."""
assert [p.id for p in PATCHES] == list(range(len(PATCHES)))
PATCH_COUNT = len(PATCHES)
"""How many regular patches there are: 33."""


@dataclass(frozen=True)
class TimeTrack:
    """One printing of the time track.

    Attributes:
        name: ``"revised"`` (the default) or ``"original"`` (the first printing).
        income_spaces: Spaces that pay button income when moved onto or past.
        special_spaces: Spaces holding a special 1x1 patch at the start.
    """

    name: str
    income_spaces: tuple[int, ...]
    special_spaces: tuple[int, ...]

    @property
    def special_mask(self) -> int:
        """The special-patch spaces as a bit mask over the track."""
        mask = 0
        for space in self.special_spaces:
            mask |= 1 << space
        return mask


_INCOME_SPACES = tuple(DATA["time_track"]["income_spaces"])
TIME_TRACKS: dict[str, TimeTrack] = {
    "revised": TimeTrack("revised", _INCOME_SPACES, tuple(DATA["time_track_variants"]["revised"]["special_patch_spaces"])),
    "original": TimeTrack(
        "original", _INCOME_SPACES, tuple(DATA["time_track_variants"]["original_printing"]["special_patch_spaces"])
    ),
}
"""Both printings of the time track, by name."""
DEFAULT_VARIANT = "revised"
"""The printing used when none is named: the revised one."""
VARIANT_ALIASES = {"original_printing": "original"}
"""The data file's own name for the first printing is accepted as an alias."""


def time_track(variant: str) -> TimeTrack:
    """Return the time track of a printing by name.

    Raises:
        ValueError: The name is not a known printing.
    """
    name = VARIANT_ALIASES.get(variant, variant)
    try:
        return TIME_TRACKS[name]
    except KeyError:
        raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(TIME_TRACKS)}") from None


INCOME_UP_TO: tuple[int, ...] = tuple(sum(1 for s in _INCOME_SPACES if s <= space) for space in range(LAST_SPACE + 1))
"""Income spaces at or before each space: a move from a to b crosses INCOME_UP_TO[b] - INCOME_UP_TO[a] of them, each paying once."""

BONUS_AREAS: tuple[int, ...] = tuple(
    cells_to_mask((top + r, left + c) for r in range(BONUS_SIZE) for c in range(BONUS_SIZE))
    for top in range(BOARD_SIZE - BONUS_SIZE + 1)
    for left in range(BOARD_SIZE - BONUS_SIZE + 1)
)
"""The 7x7 areas of a quilt, any of which fully covered earns the bonus."""
