"""Monte Carlo tree search: known best moves, limits, seeds, tree reuse, bookkeeping."""

from __future__ import annotations

import json
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from data.make_mcts_games import play as play_recorded_game

from quiltmaker.compiled import rules as K
from quiltmaker.ai.mcts import ANSWER_RESERVE, MCTSPlayer, SearchConfig, SearchTree
from quiltmaker.ai.search_kernel import ExpansionCache, _candidates, new_expansion_cache
from quiltmaker.core.moves import Move
from quiltmaker.ai.players import GreedyPlayer, Limit, play_game
from quiltmaker.core.position import Position

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
    assert tree.arrays.node_visits[tree.root] == 1234
    assert sum(s.visits for s in tree.root_stats()) == 1234
    for stats in tree.root_stats():
        assert 0.0 <= stats.win_rate <= 1.0


def test_arrays_grow_as_the_tree_does() -> None:
    tree = SearchTree(Position.initial(5), SearchConfig(placements=0), seed=2, capacity=8)
    assert tree.search(iterations=3000) == 3000
    assert len(tree.arrays.states) > 8 and tree.arrays.sizes[0] <= len(tree.arrays.states)


class StepClock:
    """A clock that moves on by ``step`` seconds each time it is read: every stage that looks at it costs time.

    A search that sets its deadline after some stage, or reads the clock more
    than it should once the deadline has passed, overruns on this clock
    deterministically, without a wall-clock assertion.
    """

    def __init__(self, step: float = 0.001) -> None:
        self.reads = 0
        self.step = step

    def __call__(self) -> float:
        self.reads += 1
        return self.reads * self.step

    def ticks(self, seconds: float) -> int:
        """``seconds`` in reads of this clock."""
        return round(seconds / self.step)


def test_time_limit_is_respected() -> None:
    clock = StepClock(0.02)
    tree = SearchTree(Position.initial(6), SearchConfig(), seed=2)
    tree.search(seconds=0.3, clock=clock)
    # One read sets the deadline; the search ends at the next check after it passes.
    assert clock.reads <= clock.ticks(0.3) + 2


def near_the_end(seed: int) -> Position:
    """A position from a greedy game once both tokens have reached space 40, where the endgame solver is tried."""
    position = Position.initial(seed)
    players = [GreedyPlayer(seed), GreedyPlayer(seed + 1)]
    while min(position.times) < 40:
        position = position.play(players[position.to_move].choose_move(position))  # type: ignore[index]
    return position


def test_a_time_limit_covers_every_stage() -> None:
    """Solver, re-rooting, growing the tree and the search share one deadline, set when the move is asked for.

    Each read of the clock costs 20 ms here (a search chunk's length), so a
    stage left out of the deadline shows as an overrun of a read or more.
    """
    limit = 1.0
    clock = StepClock(0.02)
    player = MCTSPlayer(Limit(time=limit), seed=1, clock=clock)
    start = Position.initial(12)
    first = player.choose_move(start)
    after = start.play(first)
    reports = [player.last_report]
    # The tree kept after the opponent's reply, then near the end, where the solver goes first.
    assert player.tree is not None
    reply = Move.from_action(_child_actions(player.tree, after)[0])
    for position in (after.play(reply), near_the_end(12)):
        asked = clock.reads
        player.choose_move(position)
        # A few reads after the deadline (seeing it passed, closing the report) go beyond it.
        assert clock.reads - asked <= clock.ticks(limit) + 3
        reports.append(player.last_report)
    assert any(r is not None and r.reused_tree for r in reports)
    assert reports[-1] is not None and reports[-1].solver_seconds > 0
    for report in reports:
        assert report is not None
        assert sum(report.stages().values()) == pytest.approx(report.total_seconds)
        if not report.solved:
            spent_before = report.solver_seconds + report.reroot_seconds
            assert report.search_seconds <= limit - ANSWER_RESERVE - spent_before + 2 * clock.step


def test_a_growth_that_would_pass_the_deadline_ends_the_search() -> None:
    position = Position.initial(5)
    slow = SearchTree(position, SearchConfig(), seed=2, capacity=64)
    slow.search(iterations=1)
    grows, room = slow.grows, len(slow.arrays.states)
    slow._growth_seconds_per_node = 1e9  # every growth would take far longer than the time left
    done = slow.search(seconds=100.0, clock=StepClock(0.02))
    assert slow.grows == grows and 0 < done < room
    quick = SearchTree(position, SearchConfig(), seed=2, capacity=64)
    quick.search(iterations=1)
    grows, room = quick.grows, len(quick.arrays.states)
    quick._growth_seconds_per_node = 0.0
    quick.search(seconds=1.0, clock=StepClock(0.02))  # chunks of 20 ms: about as many iterations each
    assert quick.grows > grows and quick.arrays.sizes[0] > room


def test_a_root_never_searched_gets_an_answer_even_past_its_deadline() -> None:
    tree = SearchTree(Position.initial(3), SearchConfig(), seed=1)
    assert tree.search(deadline=-1.0) > 0
    assert tree.root_stats()


def exhaustive_find(tree: SearchTree, position: Position) -> int | None:
    """The former way to find a position: breadth first through every node, each converted to a Position."""
    frontier = deque([tree.root])
    while frontier:
        node = frontier.popleft()
        if K.to_position(tuple(int(v) for v in tree.arrays.states[node]), tree.ring, tree.variant) == position:
            return node
        first = int(tree.arrays.node_first[node])
        if first >= 0:
            frontier.extend(int(c) for c in tree.arrays.edge_child[first : first + int(tree.arrays.node_count[node])] if c >= 0)
    return None


def test_finding_a_position_follows_the_played_moves_and_agrees_with_an_exhaustive_walk() -> None:
    position = Position.initial(8)
    tree = SearchTree(position, SearchConfig(), seed=5)
    tree.search(iterations=1500)
    rng = random.Random(2)
    nodes = rng.sample(range(int(tree.arrays.sizes[0])), 40)
    found = 0
    for node in nodes:
        target = K.to_position(tuple(int(v) for v in tree.arrays.states[node]), tree.ring, tree.variant)
        assert tree.find(target) == exhaustive_find(tree, target)
        found += tree.find(target) is not None
        # One move on: a position the tree holds only if the search went there.
        if not target.is_over:
            after = target.play(rng.choice(target.legal_moves()))
            assert tree.find(after) == exhaustive_find(tree, after)
    assert found == len(nodes)


def test_a_circle_out_of_the_rings_order_or_another_variant_is_never_found() -> None:
    position = Position.initial(8)
    tree = SearchTree(position, SearchConfig(), seed=5)
    tree.search(iterations=500)
    assert tree.find(position) == tree.root
    assert tree.find(position._replace(circle=tuple(reversed(position.circle)))) is None
    assert tree.find(position._replace(circle=position.circle[1:])) is None  # a patch gone that nobody bought
    other = "original" if position.variant == "revised" else "revised"
    assert tree.find(position._replace(variant=other)) is None


def test_a_reply_outside_the_tree_starts_a_fresh_tree() -> None:
    position = Position.initial(8)
    player = MCTSPlayer(Limit(iterations=300), seed=5)
    move = player.choose_move(position)
    tree = player.tree
    assert tree is not None
    after = position.play(move)
    searched = {Move.from_action(int(a)) for a in _child_actions(tree, after)}
    reply = next(m for m in after.legal_moves() if m not in searched)
    following = after.play(reply)
    assert tree.find(following) is None
    player.choose_move(following)
    assert player.tree is not tree and player.tree is not None and player.tree.position == following
    assert player.last_report is not None and not player.last_report.reused_tree
    assert player.tree.expansion_cache is tree.expansion_cache  # what the old tree learned of placements is kept


def _child_actions(tree: SearchTree, position: Position) -> list[int]:
    node = tree.find(position)
    assert node is not None
    first = int(tree.arrays.node_first[node])
    return [int(tree.arrays.edge_action[e]) for e in range(first, first + int(tree.arrays.node_count[node])) if tree.arrays.edge_child[e] >= 0]


GOLDEN_GAMES = json.loads((Path(__file__).parent / "data" / "mcts_games.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", GOLDEN_GAMES, ids=lambda game: f"{game['spec']} seed {game['seed']}")
def test_iteration_limited_play_is_what_it_was(game: dict[str, object]) -> None:
    """Seeded, iteration-limited players play the recorded games move for move (the recipe that recorded them)."""
    seed = game["seed"]
    assert isinstance(seed, int)
    assert play_recorded_game(str(game["spec"]), seed) == game["moves"]


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
    root_first = int(tree.arrays.node_first[tree.root])
    edges = range(root_first, root_first + int(tree.arrays.node_count[tree.root]))
    child = next(int(tree.arrays.edge_child[e]) for e in edges if tree.arrays.edge_action[e] == move.action)
    child_first = int(tree.arrays.node_first[child])
    replies = range(child_first, child_first + int(tree.arrays.node_count[child]))
    reply = Move.from_action(int(tree.arrays.edge_action[max(replies, key=lambda e: tree.arrays.edge_visits[e])]))
    following = position.play(move).play(reply)
    assert tree.advance_to(following)
    kept = int(tree.arrays.node_visits[tree.root])
    assert kept > 0 and tree.position == following
    # The reused visits count toward the next move's limit.
    player.choose_move(following)
    assert player.tree is tree and int(tree.arrays.node_visits[tree.root]) == max(kept, 2000)


def test_every_node_records_who_acts() -> None:
    """Turns do not alternate: the stored player is the one the rules say, at every node."""
    tree = SearchTree(Position.initial(9), SearchConfig(), seed=4)
    tree.search(iterations=3000)
    from quiltmaker.compiled import rules as kernel

    rng = random.Random(0)
    for node in rng.sample(range(int(tree.arrays.sizes[0])), 300):
        state = tuple(int(v) for v in tree.arrays.states[node])
        position = kernel.to_position(state, tree.ring, tree.variant)
        expected = position.to_move
        assert tree.arrays.node_player[node] == (-1 if expected is None else expected)


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

    def candidates(position: Position, cache: ExpansionCache) -> list[int]:
        state, ring = K.from_position(position)
        out = np.empty(K.MAX_MOVES, dtype=np.int64)
        count = _candidates(state, ring, out, *scratch, placements, special_squares, cache)
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


def test_a_bounded_tree_stops_growing_and_ends_its_search_when_full() -> None:
    from quiltmaker.ai.mcts import SearchConfig, SearchTree

    tree = SearchTree(Position.initial(3), SearchConfig(), seed=1, capacity=1000)
    tree.max_nodes = 3000
    done = tree.search(iterations=1_000_000)
    assert tree.full and len(tree.arrays.states) <= 3000 and int(tree.arrays.sizes[0]) <= 3000
    assert 0 < done < 1_000_000  # the search ended because the tree was full, with an answer to give
    assert tree.root_stats()
    unbounded = SearchTree(Position.initial(3), SearchConfig(), seed=1, capacity=1000)
    unbounded.search(iterations=5000)
    assert not unbounded.full and len(unbounded.arrays.states) > 3000
