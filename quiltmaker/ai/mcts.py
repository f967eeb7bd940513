"""Monte Carlo tree search over the compiled kernel.

The tree lives in flat numpy arrays (nodes and edges) and the search loop is
compiled; Python only slices the work into chunks to honour time limits and
to grow the arrays. Every node stores the player who acts there, because
Patchwork turns do not alternate: rewards are always credited to the player
who chose the edge, never by flipping a sign.

Hundreds of placements per purchase are tamed by choosing the patch and then
the placement: a node's edges are advancing plus, for each patch on offer, its
``placements`` best placements by ``placement_score`` (compiled)
(all of them when ``placements`` is 0), and for a special patch its best squares.
Those rankings depend only on the quilt and the patch, which recur all over a
tree, so they are remembered across the tree and a player's moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.moves import Move
from .players import Limit, Player
from ..core.position import Position
from ..core.seeds import seeded_random
from ..compiled import announce_compiling
from ..compiled import rules as K
from .search_kernel import (
    GREEDY_PLAYOUTS,
    NO_NODE,
    NOT_EXPANDED,
    RANDOM_PLAYOUTS,
    ExpansionCache,
    SearchParams,
    TreeArrays,
    compact,
    find_node,
    new_expansion_cache,
    new_tree_arrays,
    run_search,
)
from .solver import EndgameSolver

Clock = Callable[[], float]
"""A source of seconds (time.perf_counter, or a fake one in tests)."""

SOLVER_FROM_SPACE = 40
"""The endgame solver is tried once both tokens are this far along the track."""
SOLVER_NODES_PER_ITERATION = 20
"""Solver nodes allowed for each search iteration the limit would give."""
MAX_SOLVER_NODES = 1 << 62
"""The solver counts its budget down in an int64."""
SOLVER_NODES_PER_SECOND = 300_000
"""A first guess of the solver's speed, below what it reaches here; each solve then measures it."""
SOLVER_TIME_SHARE = 0.5
"""The share of a move's time the solver may spend before the search takes over."""
ANSWER_RESERVE = 0.002
"""Time kept back from the search for what follows it (reading the statistics, answering)."""
EXPANSION_CACHE_SLOTS = 1 << 14
"""Positions whose ranked placements the search remembers."""
MIN_CAPACITY = 1 << 14
"""Nodes a new tree has room for before it grows."""
TREE_BYTES_PER_NODE = 8 * (K.STATE_SIZE + 4) + 16 * 8 * 6
"""Memory a tree node takes with its share of edges (16 a node, as allocated): its state and counters, six numbers an edge. The engine's Hash option turns megabytes into a node limit with it."""
SEARCH_ITERATIONS_PER_SECOND = 250_000
"""A first guess of iterations a second (above what the search reaches here); each timed search then measures it."""
ROOM_MARGIN = 1.5
"""Room reserved before a timed search, as a multiple of the nodes it is expected to add."""
MAX_ROOM = 1 << 21
"""At most this many nodes are reserved at once (about 2 GB of address space, used only as the tree grows); a longer search grows its arrays as it goes."""


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

    def params(self) -> SearchParams:
        """The configuration as the compiled search reads it."""
        policy = {"random": RANDOM_PLAYOUTS, "greedy": GREEDY_PLAYOUTS}[self.playouts]
        return SearchParams(
            float(self.exploration), int(self.placements), int(self.special_squares), policy,
            float(self.epsilon), float(self.margin_weight),
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
        capacity: int = MIN_CAPACITY,
        expansion_cache: ExpansionCache | None = None,
    ) -> None:
        self.config = config
        """The search parameters."""
        self._params = config.params()
        self.rng = np.uint64(seed & ((1 << 64) - 1))
        """The playouts' generator state."""
        state, ring = K.from_position(position)
        self.ring = ring
        """The circle of patches, packed for the compiled rules."""
        # The ring never changes for a tree: where each patch sits in it, for finding positions.
        self._slot_of_patch = {patch: slot for slot, patch in enumerate(position.circle)}
        self.variant = position.variant
        """The time track's printing of the game searched."""
        self._allocate(capacity, capacity * 16)
        # Best placements by quilt and patch, kept across moves: they never go stale, but
        # depend on the configuration, so only a tree with the same one may pass its cache on.
        width = max(config.placements, config.special_squares, 1)
        self.expansion_cache = expansion_cache or new_expansion_cache(EXPANSION_CACHE_SLOTS, width)
        """The remembered rankings of placements, shared by the trees of one player."""
        # The compiled code writes entries without bounds checks: a narrower cache would be overrun.
        if self.expansion_cache.actions.shape[1] < width + 1:
            raise ValueError(f"an expansion cache for {width} placements is needed")
        self.arrays.sizes[:] = (1, 0)
        self.root = 0
        """The root's node index."""
        self.arrays.states[0] = state
        self.arrays.node_first[0] = NOT_EXPANDED
        self.arrays.node_count[0] = 0
        self.arrays.node_visits[0] = 0
        self.arrays.node_player[0] = K.player_to_move(state)
        self.iterations = 0
        """Iterations run from this root so far."""
        self.max_nodes: int | None = None  # room never grows past this many nodes; a full tree ends its search
        """Room never grows past this many nodes; a full tree ends its search."""
        self.full = False
        """Whether the tree reached max_nodes in its last search."""
        self.grows = 0
        """How many times the tree's arrays grew."""
        self.growth_seconds = 0.0
        """Seconds spent growing them."""
        # Measured at each growth; the first guess is about what this takes on a slow machine.
        self._growth_seconds_per_node = 5e-7

    def _allocate(self, nodes: int, edges: int) -> None:
        # Uninitialised: the compiled code writes every node and edge it adds before reading it,
        # so a large capacity costs nothing until it is used, and allocating never touches memory.
        self.arrays: TreeArrays = new_tree_arrays(nodes, edges)

    def _grow(self, nodes_wanted: int = 0, clock: Clock = time.perf_counter) -> bool:
        """Make room for at least ``nodes_wanted`` nodes (at least twice as many as now), keeping the tree.

        Edges grow in the proportion the tree uses them. Only the used part is
        copied, so a growth costs time in proportion to the tree, not to the room.
        Never past :attr:`max_nodes`: returns False when the tree cannot grow.
        """
        started = clock()
        nodes, edges = (int(n) for n in self.arrays.sizes)
        old = self.arrays
        capacity = max(2 * len(old.states), nodes_wanted)
        if self.max_nodes is not None:
            capacity = min(capacity, self.max_nodes)
            if capacity <= len(old.states):
                self.full = True
                return False
        edges_per_node = max(edges / max(nodes, 1), len(old.edge_action) / len(old.states))
        self._allocate(capacity, int(capacity * edges_per_node) + K.MAX_MOVES)
        for name in TreeArrays._fields:
            if name != "sizes":
                used = edges if name.startswith("edge_") else nodes
                getattr(self.arrays, name)[:used] = getattr(old, name)[:used]
        self.arrays.sizes[:] = (nodes, edges)
        elapsed = clock() - started
        self.grows += 1
        self.growth_seconds += elapsed
        self._growth_seconds_per_node = elapsed / max(nodes, 1)
        return True

    def _growth_estimate(self) -> float:
        """Seconds the next growth should take, from the last one (a guess before any), with room for error."""
        return 2 * self._growth_seconds_per_node * int(self.arrays.sizes[0])

    def search(
        self,
        iterations: int | None = None,
        seconds: float | None = None,
        stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int], None] | None = None,
        deadline: float | None = None,
        clock: Clock = time.perf_counter,
    ) -> int:
        """Search until ``iterations`` more iterations, ``seconds`` or the ``deadline`` (by ``clock``); returns iterations done.

        ``stop`` is polled between chunks of about 20 ms and ends the search
        when it returns true; ``on_progress`` gets the iterations done so far.
        Growing the arrays counts against the time: when the next growth
        would not end before the deadline, the search ends instead.
        """
        if seconds is not None:
            deadline = clock() + seconds if deadline is None else min(deadline, clock() + seconds)
        target = iterations if iterations is not None else 1 << 62
        done = 0
        chunk = 64
        began = clock()
        while done < target:
            started = clock()
            if deadline is not None and started >= deadline and self.arrays.node_visits[self.root] > 0:
                break  # out of time, with an answer to give (a root never searched gets one chunk)
            request = min(chunk, target - done)
            n, self.rng = run_search(self.arrays, self.root, self.ring, request, self.rng, self._params, self.expansion_cache)
            self.rng = np.uint64(self.rng)  # numba hands it back as a Python int
            done += n
            spent = max(clock() - started, 1e-6)
            if n < request:
                # Room for what the rest of the search should add, a node an iteration at most.
                rest = target - done
                if deadline is not None:
                    now = clock()
                    if now + self._growth_estimate() >= deadline and self.arrays.node_visits[self.root] > 0:
                        break
                    rest = min(rest, int(done / max(now - began, 1e-6) * (deadline - now)))
                if not self._grow(min(int(self.arrays.sizes[0]) + int(1.25 * rest), 8 * len(self.arrays.states)), clock):
                    break  # the tree may not grow: its memory is bounded (max_nodes)
            if self.arrays.node_player[self.root] == K.GAME_OVER:
                break  # a finished game has nothing to search
            if on_progress is not None:
                on_progress(done)
            if stop is not None and stop():
                break
            now = clock()
            if deadline is not None and now >= deadline:
                break
            # Aim for chunks of about 20 ms, and never past the deadline.
            chunk = max(1, min(int(chunk * 0.02 / spent), 1 << 16))
            if deadline is not None and n:
                chunk = min(chunk, int(n / spent * (deadline - now)) + 1)
        self.iterations += done
        return done

    def root_visits(self) -> int:
        """Iterations through the root so far (kept ones included)."""
        return int(self.arrays.node_visits[self.root])

    @property
    def position(self) -> Position:
        """The root position."""
        return K.to_position(tuple(int(v) for v in self.arrays.states[self.root]), self.ring, self.variant)

    def root_stats(self) -> list[MoveStats]:
        """Statistics of every searched move at the root, most visited first."""
        first = int(self.arrays.node_first[self.root])
        if first == NOT_EXPANDED:
            return []
        stats = []
        for e in range(first, first + int(self.arrays.node_count[self.root])):
            visits = int(self.arrays.edge_visits[e])
            stats.append(
                MoveStats(
                    int(self.arrays.edge_action[e]),
                    visits,
                    float(self.arrays.edge_wins[e]) / visits if visits else 0.0,
                    float(self.arrays.edge_margin[e]) / visits if visits else 0.0,
                )
            )
        stats.sort(key=lambda s: (-s.visits, -s.win_rate))
        return stats

    def advance_to(self, position: Position, room: int = 0) -> bool:
        """Move the root down to ``position`` if the tree holds it; returns whether it did.

        Keeps the subtree below it, so that what was searched is not lost. The
        walk follows the moves actually played (see
        ``find_node`` in the compiled kernel): it costs microseconds
        whether or not the position is found. The tree is left with room for
        ``room`` more nodes (see :meth:`reserve`).
        """
        node = self.find(position)
        if node is None:
            return False
        if node != self.root:
            # A subtree holds at most a node per visit; compacting copies it anyway, so room costs nothing more.
            capacity = max(len(self.arrays.states), int(self.arrays.node_visits[node]) + 1 + room)
            if self.max_nodes is not None:
                capacity = max(min(capacity, self.max_nodes), int(self.arrays.node_visits[node]) + 1)
            self._reroot(node, capacity)
            self.full = False
        self.reserve(int(self.arrays.sizes[0]) + room)
        return True

    def reserve(self, nodes: int) -> None:
        """Make room for ``nodes`` nodes in all, so that a search does not stop to grow the arrays.

        Room is allocated, not touched: it costs memory only once used. Growing
        copies the tree, so callers reserve before a search, whose time counts
        the copy, rather than let it grow while the clock runs.
        """
        if nodes > len(self.arrays.states):
            self._grow(nodes)

    def find(self, position: Position) -> int | None:
        """The shallowest node under the root whose position is ``position``, or ``None``."""
        target = self._state_in_ring(position)
        if target is None:
            return None
        queue = np.empty(int(self.arrays.sizes[0]), dtype=np.int64)
        node = int(find_node(self.arrays, self.root, target, queue))
        return None if node == NO_NODE else node

    def _state_in_ring(self, position: Position) -> np.ndarray | None:
        """``position`` as a state of this tree (its circle as slots of the tree's ring), or ``None`` if it cannot be one."""
        if position.variant != self.variant:
            return None
        slots = self._slot_of_patch
        if any(patch not in slots for patch in position.circle):
            return None
        circle = [slots[patch] for patch in position.circle]
        head = circle[0] if circle else 0
        if circle != sorted(circle, key=lambda slot: (slot - head) % K.RING_SIZE):
            return None  # not the ring's order: no play from the root leads there
        state, _ = K.from_position(position)
        target = np.array(state, dtype=np.int64)
        target[K.REMAINING] = sum(1 << slot for slot in circle)
        target[K.HEAD] = head
        return target

    def _reroot(self, node: int, capacity: int) -> None:
        # Copy the subtree into fresh arrays so that the abandoned part is freed.
        old = self.arrays
        edges_per_node = len(old.edge_action) / len(old.states)
        self._allocate(capacity, int(capacity * edges_per_node) + K.MAX_MOVES)
        compact(old, node, self.arrays)
        self.root = 0


@dataclass
class SearchReport:
    """Where one move's time went, for benchmarks and for callers that explain an answer.

    Attributes:
        solved: The endgame solver answered (exactly); nothing else ran.
        reused_tree: The tree from earlier moves held the position.
        iterations: Iterations searched for this move.
        grows: Times the tree's arrays were grown during the search.
        solver_seconds: Time in the endgame solver, answered or not.
        reroot_seconds: Time finding the position in the kept tree and moving the root there.
        search_seconds: Time in the search, growing the arrays included.
        growth_seconds: The part of ``search_seconds`` spent growing the arrays.
        total_seconds: The whole call, from the limit's start to the answer.
    """

    solved: bool = False
    reused_tree: bool = False
    iterations: int = 0
    grows: int = 0
    solver_seconds: float = 0.0
    reroot_seconds: float = 0.0
    search_seconds: float = 0.0
    growth_seconds: float = 0.0
    total_seconds: float = 0.0

    def stages(self) -> dict[str, float]:
        """Seconds by stage; ``other`` is everything outside the stages (the Python glue)."""
        search = self.search_seconds - self.growth_seconds
        staged = self.solver_seconds + self.reroot_seconds + self.search_seconds
        return {
            "solver": self.solver_seconds,
            "reroot": self.reroot_seconds,
            "search": search,
            "growth": self.growth_seconds,
            "other": max(0.0, self.total_seconds - staged),
        }


class MCTSPlayer(Player):
    """A Monte Carlo tree search player that keeps its tree from one move to the next.

    Args:
        limit: Iterations and/or seconds per move.
        config: Search parameters.
        seed: Seeds the playouts (0..2**64 - 1); with an iteration limit, play is reproducible.
        name: Name written into records.
    """

    def __init__(
        self,
        limit: Limit,
        config: SearchConfig = SearchConfig(),
        seed: int | None = None,
        name: str = "mcts",
        endgame_solver: bool = True,
        clock: Clock = time.perf_counter,
    ) -> None:
        if limit.iterations is None and limit.time is None:
            raise ValueError("an MCTS player needs a limit by iterations or time")
        announce_search()  # the first player after installing waits for the compiler: say so
        self.limit = limit
        """Iterations and/or seconds a move."""
        self.config = config
        """The search parameters."""
        self.name = name
        """The name written into records."""
        self.clock = clock
        """Where time is read."""
        self._seeds = seeded_random(seed)
        self.tree: SearchTree | None = None
        """The tree kept from the last move, or None before the first."""
        self.last_report: SearchReport | None = None
        """How the last move's search went (a SearchReport), or None."""
        self._use_solver = endgame_solver
        self.max_tree_nodes: int | None = None  # bounds the tree's memory (the engine's Hash option)
        """Bounds the tree's memory (the engine's Hash option); None for no bound."""
        # Built on first use: its table is 32 MB, and a player checked or used only early in a game never needs it.
        self._solver: EndgameSolver | None = None
        self._solver_rate = float(SOLVER_NODES_PER_SECOND)
        self._search_rate = float(SEARCH_ITERATIONS_PER_SECOND)

    def interrupt(self) -> None:
        """Stop the endgame solver if it runs now, from another thread (a tree search stops through ``stop``)."""
        if self._solver is not None:
            self._solver.interrupt()

    def solve_endgame(
        self, position: Position, limit: Limit | None = None, deadline: float | None = None, stop: Callable[[], bool] | None = None
    ) -> list[MoveStats] | None:
        """Perfect play near the end, when the solver finishes within a budget that fits the limit.

        An iteration limit gives a node budget (so that play stays
        reproducible); a time limit, or a ``deadline`` by the player's clock,
        gives as many nodes as the solver is measured to search in
        :data:`SOLVER_TIME_SHARE` of the time left, so that a search still has
        the rest when the solver gives up.

        Returns the best move's statistics (win rate 1 or 0, the exact margin), or ``None``.
        """
        if not self._use_solver or position.is_over or min(position.times) < SOLVER_FROM_SPACE:
            return None
        if self._solver is None:
            self._solver = EndgameSolver()
        limit = limit or self.limit
        started = self.clock()
        if limit.time is not None:
            deadline = started + limit.time if deadline is None else min(deadline, started + limit.time)
        # Bounded to what the solver's 64-bit node counter holds, whatever iteration limit was asked for.
        budget = min(SOLVER_NODES_PER_ITERATION * limit.iterations, MAX_SOLVER_NODES) if limit.iterations else MAX_SOLVER_NODES
        if deadline is not None:
            budget = min(budget, int(self._solver_rate * SOLVER_TIME_SHARE * max(0.0, deadline - started)))
        if budget <= 0:
            return None
        solution = self._solver.solve(position, budget, stop)
        nodes = budget if solution is None else solution.nodes
        # The solver's speed varies with the position: the latest measurement guides the next budget.
        seconds = self.clock() - started
        if nodes >= 10_000 and seconds > 0:
            self._solver_rate = nodes / seconds
        if solution is None or solution.best_move is None:
            return None
        mover = position.to_move
        margin = solution.margin if mover == 0 else -solution.margin
        return [MoveStats(solution.best_move.action, solution.nodes, 1.0 if solution.winner == mover else 0.0, float(margin))]

    def tree_for(self, position: Position, room: int = 0) -> SearchTree:
        """The player's tree moved down to ``position``, or a new one there (keeping the expansion cache).

        Either way it has room for ``room`` more nodes.
        """
        tree = self.tree
        if tree is None or not tree.advance_to(position, room):
            cache = tree.expansion_cache if tree is not None else None  # same player, same configuration
            capacity = max(MIN_CAPACITY, room + 1)
            if self.max_tree_nodes is not None:
                capacity = min(capacity, self.max_tree_nodes)
            tree = SearchTree(position, self.config, self._seeds.getrandbits(64), capacity=capacity, expansion_cache=cache)
        tree.max_nodes = self.max_tree_nodes
        self.tree = tree
        return tree

    def analyse(
        self,
        position: Position,
        limit: Limit | None = None,
        stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int], None] | None = None,
        reused_visits_count: bool = True,
    ) -> list[MoveStats]:
        """Search ``position`` within the limit and return the root statistics, best first.

        Everything the move costs counts against a time limit: the endgame
        solver, finding the position in the kept tree, growing the tree and
        the Python around them; the answer comes within the limit and a
        millisecond or two (see docs/benchmarks.md for the measured figures).
        With an iteration limit, the visits a reused tree already holds
        count toward it (so a reply can be instant) unless
        ``reused_visits_count`` is false. ``stop`` and ``on_progress`` are as
        in :meth:`SearchTree.search`; the report lands in :attr:`last_report`.

        Near the end of the game the answer is exact: one move, with a win
        rate of 1 or 0 and the margin under perfect play.
        """
        limit = limit or self.limit
        clock = self.clock
        started = clock()
        deadline = None if limit.time is None else started + limit.time - ANSWER_RESERVE
        report = self.last_report = SearchReport()
        try:
            solved = self.solve_endgame(position, limit, deadline, stop)
            report.solver_seconds = clock() - started
            if solved is not None:
                report.solved = True
                return solved
            before = clock()
            had_tree = self.tree
            # Room for what this search should add (a node an iteration at most), with a margin:
            # allocated room costs nothing until used, and growing during a search costs a copy.
            if deadline is None or limit.iterations is not None:
                room = limit.iterations or 0
            else:
                room = int(ROOM_MARGIN * self._search_rate * max(0.0, deadline - before))
            tree = self.tree_for(position, min(room, MAX_ROOM))
            report.reused_tree = tree is had_tree
            report.reroot_seconds = clock() - before
            already = tree.root_visits() if reused_visits_count else 0
            wanted = None if limit.iterations is None else max(0, limit.iterations - already)
            if wanted is None or wanted > 0:
                before = clock()
                grows, growth = tree.grows, tree.growth_seconds
                report.iterations = tree.search(iterations=wanted, stop=stop, on_progress=on_progress, deadline=deadline, clock=clock)
                report.search_seconds = clock() - before
                if limit.time is not None and report.iterations and report.search_seconds > 0.05:
                    self._search_rate = report.iterations / report.search_seconds
                report.grows = tree.grows - grows
                report.growth_seconds = tree.growth_seconds - growth
            return tree.root_stats()
        finally:
            report.total_seconds = clock() - started

    def choose_move(self, position: Position) -> Move:
        """The search's best move within the player's limit: the first of :meth:`analyse`'s ranking."""
        stats = self.analyse(position)
        return Move.from_action(stats[0].action)


SEARCH_CORE = "the search core"
"""What the compiling notice calls the search's compiled code."""


def announce_search() -> None:
    """Say on stderr, once, when the search core (the MCTS and the rules it uses) is about to be compiled.

    It looks only at what every search compiles: the endgame solver, which
    only a search near the end of a game reaches, says so itself when it first runs.
    """
    announce_compiling(SEARCH_CORE, (run_search,), "10 seconds (or run 'quiltmaker compile' once)")


def warm_up() -> None:
    """Load (or, on a first start, compile) every compiled function a move uses, so that no move pays for it.

    Programs that answer on a clock call it before their first move: the
    engine protocol before its handshake ends, the web server's AI workers
    when they start. It takes about a second from numba's on-disk cache.
    """
    global _warm
    if _warm:
        return
    player = MCTSPlayer(Limit(iterations=64), seed=0, name="warm-up")
    position = Position.initial(0)
    move = player.choose_move(position)
    following = position.play(move)
    player.choose_move(following.play(following.legal_moves()[0]))  # finds a node and re-roots
    # The solver and the search near the end of a game.
    while position.to_move is not None and min(position.times) < SOLVER_FROM_SPACE:
        position = position.play_unchecked(position.legal_moves()[0])
    if position.to_move is not None:
        player.analyse(position, Limit(iterations=8))
    _warm = True


_warm = False
