"""The 500 games of an independent engine replay move by move to the same result."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from helpers import load_test_data

from quiltmaker.core import record
from quiltmaker.core.moves import Move


@functools.cache
def reference_games() -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = load_test_data("reference-games.json")
    return games


@pytest.mark.parametrize("index", range(500))
def test_reference_game_replays(index: int) -> None:
    """Every move is legal for the recorded player and the scores and winner agree."""
    games = reference_games()
    original = games[index]
    game = record.from_json(original)  # checks players, legality and the result
    assert game.position.is_over
    assert list(game.position.scores) == original["result"]["scores"]
    assert game.position.winner == original["result"]["winner"]
    # Writing the game back gives the same moves, cells in the same order.
    assert record.to_json(game)["moves"] == original["moves"]


def test_reference_games_cover_the_edge_cases() -> None:
    """The replays exercise the bonus, the tie-break and many special placements."""
    games = [record.from_json(g) for g in reference_games()]
    assert sum(g.position.bonus != -1 for g in games) == 9
    assert sum(g.position.decided_by_tiebreak for g in games) == 12
    assert sum(m == Move.special(m.cells[0]) for g in games for m in g.moves if m.kind == "special") == 2500
