"""The compiled half of the exact endgame solver: alpha-beta over every legal move.

Values are from player 0's side and order outcomes lexicographically: any
win beats any loss, and among wins (or losses) a larger score margin is
better. A terminal position is worth ``WIN + margin`` when player 0 wins and
``-WIN + margin`` when player 1 does, with ``margin`` = score 0 - score 1.
Player 0 maximises, player 1 minimises; who moves is read from each state,
never assumed to alternate.
"""

from __future__ import annotations

import numpy as np

from ..core.components import OFFER_SIZE
from ..compiled import rules as K
from ..compiled.playouts import patch_value
from ..compiled.rules import (
    COST,
    _inline,
    _jit,
    emit_placements,
    field,
    legal_actions,
    offered_patch,
    offered_slots,
    quilt_words,
    score,
    step,
    to_move,
    winner,
)

WIN = 1000  # larger than any score margin
INFINITY = 1 << 40
ABORTED = 1 << 50  # the node budget ran out: the value means nothing
EXACT, LOWER, UPPER = 0, 1, 2
MAX_PLY = 256
ADVANCING = OFFER_SIZE  # move ordering: the patches on offer, then advancing
CHOICES = OFFER_SIZE + 1
UNAVAILABLE = -1.0e9  # the value of a patch that cannot be bought: below any real value


@_inline
def terminal_value(state):
    margin = score(state, 0) - score(state, 1)
    return WIN + margin if winner(state) == 0 else -WIN + margin


@_inline
def state_hash(state):
    """A 64-bit hash of a state (the ring is fixed for a whole solve)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(K.STATE_SIZE):
        h ^= np.uint64(state[i]) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2))
        h *= np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@_jit
def ordered_actions(state, ring, out):
    """The legal actions, the likeliest best first: alpha-beta cuts more when good moves come early.

    Patches go in the order of the greedy player's value (income still to
    come, squares covered, less cost and time), with advancing where its
    value of 0 falls; special placements in square order.
    """
    player = to_move(state)
    if player == K.GAME_OVER or state[K.PENDING] > 0:
        return legal_actions(state, ring, out)
    low, high = quilt_words(state, player)
    start = field(state, K.TIME0, player)
    buttons = field(state, K.BUTTONS0, player)
    offered, slots = offered_slots(state)
    # Values of each affordable patch on offer and of advancing (last), then a selection sort of them.
    values = np.full(CHOICES, UNAVAILABLE)
    values[ADVANCING] = 0.0
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] <= buttons:
            values[k] = patch_value(patch, start) + 0.0
    count = 0
    for _ in range(CHOICES):
        choice = np.argmax(values)
        if values[choice] == UNAVAILABLE:
            break
        values[choice] = UNAVAILABLE
        if choice == ADVANCING:
            out[count] = 0
            count += 1
            continue
        count = emit_placements(offered_patch(ring, slots, choice), low, high, out, count)
    return count


@_jit
def alphabeta(state, ring, alpha, beta, ply, moves, table_keys, table_values, table_flags, table_moves, budget):
    """The exact value of ``state`` within ``(alpha, beta)`` and its best action; ``ABORTED`` past the budget.

    ``budget[0]`` is the nodes left; any other thread may set ``budget[1]``
    (never written here) to stop the search at its next node.
    """
    player = to_move(state)
    if player == K.GAME_OVER:
        return terminal_value(state), K.NO_ACTION
    if budget[0] <= 0 or budget[1] != 0:
        return ABORTED, K.NO_ACTION
    budget[0] -= 1
    key = state_hash(state)
    slot = np.int64(key & np.uint64(table_keys.shape[0] - 1))
    hinted = K.NO_ACTION
    if table_keys[slot] == key:
        value = table_values[slot]
        flag = table_flags[slot]
        hinted = table_moves[slot]
        if flag == EXACT:
            return value, hinted
        if flag == LOWER and value > alpha:
            alpha = value
        elif flag == UPPER and value < beta:
            beta = value
        if alpha >= beta:
            return value, hinted
    original_alpha = alpha
    original_beta = beta
    row = moves[ply]
    count = ordered_actions(state, ring, row)
    # The move that was best before is tried first: most cut-offs come from it.
    if hinted != K.NO_ACTION:
        for i in range(count):
            if row[i] == hinted:
                row[i] = row[0]
                row[0] = hinted
                break
    best = -INFINITY if player == 0 else INFINITY
    best_action = row[0]
    for i in range(count):
        action = row[i]
        value, _ = alphabeta(step(state, ring, action), ring, alpha, beta, ply + 1, moves,
                             table_keys, table_values, table_flags, table_moves, budget)
        if value == ABORTED:
            return ABORTED, K.NO_ACTION
        if player == 0:
            if value > best:
                best = value
                best_action = action
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best = value
                best_action = action
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    if best <= original_alpha:
        flag = UPPER
    elif best >= original_beta:
        flag = LOWER
    else:
        flag = EXACT
    table_keys[slot] = key
    table_values[slot] = best
    table_flags[slot] = flag
    table_moves[slot] = best_action
    return best, best_action
