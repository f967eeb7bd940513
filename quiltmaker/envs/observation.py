"""One observation encoding shared by every environment adapter.

A position is seen from one player's side ("own" is that player, "opponent"
the other) as a flat ``float32`` vector of :data:`OBSERVATION_SIZE` values:
first :data:`PLANE_COUNT` planes of 9x9 (the two quilts and the shapes on
offer), then :data:`FEATURE_COUNT` features (time track, buttons, income,
the offer and the whole circle). :data:`LAYOUT` names every block; the table
in ``docs/environments.md`` gives each index and its scale. Every value lies
in ``[0, OBSERVATION_HIGH]``, elementwise.

NumPy only: this module imports no environment library, so any framework
(or none) can use it.

Examples:
    >>> from quiltmaker import Position
    >>> start = Position.initial(seed=1)
    >>> vector = encode(start, start.to_move)
    >>> vector.shape, vector.dtype, int(action_mask(start).sum())
    ((864,), dtype('float32'), 449)
    >>> float(vector[LAYOUT["buttons"]][0] * BUTTONS_SCALE)
    5.0
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.components import BOARD_SIZE, INCOME_UP_TO, LAST_SPACE, PATCH_COUNT, PATCHES, SQUARES, TIME_TRACKS
from ..core.moves import ACTION_COUNT
from ..core.position import NO_BONUS, Position

FloatArray = npt.NDArray[np.float32]
"""A float32 array: an observation, or a batch of them."""
MaskArray = npt.NDArray[np.int8]
"""An int8 array of 0 and 1: the legal-action mask (OpenSpiel and PettingZoo take int8)."""

OFFER_SIZE = 3
"""Patches on offer: the next three of the circle."""
TRACK_SPACES = LAST_SPACE + 1
"""Spaces of the time track, 0..53."""
INCOME_SPACES = INCOME_UP_TO[LAST_SPACE]
"""How many button spaces (where income is paid) the time track has."""
MAX_SPECIALS = max(len(track.special_spaces) for track in TIME_TRACKS.values())
"""The most special patches a time track holds (either printing)."""
TOTAL_INCOME = sum(p.income for p in PATCHES)
"""The buttons printed on all patches together: the most income a quilt can have."""

# Scales: a feature is the raw count divided by its scale, so most values
# fall in [0, 1] and none exceeds OBSERVATION_HIGH.
BUTTONS_SCALE = 100.0
"""A player's buttons are divided by this in the features."""
INCOME_SCALE = 10.0
"""A player's income is divided by this."""
COST_SCALE = 10.0
"""A patch's price is divided by this."""
TIME_SCALE = 6.0
"""A patch's time is divided by this."""
PATCH_INCOME_SCALE = 3.0
"""A patch's printed buttons are divided by this."""
SIZE_SCALE = 8.0
"""A patch's squares are divided by this."""
# Buttons only grow by advancing (one per space, 53 at most) and by income
# (at most all patches' income on each of the 9 income spaces).
MAX_BUTTONS = 5 + LAST_SPACE + TOTAL_INCOME * INCOME_SPACES
"""The most buttons a player can hold: the start's 5, one a space advanced, and every patch's income at every button space."""

PLANE_NAMES: tuple[str, ...] = ("own_quilt", "opponent_quilt", "offer_shape_0", "offer_shape_1", "offer_shape_2")
"""The 9x9 planes, in order: covered squares of each quilt, then each offered patch as printed, top-left."""
PLANE_COUNT = len(PLANE_NAMES)
"""How many 9x9 planes the observation begins with (PLANE_NAMES)."""

OFFER_FIELDS: tuple[str, ...] = ("present", "cost", "time", "income", "size", "affordable")
"""The features of each patch on offer, in order."""
CIRCLE_FIELDS: tuple[str, ...] = ("present", "cost", "time", "income", "size")
"""The features of each patch of the circle, in circle order after the offer."""

# (name, length, upper bound of each value) of the feature blocks, in order.
_FEATURE_BLOCKS: tuple[tuple[str, int, float], ...] = (
    ("time", 2, 1.0),
    ("own_track", TRACK_SPACES, 1.0),
    ("opponent_track", TRACK_SPACES, 1.0),
    ("special_track", TRACK_SPACES, 1.0),
    ("income_left", 2, 1.0),
    ("buttons", 2, MAX_BUTTONS / BUTTONS_SCALE),
    ("income", 2, TOTAL_INCOME / INCOME_SCALE),
    ("empty_squares", 2, 1.0),
    ("bonus", 2, 1.0),
    ("to_move", 1, 1.0),
    ("on_top", 1, 1.0),
    ("pending", 1, float(MAX_SPECIALS)),
    ("offer", OFFER_SIZE * len(OFFER_FIELDS), 0.0),  # bounds set per field below
    ("offer_ids", OFFER_SIZE * PATCH_COUNT, 1.0),
    ("circle", PATCH_COUNT * len(CIRCLE_FIELDS), 0.0),
)


def _build_layout() -> tuple[dict[str, slice], int]:
    layout: dict[str, slice] = {}
    offset = 0
    for name in PLANE_NAMES:
        layout[name] = slice(offset, offset + SQUARES)
        offset += SQUARES
    layout["planes"] = slice(0, offset)
    features_start = offset
    for name, length, _ in _FEATURE_BLOCKS:
        layout[name] = slice(offset, offset + length)
        offset += length
    layout["features"] = slice(features_start, offset)
    return layout, offset


LAYOUT: dict[str, slice] = _build_layout()[0]
"""Each block's name (and ``planes``, ``features``) and its slice of the vector."""
OBSERVATION_SIZE: int = LAYOUT["features"].stop
"""The length of an observation vector."""
FEATURE_COUNT = OBSERVATION_SIZE - PLANE_COUNT * SQUARES
"""How many numbers follow the planes in the observation."""


def _patch_fields(patch_id: int) -> tuple[float, float, float, float]:
    patch = PATCHES[patch_id]
    return patch.cost / COST_SCALE, patch.time / TIME_SCALE, patch.income / PATCH_INCOME_SCALE, patch.size / SIZE_SCALE


_FIELD_HIGH = tuple(max(values) for values in zip(*(_patch_fields(p) for p in range(PATCH_COUNT))))


def _build_high() -> FloatArray:
    high = np.zeros(OBSERVATION_SIZE, np.float32)
    high[LAYOUT["planes"]] = 1.0
    for name, _, bound in _FEATURE_BLOCKS:
        high[LAYOUT[name]] = bound
    offer = high[LAYOUT["offer"]].reshape(OFFER_SIZE, len(OFFER_FIELDS))
    offer[:, 0] = offer[:, 5] = 1.0
    offer[:, 1:5] = _FIELD_HIGH
    circle = high[LAYOUT["circle"]].reshape(PATCH_COUNT, len(CIRCLE_FIELDS))
    circle[:, 0] = 1.0
    circle[:, 1:5] = _FIELD_HIGH
    high.setflags(write=False)
    return high


OBSERVATION_HIGH = _build_high()
"""The largest value each index can take (the smallest is 0); read-only."""


def _build_shape_planes() -> FloatArray:
    planes = np.zeros((PATCH_COUNT, BOARD_SIZE, BOARD_SIZE), np.float32)
    for patch in PATCHES:
        for row, col in patch.orientations[0].cells:
            planes[patch.id, row, col] = 1.0
    return planes


_SHAPE_PLANES = _build_shape_planes()
_PATCH_FIELDS = np.array([_patch_fields(p) for p in range(PATCH_COUNT)], np.float32)
_QUILT_BYTES = (SQUARES + 7) // 8


def quilt_plane(quilt: int) -> FloatArray:
    """The 81 squares of a quilt bitboard as 0/1 in reading order (row-major)."""
    bits = np.unpackbits(np.frombuffer(quilt.to_bytes(_QUILT_BYTES, "little"), np.uint8), bitorder="little")
    return bits[:SQUARES].astype(np.float32)


def encode(position: Position, player: int) -> FloatArray:
    """Encode ``position`` as seen by ``player`` (0 or 1) into a new vector.

    Args:
        position: Any position, finished or not.
        player: The seat whose point of view the "own" blocks take.

    Returns:
        A fresh ``float32`` array of :data:`OBSERVATION_SIZE` values laid out as :data:`LAYOUT`.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, not {player!r}")
    other = 1 - player
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    out[LAYOUT["own_quilt"]] = quilt_plane(position.quilts[player])
    out[LAYOUT["opponent_quilt"]] = quilt_plane(position.quilts[other])
    offered = position.circle[:OFFER_SIZE]
    for k, patch in enumerate(offered):
        out[LAYOUT[f"offer_shape_{k}"]] = _SHAPE_PLANES[patch].ravel()

    times = position.times
    out[LAYOUT["time"]] = (times[player] / LAST_SPACE, times[other] / LAST_SPACE)
    out[LAYOUT["own_track"].start + times[player]] = 1.0
    out[LAYOUT["opponent_track"].start + times[other]] = 1.0
    specials = LAYOUT["special_track"].start
    for space in range(TRACK_SPACES):
        if position.specials >> space & 1:
            out[specials + space] = 1.0
    out[LAYOUT["income_left"]] = [(INCOME_SPACES - INCOME_UP_TO[times[p]]) / INCOME_SPACES for p in (player, other)]
    out[LAYOUT["buttons"]] = [position.buttons[p] / BUTTONS_SCALE for p in (player, other)]
    out[LAYOUT["income"]] = [position.income[p] / INCOME_SCALE for p in (player, other)]
    out[LAYOUT["empty_squares"]] = [position.empty_squares(p) / SQUARES for p in (player, other)]
    if position.bonus != NO_BONUS:
        out[LAYOUT["bonus"].start + (0 if position.bonus == player else 1)] = 1.0
    out[LAYOUT["to_move"]] = float(position.to_move == player)
    out[LAYOUT["on_top"]] = float(position.on_top == player)
    # Pending special patches belong to the player on top; the other sees 0.
    out[LAYOUT["pending"]] = float(position.pending if position.on_top == player else 0)

    offer = out[LAYOUT["offer"]].reshape(OFFER_SIZE, len(OFFER_FIELDS))
    offer_ids = out[LAYOUT["offer_ids"]].reshape(OFFER_SIZE, PATCH_COUNT)
    for k, patch in enumerate(offered):
        offer[k, 0] = 1.0
        offer[k, 1:5] = _PATCH_FIELDS[patch]
        offer[k, 5] = float(PATCHES[patch].cost <= position.buttons[player])
        offer_ids[k, patch] = 1.0
    circle = out[LAYOUT["circle"]].reshape(PATCH_COUNT, len(CIRCLE_FIELDS))
    if position.circle:
        slots = len(position.circle)
        circle[:slots, 0] = 1.0
        circle[:slots, 1:] = _PATCH_FIELDS[list(position.circle)]
    return out


def split(observation: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Views of an encoded vector as ``(planes, features)``: shapes ``(5, 9, 9)`` and ``(FEATURE_COUNT,)``.

    >>> planes, features = split(np.zeros(OBSERVATION_SIZE, np.float32))
    >>> planes.shape, features.shape
    ((5, 9, 9), (459,))
    """
    planes = observation[..., LAYOUT["planes"]].reshape(*observation.shape[:-1], PLANE_COUNT, BOARD_SIZE, BOARD_SIZE)
    return planes, observation[..., LAYOUT["features"]]


def action_mask(position: Position) -> MaskArray:
    """The legal actions of the player to move as ``ACTION_COUNT`` int8 flags (all 0 once the game is over)."""
    mask = np.zeros(ACTION_COUNT, np.int8)
    mask[[move.action for move in position.legal_moves()]] = 1
    return mask


def legal_actions(position: Position) -> list[int]:
    """The legal action indices, ascending."""
    return sorted(move.action for move in position.legal_moves())


def outcome(position: Position, player: int) -> dict[str, Any]:
    """What a finished game meant for ``player``: its reward, and the scores, margin, winner and tie-break for an ``info`` dict.

    The reward is +1 for a win and -1 for a loss; Patchwork has no draws,
    since equal scores go to whoever reached the last space first.
    """
    winner = position.winner
    if winner is None:
        raise ValueError("the game is not over")
    own, opponent = position.score(player), position.score(1 - player)
    return {
        "reward": 1.0 if winner == player else -1.0,
        "winner": winner,
        "scores": [own, opponent],
        "margin": own - opponent,
        "tie_break": position.decided_by_tiebreak,
    }


def render_text(position: Position) -> str:
    """A plain-text picture of the position: both quilts, the track, buttons and the offer."""
    lines = []
    for player in (0, 1):
        marker = " <- to move" if position.to_move == player else ""
        lines.append(
            f"player {player}: space {position.times[player]}, {position.buttons[player]} buttons, "
            f"income {position.income[player]}, score {position.score(player)}{marker}"
        )
    quilts = [quilt_plane(q).reshape(BOARD_SIZE, BOARD_SIZE) for q in position.quilts]
    for row in range(BOARD_SIZE):
        lines.append("   ".join("".join("#" if q[row, col] else "." for col in range(BOARD_SIZE)) for q in quilts))
    offer = ", ".join(
        f"{p} ({PATCHES[p].cost} buttons, {PATCHES[p].time} time, +{PATCHES[p].income})" for p in position.circle[:OFFER_SIZE]
    )
    lines.append(f"offer: {offer or 'none'}")
    if position.pending:
        lines.append(f"player {position.on_top} must place {position.pending} special patch(es)")
    return "\n".join(lines)
