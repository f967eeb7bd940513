"""What search adds to the compiled rules: move heuristics, a random generator and random playouts.

:mod:`quiltmaker.compiled.rules` is the rules alone, held equal to
:class:`quiltmaker.Position` by the differential tests; this module is
what the players built on them share: the MCTS (:mod:`quiltmaker.ai.search_kernel`),
the endgame solver's move ordering (:mod:`quiltmaker.ai.solver_kernel`), the
batched environment's opponents (:mod:`quiltmaker.envs.batch_kernel`) and
the speed benchmarks. The heuristics are compiled twins of the greedy
player's (:mod:`quiltmaker.ai.players`), and tests hold each pair equal.
"""

from __future__ import annotations

import numpy as np

from ..core.components import BOARD_SIZE, EMPTY_SQUARE_PENALTY, INCOME_UP_TO, LAST_SPACE, PATCHES, SQUARES
from .rules import (
    ACTION_MASK,
    ADVANCE_ACTION,
    BUTTONS0,
    COST,
    FIRST_SPECIAL_ACTION,
    GAME_OVER,
    INCOME,
    NO_ACTION,
    PATCH_ACTIONS,
    PATCH_FIRST,
    PENDING,
    TIME,
    WORD_BITS,
    _anchor_action,
    _inline,
    _small,
    _jit,
    _split,
    field,
    free_anchors,
    offered_patch,
    offered_slots,
    popcount,
    quilt_words,
    square_count,
    step_inlined,
    to_move,
)

REJECTION_TRIES = 4  # uniform picks random_action tries before it counts the legal moves
PATCH_SIZE = np.array([patch.size for patch in PATCHES], dtype=np.int64)
INCOMES_LEFT = np.array([INCOME_UP_TO[LAST_SPACE] - INCOME_UP_TO[s] for s in range(LAST_SPACE + 1)], dtype=np.int64)


# Move heuristics ------------------------------------------------------------------


@_small
def patch_value(patch, start):
    """The greedy value of buying ``patch`` from space ``start``: the compiled twin of :func:`quiltmaker.ai.players.patch_value`.

    Income still to come, plus what its squares save at the end, less its
    cost and the spaces it takes (each worth a button to an advancing
    player). Playouts and the solver's move ordering use it; a test holds
    it equal to the Python one for every patch and space.
    """
    end = min(start + TIME[patch], LAST_SPACE)
    return INCOME[patch] * INCOMES_LEFT[start] + EMPTY_SQUARE_PENALTY * PATCH_SIZE[patch] - COST[patch] - (end - start)


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


@_small
def _shift_down(low, high, k):
    """The set of squares moved to higher squares by ``k`` (0 < k < 64)."""
    return low << np.uint64(k), ((high << np.uint64(k)) | (low >> np.uint64(64 - k))) & _FULL_HIGH


@_small
def _shift_up(low, high, k):
    """The set of squares moved to lower squares by ``k`` (0 < k < 64)."""
    return (low >> np.uint64(k)) | (high << np.uint64(64 - k)), high >> np.uint64(k)


@_small
def contact(low, high, mask_low, mask_high):
    """Edges of the squares ``mask`` against covered squares of the quilt or its border.

    The compiled twin of :func:`quiltmaker.ai.players.contact` (the greedy
    player's snugness); a test holds the two equal.
    """
    up_low, up_high = _shift_up(mask_low, mask_high, BOARD_SIZE)
    down_low, down_high = _shift_down(mask_low, mask_high, BOARD_SIZE)
    left_low, left_high = _shift_up(mask_low & ~COL_FIRST_LOW, mask_high & ~COL_FIRST_HIGH, 1)
    right_low, right_high = _shift_down(mask_low & ~COL_LAST_LOW, mask_high & ~COL_LAST_HIGH, 1)
    touching = (square_count(up_low & low, up_high & high) + square_count(down_low & low, down_high & high)
                + square_count(left_low & low, left_high & high) + square_count(right_low & low, right_high & high))
    border = (square_count(mask_low & ROW_FIRST_LOW, np.uint64(0)) + square_count(mask_low & ROW_LAST_LOW, mask_high & ROW_LAST_HIGH)
              + square_count(mask_low & COL_FIRST_LOW, mask_high & COL_FIRST_HIGH)
              + square_count(mask_low & COL_LAST_LOW, mask_high & COL_LAST_HIGH))
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
    isolated = square_count(empty_low & ~(a_low | b_low | c_low | d_low), empty_high & ~(a_high | b_high | c_high | d_high))
    return contact(low, high, mask_low, mask_high) - HOLE_WEIGHT * isolated


@_jit
def score_placement(state, player, action):
    """:func:`placement_score` of an action for a player, for Python callers and tests."""
    low, high = quilt_words(state, player)
    return placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])


# Random numbers: splitmix64 on one uint64 threaded through the calls --------------


@_small
def next_random(rng):
    """``(64 random bits, next generator state)``."""
    rng = rng + np.uint64(0x9E3779B97F4A7C15)
    z = rng
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31)), rng


@_small
def random_below(rng, bound):
    """``(a uniform integer in [0, bound), next generator state)`` for ``0 < bound < 2**32``."""
    bits, rng = next_random(rng)
    return np.int64(((bits >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32)), rng


@_small
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


# Random moves and playouts ------------------------------------------------------


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
