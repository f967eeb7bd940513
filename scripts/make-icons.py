"""Draw the app's icons (quiltmaker/web/static/icons): a quilt of nine patches, as PNG for the manifest and the
home screen, and as SVG for the browser's tab. Run after changing the design; the icons are kept in the repository.

    .venv/bin/python scripts/make-icons.py
"""

from __future__ import annotations


from PIL import Image, ImageDraw

from quiltmaker.web.pages import STATIC, THEME_COLOUR

ICONS = STATIC / "icons"
BACKGROUND = THEME_COLOUR  # (the manifest's theme_color too)
TURN_DOT = "#d55e00"  # the page's colour for "your turn"
# The patches, row by row: the page's own patch colours.
PATCHES = ["#8fd3d1", "#e58fb2", "#f2cf6b", "#a98fd9", "#f6efe2", "#8fd3d1", "#f2cf6b", "#e58fb2", "#9cc98a"]


def squares(size: int, inset: float) -> list[tuple[float, float, float, float, str]]:
    """The nine patches' boxes inside a square of ``size``, ``inset`` of it left free on each side."""
    start, cell, gap = size * inset, size * (1 - 2 * inset) / 3, size * 0.02
    return [
        (start + col * cell + gap, start + row * cell + gap, start + (col + 1) * cell - gap, start + (row + 1) * cell - gap, PATCHES[row * 3 + col])
        for row in range(3)
        for col in range(3)
    ]


def png(size: int, maskable: bool) -> Image.Image:
    """A maskable icon fills the whole square and keeps its quilt inside the middle 80% (the safe zone a
    launcher's mask never cuts); the plain one is a rounded square."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if maskable:
        draw.rectangle((0, 0, size, size), fill=BACKGROUND)
    else:
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=size * 0.18, fill=BACKGROUND)
    for left, top, right, bottom, colour in squares(size, 0.22 if maskable else 0.14):
        draw.rounded_rectangle((left, top, right, bottom), radius=size * 0.025, fill=colour)
    return image


def svg(turn: bool = False) -> str:
    """The tab's icon; ``turn``: with the dot a game's tab shows while it is this browser's turn (static/attention.js)."""
    boxes = "".join(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" height="{bottom - top:.1f}" rx="2.4" fill="{colour}"/>'
        for left, top, right, bottom, colour in squares(96, 0.14)
    )
    dot = f'<circle cx="76" cy="20" r="20" fill="{TURN_DOT}" stroke="#ffffff" stroke-width="4"/>' if turn else ""
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="17" fill="{BACKGROUND}"/>{boxes}{dot}</svg>\n'


if __name__ == "__main__":
    ICONS.mkdir(parents=True, exist_ok=True)
    png(192, False).save(ICONS / "icon-192.png", optimize=True)
    png(512, False).save(ICONS / "icon-512.png", optimize=True)
    png(512, True).save(ICONS / "maskable-512.png", optimize=True)
    png(180, True).convert("RGB").save(ICONS / "apple-touch-icon.png", optimize=True)  # (iOS rounds it itself)
    (ICONS / "icon.svg").write_text(svg(), encoding="utf-8")
    (ICONS / "icon-turn.svg").write_text(svg(turn=True), encoding="utf-8")
    print(f"wrote the icons in {ICONS}")
