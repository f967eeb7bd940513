"""Perft-style move counts from tests/data/perft.json, and distinct moves giving distinct positions.

The counts in the data file were computed by both the engine and the plain
rules of tests/plain_rules.py, and written only because they agreed (see
tests/data/make_perft.py). Here only the engine is run, so a change in move
generation, turn order, special patches or the end of the game shows up as a
changed count at some depth.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from quiltmaker import Move, Position

PERFT_FILE = Path(__file__).resolve().parent / "data" / "perft.json"
ENTRIES: list[dict[str, Any]] = json.loads(PERFT_FILE.read_text(encoding="utf-8"))["positions"]


def entry_ids() -> list[str]:
    """Names of the entries, used as test ids."""
    return [entry["name"] for entry in ENTRIES]


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_ids())
def test_stored_moves_reach_the_stored_position(entry: dict[str, Any]) -> None:
    """Replaying the recorded moves from the setup gives the stored position (so both are checked)."""
    stored = Position.from_text(entry["position"])
    assert stored.text() == entry["position"]
    setup = entry["setup"]
    if setup is None:  # hand-made
        assert entry["moves"] == []
        return
    position = Position.initial(
        setup.get("seed"), circle=setup.get("circle"), first_player=setup.get("first_player"), variant=setup["variant"]
    )
    for text in entry["moves"]:
        position = position.play(Move.from_text(text))
    assert position == stored


# The deepest counts take seconds each (measured with --durations): `make check` leaves them to `make test`.
DEEP = {"start-seed-2-original", "start-seed-3-original", "mid-original", "far-behind"}


@pytest.mark.parametrize(
    "entry", [pytest.param(e, marks=pytest.mark.slow) if e["name"] in DEEP else e for e in ENTRIES], ids=entry_ids()
)
def test_perft_counts(entry: dict[str, Any]) -> None:
    """The engine's perft at each depth matches the agreed count."""
    position = Position.from_text(entry["position"])
    assert position.perft(1) == len(position.legal_moves())
    counts = [position.perft(depth) for depth in range(1, len(entry["perft"]) + 1)]
    assert counts == entry["perft"]


def test_perft_file_covers_the_intended_situations() -> None:
    """Guard against a regenerated file silently losing its variety."""
    positions = [Position.from_text(entry["position"]) for entry in ENTRIES]
    assert len(ENTRIES) >= 12
    assert {p.variant for p in positions} == {"revised", "original"}
    assert any(p.pending for p in positions)
    assert any(p.times == (0, 0) for p in positions)
    assert any(53 in p.times for p in positions)
    assert any(abs(p.times[0] - p.times[1]) >= 6 for p in positions)
    assert any(len(entry["perft"]) >= 6 for entry in ENTRIES)


def test_distinct_moves_lead_to_distinct_positions() -> None:
    """From a few hundred positions of random games, no move is listed twice and no two moves give the same position."""
    rng = random.Random(31337)
    checked = 0
    while checked < 300:
        position = Position.initial(rng.randrange(1 << 30), variant=rng.choice(["revised", "original"]))
        while not position.is_over:
            moves = position.legal_moves()
            assert len(set(moves)) == len(moves), position.text()
            if rng.random() < 0.4 or position.pending:
                children = {position.play_unchecked(move) for move in moves}
                assert len(children) == len(moves), position.text()
                checked += 1
            buys = [m for m in moves if m.kind == "buy"]
            position = position.play_unchecked(rng.choice(buys) if buys and rng.random() < 0.7 else rng.choice(moves))
