"""Rich renderables for the full-screen game: quilts with the ghost, the patch circle, the move log.

Squares are two characters wide so that a quilt looks square in a terminal.

The players' figures and the patch cards sit in boxes of fixed size, above or
beside a shape that must show whole: their lines never wrap (one too long for
its box ends in "…"), and every language's words fit (tests/test_tui.py checks
them at their longest figures).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..core.components import BOARD_SIZE, BONUS_POINTS, BONUS_SIZE, PATCHES, Cell
from ..core.moves import COLUMNS
from ..core.position import Position
from ..i18n import _
from ..words import buttons
from .model import Ghost, advance_preview, forecast

PATCH_COLOURS = (
    "red", "green", "yellow", "blue", "magenta", "cyan",
    "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan",
)  # fmt: skip
EMPTY = "· "
COVERED = "██"
SPECIAL = "▓▓"
GHOST_FREE = "▒▒"
GHOST_CLASH = "XX"
CARD_WIDTH = 16  # a patch card on offer, its border included
CARD_HEIGHT = 10  # three lines of figures and the tallest shape (5 squares), in a border


def player_style(player: int) -> str:
    """The colour of a player's name and token."""
    return "bold cyan" if player == 0 else "bold yellow"


def render_quilt(position: Position, player: int, owners: dict[Cell, int | None], ghost: Ghost | None = None) -> Text:
    """A 9x9 quilt with column letters and row numbers, the ghost drawn over it.

    Args:
        position: The position shown.
        player: Whose quilt.
        owners: Which patch covers each covered square (``None``: a special patch).
        ghost: The patch about to be placed on this quilt, if any; green where
            the placement is legal, red where it is not, ``XX`` on covered squares.
    """
    quilt = position.quilts[player]
    ghost_cells = set(ghost.cells) if ghost is not None else set()
    legal = ghost is not None and position.why_illegal(ghost.move) is None
    text = Text("   " + " ".join(COLUMNS) + "\n", style="dim")
    for row in range(BOARD_SIZE):
        text.append(f"{row + 1:>2} ", style="dim")
        for col in range(BOARD_SIZE):
            covered = bool(quilt >> (row * BOARD_SIZE + col) & 1)
            if (row, col) in ghost_cells:
                if covered:
                    text.append(GHOST_CLASH, style="bold white on red")
                else:
                    text.append(GHOST_FREE, style="bold green" if legal else "bold red")
            elif covered:
                patch = owners.get((row, col))
                text.append(SPECIAL if patch is None else COVERED, style="white" if patch is None else PATCH_COLOURS[patch % len(PATCH_COLOURS)])
            else:
                text.append(EMPTY, style="dim")
        if row < BOARD_SIZE - 1:
            text.append("\n")
    return text


def render_player(position: Position, player: int, name: str, to_move: bool) -> Text:
    """A player's figures: buttons, income, space, score now and the forecast."""
    marker = "▶ " if to_move else "  "
    # One line a figure, never wrapped: a wrapped line would push the quilt below out of its box.
    text = Text(no_wrap=True, overflow="ellipsis", style=player_style(player))
    text.append(marker + _("{name} (player {player})").format(name=name[:10], player=player) + "\n")
    text.append(_("buttons {buttons}  income {income}").format(buttons=position.buttons[player], income=position.income[player]) + "\n")
    text.append(_("space {space}  empty {empty}").format(space=position.times[player], empty=position.empty_squares(player)) + "\n")
    text.append(_("score now {score}").format(score=position.score(player)))
    if position.bonus == player:
        text.append(f" (+{BONUS_POINTS} {BONUS_SIZE}x{BONUS_SIZE})", style="bold green")
    text.append("\n" + _("forecast {score}").format(score=forecast(position, player)), style="bold")
    text.append(" " + _("(no buys)"), style="dim")
    return text


def shape_text(cells: tuple[Cell, ...], style: str) -> Text:
    """A patch shape drawn with two-character squares."""
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    covered = set(cells)
    text = Text()
    for row in range(height):
        for col in range(width):
            text.append(COVERED if (row, col) in covered else "  ", style=style)
        if row < height - 1:
            text.append("\n")
    return text


def card_body(patch_id: int, cells: tuple[Cell, ...], affordable: bool, too_dear: bool, transform: str | None) -> Text:
    """A patch card's inside: cost and time, income, the orientation shown or "too dear", then the shape.

    Its lines never wrap: a wrapped one would push the shape's last row out of the card.
    """
    patch = PATCHES[patch_id]
    body = Text(no_wrap=True, overflow="ellipsis", style="" if affordable else "dim")
    body.append(_("cost {cost} time {time}").format(cost=patch.cost, time=patch.time) + "\n" + _("income {income}").format(income=patch.income) + "\n")
    if transform is not None:
        body.append(f"{transform} ", style="bold")
    if too_dear:
        body.append(_("too dear"), style="red")
    body.append("\n")
    body.append_text(shape_text(cells, PATCH_COLOURS[patch_id % len(PATCH_COLOURS)] if affordable else "dim"))
    return body


def render_offer(position: Position, cursor: int, selected: int | None, ghost: Ghost | None) -> RenderableType:
    """The patch circle: the three on offer in detail, the rest in circle order, and what advancing earns.

    Args:
        position: The position shown.
        cursor: The offered patch (0..2) that Enter would choose.
        selected: The offered patch chosen for placing, if any.
        ghost: The ghost of the chosen patch; its orientation is drawn.
    """
    player = position.to_move
    boxes = Table.grid(padding=(0, 1))
    cards: list[RenderableType] = []
    for index, patch_id in enumerate(position.offered):
        patch = PATCHES[patch_id]
        affordable = player is not None and patch.cost <= position.buttons[player]
        showing = ghost if selected == index and ghost is not None and ghost.patch == patch_id else None
        cells = showing.shape if showing else patch.orientations[0].cells
        body = card_body(patch_id, cells, affordable, too_dear=player is not None and not affordable, transform=showing.transform if showing else None)
        title = _("{key}: patch {patch}").format(key=index + 1, patch=patch_id)
        border = "bold green" if selected == index else "white" if cursor == index and selected is None else "dim"
        cards.append(Panel(body, title=title, title_align="left", border_style=border, width=CARD_WIDTH, height=CARD_HEIGHT, padding=(0, 0)))
        boxes.add_column()
    if cards:
        boxes.add_row(*cards)
    rest = Text(_("then (cost/time/income):") + " " if len(position.circle) > 3 else "", style="dim")
    for patch_id in position.circle[3:]:
        patch = PATCHES[patch_id]
        rest.append(f"{patch_id}", style="bold")
        rest.append(f"({patch.cost}/{patch.time}/{patch.income}) ", style="dim")
    header = Text(_("Patch circle: {n} left, the next three on offer").format(n=len(position.circle)), style="bold")
    footer = Text()
    preview = advance_preview(position)
    if preview is not None:
        space, earned = preview
        footer.append(_("A: advance to space {space}, earning {buttons}").format(space=space, buttons=buttons(earned)), style="bold")
    return Group(header, boxes, rest, footer)


def render_log(entries: list[tuple[int, str]], limit: int) -> Text:
    """The last ``limit`` moves, numbered, each in its player's colour."""
    text = Text()
    start = max(0, len(entries) - limit)
    for number, (player, line) in enumerate(entries[start:], start + 1):
        if text:
            text.append("\n")
        text.append(f"{number:>3}. ", style="dim")
        text.append(line, style=player_style(player).replace("bold ", ""))
    if not entries:
        text.append(_("No moves yet."), style="dim")
    return text
