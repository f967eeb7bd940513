"""The rules compiled with numba, for search: a state is a tuple of :data:`STATE_SIZE` int64.

This is the second copy of the rules, and it exists only for speed; the
differential tests hold it equal to :class:`quiltmaker.Position`
move by move. It holds the rules alone: what search adds to them (move
heuristics, a random generator, random playouts) is in
:mod:`quiltmaker.compiled.playouts`. Layout of a state (indices below):

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
    STARTING_BUTTONS,
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
# Helpers that take arrays are copied into their callers in numba's own IR: a call
# that passes arrays costs atomic reference counting, which would dominate functions
# this short. That copying is slow to compile (docs/benchmarks.md, "Start-up"), so
# it is kept to them:
_inline = njit(cache=True, nogil=True, inline="always")
# the helpers of scalars and tuples are functions of their own, compiled and cached
# once, which LLVM inlines into their callers where it pays.


def _small(function):
    """A helper of scalars and tuples, compiled once for plain integers.

    numba compiles a function called with a constant (``field(state, TIME0, player)``)
    once for each constant, each a tenth of a second of a first use; LLVM folds
    the constant in where it inlines the call, so the copies bought nothing.
    """
    dispatcher = njit(cache=True, nogil=True)(function)
    as_given = dispatcher.get_call_template

    def get_call_template(args, kws):
        return as_given(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


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


# States: a game's start, and conversion from and to the Python engine ----------------

State = tuple[int, ...]


@_jit
def pack_ring(circle):
    """The ring words of a circle (an int64 array of at most :data:`RING_SIZE` patch ids, next offered first).

    :data:`EMPTY_SLOT` fills the unused slots. The one packing of a ring:
    :func:`from_position` and :func:`initial_state` both use it.
    """
    words = np.zeros(RING_WORDS, dtype=np.int64)
    for slot in range(RING_SIZE):
        patch = np.int64(circle[slot]) if slot < len(circle) else np.int64(EMPTY_SLOT)
        words[slot // SLOTS_PER_WORD] |= patch << (SLOT_BITS * (slot % SLOTS_PER_WORD))
    return words[0], words[1], words[2], words[3]


@_small
def initial_state(circle, first, specials):
    """``(state, ring)`` of a game's start, as :meth:`Position.initial <quiltmaker.Position.initial>` sets it up.

    ``circle`` is an int64 array of the patch ids, next offered first;
    ``first`` is the first player; ``specials`` the time track's special
    patch spaces (a bit a space). The one place a compiled game starts: the
    benchmarks' random games and the batched environment both call it, and
    a test holds it equal to :func:`from_position` of ``Position.initial``.
    """
    state = (
        (np.int64(1) << len(circle)) - 1,  # REMAINING: every slot
        np.int64(0),  # HEAD
        np.int64(0),  # TIME0
        np.int64(0),  # TIME1
        np.int64(STARTING_BUTTONS),  # BUTTONS0
        np.int64(STARTING_BUTTONS),  # BUTTONS1
        np.int64(0),  # INCOME0
        np.int64(0),  # INCOME1
        np.int64(0),  # QUILT0_LO
        np.int64(0),  # QUILT0_HI
        np.int64(0),  # QUILT1_LO
        np.int64(0),  # QUILT1_HI
        np.int64(first),  # ON_TOP: with both tokens at the start, the first player's is on top
        np.int64(specials),  # SPECIALS
        np.int64(NO_BONUS),  # BONUS
        np.int64(0),  # PENDING
    )
    return state, pack_ring(circle)


def unpack_ring(ring: State) -> list[int]:
    """The :data:`RING_SIZE` slots of ring words."""
    return [(int(ring[slot // SLOTS_PER_WORD]) >> (SLOT_BITS * (slot % SLOTS_PER_WORD))) & SLOT_MASK for slot in range(RING_SIZE)]


def from_position(position: Position) -> tuple[State, State]:
    """Return ``(state, ring)`` for a position; the ring is the circle, next offered first."""
    ring = pack_ring(np.array(position.circle, dtype=np.int64))
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


@_small
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


@_small
def field(state, field0, player):
    """A per-player field: ``field0`` is the index of player 0's, player 1's follows it.

    Written as a choice between two constant indices: numba compiles a tuple
    index that is only known at run time into a jump table.
    """
    return state[field0] if player == 0 else state[field0 + 1]


@_small
def quilt_words(state, player):
    """A player's quilt as two uint64 words (squares 0..63, then the rest)."""
    if player == 0:
        return np.uint64(state[QUILT0_LO]), np.uint64(state[QUILT0_HI])
    return np.uint64(state[QUILT1_LO]), np.uint64(state[QUILT1_HI])


@_small
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


@_small
def _next_slot(rotated, head):
    if not rotated:
        return NO_SLOT
    slot = np.int64(trailing_zeros(rotated) + head)
    return slot - RING_SIZE if slot >= RING_SIZE else slot


@_small
def ring_patch(ring, slot):
    """The patch id in a ring slot."""
    word = ring[0] if slot < SLOTS_PER_WORD else ring[1] if slot < 2 * SLOTS_PER_WORD else ring[2] if slot < 3 * SLOTS_PER_WORD else ring[3]
    return (word >> (SLOT_BITS * (slot % SLOTS_PER_WORD))) & SLOT_MASK


@_small
def offered_patch(ring, slots, k):
    """The ``k``-th patch on offer, from :func:`offered_slots`' slots (constant indices: no jump table)."""
    return ring_patch(ring, slots[0] if k == 0 else slots[1] if k == 1 else slots[2])


@_small
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


@_small
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


@_small
def _has_bonus_area(low, high):
    if popcount(low) + popcount(high) < BONUS_CELLS:
        return False
    for area in range(BONUS_AREA_WORDS.shape[0]):
        area_low = BONUS_AREA_WORDS[area, 0]
        area_high = BONUS_AREA_WORDS[area, 1]
        if (low & area_low) == area_low and (high & area_high) == area_high:
            return True
    return False


@_small
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


@_small
def square_count(low, high):
    """The number of squares in a set of squares given as two words (a quilt, a patch's mask)."""
    return np.int64(popcount(low) + popcount(high))


@_small
def score(state, player):
    """Buttons, plus the bonus points, less the penalty of each empty square."""
    low, high = quilt_words(state, player)
    covered = square_count(low, high)
    bonus = BONUS_POINTS if state[BONUS] == player else 0
    return field(state, BUTTONS0, player) + bonus - EMPTY_SQUARE_PENALTY * (SQUARES - covered)


@_small
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


@_inline
def state_from_row(states, row):
    """The state stored in row ``row`` of a 2-D int64 array."""
    return (states[row, 0], states[row, 1], states[row, 2], states[row, 3], states[row, 4], states[row, 5],
            states[row, 6], states[row, 7], states[row, 8], states[row, 9], states[row, 10], states[row, 11],
            states[row, 12], states[row, 13], states[row, 14], states[row, 15])
