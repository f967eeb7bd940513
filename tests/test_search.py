"""Monte Carlo tree search: known best moves, limits, seeds, tree reuse, bookkeeping."""

from __future__ import annotations

import random

import numpy as np
import pytest

from quiltmaker.ai import kernel as K
from quiltmaker.ai.mcts import MCTSPlayer, SearchConfig, SearchTree
from quiltmaker.ai.search_kernel import _candidates, new_expansion_cache
from quiltmaker.moves import Move
from quiltmaker.players import GreedyPlayer, Limit, play_game
from quiltmaker.position import Position

_ROWS_WITH_GAPS = ["xxx1xxx1x"] * 7  # 7 squares a row, never a 7x7 area


def last_move_decides() -> Position:
    """Player 0 on 52 makes the game's last move; only buying patch 25 (6 squares for 4 buttons) wins.

    Advancing scores -58 + 1, patch 9 gains 2 squares' worth less; player 1 has -51
    and the tie-break would favour player 1, who reached 53 first.
    """
    quilt0 = "/".join([*_ROWS_WITH_GAPS, "9", "9"])
    quilt1 = "/".join([*_ROWS_WITH_GAPS, "xx7", "9"])
    return Position.from_text(f"revised 9,17,25 52,6,0,{quilt0} 53,9,0,{quilt1} 1 - - 0")


def winning_moves(position: Position) -> set[Move]:
    """Moves after which the game is over and the mover has won (exhaustive, one ply)."""
    mover = position.to_move
    return {m for m in position.legal_moves() if position.play(m).is_over and position.play(m).winner == mover}


@pytest.mark.parametrize("playouts", ["random", "greedy"])
@pytest.mark.parametrize("placements", [0, 4])
def test_finds_the_only_winning_last_move(playouts: str, placements: int) -> None:
    position = last_move_decides()
    winners = winning_moves(position)
    assert winners and all(m.patch == 25 for m in winners)
    config = SearchConfig(playouts=playouts, placements=placements)
    player = MCTSPlayer(Limit(iterations=400), config, seed=3, endgame_solver=False)
    move = player.choose_move(position)
    assert move in winners
    best = player.analyse(position)[0]
    assert best.win_rate == 1.0 and best.margin > 0


def test_win_rates_of_decided_moves_are_exact() -> None:
    """Each root move of a position one move from the end is scored 1 or 0, with its true margin."""
    position = last_move_decides()
    tree = SearchTree(position, SearchConfig(placements=0), seed=1)
    tree.search(iterations=len(position.legal_moves()) * 3)
    for stats in tree.root_stats():
        after = position.play(Move.from_action(stats.action))
        assert stats.visits > 0
        assert stats.win_rate == (1.0 if after.winner == 0 else 0.0)
        assert stats.margin == after.scores[0] - after.scores[1]


def test_iteration_limit_is_exact_and_stats_add_up() -> None:
    tree = SearchTree(Position.initial(4), SearchConfig(), seed=2)
    assert tree.search(iterations=1234) == 1234
    assert tree.node_visits[tree.root] == 1234
    assert sum(s.visits for s in tree.root_stats()) == 1234
    for stats in tree.root_stats():
        assert 0.0 <= stats.win_rate <= 1.0


def test_arrays_grow_as_the_tree_does() -> None:
    tree = SearchTree(Position.initial(5), SearchConfig(placements=0), seed=2, capacity=8)
    assert tree.search(iterations=3000) == 3000
    assert len(tree.states) > 8 and tree.sizes[0] <= len(tree.states)


def test_time_limit_is_respected() -> None:
    tree = SearchTree(Position.initial(6), SearchConfig(), seed=2)
    tree.search(iterations=10)  # compile and warm up outside the timed call
    import time

    started = time.perf_counter()
    tree.search(seconds=0.3)
    assert time.perf_counter() - started < 0.6


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    def game(seed: int) -> list[Move]:
        players = [MCTSPlayer(Limit(iterations=300), seed=seed), GreedyPlayer(0)]
        return play_game(players, Position.initial(11)).moves

    assert game(1) == game(1)
    assert any(game(1) != game(s) for s in (2, 3, 4))


def test_tree_is_reused_after_the_opponents_reply() -> None:
    position = Position.initial(8)
    player = MCTSPlayer(Limit(iterations=2000), seed=5)
    move = player.choose_move(position)
    tree = player.tree
    assert tree is not None
    # The reply most searched in the tree (one the search did consider).
    root_first = int(tree.node_first[tree.root])
    edges = range(root_first, root_first + int(tree.node_count[tree.root]))
    child = next(int(tree.edge_child[e]) for e in edges if tree.edge_action[e] == move.action)
    child_first = int(tree.node_first[child])
    replies = range(child_first, child_first + int(tree.node_count[child]))
    reply = Move.from_action(int(tree.edge_action[max(replies, key=lambda e: tree.edge_visits[e])]))
    following = position.play(move).play(reply)
    assert tree.advance_to(following)
    kept = int(tree.node_visits[tree.root])
    assert kept > 0 and tree.position == following
    # The reused visits count toward the next move's limit.
    player.choose_move(following)
    assert player.tree is tree and int(tree.node_visits[tree.root]) == max(kept, 2000)


def test_every_node_records_who_acts() -> None:
    """Turns do not alternate: the stored player is the one the rules say, at every node."""
    tree = SearchTree(Position.initial(9), SearchConfig(), seed=4)
    tree.search(iterations=3000)
    from quiltmaker.ai import kernel

    rng = random.Random(0)
    for node in rng.sample(range(int(tree.sizes[0])), 300):
        state = tuple(int(v) for v in tree.states[node])
        position = kernel.to_position(state, tree.ring, tree.variant)
        expected = position.to_move
        assert tree.node_player[node] == (-1 if expected is None else expected)


def test_mcts_beats_greedy() -> None:
    """Not a strength measurement (that is docs/strength.md): a guard against a broken search."""
    wins = 0
    for seed in range(4):
        mcts = MCTSPlayer(Limit(iterations=1500), seed=seed)
        seats = [mcts, GreedyPlayer(seed)] if seed % 2 == 0 else [GreedyPlayer(seed), mcts]
        final = play_game(seats, Position.initial(100 + seed)).position
        wins += final.winner == seed % 2
    assert wins >= 3


def test_near_the_end_the_answer_is_exact() -> None:
    """With the endgame solver on, the last decisive move is found with its exact margin."""
    position = last_move_decides()
    best = MCTSPlayer(Limit(iterations=100), seed=1).analyse(position)
    after = position.play(Move.from_action(best[0].action))
    assert after.winner == 0 and best[0].win_rate == 1.0
    assert best[0].margin == after.scores[0] - after.scores[1]


@pytest.mark.parametrize("placements, special_squares", [(4, 3), (1, 1), (0, 0)])
def test_remembered_expansions_equal_fresh_ones(placements: int, special_squares: int) -> None:
    """The expansion cache (hits, misses, and slots overwritten by other quilts) never changes a node's candidates."""
    rng = random.Random(11)
    positions: list[Position] = []
    while len(positions) < 600:
        position = Position.initial(rng.randrange(1 << 30))
        while not position.is_over:
            positions.append(position)
            position = position.play(rng.choice(position.legal_moves()))
    assert any(p.pending for p in positions)
    # Special patches to place on quilts that differ only in the last row (the second word of the
    # bitboard): with one cache slot, the second must not take the first one's squares.
    special = "revised 9,17,25 20,6,0,9/9/9/9/9/9/9/9/{} 21,9,0,9/9/9/9/9/9/9/9/9 0 - - 1"
    positions += [Position.from_text(special.format("9")), Position.from_text(special.format("xx7"))] * 2
    width = max(placements, special_squares, 1)
    warm = new_expansion_cache(1 << 10, width)
    tiny = new_expansion_cache(1, width)  # every entry evicts another
    scratch = np.empty(K.MAX_MOVES, dtype=np.int64), np.empty(K.MAX_MOVES, dtype=np.int64)

    def candidates(position: Position, cache: tuple[np.ndarray, np.ndarray]) -> list[int]:
        state, ring = K.from_position(position)
        out = np.empty(K.MAX_MOVES, dtype=np.int64)
        count = _candidates(state, ring, out, *scratch, placements, special_squares, *cache)
        return [int(a) for a in out[:count]]

    for _ in range(2):  # the second pass finds the warm cache full
        for position in positions:
            fresh = candidates(position, new_expansion_cache(1, width))
            assert candidates(position, warm) == fresh
            assert candidates(position, tiny) == fresh, position.text()
            assert set(fresh) <= {m.action for m in position.legal_moves()}


def test_a_cache_narrower_than_the_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="expansion cache"):
        SearchTree(Position.initial(1), SearchConfig(placements=8), seed=1, expansion_cache=new_expansion_cache(4, 4))
