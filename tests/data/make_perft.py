"""Regenerate tests/data/perft.json: move counts on which two implementations agree.

Each entry is a position reached from a setup by a recorded list of moves
(seeded random play, favouring purchases so that quilts fill up), or written
by hand as position text. For each, the number of move sequences of depth
1..N is counted twice: by the engine (:meth:`Position.perft`) and by the plain
implementation in tests/plain_rules.py, which reaches the same positions by
replaying the same moves from its own setup. The file is written only when the
two agree on every count (and on the root position and its legal moves).

Run from the repository root (a few minutes, most of it the plain rules)::

    .venv/bin/python tests/data/make_perft.py

Conventions shared by both counts: a sequence ends early when the game ends
(an ended game is one leaf), and placing a special patch is a move of its own.
"""

from __future__ import annotations

import copy
import json
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests/plain_rules.py

from plain_adapter import plain_move, plain_snapshot  # noqa: E402
from plain_rules import PlainGame  # noqa: E402

from quiltmaker import Move, Position  # noqa: E402
from quiltmaker.core.moves import BUY  # noqa: E402

OUTPUT = Path(__file__).resolve().parent / "perft.json"
# The plain rules read the component data file itself (the package's copy of the shared data,
# held equal to it by tests/test_package.py), not the engine's tables built from it.
COMPONENTS = Path(__file__).resolve().parents[2] / "quiltmaker" / "data" / "patchwork-components.json"
# Stop deepening an entry once the engine's next count would take about this long.
ENGINE_BUDGET_S = 2.0
MAX_DEPTH = 8

PLAIN_CIRCLE = [*range(1, 33), 0]


def full_except(*squares: str) -> str:
    """Quilt text with every square covered except the named ones (e.g. ``"a1"``)."""
    empty = {(int(s[1]) - 1, "abcdefghi".index(s[0])) for s in squares}
    return "/".join("".join("1" if (r, c) in empty else "x" for c in range(9)) for r in range(9))


def first_rows(count: int) -> str:
    """Quilt text with the top ``count`` rows covered and the rest empty."""
    return "/".join(["xxxxxxxxx"] * count + ["9"] * (9 - count))


# name -> (what it exercises, setup or None, how far to play: plies or a stop test, hand-made text or None).
Stop = Callable[[Position], bool]
SPECS: list[tuple[str, str, dict[str, Any] | None, int | Stop | None, str | None]] = [
    ("start-seed-1", "start of a seeded game, revised track", {"seed": 1, "variant": "revised"}, 0, None),
    (
        "start-seed-2-original",
        "start of a seeded game, original printing: no patch affordable, three forced advances",
        {"seed": 2, "variant": "original"},
        0,
        None,
    ),
    ("start-seed-3-original", "start of a seeded game, original printing", {"seed": 3, "variant": "original"}, 0, None),
    (
        "start-plain-circle",
        "patches 1, 2, 3 offered, player 1 first",
        {"circle": PLAIN_CIRCLE, "first_player": 1, "variant": "revised"},
        0,
        None,
    ),
    ("mid-revised", "after 24 random moves", {"seed": 3, "variant": "revised"}, 24, None),
    ("mid-original", "after 30 random moves, original printing", {"seed": 4, "variant": "original"}, 30, None),
    (
        "pending-special",
        "a special patch just earned, to be placed first",
        {"seed": 5, "variant": "revised"},
        lambda p: p.pending > 0,
        None,
    ),
    (
        "pending-special-original",
        "a special patch pending on the original track, later in the game",
        {"seed": 6, "variant": "original"},
        lambda p: p.pending > 0 and min(p.times) >= 30,
        None,
    ),
    (
        "far-behind",
        "one player 6 spaces behind (the most one move allows): several moves in a row",
        {"seed": 28, "variant": "revised"},
        lambda p: not p.pending and abs(p.times[0] - p.times[1]) >= 6,
        None,
    ),
    (
        "late-game",
        "both tokens past 44",
        {"seed": 8, "variant": "revised"},
        lambda p: not p.pending and min(p.times) >= 45,
        None,
    ),
    (
        "one-on-53",
        "hand-made: player 0 on 53, player 1 on 47 moves until it gets there too (last income on 53)",
        None,
        None,
        f"original 5,12,20,7,0 53,12,5,{first_rows(4)} 47,6,2,{first_rows(5)} 0 - - 0",
    ),
    (
        "near-full-quilts",
        "hand-made: few empty squares, two patches left, a special ahead",
        None,
        None,
        f"revised 0,31 40,9,6,{full_except('a1', 'b1', 'c1', 'a2', 'e5', 'i9')} "
        f"43,4,4,{full_except('a1', 'b1', 'h8', 'i8', 'h9', 'i9', 'e1')} 1 44,50 1 0",
    ),
    (
        "bonus-race",
        "hand-made: player 0 one square short of a 7x7 area with a special to place, player 1 two squares short",
        None,
        None,
        "revised 0,3,1,9,2 38,6,2,xxxxxxx2/xxxxxxx2/xxxxxxx2/xxxxxxx2/xxxxxxx2/xxxxxxx2/xxxxxx3/9/9 "
        "37,8,3,9/9/2xxxxxxx/2xxxxxxx/2xxxxxxx/2xxxxxxx/2xxxxxxx/2xxxxxxx/2xxxxx2 0 44,50 - 1",
    ),
]


def engine_start(setup: dict[str, Any]) -> Position:
    """The engine's starting position for a setup entry."""
    return Position.initial(setup.get("seed"), circle=setup.get("circle"), first_player=setup.get("first_player"), variant=setup["variant"])


def plain_from_setup(setup: dict[str, Any], circle: list[int], first_player: int) -> PlainGame:
    """A new plain game with the setup's track, from the shared component data."""
    data = json.loads(COMPONENTS.read_text(encoding="utf-8"))
    key = {"revised": "revised", "original": "original_printing"}[setup["variant"]]
    return PlainGame(circle, first_player, data["time_track_variants"][key]["special_patch_spaces"], data["patches"])


def plain_from_position(position: Position) -> PlainGame:
    """A plain game holding exactly the state of a hand-made engine position.

    Only for entries that no move list reaches; the fields map one to one.
    """
    data = json.loads(COMPONENTS.read_text(encoding="utf-8"))
    key = {"revised": "revised", "original": "original_printing"}[position.variant]
    game = PlainGame(PLAIN_CIRCLE, 0, data["time_track_variants"][key]["special_patch_spaces"], data["patches"])
    game.circle = list(position.circle)
    game.specials = [s for s in range(54) if position.specials >> s & 1]
    game.positions = list(position.times)
    game.buttons = list(position.buttons)
    game.income = list(position.income)
    game.quilts = [[[bool(q >> (r * 9 + c) & 1) for c in range(9)] for r in range(9)] for q in position.quilts]
    game.bonus = None if position.bonus < 0 else position.bonus
    game.pending_specials = position.pending
    game.last_mover = position.on_top
    return game


def clone(game: PlainGame) -> PlainGame:
    """A copy of a plain game that shares only the read-only patch table (deepcopy is far slower)."""
    new = copy.copy(game)
    new.circle = list(game.circle)
    new.specials = list(game.specials)
    new.positions = list(game.positions)
    new.buttons = list(game.buttons)
    new.income = list(game.income)
    new.quilts = [[row[:] for row in quilt] for quilt in game.quilts]
    return new


def plain_perft(game: PlainGame, depth: int) -> int:
    """Count move sequences of ``depth`` moves with the plain rules (an ended game is one leaf)."""
    if depth == 0 or game.is_over():
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = clone(game)
        child.play(move)
        total += plain_perft(child, depth - 1)
    return total


def reach(setup: dict[str, Any], until: int | Stop) -> tuple[Position, list[Move]]:
    """Play seeded random moves from a setup for a number of plies or until a test holds."""
    rng = random.Random(json.dumps(setup, sort_keys=True))
    position = engine_start(setup)
    moves: list[Move] = []
    while not (len(moves) == until if isinstance(until, int) else until(position)):
        legal = position.legal_moves()
        if not legal:
            raise SystemExit(f"game over before reaching the stop of {setup}")
        buys = [m for m in legal if m.kind == BUY]
        move = rng.choice(buys) if buys and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        position = position.play(move)
    return position, moves


def engine_counts(position: Position) -> list[int]:
    """Engine perft counts for depth 1, 2, ... while the next one stays within the time budget."""
    counts: list[int] = []
    for depth in range(1, MAX_DEPTH + 1):
        started = time.perf_counter()
        counts.append(position.perft(depth))
        elapsed = time.perf_counter() - started
        # The next depth costs about (branching factor) times this one.
        branching = counts[-1] / counts[-2] if depth > 1 else counts[-1]
        if elapsed * max(branching, 1.0) > ENGINE_BUDGET_S:
            break
    return counts


def plain_counts(entry: dict[str, Any]) -> list[int]:
    """Plain perft counts of one entry, reaching its position by its own replay."""
    position = Position.from_text(entry["position"])
    if entry["setup"] is None:
        game = plain_from_position(position)
    else:
        start = engine_start(entry["setup"])
        game = plain_from_setup(entry["setup"], list(start.circle), start.on_top)
        for text in entry["moves"]:
            game.play(plain_move(Move.from_text(text)))
    if game.plain_snapshot() != plain_snapshot(position):
        raise SystemExit(f"{entry['name']}: the plain rules reach a different position")
    if game.legal_moves() != {plain_move(m) for m in position.legal_moves()}:
        raise SystemExit(f"{entry['name']}: the plain rules list different legal moves")
    return [plain_perft(game, depth) for depth in range(1, len(entry["perft"]) + 1)]


def main() -> None:
    """Build every entry, count with both implementations and write the file only if they agree."""
    entries: list[dict[str, Any]] = []
    moves: list[Move]
    for name, about, setup, until, text in SPECS:
        if setup is None:
            assert text is not None
            position, moves = Position.from_text(text), []
        else:
            assert until is not None
            position, moves = reach(setup, until)
        started = time.perf_counter()
        counts = engine_counts(position)
        print(f"{name}: engine {counts} in {time.perf_counter() - started:.2f}s", flush=True)
        entries.append(
            {
                "name": name,
                "about": about,
                "setup": setup,
                "moves": [m.text() for m in moves],
                "position": position.text(),
                "perft": counts,
            }
        )
    with ProcessPoolExecutor() as pool:
        for entry, counts in zip(entries, pool.map(plain_counts, entries)):
            agree = counts == entry["perft"]
            print(f"{entry['name']}: plain {counts} {'agrees' if agree else 'DISAGREES'}", flush=True)
            if not agree:
                raise SystemExit(f"{entry['name']}: engine {entry['perft']} != plain {counts}; file not written")
    document = {
        "about": "Perft counts (move sequences of depth 1..N; an ended game is one leaf) agreed by the "
        "engine and tests/plain_rules.py. Regenerate with tests/data/make_perft.py.",
        "positions": entries,
    }
    OUTPUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
