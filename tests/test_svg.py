"""Positions and games draw themselves as SVG (Jupyter's _repr_svg_), from the position alone."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from quiltmaker import Position
from quiltmaker.bench import sample_positions
from quiltmaker.core.components import PATCHES
from quiltmaker.core.game import Game

SVG = "{http://www.w3.org/2000/svg}"


def _classes(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def test_a_drawing_shows_what_the_position_holds() -> None:
    for position in sample_positions(200, seed=8)[::20]:
        root = ET.fromstring(position._repr_svg_())  # well-formed XML
        assert root.tag == f"{SVG}svg"
        squares = _classes(root, "square")
        assert len(squares) == 2 * 81
        covered = sum(q.bit_count() for q in position.quilts)
        assert len(_classes(root, "covered")) == covered
        assert len(_classes(root, "special")) == position.specials.bit_count()
        assert len(_classes(root, "token")) == 2
        offered = sum(PATCHES[p].size for p in position.circle[:3])
        assert len(_classes(root, "offered")) == offered
        text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
        for player in (0, 1):
            assert f"score {position.score(player)}" in text and f"{position.buttons[player]} buttons" in text
        assert f"player {position.to_move} to move" in text


def test_a_game_draws_its_position_with_the_players_names_escaped() -> None:
    game = Game(Position.initial(3), ["Ada <&> \"Bo\"", "greedy"])
    game.play(game.legal_moves()[0])
    root = ET.fromstring(game._repr_svg_())
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "after 1 move" in text and "Ada <&> \"Bo\"" in text and "greedy" in text
