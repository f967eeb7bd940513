"""The compiled half of Monte Carlo tree search: tree arrays, expansion, playouts, back-up.

See :mod:`quiltmaker.ai.mcts` for the design; this module holds the code
that numba compiles and the named tuples it takes: the tree's arrays
(:class:`TreeArrays`), the search's parameters (:class:`SearchParams`) and
the cache of best placements (:class:`ExpansionCache`). Numba compiles a
named tuple's fields as a struct, so a name costs nothing at run time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..core.components import PATCHES, SQUARES
from ..compiled import rules as K
from ..compiled.playouts import next_random, patch_value, placement_score, playout, random_action
from ..compiled.rules import (
    ACTION_MASK,
    COST,
    GAME_OVER,
    NO_ACTION,
    PATCH_FIRST,
    _anchor_action,
    _next_slot,
    _inline,
    _jit,
    field,
    free_anchors,
    offered_patch,
    offered_slots,
    quilt_words,
    score,
    step,
    step_inlined,
    to_move,
    trailing_zeros,
    winner,
)

RANDOM_PLAYOUTS = 0
GREEDY_PLAYOUTS = 1
MAX_DEPTH = 512  # plies from the root a selection may descend (a game has far fewer)
SPECIAL_TRIES = 4  # random empty squares a greedy playout compares for a special patch
NO_SCORE = -1000  # below any placement score
MARGIN_SCALE = 20.0  # points of margin at which the margin's share of a reward is about three quarters
UNIT_SCALE = 1.0 / (1 << 53)  # turns the top 53 random bits into a float in [0, 1)
SPECIAL_KEY = 1 + len(PATCHES)  # the cache key of a special patch's squares; patch p's is 1 + p
NOT_EXPANDED = -1  # a node's first edge before the node is expanded
NO_CHILD = -1  # an edge's child before the edge is first followed
NO_NODE = -1  # find_node found nothing
NOT_CACHED = -1  # the expansion cache holds nothing for a quilt and patch


class TreeArrays(NamedTuple):
    """A search tree as flat arrays: nodes by index, each node's edges side by side from ``node_first``.

    Node 0 is not always the root (the tree keeps its root's index). Every
    entry is written before it is read, so the arrays may start uninitialised.
    """

    states: np.ndarray  # (nodes, STATE_SIZE) int64: the state at each node
    node_first: np.ndarray  # index of the node's first edge; NOT_EXPANDED before its expansion
    node_count: np.ndarray  # how many edges the node has
    node_visits: np.ndarray  # iterations through the node
    node_player: np.ndarray  # the player to act there; GAME_OVER at the end of the game
    edge_action: np.ndarray  # the action of each edge
    edge_child: np.ndarray  # the node the edge leads to; NO_CHILD until first followed
    edge_visits: np.ndarray  # iterations through the edge
    edge_reward: np.ndarray  # float64: the rewards backed up through it, for the player who chose it
    edge_wins: np.ndarray  # float64: the wins among them
    edge_margin: np.ndarray  # float64: the sum of the final score margins
    sizes: np.ndarray  # (2,) int64: nodes and edges in use


def new_tree_arrays(nodes: int, edges: int) -> TreeArrays:
    """Room for ``nodes`` nodes and ``edges`` edges, allocated but not touched, none in use."""
    integers = {name: np.empty(nodes, dtype=np.int64) for name in ("node_first", "node_count", "node_visits", "node_player")}
    return TreeArrays(
        states=np.empty((nodes, K.STATE_SIZE), dtype=np.int64),
        **integers,
        edge_action=np.empty(edges, dtype=np.int64),
        edge_child=np.empty(edges, dtype=np.int64),
        edge_visits=np.empty(edges, dtype=np.int64),
        edge_reward=np.empty(edges, dtype=np.float64),
        edge_wins=np.empty(edges, dtype=np.float64),
        edge_margin=np.empty(edges, dtype=np.float64),
        sizes=np.zeros(2, dtype=np.int64),
    )


class SearchParams(NamedTuple):
    """What the compiled search reads of :class:`quiltmaker.ai.mcts.SearchConfig`."""

    exploration: float  # the UCT exploration constant
    placements: int  # placements kept per patch on offer (0 keeps all)
    special_squares: int  # squares considered for a special patch (0 keeps all)
    policy: int  # RANDOM_PLAYOUTS or GREEDY_PLAYOUTS
    epsilon: float  # in greedy playouts, the chance of a uniformly random move
    margin_weight: float  # the share of a reward given to the score margin


class ExpansionCache(NamedTuple):
    """Best placements by quilt and patch: a direct-mapped table (see :func:`_candidates`)."""

    keys: np.ndarray  # (slots, 3) uint64: the quilt's two words and the key (patch or special) of each entry
    actions: np.ndarray  # (slots, width + 1) int64: how many actions, then the actions


# Compiled pieces ------------------------------------------------------------------


@_inline
def _store_state(states, node, state):
    for i in range(K.STATE_SIZE):
        states[node, i] = state[i]


@_inline
def _keep_best(actions, scores, kept, limit, action, value):
    """Insert ``(action, value)`` into the best-first list of at most ``limit`` entries; return its new length."""
    if kept == limit and value <= scores[kept - 1]:
        return kept
    position = kept if kept < limit else limit - 1
    while position > 0 and scores[position - 1] < value:
        if position < limit:
            actions[position] = actions[position - 1]
            scores[position] = scores[position - 1]
        position -= 1
    actions[position] = action
    scores[position] = value
    return kept + 1 if kept < limit else kept


def new_expansion_cache(slots: int, width: int) -> ExpansionCache:
    """An empty cache for :func:`_candidates`: ``slots`` entries (a power of two) of ``width`` actions."""
    return ExpansionCache(np.zeros((slots, 3), dtype=np.uint64), np.zeros((slots, width + 1), dtype=np.int64))


@_inline
def _cache_slot(low, high, key, slots):
    # splitmix64's finaliser: every bit of the quilt reaches the low bits that pick the slot.
    h = low ^ (high * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(key) * np.uint64(0xC2B2AE3D27D4EB4F))
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return np.int64(h & np.uint64(slots - 1))


@_inline
def _cached(cache_keys, cache_actions, slot, low, high, key):
    """How many actions the cache holds for ``(low, high, key)`` at ``slot``; NOT_CACHED when it holds none."""
    if cache_keys[slot, 2] == np.uint64(key) and cache_keys[slot, 0] == low and cache_keys[slot, 1] == high:
        return cache_actions[slot, 0]
    return NOT_CACHED


@_inline
def _remember(cache_keys, cache_actions, slot, low, high, key, actions, kept):
    cache_keys[slot, 0] = low
    cache_keys[slot, 1] = high
    cache_keys[slot, 2] = np.uint64(key)
    cache_actions[slot, 0] = kept
    for i in range(kept):
        cache_actions[slot, 1 + i] = actions[i]


@_jit
def _candidates(state, ring, out, best_actions, best_scores, placements, special_squares, cache):
    """The actions a node searches, best first within each patch; returns how many went into ``out``.

    The best placements of a patch depend only on the quilt and the patch, and
    recur all over a tree (the opponent's moves leave a quilt as it was), so
    they are remembered in ``cache`` (an :class:`ExpansionCache`, a
    direct-mapped table keyed by quilt and patch). The answer is the same
    with or without a hit.
    """
    cache_keys = cache.keys
    cache_actions = cache.actions
    player = to_move(state)
    low, high = quilt_words(state, player)
    slots = cache_keys.shape[0]
    count = 0
    if state[K.PENDING] > 0:
        limit = special_squares if special_squares > 0 else SQUARES
        key = SPECIAL_KEY
        slot = _cache_slot(low, high, key, slots)
        kept = _cached(cache_keys, cache_actions, slot, low, high, key) if special_squares > 0 else NOT_CACHED
        if kept != NOT_CACHED:
            for i in range(kept):
                out[i] = cache_actions[slot, 1 + i]
            return kept
        kept = 0
        for square in range(SQUARES):
            action = K.FIRST_SPECIAL_ACTION + square
            if (ACTION_MASK[action, 0] & low) or (ACTION_MASK[action, 1] & high):
                continue
            value = placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])
            kept = _keep_best(best_actions, best_scores, kept, limit, action, value)
        for i in range(kept):
            out[i] = best_actions[i]
        if special_squares > 0:
            _remember(cache_keys, cache_actions, slot, low, high, key, best_actions, kept)
        return kept
    out[0] = K.ADVANCE_ACTION
    count = 1
    limit = placements if placements > 0 else K.MAX_MOVES
    offered, slots_in_circle = offered_slots(state)
    for k in range(offered):
        patch = offered_patch(ring, slots_in_circle, k)
        if COST[patch] > field(state, K.BUTTONS0, player):
            continue
        key = 1 + patch
        slot = _cache_slot(low, high, key, slots)
        kept = _cached(cache_keys, cache_actions, slot, low, high, key) if placements > 0 else NOT_CACHED
        if kept != NOT_CACHED:
            for i in range(kept):
                out[count] = cache_actions[slot, 1 + i]
                count += 1
            continue
        kept = 0
        for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
            free_low, free_high = free_anchors(orientation, low, high)
            while free_low | free_high:
                if free_low:
                    anchor = trailing_zeros(free_low)
                    free_low &= free_low - np.uint64(1)
                else:
                    anchor = trailing_zeros(free_high) + np.uint64(64)
                    free_high &= free_high - np.uint64(1)
                action = _anchor_action(orientation, anchor)
                if placements > 0:
                    value = placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])
                    kept = _keep_best(best_actions, best_scores, kept, limit, action, value)
                else:
                    out[count] = action
                    count += 1
        for i in range(kept):
            out[count] = best_actions[i]
            count += 1
        if placements > 0:
            _remember(cache_keys, cache_actions, slot, low, high, key, best_actions, kept)
    return count


@_inline
def _greedy_action(state, ring, rng, epsilon):
    """A heuristic playout move: the greedy player's patch value, a first-fit snug placement."""
    bits, rng = next_random(rng)
    if (bits >> np.uint64(11)) * UNIT_SCALE < epsilon:
        return random_action(state, ring, rng)
    player = to_move(state)
    if player == GAME_OVER:
        return NO_ACTION, rng
    low, high = quilt_words(state, player)
    if state[K.PENDING] > 0:
        # The snuggest of a few random empty squares.
        best_action = NO_ACTION
        best_value = NO_SCORE
        for _ in range(SPECIAL_TRIES):
            action, rng = random_action(state, ring, rng)
            value = placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])
            if value > best_value:
                best_value = value
                best_action = action
        return best_action, rng
    start = field(state, K.TIME0, player)
    buttons = field(state, K.BUTTONS0, player)
    best_action = K.ADVANCE_ACTION
    best_value = 0.0
    offered, slots = offered_slots(state)
    for k in range(offered):
        patch = offered_patch(ring, slots, k)
        if COST[patch] > buttons:
            continue
        value = patch_value(patch, start) + 0.0
        if value <= best_value:
            continue
        # Each orientation at its first free anchor in reading order; keep the snuggest.
        placed = NO_ACTION
        placed_score = NO_SCORE
        for orientation in range(PATCH_FIRST[patch], PATCH_FIRST[patch + 1]):
            free_low, free_high = free_anchors(orientation, low, high)
            if free_low:
                action = _anchor_action(orientation, trailing_zeros(free_low))
            elif free_high:
                action = _anchor_action(orientation, trailing_zeros(free_high) + np.uint64(64))
            else:
                continue
            fit = placement_score(low, high, ACTION_MASK[action, 0], ACTION_MASK[action, 1])
            if fit > placed_score:
                placed_score = fit
                placed = action
        if placed != NO_ACTION:
            best_value = value
            best_action = placed
    return best_action, rng


@_jit
def _greedy_playout(state, ring, rng, epsilon):
    while True:
        action, rng = _greedy_action(state, ring, rng, epsilon)
        if action == NO_ACTION:
            return state, rng
        state = step_inlined(state, ring, action)


@_jit
def run_search(tree, root, ring, iterations, rng, params, cache):
    """Run up to ``iterations`` iterations from ``root``; returns ``(iterations done, generator state)``.

    ``tree`` is a :class:`TreeArrays`, whose ``sizes`` are updated; ``params``
    a :class:`SearchParams`; ``cache`` an :class:`ExpansionCache`. The search
    stops early when the arrays might not hold another iteration.
    """
    states = tree.states
    node_first = tree.node_first
    node_count = tree.node_count
    node_visits = tree.node_visits
    node_player = tree.node_player
    edge_action = tree.edge_action
    edge_child = tree.edge_child
    edge_visits = tree.edge_visits
    edge_reward = tree.edge_reward
    edge_wins = tree.edge_wins
    edge_margin = tree.edge_margin
    sizes = tree.sizes
    exploration = params.exploration
    placements = np.int64(params.placements)
    special_squares = np.int64(params.special_squares)
    policy = np.int64(params.policy)
    epsilon = params.epsilon
    margin_weight = params.margin_weight
    node_capacity = states.shape[0]
    edge_capacity = edge_action.shape[0]
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    best_actions = np.empty(K.MAX_MOVES, dtype=np.int64)
    best_scores = np.empty(K.MAX_MOVES, dtype=np.int64)
    done = 0
    while done < iterations:
        if sizes[0] + 1 > node_capacity or sizes[1] + K.MAX_MOVES > edge_capacity:
            break
        node = root
        state = K.state_from_row(states, node)
        depth = 0
        while True:
            if node_player[node] == GAME_OVER:
                break
            if node_first[node] == NOT_EXPANDED:
                first = sizes[1]
                count = _candidates(state, ring, edge_action[first:], best_actions, best_scores, placements, special_squares, cache)
                for e in range(first, first + count):
                    edge_child[e] = NO_CHILD
                    edge_visits[e] = 0
                    edge_reward[e] = 0.0
                    edge_wins[e] = 0.0
                    edge_margin[e] = 0.0
                node_first[node] = first
                node_count[node] = count
                sizes[1] += count
            # UCT; an unvisited edge is taken first, in candidate order.
            first = node_first[node]
            chosen = -1
            best = -1.0e300
            log_visits = math.log(node_visits[node] + 1.0)
            for e in range(first, first + node_count[node]):
                visits = edge_visits[e]
                if visits == 0:
                    chosen = e
                    break
                value = edge_reward[e] / visits + exploration * math.sqrt(log_visits / visits)
                if value > best:
                    best = value
                    chosen = e
            path[depth] = chosen
            depth += 1
            child = edge_child[chosen]
            if child == NO_CHILD:
                state = step(state, ring, edge_action[chosen])
                child = sizes[0]
                sizes[0] += 1
                _store_state(states, child, state)
                node_first[child] = NOT_EXPANDED
                node_count[child] = 0
                node_visits[child] = 0
                node_player[child] = to_move(state)
                edge_child[chosen] = child
                node = child
                break
            node = child
            state = K.state_from_row(states, node)
            if depth >= MAX_DEPTH:
                break
        if policy == RANDOM_PLAYOUTS:
            final, rng, _ = playout(state, ring, rng)
        else:
            final, rng = _greedy_playout(state, ring, rng, epsilon)
        score0 = score(final, 0)
        score1 = score(final, 1)
        won_by = winner(final)
        # Back up: each edge is credited from the view of the player who chose it.
        node = root
        node_visits[root] += 1
        for i in range(depth):
            e = path[i]
            player = node_player[node]
            margin = score0 - score1 if player == 0 else score1 - score0
            win = 1.0 if won_by == player else 0.0
            edge_visits[e] += 1
            edge_wins[e] += win
            edge_margin[e] += margin
            edge_reward[e] += (1.0 - margin_weight) * win + margin_weight * (0.5 + 0.5 * math.tanh(margin / MARGIN_SCALE))
            node = edge_child[e]
            node_visits[node] += 1
        done += 1
    return done, rng


@_inline
def _first_offer(remaining, head):
    """The ring slot the next offer starts at (``HEAD`` may name a slot already bought), or NO_SLOT with none left."""
    rotated = ((np.uint64(remaining) >> np.uint64(head)) | (np.uint64(remaining) << np.uint64(K.RING_SIZE - head)))
    rotated &= np.uint64(K.RING_MASK)
    return _next_slot(rotated, np.uint64(head))


@_inline
def _same_state(states, node, target):
    for i in range(K.STATE_SIZE):
        if i != K.HEAD and states[node, i] != target[i]:
            return False
    return _first_offer(states[node, K.REMAINING], states[node, K.HEAD]) == _first_offer(target[K.REMAINING], target[K.HEAD])


@_inline
def _may_lead_to(states, node, target):
    """False when no line of play from the node reaches ``target``: what only grows or only shrinks has gone too far."""
    for player in range(2):
        if states[node, K.TIME0 + player] > target[K.TIME0 + player]:
            return False
        for word in range(2):
            quilt = K.QUILT0_LO + 2 * player + word
            if states[node, quilt] & ~target[quilt]:
                return False  # a square covered here is empty there
    # Patches leave the circle and special patches leave the track, never the other way.
    return not (target[K.REMAINING] & ~states[node, K.REMAINING]) and not (target[K.SPECIALS] & ~states[node, K.SPECIALS])


@_jit
def find_node(tree, root, target, queue):
    """The shallowest node under ``root`` whose state is ``target``, or NO_NODE; ``queue`` must hold every node.

    Breadth first, but only into nodes from which ``target`` is still
    reachable (the time track, the quilts, the circle and the special
    patches all move one way), so the walk follows the moves actually
    played and costs microseconds, whatever the size of the tree.
    """
    states = tree.states
    node_first = tree.node_first
    node_count = tree.node_count
    edge_child = tree.edge_child
    queue[0] = root
    head = 0
    tail = 1
    while head < tail:
        node = queue[head]
        head += 1
        if _same_state(states, node, target):
            return node
        first = node_first[node]
        if first == NOT_EXPANDED:
            continue
        for e in range(first, first + node_count[node]):
            child = edge_child[e]
            if child != NO_CHILD and _may_lead_to(states, child, target):
                queue[tail] = child
                tail += 1
    return NO_NODE


@_jit
def compact(old, root, new):
    """Copy the subtree of ``old`` under ``root`` into ``new`` (both :class:`TreeArrays`), ``root`` becoming node 0."""
    queue = np.empty(old.states.shape[0], dtype=np.int64)
    queue[0] = root
    head = 0
    tail = 1
    edges = 0
    while head < tail:
        node_old = queue[head]
        node = head  # nodes are numbered in the order they are queued
        head += 1
        new.states[node] = old.states[node_old]
        new.node_visits[node] = old.node_visits[node_old]
        new.node_player[node] = old.node_player[node_old]
        new.node_count[node] = old.node_count[node_old]
        if old.node_first[node_old] == NOT_EXPANDED:
            new.node_first[node] = NOT_EXPANDED
            continue
        new.node_first[node] = edges
        for i in range(old.node_count[node_old]):
            e = old.node_first[node_old] + i
            new.edge_action[edges] = old.edge_action[e]
            new.edge_visits[edges] = old.edge_visits[e]
            new.edge_reward[edges] = old.edge_reward[e]
            new.edge_wins[edges] = old.edge_wins[e]
            new.edge_margin[edges] = old.edge_margin[e]
            if old.edge_child[e] != NO_CHILD:
                queue[tail] = old.edge_child[e]
                new.edge_child[edges] = tail
                tail += 1
            else:
                new.edge_child[edges] = NO_CHILD
            edges += 1
    new.sizes[0] = tail
    new.sizes[1] = edges
