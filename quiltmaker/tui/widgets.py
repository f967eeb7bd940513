"""The widgets of the game screen; each shows one part of the position and holds no game state.

The app owns the game and calls ``show`` on every widget after each change,
so what is on screen is always drawn from the current position.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from ..core.components import Cell
from ..core.position import Position
from .line import render_track
from .model import Ghost
from .render import player_style, render_log, render_offer, render_player, render_quilt


class _Drawn(Static):
    """A static that redraws only when what it shows has changed (redrawing is the costly part)."""

    _shown: object = None

    def _draw_if_new(self, key: object, draw: Callable[[], RenderableType]) -> None:
        if key != self._shown:
            self._shown = key
            self.update(draw())


class TurnBar(Static):
    """One line: the move number, whose turn it is and why, and where the game is saved."""

    DEFAULT_CSS = """
    TurnBar { height: 1; background: $boost; padding: 0 1; }
    """

    def show(self, text: Text) -> None:
        """Replace the line."""
        self.update(text)


class TrackPanel(_Drawn):
    """The time track: 54 spaces, income and special-patch markers, both tokens, who is on top."""

    DEFAULT_CSS = """
    TrackPanel { height: 5; padding: 0 1; }
    """

    def show(self, position: Position, names: list[str]) -> None:
        """Draw the track of ``position``."""
        self._draw_if_new((position, tuple(names)), lambda: render_track(position, names))


class QuiltPanel(_Drawn):
    """One player's figures above their 9x9 quilt.

    Five lines of figures, a blank one and the quilt's ten fill the box exactly at
    every size the game accepts; a figure's line never wraps (it would push the
    quilt's last row out), and the box has no right padding: the quilt is 21
    columns wide, the figures' longest lines (Polish) 25.
    """

    DEFAULT_CSS = """
    QuiltPanel { width: 28; height: 18; padding: 0 0 0 1; border: round $panel; }
    QuiltPanel.to-move { border: round $accent; }
    """

    def __init__(self, seat: int, *, id: str | None = None) -> None:
        """Make the panel of ``seat`` (0 or 1)."""
        super().__init__(id=id)
        self.seat = seat

    def show(self, position: Position, name: str, owners: dict[Cell, int | None], ghost: Ghost | None, to_move: bool) -> None:
        """Draw the figures and the quilt, with ``ghost`` over it when this player is placing a patch."""
        self.set_class(to_move, "to-move")
        self._draw_if_new(
            (position, name, tuple(sorted(owners.items())), ghost, to_move),
            lambda: Group(render_player(position, self.seat, name, to_move), Text(""), render_quilt(position, self.seat, owners, ghost)),
        )


class OfferPanel(_Drawn):
    """The patch circle with the three patches on offer."""

    DEFAULT_CSS = """
    OfferPanel { width: 1fr; min-width: 50; height: 18; padding: 0; }
    """

    def show(self, position: Position, cursor: int, selected: int | None, ghost: Ghost | None) -> None:
        """Draw the circle; the chosen patch is drawn in the ghost's orientation."""
        # Only the ghost's orientation is drawn here, not where it lies.
        orientation = (ghost.patch, ghost.transform) if ghost is not None else None
        self._draw_if_new((position, cursor, selected, orientation), lambda: render_offer(position, cursor, selected, ghost))


class MoveLog(_Drawn):
    """The last moves of the game, one sentence each."""

    DEFAULT_CSS = """
    MoveLog { height: 7; padding: 0 1; border-top: solid $panel; }
    """

    LINES = 6

    def show(self, entries: list[tuple[int, str]]) -> None:
        """Draw the last few of ``entries`` (player, sentence)."""
        self._draw_if_new(tuple(entries[-self.LINES :]) + (len(entries),), lambda: render_log(entries, self.LINES))


class MessageLine(Static):
    """What just happened, or why a key did nothing (an illegal placement, say)."""

    DEFAULT_CSS = """
    MessageLine { height: 2; padding: 0 1; background: $boost; }
    MessageLine.error { color: $error; text-style: bold; }
    """

    def show(self, message: str, error: bool = False, player: int | None = None) -> None:
        """Show ``message``; errors in the error colour, a player's news in their colour."""
        self.set_class(error, "error")
        self.update(Text(message, style="" if error or player is None else player_style(player)))
