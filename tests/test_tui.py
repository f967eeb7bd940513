"""The full-screen game, driven headless by Textual's pilot through key presses only.

The tests read the app's state to decide which keys to press (as a player
reads the screen), but every action goes through a key: choosing, moving,
turning and flipping the ghost, placing, advancing, undo, hints, saving and
loading. One test plays a whole game against ``beginner`` to the final scoring.
"""

from __future__ import annotations

import io
import json
import random
import re
import time
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Footer, Static

from quiltmaker import i18n
from quiltmaker.core import record
from quiltmaker.specs import player_from_spec
from quiltmaker.core.components import BOARD_SIZE, PATCHES, TRANSFORMS, transform_cells
from quiltmaker.core.game import Game
from quiltmaker.core.moves import ADVANCE, BUY, SPECIAL, Move
from quiltmaker.ai.players import Limit
from quiltmaker.core.position import Position
from quiltmaker.tui import QuiltApp
from quiltmaker.tui.app import MIN_SIZE
from quiltmaker.tui.model import Ghost, advance_preview, first_fit, forecast
from quiltmaker.tui.render import CARD_HEIGHT, CARD_WIDTH, card_body, render_player, render_quilt
from quiltmaker.tui.screens import GameOverScreen, HelpScreen, PathPrompt
from quiltmaker.tui.widgets import MessageLine, OfferPanel, QuiltPanel, TurnBar
from quiltmaker.words import illegal

from helpers import EARNS_A_SPECIAL

SIZE = (120, 40)
# Seed 1 gives player 0 the first move (as in test_cli.py).
HUMAN_FIRST_SEED = 1
# A circle that offers patch 7 first: an L with eight distinct orientations.
L_FIRST = [7, 21, 3, *range(4, 7), 1, 2, *range(8, 21), *range(22, 33), 0]


async def settle(pilot: Pilot[None], app: QuiltApp, timeout: float = 60.0) -> None:
    """Wait until the AI and any hint have finished thinking."""
    deadline = time.monotonic() + timeout
    await pilot.pause()
    while app.busy:
        assert time.monotonic() < deadline, "the app kept thinking"
        await pilot.pause(0.02)
    await pilot.pause()


async def steer(pilot: Pilot[None], app: QuiltApp, row: int, col: int) -> None:
    """Move the ghost's top-left to ``(row, col)`` with the arrow keys."""
    assert app.ghost is not None
    rows, cols = row - app.ghost.row, col - app.ghost.col
    keys = ["down" if rows > 0 else "up"] * abs(rows) + ["right" if cols > 0 else "left"] * abs(cols)
    await pilot.press(*keys)
    assert (app.ghost.row, app.ghost.col) == (row, col)


async def turn_to(pilot: Pilot[None], app: QuiltApp, move: Move) -> None:
    """Rotate and flip the ghost until it has the shape ``move`` lays."""
    top = min(r for r, _ in move.cells)
    left = min(c for _, c in move.cells)
    wanted = tuple(sorted((r - top, c - left) for r, c in move.cells))
    for key in TURN_KEYS:
        assert app.ghost is not None
        if tuple(sorted(app.ghost.shape)) == wanted:
            return
        await pilot.press(key)
    assert app.ghost is not None and tuple(sorted(app.ghost.shape)) == wanted


async def play_by_keys(pilot: Pilot[None], app: QuiltApp, move: Move) -> None:
    """Play ``move`` for the player at the keyboard through the keys a person would press."""
    position = app.game.position
    before = len(app.game.moves)
    if move.kind == ADVANCE:
        await pilot.press("a")
    else:
        if move.kind == BUY:
            assert move.patch is not None
            await pilot.press(str(position.offered.index(move.patch) + 1))
            await turn_to(pilot, app, move)
        assert app.ghost is not None
        top = min(r for r, _ in move.cells)
        left = min(c for _, c in move.cells)
        await steer(pilot, app, top, left)
        assert app.ghost.move == move
        await pilot.press("enter")
    assert app.game.moves[before] == move and app.game.positions[before] == position


def shown(widget: Static) -> str:
    """The text a widget shows, without colours."""
    console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


TURN_KEYS = ["r", "r", "r", "f", "r", "r", "r"]  # from any orientation, these reach all eight


def keys_needed(ghost: Ghost, move: Move) -> int:
    """How many key presses take ``ghost`` (as first shown) to ``move``: turns and flips, then arrows."""
    top = min(r for r, _ in move.cells)
    left = min(c for _, c in move.cells)
    wanted = tuple(sorted((r - top, c - left) for r, c in move.cells))
    turns = 0
    while tuple(sorted(ghost.shape)) != wanted:
        ghost = ghost.rotated() if TURN_KEYS[turns] == "r" else ghost.flipped()
        turns += 1
    return turns + abs(ghost.row - top) + abs(ghost.col - left)


def choose_human_move(position: Position, rng: random.Random) -> Move:
    """The test player: mostly buys, placed near where the ghost appears (fewer keys), sometimes advances."""
    player = position.to_move
    assert player is not None
    moves = position.legal_moves()
    if position.pending:
        return rng.choice(moves)
    buys = [m for m in moves if m.kind == BUY]
    if not buys or rng.random() < 0.15:
        return Move.advance()
    patch = rng.choice(sorted({m.patch for m in buys if m.patch is not None}))
    start = first_fit(position, player, patch)
    near = sorted((m for m in buys if m.patch == patch), key=lambda m: (keys_needed(start, m), m.action))
    return rng.choice(near[:6])


def square_empty(position: Position, player: int, row: int, col: int) -> bool:
    return not position.quilts[player] >> (row * BOARD_SIZE + col) & 1


# The ghost on its own -------------------------------------------------------------


def test_rotating_and_flipping_the_ghost_follow_the_orientation_names() -> None:
    for patch in PATCHES:
        printed = patch.orientations[0].cells
        for name in TRANSFORMS:
            ghost = Ghost(patch.id, name)
            turned, mirrored = ghost.rotated(), ghost.flipped()
            assert turned.shape == transform_cells(ghost.shape, "R1")
            mirror = tuple(sorted((r, max(c for _, c in ghost.shape) - c) for r, c in ghost.shape))
            assert mirrored.shape == mirror
            assert ghost.rotated().rotated().rotated().rotated() == ghost and ghost.flipped().flipped() == ghost
            assert transform_cells(printed, name) == ghost.shape


def test_the_ghost_stays_on_the_quilt() -> None:
    ghost = Ghost(17, "R1")  # 5x1 upright
    assert ghost.shifted(20, 20) == Ghost(17, "R1", 4, 8)
    assert Ghost(17, "R1", 4, 8).rotated() == Ghost(17, "R2", 4, 4)  # lying down, pushed back inside
    assert Ghost(None, "R0", 8, 8).shifted(1, 1) == Ghost(None, "R0", 8, 8)


def test_forecast_and_advance_preview() -> None:
    start = Position.initial(HUMAN_FIRST_SEED)
    # 5 buttons, a button for each of 53 spaces, no income, 81 empty squares at -2.
    assert forecast(start, 0) == 5 + 53 - 162
    assert advance_preview(start) == (1, 1)
    from quiltmaker.ai.players import GreedyPlayer, play_game

    final = play_game([GreedyPlayer(1), GreedyPlayer(2)], start).position
    # On space 53 nothing is left to earn: the forecast is the score.
    assert [forecast(final, p) for p in (0, 1)] == list(final.scores)
    assert advance_preview(final) is None


# Whole games ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_whole_game_against_beginner_by_key_presses(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    game = Game.new(5, players=["you", "beginner"])
    app = QuiltApp(game, opponent=player_from_spec("beginner", 5), human_seat=0, save_path=save)
    rng = random.Random(0)
    kinds: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for _ in range(300):
            position = app.game.position
            if position.is_over:
                break
            assert position.to_move == 0, "the AI has moved and it is the person's turn"
            move = choose_human_move(position, rng)
            kinds.add(move.kind)
            await play_by_keys(pilot, app, move)
            await settle(pilot, app)
        final = app.game.position
        assert final.is_over and isinstance(app.screen, GameOverScreen)
        assert {ADVANCE, BUY, SPECIAL} <= kinds, "the game must exercise every kind of move"
        assert 1 in app.game.movers, "beginner must have played"
        scoring = shown(app.screen.query_one(Static))
        assert "Final scores" in scoring and "empty squares" in scoring and "7x7 bonus" in scoring
        rows = [re.fullmatch(r"\W*score[\s│|]+(-?\d+)[\s│|]+(-?\d+)[\s│|]*", line) for line in scoring.splitlines()]
        assert [(int(m.group(1)), int(m.group(2))) for m in rows if m] == [final.scores], scoring
        await pilot.press("q")
    saved = record.load(save.read_text(encoding="utf-8"))
    assert saved.moves == app.game.moves and saved.players == ["you", "beginner"]
    assert json.loads(save.read_text(encoding="utf-8"))["result"]["scores"] == list(final.scores)


@pytest.mark.asyncio
async def test_the_end_screen_shows_the_scoring(tmp_path: Path) -> None:
    # A finished game loaded from its record opens on the final scoring.
    from quiltmaker.ai.players import GreedyPlayer, play_game

    finished = play_game([GreedyPlayer(1), GreedyPlayer(2)], Position.initial(3))
    finished.players = ["you", "greedy"]
    app = QuiltApp(finished, opponent=player_from_spec("beginner", 0), save_path=tmp_path / "over.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, GameOverScreen)
        winner = finished.position.winner
        assert winner is not None
        await pilot.press("escape")  # look at the board, then back to the scores with Enter
        assert not isinstance(app.screen, GameOverScreen) and "game is over" in app.message
        await pilot.press("1")
        assert "game is over" in app.message and app.game.moves == finished.moves
        await pilot.press("enter")
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("u")  # undo from the end screen: back to the person's last turn
        await settle(pilot, app)
        assert not app.game.position.is_over and app.game.position.to_move == 0


# Two people on one keyboard -----------------------------------------------------------


@pytest.mark.asyncio
async def test_two_players_illegal_placement_is_explained_and_changes_nothing(tmp_path: Path) -> None:
    save = tmp_path / "two.json"
    app = QuiltApp(Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"]), save_path=save)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        position = app.game.position
        first = position.to_move
        assert first is not None and app.ghost is None
        # The first player buys the cheapest patch where it first fits.
        cheapest = min(range(3), key=lambda i: PATCHES[position.offered[i]].cost)
        await pilot.press(str(cheapest + 1))
        assert app.ghost is not None and position.why_illegal(app.ghost.move) is None
        await pilot.press("enter")
        assert len(app.game.moves) == 1 and app.game.movers == [first]
        # The other player advances until the first player is behind again.
        while app.game.position.to_move != first:
            await pilot.press("a")
        position = app.game.position
        quilt = position.quilts[first]
        index = next(i for i, p in enumerate(position.offered) if PATCHES[p].cost <= position.buttons[first])
        await pilot.press(str(index + 1))
        assert app.ghost is not None
        clash = next(
            (r, c)
            for r in range(BOARD_SIZE - app.ghost.height + 1)
            for c in range(BOARD_SIZE - app.ghost.width + 1)
            if Move.place(position.offered[index], app.ghost.transform, r, c).mask & quilt
        )
        await steer(pilot, app, *clash)
        reason = illegal(position, app.ghost.move, app.shown_names)  # the rules' reason, the players named
        assert reason is not None and "already covered" in reason
        saved_before = save.read_text(encoding="utf-8")
        moves_before = list(app.game.moves)
        assert "does not fit here" in shown(app.query_one(TurnBar))
        assert "XX" in shown(app.query_one(f"#quilt{first}", QuiltPanel)) and "XX" not in shown(app.query_one(f"#quilt{1 - first}", QuiltPanel))
        await pilot.press("enter")
        assert app.message == f"Not placed: {reason}." and shown(app.query_one(MessageLine)).strip() == app.message
        assert app.game.position == position and app.game.moves == moves_before
        assert save.read_text(encoding="utf-8") == saved_before
        # A patch too dear is explained the same way.
        dear = [i for i, p in enumerate(position.offered) if PATCHES[p].cost > position.buttons[first]]
        if dear:
            await pilot.press(str(dear[0] + 1), "enter")
            assert "costs" in app.message and app.game.position == position
        # Esc puts the patch back; Enter then chooses the patch under the cursor.
        await pilot.press("escape")
        assert app.ghost is None and app.selected is None
        await pilot.press("right", "enter")
        assert app.selected == (app.cursor) and app.ghost is not None


@pytest.mark.asyncio
async def test_rotate_and_flip_change_the_ghost(tmp_path: Path) -> None:
    start = Position.initial(circle=L_FIRST, first_player=0)
    app = QuiltApp(Game(start, ["player 0", "player 1"]), save_path=tmp_path / "g.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("1")
        assert app.ghost == Ghost(7, "R0", 0, 0)
        seen = {app.ghost.shape}
        await pilot.press("r")
        offer = shown(app.query_one(OfferPanel))
        assert "1: patch 7" in offer and "│R1 " in offer  # the chosen patch's card names its orientation
        assert app.ghost.transform == "R1" and app.ghost.shape == transform_cells(PATCHES[7].orientations[0].cells, "R1")
        seen.add(app.ghost.shape)
        await pilot.press("f")
        assert app.ghost.transform == "F3"
        seen.add(app.ghost.shape)
        for key in ["r", "r", "r", "f", "r", "r"]:
            await pilot.press(key)
            seen.add(app.ghost.shape)
        assert len(seen) == 8, "R and F reach all eight orientations of the L"
        await steer(pilot, app, 8 - app.ghost.height + 1, 8 - app.ghost.width + 1)
        await pilot.press("r")  # turning at the corner keeps the ghost on the quilt
        assert app.ghost.row + app.ghost.height <= BOARD_SIZE and app.ghost.col + app.ghost.width <= BOARD_SIZE
        move = app.ghost.move
        await pilot.press("enter")
        assert app.game.moves == [move] and move.orientation is not None


# Undo, hints, files ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_undo_against_the_ai_goes_back_to_your_turn(tmp_path: Path) -> None:
    save = tmp_path / "undo.json"
    start = Position.initial(HUMAN_FIRST_SEED)
    app = QuiltApp(Game(start, ["you", "beginner"]), opponent=player_from_spec("beginner", 1), save_path=save)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("u")
        assert app.message == "Nothing to undo yet."
        await pilot.press("a")
        await settle(pilot, app)
        assert app.game.movers[0] == 0 and 1 in app.game.movers and app.game.position.to_move == 0
        await pilot.press("u")
        await settle(pilot, app)
        assert app.game.moves == [] and app.game.position == start and "your turn again" in app.message
        assert record.load(save.read_text(encoding="utf-8")).moves == []


@pytest.mark.asyncio
async def test_undo_after_a_purchase_and_its_special_patch_takes_back_both(tmp_path: Path) -> None:
    start = Position.from_text(EARNS_A_SPECIAL)  # seat 1 to move; any placement of patch 16 earns a special patch
    app = QuiltApp(Game(start, ["beginner", "you"]), opponent=player_from_spec("beginner", 1), human_seat=1, save_path=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")  # patch 16 where its ghost first fits
        assert app.game.position.pending and app.game.moves[0].patch == 16
        await pilot.press("enter")  # the special patch where its ghost first fits
        await settle(pilot, app)
        assert len(app.game.moves) > 2 and app.game.position.to_move == 1
        await pilot.press("u")
        await settle(pilot, app)
        assert app.game.moves == [] and app.game.position == start


@pytest.mark.asyncio
async def test_undo_for_two_players_takes_back_one_move(tmp_path: Path) -> None:
    app = QuiltApp(Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"]), save_path=tmp_path / "u.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "a", "a")
        assert len(app.game.moves) == 3
        third = app.game.positions[2]
        await pilot.press("u")
        assert len(app.game.moves) == 2 and app.game.position == third


@pytest.mark.asyncio
async def test_hint_shows_a_legal_move_that_enter_plays(tmp_path: Path) -> None:
    app = QuiltApp(
        Game.new(HUMAN_FIRST_SEED, players=["you", "beginner"]),
        opponent=player_from_spec("beginner", 1),
        save_path=tmp_path / "h.json",
        hint_limit=Limit(iterations=300),  # casual's limit: quick
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        position = app.game.position
        await pilot.press("h")
        await settle(pilot, app, timeout=120)  # the first search may load the compiled core
        assert app.message.startswith("Hint: ") and "win chance" in app.message, app.message
        hinted = Move.from_text(app.message.split()[1])
        assert position.why_illegal(hinted) is None
        if hinted.kind == ADVANCE:
            await pilot.press("a")
        else:
            assert app.ghost is not None and app.ghost.move == hinted
            await pilot.press("enter")
        assert app.game.moves[0] == hinted


@pytest.mark.asyncio
async def test_save_then_load_restores_the_same_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # short file names to type
    first = QuiltApp(Game.new(3, players=["beginner", "you"]), opponent=player_from_spec("beginner", 3), human_seat=1, save_path=Path("auto.json"))
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot, first)
        for key in ["a", "3", "enter", "a"]:
            await pilot.press(key)
            await settle(pilot, first)
        await pilot.press("s")
        assert isinstance(first.screen, PathPrompt)
        await pilot.press(*"copy.json", "enter")  # the suggested name is selected: typing replaces it
        assert first.save_path == Path("copy.json") and first.message.startswith("Saved to copy.json")
        await pilot.press("a")  # saved there from now on
        await settle(pilot, first)
        saved = list(first.game.moves)
        assert len(saved) >= 4 and first.game.position.to_move == 1
        assert record.load(Path("copy.json").read_text(encoding="utf-8")).moves == saved
        assert len(record.load(Path("auto.json").read_text(encoding="utf-8")).moves) < len(saved)
        await pilot.press("q")

    second = QuiltApp(Game.new(4, players=["you", "beginner"]), opponent=player_from_spec("beginner", 0), save_path=Path("other.json"))
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot, second)
        own = list(second.game.moves)
        await pilot.press("l", *"missing.json", "enter")
        assert "Could not load missing.json" in second.message and second.game.moves == own
        await pilot.press("l")
        assert isinstance(second.screen, PathPrompt)
        await pilot.press(*"copy.json", "enter")
        await settle(pilot, second)
        # The same game, and the person sits where the record says "you" sits.
        assert second.game.moves == saved and second.game.position == first.game.position
        assert second.humans == {1} and second.game.players == ["beginner", "you"]
        assert second.save_path == Path("copy.json") and second.message.startswith("Loaded copy.json")
        await pilot.press("s", "escape")  # cancelling a prompt changes nothing
        assert second.message == "Not saved." and second.game.moves == saved


@pytest.mark.asyncio
async def test_help_and_special_patch_placement(tmp_path: Path) -> None:
    # Both players advance until one earns a special patch: its ghost is a single square.
    game = Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"])
    while game.position.times[1 - (game.position.to_move or 0)] < 25:
        game.play("A")
    app = QuiltApp(game, save_path=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        while not app.game.position.pending:
            await pilot.press("a")
        position = app.game.position
        player = position.to_move
        assert player is not None and app.ghost is not None and app.ghost.patch is None and app.ghost.cells == ((0, 0),)
        await pilot.press("a")
        assert "must first place the special patch" in app.message and app.game.position == position
        await pilot.press("1")
        assert "special patch first" in app.message
        await pilot.press("escape", "r")
        assert app.ghost is not None and app.ghost.patch is None
        await steer(pilot, app, 4, 4)
        await pilot.press("enter")
        assert app.game.moves[-1] == Move.special((4, 4)) and not square_empty(app.game.position, player, 4, 4)


@pytest.mark.asyncio
async def test_a_terminal_too_small_for_the_board_is_warned_about() -> None:
    app = QuiltApp(Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"]), save_path=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.too_small
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert not app.too_small
        await pilot.press("a")  # the game goes on either way
        assert len(app.game.moves) == 1


@pytest.mark.asyncio
async def test_a_new_game_swaps_the_seats_and_keeps_the_old_record(tmp_path: Path) -> None:
    from quiltmaker.ai.players import GreedyPlayer, play_game

    finished = play_game([GreedyPlayer(1), GreedyPlayer(2)], Position.initial(3))
    finished.players = ["you", "beginner"]
    save = tmp_path / "game.json"
    (tmp_path / "game-2.json").write_text("someone else's file", encoding="utf-8")
    app = QuiltApp(finished, opponent=player_from_spec("beginner", 0), human_seat=0, save_path=save)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("n")
        await settle(pilot, app)
        assert not isinstance(app.screen, GameOverScreen)
        new = app.game
        assert new.players == ["beginner", "you"] and app.humans == {1}
        # The seat that moved first still does, so the person who started before now moves second.
        assert new.start.to_move == finished.start.to_move == 0 and new.movers[:1] == [0]
        assert app.save_path == tmp_path / "game-3.json"
        assert new.position.to_move == 1  # the AI has played its first move: the person is next
        await pilot.press("n")  # not before the end
        assert app.game is new and "Finish this game first" in app.message
    assert record.load(save.read_text(encoding="utf-8")).moves == finished.moves
    assert (tmp_path / "game-2.json").read_text(encoding="utf-8") == "someone else's file"
    assert record.load((tmp_path / "game-3.json").read_text(encoding="utf-8")).players == ["beginner", "you"]


@pytest.mark.asyncio
async def test_the_full_screen_game_in_polish(tmp_path: Path) -> None:
    """With Polish in use, the turn line, the panels, the offer, the log and the messages read in Polish."""
    with i18n.using("pl"):
        app = QuiltApp(Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"]), save_path=tmp_path / "pl.json")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            assert "Patchwork: dwóch graczy przy jednej klawiaturze" in app.message
            turn = shown(app.query_one(TurnBar))
            assert "Ruch 1" in turn and "zaczyna grę" in turn
            assert "guziki 5  dochód 0" in shown(app.query_one("#quilt0", QuiltPanel))
            assert "Krąg łatek: zostało 33, trzy następne dostępne" in shown(app.query_one(OfferPanel))
            await pilot.press("a")
            assert "pasuje o" in app.message  # the move's summary, the web's own words
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            assert "Tury wyznacza tor czasu" in shown(app.screen.query_one(Static))


# The language and the size of the screen ------------------------------------------------

# English words of the board: the move and turn lines, the track, the players' figures, the
# circle, the log. None may show while Polish is in use (names are names: "greedy" stays).
ENGLISH_WORDS = (
    "Move", "you", "your", "player", "behind", "turn", "starts", "Time track", "buttons", "button",
    "income", "space", "empty", "score", "forecast", "no buys", "Patch circle", "left", "offer",
    "then", "cost", "time", "advance", "earning", "bought", "placed", "patch", "thinking", "saving",
    "Hint", "chance", "margin", "ghost",
)  # fmt: skip
QUILT_ROW = re.compile(r"│\s*([1-9]) (?:(?:·|██|▓▓|▒▒|XX) ?){9}")


def screen_lines(app: QuiltApp) -> list[str]:
    """What the terminal shows, line by line, as text (what a screenshot shows, without colours)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, color_system=None, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()


def quilt_rows(app: QuiltApp, lines: list[str], seat: int) -> list[int]:
    """The numbers of the quilt rows drawn inside a player's box (a cut-off row is missing)."""
    region = app.query_one(f"#quilt{seat}", QuiltPanel).region
    rows = []
    for line in lines[region.y : region.bottom]:
        found = QUILT_ROW.match(line[region.x : region.right])
        if found:
            rows.append(int(found.group(1)))
    return rows


def english_on_screen(app: QuiltApp, lines: list[str]) -> set[str]:
    """The English words of :data:`ENGLISH_WORDS` on the board, the footer's key names aside.

    The keys' names are worded when the app's module is imported (Textual reads bindings
    from the class); ``quiltmaker play`` sets the language before, this test module after.
    """
    footer = app.query_one(Footer).region
    board = "\n".join(line for number, line in enumerate(lines) if not footer.y <= number < footer.bottom)
    return {word for word in ENGLISH_WORDS if re.search(rf"(?<![\w/.]){re.escape(word)}(?!\w)", board, re.IGNORECASE)}


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["pl", "en"])
@pytest.mark.parametrize("size", [SIZE, MIN_SIZE], ids=["120x40", "smallest"])
async def test_a_game_against_the_ai_keeps_its_language_and_shows_whole_quilts(
    language: str, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several moves against the computer: every screen in the language chosen at start, both quilts' nine rows drawn.

    The computer and the hints think in worker threads, and their answers come back through
    callbacks: both once ran outside the language set at start, and everything drawn after the
    computer's first answer was English. A forecast line too long for its box (Polish) pushed
    the quilt's last row out of it.
    """
    monkeypatch.chdir(tmp_path)  # the turn line names the save file: a short name of no language
    rng = random.Random(3)
    with i18n.using(language):
        app = QuiltApp(
            Game.new(HUMAN_FIRST_SEED, players=["you", "greedy"]),
            opponent=player_from_spec("greedy", 1),
            save_path=Path("g.json"),
            hint_limit=Limit(iterations=300),
        )
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            for turn in range(6):
                if turn == 2:
                    await pilot.press("h")  # the hint's answer is on the message line
                    await settle(pilot, app, timeout=120)  # the first search may load the compiled core
                    assert app.message.startswith("Podpowiedź: " if language == "pl" else "Hint: "), app.message
                lines = screen_lines(app)
                shown_screen = "\n".join(lines)
                for seat in (0, 1):
                    assert quilt_rows(app, lines, seat) == list(range(1, 10)), f"quilt {seat}, turn {turn}:\n{shown_screen}"
                english = english_on_screen(app, lines)
                if language == "pl":
                    assert not english, f"English on the Polish screen, turn {turn}: {sorted(english)}\n{shown_screen}"
                    assert "Tor czasu" in shown_screen and "prognoza" in shown_screen, shown_screen
                else:
                    assert {"Move", "Time track", "buttons", "forecast"} <= english, shown_screen
                if app.game.position.is_over:
                    break
                await play_by_keys(pilot, app, choose_human_move(app.game.position, rng))
                await settle(pilot, app)
            assert 1 in app.game.movers, "the computer must have answered"


@pytest.mark.asyncio
async def test_the_figures_and_the_patch_cards_fit_their_boxes_in_every_language() -> None:
    """No line of a player's figures or of a patch card is wider than its box, in any language, at its longest figures.

    The boxes have a fixed size at every size of the terminal: a wrapped line once pushed the
    quilt's last row (or a tall patch's) out of its box; now a line too long ends in "…", so a
    translation must fit: a Polish forecast ("prognoza -104 (bez zakupów)") did not.
    """
    app = QuiltApp(Game.new(HUMAN_FIRST_SEED, players=["player 0", "player 1"]), save_path=None)
    async with app.run_test(size=MIN_SIZE) as pilot:
        await pilot.pause()
        width = app.query_one(QuiltPanel).content_size.width
        assert width >= len(render_quilt(app.game.position, 0, {}).plain.splitlines()[0])
    start = Position.initial(HUMAN_FIRST_SEED)
    seven_by_seven = sum(1 << (row * BOARD_SIZE + col) for row in range(7) for col in range(7))
    extremes = [
        start,  # forecast -104 and 81 empty squares
        start._replace(buttons=(123, 123), income=(30, 30), times=(53, 53)),
        start._replace(quilts=(seven_by_seven, seven_by_seven), bonus=0, buttons=(0, 0)),  # the bonus beside a score of -57
    ]
    for code in i18n.LANGUAGES:
        with i18n.using(code):
            for position in extremes:
                for player in (0, 1):
                    figures = render_player(position, player, "a long name of a player", to_move=True).plain.splitlines()
                    assert len(figures) == 5 and max(map(cell_len, figures)) <= width, (code, figures)
            for patch_id, patch in enumerate(PATCHES):
                for orientation in patch.orientations:
                    card = card_body(patch_id, orientation.cells, affordable=False, too_dear=True, transform="R3").plain.splitlines()
                    assert len(card) <= CARD_HEIGHT - 2 and max(map(cell_len, card)) <= CARD_WIDTH - 2, (code, card)
