"""Monte Carlo tree search over the compiled kernel.

The tree lives in flat numpy arrays (nodes and edges) and the search loop is
compiled; Python only slices the work into chunks to honour time limits and
to grow the arrays. Every node stores the player who acts there, because
Patchwork turns do not alternate: rewards are always credited to the player
who chose the edge, never by flipping a sign.

Hundreds of placements per purchase are tamed by choosing the patch and then
the placement: a node's edges are advancing plus, for each patch on offer, its
``placements`` best placements by :func:`~quiltmaker.ai.kernel.placement_score`
(all of them when ``placements`` is 0), and for a special patch its best squares.
Those rankings depend only on the quilt and the patch, which recur all over a
tree, so they are remembered across the tree and a player's moves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..moves import Move
from ..players import Limit, Player
from ..position import Position
from . import kernel as K
from .search_kernel import GREEDY_PLAYOUTS, RANDOM_PLAYOUTS, compact, new_expansion_cache, run_search
from .solver import EndgameSolver

# The endgame solver is tried once both tokens are this far along the track.
SOLVER_FROM_SPACE = 40
SOLVER_NODES_PER_ITERATION = 20
SOLVER_NODES_PER_SECOND = 300_000
EXPANSION_CACHE_SLOTS = 1 << 14


@dataclass(frozen=True)
class SearchConfig:
    """Parameters of a search.

    Attributes:
        exploration: The UCT exploration constant.
        placements: Placements kept per patch on offer (0 keeps all).
        special_squares: Squares considered for a special patch (0 keeps all).
        playouts: ``"random"`` (uniform moves) or ``"greedy"`` (a heuristic with some randomness).
        epsilon: In greedy playouts, the chance of a uniformly random move instead.
        margin_weight: Share of the reward given to the score margin; the rest is the win.
    """

    exploration: float = 0.7
    placements: int = 4
    special_squares: int = 3
    playouts: str = "greedy"
    epsilon: float = 0.1
    margin_weight: float = 0.1

    def params(self) -> np.ndarray:
        """The configuration as the float array the compiled search reads."""
        policy = {"random": RANDOM_PLAYOUTS, "greedy": GREEDY_PLAYOUTS}[self.playouts]
        return np.array(
            [self.exploration, self.placements, self.special_squares, policy, self.epsilon, self.margin_weight],
            dtype=np.float64,
        )


# The Python side ------------------------------------------------------------------


@dataclass(frozen=True)
class MoveStats:
    """What the search thinks of one move at the root.

    Attributes:
        action: The move's action index.
        visits: Playouts through it.
        win_rate: Share of those playouts won by the player to move.
        margin: Mean final score margin (player to move minus opponent).
    """

    action: int
    visits: int
    win_rate: float
    margin: float


class SearchTree:
    """A search tree rooted at one position, which can move its root down after moves are played."""

    def __init__(
        self,
        position: Position,
        config: SearchConfig,
        seed: int,
        capacity: int = 1 << 14,
        expansion_cache: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.config = config
        self._params = config.params()
        self.rng = np.uint64(seed & ((1 << 64) - 1))
        state, ring = K.from_position(position)
        self.ring = ring
        self.variant = position.variant
        self._allocate(capacity, capacity * 8)
        # Best placements by quilt and patch, kept across moves: they never go stale, but
        # depend on the configuration, so only a tree with the same one may pass its cache on.
        width = max(config.placements, config.special_squares, 1)
        self.expansion_cache = expansion_cache or new_expansion_cache(EXPANSION_CACHE_SLOTS, width)
        # The compiled code writes entries without bounds checks: a narrower cache would be overrun.
        if self.expansion_cache[1].shape[1] < width + 1:
            raise ValueError(f"an expansion cache for {width} placements is needed")
        self.sizes[:] = (1, 0)
        self.root = 0
        self.states[0] = state
        self.node_first[0] = -1
        self.node_player[0] = K.player_to_move(state)
        self.iterations = 0

    def _allocate(self, nodes: int, edges: int) -> None:
        self.states = np.zeros((nodes, K.STATE_SIZE), dtype=np.int64)
        self.node_first = np.full(nodes, -1, dtype=np.int64)
        self.node_count = np.zeros(nodes, dtype=np.int64)
        self.node_visits = np.zeros(nodes, dtype=np.int64)
        self.node_player = np.zeros(nodes, dtype=np.int64)
        self.edge_action = np.zeros(edges, dtype=np.int64)
        self.edge_child = np.full(edges, -1, dtype=np.int64)
        self.edge_visits = np.zeros(edges, dtype=np.int64)
        self.edge_reward = np.zeros(edges, dtype=np.float64)
        self.edge_wins = np.zeros(edges, dtype=np.float64)
        self.edge_margin = np.zeros(edges, dtype=np.float64)
        self.sizes = np.zeros(2, dtype=np.int64)

    def _grow(self) -> None:
        """Double the arrays, keeping their contents."""
        old = {name: getattr(self, name) for name in _ARRAYS}
        sizes = self.sizes.copy()
        self._allocate(2 * len(old["states"]), 2 * len(old["edge_action"]) + K.MAX_MOVES)
        for name, array in old.items():
            getattr(self, name)[: len(array)] = array
        self.sizes[:] = sizes

    def search(
        self,
        iterations: int | None = None,
        seconds: float | None = None,
        stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> int:
        """Search until ``iterations`` more iterations or ``seconds`` have passed; returns iterations done.

        ``stop`` is polled between chunks of about 20 ms and ends the search
        when it returns true; ``on_progress`` gets the iterations done so far.
        """
        deadline = None if seconds is None else time.perf_counter() + seconds
        target = iterations if iterations is not None else 1 << 62
        done = 0
        chunk = 64
        while done < target:
            started = time.perf_counter()
            request = min(chunk, target - done)
            n, self.rng = run_search(
                self.states, self.node_first, self.node_count, self.node_visits, self.node_player,
                self.edge_action, self.edge_child, self.edge_visits, self.edge_reward, self.edge_wins, self.edge_margin,
                self.sizes, self.root, self.ring, request, self.rng, self._params, *self.expansion_cache,
            )
            self.rng = np.uint64(self.rng)  # numba hands it back as a Python int
            done += n
            if n < request:
                self._grow()
            if self.node_player[self.root] < 0:
                break  # a finished game has nothing to search
            if on_progress is not None:
                on_progress(done)
            if stop is not None and stop():
                break
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                break
            # Aim for chunks of about 20 ms, and never past the deadline.
            spent = max(now - started, 1e-6)
            chunk = max(1, min(int(chunk * 0.02 / spent), 1 << 16))
            if deadline is not None:
                chunk = min(chunk, int(n / spent * (deadline - now)) + 1)
        self.iterations += done
        return done

    @property
    def position(self) -> Position:
        """The root position."""
        return K.to_position(tuple(int(v) for v in self.states[self.root]), self.ring, self.variant)

    def root_stats(self) -> list[MoveStats]:
        """Statistics of every searched move at the root, most visited first."""
        first = int(self.node_first[self.root])
        if first < 0:
            return []
        stats = []
        for e in range(first, first + int(self.node_count[self.root])):
            visits = int(self.edge_visits[e])
            stats.append(
                MoveStats(
                    int(self.edge_action[e]),
                    visits,
                    float(self.edge_wins[e]) / visits if visits else 0.0,
                    float(self.edge_margin[e]) / visits if visits else 0.0,
                )
            )
        stats.sort(key=lambda s: (-s.visits, -s.win_rate))
        return stats

    def advance_to(self, position: Position, max_depth: int = 8) -> bool:
        """Move the root down to ``position`` if the tree holds it; returns whether it did.

        Keeps the subtree below it, so that what was searched is not lost.
        """
        frontier = [self.root]
        for _ in range(max_depth + 1):
            following: list[int] = []
            for node in frontier:
                if self._node_position(node) == position:
                    self._reroot(node)
                    return True
                first = int(self.node_first[node])
                if first >= 0:
                    following.extend(int(c) for c in self.edge_child[first : first + int(self.node_count[node])] if c >= 0)
            frontier = following
        return False

    def _node_position(self, node: int) -> Position:
        return K.to_position(tuple(int(v) for v in self.states[node]), self.ring, self.variant)

    def _reroot(self, node: int) -> None:
        # Copy the subtree into fresh arrays so that the abandoned part is freed.
        old = {name: getattr(self, name) for name in _ARRAYS}
        self._allocate(len(old["states"]), len(old["edge_action"]))
        compact(*(old[name] for name in _ARRAYS[:-1]), node, *(getattr(self, name) for name in _ARRAYS[:-1]), self.sizes)  # type: ignore[call-arg]
        self.root = 0


_ARRAYS = (
    "states", "node_first", "node_count", "node_visits", "node_player",
    "edge_action", "edge_child", "edge_visits", "edge_reward", "edge_wins", "edge_margin", "sizes",
)


class MCTSPlayer(Player):
    """A Monte Carlo tree search player that keeps its tree from one move to the next.

    Args:
        limit: Iterations and/or seconds per move.
        config: Search parameters.
        seed: Seeds the playouts; with an iteration limit, play is reproducible.
        name: Name written into records.
    """

    def __init__(
        self,
        limit: Limit,
        config: SearchConfig = SearchConfig(),
        seed: int | None = None,
        name: str = "mcts",
        endgame_solver: bool = True,
    ) -> None:
        if limit.iterations is None and limit.time is None:
            raise ValueError("an MCTS player needs a limit by iterations or time")
        self.limit = limit
        self.config = config
        self.name = name
        self._seeds = random.Random(seed)
        self.tree: SearchTree | None = None
        self._use_solver = endgame_solver
        # Built on first use: its table is 32 MB, and a player checked or used only early in a game never needs it.
        self._solver: EndgameSolver | None = None

    def solve_endgame(self, position: Position, limit: Limit | None = None) -> list[MoveStats] | None:
        """Perfect play near the end, when the solver finishes within a budget that fits the limit.

        Returns the best move's statistics (win rate 1 or 0, the exact margin), or ``None``.
        """
        if not self._use_solver or position.is_over or min(position.times) < SOLVER_FROM_SPACE:
            return None
        if self._solver is None:
            self._solver = EndgameSolver()
        limit = limit or self.limit
        # Budgets from the limit: nodes per iteration keep iteration-limited play reproducible.
        budget = SOLVER_NODES_PER_ITERATION * limit.iterations if limit.iterations else 0
        if limit.time is not None:
            budget = max(budget, int(SOLVER_NODES_PER_SECOND * min(limit.time, 60.0)))
        solution = self._solver.solve(position, budget)
        if solution is None or solution.best_move is None:
            return None
        mover = position.to_move
        margin = solution.margin if mover == 0 else -solution.margin
        return [MoveStats(solution.best_move.action, solution.nodes, 1.0 if solution.winner == mover else 0.0, float(margin))]

    def tree_for(self, position: Position) -> SearchTree:
        """The player's tree moved down to ``position``, or a new one there (keeping the expansion cache)."""
        tree = self.tree
        if tree is None or not tree.advance_to(position):
            cache = tree.expansion_cache if tree is not None else None  # same player, same configuration
            tree = SearchTree(position, self.config, self._seeds.getrandbits(64), expansion_cache=cache)
        self.tree = tree
        return tree

    def analyse(self, position: Position) -> list[MoveStats]:
        """Search ``position`` within the limit and return the root statistics, best first.

        Near the end of the game the answer is exact: one move, with a win
        rate of 1 or 0 and the margin under perfect play.
        """
        solved = self.solve_endgame(position)
        if solved is not None:
            return solved
        tree = self.tree_for(position)
        already = int(tree.node_visits[tree.root])
        wanted = None if self.limit.iterations is None else max(0, self.limit.iterations - already)
        # A reused tree counts toward the iteration limit, so a reply can be instant.
        if wanted is None or wanted > 0:
            tree.search(iterations=wanted, seconds=self.limit.time)
        return tree.root_stats()

    def choose_move(self, position: Position) -> Move:
        stats = self.analyse(position)
        return Move.from_action(stats[0].action)
