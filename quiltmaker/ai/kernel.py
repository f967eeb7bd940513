"""The rules compiled with numba, for search: a state is a small int64 array.

This is the second copy of the rules, and it exists only for speed; the
differential tests hold it equal to :class:`quiltmaker.position.Position`
move by move. Layout of a state (indices below):

* the circle is a fixed *ring* of up to 33 patch ids (kept outside the state,
  constant for a whole search) with ``REMAINING``, a bit mask of the ring
  slots still holding a patch, and ``HEAD``, the slot the next offer starts
  at. Buying the patch in slot ``k`` clears bit ``k`` and moves ``HEAD`` to
  ``k + 1``, which is exactly the circle rotation of the rules;
* a quilt is 81 bits, square ``9 * row + col``, split over two words:
  ``QUILT*_LO`` holds bits 0..63 and ``QUILT*_HI`` bits 64..80;
* moves are the action indices of :mod:`quiltmaker.moves`.

Legal placements of one orientation are found all at once: the quilt shifted
right by each cell's offset and OR-ed together marks every blocked anchor,
so the free anchors are one AND with the orientation's in-bounds anchors.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..components import BONUS_AREAS, INCOME_UP_TO, LAST_SPACE, PATCHES, SQUARES, TIME_TRACKS
from ..moves import ACTIONS, BUY, FIRST_BUY_ACTION, PLACEMENTS
from ..position import NO_BONUS, Position

REMAINING, HEAD, TIME0, TIME1, BUTTONS0, BUTTONS1, INCOME0, INCOME1 = range(8)
QUILT0_LO, QUILT0_HI, QUILT1_LO, QUILT1_HI, ON_TOP, SPECIALS, BONUS, PENDING = range(8, 16)
STATE_SIZE = 16
RING_SIZE = len(PATCHES)
_RING_MASK = (1 << RING_SIZE) - 1
MAX_MOVES = 1 + 3 * 8 * 81  # advance + three patches, eight orientations, every anchor
_WORD = (1 << 64) - 1

# Compiled code is cached on disk next to this file, so only the first start compiles.
_jit = njit(cache=True, nogil=True)
# Small helpers are inlined in numba's own IR: a call that passes arrays costs
# atomic reference counting, which would dominate functions this short.
_inline = njit(cache=True, nogil=True, inline="always")


@intrinsic
def popcount(typingctx, value):  # type: ignore[no-untyped-def]
    """Number of set bits of a uint64 (LLVM's ctpop)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(function, args)

    return signature, codegen


@intrinsic
def trailing_zeros(typingctx, value):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of a non-zero uint64 (LLVM's cttz)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        function = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(function, [args[0], ir.Constant(ir.IntType(1), 0)])

    return signature, codegen


# Tables, built once from the same data as the Python engine ---------------------


def _split(mask: int) -> tuple[int, int]:
    return mask & _WORD, mask >> 64


def _as_int64(word: int) -> int:
    return word - (1 << 64) if word >> 63 else word


def _build_tables() -> dict[str, np.ndarray]:
    orientation_count = sum(len(p.orientations) for p in PATCHES)
    offsets = np.zeros((orientation_count, 8), dtype=np.uint64)
    cell_count = np.zeros(orientation_count, dtype=np.int64)
    valid = np.zeros((orientation_count, 2), dtype=np.uint64)
    base_action = np.zeros(orientation_count, dtype=np.int64)
    row_stride = np.zeros(orientation_count, dtype=np.int64)
    patch_first = np.zeros(len(PATCHES) + 1, dtype=np.int64)
    action = FIRST_BUY_ACTION
    index = 0
    for patch in PATCHES:
        patch_first[patch.id] = index
        for orientation in patch.orientations:
            for i, (r, c) in enumerate(orientation.cells):
                offsets[index, i] = r * 9 + c
            cell_count[index] = len(orientation.cells)
            anchors = 0
            for r in range(10 - orientation.height):
                for c in range(10 - orientation.width):
                    anchors |= 1 << (r * 9 + c)
            valid[index] = _split(anchors)
            base_action[index] = action
            row_stride[index] = 10 - orientation.width
            action += (10 - orientation.height) * (10 - orientation.width)
            index += 1
    patch_first[len(PATCHES)] = index
    patch_actions = np.array([FIRST_BUY_ACTION + sum(len(m) for m in PLACEMENTS[:p]) for p in range(len(PATCHES) + 1)], dtype=np.int64)
    assert action == len(ACTIONS)
    action_patch = np.full(len(ACTIONS), -1, dtype=np.int64)
    action_mask = np.zeros((len(ACTIONS), 2), dtype=np.uint64)
    for i, move in enumerate(ACTIONS):
        action_mask[i] = _split(move.mask)
        if move.kind == BUY:
            action_patch[i] = move.patch
    return {
        "offsets": offsets,
        "cell_count": cell_count,
        "valid": valid,
        "base_action": base_action,
        "row_stride": row_stride,
        "patch_first": patch_first,
        "patch_actions": patch_actions,
        "action_patch": action_patch,
        "action_mask": action_mask,
        "cost": np.array([p.cost for p in PATCHES], dtype=np.int64),
        "time": np.array([p.time for p in PATCHES], dtype=np.int64),
        "income": np.array([p.income for p in PATCHES], dtype=np.int64),
        "income_up_to": np.array(INCOME_UP_TO, dtype=np.int64),
        "bonus_areas": np.array([_split(a) for a in BONUS_AREAS], dtype=np.uint64),
    }


_T = _build_tables()
REJECTION_TRIES = 4
OFFSETS = _T["offsets"]
CELL_COUNT = _T["cell_count"]
VALID = _T["valid"]
BASE_ACTION = _T["base_action"]
ROW_STRIDE = _T["row_stride"]
PATCH_FIRST = _T["patch_first"]
PATCH_ACTIONS = _T["patch_actions"]  # purchases of patch p are actions PATCH_ACTIONS[p] .. PATCH_ACTIONS[p + 1] - 1
ACTION_PATCH = _T["action_patch"]
ACTION_MASK = _T["action_mask"]
COST = _T["cost"]
TIME = _T["time"]
INCOME = _T["income"]
INCOME_UP_TO_ARRAY = _T["income_up_to"]
BONUS_AREA_WORDS = _T["bonus_areas"]


# Conversion from and to the Python engine ---------------------------------------


def from_position(position: Position) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(state, ring)`` for a position; the ring is the circle, next offered first."""
    ring = np.full(RING_SIZE, -1, dtype=np.int64)
    ring[: len(position.circle)] = position.circle
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[REMAINING] = (1 << len(position.circle)) - 1
    state[HEAD] = 0
    for player in (0, 1):
        state[TIME0 + player] = position.times[player]
        state[BUTTONS0 + player] = position.buttons[player]
        state[INCOME0 + player] = position.income[player]
        low, high = _split(position.quilts[player])
        state[QUILT0_LO + 2 * player] = _as_int64(low)
        state[QUILT0_HI + 2 * player] = high
    state[ON_TOP] = position.on_top
    state[SPECIALS] = position.specials
    state[BONUS] = position.bonus
    state[PENDING] = position.pending
    return state, ring


def to_position(state: np.ndarray, ring: np.ndarray, variant: str = "revised") -> Position:
    """The :class:`Position` of a compiled state."""
    remaining = int(state[REMAINING])
    head = int(state[HEAD])
    circle = tuple(int(ring[(head + i) % RING_SIZE]) for i in range(RING_SIZE) if remaining >> ((head + i) % RING_SIZE) & 1)
    quilts = tuple((int(state[QUILT0_LO + 2 * p]) & _WORD) | (int(state[QUILT0_HI + 2 * p]) << 64) for p in (0, 1))
    return Position(
        TIME_TRACKS[variant].name,
        circle,
        (int(state[TIME0]), int(state[TIME1])),
        (int(state[BUTTONS0]), int(state[BUTTONS1])),
        (int(state[INCOME0]), int(state[INCOME1])),
        quilts,  # type: ignore[arg-type]
        int(state[ON_TOP]),
        int(state[SPECIALS]),
        int(state[BONUS]),
        int(state[PENDING]),
    )


# The compiled rules ---------------------------------------------------------------


@_inline
def to_move(state: np.ndarray) -> int:
    """The player to act, or -1 when the game is over."""
    if state[PENDING] > 0:
        return state[ON_TOP]
    t0 = state[TIME0]
    t1 = state[TIME1]
    if t0 < t1:
        return 0
    if t1 < t0:
        return 1
    if t0 == LAST_SPACE:
        return -1
    return state[ON_TOP]


@_inline
def offered_slots(state: np.ndarray) -> tuple[int, tuple[int, int, int]]:
    """The number of patches on offer (0..3) and their ring slots, next offered first."""
    remaining = np.uint64(state[REMAINING])
    head = np.uint64(state[HEAD])
    # Rotate the ring so that the head is bit 0; the offer is then the three lowest set bits.
    rotated = ((remaining >> head) | (remaining << (np.uint64(RING_SIZE) - head))) & np.uint64(_RING_MASK)
    # Three scalars, not a list: a list here would cost a heap allocation per call.
    first = _next_slot(rotated, head)
    rotated &= rotated - np.uint64(1)
    second = _next_slot(rotated, head)
    rotated &= rotated - np.uint64(1)
    third = _next_slot(rotated, head)
    count = (first >= 0) + (second >= 0) + (third >= 0)
    return count, (first, second, third)


@_inline
def _next_slot(rotated: np.uint64, head: np.uint64) -> int:
    if not rotated:
        return -1
    slot = np.int64(trailing_zeros(rotated) + head)
    return slot - RING_SIZE if slot >= RING_SIZE else slot


@_inline
def free_anchors(orientation: int, low: np.uint64, high: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Anchors (bit ``9 * row + col`` of the top-left) where the orientation fits the quilt."""
    blocked_low = np.uint64(0)
    blocked_high = np.uint64(0)
    for i in range(CELL_COUNT[orientation]):
        shift = OFFSETS[orientation, i]
        if shift == 0:
            blocked_low |= low
            blocked_high |= high
        else:
            blocked_low |= (low >> shift) | (high << (np.uint64(64) - shift))
            blocked_high |= high >> shift
    return ~blocked_low & VALID[orientation, 0], ~blocked_high & VALID[orientation, 1]


@_jit
def legal_actions(state: np.ndarray, ring: np.ndarray, out: np.ndarray) -> int:
    """Fill ``out`` (length :data:`MAX_MOVES`) with the legal action indices; return their number."""
    player = to_move(state)
    if player < 0:
        return 0
    low = np.uint64(state[QUILT0_LO + 2 * player])
    high = np.uint64(state[QUILT0_HI + 2 * player])
    count = 0
    if state[PENDING] > 0:
        for square in range(SQUARES):
            if square < 64:
                covered = (low >> np.uint64(square)) & np.uint64(1)
            else:
                covered = (high >> np.uint64(square - 64)) & np.uint64(1)
            if not covered:
                out[count] = 1 + square
                count += 1
        return count
    out[0] = 0
    count = 1
    offered, slots = offered_slots(state)
    for k in range(offered):
        patch = ring[slots[k]]
        if COST[patch] > state[BUTTONS0 + player]:
            continue
        for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
            free_low, free_high = free_anchors(orientation, low, high)
            while free_low:
                anchor = trailing_zeros(free_low)
                free_low &= free_low - np.uint64(1)
                out[count] = _anchor_action(orientation, anchor)
                count += 1
            while free_high:
                anchor = trailing_zeros(free_high) + np.uint64(64)
                free_high &= free_high - np.uint64(1)
                out[count] = _anchor_action(orientation, anchor)
                count += 1
    return count


@_inline
def _anchor_action(orientation: int, anchor: np.uint64) -> int:
    row = np.int64(anchor) // 9
    col = np.int64(anchor) - 9 * row
    return BASE_ACTION[orientation] + row * ROW_STRIDE[orientation] + col


@_inline
def _has_bonus_area(low: np.uint64, high: np.uint64) -> bool:
    if popcount(low) + popcount(high) < 49:
        return False
    for area in range(BONUS_AREA_WORDS.shape[0]):
        area_low = BONUS_AREA_WORDS[area, 0]
        area_high = BONUS_AREA_WORDS[area, 1]
        if (low & area_low) == area_low and (high & area_high) == area_high:
            return True
    return False


@_jit
def apply_action(state: np.ndarray, ring: np.ndarray, action: int) -> None:
    """Play a legal action on ``state`` in place (unchecked, like ``Position.play_unchecked``)."""
    player = to_move(state)
    low = np.uint64(state[QUILT0_LO + 2 * player]) | ACTION_MASK[action, 0]
    high = np.uint64(state[QUILT0_HI + 2 * player]) | ACTION_MASK[action, 1]
    if action == 0:
        start = state[TIME0 + player]
        end = min(state[TIME1 - player] + 1, LAST_SPACE)
        state[BUTTONS0 + player] += end - start
    else:
        state[QUILT0_LO + 2 * player] = np.int64(low)
        state[QUILT0_HI + 2 * player] = np.int64(high)
        if state[BONUS] == NO_BONUS and _has_bonus_area(low, high):
            state[BONUS] = player
        if action < FIRST_BUY_ACTION:
            state[PENDING] -= 1
            return
        patch = ACTION_PATCH[action]
        offered, slots = offered_slots(state)
        for k in range(offered):
            if ring[slots[k]] == patch:
                state[REMAINING] &= ~(np.int64(1) << slots[k])
                state[HEAD] = (slots[k] + 1) % RING_SIZE
                break
        state[BUTTONS0 + player] -= COST[patch]
        state[INCOME0 + player] += INCOME[patch]
        start = state[TIME0 + player]
        end = min(start + TIME[patch], LAST_SPACE)
    state[TIME0 + player] = end
    state[ON_TOP] = player
    state[BUTTONS0 + player] += (INCOME_UP_TO_ARRAY[end] - INCOME_UP_TO_ARRAY[start]) * state[INCOME0 + player]
    crossed = state[SPECIALS] & ((np.int64(1) << (end + 1)) - (np.int64(1) << (start + 1)))
    if crossed:
        state[SPECIALS] ^= crossed
        empty = SQUARES - np.int64(popcount(low) + popcount(high))
        state[PENDING] = min(np.int64(popcount(np.uint64(crossed))), empty)


@_inline
def score(state: np.ndarray, player: int) -> int:
    """Buttons, plus 7 with the bonus, minus 2 per empty square."""
    covered = np.int64(popcount(np.uint64(state[QUILT0_LO + 2 * player])) + popcount(np.uint64(state[QUILT0_HI + 2 * player])))
    bonus = 7 if state[BONUS] == player else 0
    return state[BUTTONS0 + player] + bonus - 2 * (SQUARES - covered)


@_jit
def winner(state: np.ndarray) -> int:
    """The winner of a finished game: higher score, then whoever reached 53 first."""
    s0 = score(state, 0)
    s1 = score(state, 1)
    if s0 != s1:
        return 0 if s0 > s1 else 1
    return 1 - state[ON_TOP]


# Random numbers: splitmix64 on a one-word state, so playouts are reproducible ------


@_inline
def next_random(rng: np.ndarray) -> np.uint64:
    """The next 64 random bits from ``rng`` (a uint64 array of length 1)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_inline
def random_below(rng: np.ndarray, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` for ``0 < bound < 2**32``."""
    return np.int64(((next_random(rng) >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@_inline
def _select_bit(word: np.uint64, rank: int) -> np.uint64:
    """Index of the set bit of ``word`` with ``rank`` set bits below it."""
    for _ in range(rank):
        word &= word - np.uint64(1)
    return trailing_zeros(word)


@_jit
def random_action(state: np.ndarray, ring: np.ndarray, rng: np.ndarray, free: np.ndarray, chosen: np.ndarray) -> int:
    """A uniformly random legal action, or -1 when the game is over.

    Counts the free anchors of every orientation on offer (popcounts of the
    masks from :func:`free_anchors`) and picks one, without listing the moves.
    ``free`` (uint64, at least 24x2) and ``chosen`` (int64, at least 24) are scratch space.
    """
    player = to_move(state)
    if player < 0:
        return -1
    low = np.uint64(state[QUILT0_LO + 2 * player])
    high = np.uint64(state[QUILT0_HI + 2 * player])
    if state[PENDING] > 0:
        empty_low = ~low
        empty_high = ~high & np.uint64((1 << (SQUARES - 64)) - 1)
        rank = random_below(rng, SQUARES - np.int64(popcount(low) + popcount(high)))
        below = np.int64(popcount(empty_low))
        if rank < below:
            return 1 + np.int64(_select_bit(empty_low, rank))
        return 65 + np.int64(_select_bit(empty_high, rank - below))
    # First try rejection sampling: a uniform pick among advancing and every
    # in-bounds placement of the affordable patches, kept if it fits the quilt.
    # An accepted pick is uniform over the legal moves, so mixing a few tries
    # with the exact count below stays exactly uniform, and early in a game,
    # when most placements fit, it saves the count altogether.
    offered, slots = offered_slots(state)
    candidates = 1
    for k in range(offered):
        patch = ring[slots[k]]
        if COST[patch] <= state[BUTTONS0 + player]:
            candidates += PATCH_ACTIONS[patch + 1] - PATCH_ACTIONS[patch]
    for _ in range(REJECTION_TRIES):
        pick = random_below(rng, candidates)
        if pick == 0:
            return 0
        pick -= 1
        for k in range(offered):
            patch = ring[slots[k]]
            if COST[patch] > state[BUTTONS0 + player]:
                continue
            size = PATCH_ACTIONS[patch + 1] - PATCH_ACTIONS[patch]
            if pick < size:
                action = PATCH_ACTIONS[patch] + pick
                if not (ACTION_MASK[action, 0] & low) and not (ACTION_MASK[action, 1] & high):
                    return action
                break
            pick -= size
    total = 1
    entries = 0
    for k in range(offered):
        patch = ring[slots[k]]
        if COST[patch] > state[BUTTONS0 + player]:
            continue
        for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
            free_low, free_high = free_anchors(orientation, low, high)
            if free_low | free_high:
                free[entries, 0] = free_low
                free[entries, 1] = free_high
                chosen[entries] = orientation
                entries += 1
                total += np.int64(popcount(free_low) + popcount(free_high))
    rank = random_below(rng, total)
    if rank == 0:
        return 0
    rank -= 1
    for entry in range(entries):
        in_low = np.int64(popcount(free[entry, 0]))
        if rank < in_low:
            return _anchor_action(chosen[entry], _select_bit(free[entry, 0], rank))
        rank -= in_low
        in_high = np.int64(popcount(free[entry, 1]))
        if rank < in_high:
            return _anchor_action(chosen[entry], _select_bit(free[entry, 1], rank) + np.uint64(64))
        rank -= in_high
    return -1  # not reached: the ranks above cover every legal action


@_jit
def random_playout(state: np.ndarray, ring: np.ndarray, rng: np.ndarray) -> int:
    """Play uniformly random legal moves on ``state`` until the game ends; return the number played."""
    free = np.empty((24, 2), dtype=np.uint64)
    chosen = np.empty(24, dtype=np.int64)
    played = 0
    while True:
        action = random_action(state, ring, rng, free, chosen)
        if action < 0:
            return played
        apply_action(state, ring, action)
        played += 1


@_jit
def new_game_state(rng: np.ndarray, special_spaces: np.ndarray, state: np.ndarray, ring: np.ndarray) -> None:
    """A random setup in place: the circle shuffled with patch 0 last, a random first player."""
    for i in range(RING_SIZE - 1):
        ring[i] = i + 1
    for i in range(RING_SIZE - 2, 0, -1):  # Fisher-Yates over the 32 patches other than 0
        j = random_below(rng, i + 1)
        ring[i], ring[j] = ring[j], ring[i]
    ring[RING_SIZE - 1] = 0
    state[:] = 0
    state[REMAINING] = (np.int64(1) << RING_SIZE) - 1
    state[BUTTONS0] = 5
    state[BUTTONS1] = 5
    state[ON_TOP] = random_below(rng, 2)
    state[BONUS] = NO_BONUS
    for space in special_spaces:
        state[SPECIALS] |= np.int64(1) << space


@_jit
def play_random_games(games: int, seed: int, special_spaces: np.ndarray) -> int:
    """Play ``games`` uniform-random games from random setups; return the moves played (for benchmarks)."""
    rng = np.array([seed], dtype=np.uint64)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    ring = np.zeros(RING_SIZE, dtype=np.int64)
    played = 0
    for _ in range(games):
        new_game_state(rng, special_spaces, state, ring)
        played += random_playout(state, ring, rng)
    return played
