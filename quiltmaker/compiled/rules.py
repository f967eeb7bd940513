"""The rules compiled with numba, for search: a state is a tuple of :data:`STATE_SIZE` int64.

This is the second copy of the rules, and it exists only for speed; the
differential tests hold it equal to :class:`quiltmaker.Position`
move by move. Layout of a state (indices below):

* the circle is a fixed *ring* of patch ids beside the state (one slot a
  patch, :data:`RING_SIZE` slots), constant for a whole search and packed
  :data:`SLOT_BITS` bits a slot, :data:`SLOTS_PER_WORD` slots a word, into
  :data:`RING_WORDS` int64 (:data:`EMPTY_SLOT` in unused slots): four words
  pass between functions more cheaply than a slot each, and a slot is read
  with shifts rather than a jump table. The state's ``REMAINING`` is a bit
  mask of the slots still holding a patch and ``HEAD`` the slot the next
  offer starts at. Buying the patch in slot ``k`` clears bit ``k`` and moves
  ``HEAD`` to ``k + 1``, which is exactly the circle rotation of the rules;
* a quilt is one bit a square, square ``BOARD_SIZE * row + col``, split
  over two words: ``QUILT*_LO`` holds squares 0..63 and ``QUILT*_HI`` the
  rest;
* moves are the action indices of :mod:`quiltmaker.core.moves`.

States and rings are tuples, and :func:`step` returns a new state, as
``Position.play_unchecked`` does. Tuples live in registers: passing numba
arrays between functions costs atomic reference counts, which cost more than
a whole move here.

Legal placements of one orientation are found all at once: the quilt shifted
right by each cell's offset and OR-ed together marks every blocked anchor,
so the free anchors are one AND with the orientation's in-bounds anchors.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..core.components import (
    BOARD_SIZE,
    BONUS_AREAS,
    BONUS_POINTS,
    BONUS_SIZE,
    DEFAULT_VARIANT,
    EMPTY_SQUARE_PENALTY,
    INCOME_UP_TO,
    LAST_SPACE,
    OFFER_SIZE,
    PATCHES,
    SQUARES,
    TIME_TRACKS,
    TRANSFORMS,
)
from ..core.moves import ACTIONS, ADVANCE, BUY, FIRST_BUY_ACTION, PLACEMENTS, SPECIAL_MOVES
from ..core.position import NO_BONUS, Position

REMAINING, HEAD, TIME0, TIME1, BUTTONS0, BUTTONS1, INCOME0, INCOME1 = range(8)
QUILT0_LO, QUILT0_HI, QUILT1_LO, QUILT1_HI, ON_TOP, SPECIALS, BONUS, PENDING = range(8, 16)
STATE_SIZE = 16
RING_SIZE = len(PATCHES)
SLOT_BITS = 6  # a slot holds a patch id or EMPTY_SLOT
SLOT_MASK = (1 << SLOT_BITS) - 1
SLOTS_PER_WORD = 10  # ten 6-bit slots fit a 64-bit word
RING_WORDS = -(-RING_SIZE // SLOTS_PER_WORD)
EMPTY_SLOT = SLOT_MASK  # no patch: larger than any patch id
RING_MASK = (1 << RING_SIZE) - 1
GAME_OVER = -1  # to_move's answer when nobody is to act
NO_ACTION = -1  # no move (the game is over)
NO_SLOT = -1  # no ring slot (the circle is empty)
NO_PATCH = -1  # the patch of an action that buys none
# The action table is the core's: advancing, then a special patch on each square in order, then the purchases.
ADVANCE_ACTION = next(index for index, move in enumerate(ACTIONS) if move.kind == ADVANCE)
FIRST_SPECIAL_ACTION = ACTIONS.index(SPECIAL_MOVES[0])
# Advancing, and every orientation of each patch on offer at every anchor: no position has more moves.
MAX_MOVES = 1 + OFFER_SIZE * len(TRANSFORMS) * SQUARES
MAX_CELLS = max(patch.size for patch in PATCHES)
BONUS_CELLS = BONUS_SIZE * BONUS_SIZE
WORD_BITS = 64
_WORD = (1 << WORD_BITS) - 1
assert RING_WORDS == 4 and len(PATCHES) <= EMPTY_SLOT, "ring_patch reads the ring as four words"
assert SQUARES <= 2 * WORD_BITS, "a quilt is two words"
assert SPECIAL_MOVES == tuple(ACTIONS[FIRST_SPECIAL_ACTION : FIRST_SPECIAL_ACTION + SQUARES]), "special actions go square by square"

# Compiled code is cached on disk next to this file, so only the first start compiles.
_jit = njit(cache=True, nogil=True)
# Small helpers are inlined in numba's own IR: a call that passes arrays costs
# atomic reference counting, which would dominate functions this short.
_inline = njit(cache=True, nogil=True, inline="always")


@intrinsic
def popcount(typingctx, value):
    """Number of set bits of a uint64 (LLVM's ctpop)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(function, args)

    return signature, codegen


@intrinsic
def trailing_zeros(typingctx, value):
    """Index of the lowest set bit of a non-zero uint64 (LLVM's cttz)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
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
    offsets = np.zeros((orientation_count, MAX_CELLS), dtype=np.uint64)
    cell_count = np.zeros(orientation_count, dtype=np.int64)
    valid = np.zeros((orientation_count, 2), dtype=np.uint64)
    anchor_action = np.full((orientation_count, SQUARES), -1, dtype=np.int16)
    patch_first = np.zeros(len(PATCHES) + 1, dtype=np.int64)
    action = FIRST_BUY_ACTION
    index = 0
    for patch in PATCHES:
        patch_first[patch.id] = index
        for orientation in patch.orientations:
            for i, (r, c) in enumerate(orientation.cells):
                offsets[index, i] = r * BOARD_SIZE + c
            cell_count[index] = len(orientation.cells)
            anchors = 0
            rows = BOARD_SIZE + 1 - orientation.height  # rows and columns the top-left can take
            cols = BOARD_SIZE + 1 - orientation.width
            for r in range(rows):
                for c in range(cols):
                    anchors |= 1 << (r * BOARD_SIZE + c)
                    anchor_action[index, r * BOARD_SIZE + c] = action + r * cols + c
            valid[index] = _split(anchors)
            action += rows * cols
            index += 1
    patch_first[len(PATCHES)] = index
    patch_actions = np.array([FIRST_BUY_ACTION + sum(len(m) for m in PLACEMENTS[:p]) for p in range(len(PATCHES) + 1)], dtype=np.int64)
    assert action == len(ACTIONS)
    action_patch = np.full(len(ACTIONS), NO_PATCH, dtype=np.int64)
    action_mask = np.zeros((len(ACTIONS), 2), dtype=np.uint64)
    for i, move in enumerate(ACTIONS):
        action_mask[i] = _split(move.mask)
        if move.kind == BUY and move.patch is not None:
            action_patch[i] = move.patch
    return {
        "offsets": offsets,
        "cell_count": cell_count,
        "valid": valid,
        "anchor_action": anchor_action,
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
# The action of each orientation at each anchor (-1 off the quilt): a load where a division by the row would be.
ANCHOR_ACTION = _T["anchor_action"]
PATCH_FIRST = _T["patch_first"]
PATCH_ACTIONS = _T["patch_actions"]  # purchases of patch p are actions PATCH_ACTIONS[p] .. PATCH_ACTIONS[p + 1] - 1
ACTION_PATCH = _T["action_patch"]
ACTION_MASK = _T["action_mask"]
COST = _T["cost"]
TIME = _T["time"]
INCOME = _T["income"]
INCOME_UP_TO_ARRAY = _T["income_up_to"]
BONUS_AREA_WORDS = _T["bonus_areas"]
PATCH_SIZE = np.array([patch.size for patch in PATCHES], dtype=np.int64)
INCOMES_LEFT = np.array([INCOME_UP_TO[LAST_SPACE] - INCOME_UP_TO[s] for s in range(LAST_SPACE + 1)], dtype=np.int64)


# Conversion from and to the Python engine ---------------------------------------

State = tuple[int, ...]


def pack_ring(patches: list[int] | tuple[int, ...]) -> State:
    """The ring words of a circle (next offered first), :data:`EMPTY_SLOT` in the unused slots."""
    slots = list(patches) + [EMPTY_SLOT] * (RING_SIZE - len(patches))
    return tuple(
        sum(slots[SLOTS_PER_WORD * w + i] << (SLOT_BITS * i) for i in range(SLOTS_PER_WORD) if SLOTS_PER_WORD * w + i < RING_SIZE)
        for w in range(RING_WORDS)
    )


def unpack_ring(ring: State) -> list[int]:
    """The :data:`RING_SIZE` slots of ring words."""
    return [(int(ring[slot // SLOTS_PER_WORD]) >> (SLOT_BITS * (slot % SLOTS_PER_WORD))) & SLOT_MASK for slot in range(RING_SIZE)]


def from_position(position: Position) -> tuple[State, State]:
    """Return ``(state, ring)`` for a position; the ring is the circle, next offered first."""
    ring = pack_ring(position.circle)
    fields = [0] * STATE_SIZE
    fields[REMAINING] = (1 << len(position.circle)) - 1
    fields[HEAD] = 0
    for player in (0, 1):
        fields[TIME0 + player] = position.times[player]
        fields[BUTTONS0 + player] = position.buttons[player]
        fields[INCOME0 + player] = position.income[player]
        low, high = _split(position.quilts[player])
        fields[QUILT0_LO + 2 * player] = _as_int64(low)
        fields[QUILT0_HI + 2 * player] = high
    fields[ON_TOP] = position.on_top
    fields[SPECIALS] = position.specials
    fields[BONUS] = position.bonus
    fields[PENDING] = position.pending
    return tuple(fields), ring


def to_position(state: State, ring: State, variant: str = DEFAULT_VARIANT) -> Position:
    """The :class:`Position` of a compiled state."""
    remaining = int(state[REMAINING])
    head = int(state[HEAD])
    patches = unpack_ring(ring)
    slots = [(head + i) % RING_SIZE for i in range(RING_SIZE)]
    circle = tuple(patches[slot] for slot in slots if remaining >> slot & 1)
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
def to_move(state):
    """The player to act, or GAME_OVER."""
    if state[PENDING] > 0:
        return state[ON_TOP]
    t0 = state[TIME0]
    t1 = state[TIME1]
    if t0 < t1:
        return 0
    if t1 < t0:
        return 1
    if t0 == LAST_SPACE:
        return GAME_OVER
    return state[ON_TOP]


@_inline
def field(state, field0, player):
    """A per-player field: ``field0`` is the index of player 0's, player 1's follows it.

    Written as a choice between two constant indices: numba compiles a tuple
    index that is only known at run time into a jump table.
    """
    return state[field0] if player == 0 else state[field0 + 1]


@_inline
def quilt_words(state, player):
    """A player's quilt as two uint64 words (squares 0..63, then the rest)."""
    if player == 0:
        return np.uint64(state[QUILT0_LO]), np.uint64(state[QUILT0_HI])
    return np.uint64(state[QUILT1_LO]), np.uint64(state[QUILT1_HI])


@_inline
def offered_slots(state):
    """The number of patches on offer (0..3) and their ring slots, next offered first."""
    remaining = np.uint64(state[REMAINING])
    head = np.uint64(state[HEAD])
    # Rotate the ring so that the head is bit 0; the offer is then the three lowest set bits.
    rotated = ((remaining >> head) | (remaining << (np.uint64(RING_SIZE) - head))) & np.uint64(RING_MASK)
    first = _next_slot(rotated, head)
    rotated &= rotated - np.uint64(1)
    second = _next_slot(rotated, head)
    rotated &= rotated - np.uint64(1)
    third = _next_slot(rotated, head)
    count = (first != NO_SLOT) + (second != NO_SLOT) + (third != NO_SLOT)
    return count, (first, second, third)


@_inline
def _next_slot(rotated, head):
    if not rotated:
        return NO_SLOT
    slot = np.int64(trailing_zeros(rotated) + head)
    return slot - RING_SIZE if slot >= RING_SIZE else slot


@_inline
def ring_patch(ring, slot):
    """The patch id in a ring slot."""
    word = ring[0] if slot < SLOTS_PER_WORD else ring[1] if slot < 2 * SLOTS_PER_WORD else ring[2] if slot < 3 * SLOTS_PER_WORD else ring[3]
    return (word >> (SLOT_BITS * (slot % SLOTS_PER_WORD))) & SLOT_MASK


@_inline
def offered_patch(ring, slots, k):
    """The ``k``-th patch on offer, from :func:`offered_slots`' slots (constant indices: no jump table)."""
    return ring_patch(ring, slots[0] if k == 0 else slots[1] if k == 1 else slots[2])


@_inline
def free_anchors(orientation, low, high):
    """Anchors (bit ``BOARD_SIZE * row + col`` of the top-left) where the orientation fits the quilt."""
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


@_inline
def _anchor_action(orientation, anchor):
    return np.int64(ANCHOR_ACTION[orientation, anchor])


@_jit
def legal_actions(state, ring, out):
    """Fill ``out`` (length :data:`MAX_MOVES`) with the legal action indices; return their number."""
    player = to_move(state)
    if player == GAME_OVER:
        return 0
    low, high = quilt_words(state, player)
    count = 0
    if state[PENDING] > 0:
        for square in range(SQUARES):
            if square < WORD_BITS:
                covered = (low >> np.uint64(square)) & np.uint64(1)
            else:
                covered = (high >> np.uint64(square - WORD_BITS)) & np.uint64(1)
            if not covered:
                out[count] = FIRST_SPECIAL_ACTION + square
                count += 1
        return count
    out[0] = ADVANCE_ACTION
    count = 1
    offered, slots = offered_slots(state)
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] <= field(state, BUTTONS0, player):
            count = emit_placements(patch, low, high, out, count)
    return count


@_inline
def emit_placements(patch, low, high, out, count):
    """Append every legal placement of ``patch`` on the quilt to ``out`` from ``count``; returns the new count."""
    for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
        free_low, free_high = free_anchors(orientation, low, high)
        while free_low:
            out[count] = _anchor_action(orientation, trailing_zeros(free_low))
            free_low &= free_low - np.uint64(1)
            count += 1
        while free_high:
            out[count] = _anchor_action(orientation, trailing_zeros(free_high) + np.uint64(64))
            free_high &= free_high - np.uint64(1)
            count += 1
    return count


@_inline
def _has_bonus_area(low, high):
    if popcount(low) + popcount(high) < BONUS_CELLS:
        return False
    for area in range(BONUS_AREA_WORDS.shape[0]):
        area_low = BONUS_AREA_WORDS[area, 0]
        area_high = BONUS_AREA_WORDS[area, 1]
        if (low & area_low) == area_low and (high & area_high) == area_high:
            return True
    return False


@_inline
def _with_player(state, player, time, buttons, income, low, high, remaining, head, specials, bonus, pending):
    """A new state: the player's fields and the shared ones replaced, the opponent's kept."""
    if player == 0:
        return (remaining, head, time, state[TIME1], buttons, state[BUTTONS1], income, state[INCOME1],
                np.int64(low), np.int64(high), state[QUILT1_LO], state[QUILT1_HI], 0, specials, bonus, pending)
    return (remaining, head, state[TIME0], time, state[BUTTONS0], buttons, state[INCOME0], income,
            state[QUILT0_LO], state[QUILT0_HI], np.int64(low), np.int64(high), 1, specials, bonus, pending)


def _step(state, ring, action):
    """The state after a legal action (unchecked, like ``Position.play_unchecked``)."""
    player = to_move(state)
    low, high = quilt_words(state, player)
    low |= ACTION_MASK[action, 0]
    high |= ACTION_MASK[action, 1]
    start = field(state, TIME0, player)
    buttons = field(state, BUTTONS0, player)
    income = field(state, INCOME0, player)
    remaining = state[REMAINING]
    head = state[HEAD]
    bonus = state[BONUS]
    if action == ADVANCE_ACTION:
        end = min(field(state, TIME0, 1 - player) + 1, LAST_SPACE)
        buttons += end - start
    else:
        if bonus == NO_BONUS and _has_bonus_area(low, high):
            bonus = player
        if action < FIRST_BUY_ACTION:
            # A special patch: the token stays, and the player stays on top.
            return _with_player(state, player, start, buttons, income, low, high, remaining, head,
                                state[SPECIALS], bonus, state[PENDING] - 1)
        patch = ACTION_PATCH[action]
        offered, slots = offered_slots(state)
        for k in range(offered):
            if offered_patch(ring, slots, k) == patch:
                remaining &= ~(np.int64(1) << slots[k])
                head = slots[k] + 1 if slots[k] + 1 < RING_SIZE else 0
                break
        buttons -= COST[patch]
        income += INCOME[patch]
        end = min(start + TIME[patch], LAST_SPACE)
    buttons += (INCOME_UP_TO_ARRAY[end] - INCOME_UP_TO_ARRAY[start]) * income
    specials = state[SPECIALS]
    pending = np.int64(0)
    crossed = specials & ((np.int64(1) << (end + 1)) - (np.int64(1) << (start + 1)))
    if crossed:
        specials ^= crossed
        empty = SQUARES - np.int64(popcount(low) + popcount(high))
        pending = min(np.int64(popcount(np.uint64(crossed))), empty)
    return _with_player(state, player, end, buttons, income, low, high, remaining, head, specials, bonus, pending)


step = _jit(_step)
# The same function compiled into its callers: the hot loops call it once per move,
# and a call passes the state's and the ring's fields one by one.
step_inlined = _inline(_step)


@_jit
def apply_action(state, ring, action):
    """:func:`step` as a compiled entry point for Python callers."""
    return step(state, ring, action)


@_inline
def patch_value(patch, start):
    """The greedy value of buying ``patch`` from space ``start``: the compiled twin of :func:`quiltmaker.ai.players.patch_value`.

    Income still to come, plus what its squares save at the end, less its
    cost and the spaces it takes (each worth a button to an advancing
    player). Playouts and the solver's move ordering use it; a test holds
    it equal to the Python one for every patch and space.
    """
    end = min(start + TIME[patch], LAST_SPACE)
    return INCOME[patch] * INCOMES_LEFT[start] + EMPTY_SQUARE_PENALTY * PATCH_SIZE[patch] - COST[patch] - (end - start)


@_inline
def score(state, player):
    """Buttons, plus the bonus points, less the penalty of each empty square."""
    low, high = quilt_words(state, player)
    covered = np.int64(popcount(low) + popcount(high))
    bonus = BONUS_POINTS if state[BONUS] == player else 0
    return field(state, BUTTONS0, player) + bonus - EMPTY_SQUARE_PENALTY * (SQUARES - covered)


@_inline
def winner(state):
    """The winner of a finished game: higher score, then whoever reached the last space first."""
    s0 = score(state, 0)
    s1 = score(state, 1)
    if s0 != s1:
        return 0 if s0 > s1 else 1
    return 1 - state[ON_TOP]


@_jit
def final_result(state):
    """``(score of player 0, score of player 1, winner)`` of a finished game, for Python callers."""
    return score(state, 0), score(state, 1), winner(state)


@_jit
def player_to_move(state):
    """:func:`to_move` for Python callers."""
    return to_move(state)


# Placement heuristics -------------------------------------------------------------

_FULL_HIGH = np.uint64((1 << (SQUARES - WORD_BITS)) - 1)
_COL_FIRST = _split(sum(1 << (BOARD_SIZE * r) for r in range(BOARD_SIZE)))
_COL_LAST = _split(sum(1 << (BOARD_SIZE * r + BOARD_SIZE - 1) for r in range(BOARD_SIZE)))
_ROW_FIRST = _split(sum(1 << c for c in range(BOARD_SIZE)))
_ROW_LAST = _split(sum(1 << (BOARD_SIZE * (BOARD_SIZE - 1) + c) for c in range(BOARD_SIZE)))
# Weight of an isolated empty square in placement_score: only a special patch can fill it.
HOLE_WEIGHT = 3
COL_FIRST_LOW, COL_FIRST_HIGH = np.uint64(_COL_FIRST[0]), np.uint64(_COL_FIRST[1])
COL_LAST_LOW, COL_LAST_HIGH = np.uint64(_COL_LAST[0]), np.uint64(_COL_LAST[1])
ROW_FIRST_LOW = np.uint64(_ROW_FIRST[0])
ROW_LAST_LOW, ROW_LAST_HIGH = np.uint64(_ROW_LAST[0]), np.uint64(_ROW_LAST[1])


@_inline
def _shift_down(low, high, k):
    """The set of squares moved to higher squares by ``k`` (0 < k < 64)."""
    return low << np.uint64(k), ((high << np.uint64(k)) | (low >> np.uint64(64 - k))) & _FULL_HIGH


@_inline
def _shift_up(low, high, k):
    """The set of squares moved to lower squares by ``k`` (0 < k < 64)."""
    return (low >> np.uint64(k)) | (high << np.uint64(64 - k)), high >> np.uint64(k)


@_inline
def _count(low, high):
    return np.int64(popcount(low) + popcount(high))


@_inline
def contact(low, high, mask_low, mask_high):
    """Edges of the squares ``mask`` against covered squares of the quilt or its border.

    The compiled twin of :func:`quiltmaker.ai.players.contact` (the greedy
    player's snugness); a test holds the two equal.
    """
    up_low, up_high = _shift_up(mask_low, mask_high, BOARD_SIZE)
    down_low, down_high = _shift_down(mask_low, mask_high, BOARD_SIZE)
    left_low, left_high = _shift_up(mask_low & ~COL_FIRST_LOW, mask_high & ~COL_FIRST_HIGH, 1)
    right_low, right_high = _shift_down(mask_low & ~COL_LAST_LOW, mask_high & ~COL_LAST_HIGH, 1)
    touching = (_count(up_low & low, up_high & high) + _count(down_low & low, down_high & high)
                + _count(left_low & low, left_high & high) + _count(right_low & low, right_high & high))
    border = (_count(mask_low & ROW_FIRST_LOW, np.uint64(0)) + _count(mask_low & ROW_LAST_LOW, mask_high & ROW_LAST_HIGH)
              + _count(mask_low & COL_FIRST_LOW, mask_high & COL_FIRST_HIGH)
              + _count(mask_low & COL_LAST_LOW, mask_high & COL_LAST_HIGH))
    return touching + border


@_jit
def placement_score(low, high, mask_low, mask_high):
    """How snugly squares ``mask`` fit a quilt: edges against covered squares or the border, minus isolated holes.

    Isolated empty squares can only be filled by special patches, so each
    costs about 2 points at the end; edges in contact keep the rest compact.
    """
    empty_low = ~(low | mask_low)
    empty_high = ~(high | mask_high) & _FULL_HIGH
    # Squares with an empty neighbour above, below, left or right.
    a_low, a_high = _shift_down(empty_low, empty_high, BOARD_SIZE)
    b_low, b_high = _shift_up(empty_low, empty_high, BOARD_SIZE)
    c_low, c_high = _shift_down(empty_low & ~COL_LAST_LOW, empty_high & ~COL_LAST_HIGH, 1)
    d_low, d_high = _shift_up(empty_low & ~COL_FIRST_LOW, empty_high & ~COL_FIRST_HIGH, 1)
    isolated = _count(empty_low & ~(a_low | b_low | c_low | d_low), empty_high & ~(a_high | b_high | c_high | d_high))
    return contact(low, high, mask_low, mask_high) - HOLE_WEIGHT * isolated


@_jit
def score_placement(state, player, action):
    """:func:`placement_score` of an action for a player, for Python callers and tests."""
    low, high = quilt_words(state, player)
    return placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])


# Random numbers: splitmix64 on one uint64 threaded through the calls --------------


@_inline
def next_random(rng):
    """``(64 random bits, next generator state)``."""
    rng = rng + np.uint64(0x9E3779B97F4A7C15)
    z = rng
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31)), rng


@_inline
def random_below(rng, bound):
    """``(a uniform integer in [0, bound), next generator state)`` for ``0 < bound < 2**32``."""
    bits, rng = next_random(rng)
    return np.int64(((bits >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32)), rng


@_inline
def _select_bit(word, rank):
    """Index of the set bit of ``word`` with ``rank`` set bits below it.

    A binary search by popcounts of halves: six steps, where clearing the
    lowest bit ``rank`` times would take up to 63.
    """
    position = np.uint64(0)
    for width in (32, 16, 8, 4, 2, 1):
        shift = np.uint64(width)
        below = np.int64(popcount(word & ((np.uint64(1) << shift) - np.uint64(1))))
        if rank >= below:
            rank -= below
            word >>= shift
            position += shift
    return position


def _random_action(state, ring, rng):
    """``(a uniformly random legal action, next generator state)``; the action is NO_ACTION when the game is over."""
    player = to_move(state)
    if player == GAME_OVER:
        return NO_ACTION, rng
    low, high = quilt_words(state, player)
    if state[PENDING] > 0:
        empty_low = ~low
        empty_high = ~high & np.uint64((1 << (SQUARES - 64)) - 1)
        rank, rng = random_below(rng, SQUARES - np.int64(popcount(low) + popcount(high)))
        below = np.int64(popcount(empty_low))
        if rank < below:
            return FIRST_SPECIAL_ACTION + np.int64(_select_bit(empty_low, rank)), rng
        return FIRST_SPECIAL_ACTION + WORD_BITS + np.int64(_select_bit(empty_high, rank - below)), rng
    # First try rejection sampling: a uniform pick among advancing and every
    # in-bounds placement of the affordable patches, kept if it fits the quilt.
    # An accepted pick is uniform over the legal moves, so mixing a few tries
    # with the exact count below stays exactly uniform, and early in a game,
    # when most placements fit, it saves the count altogether.
    offered, slots = offered_slots(state)
    buttons = field(state, BUTTONS0, player)
    candidates = 1
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] <= buttons:
            candidates += PATCH_ACTIONS[patch + 1] - PATCH_ACTIONS[patch]
    for _ in range(REJECTION_TRIES):
        pick, rng = random_below(rng, candidates)
        if pick == 0:
            return ADVANCE_ACTION, rng
        pick -= 1
        for k in range(offered):
            patch = offered_patch(ring, slots, k)
            if COST[patch] > buttons:
                continue
            size = PATCH_ACTIONS[patch + 1] - PATCH_ACTIONS[patch]
            if pick < size:
                action = PATCH_ACTIONS[patch] + pick
                if not (ACTION_MASK[action, 0] & low) and not (ACTION_MASK[action, 1] & high):
                    return action, rng
                break
            pick -= size
    # Exact: count the free anchors of every orientation, pick a rank, find it again.
    total = 1
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] <= buttons:
            for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
                free_low, free_high = free_anchors(orientation, low, high)
                total += np.int64(popcount(free_low) + popcount(free_high))
    rank, rng = random_below(rng, total)
    if rank == 0:
        return ADVANCE_ACTION, rng
    rank -= 1
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] > buttons:
            continue
        for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
            free_low, free_high = free_anchors(orientation, low, high)
            in_low = np.int64(popcount(free_low))
            if rank < in_low:
                return _anchor_action(orientation, _select_bit(free_low, rank)), rng
            rank -= in_low
            in_high = np.int64(popcount(free_high))
            if rank < in_high:
                return _anchor_action(orientation, _select_bit(free_high, rank) + np.uint64(64)), rng
            rank -= in_high
    return NO_ACTION, rng  # not reached: the ranks above cover every legal action


random_action = _jit(_random_action)
random_action_inlined = _inline(_random_action)


@_jit
def playout(state, ring, rng):
    """Play uniformly random moves to the end: ``(final state, generator state, moves played)``."""
    played = 0
    while True:
        action, rng = random_action_inlined(state, ring, rng)
        if action == NO_ACTION:
            return state, rng, played
        state = step_inlined(state, ring, action)
        played += 1


@_jit
def sample_random_action(state, ring, rng):
    """:func:`random_action` as a compiled entry point for Python callers."""
    return random_action(state, ring, np.uint64(rng))


@_inline
def state_from_row(states, row):
    """The state stored in row ``row`` of a 2-D int64 array."""
    return (states[row, 0], states[row, 1], states[row, 2], states[row, 3], states[row, 4], states[row, 5],
            states[row, 6], states[row, 7], states[row, 8], states[row, 9], states[row, 10], states[row, 11],
            states[row, 12], states[row, 13], states[row, 14], states[row, 15])
