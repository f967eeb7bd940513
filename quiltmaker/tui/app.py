"""The full-screen game: a Textual app around a :class:`~quiltmaker.Game`.

The app owns the game, the chosen patch and its ghost; widgets only draw.
Every change of the game goes through :meth:`QuiltApp.game_changed`, which
saves the record, decides who acts next and redraws, so that nothing a player
did is ever lost and the screen always shows the current position. The AI and
hints think in worker threads (the compiled search releases the GIL), and a
result that arrives after an undo or a load is dropped.

Its words are in the language in use (:mod:`quiltmaker.i18n`), a context
variable: the app's own tasks inherit it, but a thread worker starts in an
empty context, and what it hands back (``call_from_thread``) runs in the
context of that thread. So every thread worker runs in a copy of the context
that started it (:meth:`QuiltApp.run_worker`), or the AI's first answer
redrew the whole screen in English. The keys' names in the footer are worded
when this module is first imported, since Textual reads bindings from the
class (``quiltmaker play`` chooses the language before).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import re
from pathlib import Path
from typing import cast

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer
from textual.worker import ResultType, Worker, WorkType

from ..ai.analysis import Analysis
from ..ai.mcts import MCTSPlayer, warm_up
from ..ai.players import Limit, Player
from ..core import record
from ..core.errors import QuiltmakerError
from ..core.game import Game
from ..core.moves import Move, square_name
from ..i18n import N_, _, ngettext
from ..words import illegal, percent
from .line import describe_move, patch_map
from .model import YOU, Ghost, first_fit, ghost_for_move, shown_names, turn_reason
from .render import player_style
from .screens import GameOverScreen, HelpScreen, PathPrompt
from .widgets import MessageLine, MoveLog, OfferPanel, QuiltPanel, TrackPanel, TurnBar

DEFAULT_SAVE = Path("quiltmaker-game.json")
GAME_OVER_KEYS = N_("The game is over: N starts a new one, U undoes, L loads another game, Q quits.")
HINT_LIMIT = Limit(time=1.0)
MIN_SIZE = (106, 34)  # columns and lines that show the whole board without scrolling
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class QuiltApp(App[None]):
    """Patchwork in the terminal, against the AI or for two people on one keyboard.

    Attributes:
        game: The game on screen.
        opponent: The AI player, or ``None`` when two people play.
        humans: The seats played from the keyboard.
        save_path: Where the record is written after every move (``None``: nowhere).
        hint_limit: How long a hint thinks.
        selected: Index (0..2) of the offered patch being placed, if any.
        cursor: The offered patch that Enter chooses when none is selected.
        ghost: The patch (or special 1x1 patch) shown on the quilt of the player to move.
        message: The message line's text.
        thinking: Whether the AI is choosing a move.
        hinting: Whether a hint is being worked out.
    """

    TITLE = "quiltmaker"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #boards { height: auto; }
    """
    # Letters work with Shift or Caps Lock too: the help and the docs name them in capitals.
    BINDINGS = [
        Binding("1", "choose(0)", _("Choose"), key_display="1 2 3"),
        Binding("2", "choose(1)", _("Choose patch 2"), show=False),
        Binding("3", "choose(2)", _("Choose patch 3"), show=False),
        Binding("left", "arrow(0, -1)", _("Move"), key_display="←↑↓→"),
        Binding("right", "arrow(0, 1)", _("Move"), show=False),
        Binding("up", "arrow(-1, 0)", _("Move"), show=False),
        Binding("down", "arrow(1, 0)", _("Move"), show=False),
        Binding("r,R", "rotate", _("Rotate")),
        Binding("f,F", "flip", _("Flip")),
        Binding("enter", "enter", _("Place")),
        Binding("escape", "cancel", _("Cancel"), show=False),
        Binding("a,A", "advance", _("Advance")),
        Binding("u,U", "undo", _("Undo")),
        Binding("h,H", "hint", _("Hint")),
        Binding("s,S", "save", _("Save")),
        Binding("l,L", "load", _("Load")),
        Binding("n,N", "new_game", _("New game"), show=False),
        Binding("question_mark", "help", _("Help")),
        Binding("q,Q", "quit", _("Quit")),
    ]

    def __init__(
        self,
        game: Game,
        *,
        opponent: Player | None = None,
        human_seat: int = 0,
        save_path: Path | None = DEFAULT_SAVE,
        hint_limit: Limit = HINT_LIMIT,
        seed: int = 0,
    ) -> None:
        """Set up a game; it starts when the app runs.

        Args:
            game: The game to play, new or resumed.
            opponent: The AI, or ``None`` for two people on one keyboard.
            human_seat: The person's seat against the AI (ignored for two people).
            save_path: The record file written after every move, or ``None``.
            hint_limit: The search limit of a hint.
            seed: Seed of the hint search.
        """
        super().__init__()
        self.game = game
        self.opponent = opponent
        self.humans = frozenset({human_seat}) if opponent is not None else frozenset({0, 1})
        self.save_path = save_path
        self.hint_limit = hint_limit
        self.seed = seed
        self.selected: int | None = None
        self.cursor = 0
        self.ghost: Ghost | None = None
        self.message = ""
        self.thinking = False
        self.hinting = False
        self._generation = 0  # bumped on every change of the game; stale worker results are dropped
        self._spin = 0
        self._entries: list[tuple[int, str]] = []
        self._over_shown = False
        self.too_small = False

    def run_worker(
        self,
        work: WorkType[ResultType],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[ResultType]:
        """Textual's ``run_worker``, a thread's function run in a copy of the caller's context.

        A thread starts in an empty context, English; the function and the callbacks
        it hands back with ``call_from_thread`` (which run in the context of the
        thread that calls it) thus keep the language of the game.
        """
        if thread and callable(work) and not inspect.iscoroutinefunction(work):
            work = cast("WorkType[ResultType]", functools.partial(contextvars.copy_context().run, work))
        return super().run_worker(work, name, group, description, exit_on_error, start, exclusive, thread)

    # Layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """The board: turn line, track, both quilts and the circle, the log, the message line, the keys."""
        yield TurnBar(id="turn")
        yield TrackPanel(id="track")
        with Horizontal(id="boards"):
            yield QuiltPanel(0, id="quilt0")
            yield QuiltPanel(1, id="quilt1")
            yield OfferPanel(id="offer")
        yield MoveLog(id="log")
        yield MessageLine(id="message")
        yield Footer()

    def on_mount(self) -> None:
        """Start the game: save it at once (so --resume always finds it), then whoever acts first."""
        self.set_interval(0.1, self._tick)
        if isinstance(self.opponent, MCTSPlayer):
            # Load the compiled search now, while the person reads the board, not in the AI's first move.
            self.run_worker(warm_up, thread=True, group="warm-up", exit_on_error=False)
        if self.opponent is None:
            self.game_changed(_("Patchwork: two players on one keyboard. Press ? for the keys."))
        else:
            self.game_changed(
                _("Patchwork: you are player {seat} against {opponent}. Press ? for the keys.").format(seat=self._human, opponent=self.opponent.name)
            )

    def on_resize(self, event: events.Resize) -> None:
        """Warn when the terminal is too small to show the whole board."""
        width, height = event.size
        if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
            self.too_small = True
            self.notify(
                _("The board needs a terminal of {needed} or more (this one is {size}): enlarge it or scroll.").format(
                    needed=f"{MIN_SIZE[0]}x{MIN_SIZE[1]}", size=f"{width}x{height}"
                ),
                severity="warning",
            )
        else:
            self.too_small = False

    # Who is who --------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The players' names as the record has them (the person against the AI is "you")."""
        return list(self.game.players)

    @property
    def shown_names(self) -> list[str]:
        """The players' names as the screen shows them: "you" in the language in use."""
        return shown_names(self.game.players)

    @property
    def _human(self) -> int:
        return min(self.humans)

    @property
    def busy(self) -> bool:
        """Whether the AI or a hint is thinking."""
        return self.thinking or self.hinting

    def _your_turn(self) -> bool:
        """Whether the player to move sits at the keyboard and may act now; else say why not."""
        position = self.game.position
        if position.is_over:
            self.say(_(GAME_OVER_KEYS))
            return False
        mover = position.to_move
        assert mover is not None
        if self.thinking:
            self.say(_("{name} is thinking; please wait.").format(name=self.shown_names[mover]))
            return False
        if mover not in self.humans:
            self.say(_("It is {name}'s turn, but it could not move: undo (U) or load a game (L).").format(name=self.shown_names[mover]), error=True)
            return False
        return True

    def _subject(self, player: int) -> str:
        # The move log names the person "You", the others by name.
        return _("You") if self.opponent is not None and player in self.humans else self.names[player]

    # The one place where the game changes ---------------------------------------

    def game_changed(self, message: str | None = None, player: int | None = None) -> None:
        """After any change of the game: save it, reset the choice, let the next player act, redraw."""
        self._generation += 1
        self.selected = None
        self.ghost = None
        self._entries = self._describe_moves()
        saved = self._autosave()
        if message is not None:
            self.say(message, player=player)
        if saved is not None:
            self.say(saved, error=True)
        position = self.game.position
        mover = position.to_move
        if mover is None:
            self._over_shown = False
            self._refresh()
            self._show_game_over()
            return
        if mover in self.humans:
            if position.pending:
                self.ghost = first_fit(position, mover, None)
        else:
            self._start_ai()
        self._refresh()

    def _describe_moves(self) -> list[tuple[int, str]]:
        entries = []
        for before, move in zip(self.game.positions, self.game.moves):
            player = before.to_move
            assert player is not None
            entries.append((player, describe_move(before, move, self._subject(player))))
        return entries

    def _autosave(self) -> str | None:
        """Write the record; returns a warning when it could not be written."""
        if self.save_path is None:
            return None
        try:
            record.save(self.game, self.save_path)
        except OSError as error:
            return _("Could not save to {path}: {error}").format(path=self.save_path, error=error)
        return None

    def _play(self, move: Move) -> None:
        """Play a move of the person at the keyboard, or explain why it is illegal and change nothing."""
        position = self.game.position
        player = position.to_move
        assert player is not None
        reason = illegal(position, move, self.shown_names)
        if reason is not None:
            self.say((_("Not placed: {reason}.") if move.cells else _("Not played: {reason}.")).format(reason=reason), error=True)
            return
        sentence = describe_move(position, move, self._subject(player))
        self.game.play(move)
        self.game_changed(sentence, player)

    # Drawing -------------------------------------------------------------------

    def say(self, message: str, error: bool = False, player: int | None = None) -> None:
        """Show ``message`` on the message line."""
        self.message = message
        for line in self.query(MessageLine):  # none before the screen is composed
            line.show(message, error, player)

    def _refresh(self) -> None:
        """Redraw every widget from the game and the current choice."""
        position = self.game.position
        shown = self.shown_names
        owners = patch_map(self.game)
        mover = position.to_move
        for panel in self.query(QuiltPanel):
            seat = panel.seat
            ghost = self.ghost if mover == seat else None
            panel.show(position, shown[seat], owners[seat], ghost, mover == seat)
        self.query_one(TrackPanel).show(position, shown)
        self.query_one(OfferPanel).show(position, self.cursor, self.selected, self.ghost if self.selected is not None else None)
        self.query_one(MoveLog).show(self._entries)
        self._refresh_turn()

    def _refresh_turn(self) -> None:
        position = self.game.position
        text = Text(_("Move {number}").format(number=len(self.game.moves) + 1) + " · ", style="bold")
        if self.thinking and position.to_move is not None:
            thinking = _("{name} is thinking…").format(name=self.shown_names[position.to_move])
            text.append(f"{SPINNER[self._spin]} {thinking} ", style=player_style(position.to_move))
        text.append(turn_reason(position, self.names), style=player_style(position.to_move) if position.to_move is not None else "")
        if self.hinting:
            text.append(f"  {SPINNER[self._spin]} " + _("working out a hint…"), style="italic")
        if self.ghost is not None and position.to_move is not None:
            reason = position.why_illegal(self.ghost.move)
            text.append("  " + (_("✓ fits here") if reason is None else _("✗ does not fit here")), style="green" if reason is None else "red")
        if self.save_path is not None:
            text.append("  · " + _("saving to {path}").format(path=self.save_path), style="dim")
        self.query_one(TurnBar).show(text)

    def _tick(self) -> None:
        if self.busy:
            self._spin = (self._spin + 1) % len(SPINNER)
            self._refresh_turn()

    def _set_ghost(self, ghost: Ghost) -> None:
        self.ghost = ghost
        position = self.game.position
        reason = illegal(position, ghost.move, self.shown_names)
        if reason is not None:
            self.say(_("Here it would not be legal: {reason}.").format(reason=reason), error=True)
        elif ghost.patch is None:
            self.say(_("Special patch on {square}: Enter places it.").format(square=square_name(ghost.row, ghost.col)))
        else:
            self.say(
                _("Patch {patch} {orientation} at {move}: Enter places it, Esc puts it back.").format(
                    patch=ghost.patch, orientation=ghost.transform, move=ghost.move.text()
                )
            )
        self._refresh()

    # The AI and hints, in worker threads -----------------------------------------

    def _start_ai(self) -> None:
        assert self.opponent is not None
        self.thinking = True
        position, generation, opponent = self.game.position, self._generation, self.opponent

        def think() -> None:
            try:
                move: Move | None = opponent.choose_move(position)
                error = None
            except Exception as exc:  # an outside engine may fail in any way; the game must survive it
                move, error = None, _("{name} failed to move: {error}").format(name=opponent.name, error=exc)
            self.call_from_thread(self._ai_moved, generation, move, error)

        self.run_worker(think, thread=True, group="ai", exit_on_error=False)

    def _ai_moved(self, generation: int, move: Move | None, error: str | None) -> None:
        self.thinking = False
        if generation != self._generation:
            return
        if move is None:
            self.say(_("{error}. Undo or load a game to go on.").format(error=error), error=True)
            self._refresh_turn()
            return
        position = self.game.position
        player = position.to_move
        assert player is not None
        sentence = describe_move(position, move, self._subject(player))
        self.game.play(move)
        self.game_changed(sentence, player)

    def action_hint(self) -> None:
        """Ask the search for the best move; the ghost then shows it."""
        if not self._your_turn():
            return
        if self.hinting:
            self.say(_("Still working out the hint…"))
            return
        self.hinting = True
        position, generation, limit, seed = self.game.position, self._generation, self.hint_limit, self.seed
        self._refresh_turn()

        def think() -> None:
            from ..ai.analysis import analyse_position

            try:
                analysis: Analysis | None = analyse_position(position, limit, seed)
                error = None
            except Exception as exc:  # a failed hint must not end the game
                analysis, error = None, _("No hint: {error}").format(error=exc)
            self.call_from_thread(self._hinted, generation, analysis, error)

        self.run_worker(think, thread=True, group="hint", exit_on_error=False)

    def _hinted(self, generation: int, analysis: Analysis | None, error: str | None) -> None:
        self.hinting = False
        if generation != self._generation:
            self._refresh_turn()
            return
        if analysis is None or analysis.best_move is None:
            self.say(error or _("No hint."), error=True)
            self._refresh_turn()
            return
        move = Move.from_text(analysis.best_move)
        chances = _("win chance {chance}, expected margin {margin}").format(
            chance=percent(analysis.win_probability), margin=f"{analysis.expected_margin:+.0f}"
        )
        ghost = ghost_for_move(move)
        if ghost is None:
            self.selected = None
            self.ghost = None
            self._refresh()
            self.say(_("Hint: advance (press A) — {chances}.").format(chances=chances))
            return
        if ghost.patch is not None:
            self.selected = self.game.position.offered.index(ghost.patch)
            self.cursor = self.selected
        self.ghost = ghost
        self._refresh()
        self.say(_("Hint: {move} — {chances}. The ghost shows it: Enter plays it.").format(move=move.text(), chances=chances))

    # Keys ----------------------------------------------------------------------

    def action_choose(self, index: int) -> None:
        """Choose the offered patch ``index`` (0..2); its ghost appears where it first fits."""
        if not self._your_turn():
            return
        position = self.game.position
        player = position.to_move
        assert player is not None
        if position.pending:
            self.say(_("Place the special patch first: move it with the arrows, Enter places it."), error=True)
            return
        if index >= len(position.offered):
            remain = len(position.offered)
            self.say(
                ngettext("There is no patch {key} on offer: only {n} remains.", "There is no patch {key} on offer: only {n} remain.", remain).format(
                    key=index + 1, n=remain
                ),
                error=True,
            )
            return
        self.selected = self.cursor = index
        self._set_ghost(first_fit(position, player, position.offered[index]))

    def action_arrow(self, rows: int, cols: int) -> None:
        """Move the ghost, or with no patch chosen, move the cursor along the offer."""
        if not self._your_turn():
            return
        if self.ghost is not None:
            self._set_ghost(self.ghost.shifted(rows, cols))
            return
        count = len(self.game.position.offered)
        if cols and count:
            self.cursor = (self.cursor + cols) % count
            patch = self.game.position.offered[self.cursor]
            self.say(_("Patch {patch}: Enter chooses it (or press {key}).").format(patch=patch, key=self.cursor + 1))
            self._refresh()

    def action_rotate(self) -> None:
        """Turn the chosen patch a quarter clockwise."""
        if self._your_turn() and self._placing_a_patch():
            assert self.ghost is not None
            self._set_ghost(self.ghost.rotated())

    def action_flip(self) -> None:
        """Mirror the chosen patch left to right."""
        if self._your_turn() and self._placing_a_patch():
            assert self.ghost is not None
            self._set_ghost(self.ghost.flipped())

    def _placing_a_patch(self) -> bool:
        if self.ghost is None:
            self.say(_("Choose a patch first: 1, 2 or 3."), error=True)
            return False
        if self.ghost.patch is None:
            self.say(_("A special 1x1 patch looks the same any way round."))
            return False
        return True

    def action_enter(self) -> None:
        """Place the ghost, or choose the patch under the cursor."""
        if self.game.position.is_over:
            self._show_game_over()
            return
        if not self._your_turn():
            return
        if self.ghost is None:
            self.action_choose(self.cursor)
            return
        self._play(self.ghost.move)

    def action_cancel(self) -> None:
        """Put the chosen patch back."""
        if self.ghost is None or self.game.position.is_over:
            return
        if self.ghost.patch is None:
            self.say(_("The special patch must be placed before anything else."), error=True)
            return
        self.selected = None
        self.ghost = None
        self.say(_("Patch put back. Choose another (1, 2, 3) or advance (A)."))
        self._refresh()

    def action_advance(self) -> None:
        """Advance just past the opponent, earning a button a space."""
        if self._your_turn():
            self._play(Move.advance())

    def action_undo(self) -> None:
        """Take back a move (two players) or back to your last turn (against the AI)."""
        if self.thinking:
            self.say(_("{name} is thinking; undo once it has moved.").format(name=self.shown_names[self.game.position.to_move or 0]))
            return
        if not self.game.moves:
            self.say(_("Nothing to undo yet."))
            return
        if self.opponent is None:
            move = self.game.undo()
            self.game_changed(_("Took back move {number} ({move}).").format(number=len(self.game.moves) + 1, move=move.text()))
            return
        if self.game.turn_start(self._human) is None:
            self.say(_("Nothing of yours to undo yet."))
            return
        self.game.undo_turn(self._human)
        self.game_changed(_("Undone back to move {number}: your turn again.").format(number=len(self.game.moves) + 1))

    def action_help(self) -> None:
        """Show the keys."""
        self.push_screen(HelpScreen())

    # Files ---------------------------------------------------------------------

    def action_save(self) -> None:
        """Ask for a file and save the game there; it is then saved there after every move."""
        default = str(self.save_path or DEFAULT_SAVE)
        self.push_screen(PathPrompt(_("Save this game to (it is then saved there after every move):"), default), self._save_to)

    def _save_to(self, name: str | None) -> None:
        if not name:
            self.say(_("Not saved."))
            return
        path = Path(name)
        try:
            record.save(self.game, path)
        except OSError as error:
            self.say(_("Could not save to {path}: {error}").format(path=path, error=error), error=True)
            return
        self.save_path = path
        self.say(_("Saved to {path}; every move is saved there from now on.").format(path=path))
        self._refresh_turn()

    def action_load(self) -> None:
        """Ask for a record file and continue that game."""
        if self.thinking:
            self.say(_("The AI is thinking; load once it has moved."))
            return
        default = str(self.save_path or DEFAULT_SAVE)
        self.push_screen(PathPrompt(_("Load the game record (JSON or text) in:"), default), self._load_from)

    def _load_from(self, name: str | None) -> None:
        game = None
        if not name:
            self.say(_("Nothing loaded."))
        else:
            try:
                game = record.load(Path(name).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, QuiltmakerError) as error:
                self.say(_("Could not load {path}: {error}").format(path=name, error=error), error=True)
        if game is None:
            if self.game.position.is_over:
                self._show_game_over()  # the player came from the final scoring: back to it
            return
        path = Path(name or "")
        self.game = game
        if self.opponent is not None and YOU in game.players:
            self.humans = frozenset({game.players.index(YOU)})
        self.save_path = path
        played = len(game.moves)
        self.game_changed(
            ngettext(
                "Loaded {path}: {n} move played; it is saved there after every move.",
                "Loaded {path}: {n} moves played; it is saved there after every move.",
                played,
            ).format(path=path, n=played)
        )

    # The end -------------------------------------------------------------------

    def _show_game_over(self) -> None:
        if self._over_shown:
            return
        self._over_shown = True
        self.push_screen(GameOverScreen(self.game.position, self.names), self._after_game_over)

    def _after_game_over(self, choice: str | None) -> None:
        self._over_shown = False
        if choice == "quit":
            self.exit()
        elif choice == "undo":
            self.action_undo()
        elif choice == "load":
            self.action_load()
        elif choice == "new":
            self.new_game()
        else:
            self.say(GAME_OVER_KEYS)

    def action_new_game(self) -> None:
        """N: a new game once this one is over."""
        if not self.game.position.is_over:
            self.say(_("Finish this game first (or Q to quit: it is saved)."))
            return
        self.new_game()

    def new_game(self) -> None:
        """The next game between the same players, seats swapped so that the other one starts.

        It is saved in a file of its own (``game-2.json`` after ``game.json``), so the
        finished game's record stays as it was.
        """
        old = self.game
        first = old.start.to_move
        assert first is not None
        # Whoever sat in seat ``first`` moved first; after the swap the other player sits there.
        self.game = Game.new(variant=old.position.variant, first_player=first, players=list(reversed(old.players)))
        if self.opponent is not None:
            self.humans = frozenset({1 - self._human})
        if self.save_path is not None:
            self.save_path = _next_free(self.save_path)
        mover = self.game.position.to_move
        assert mover is not None
        self.game_changed(_("A new game, seats swapped: {name} starts.").format(name=self.shown_names[mover]))


def _next_free(path: Path) -> Path:
    """``game.json`` -> ``game-2.json`` (``game-2.json`` -> ``game-3.json``), skipping files that exist."""
    match = re.fullmatch(r"(.*)-(\d{1,3})", path.stem)  # a counter, not a year as in match-2026
    stem, number = (match.group(1), int(match.group(2))) if match else (path.stem, 1)
    while True:
        number += 1
        candidate = path.with_name(f"{stem}-{number}{path.suffix}")
        if not candidate.exists():
            return candidate
