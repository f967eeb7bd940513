"""Positions drawn as SVG: what Jupyter shows for a :class:`~quiltmaker.Position` or a :class:`~quiltmaker.Game`.

As python-chess draws its boards, so :func:`position_svg` draws a position
from the position alone: both quilts (covered squares filled), each player's
space, buttons, income and score, the time track with both tokens, the
income spaces and the special patches still on it, and the three patches on
offer with their cost, time and income. Nothing here decides a rule: every
figure is read from the position.

>>> from quiltmaker import Position
>>> svg = position_svg(Position.initial(1))
>>> svg.startswith("<svg") and svg.endswith("</svg>")
True
"""

from __future__ import annotations

from typing import Protocol
from xml.sax.saxutils import escape

from .components import BOARD_SIZE, LAST_SPACE, OFFER_SIZE, PATCHES, SQUARES, TIME_TRACKS


class Position(Protocol):
    """What a drawing reads of a :class:`quiltmaker.Position` (named so that this module need not import it)."""

    @property
    def variant(self) -> str: ...
    @property
    def circle(self) -> tuple[int, ...]: ...
    @property
    def times(self) -> tuple[int, int]: ...
    @property
    def buttons(self) -> tuple[int, int]: ...
    @property
    def income(self) -> tuple[int, int]: ...
    @property
    def quilts(self) -> tuple[int, int]: ...
    @property
    def on_top(self) -> int: ...
    @property
    def specials(self) -> int: ...
    @property
    def bonus(self) -> int: ...
    @property
    def to_move(self) -> int | None: ...
    def score(self, player: int) -> int: ...

CELL = 22  # a quilt square, in pixels
GAP = 36
TRACK_CELL = 10
OFFER_CELL = 10
COLOURS = ("#b3473c", "#3c6fb3")  # the two players: a brick red and a blue
COVERED = "#d9b26f"
EMPTY = "#f6f1e7"
LINE = "#8a7f6d"
INCOME = "#3d8b3d"
SPECIAL = "#6b4a2b"
QUILT_SIZE = CELL * BOARD_SIZE
WIDTH = 2 * QUILT_SIZE + 3 * GAP
TRACK_Y = 84 + QUILT_SIZE
OFFER_Y = TRACK_Y + 56


def position_svg(position: Position, title: str | None = None, names: tuple[str, str] = ("player 0", "player 1")) -> str:
    """An SVG picture of ``position`` (a string); ``title`` is written above it, ``names`` label the quilts."""
    parts: list[str] = []
    top = 24 if title else 0
    for player in (0, 1):
        parts.extend(_quilt(position, player, GAP + player * (QUILT_SIZE + GAP), 52 + top, names[player]))
    parts.extend(_track(position, top))
    parts.extend(_offer(position, top))
    height = OFFER_Y + top + 5 * OFFER_CELL + 40
    if title:
        parts.insert(0, f'<text x="{GAP}" y="18" font-size="14" font-weight="bold">{escape(title)}</text>')
    body = "".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'font-family="sans-serif" font-size="11"><rect width="{WIDTH}" height="{height}" fill="white"/>{body}</svg>'
    )


def _quilt(position: Position, player: int, x: int, y: int, name: str) -> list[str]:
    quilt = position.quilts[player]
    mover = position.to_move == player
    label = f"{escape(name)}{' to move' if mover else ''}"
    bonus = " with the 7x7 bonus" if position.bonus == player else ""
    figures = f"space {position.times[player]}, {position.buttons[player]} buttons, income {position.income[player]}"
    parts = [
        f'<text x="{x}" y="{y - 34}" font-size="12" font-weight="bold" fill="{COLOURS[player]}">{label}</text>',
        f'<text x="{x}" y="{y - 20}">{figures}</text>',
        f'<text x="{x}" y="{y - 6}">score {position.score(player)}{bonus}</text>',
    ]
    for square in range(SQUARES):
        row, col = divmod(square, BOARD_SIZE)
        fill = COVERED if quilt >> square & 1 else EMPTY
        parts.append(
            f'<rect class="square{" covered" if quilt >> square & 1 else ""}" x="{x + col * CELL}" y="{y + row * CELL}" '
            f'width="{CELL}" height="{CELL}" fill="{fill}" stroke="{LINE}" stroke-width="0.5"/>'
        )
    if mover:
        parts.append(f'<rect x="{x - 2}" y="{y - 2}" width="{QUILT_SIZE + 4}" height="{QUILT_SIZE + 4}" fill="none" '
                     f'stroke="{COLOURS[player]}" stroke-width="2"/>')
    return parts


def _track(position: Position, top: int) -> list[str]:
    y = TRACK_Y + top
    x0 = GAP
    spaces = LAST_SPACE + 1
    cell = (WIDTH - 2 * GAP) / spaces
    parts = [
        f'<text x="{x0}" y="{y - 6}">time track</text>',
        f'<text x="{x0}" y="{y + TRACK_CELL + 18}" font-size="9">0</text>',
        f'<text x="{WIDTH - GAP}" y="{y + TRACK_CELL + 18}" font-size="9" text-anchor="end">{LAST_SPACE}</text>',
    ]
    track = TIME_TRACKS[position.variant]
    for space in range(spaces):
        x = x0 + space * cell
        fill = "#e9efe0" if space in track.income_spaces else EMPTY
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{cell:.1f}" height="{TRACK_CELL + 6}" fill="{fill}" stroke="{LINE}" stroke-width="0.4"/>')
        if space in track.income_spaces:
            parts.append(f'<circle cx="{x + cell / 2:.1f}" cy="{y + 3}" r="1.6" fill="{INCOME}"/>')
        if position.specials >> space & 1:
            parts.append(f'<rect class="special" x="{x + cell / 2 - 2.5:.1f}" y="{y + 5}" width="5" height="5" fill="{SPECIAL}"/>')
    for player in (1 - position.on_top, position.on_top):
        space = position.times[player]
        # The token on top is drawn last, and a little higher, as it stands on the other.
        lift = 3 if position.on_top == player and position.times[0] == position.times[1] else 0
        cx = x0 + (space + 0.5) * cell
        parts.append(
            f'<circle class="token" cx="{cx:.1f}" cy="{y + TRACK_CELL + 2 - lift}" r="4" fill="{COLOURS[player]}" stroke="white" stroke-width="1"/>'
        )
    return parts


def _offer(position: Position, top: int) -> list[str]:
    y = OFFER_Y + top
    parts = [f'<text x="{GAP}" y="{y - 6}">on offer</text>']
    x = GAP
    for patch_id in position.circle[:OFFER_SIZE]:
        patch = PATCHES[patch_id]
        cells = patch.orientations[0].cells
        for row, col in cells:
            parts.append(
                f'<rect class="offered" x="{x + col * OFFER_CELL}" y="{y + row * OFFER_CELL}" width="{OFFER_CELL}" '
                f'height="{OFFER_CELL}" fill="{COVERED}" stroke="{LINE}" stroke-width="0.5"/>'
            )
        width = max(col for _, col in cells) + 1
        parts.append(
            f'<text x="{x}" y="{y + 5 * OFFER_CELL + 14}" font-size="10">patch {patch.id}: {patch.cost} buttons, '
            f"{patch.time} time, +{patch.income}</text>"
        )
        x += max(width * OFFER_CELL, 140) + 20
    if not position.circle:
        parts.append(f'<text x="{GAP}" y="{y + 12}">nothing left</text>')
    return parts
