"""One or more tests for each rule of shared/RULES.md, through the public API.

Most tests build an exact situation with :meth:`Position.from_text` (see
:meth:`Position.text` for the format), play one move and check exact numbers
worked out by hand from the rules, so that each assertion can fail.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from quiltmaker import (
    ACTION_COUNT,
    PATCHES,
    TIME_TRACKS,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Position,
    QuiltmakerError,
)
from quiltmaker.core.game import Game

from helpers import EARNING_PURCHASE, EARNS_A_SPECIAL, moves_of_sample_games

Cell = tuple[int, int]

ALL_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(9) for c in range(9))
# Patch ids in printed order with patch 0 last: a valid circle offering 1, 2, 3 first.
PLAIN_CIRCLE: tuple[int, ...] = (*range(1, 33), 0)
REVISED_SPECIALS = (26, 32, 38, 44, 50)
ORIGINAL_SPECIALS = (20, 26, 32, 44, 50)


# ----- helpers ----------------------------------------------------------------


def sq(name: str) -> Cell:
    """Return ``(row, col)`` of a square name such as ``"e5"`` (column letter, row digit)."""
    return int(name[1]) - 1, "abcdefghi".index(name[0])


def cells(*names: str) -> set[Cell]:
    """Return the squares named, as ``(row, col)`` pairs."""
    return {sq(name) for name in names}


def area(top: int, left: int, size: int = 7) -> set[Cell]:
    """Return the squares of the ``size`` x ``size`` area with top-left ``(top, left)``."""
    return {(top + r, left + c) for r in range(size) for c in range(size)}


def quilt_text(squares: Iterable[Cell]) -> str:
    """Write a quilt in position-text form: ``x`` covered, ``1`` per empty square."""
    taken = set(squares)
    return "/".join("".join("x" if (r, c) in taken else "1" for c in range(9)) for r in range(9))


def make(
    *,
    p0: tuple[int, int, int] = (0, 5, 0),
    p1: tuple[int, int, int] = (0, 5, 0),
    q0: Iterable[Cell] = (),
    q1: Iterable[Cell] = (),
    circle: Iterable[int] = PLAIN_CIRCLE,
    on_top: int = 0,
    specials: Iterable[int] | None = None,
    bonus: str = "-",
    pending: int = 0,
    variant: str = "revised",
) -> Position:
    """Build a position from its text, with defaults for everything not under test.

    Args:
        p0: Player 0's ``(space, buttons, income)``.
        p1: Player 1's ``(space, buttons, income)``.
        q0: Squares covered on player 0's quilt.
        q1: Squares covered on player 1's quilt.
        circle: Patch ids left, next offered first.
        on_top: The player who moved last.
        specials: Track spaces still holding a special patch; by default every
            special space of the variant ahead of both tokens.
        bonus: ``"-"``, ``"0"`` or ``"1"``.
        pending: Special patches ``on_top`` must place.
        variant: The time track's printing.
    """
    if specials is None:
        specials = [s for s in TIME_TRACKS[variant].special_spaces if s > max(p0[0], p1[0])]
    circle = list(circle)
    # Income on a quilt was bought: take patches printing at least as much from the circle's far end.
    owed = p0[2] + p1[2] - sum(patch.income for patch in PATCHES if patch.id not in circle)
    while owed > 0:
        taken = next(p for p in reversed(circle) if PATCHES[p].income and p not in circle[:3])
        circle.remove(taken)
        owed -= PATCHES[taken].income
    circle_text = ",".join(map(str, circle)) or "-"
    specials_text = ",".join(map(str, specials)) or "-"
    players = [f"{t},{b},{i},{quilt_text(q)}" for (t, b, i), q in ((p0, q0), (p1, q1))]
    return Position.from_text(f"{variant} {circle_text} {players[0]} {players[1]} {on_top} {specials_text} {bonus} {pending}")


def covered(position: Position, player: int) -> set[Cell]:
    """Return the covered squares of a player's quilt."""
    return {(r, c) for r, c in ALL_CELLS if position.quilts[player] >> (r * 9 + c) & 1}


def special_spaces(position: Position) -> tuple[int, ...]:
    """Return the track spaces still holding a special patch."""
    return tuple(s for s in range(54) if position.specials >> s & 1)


def buys_of(position: Position, patch: int) -> list[Move]:
    """Return the legal purchases of one patch."""
    return [m for m in position.legal_moves() if m.kind == "buy" and m.patch == patch]


def bought_patches(position: Position) -> set[int]:
    """Return the patch ids that have at least one legal purchase."""
    return {m.patch for m in position.legal_moves() if m.patch is not None}


# ----- setup ------------------------------------------------------------------


def test_initial_position_values() -> None:
    """Both tokens on 0, 5 buttons each, empty quilts, no income, no bonus, all specials on the track."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=1)
    assert start.times == (0, 0)
    assert start.buttons == (5, 5)
    assert start.income == (0, 0)
    assert start.quilts == (0, 0)
    assert start.bonus == -1 and start.pending == 0
    assert special_spaces(start) == REVISED_SPECIALS
    assert start.offered == (1, 2, 3)
    assert start.scores == (5 - 2 * 81, 5 - 2 * 81)
    assert not start.is_over and start.winner is None


@pytest.mark.parametrize("first", [0, 1])
def test_first_player_is_on_top_at_the_start(first: int) -> None:
    """The chosen first player's token counts as on top of the shared space 0."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=first)
    assert start.on_top == first
    assert start.to_move == first


def test_seeded_setup_is_reproducible_and_puts_patch_0_last() -> None:
    """The same seed gives the same circle and first player; the 1x2 patch is always last."""
    circles = set()
    firsts = set()
    for seed in range(30):
        start = Position.initial(seed)
        assert start == Position.initial(seed)
        assert Game.new(seed=seed).start == start
        assert sorted(start.circle) == list(range(33))
        assert start.circle[-1] == 0
        assert 0 not in start.offered and len(start.offered) == 3
        circles.add(start.circle)
        firsts.add(start.on_top)
    # The seed really drives the shuffle and the choice of first player.
    assert len(circles) == 30
    assert firsts == {0, 1}


def test_explicit_circle_and_first_player_override_the_seed() -> None:
    """An explicit circle is used as given; an explicit first player is used as given."""
    start = Position.initial(123, circle=PLAIN_CIRCLE, first_player=1)
    assert start.circle == PLAIN_CIRCLE
    assert start.to_move == 1


@pytest.mark.parametrize(
    "circle",
    [
        list(range(33)),  # patch 0 first, not last
        list(range(1, 33)),  # patch 0 missing
        [1, *range(1, 32), 0],  # a duplicate and a missing patch
        [*range(1, 33), 33, 0],  # an id that does not exist
        [*range(1, 33), 0, 0],  # patch 0 twice
        [],
    ],
)
def test_explicit_circle_is_validated(circle: list[int]) -> None:
    """A circle must hold the 33 ids once each and end with patch 0."""
    with pytest.raises(InvalidPositionError, match="must hold each of the 33 patch ids once and end with patch 0"):
        Position.initial(circle=circle, first_player=0)


@pytest.mark.parametrize("first", [2, -1])
def test_first_player_is_validated(first: int) -> None:
    """Only players 0 and 1 exist."""
    with pytest.raises(InvalidPositionError, match="first player must be 0 or 1"):
        Position.initial(circle=PLAIN_CIRCLE, first_player=first)


# ----- the two printings of the time track ------------------------------------


def test_revised_track_is_the_default() -> None:
    """Without a variant the specials lie on 26, 32, 38, 44 and 50."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=0)
    assert start.variant == "revised"
    assert special_spaces(start) == REVISED_SPECIALS
    assert " 26,32,38,44,50 " in start.text()
    assert Game.new(circle=PLAIN_CIRCLE, first_player=0).start.variant == "revised"


@pytest.mark.parametrize("name", ["original", "original_printing"])
def test_original_printing(name: str) -> None:
    """The first printing has specials on 20, 26, 32, 44, 50; its data-file name is an alias."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=0, variant=name)
    assert start.variant == "original"
    assert special_spaces(start) == ORIGINAL_SPECIALS
    assert Position.from_text(start.text().replace("original", name, 1)) == start


def test_both_printings_share_the_income_spaces() -> None:
    """Only the special spaces differ between the printings."""
    income = (5, 11, 17, 23, 29, 35, 41, 47, 53)
    assert TIME_TRACKS["revised"].income_spaces == income
    assert TIME_TRACKS["original"].income_spaces == income


def test_unknown_variant_is_refused() -> None:
    """A misspelt printing is an error naming the known ones, not a silent default."""
    with pytest.raises(InvalidPositionError, match="unknown variant 'deluxe'.*revised"):
        Position.initial(circle=PLAIN_CIRCLE, first_player=0, variant="deluxe")


def test_specials_must_belong_to_the_variant() -> None:
    """A special on 38 exists only on the revised track, one on 20 only on the original."""
    assert special_spaces(make(specials=[38])) == (38,)
    with pytest.raises(InvalidPositionError, match="original track"):
        make(specials=[38], variant="original")
    with pytest.raises(InvalidPositionError, match="revised track"):
        make(specials=[20])


@pytest.mark.parametrize(("variant", "pending"), [("original", 1), ("revised", 0)])
def test_special_on_20_only_in_the_original_printing(variant: str, pending: int) -> None:
    """Advancing from 18 onto 20 takes a special patch on the first printing only."""
    after = make(p0=(18, 5, 0), p1=(19, 5, 0), variant=variant).play("A")
    assert after.times == (20, 19)
    assert after.pending == pending
    assert 20 not in special_spaces(after)


# ----- whose turn ---------------------------------------------------------------


@pytest.mark.parametrize("on_top", [0, 1])
def test_furthest_behind_acts_whoever_is_on_top(on_top: int) -> None:
    """The token further back acts, whoever moved last."""
    assert make(p0=(3, 5, 0), p1=(10, 5, 0), on_top=on_top).to_move == 0
    assert make(p0=(11, 5, 0), p1=(10, 5, 0), on_top=on_top).to_move == 1


@pytest.mark.parametrize("on_top", [0, 1])
def test_token_on_top_acts_on_a_shared_space(on_top: int) -> None:
    """On a shared space the token that arrived last acts."""
    assert make(p0=(7, 5, 0), p1=(7, 5, 0), on_top=on_top).to_move == on_top


def test_landing_on_the_opponents_space_puts_you_on_top() -> None:
    """Player 0 buys its way from 4 onto player 1's space 7: on top, so player 0 acts again."""
    before = make(p0=(4, 5, 0), p1=(7, 5, 0), on_top=1)
    after = before.play("1R0@a1")  # patch 1: cost 1, time 3
    assert after.times == (7, 7)
    assert after.on_top == 0
    assert after.to_move == 0


def test_one_player_moves_several_times_in_a_row() -> None:
    """Turns do not alternate: player 1 stays behind for three moves."""
    rest = [p for p in range(1, 33) if p not in (22, 3, 23, 2)]
    game = Game.new(circle=[22, 3, 23, 2, *rest, 0], first_player=0)
    game.play("22R0@a1")  # cost 1, time 5, income 1: player 0 to 5, income space 5 pays 1
    assert game.position.times == (5, 0) and game.position.buttons == (5, 5)
    game.play("3R0@a1")  # cost 3, time 1
    assert game.position.to_move == 1
    game.play("23R0@e1")  # cost 2, time 1
    assert game.position.to_move == 1
    game.play("A")  # from 2 to 6: 4 buttons, crossing 5 with no income
    assert game.movers == [0, 1, 1, 1]
    assert game.position.times == (5, 6)
    assert game.position.buttons == (5, 4)
    assert game.position.to_move == 0


def test_opening_advances_alternate_only_because_of_the_positions() -> None:
    """From the start, advancing jumps just ahead: the other player is then behind."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=0)
    first = start.play("A")
    assert (first.times, first.buttons, first.to_move) == ((1, 0), (6, 5), 1)
    second = first.play("A")
    assert (second.times, second.buttons, second.to_move) == ((1, 2), (6, 7), 0)


def test_turn_order_invariant_in_random_games() -> None:
    """In seeded random games the mover is always the one the rules name, and repeats do happen."""
    rng = random.Random(2024)
    repeats = 0
    for _ in range(20):
        position = Position.initial(rng.randrange(1 << 30), variant=rng.choice(["revised", "original"]))
        previous_mover = None
        while not position.is_over:
            t0, t1 = position.times
            if position.pending:
                expected = position.on_top
            elif t0 != t1:
                expected = 0 if t0 < t1 else 1
            else:
                expected = position.on_top
            assert position.to_move == expected, position.text()
            moves = position.legal_moves()
            buys = [m for m in moves if m.kind == "buy"]
            move = rng.choice(buys) if buys and rng.random() < 0.6 else rng.choice(moves)
            if move.kind != "special" and not position.pending and expected == previous_mover:
                repeats += 1
            previous_mover = expected
            after = position.play(move)
            # Tokens only move forward, buttons never go negative.
            assert after.times[expected] >= position.times[expected]
            assert after.times[1 - expected] == position.times[1 - expected]
            assert min(after.buttons) >= 0
            position = after
        assert position.times == (53, 53) and position.to_move is None
    assert repeats > 50


# ----- A. advance and receive buttons -------------------------------------------


def test_advance_goes_just_past_the_opponent_and_pays_per_space() -> None:
    """From 3 with the opponent on 9: to 10, paid 7 buttons (income space 5 pays nothing at income 0)."""
    after = make(p0=(3, 5, 0), p1=(9, 5, 0), on_top=1).play("A")
    assert after.times == (10, 9)
    assert after.buttons == (12, 5)
    assert after.on_top == 0 and after.to_move == 1


def test_advance_from_a_shared_space() -> None:
    """On top of a shared space 12, advancing moves one space for one button."""
    after = make(p0=(12, 0, 0), p1=(12, 5, 0), on_top=0).play("A")
    assert after.times == (13, 12)
    assert after.buttons == (1, 5)


def test_advance_is_clamped_at_53_and_pays_only_spaces_moved() -> None:
    """With the opponent on 53, advancing from 50 moves 3 spaces for 3 buttons, plus the last income."""
    after = make(p0=(50, 5, 4), p1=(53, 5, 0), on_top=1).play("A")
    assert after.times == (53, 53)
    assert after.buttons == (5 + 3 + 4, 5)
    assert after.is_over


def test_advance_is_always_legal() -> None:
    """Even with no buttons and a full quilt, advancing is a legal move (the only one here)."""
    position = make(p0=(10, 0, 0), p1=(20, 5, 0), q0=ALL_CELLS, bonus="0")
    assert position.legal_moves() == [Move.advance()]
    assert position.why_illegal(Move.advance()) is None


# ----- button income ------------------------------------------------------------


def test_one_move_crossing_two_income_spaces_pays_twice() -> None:
    """Advancing from 4 to 12 crosses 5 and 11: 8 buttons for the spaces plus income 3 twice."""
    after = make(p0=(4, 0, 3), p1=(11, 5, 0), on_top=1).play("A")
    assert after.times == (12, 11)
    assert after.buttons == (8 + 2 * 3, 5)


def test_income_counts_the_patch_just_bought() -> None:
    """Buying patch 5 (cost 3, time 2, income 1) from 3 reaches income space 5 and is paid for it."""
    after = make(p0=(3, 5, 0), p1=(9, 5, 0), circle=[5, 1, 2]).play("5R0@a1")
    assert after.times == (5, 9)
    assert after.income == (1, 0)
    assert after.buttons == (5 - 3 + 1, 5)


def test_leaving_an_income_space_pays_nothing() -> None:
    """Only spaces moved onto or past pay: starting on 5 and moving to 7 earns just 2 buttons."""
    after = make(p0=(5, 0, 2), p1=(6, 5, 0), on_top=1).play("A")
    assert after.buttons == (2, 5)


def test_income_once_per_income_space_with_income_of_both_kinds() -> None:
    """Buying patch 8 (cost 4, time 6, income 2) with income 1 from 10: space 11 pays 1 + 2 once."""
    after = make(p0=(10, 4, 1), p1=(20, 5, 0), circle=[8, 1, 2]).play("8R0@a1")
    assert after.times == (16, 20)
    assert after.income == (3, 0)
    assert after.buttons == (4 - 4 + 3, 5)


def test_last_income_on_space_53() -> None:
    """Space 53 is an income space: advancing from 48 to 53 pays 5 buttons and income 7 (47 is behind)."""
    after = make(p0=(48, 0, 7), p1=(53, 5, 0), on_top=1).play("A")
    assert after.times == (53, 53)
    assert after.buttons == (5 + 7, 5)


def test_purchase_clamped_at_53_pays_the_last_income() -> None:
    """Patch 8 (time 6) from 51 stops on 53 and pays income 2, the new patch's own."""
    after = make(p0=(51, 10, 0), p1=(53, 5, 0), on_top=1, circle=[8, 1, 2]).play("8R0@a1")
    assert after.times == (53, 53)
    assert after.buttons == (10 - 4 + 2, 5)
    assert after.is_over


# ----- B. take and place a patch: paying ------------------------------------------


def test_income_of_the_same_move_cannot_pay() -> None:
    """Patch 10 costs 7; holding 5 with income 3 crossing space 5 would pay 6, but that is not allowed."""
    start = make(p0=(4, 5, 3), p1=(20, 5, 0), circle=[10, 1, 2])
    before = start.text()
    move = Move.from_text("10R0@a1")
    assert start.why_illegal(move) == "patch 10 costs 7 buttons, player 0 has 5"
    with pytest.raises(IllegalMoveError, match="patch 10 costs 7 buttons, player 0 has 5"):
        start.play(move)
    assert start.text() == before
    assert buys_of(start, 10) == []
    game = Game(start)
    with pytest.raises(IllegalMoveError):
        game.play("10R0@a1")
    assert game.moves == [] and game.position == start


def test_exact_cost_is_affordable() -> None:
    """Holding exactly 7 buttons buys patch 10; income 3 + 3 from space 5 arrives afterwards."""
    after = make(p0=(4, 7, 0), p1=(20, 5, 0), circle=[10, 1, 2]).play("10R0@a1")
    assert after.times == (10, 20)
    assert after.buttons == (0 + 3, 5)


def test_only_affordable_patches_are_offered_as_moves() -> None:
    """With 2 buttons, patches 1 (cost 1) and 2 (cost 2) can be bought, patch 3 (cost 3) cannot."""
    position = make(p0=(0, 2, 0))
    assert bought_patches(position) == {1, 2}


# ----- B. only the next three patches, and the circle -------------------------------


def test_only_the_next_three_patches_are_offered() -> None:
    """With buttons to spare, exactly patches 1, 2 and 3 can be bought; patch 4 is not offered."""
    position = make(p0=(0, 99, 0))
    assert position.offered == (1, 2, 3)
    assert bought_patches(position) == {1, 2, 3}
    assert position.why_illegal(Move.from_text("4R0@a1")) == "patch 4 is not among the next three patches (on offer: 1, 2, 3)"
    with pytest.raises(IllegalMoveError, match="not among the next three"):
        position.play("4R0@a1")


@pytest.mark.parametrize(("circle", "offered"), [([7, 4], {7, 4}), ([12], {12}), ([], set())])
def test_fewer_patches_offered_when_fewer_remain(circle: list[int], offered: set[int]) -> None:
    """When fewer than three patches are left, all of them are offered."""
    position = make(p0=(0, 99, 0), circle=circle)
    assert bought_patches(position) == offered
    if not circle:
        assert position.legal_moves() == [Move.advance()]


def test_circle_rotates_to_the_bought_patch() -> None:
    """Buying the third offered patch moves the neutral token to its place: the two skipped go to the back."""
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=0)
    after = start.play("3R0@a1")
    assert after.circle == (*range(4, 33), 0, 1, 2)
    assert after.offered == (4, 5, 6)
    # Player 1 (behind on 0) buys the second offered patch, 5: 4 goes to the back.
    later = after.play("5R0@a1")
    assert later.circle == (*range(6, 33), 0, 1, 2, 4)
    assert len(later.circle) == 31


def test_circle_wraps_around() -> None:
    """Buying patch 0 from (31, 32, 0, 1) leaves 1 next, then 31 and 32."""
    after = make(p0=(0, 9, 0), circle=[31, 32, 0, 1]).play("0R0@a1")
    assert after.circle == (1, 31, 32)
    assert after.offered == (1, 31, 32)


def test_a_bought_patch_is_gone() -> None:
    """A patch no longer in the circle cannot be bought again."""
    after = Position.initial(circle=PLAIN_CIRCLE, first_player=0).play("1R0@a1")
    assert after.why_illegal(Move.from_text("1R0@e5")) == "patch 1 has already been bought"


# ----- B. placing a patch -----------------------------------------------------------


def test_symmetric_orientations_are_one_move() -> None:
    """On an empty quilt: 2x2 patch 9 has 64 placements, 1x2 patch 0 has 144, L-shaped patch 7 has 448."""
    position = make(p0=(0, 10, 0), circle=[9, 0, 7])
    assert len(buys_of(position, 9)) == 8 * 8
    assert len(buys_of(position, 0)) == 2 * 9 * 8
    assert len(buys_of(position, 7)) == 8 * 7 * 8
    assert len(position.legal_moves()) == 1 + 64 + 144 + 448
    # Every orientation name of a symmetric patch on the same square is the same move.
    assert len({Move.from_text(f"9{t}@c3") for t in ("R0", "R1", "R2", "R3", "F0", "F1", "F2", "F3")}) == 1
    assert Move.from_text("0R2@c3") == Move.from_text("0R0@c3") != Move.from_text("0R1@c3")
    assert Move.from_text("0R0@c3") == Move.buy(0, [sq("d3"), sq("c3")])


def test_patch_counts_on_the_empty_quilt_match_its_shapes() -> None:
    """For every patch, placements on an empty quilt = sum over distinct orientations of the anchors that fit."""
    for patch in PATCHES:
        rest = [p for p in range(33) if p != patch.id][:2]
        position = make(p0=(0, 99, 0), circle=[patch.id, *rest])
        expected = sum((10 - o.height) * (10 - o.width) for o in patch.orientations)
        assert len(buys_of(position, patch.id)) == expected, patch.id
    # The catalogue's 144 distinct orientations.
    assert sum(len(p.orientations) for p in PATCHES) == 144


def test_overlapping_placement_is_refused() -> None:
    """With e5 covered, no purchase may cover it: 4 of 2x2 patch 9's and 4 of patch 0's placements go."""
    position = make(p0=(0, 10, 0), q0=cells("e5"), circle=[9, 0, 7])
    assert len(buys_of(position, 9)) == 64 - 4
    assert len(buys_of(position, 0)) == 144 - 4
    assert position.why_illegal(Move.from_text("9R0@d4")) == "patch 9 would cover e5, already covered on player 0's quilt"
    with pytest.raises(IllegalMoveError, match="already covered"):
        position.play("9R0@d4")


def test_patches_need_not_touch() -> None:
    """A patch may go anywhere on the quilt, far from the patches already there."""
    position = make(p0=(0, 10, 0), q0=cells("a1", "b1"), circle=[9, 0, 7])
    after = position.play("9R0@h8")
    assert covered(after, 0) == cells("a1", "b1", "h8", "i8", "h9", "i9")


def test_a_patch_that_cannot_be_placed_cannot_be_bought() -> None:
    """With only a1 and c1 empty, no patch of two or more squares fits, whatever the buttons."""
    position = make(p0=(0, 50, 0), q0=set(ALL_CELLS) - cells("a1", "c1"), bonus="0", circle=[0, 1, 2])
    assert position.legal_moves() == [Move.advance()]
    assert position.why_illegal(Move.from_text("0R0@a1")) == "patch 0 would cover b1, already covered on player 0's quilt"


def test_a_patch_fitting_exactly_one_gap() -> None:
    """With only a1 and b1 empty, patch 0 has exactly one placement."""
    position = make(p0=(0, 50, 0), q0=set(ALL_CELLS) - cells("a1", "b1"), bonus="0", circle=[0, 1, 2])
    assert position.legal_moves() == [Move.advance(), Move.from_text("0R0@a1")]


def test_a_placement_off_the_quilt_is_not_a_move() -> None:
    """A 1x2 patch laid across from i1 would leave the 9x9 grid."""
    with pytest.raises(InvalidMoveError, match="leave the quilt"):
        Move.from_text("0R0@i1")


# ----- special patches --------------------------------------------------------------


def test_special_goes_to_the_first_player_passing_it_even_when_ahead() -> None:
    """Player 0 advances from 24 onto 26, ahead of player 1, and must place the special before anything else."""
    start = make(p0=(24, 5, 0), p1=(25, 5, 0), on_top=1)
    assert special_spaces(start) == REVISED_SPECIALS
    earned = start.play("A")
    assert earned.times == (26, 25)
    assert earned.pending == 1
    assert earned.to_move == 0  # although player 1 is behind
    assert special_spaces(earned) == (32, 38, 44, 50)
    assert len(earned.legal_moves()) == 81
    assert all(m.kind == "special" for m in earned.legal_moves())
    assert earned.why_illegal(Move.advance()) == "player 0 must first place the special patch just earned"
    assert earned.why_illegal(Move.from_text("1R0@a1")) == "player 0 must first place the special patch just earned"
    placed = earned.play("S@e5")
    assert covered(placed, 0) == cells("e5")
    assert placed.pending == 0
    assert placed.to_move == 1
    # Player 1 passes 26 afterwards and gets nothing: the special is gone for both.
    later = placed.play("A")
    assert later.times == (26, 27) and later.pending == 0 and later.quilts[1] == 0


def test_special_taken_by_a_purchase() -> None:
    """Buying patch 2 (time 2) from 24 lands on 26 and earns the special as well."""
    after = make(p0=(24, 5, 0), p1=(25, 5, 0), on_top=1, circle=[2, 1, 3]).play("2R0@a1")
    assert after.times == (26, 25)
    assert after.pending == 1 and after.to_move == 0
    assert {m.kind for m in after.legal_moves()} == {"special"}
    assert len(after.legal_moves()) == 81 - 3  # patch 2 covers three squares


def test_special_move_without_a_special_is_illegal() -> None:
    """S@e5 is only a move when a special patch is pending."""
    position = make(p0=(10, 5, 0), p1=(12, 5, 0))
    assert position.why_illegal(Move.from_text("S@e5")) == "player 0 has no special patch to place"
    with pytest.raises(IllegalMoveError):
        position.play("S@e5")


def with_specials_behind_the_opponent(position: Position, spaces: Iterable[int]) -> Position:
    """Put special patches back on spaces the opponent has already passed.

    On the printed tracks no single move can cross two specials: they lie 6
    spaces apart, a patch takes at most 6 time, and advancing only passes
    spaces the opponent has passed already (so their specials are gone).
    :meth:`Position.from_text` rightly refuses such positions, so the general
    rule "each special crossed is resolved" is checked on a built value.
    """
    return position._replace(specials=position.specials | sum(1 << s for s in spaces))


def test_crossing_two_specials_gives_two_placements() -> None:
    """Advancing from 25 to 34 over specials 26 and 32 (and income space 29) gives two placements."""
    start = with_specials_behind_the_opponent(make(p0=(25, 0, 1), p1=(33, 5, 0), on_top=1), [26, 32])
    assert special_spaces(start) == REVISED_SPECIALS
    earned = start.play("A")
    assert earned.times == (34, 33)
    assert earned.buttons == (9 + 1, 5)
    assert earned.pending == 2
    assert special_spaces(earned) == (38, 44, 50)
    once = earned.play("S@a1")
    assert once.pending == 1 and once.to_move == 0
    with pytest.raises(IllegalMoveError, match="a1 of player 0's quilt is already covered"):
        once.play("S@a1")
    twice = once.play("S@i9")
    assert twice.pending == 0
    assert covered(twice, 0) == cells("a1", "i9")
    assert twice.to_move == 1


def test_special_discarded_when_the_quilt_is_full() -> None:
    """A full quilt cannot take the special on 26: it is discarded, and gone for the other player too."""
    after = make(p0=(24, 5, 0), p1=(25, 5, 0), q0=ALL_CELLS, bonus="0", on_top=1).play("A")
    assert after.pending == 0
    assert special_spaces(after) == (32, 38, 44, 50)
    assert after.to_move == 1
    assert after.play("A").quilts[1] == 0


def test_specials_beyond_the_empty_squares_are_discarded() -> None:
    """Crossing two specials with one empty square left: one placement, the other special is lost."""
    start = make(p0=(25, 5, 0), p1=(33, 5, 0), q0=set(ALL_CELLS) - cells("i9"), bonus="0", on_top=1)
    earned = with_specials_behind_the_opponent(start, [26, 32]).play("A")
    assert earned.pending == 1
    assert earned.legal_moves() == [Move.from_text("S@i9")]
    placed = earned.play("S@i9")
    assert placed.pending == 0
    assert placed.empty_squares(0) == 0
    assert special_spaces(placed) == (38, 44, 50)
    assert placed.to_move == 1


def test_purchase_filling_the_quilt_discards_the_special_it_crosses() -> None:
    """The bought patch is placed first: filling the last two squares leaves no room for the special on 26."""
    before = make(p0=(25, 5, 0), p1=(25, 5, 0), q0=set(ALL_CELLS) - cells("a1", "b1"), bonus="0", circle=[0, 1, 2])
    after = before.play("0R0@a1")
    assert after.times == (26, 25)
    assert after.empty_squares(0) == 0
    assert after.pending == 0
    assert special_spaces(after) == (32, 38, 44, 50)


# ----- the 7x7 bonus ------------------------------------------------------------------


def test_bonus_for_completing_a_7x7_area_with_a_patch() -> None:
    """Patch 0 on f7-g7 completes the top-left 7x7 area: bonus to player 0, +7 points."""
    before = make(p0=(0, 10, 0), q0=area(0, 0) - cells("f7", "g7"), circle=[0, 1, 2])
    assert before.bonus == -1
    assert before.score(0) == 10 - 2 * (81 - 47)
    after = before.play("0R0@f7")
    assert after.bonus == 0
    assert after.score(0) == 8 + 7 - 2 * (81 - 49)


def test_bonus_for_completing_a_7x7_area_with_a_special_patch() -> None:
    """A special patch on i9 completes the bottom-right 7x7 area; anywhere else it does not."""
    before = make(p0=(26, 5, 0), p1=(25, 5, 0), q0=area(2, 2) - cells("i9"), specials=[32, 38, 44, 50], pending=1)
    assert before.to_move == 0
    assert before.play("S@i9").bonus == 0
    assert before.play("S@a1").bonus == -1


def test_bonus_never_passes_to_the_other_player() -> None:
    """Player 1 completing a 7x7 area after player 0 holds the bonus earns nothing."""
    before = make(
        p0=(20, 5, 0), p1=(10, 10, 0), q0=area(0, 0), q1=area(1, 1) - cells("b2", "c2"), bonus="0", circle=[0, 1, 2]
    )
    after = before.play("0R0@b2")
    assert len(covered(after, 1)) == 49
    assert after.bonus == 0
    assert after.score(1) == 8 - 2 * 32
    assert after.score(0) == 5 + 7 - 2 * 32


def test_bonus_is_taken_once_by_the_first() -> None:
    """The holder completing a second 7x7 area keeps a single bonus."""
    before = make(p0=(0, 10, 0), q0=area(0, 0) | (area(2, 2) - cells("i9", "i8")), bonus="0", circle=[0, 1, 2])
    after = before.play("0R1@i8")
    assert after.bonus == 0
    assert after.score(0) == 8 + 7 - 2 * after.empty_squares(0)


def test_many_covered_squares_without_a_7x7_area_earn_no_bonus() -> None:
    """62 covered squares with a hole at g4 contain no full 7x7 area."""
    quilt = {(r, c) for r in range(7) for c in range(9)} - cells("g4")
    before = make(p0=(0, 10, 0), q0=quilt, circle=[0, 1, 2])
    after = before.play("0R1@a8")
    assert len(covered(after, 0)) == 64
    assert after.bonus == -1


# ----- end and score --------------------------------------------------------------------


def test_scores_and_winner_of_a_finished_game() -> None:
    """Score = buttons + 7 with the bonus - 2 per empty square; it can be negative."""
    final = make(
        p0=(53, 20, 5), p1=(53, 3, 9), q0={(0, c) for c in range(9)} | cells("a2"), q1=ALL_CELLS, bonus="1", on_top=0
    )
    assert final.is_over
    assert final.scores == (20 - 2 * 71, 3 + 7)
    assert final.winner == 1
    assert not final.decided_by_tiebreak


@pytest.mark.parametrize("first", [0, 1])
def test_tie_goes_to_who_reached_53_first(first: int) -> None:
    """Equal scores: the player who reached 53 first wins (not the last mover)."""
    last = 1 - first
    times = [0, 0]
    times[first], times[last] = 53, 52
    buttons = [0, 0]
    buttons[first], buttons[last] = 10, 9
    before = make(p0=(times[0], buttons[0], 0), p1=(times[1], buttons[1], 0), on_top=first)
    assert before.to_move == last
    after = before.play("A")
    assert after.is_over
    assert after.scores == (10 - 162, 10 - 162)
    assert after.winner == first
    assert after.decided_by_tiebreak


def test_higher_score_wins_even_if_reaching_53_last() -> None:
    """The tie-break only applies to equal scores."""
    after = make(p0=(53, 10, 0), p1=(52, 10, 0), on_top=0).play("A")
    assert after.scores == (10 - 162, 11 - 162)
    assert after.winner == 1
    assert not after.decided_by_tiebreak


def test_game_ends_only_when_both_tokens_are_on_53() -> None:
    """One token on 53 is not the end; once both are, no move is legal."""
    before = make(p0=(53, 10, 0), p1=(52, 10, 0), on_top=0)
    assert not before.is_over and before.winner is None and before.to_move == 1
    after = before.play("A")
    assert after.is_over
    assert after.to_move is None
    assert after.legal_moves() == []
    assert after.perft(3) == 1
    assert after.why_illegal(Move.advance()) == "the game is over"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        after.play("A")


def test_reaching_53_with_a_special_to_place() -> None:
    """Patch 8 (time 6) from 48 passes the special on 50 and stops on 53 with income 2: the special comes first."""
    reached = make(p0=(48, 4, 0), p1=(49, 5, 0), on_top=1, circle=[8, 1, 2]).play("8R0@a1")
    assert reached.times == (53, 49)
    assert reached.buttons == (0 + 2, 5)
    assert reached.pending == 1
    assert reached.to_move == 0
    assert special_spaces(reached) == ()


def test_game_is_not_over_while_a_special_is_pending() -> None:
    """Both tokens on 53 is not the end while a special patch waits to be placed."""
    reached = make(p0=(53, 10, 0), p1=(53, 12, 0), on_top=1, pending=1)
    assert not reached.is_over
    assert reached.to_move == 1
    assert reached.winner is None
    assert len(reached.legal_moves()) == 81
    final = reached.play("S@a1")
    assert final.is_over
    assert final.scores == (10 - 162, 12 - 160)
    assert final.winner == 1


# ----- the move forms agree with each other -----------------------------------------------


def test_why_illegal_agrees_with_legal_moves() -> None:
    """For every action index, why_illegal is None exactly for the moves legal_moves lists."""
    rng = random.Random(99)
    every_move = [Move.from_action(action) for action in range(ACTION_COUNT)]
    checked = 0
    for _ in range(3):
        position = Position.initial(rng.randrange(1 << 30))
        while not position.is_over:
            moves = position.legal_moves()
            if rng.random() < 0.15 or position.pending:
                legal = set(moves)
                for move in every_move:
                    assert (position.why_illegal(move) is None) == (move in legal), (position.text(), move.text())
                flagged = [m for m, ok in zip(every_move, position.legal_action_mask()) if ok]
                assert flagged == sorted(moves, key=lambda m: m.action)
                checked += 1
            buys = [m for m in moves if m.kind == "buy"]
            position = position.play_unchecked(rng.choice(buys) if buys and rng.random() < 0.6 else rng.choice(moves))
    assert checked >= 15


# ----- Game: history and undo ----------------------------------------------------------------


def test_game_history_and_undo() -> None:
    """Undo takes back exactly the last move; the history of positions and movers follows."""
    game = Game.new(circle=PLAIN_CIRCLE, first_player=0)
    start = game.position
    game.play("A")
    game.play("1R0@a1")
    game.play("A")
    assert [m.text() for m in game.moves] == ["A", "1R0@a1", "A"]
    assert game.movers == [0, 1, 0]
    assert len(game.positions) == 4 and game.positions[0] == start
    after_two = game.positions[2]
    assert game.undo() == Move.advance()
    assert game.position == after_two
    assert game.position.times == (1, 3)
    assert game.undo() == Move.from_text("1R0@a1")
    assert game.position.times == (1, 0)
    assert game.position.circle == PLAIN_CIRCLE
    assert game.undo() == Move.advance()
    assert game.position == start and game.moves == [] and list(game.positions) == [start]
    with pytest.raises(QuiltmakerError, match="no move to undo"):
        game.undo()


def test_undo_turn_takes_back_a_purchase_with_its_special_patch_and_the_replies_after() -> None:
    start = Position.from_text(EARNS_A_SPECIAL)
    game = Game(start)
    assert start.to_move == 1 and game.turn_start(1) is None
    game.play(EARNING_PURCHASE)
    assert game.position.pending == 1 and game.position.turn_cause.kind == "special"
    game.play(game.legal_moves()[0])
    while game.position.to_move == 0:  # the opponent's replies, however many
        game.play("A")
    replies = len(game.moves) - 2
    assert replies >= 1 and game.turn_start(1) == len(game.moves)
    taken = game.undo_turn(1)
    assert len(taken) == replies + 2 and taken[-1] == Move.from_text(EARNING_PURCHASE)
    assert game.position == start and game.moves == []
    with pytest.raises(QuiltmakerError, match="player 1 has no move to undo"):
        game.undo_turn(1)


def test_undo_turn_stops_at_the_players_last_turn_not_their_first() -> None:
    game = Game.new(circle=PLAIN_CIRCLE, first_player=0)
    for move in ("A", "A", "A", "1R0@a1"):  # 0 advances, 1 passes, 0 passes again, 1 buys
        game.play(move)
    assert game.movers == [0, 1, 0, 1]
    assert game.turn_start(0) == 2 and game.turn_start(1) == 1
    game.undo_turn(0)
    assert [m.text() for m in game.moves] == ["A", "A"] and game.position.to_move == 0


def test_turn_causes_name_the_rule_with_its_numbers() -> None:
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=1)
    assert start.turn_cause == ("start", 1, 0, 0, 0)
    behind = start.play("A")  # 1 goes to space 1; 0 is behind
    assert behind.turn_cause == ("behind", 0, 0, 1, 0)
    on_top = behind.play("3R0@a1")  # patch 3 takes one space: 0 lands on 1, on top of 1
    assert on_top.times == (1, 1) and on_top.turn_cause == ("on_top", 0, 1, 1, 0)
    special = Position.from_text(EARNS_A_SPECIAL).play(EARNING_PURCHASE)
    assert special.turn_cause == ("special", 1, special.times[1], special.times[0], 1)
    finished = special.play(special.legal_moves()[0])
    while not finished.is_over:
        finished = finished.play(finished.legal_moves()[0])
    assert finished.turn_cause.kind == "over" and finished.turn_cause.player is None


def test_move_effects_account_for_every_button_space_and_patch() -> None:
    """Position.effect, which every interface words, adds up to the position it leads to, move after move."""
    kinds = set()
    for position, move in moves_of_sample_games():
        effect = position.effect(move)
        player = effect.player
        assert effect.after == position.play(move) and player == position.to_move
        assert effect.after.buttons[player] == position.buttons[player] - effect.cost + effect.advance_buttons + effect.income
        assert effect.after.times[player] == position.times[player] + effect.spaces
        assert effect.specials_earned == (effect.after.pending if not position.pending else 0)
        assert effect.bonus_earned == (effect.after.bonus == player != position.bonus)
        assert effect.income >= 0 and (effect.advance_buttons == effect.spaces) == (move.kind == "advance" or effect.spaces == 0)
        # Each income space crossed pays the quilt's income after the move; the specials taken leave the track.
        start, end = position.times[player], effect.after.times[player]
        assert effect.income_spaces == tuple(s for s in (5, 11, 17, 23, 29, 35, 41, 47, 53) if start < s <= end)
        assert effect.income == len(effect.income_spaces) * effect.after.income[player]
        gone = position.specials & ~effect.after.specials
        assert effect.specials_taken == tuple(s for s in range(54) if gone >> s & 1)
        assert len(effect.specials_taken) >= effect.specials_earned  # one taken with no empty square is discarded
        kinds |= {move.kind} | ({"income"} if effect.income else set()) | ({"special"} if effect.specials_earned else set())
        kinds |= {"bonus"} if effect.bonus_earned else set()
    assert kinds == {"advance", "buy", "special", "income", "bonus"}


def test_game_rejects_illegal_moves_without_changing() -> None:
    """A refused move leaves the game's moves and position as they were."""
    game = Game.new(circle=PLAIN_CIRCLE, first_player=0)
    game.play("A")
    snapshot = (list(game.moves), game.positions)
    with pytest.raises(IllegalMoveError):
        game.play("4R0@a1")  # not offered
    with pytest.raises(InvalidMoveError):
        game.play("not a move")
    assert (game.moves, game.positions) == snapshot


# ----- regressions: engine bugs found while writing these tests, now fixed ------


@pytest.mark.parametrize(
    "move",
    [
        Move("buy", 1, 0),  # patch 1 laid on no square at all
        Move("buy", 1, 0b111),  # a1, b1, c1 in a row: not a shape of the L-shaped patch 1
        Move("buy", 2, 0b1_0000_0000_0000_0011),  # three squares not even connected
    ],
    ids=["no-squares", "wrong-shape", "scattered"],
)
def test_regression_checked_play_accepts_a_purchase_of_the_wrong_shape(move: Move) -> None:
    """Position.play promises to check every rule, but trusts that a Move value is one of the move table's.

    ``Move`` is a public NamedTuple, so ``Move("buy", 1, mask)`` builds a
    purchase covering any squares. why_illegal checks offer, cost and overlap
    but never that the squares are a placement of the patch, so play() buys
    patch 1 covering nothing (or a shape it does not have) and the game goes
    on from an impossible position. Expected: refused with a QuiltmakerError.
    """
    start = Position.initial(circle=PLAIN_CIRCLE, first_player=0)
    assert start.why_illegal(move) is not None
    with pytest.raises(QuiltmakerError):
        start.play(move)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"circle": PLAIN_CIRCLE, "first_player": True},
        {"circle": PLAIN_CIRCLE, "first_player": 1.0},
        {"circle": [1.0, *range(2, 33), 0], "first_player": 0},
        {"circle": [True, *range(2, 33), 0], "first_player": 0},
    ],
    ids=["first-True", "first-1.0", "circle-1.0", "circle-True"],
)
def test_regression_initial_accepts_setups_whose_text_does_not_round_trip(kwargs: dict[str, object]) -> None:
    """Position.initial takes True / 1.0 as a player or patch id (they compare equal to 1).

    The position is built with ``on_top=True`` or a circle holding ``1.0``;
    its text() then says ``True`` / ``1.0`` and Position.from_text refuses its
    own output. (The record layer already rejects booleans itself, and
    Move.from_action rejects them.) Expected: InvalidPositionError at setup,
    or at least a position whose text rebuilds it.
    """
    try:
        start = Position.initial(**kwargs)  # type: ignore[arg-type]
    except InvalidPositionError:
        return
    assert Position.from_text(start.text()) == start
