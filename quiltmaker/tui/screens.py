"""Screens shown over the game: help, a file-name prompt, and the final scoring.

The keys' names are worded in the language in use when this module is first
imported (``quiltmaker play`` chooses it before): Textual reads a screen's
bindings once, from the class.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from ..core.components import BONUS_SIZE, EMPTY_SQUARE_PENALTY, LAST_SPACE
from ..core.position import Position
from ..i18n import N_, _
from .line import render_final
from .model import YOU, shown_names

HELP_TEXT = N_("""\
Choosing        1 2 3      choose a patch on offer (or ← → and Enter)
                Esc        put the chosen patch back
Placing         ← ↑ → ↓    move the patch on your quilt
                R          rotate a quarter turn clockwise
                F          flip (mirror left to right)
                Enter      place it; an illegal spot is explained and nothing changes
Advancing       A          move just past your opponent, 1 button a space (+ income)
Special patch   ← ↑ → ↓    move the 1x1 patch, Enter to place it (it must come first)
Game            U          undo (against the AI: back to your last turn)
                H          hint: the AI's best move and your winning chances
                S          save to a file (the game is then saved there after every move)
                L          load a game record (JSON or text) and continue it
                N          once the game is over: a new one, seats swapped
                ?          this help
                Q          quit; the game is already saved

Turns follow the time track: whoever is behind moves, so one player may move
several times in a row. Green squares: the patch fits there; red: it does not.
The forecast is the score if a player bought nothing more: buttons, plus a
button for every space still to advance, plus income still to come, minus {penalty} for
each empty square, plus the {size}x{size} bonus.

Press Esc or ? to go back to the game.""")


class HelpScreen(ModalScreen[None]):
    """The keys and how to read the board."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 96; max-width: 100%; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    """
    BINDINGS = [
        Binding("escape,question_mark,enter,q,Q", "close", _("Back")),
    ]

    def compose(self) -> ComposeResult:
        """The help text in a box."""
        yield Static(_(HELP_TEXT).format(penalty=EMPTY_SQUARE_PENALTY, size=BONUS_SIZE))

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss(None)


class PathPrompt(ModalScreen[str | None]):
    """Asks for a file name; returns it, or ``None`` when Esc cancels."""

    DEFAULT_CSS = """
    PathPrompt { align: center middle; }
    PathPrompt > Vertical { width: 80; max-width: 100%; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    """
    BINDINGS = [Binding("escape", "cancel", _("Cancel"))]

    def __init__(self, question: str, default: str) -> None:
        """Ask ``question``, with ``default`` already typed (and selected, so typing replaces it)."""
        super().__init__()
        self.question = question
        self.default = default

    def compose(self) -> ComposeResult:
        """The question, the file name, and what the keys do."""
        with Vertical():
            yield Label(self.question)
            yield Input(value=self.default, id="path")
            yield Label(_("Enter to confirm, Esc to cancel"), classes="dim")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Answer with the typed name."""
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Answer that nothing was chosen."""
        self.dismiss(None)


class GameOverScreen(ModalScreen[str]):
    """The final scoring; dismissed with what the player chose to do next."""

    DEFAULT_CSS = """
    GameOverScreen { align: center middle; }
    GameOverScreen > Static { width: 84; max-width: 100%; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    """
    BINDINGS = [
        Binding("n,N", "choose('new')", _("New game")),
        Binding("q,Q", "choose('quit')", _("Quit")),
        Binding("u,U", "choose('undo')", _("Undo")),
        Binding("l,L", "choose('load')", _("Load")),
        Binding("escape", "choose('board')", _("See the board")),
    ]

    def __init__(self, position: Position, names: list[str]) -> None:
        """Show the scoring of the finished ``position``."""
        super().__init__()
        self.position = position
        self.names = names

    def compose(self) -> ComposeResult:
        """The scoring table and the keys."""
        winner = self.position.winner
        assert winner is not None, "the game must be over"
        name = self.names[winner]
        you = name == YOU
        title = Text(_("You win!") if you else _("{name} wins!").format(name=name), style="bold")
        if self.position.decided_by_tiebreak:
            if you:
                tiebreak = _("The scores are equal: the tie-break goes to whoever reached space {space} first, you.")
            else:
                tiebreak = _("The scores are equal: the tie-break goes to whoever reached space {space} first, {name}.")
            title.append("\n" + tiebreak.format(space=LAST_SPACE, name=name), style="")
        scores = render_final(self.position, shown_names(self.names))
        scores.caption = None  # the title above says who won, in the second person where it is "you"
        keys = Text(_("N new game, seats swapped · Q quit · U undo · L load a game · Esc look at the board"), style="dim")
        yield Static(Group(title, Text(""), scores, Text(""), keys))

    def action_choose(self, choice: str) -> None:
        """Close, answering ``choice``."""
        self.dismiss(choice)
