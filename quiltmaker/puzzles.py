"""Puzzles: positions from finished games where the exact solver proves that one move wins.

A puzzle is a position and its answer. The answer is proven, not guessed:
every legal move is played and the position after it solved to the end of
the game by :class:`~quiltmaker.ai.solver.EndgameSolver`, which gives the
winner and the final margin under perfect play by both sides. Patchwork has
no draws (equal scores go to whoever reached the last space first), so
every move either wins or loses for the player who makes it.

The goal of every puzzle is to win, and a puzzle is kept only when the
winning moves are one decision, the same thing to a player: advancing, or
buying one patch (wherever it is placed), or one special patch's square.
Every winning move is a solution, as Lichess takes any mating move in a
mate puzzle; every other move loses. The kinds:

- ``bonus``: the 7x7 bonus is still unclaimed and every solution earns it.
- ``only-move``: a single legal move wins, the patch and its exact place
  (or advancing): every other move, the same patch elsewhere too, loses.
- ``win``: the rest: one decision wins, in any of several placements.

See docs/puzzles.md for why the solutions are defined that way, and
``quiltmaker puzzles generate`` / ``verify`` for the shipped set
(``quiltmaker/data/puzzles.json``), which a test re-verifies in full.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .ai.levels import ai_player_from_spec
from .ai.players import GreedyPlayer, play_game
from .ai.solver import EndgameSolver
from .core import record
from .core.errors import QuiltmakerError
from .core.game import Game
from .core.moves import ADVANCE, BUY, Move
from .core.position import NO_BONUS, Position
from .core.seeds import check_seed, derived_seed

FORMAT = "quiltmaker-puzzles/1"
"""The format name a puzzle file carries."""
KINDS = ("win", "only-move", "bonus")
"""The kinds of puzzle: any winning move, the only winning move, the move that takes the bonus."""
MAX_NODES = 400_000
"""The solver's budget for one position: all its moves' solves together. A position past it is no puzzle."""
VERIFY_NODES = 20 * MAX_NODES
"""The budget when a puzzle is re-verified: generous, so that only a wrong puzzle fails."""
TABLE_BITS = 18
"""The solver's transposition table has 2**TABLE_BITS entries."""
MIN_MOVES = 3
"""A puzzle has at least this many legal moves, of at least two decisions."""
PER_GAME = 2
"""At most this many puzzles from one game, so that the set is spread over many."""
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("strong", "casual"),
    ("casual", "beginner"),
    ("strong", "strong"),
    ("beginner", "beginner"),
    ("casual", "casual"),
    ("strong", "beginner"),
)
"""The players of generated games, taken in turn (seat 0, seat 1): levels reproducible from a seed."""
BASE_RATING = 1200
"""A puzzle's first rating before its difficulty is added."""


@dataclass(frozen=True)
class MoveResult:
    """One move's exact outcome under perfect play after it.

    Attributes:
        move: The move's text.
        winner: The player who wins.
        margin: The mover's final score minus the opponent's (0 or less when the mover loses).
        nodes: Positions the solver searched for it (0 when the move ends the game).
    """

    move: str
    winner: int
    margin: int
    nodes: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The result as the puzzle file writes it."""
        return {"move": self.move, "winner": self.winner, "margin": self.margin}


@dataclass(frozen=True)
class Puzzle:
    """A position whose winning moves the solver has proven (see the module docstring).

    Attributes:
        id: A stable name: the start of the SHA-256 of the position's text.
        position: The position's one-line text (:meth:`Position.text`).
        to_move: The player who solves the puzzle.
        kind: ``"win"``, ``"only-move"`` or ``"bonus"``.
        solutions: Every winning move, each with its exact outcome, best first.
        best_other: The best of the other moves (the least bad loss).
        moves: Legal moves in the position.
        rating: A starting rating for the puzzle (see :func:`starting_rating`).
        nodes: Positions the solver searched to prove it (a fresh table, moves in legal order).
        source: Where the position comes from: a generated game's players, seed and ply, or a record's file and ply.
    """

    id: str
    position: str
    to_move: int
    kind: str
    solutions: tuple[MoveResult, ...]
    best_other: MoveResult
    moves: int
    rating: int
    nodes: int
    source: dict[str, Any] = field(compare=False)

    @property
    def outcome(self) -> MoveResult:
        """The best solution's outcome: what perfect play from here gives."""
        return self.solutions[0]

    def to_json(self) -> dict[str, Any]:
        """The puzzle as the puzzle file writes it."""
        return {
            "id": self.id,
            "position": self.position,
            "to_move": self.to_move,
            "kind": self.kind,
            "solutions": [s.to_json() for s in self.solutions],
            "outcome": {"winner": self.outcome.winner, "margin": self.outcome.margin},
            "best_other": self.best_other.to_json(),
            "moves": self.moves,
            "losing": self.moves - len(self.solutions),
            "rating": self.rating,
            "nodes": self.nodes,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Puzzle:
        """A puzzle read back from its JSON form."""
        try:
            puzzle = cls(
                str(data["id"]), str(data["position"]), int(data["to_move"]), str(data["kind"]),
                tuple(MoveResult(s["move"], int(s["winner"]), int(s["margin"])) for s in data["solutions"]),
                MoveResult(data["best_other"]["move"], int(data["best_other"]["winner"]), int(data["best_other"]["margin"])),
                int(data["moves"]), int(data["rating"]), int(data["nodes"]), dict(data["source"]),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise QuiltmakerError(f"not a puzzle: {error!r} in {str(data)[:80]}") from None
        # The fields written only for readers (the best outcome, the losing count) must agree with the rest.
        derived = {key: puzzle.to_json()[key] for key in ("outcome", "losing")} if puzzle.solutions else None
        if derived is None or any(data.get(key) != value for key, value in derived.items()):
            raise QuiltmakerError(f"puzzle {puzzle.id}: its outcome or losing count disagrees with its solutions and moves")
        return puzzle


def puzzle_id(position: Position) -> str:
    """The stable id of a position's puzzle: 12 hex digits of the SHA-256 of its text."""
    return hashlib.sha256(position.text().encode("ascii")).hexdigest()[:12]


def decision(move: Move) -> tuple[str, int]:
    """What a move decides, to a player: advance, which patch to buy (not where), or which square for a special patch."""
    if move.kind == ADVANCE:
        return ("advance", 0)
    if move.kind == BUY:
        assert move.patch is not None
        return ("buy", move.patch)
    return ("special", move.mask)


def solve_moves(position: Position, max_nodes: int = MAX_NODES, solver: EndgameSolver | None = None) -> list[MoveResult] | None:
    """Every legal move's exact outcome, in legal order, or ``None`` past ``max_nodes`` nodes in all.

    A fresh solver table is used unless ``solver`` is given, so that the node
    counts of a position do not depend on what was solved before it.
    """
    mover = position.to_move
    if mover is None:
        return []
    solver = solver or EndgameSolver(TABLE_BITS)
    left = max_nodes
    results = []
    for move in position.legal_moves():
        solution = solver.solve(position.play_unchecked(move), max_nodes=max(left, 1))
        if solution is None:
            return None
        left -= solution.nodes
        margin = solution.margin if mover == 0 else -solution.margin
        results.append(MoveResult(move.text(), solution.winner, margin, solution.nodes))
    return results


def classify(position: Position, results: list[MoveResult]) -> tuple[str, list[MoveResult]] | None:
    """The puzzle's kind and its solutions (best first), or ``None`` when the position is no puzzle.

    It is one when some moves win and some lose, there are at least
    :data:`MIN_MOVES` moves of two decisions or more, and the winning moves
    are all one :func:`decision`.
    """
    mover = position.to_move
    if mover is None or len(results) < MIN_MOVES:
        return None
    winning = [r for r in results if r.winner == mover]
    if not winning or len(winning) == len(results):
        return None
    moves = {r.move: Move.from_text(r.move) for r in results}
    if len({decision(m) for m in moves.values()}) < 2 or len({decision(moves[r.move]) for r in winning}) != 1:
        return None
    solutions = sorted(winning, key=lambda r: -r.margin)  # stable: equal margins stay in legal order
    if position.bonus == NO_BONUS and all(position.play_unchecked(moves[r.move]).bonus == mover for r in winning):
        return "bonus", solutions
    return ("only-move" if len(winning) == 1 else "win"), solutions


def starting_rating(position: Position, results: list[MoveResult], solutions: list[MoveResult]) -> int:
    """A puzzle's first rating, before anyone has played it: harder when more moves lose and the obvious move is wrong.

    It is ``1200 + 400 * (share of moves that lose) + 400 * (share of the
    greedy player's best-valued moves that lose) + 100 for an only-move``:
    from 1200 to 2100. The greedy player (the ``beginner`` level) stands for
    the move that looks best at a glance.
    """
    mover = position.to_move
    assert mover is not None
    greedy = GreedyPlayer(0)
    values = {r.move: greedy.move_value(position, Move.from_text(r.move), mover) for r in results}
    best = max(values.values())
    tops = [m for m, v in values.items() if v == best]
    winning = {s.move for s in solutions}
    losing_share = 1 - len(solutions) / len(results)
    greedy_wrong = sum(m not in winning for m in tops) / len(tops)
    rating = BASE_RATING + 400 * losing_share + 400 * greedy_wrong + (100 if len(solutions) == 1 else 0)
    return int(math.floor(rating + 0.5))


def make_puzzle(position: Position, source: dict[str, Any], max_nodes: int = MAX_NODES) -> Puzzle | None:
    """The puzzle of ``position``, or ``None`` if it is none or the solver cannot prove it within ``max_nodes``."""
    results = solve_moves(position, max_nodes)
    return None if results is None else puzzle_from_results(position, results, source)


def puzzle_from_results(position: Position, results: list[MoveResult], source: dict[str, Any]) -> Puzzle | None:
    """The puzzle of ``position`` from its moves' outcomes (:func:`solve_moves`), or ``None`` if it is none."""
    found = classify(position, results)
    if found is None:
        return None
    kind, solutions = found
    winning = {s.move for s in solutions}
    others = [r for r in results if r.move not in winning]
    best_other = max(others, key=lambda r: r.margin)  # all lose; max keeps the first of equal ones
    assert position.to_move is not None
    return Puzzle(
        puzzle_id(position), position.text(), position.to_move, kind, tuple(solutions), best_other, len(results),
        starting_rating(position, results, solutions), sum(r.nodes for r in results), source,
    )  # fmt: skip


def verify(puzzle: Puzzle, max_nodes: int = VERIFY_NODES) -> list[str]:
    """What is wrong with ``puzzle`` by the solver's own figures, solved again from scratch (empty when nothing).

    Checks that its position parses and has its id; that the solver proves
    every listed solution wins with the listed margin and every other legal
    move loses (so each is worse for the mover than any solution); that the
    winning moves are one decision, of the listed kind; and the listed counts,
    best other move and rating.
    """
    try:
        position = Position.from_text(puzzle.position)
    except QuiltmakerError as error:
        return [f"{puzzle.id}: the position does not parse: {error}"]
    problems = []
    if puzzle_id(position) != puzzle.id or position.text() != puzzle.position:
        problems.append(f"{puzzle.id}: the id is not that of its position ({puzzle_id(position)})")
    if position.to_move != puzzle.to_move:
        return [*problems, f"{puzzle.id}: player {position.to_move} is to move, not {puzzle.to_move}"]
    results = solve_moves(position, max_nodes)
    if results is None:
        return [*problems, f"{puzzle.id}: not solved within {max_nodes} nodes"]
    by_move = {r.move: r for r in results}
    for listed in puzzle.solutions:
        found = by_move.get(listed.move)
        if found is None:
            problems.append(f"{puzzle.id}: solution {listed.move} is not a legal move")
        elif (found.winner, found.margin) != (listed.winner, listed.margin) or found.winner != puzzle.to_move:
            problems.append(f"{puzzle.id}: solution {listed.move} gives winner {found.winner}, margin {found.margin}, not as listed")
    listed_moves = {s.move for s in puzzle.solutions}
    for result in results:
        if result.move not in listed_moves and result.winner == puzzle.to_move:
            problems.append(f"{puzzle.id}: {result.move} wins too (margin {result.margin}) but is not a solution")
    classified = classify(position, results)
    if classified is None:
        problems.append(f"{puzzle.id}: the position is no puzzle by the rules of kinds")
    else:
        kind, solutions = classified
        if kind != puzzle.kind:
            problems.append(f"{puzzle.id}: the kind is {kind}, not {puzzle.kind}")
        if tuple((s.move, s.winner, s.margin) for s in solutions) != tuple((s.move, s.winner, s.margin) for s in puzzle.solutions):
            problems.append(f"{puzzle.id}: the solutions are {[s.move for s in solutions]}, not as listed")
        others = [r for r in results if r.move not in listed_moves]
        best = max(others, key=lambda r: r.margin) if others else None
        if best is None or (best.move, best.winner, best.margin) != (puzzle.best_other.move, puzzle.best_other.winner, puzzle.best_other.margin):
            problems.append(f"{puzzle.id}: the best other move is {best}, not {puzzle.best_other}")
        if len(results) != puzzle.moves:
            problems.append(f"{puzzle.id}: {len(results)} legal moves, not {puzzle.moves}")
        if not problems and starting_rating(position, results, solutions) != puzzle.rating:
            problems.append(f"{puzzle.id}: the starting rating is {starting_rating(position, results, solutions)}, not {puzzle.rating}")
    return problems


# Candidates ------------------------------------------------------------------


def _late_positions(game: Game) -> Iterator[tuple[int, Position]]:
    """A game's positions with a move to make, last first, with their ply (moves played before them)."""
    positions = game.positions
    for ply in range(len(positions) - 1, -1, -1):
        if not positions[ply].is_over:
            yield ply, positions[ply]


def game_puzzles(game: Game, source: dict[str, Any], seen: set[str], max_nodes: int = MAX_NODES, per_game: int = PER_GAME) -> list[Puzzle]:
    """Up to ``per_game`` new puzzles from one game, from the end back to the first position the solver cannot prove.

    ``seen`` holds the ids taken already; the new ones are added to it.
    """
    found: list[Puzzle] = []
    for ply, position in _late_positions(game):
        if len(found) >= per_game:
            break
        if len(position.legal_moves()) < MIN_MOVES:
            continue  # no puzzle, and nothing to solve
        results = solve_moves(position, max_nodes)
        if results is None:
            break  # earlier positions are harder still
        puzzle = puzzle_from_results(position, results, {**source, "ply": ply})
        if puzzle is None or puzzle.id in seen:
            continue
        seen.add(puzzle.id)
        found.append(puzzle)
    return found


def generated_game(seed: int, index: int) -> tuple[Game, dict[str, Any]]:
    """Game ``index`` of the run seeded ``seed``: its pairing from :data:`PAIRINGS`, setup and player seeds derived as ``quiltmaker simulate`` does."""
    names = PAIRINGS[index % len(PAIRINGS)]
    setup = derived_seed(seed * 1_000_003 + index)
    players = [ai_player_from_spec(name, derived_seed(setup * 2 + seat)) for seat, name in enumerate(names)]
    try:
        game = play_game(players, Position.initial(setup))
    finally:
        for player in players:
            player.close()
    return game, {"players": list(names), "seed": setup}


def record_games(folder: Path) -> Iterator[tuple[Game, dict[str, Any]]]:
    """The finished games of the record files (JSON or text) in ``folder``, in name order."""
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".json", ".txt")):
        game = record.load(path.read_text(encoding="utf-8"))
        if game.position.is_over:
            yield game, {"record": path.name}


def generate(
    count: int,
    seed: int = 0,
    records: Path | None = None,
    max_nodes: int = MAX_NODES,
    on_puzzle: Callable[[Puzzle], None] | None = None,
    on_game: Callable[[], None] | None = None,
    games: Iterable[tuple[Game, dict[str, Any]]] | None = None,
) -> list[Puzzle]:
    """``count`` puzzles: from the finished games in ``records`` first, then ``games`` (each with its source,
    e.g. a web server's, :func:`quiltmaker.web.round.finished.finished_games`), then from generated games.

    Deterministic from ``seed`` (and the records): the same call gives the
    same puzzles in the same order.
    """
    check_seed(seed, "the seed")
    if count < 1:
        raise QuiltmakerError("the count must be at least 1")
    seen: set[str] = set()
    puzzles: list[Puzzle] = []

    def take(games: Iterable[tuple[Game, dict[str, Any]]]) -> bool:
        for game, source in games:
            for puzzle in game_puzzles(game, source, seen, max_nodes):
                puzzles.append(puzzle)
                if on_puzzle:
                    on_puzzle(puzzle)
                if len(puzzles) == count:
                    return True
            if on_game:
                on_game()
        return False

    if records is not None and take(record_games(records)):
        return puzzles
    if games is not None and take(games):
        return puzzles
    index = 0

    def generated() -> Iterator[tuple[Game, dict[str, Any]]]:
        nonlocal index
        while True:
            yield generated_game(seed, index)
            index += 1

    take(generated())
    return puzzles


# Files -----------------------------------------------------------------------


def to_json(puzzles: list[Puzzle], command: str, seed: int, max_nodes: int = MAX_NODES) -> dict[str, Any]:
    """The puzzle file's content: a header that says how it was made, then the puzzles."""
    counts = {kind: sum(p.kind == kind for p in puzzles) for kind in KINDS}
    return {"format": FORMAT, "command": command, "seed": seed, "max_nodes": max_nodes, "counts": counts, "puzzles": [p.to_json() for p in puzzles]}


def save(puzzles: list[Puzzle], path: Path, command: str, seed: int, max_nodes: int = MAX_NODES) -> None:
    """Write a puzzle file (one puzzle a line, so that a change reads well in a diff)."""
    data = to_json(puzzles, command, seed, max_nodes)
    head = json.dumps({k: v for k, v in data.items() if k != "puzzles"})[:-1]
    lines = ",\n".join(json.dumps(p) for p in data["puzzles"])
    path.write_text(f'{head}, "puzzles": [\n{lines}\n]}}\n', encoding="utf-8")


def load(path: Path | None = None) -> list[Puzzle]:
    """The puzzles of a puzzle file; with no path, the shipped set.

    Raises:
        QuiltmakerError: The file is not a puzzle file.
    """
    if path is None:
        text = resources.files("quiltmaker").joinpath("data/puzzles.json").read_text("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise QuiltmakerError(f"not a puzzle file: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise QuiltmakerError(f"not a puzzle file: expected format {FORMAT!r}")
    return [Puzzle.from_json(p) for p in data["puzzles"]]
