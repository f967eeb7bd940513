"""Puzzles: the shipped set re-proven by the solver, the rules of kinds and solutions, and generation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from quiltmaker import puzzles
from quiltmaker.ai.solver import EndgameSolver
from quiltmaker.core import record
from quiltmaker.core.moves import Move
from quiltmaker.core.position import NO_BONUS, Position
from quiltmaker.puzzles import KINDS, MoveResult, Puzzle, classify, decision, puzzle_id, solve_moves

# Patch 0 wins from here in six placements, by margins from 11 down to 0 (a win on the tie-break); advancing loses.
SAME_PATCH_DIFFERENT_MARGINS = (
    "revised 6,0,25,10,18,8,2,3,4,7 45,16,14,xxxxxx1xx/1xxxxxxxx/1xxxxxxx1/xxxxxxxxx/xxxxxxxxx/xxxxxxxx1/xxxx3xx/xxxx2xx1/1xxxxxxxx "
    "47,31,15,1xxxxxxxx/xxxxxxxxx/4xxxxx/4xxxxx/5xxxx/1xxxxxxxx/2xxx1xxx/1xxxxxxxx/xxxxxxxxx 1 50 - 0"
)
# Patch 1 and patch 6 both win from here: two different answers, so no puzzle.
TWO_PATCHES_WIN = (
    "revised 1,27,6,31,0,18,29,28 49,25,15,xxxxxx1x1/xxxxxxxxx/xxxxxx1x1/1xxxxxxxx/1x2xx3/xxxxxxx1x/x1xxxxxxx/xxxxxxxxx/x4xxxx "
    "47,18,12,xxxxxxxxx/xxxxxxxxx/1xxxxxxxx/1xxxxxxxx/xxxxx1xxx/xxxxx1x1x/x2x2xxx/xxxxx1x1x/xxxxx1x2 1 50 - 0"
)

SHIPPED = puzzles.load()


def mover_outcome(solver: EndgameSolver, position: Position, move: Move) -> tuple[bool, int]:
    """(whether the mover wins, the mover's margin) after ``move``, straight from the solver."""
    solution = solver.solve(position.play_unchecked(move), max_nodes=puzzles.VERIFY_NODES)
    assert solution is not None, f"{position.text()} after {move.text()}: not solved"
    mover = position.to_move
    return solution.winner == mover, solution.margin if mover == 0 else -solution.margin


# The shipped set -----------------------------------------------------------------


def test_the_shipped_set_is_large_and_mixed() -> None:
    assert len(SHIPPED) >= 300
    counts = {kind: sum(p.kind == kind for p in SHIPPED) for kind in KINDS}
    assert all(count >= 20 for count in counts.values()), counts
    header = json.loads(Path(puzzles.__file__).with_name("data").joinpath("puzzles.json").read_text("utf-8"))
    assert header["counts"] == counts and header["command"].startswith("quiltmaker puzzles generate")


def test_every_shipped_puzzle_is_proven_by_the_solver() -> None:
    """Each solution wins by its listed margin; every other legal move loses, so it is worse for the mover than any solution."""
    solver = EndgameSolver()
    for puzzle in SHIPPED:
        position = Position.from_text(puzzle.position)
        assert position.to_move == puzzle.to_move
        solutions = {s.move: s for s in puzzle.solutions}
        outcomes = {move.text(): mover_outcome(solver, position, move) for move in position.legal_moves()}
        assert set(solutions) <= set(outcomes) and len(outcomes) == puzzle.moves
        for text, (wins, margin) in outcomes.items():
            if text in solutions:
                assert wins and margin == solutions[text].margin, (puzzle.id, text)
            else:
                assert not wins, (puzzle.id, text, margin)  # a loss: below every win, whatever the margins
        best_other = max(margin for text, (_, margin) in outcomes.items() if text not in solutions)
        assert best_other == puzzle.best_other.margin
        assert puzzle.outcome.margin == max(s.margin for s in puzzle.solutions)
        # One answer: every solution is the same decision (advance, one patch anywhere, or one square).
        assert len({decision(Move.from_text(text)) for text in solutions}) == 1


def test_every_shipped_puzzle_verifies() -> None:
    """The module's own check, kinds, counts and ratings included, from a fresh table as it was made."""
    problems = [problem for puzzle in SHIPPED for problem in puzzles.verify(puzzle)]
    assert problems == []


def test_shipped_kinds_mean_what_they_say() -> None:
    for puzzle in SHIPPED:
        position = Position.from_text(puzzle.position)
        takes_bonus = position.bonus == NO_BONUS and all(position.play(s.move).bonus == puzzle.to_move for s in puzzle.solutions)
        assert (puzzle.kind == "bonus") == takes_bonus
        if puzzle.kind != "bonus":
            assert (puzzle.kind == "only-move") == (len(puzzle.solutions) == 1)


def test_ids_are_stable_unique_and_positions_round_trip() -> None:
    ids = [p.id for p in SHIPPED]
    assert len(set(ids)) == len(ids)
    for puzzle in SHIPPED:
        position = Position.from_text(puzzle.position)
        assert position.text() == puzzle.position
        assert puzzle_id(position) == puzzle.id
    # The id is the start of the SHA-256 of the text, pinned so that it never changes under a player's ratings.
    assert puzzle_id(Position.from_text(SAME_PATCH_DIFFERENT_MARGINS)) == "6c39d4bb7931"


def test_puzzles_round_trip_through_json() -> None:
    for puzzle in SHIPPED[:20]:
        assert Puzzle.from_json(json.loads(json.dumps(puzzle.to_json()))) == puzzle


# Kinds and solutions ------------------------------------------------------------


def results(*moves: tuple[str, int, int]) -> list[MoveResult]:
    return [MoveResult(move, winner, margin) for move, winner, margin in moves]


START = Position.initial(circle=[*range(1, 33), 0], first_player=0)  # player 0 to move, patches 1, 2 and 3 on offer


def test_every_winning_placement_of_the_one_winning_patch_is_a_solution() -> None:
    found = classify(START, results(("A", 1, -3), ("1R0@a1", 0, 2), ("1R0@e5", 0, 7), ("2R0@a1", 1, -1)))
    assert found is not None
    kind, solutions = found
    assert kind == "win" and [(s.move, s.margin) for s in solutions] == [("1R0@e5", 7), ("1R0@a1", 2)]


def test_two_winning_decisions_are_no_puzzle() -> None:
    assert classify(START, results(("A", 0, 1), ("1R0@a1", 0, 2), ("2R0@a1", 1, -1))) is None


def test_a_single_winning_move_is_an_only_move() -> None:
    found = classify(START, results(("A", 1, -3), ("1R0@a1", 0, 2), ("1R0@e5", 1, -2), ("2R0@a1", 1, -1)))
    assert found is not None and found[0] == "only-move" and [s.move for s in found[1]] == ["1R0@a1"]


def test_no_puzzle_when_every_move_wins_or_every_move_loses_or_there_is_hardly_a_choice() -> None:
    assert classify(START, results(("A", 0, 1), ("1R0@a1", 0, 2), ("1R0@e5", 0, 3))) is None
    assert classify(START, results(("A", 1, -1), ("1R0@a1", 1, -2), ("2R0@a1", 1, -3))) is None
    assert classify(START, results(("A", 1, -1), ("1R0@a1", 0, 2))) is None  # two moves only
    assert classify(START, results(("1R0@a1", 1, -1), ("1R0@e5", 0, 2), ("1R0@a5", 1, -3))) is None  # one decision only


def test_a_real_position_with_one_patch_winning_by_different_margins() -> None:
    """Two equally good moves (both win) with different results: both are solutions, best first, as docs/puzzles.md says."""
    position = Position.from_text(SAME_PATCH_DIFFERENT_MARGINS)
    found = solve_moves(position)
    assert found is not None
    classified = classify(position, found)
    assert classified is not None
    kind, solutions = classified
    assert kind == "win"
    assert [s.margin for s in solutions] == [11, 10, 9, 9, 0, 0]
    assert {decision(Move.from_text(s.move)) for s in solutions} == {("buy", 0)}
    assert [r.move for r in found if r.winner != position.to_move] == ["A"]
    puzzle = puzzles.make_puzzle(position, {"test": True})
    assert puzzle is not None and puzzle.outcome.margin == 11 and len(puzzle.solutions) == 6 and puzzles.verify(puzzle) == []


def test_a_real_position_where_two_patches_win_is_no_puzzle() -> None:
    position = Position.from_text(TWO_PATCHES_WIN)
    found = solve_moves(position)
    assert found is not None
    winning = {decision(Move.from_text(r.move)) for r in found if r.winner == position.to_move}
    assert winning == {("buy", 1), ("buy", 6)}
    assert classify(position, found) is None and puzzles.make_puzzle(position, {}) is None


def test_verify_finds_a_wrong_puzzle() -> None:
    puzzle = SHIPPED[0]
    wrong = Puzzle(
        puzzle.id, puzzle.position, puzzle.to_move, puzzle.kind, puzzle.solutions[:1] + (puzzle.best_other,),
        puzzle.best_other, puzzle.moves, puzzle.rating, puzzle.nodes, puzzle.source,
    )  # fmt: skip
    assert any(puzzle.best_other.move in problem for problem in puzzles.verify(wrong))
    renamed = Puzzle(**{**puzzle.__dict__, "id": "000000000000"})
    assert any("id" in problem for problem in puzzles.verify(renamed))


# Generation ---------------------------------------------------------------------


def test_generation_is_deterministic() -> None:
    first = puzzles.generate(3, seed=0)
    again = puzzles.generate(3, seed=0)
    assert len(first) == 3 and [p.to_json() for p in first] == [p.to_json() for p in again]
    # The shipped set was made with seed 0: its first puzzles come back exactly, node counts and all.
    assert [p.to_json() for p in first] == [p.to_json() for p in SHIPPED[:3]]
    assert all(p.source["players"] and "seed" in p.source and "ply" in p.source for p in first)
    assert all(puzzles.verify(p) == [] for p in first)


def test_generation_takes_the_records_first(tmp_path: Path) -> None:
    game, _ = puzzles.generated_game(0, 0)
    record.save(game, tmp_path / "finished.json")
    found = puzzles.generate(1, seed=0, records=tmp_path)
    assert found[0].source == {"record": "finished.json", "ply": found[0].source["ply"]}
    assert Position.from_text(found[0].position) == game.positions[found[0].source["ply"]]


def test_the_commands(tmp_path: Path) -> None:
    for name in ("a.json", "b.json"):
        result = run_cli(tmp_path, "puzzles", "generate", "--count", "2", "--seed", "0", "--out", name)
        assert result.returncode == 0, result.stderr
        assert "2 puzzles" in result.stdout
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    data = json.loads((tmp_path / "a.json").read_text("utf-8"))
    assert data["command"] == "quiltmaker puzzles generate --count 2 --seed 0" and len(data["puzzles"]) == 2
    result = run_cli(tmp_path, "puzzles", "verify", "a.json")
    assert result.returncode == 0 and "every solution proven" in result.stdout
    data["puzzles"][0]["best_other"]["margin"] -= 1
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    result = run_cli(tmp_path, "puzzles", "verify", "bad.json")
    assert result.returncode == 1 and data["puzzles"][0]["id"] in result.stdout
    (tmp_path / "not.json").write_text("{}", encoding="utf-8")
    result = run_cli(tmp_path, "puzzles", "verify", "not.json")
    assert result.returncode == 2 and "not a puzzle file" in result.stderr


@pytest.mark.parametrize("args", [["--count", "0"], ["--seed", "-1"], ["--records", "nowhere"]])
def test_bad_generate_options_are_refused(tmp_path: Path, args: list[str]) -> None:
    result = run_cli(tmp_path, "puzzles", "generate", *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_a_file_whose_summary_fields_disagree_is_refused(tmp_path: Path) -> None:
    data = json.loads(Path(puzzles.__file__).with_name("data").joinpath("puzzles.json").read_text("utf-8"))
    data["puzzles"] = data["puzzles"][:1]
    data["puzzles"][0]["outcome"]["margin"] += 1
    (tmp_path / "p.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(puzzles.QuiltmakerError, match="disagrees"):
        puzzles.load(tmp_path / "p.json")
