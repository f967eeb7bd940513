"""The batched environment's compiled half: N games stepped, encoded and reset in one call.

:class:`quiltmaker.envs.batched.PatchworkBatch` owns the arrays and calls
:func:`step_games`; everything here works on whole rows of those arrays so
that a step of 1,024 games is one call from Python. The rules are those of
:mod:`quiltmaker.compiled.rules`, and the ``random`` and ``greedy``
opponents use :mod:`quiltmaker.compiled.playouts`; the observation is the one of
:mod:`quiltmaker.envs.observation`, written straight into the output row
(a differential test holds the two encodings equal game by game, move by
move); a game's starting circle and first player are those of
``Position.initial(seed)``, from a compiled copy of Python's Mersenne
Twister and ``random.shuffle`` (a test holds them equal over many seeds),
and the state is the rules' :func:`~quiltmaker.compiled.rules.initial_state`.

Masks are kept cheap by remembering each game's legal actions: a new mask
clears only the entries the last one set, where clearing all 7,431 bytes a
step would cost more than generating the moves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled import rules as K
from ..compiled.playouts import contact, next_random, patch_value, random_action_inlined, random_below
from ..compiled.rules import (
    ACTION_MASK,
    ADVANCE_ACTION,
    COST,
    FIRST_SPECIAL_ACTION,
    GAME_OVER,
    MAX_MOVES,
    RING_SIZE,
    _inline,
    _jit,
    field,
    initial_state,
    legal_actions,
    offered_patch,
    offered_slots,
    quilt_words,
    ring_patch,
    state_from_row,
    step_inlined,
    to_move,
    winner,
)
from ..core.components import INCOME_UP_TO, LAST_SPACE, PATCH_COUNT, SQUARES, STARTING_PATCH_ID
from ..core.moves import FIRST_BUY_ACTION
from ..core.position import NO_BONUS
from . import observation as O

# Opponents the kernel plays itself; any other opponent is chosen in Python between calls.
NO_OPPONENT, RANDOM_OPPONENT, GREEDY_OPPONENT, OUTSIDE_OPPONENT = range(4)
# What an illegal action does: the mover loses, or nothing changes and the caller raises.
LOSE, REFUSE = range(2)
NO_PLAYER = -1
# The opponent's moves between two of the agent's: each moves its token on, but for the 5 special patches.
MAX_REPLIES = 64

_SHAPE_PLANES = O._SHAPE_PLANES.reshape(PATCH_COUNT, SQUARES).copy()
_PATCH_FIELDS = O._PATCH_FIELDS.copy()
_INCOME_LEFT = np.array(
    [(O.INCOME_SPACES - INCOME_UP_TO[space]) / O.INCOME_SPACES for space in range(O.TRACK_SPACES)], np.float64
)
_BYTE_FLOATS = np.array([[(value >> k) & 1 for k in range(8)] for value in range(256)], np.float32)
_OTHERS = np.array([p for p in range(PATCH_COUNT) if p != STARTING_PATCH_ID], np.int64)

# Offsets of the observation's blocks (constants, so the writes below compile to fixed addresses).
_OWN_QUILT = O.LAYOUT["own_quilt"].start
_OPPONENT_QUILT = O.LAYOUT["opponent_quilt"].start
_OFFER_SHAPES = O.LAYOUT["offer_shape_0"].start
_TIME = O.LAYOUT["time"].start
_OWN_TRACK = O.LAYOUT["own_track"].start
_OPPONENT_TRACK = O.LAYOUT["opponent_track"].start
_SPECIAL_TRACK = O.LAYOUT["special_track"].start
_INCOME_LEFT_AT = O.LAYOUT["income_left"].start
_BUTTONS = O.LAYOUT["buttons"].start
_INCOME = O.LAYOUT["income"].start
_EMPTY = O.LAYOUT["empty_squares"].start
_BONUS = O.LAYOUT["bonus"].start
_TO_MOVE = O.LAYOUT["to_move"].start
_ON_TOP = O.LAYOUT["on_top"].start
_PENDING = O.LAYOUT["pending"].start
_OFFER = O.LAYOUT["offer"].start
_OFFER_IDS = O.LAYOUT["offer_ids"].start
_CIRCLE = O.LAYOUT["circle"].start
_OFFER_WIDTH = len(O.OFFER_FIELDS)
_CIRCLE_WIDTH = len(O.CIRCLE_FIELDS)
_SIZE = O.OBSERVATION_SIZE
assert O.LAYOUT["offer_shape_2"].start == _OFFER_SHAPES + 2 * SQUARES and O.LAYOUT["features"].start == _TIME


class BatchArrays(NamedTuple):
    """Every array of a batch of N games (row ``i`` is game ``i``); see :class:`~quiltmaker.envs.batched.PatchworkBatch`."""

    states: np.ndarray  # int64[N, STATE_SIZE]
    rings: np.ndarray  # int64[N, RING_WORDS]
    rng: np.ndarray  # uint64[N]: each game's generator (seeds, seats, the opponent's choices)
    game_seed: np.ndarray  # uint64[N]: the seed of the game in play, Position.initial(seed)
    seat: np.ndarray  # int64[N]: the agent's seat (one-agent view), or NO_PLAYER
    observation: np.ndarray  # float32[N, OBSERVATION_SIZE]
    legal_action_mask: np.ndarray  # bool[N, ACTION_COUNT]
    legal: np.ndarray  # int16[N, MAX_MOVES]: the actions the mask holds
    legal_count: np.ndarray  # int64[N]
    current_player: np.ndarray  # int64[N]: who acts next, or NO_PLAYER
    rewards: np.ndarray  # float32[N, 2]: this step's reward for each seat
    terminated: np.ndarray  # bool[N]: a game ended in this step (or is over, without autoreset)
    moves: np.ndarray  # int64[N]: moves played in the game in play
    waiting: np.ndarray  # bool[N]: an outside opponent is to choose the next move
    final_observation: np.ndarray  # float32[N, OBSERVATION_SIZE]: the last observation of a game that ended
    final_scores: np.ndarray  # int64[N, 2]: the scores of a game that ended
    final_winner: np.ndarray  # int64[N]
    final_moves: np.ndarray  # int64[N]
    final_seat: np.ndarray  # int64[N]: the agent's seat in a game that ended (the one-agent view)
    final_illegal: np.ndarray  # bool[N]: the game that ended did so on an illegal action (a flag: any int64 may be that action, -1 too)
    illegal: np.ndarray  # int64[N]: that illegal action; -1 where final_illegal is False
    replies: np.ndarray  # int16[N, MAX_REPLIES]: the opponent's actions since the agent's last, in the game in play
    reply_count: np.ndarray  # int64[N]


class BatchParams(NamedTuple):
    """The batch's fixed settings, as plain integers for the compiled code."""

    opponent: int  # one of the *_OPPONENT kinds; NO_OPPONENT is the two-player view
    fixed_seat: int  # the agent's seat in every game, or NO_PLAYER to draw it each game
    autoreset: bool
    illegal: int  # LOSE or REFUSE
    specials: int  # the time track's special patch spaces (a bit a space)


# A game's setup from its seed: Python's random.Random(seed), compiled ------------------

_MT_N = 624
_MT_M = 397
_U32 = np.uint64(0xFFFFFFFF)


def _mt_base() -> np.ndarray:
    # CPython's init_genrand(19650218), the same for every seed: computed once here.
    mt = np.zeros(_MT_N, np.uint64)
    mt[0] = 19650218
    for i in range(1, _MT_N):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & 0xFFFFFFFF
    return mt


_MT_BASE = _mt_base()
_MT_LAZY = _MT_N - _MT_M  # the first 227 words of a twist need only words that twist has not yet rewritten


@_inline
def _mt_seed(mt, key_low, key_high, key_length):
    """CPython's ``init_by_array`` (``random.seed`` of an int) for a key of one or two 32-bit words."""
    for i in range(_MT_N):
        mt[i] = _MT_BASE[i]
    i = 1
    j = 0
    for _ in range(max(_MT_N, key_length)):
        key = key_low if j == 0 else key_high
        mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> np.uint64(30))) * np.uint64(1664525))) + key + np.uint64(j)) & _U32
        i += 1
        j += 1
        if i >= _MT_N:
            mt[0] = mt[_MT_N - 1]
            i = 1
        if j >= key_length:
            j = 0
    for _ in range(_MT_N - 1):
        mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> np.uint64(30))) * np.uint64(1566083941))) - np.uint64(i)) & _U32
        i += 1
        if i >= _MT_N:
            mt[0] = mt[_MT_N - 1]
            i = 1
    mt[0] = np.uint64(0x80000000)


@_inline
def _mt_twisted(mt, k):
    """Word ``k`` of the next twist, from the words before it (k + 1 < 624)."""
    y = (mt[k] & np.uint64(0x80000000)) | (mt[k + 1] & np.uint64(0x7FFFFFFF))
    value = mt[k + _MT_M if k < _MT_LAZY else k + _MT_M - _MT_N] ^ (y >> np.uint64(1))
    if y & np.uint64(1):
        value ^= np.uint64(0x9908B0DF)
    return value


@_inline
def _mt_twist(mt):
    for k in range(_MT_N - 1):
        mt[k] = _mt_twisted(mt, k)
    y = (mt[_MT_N - 1] & np.uint64(0x80000000)) | (mt[0] & np.uint64(0x7FFFFFFF))
    value = mt[_MT_M - 1] ^ (y >> np.uint64(1))
    if y & np.uint64(1):
        value ^= np.uint64(0x9908B0DF)
    mt[_MT_N - 1] = value


@_inline
def _mt_next(mt, index, twisted):
    """``(the next 32 random bits, the new index, twisted)`` (CPython's ``genrand_uint32``) after seeding.

    A setup needs a few dozen words of the first twist: until ``index``
    reaches 227 each is computed alone, from the seeded words, which stay
    as they were; after that the whole twist is done in place, as CPython does.
    """
    if not twisted and index < _MT_LAZY:
        y = _mt_twisted(mt, index)
    else:
        if not twisted:
            _mt_twist(mt)
            twisted = True
        elif index >= _MT_N:
            _mt_twist(mt)
            index = 0
        y = mt[index]
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & _U32, index + 1, twisted


@_inline
def _mt_below(mt, index, twisted, bound):
    """``(a uniform integer in [0, bound), the new index, twisted)``: ``Random._randbelow`` by rejection of ``getrandbits``."""
    bits = 0
    while (1 << bits) <= bound:
        bits += 1
    while True:
        word, index, twisted = _mt_next(mt, index, twisted)
        value = np.int64(word >> np.uint64(32 - bits))
        if value < bound:
            return value, index, twisted


@_jit
def initial_circle(seed, circle, mt):
    """Fill ``circle`` (33 patch ids, next offered first) as ``Position.initial(seed)`` does; return its first player.

    ``seed`` is a uint64; ``mt`` is scratch space of 624 uint64.
    """
    key_low = seed & _U32
    key_high = seed >> np.uint64(32)
    _mt_seed(mt, key_low, key_high, 2 if key_high else 1)
    index = 0
    twisted = False
    for i in range(len(_OTHERS)):
        circle[i] = _OTHERS[i]
    for i in range(len(_OTHERS) - 1, 0, -1):  # random.shuffle
        j, index, twisted = _mt_below(mt, index, twisted, i + 1)
        circle[i], circle[j] = circle[j], circle[i]
    circle[len(_OTHERS)] = STARTING_PATCH_ID
    first, index, twisted = _mt_below(mt, index, twisted, 2)
    return first


# Rows in, rows out -----------------------------------------------------------------------------


@_inline
def _store_state(states, row, state):
    # Written out: a loop would index the tuple at run time, which numba compiles into a jump table.
    (states[row, 0], states[row, 1], states[row, 2], states[row, 3], states[row, 4], states[row, 5], states[row, 6],
     states[row, 7], states[row, 8], states[row, 9], states[row, 10], states[row, 11], states[row, 12],
     states[row, 13], states[row, 14], states[row, 15]) = state


@_inline
def _ring_from_row(rings, row):
    return (rings[row, 0], rings[row, 1], rings[row, 2], rings[row, 3])


@_inline
def _store_ring(rings, row, ring):
    rings[row, 0], rings[row, 1], rings[row, 2], rings[row, 3] = ring


@_inline
def _write_quilt(o, start, low, high):
    """The quilt's 81 squares as 0/1 floats from ``o[start]``, eight at a time from a table of bytes."""
    for byte in range(8):
        bits = (low >> np.uint64(8 * byte)) & np.uint64(0xFF)
        for k in range(8):
            o[start + 8 * byte + k] = _BYTE_FLOATS[bits, k]
    for byte in range(2):
        bits = (high >> np.uint64(8 * byte)) & np.uint64(0xFF)
        for k in range(8):
            o[start + 64 + 8 * byte + k] = _BYTE_FLOATS[bits, k]
    o[start + 80] = np.float32((high >> np.uint64(16)) & np.uint64(1))


@_jit
def encode_row(state, ring, player, out, row):
    """Write the observation of ``state`` seen by ``player`` into ``out[row]``: :func:`quiltmaker.envs.observation.encode`, compiled.

    Each block is written once: the dense ones in full, the sparse ones
    (one-hot tracks and offer ids, the circle's tail) cleared first.
    """
    o = out[row]
    other = 1 - player
    low, high = quilt_words(state, player)
    _write_quilt(o, _OWN_QUILT, low, high)
    other_low, other_high = quilt_words(state, other)
    _write_quilt(o, _OPPONENT_QUILT, other_low, other_high)
    for k in range(_TIME, _SIZE):
        o[k] = 0.0
    offered, slots = offered_slots(state)
    buttons = field(state, K.BUTTONS0, player)
    for k in range(3):
        start = _OFFER_SHAPES + k * SQUARES
        if k >= offered:
            for square in range(SQUARES):
                o[start + square] = 0.0
            continue
        patch = offered_patch(ring, slots, k)
        for square in range(SQUARES):
            o[start + square] = _SHAPE_PLANES[patch, square]
        offer = _OFFER + k * _OFFER_WIDTH
        o[offer] = 1.0
        for f in range(4):
            o[offer + 1 + f] = _PATCH_FIELDS[patch, f]
        o[offer + 5] = 1.0 if COST[patch] <= buttons else 0.0
        o[_OFFER_IDS + k * PATCH_COUNT + patch] = 1.0
    own_time = field(state, K.TIME0, player)
    other_time = field(state, K.TIME0, other)
    o[_TIME] = own_time / LAST_SPACE
    o[_TIME + 1] = other_time / LAST_SPACE
    o[_OWN_TRACK + own_time] = 1.0
    o[_OPPONENT_TRACK + other_time] = 1.0
    specials = state[K.SPECIALS]
    while specials:
        space = np.int64(K.trailing_zeros(np.uint64(specials)))
        o[_SPECIAL_TRACK + space] = 1.0
        specials &= specials - 1
    o[_INCOME_LEFT_AT] = _INCOME_LEFT[own_time]
    o[_INCOME_LEFT_AT + 1] = _INCOME_LEFT[other_time]
    o[_BUTTONS] = buttons / O.BUTTONS_SCALE
    o[_BUTTONS + 1] = field(state, K.BUTTONS0, other) / O.BUTTONS_SCALE
    o[_INCOME] = field(state, K.INCOME0, player) / O.INCOME_SCALE
    o[_INCOME + 1] = field(state, K.INCOME0, other) / O.INCOME_SCALE
    o[_EMPTY] = (SQUARES - K.square_count(low, high)) / SQUARES
    o[_EMPTY + 1] = (SQUARES - K.square_count(other_low, other_high)) / SQUARES
    bonus = state[K.BONUS]
    if bonus != NO_BONUS:
        o[_BONUS + (0 if bonus == player else 1)] = 1.0
    o[_TO_MOVE] = 1.0 if to_move(state) == player else 0.0
    on_top = state[K.ON_TOP] == player
    o[_ON_TOP] = 1.0 if on_top else 0.0
    o[_PENDING] = np.float32(state[K.PENDING]) if on_top else 0.0
    # The circle in order from the next offered patch: the ring's slots from the head.
    remaining = np.uint64(state[K.REMAINING])
    head = np.uint64(state[K.HEAD])
    rotated = ((remaining >> head) | (remaining << (np.uint64(RING_SIZE) - head))) & np.uint64(K.RING_MASK)
    at = _CIRCLE
    while rotated:
        slot = np.int64(K.trailing_zeros(rotated)) + np.int64(head)
        if slot >= RING_SIZE:
            slot -= RING_SIZE
        patch = ring_patch(ring, slot)
        o[at] = 1.0
        for f in range(4):
            o[at + 1 + f] = _PATCH_FIELDS[patch, f]
        at += _CIRCLE_WIDTH
        rotated &= rotated - np.uint64(1)


@_inline
def _clear_mask(arrays, row):
    mask = arrays.legal_action_mask
    legal = arrays.legal
    for k in range(arrays.legal_count[row]):
        mask[row, legal[row, k]] = False
    arrays.legal_count[row] = 0


@_inline
def _write_mask(arrays, row, state, ring):
    """Replace the row's legal actions and mask by those of ``state`` (none once the game is over)."""
    _clear_mask(arrays, row)
    mask = arrays.legal_action_mask
    legal = arrays.legal
    count = legal_actions(state, ring, legal[row])
    for k in range(count):
        mask[row, legal[row, k]] = True
    arrays.legal_count[row] = count


# Opponents inside the batch ---------------------------------------------------------------------


@_inline
def greedy_action(state, ring, rng, moves):
    """``(GreedyPlayer's choice, generator)``: its move values, ties broken uniformly from ``rng``.

    ``moves`` is scratch space of :data:`MAX_MOVES` int16. A test holds the
    choice among :class:`quiltmaker.ai.players.GreedyPlayer`'s best moves.
    """
    player = to_move(state)
    count = legal_actions(state, ring, moves)
    low, high = quilt_words(state, player)
    start = field(state, K.TIME0, player)
    best = -1.0e300
    chosen = ADVANCE_ACTION
    ties = 0
    for k in range(count):
        action = np.int64(moves[k])
        if action == ADVANCE_ACTION:
            value = 0.0
        else:
            value = contact(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1]) / 100
            if action >= FIRST_BUY_ACTION:
                value += patch_value(K.ACTION_PATCH[action], start)
        if value > best:
            best = value
            chosen = action
            ties = 1
        elif value == best:
            ties += 1
            pick, rng = random_below(rng, ties)  # reservoir sampling: each tie kept with chance 1/ties
            if pick == 0:
                chosen = action
    return chosen, rng


@_inline
def _opponent_action(kind, state, ring, rng, scratch):
    if kind == RANDOM_OPPONENT:
        return random_action_inlined(state, ring, rng)
    return greedy_action(state, ring, rng, scratch)


# One game's progress ------------------------------------------------------------------------------


@_inline
def _new_game(arrays, params, row, circle, mt):
    """Start the row's next game from a seed drawn from its generator."""
    bits, rng = next_random(np.uint64(arrays.rng[row]))
    seed = bits >> np.uint64(1)  # a non-negative int64, like the Gymnasium adapter's drawn seeds
    arrays.rng[row] = rng
    _start_game(arrays, params, row, seed, circle, mt)


@_inline
def _start_game(arrays, params, row, seed, circle, mt):
    first = initial_circle(seed, circle, mt)
    state, ring = initial_state(circle, first, params.specials)
    _store_state(arrays.states, row, state)
    _store_ring(arrays.rings, row, ring)
    arrays.game_seed[row] = seed
    arrays.moves[row] = 0
    arrays.reply_count[row] = 0
    if params.opponent != NO_OPPONENT:
        seat = params.fixed_seat
        bits, rng = next_random(np.uint64(arrays.rng[row]))
        arrays.rng[row] = rng
        if seat == NO_PLAYER:
            seat = np.int64(bits >> np.uint64(63))
        arrays.seat[row] = seat


@_inline
def _settle(arrays, params, row, last_mover, circle, mt, scratch):
    """After a move by ``last_mover``: play the kernel's opponent, end and restart a finished game, write the row's outputs.

    Leaves the row ``waiting`` instead when an outside opponent is to move.
    """
    while True:
        state = state_from_row(arrays.states, row)
        ring = _ring_from_row(arrays.rings, row)
        mover = to_move(state)
        seat = arrays.seat[row]
        if mover != GAME_OVER and params.opponent != NO_OPPONENT and mover != seat:
            if params.opponent == OUTSIDE_OPPONENT:
                arrays.waiting[row] = True
                arrays.current_player[row] = mover
                return
            action, rng = _opponent_action(params.opponent, state, ring, np.uint64(arrays.rng[row]), scratch)
            arrays.rng[row] = rng
            _play(arrays, row, state, ring, action, True)
            last_mover = mover
            continue
        arrays.waiting[row] = False
        if mover != GAME_OVER:
            arrays.current_player[row] = mover
            encode_row(state, ring, mover if seat == NO_PLAYER else seat, arrays.observation, row)
            _write_mask(arrays, row, state, ring)
            return
        if not arrays.terminated[row]:  # the game has just ended
            _finish(arrays, row, state, ring, last_mover, NO_PLAYER, -1)
        if params.autoreset:
            _new_game(arrays, params, row, circle, mt)
            continue
        arrays.current_player[row] = NO_PLAYER
        _show_final_observation(arrays, row)
        return


@_inline
def _show_final_observation(arrays, row):
    """A finished game, not reset, shows its last observation and no legal action.

    Copied square by square: a slice assignment would compile numba's shape-mismatch error and its
    string formatting, a second or two of every first use, for a mismatch that cannot happen.
    """
    for k in range(_SIZE):
        arrays.observation[row, k] = arrays.final_observation[row, k]
    _clear_mask(arrays, row)


@_inline
def _play(arrays, row, state, ring, action, reply):
    _store_state(arrays.states, row, step_inlined(state, ring, action))
    arrays.moves[row] += 1
    if reply:
        arrays.replies[row, arrays.reply_count[row]] = action
        arrays.reply_count[row] += 1


@_inline
def _finish(arrays, row, state, ring, last_mover, loser, illegal):
    """Record the end of the row's game: the rewards, scores, winner, length and the last observation.

    The last observation is seen by the agent in the one-agent view, and by
    the player who made the last move (or the illegal one) otherwise.
    """
    won = winner(state) if loser == NO_PLAYER else 1 - loser
    arrays.terminated[row] = True
    arrays.rewards[row, won] = 1.0
    arrays.rewards[row, 1 - won] = -1.0
    arrays.final_scores[row, 0] = K.score(state, 0)
    arrays.final_scores[row, 1] = K.score(state, 1)
    arrays.final_winner[row] = won
    arrays.final_moves[row] = arrays.moves[row]
    arrays.final_illegal[row] = loser != NO_PLAYER
    arrays.illegal[row] = illegal
    seat = arrays.seat[row]
    arrays.final_seat[row] = seat
    encode_row(state, ring, seat if seat != NO_PLAYER else last_mover, arrays.final_observation, row)
    arrays.current_player[row] = NO_PLAYER


@_jit
def first_illegal(arrays, params, rows, actions):
    """The index in ``rows`` of the first game whose action its mask rules out (-1 if none): checked before anything changes."""
    for i in range(len(rows)):
        row = rows[i]
        if arrays.waiting[row] or (arrays.terminated[row] and not params.autoreset):
            continue
        action = actions[i]
        if action < 0 or action >= arrays.legal_action_mask.shape[1] or not arrays.legal_action_mask[row, action]:
            return i
    return -1


@_inline
def _scratch_space():
    """Room for a setup's circle, the Mersenne Twister's words and a list of moves: one of each a call."""
    return np.empty(RING_SIZE, np.int64), np.empty(_MT_N, np.uint64), np.empty(MAX_MOVES, np.int16)


def step_games(arrays: BatchArrays, params: BatchParams, rows: np.ndarray, actions: np.ndarray) -> int:
    """Play ``actions[i]`` in game ``rows[i]`` for each i; return how many games now wait for an outside opponent.

    An action of a game that waits for its outside opponent is that
    opponent's move. Without autoreset a finished game ignores its action.
    """
    return int(advance_games(arrays, params, rows, actions, _NO_SEEDS, False, False))


def reset_games(arrays: BatchArrays, params: BatchParams, rows: np.ndarray, seeds: np.ndarray, use_seeds: bool) -> int:
    """Start a new game in each of ``rows``: ``Position.initial(seeds[i])``, or a seed from the game's generator."""
    return int(advance_games(arrays, params, rows, _NO_ACTIONS, seeds, True, use_seeds))


_NO_SEEDS = np.zeros(0, np.uint64)
_NO_ACTIONS = np.zeros(0, np.int64)


@_jit
def advance_games(arrays, params, rows, actions, seeds, resetting, use_seeds):
    """Step (``actions[i]`` in game ``rows[i]``) or reset (from ``seeds[i]`` when ``use_seeds``) each of ``rows``;
    return how many games now wait for an outside opponent.

    One compiled function for both, with one copy of :func:`_settle`: the
    rules, opponents and encoding inlined into it are most of the compile
    time, and a kernel for each compiled them twice.
    """
    circle, mt, scratch = _scratch_space()
    waiting = 0
    for i in range(len(rows)):
        row = rows[i]
        if resetting:
            last_mover = _reset_row(arrays, params, row, seeds[i] if use_seeds else np.uint64(0), use_seeds, circle, mt)
        else:
            last_mover = _move_row(arrays, params, row, np.int64(actions[i]), circle, mt, scratch)
        if last_mover != SETTLED:
            _settle(arrays, params, row, last_mover, circle, mt, scratch)
        if arrays.waiting[row]:
            waiting += 1
    return waiting


# What _reset_row and _move_row answer when the row needs no _settle after them.
SETTLED = -2


@_inline
def _reset_row(arrays, params, row, seed, use_seed, circle, mt):
    arrays.rewards[row, 0] = 0.0
    arrays.rewards[row, 1] = 0.0
    arrays.terminated[row] = False
    arrays.waiting[row] = False
    if use_seed:
        _start_game(arrays, params, row, seed, circle, mt)
    else:
        _new_game(arrays, params, row, circle, mt)
    return NO_PLAYER


@_inline
def _move_row(arrays, params, row, action, circle, mt, scratch):
    """Play ``action`` in the row's game: answers who moved last, for :func:`_settle`, or SETTLED."""
    was_waiting = arrays.waiting[row]
    if not was_waiting:
        arrays.rewards[row, 0] = 0.0
        arrays.rewards[row, 1] = 0.0
        if arrays.terminated[row] and not params.autoreset:
            return SETTLED
        arrays.terminated[row] = False
        arrays.reply_count[row] = 0
    state = state_from_row(arrays.states, row)
    ring = _ring_from_row(arrays.rings, row)
    mover = to_move(state)
    legal = 0 <= action < arrays.legal_action_mask.shape[1]
    if legal:
        if was_waiting:  # the outside opponent's move: not in the mask, which is the agent's
            count = legal_actions(state, ring, scratch)
            legal = False
            for k in range(count):
                if scratch[k] == action:
                    legal = True
        else:
            legal = arrays.legal_action_mask[row, action]
    if legal:
        _play(arrays, row, state, ring, action, was_waiting)
        return mover
    # Only LOSE reaches here for the agent (REFUSE was checked first); an opponent's
    # illegal move loses for the opponent.
    _finish(arrays, row, state, ring, mover, mover, action)
    arrays.waiting[row] = False
    if params.autoreset:
        _new_game(arrays, params, row, circle, mt)
        return NO_PLAYER
    _show_final_observation(arrays, row)
    return SETTLED


@_jit
def random_actions(arrays, generator, out):
    """Fill ``out`` with a uniformly random legal action of each game (0 where none is legal).

    ``generator`` is one uint64 in an array, advanced in place.
    """
    rng = generator[0]
    for row in range(len(out)):
        count = arrays.legal_count[row]
        if count == 0:
            out[row] = 0
        else:
            pick, rng = random_below(rng, count)
            out[row] = arrays.legal[row, pick]
    generator[0] = rng


__all__ = ["FIRST_SPECIAL_ACTION", "BatchArrays", "BatchParams", "step_games", "reset_games", "random_actions"]
