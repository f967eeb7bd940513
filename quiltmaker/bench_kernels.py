"""Compiled loops that only the speed measurements run (:mod:`quiltmaker.bench`).

Whole random games from random setups, and move generation over stored
states, each inside one compiled call, so that the figures measure the
compiled rules and not Python's calls into them.
"""

from __future__ import annotations

import numpy as np

from .compiled import rules as K
from .compiled.playouts import playout, random_below
from .compiled.rules import RING_SIZE, _inline, _jit
from .core.components import STARTING_PATCH_ID


@_inline
def new_game(rng, special_mask):
    """A random setup as :meth:`Position.initial <quiltmaker.Position.initial>` draws one: ``(state, ring, generator state)``.

    The circle is shuffled with the starting patch last; the first player is
    random. Drawn with the search's cheap generator rather than the batched
    environment's copy of Python's (a few microseconds a game, which the
    figures would count); the state is the rules' own
    :func:`~quiltmaker.compiled.rules.initial_state`.
    """
    order = np.empty(RING_SIZE, dtype=np.int64)
    filled = 0
    for patch in range(RING_SIZE):
        if patch != STARTING_PATCH_ID:
            order[filled] = patch
            filled += 1
    order[RING_SIZE - 1] = STARTING_PATCH_ID
    for i in range(RING_SIZE - 2, 0, -1):  # Fisher-Yates over the patches before the starting one
        j, rng = random_below(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    first, rng = random_below(rng, 2)
    state, ring = K.initial_state(order, first, special_mask)
    return state, ring, rng


@_jit
def generate_moves_repeatedly(states, rings, repeats):
    """Run :func:`~quiltmaker.compiled.rules.legal_actions` on every stored state ``repeats`` times; returns the moves listed."""
    out = np.empty(K.MAX_MOVES, dtype=np.int64)
    listed = 0
    for _ in range(repeats):
        for row in range(states.shape[0]):
            listed += K.legal_actions(K.state_from_row(states, row), (rings[row, 0], rings[row, 1], rings[row, 2], rings[row, 3]), out)
    return listed


@_jit
def play_random_games(games, seed, special_mask):
    """Play ``games`` uniform-random games from random setups; return the moves played."""
    rng = np.uint64(seed)
    played = 0
    for _ in range(games):
        state, ring, rng = new_game(rng, special_mask)
        state, rng, moves = playout(state, ring, rng)
        played += moves
    return played
