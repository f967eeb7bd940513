"""Tests of the plain reference rules (tests/plain_rules.py) on their own.

The plain rules are the yardstick for differential tests against the fast
engine, so they are checked here against data no one on this team wrote:
the 500 reference games (tests/data, a copy of shared/data), plus small hand-made positions for
the rules that are easiest to get wrong.
"""

from __future__ import annotations

import functools
import json
import random
import sys
from pathlib import Path

import pytest
from helpers import TEST_DATA

try:
    from plain_rules import PlainGame, orientations, shape_cells
except ImportError:  # tests/ imported as a package, or importlib import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from plain_rules import PlainGame, orientations, shape_cells

# Copies of the shared data that travel with every clone (tests/test_package.py holds them equal
# to ../shared/data where that folder exists); read as files, not through the package under test.
COMPONENTS_FILE = Path(__file__).resolve().parents[1] / "quiltmaker" / "data" / "patchwork-components.json"
GAMES_FILE = TEST_DATA / "reference-games.json"

REVISED = [26, 32, 38, 44, 50]
ORIGINAL = [20, 26, 32, 44, 50]
ALL_CELLS = [(r, c) for r in range(9) for c in range(9)]


@functools.lru_cache(maxsize=None)
def load_components() -> dict:
    """Loads the component data once.

    Returns:
        The parsed components JSON.
    """
    return json.loads(COMPONENTS_FILE.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def load_games() -> list:
    """Loads the reference games once.

    Returns:
        The list of game records.
    """
    return json.loads(GAMES_FILE.read_text(encoding="utf-8"))


def game_indices() -> list:
    """Lists one pytest parameter per reference game, for clear failures.

    Returns:
        Game indices.
    """
    return list(range(len(load_games())))


def new_game(
    circle: list[int] | None = None,
    first_player: int = 0,
    special_spaces: list[int] | None = None,
) -> PlainGame:
    """Builds a game with the real patches and a predictable circle.

    Args:
        circle: Patch order; defaults to 1..32 then patch 0.
        first_player: Who starts.
        special_spaces: Defaults to the revised layout.

    Returns:
        A fresh PlainGame.
    """
    if circle is None:
        circle = list(range(1, 33)) + [0]
    if special_spaces is None:
        special_spaces = REVISED
    return PlainGame(circle, first_player, special_spaces, load_components()["patches"])


def circle_starting_with(*first: int) -> list[int]:
    """Makes a valid circle whose first offered patches are the given ids.

    Args:
        *first: Patch ids to put at the front (not 0).

    Returns:
        All 33 ids, the given ones first and patch 0 last.
    """
    rest = [i for i in range(1, 33) if i not in first]
    return list(first) + rest + [0]


def fill(game: PlainGame, player: int, cells: list[tuple[int, int]]) -> None:
    """Covers squares of a quilt directly, to set up a position quickly.

    Args:
        game: The game to change.
        player: Whose quilt.
        cells: Squares to cover.
    """
    for r, c in cells:
        game.quilts[player][r][c] = True


def record_move(move: dict) -> tuple:
    """Converts a recorded move into the plain rules' tuple form.

    Args:
        move: One entry of a record's "moves".

    Returns:
        The move as a tuple.
    """
    if move["type"] == "advance":
        return ("advance",)
    if move["type"] == "buy":
        cells = frozenset((r, c) for r, c in move["cells"])
        return ("buy", move["patch"], cells)
    r, c = move["cell"]
    return ("special", (r, c))


# ----- reference games ------------------------------------------------------


@pytest.mark.parametrize("index", game_indices())
def test_reference_game_replays(index: int) -> None:
    """Every recorded move is legal, by the right player, to the same result."""
    record = load_games()[index]
    variants = load_components()["time_track_variants"]
    variant = "original_printing" if record["variant"] == "original_printing" else "revised"
    game = new_game(
        record["circle"], record["first_player"], variants[variant]["special_patch_spaces"]
    )
    for number, move in enumerate(record["moves"]):
        where = f"game {index}, move {number}: {move}"
        assert game.to_move() == move["player"], where
        plain = record_move(move)
        assert plain in game.legal_moves(), where
        game.play(plain)
    assert game.is_over()
    assert game.to_move() is None
    assert game.legal_moves() == set()
    assert game.scores() == record["result"]["scores"]
    assert game.winner() == record["result"]["winner"]


# ----- components -----------------------------------------------------------


def test_distinct_orientations_match_totals() -> None:
    """The orientation count agrees with the totals in the component data."""
    components = load_components()
    total = sum(len(orientations(shape_cells(p["shape"]))) for p in components["patches"])
    assert total == components["totals"]["distinct_orientations"] == 144


def test_symmetric_placements_counted_once() -> None:
    """Orientations covering the same squares are one move."""
    game = new_game()
    assert len(game.placements(0, 0)) == 9 * 8 * 2  # 1x2: across or down
    assert len(game.placements(0, 9)) == 8 * 8  # 2x2: one way only
    assert len(game.placements(0, 15)) == 7 * 7  # plus sign: one way only


# ----- turn order -----------------------------------------------------------


def test_first_player_starts_on_top() -> None:
    """At the start both tokens share space 0 and the first player acts."""
    assert new_game(first_player=1).to_move() == 1
    assert new_game(first_player=0).to_move() == 0


def test_no_automatic_alternation() -> None:
    """A player who is still behind, or lands on top, acts again."""
    game = new_game(circle_starting_with(1, 3, 2))
    game.positions = [0, 3]
    # Patch 3 takes 1 time: player 0 is still behind and moves again.
    game.play(("buy", 3, frozenset({(0, 0), (0, 1), (1, 0)})))
    assert game.positions == [1, 3]
    assert game.to_move() == 0
    # Advancing lands on 4, ahead of player 1, who acts next.
    game.play(("advance",))
    assert game.positions == [4, 3]
    assert game.to_move() == 1


def test_token_arriving_last_is_on_top() -> None:
    """On a shared space the token that arrived last acts."""
    game = new_game(circle_starting_with(1, 3, 2))
    game.positions = [0, 3]
    # Patch 1 takes 3 time: player 0 lands on player 1's space, on top.
    game.play(("buy", 1, frozenset({(0, 0), (0, 1), (1, 0)})))
    assert game.positions == [3, 3]
    assert game.to_move() == 0


# ----- advancing and income -------------------------------------------------


def test_advance_moves_just_past_opponent_paid_per_space() -> None:
    """Advance goes to opponent + 1, one button per space."""
    game = new_game()
    game.positions = [0, 3]
    game.play(("advance",))
    assert game.positions == [4, 3]
    assert game.buttons == [5 + 4, 5]


def test_advance_clamped_at_53_with_last_income() -> None:
    """Against an opponent on 53 a token moves only to 53, paid per space."""
    game = new_game()
    game.positions = [50, 53]
    game.first_to_end = 1
    game.income = [2, 0]
    game.play(("advance",))
    assert game.positions == [53, 53]
    # 3 spaces moved, plus the last income on space 53.
    assert game.buttons == [5 + 3 + 2, 5]
    assert game.is_over()


def test_income_paid_for_every_space_crossed() -> None:
    """Crossing two income spaces in one move pays income twice."""
    game = new_game()
    game.positions = [3, 10]
    game.income = [2, 0]
    game.play(("advance",))
    assert game.positions == [11, 10]
    # 8 spaces moved, income on 5 and on 11.
    assert game.buttons == [5 + 8 + 2 + 2, 5]


def test_income_includes_patch_just_bought() -> None:
    """The bought patch's income counts for income spaces this move crosses."""
    game = new_game(circle_starting_with(10, 1, 2))
    game.positions = [4, 20]
    game.buttons = [7, 5]
    cells = frozenset({(0, 0), (0, 1), (1, 1), (1, 2)})
    game.play(("buy", 10, cells))
    assert game.positions == [10, 20]
    assert game.buttons == [7 - 7 + 3, 5]


def test_cost_not_payable_from_income_of_the_same_move() -> None:
    """Buttons that the move would earn cannot pay for the patch."""
    game = new_game(circle_starting_with(10, 1, 2))
    game.positions = [4, 20]
    game.buttons = [6, 5]
    game.income = [5, 0]
    bought = {move[1] for move in game.legal_moves() if move[0] == "buy"}
    assert bought == {1, 2}


# ----- the circle -----------------------------------------------------------


def test_only_next_three_patches_offered_and_circle_turns() -> None:
    """Only three patches are offered; buying one moves the neutral token."""
    circle = circle_starting_with(20, 11, 21, 30)
    game = new_game(circle)
    game.buttons = [50, 50]
    bought = {move[1] for move in game.legal_moves() if move[0] == "buy"}
    assert bought == {20, 11, 21}
    move = next(m for m in game.legal_moves() if m[0] == "buy" and m[1] == 11)
    game.play(move)
    assert game.snapshot()["circle"] == circle[2:] + circle[:1]
    assert game.snapshot()["circle"][:3] == [21, 30, circle[4]]


# ----- special patches ------------------------------------------------------


def test_special_patch_is_placed_before_anything_else() -> None:
    """The mover places the special patch even when now ahead."""
    game = new_game(circle_starting_with(8, 1, 2))
    game.positions = [24, 25]
    game.play(("buy", 8, frozenset({(0, 0), (0, 1), (0, 2), (1, 0)})))
    assert game.positions == [30, 25]
    assert game.to_move() == 0
    assert game.snapshot()["pending_specials"] == 1
    moves = game.legal_moves()
    assert all(move[0] == "special" for move in moves)
    assert len(moves) == 81 - 4
    with pytest.raises(ValueError):
        game.play(("advance",))
    game.play(("special", (8, 8)))
    assert game.to_move() == 1
    assert game.snapshot()["specials"] == [32, 38, 44, 50]
    assert (8, 8) in game.snapshot()["quilts"][0]
    # The patch on 26 is gone for the other player too.
    game.play(("advance",))
    assert game.positions == [30, 31]
    assert game.snapshot()["pending_specials"] == 0


def test_two_specials_crossed_means_two_placements() -> None:
    """Crossing two special spaces in one move gives two placements."""
    game = new_game()
    game.positions = [31, 40]
    game.play(("advance",))
    assert game.positions == [41, 40]
    assert game.snapshot()["pending_specials"] == 2
    game.play(("special", (0, 0)))
    assert game.to_move() == 0
    game.play(("special", (0, 1)))
    assert game.to_move() == 1
    # 26 was set up as already passed, so it still holds its patch.
    assert game.snapshot()["specials"] == [26, 44, 50]


def test_original_printing_has_special_on_20() -> None:
    """The original-printing variant puts a special patch on space 20."""
    game = new_game(special_spaces=ORIGINAL)
    game.positions = [18, 20]
    game.play(("advance",))
    assert game.snapshot()["pending_specials"] == 1
    assert game.snapshot()["specials"] == [26, 32, 44, 50]


def test_specials_beyond_empty_squares_are_discarded() -> None:
    """With fewer empty squares than specials, the extra ones are lost."""
    game = new_game()
    game.positions = [31, 40]
    fill(game, 0, ALL_CELLS[:-1])
    game.play(("advance",))
    assert game.snapshot()["pending_specials"] == 1
    game.play(("special", (8, 8)))
    assert game.snapshot()["specials"] == [26, 44, 50]
    assert game.to_move() == 1

    full = new_game()
    full.positions = [31, 40]
    fill(full, 0, ALL_CELLS)
    full.play(("advance",))
    assert full.snapshot()["pending_specials"] == 0
    assert full.snapshot()["specials"] == [26, 44, 50]
    assert full.to_move() == 1


# ----- bonus, scores and the end --------------------------------------------


def test_bonus_from_special_placement_never_changes_hands() -> None:
    """A special patch can complete the 7x7; the bonus then stays put."""
    game = new_game()
    square = [(r, c) for r in range(7) for c in range(7)]
    fill(game, 0, square[1:])
    game.positions = [24, 30]
    game.play(("advance",))  # crosses 26
    assert game.snapshot()["bonus"] is None
    game.play(("special", (0, 0)))
    assert game.snapshot()["bonus"] == 0
    fill(game, 1, square[1:])
    game.play(("advance",))  # player 1 from 30 to 32: crosses special 32
    game.play(("special", (0, 0)))
    assert game.snapshot()["bonus"] == 0
    scores = game.scores()
    assert scores[0] == game.buttons[0] + 7 - 2 * (81 - 49)
    assert scores[1] == game.buttons[1] - 2 * (81 - 49)


def test_scores_count_empty_squares() -> None:
    """Score is buttons minus 2 per empty square, and may be negative."""
    game = new_game()
    assert game.scores() == [5 - 162, 5 - 162]


@pytest.mark.parametrize("first", [0, 1])
def test_tie_goes_to_player_who_reached_53_first(first: int) -> None:
    """Equal scores: whoever reached space 53 first wins."""
    game = new_game(first_player=1 - first)
    game.positions = [51, 51]
    game.positions[1 - first] = 52  # so `first` is behind and moves first
    game.buttons = [5, 5]
    game.buttons[1 - first] = 6  # `first` gains 2 buttons, the other 1
    game.play(("advance",))
    assert game.positions[first] == 53
    assert game.to_move() == 1 - first
    game.play(("advance",))
    assert game.is_over()
    assert game.to_move() is None
    assert game.scores()[0] == game.scores()[1]
    assert game.winner() == first


def test_game_not_over_while_special_pending_on_53() -> None:
    """Both tokens on 53 with a placement pending: the game goes on."""
    game = new_game()
    game.specials = [50]
    game.positions = [49, 53]
    game.first_to_end = 1
    game.play(("advance",))
    assert game.positions == [53, 53]
    assert not game.is_over()
    assert game.to_move() == 0
    game.play(("special", (4, 4)))
    assert game.is_over()


def test_illegal_move_raises_and_leaves_state_unchanged() -> None:
    """Illegal moves raise ValueError without changing anything."""
    game = new_game(circle_starting_with(1, 2, 3, 4))
    game.positions = [0, 10]  # player 0 keeps the turn after one purchase
    before = game.snapshot()
    illegal = [
        ("buy", 4, frozenset({(0, 0), (0, 1), (0, 2), (1, 1)})),  # fourth patch
        ("buy", 1, frozenset({(0, 0), (0, 1), (0, 2)})),  # wrong shape
        ("buy", 1, frozenset({(8, 8), (8, 9), (9, 8)})),  # off the grid
        ("special", (0, 0)),  # nothing pending
        ("pass",),
        ["advance"],  # unhashable
    ]
    for move in illegal:
        with pytest.raises(ValueError):
            game.play(move)  # type: ignore[arg-type]
        assert game.snapshot() == before
    game.play(("buy", 1, frozenset({(0, 0), (0, 1), (1, 0)})))
    with pytest.raises(ValueError):  # overlaps the patch just placed
        game.play(("buy", 2, frozenset({(0, 0), (0, 1), (0, 2)})))


@pytest.mark.parametrize("seed", range(5))
def test_seeded_random_games_keep_invariants(seed: int) -> None:
    """Random play always ends, and the bookkeeping stays consistent."""
    rng = random.Random(seed)
    circle = list(range(1, 33))
    rng.shuffle(circle)
    game = new_game(circle + [0], first_player=seed % 2)
    bought = 0
    while not game.is_over():
        moves = sorted(game.legal_moves(), key=repr)  # sorted: reproducible
        assert moves, "a player to move always has a legal move"
        move = rng.choice(moves)
        game.play(move)
        bought += move[0] == "buy"
        snap = game.snapshot()
        assert len(snap["circle"]) == 33 - bought
        assert all(0 <= pos <= 53 for pos in snap["positions"])
        assert all(buttons >= 0 for buttons in snap["buttons"])
        assert snap["pending_specials"] <= 81 - len(snap["quilts"][snap["to_move"] or 0])
    assert game.snapshot()["specials"] == []
    assert game.winner() in (0, 1)
