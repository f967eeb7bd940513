"""Search for the tutorial's tie lesson: a way the lessons' game could have ended level, won on the tie-break.

Run once (``.venv/bin/python scripts/find_tie_lesson.py``, about a minute on
one core) to find the game of lesson 8 (:data:`quiltmaker.tutorial.TIE_SCRIPT`);
the lesson keeps what it found, and nothing runs this again.

What it looks for: a position where the learner (seat 0) is to move and a
move takes the learner's token onto the last space before the tutor's (seat
1), after which EVERY legal line of the tutor's, with every placement, ends
the game with the two scores equal, so that the learner wins on the
tie-break. Among those it prefers, in order:

1. leaving the lessons' scripted game (:data:`~quiltmaker.tutorial.SCRIPT`)
   as late as possible, so the lesson is that game gone another way;
2. a forced end: the tutor has one legal move left, an advance;
3. a real lesson: the tying move is the learner's only winning move (every
   other move loses against the tutor's best play), so "level is enough"
   is the point;
4. the 7x7 bonus already taken by the learner, so the tying move is not
   lesson 7's bonus again.

How: from each ply of the script, latest first down to
:data:`FIRST_DEPARTURE`, it walks every legal way the game can go to its
end, every placement included, depth first, each position once; at each
position with the learner to move it checks the condition above exactly,
and it judges every learner move there by a full solve of the rest of the
game (the learner wins with best play or not).

What it found (2026-12-03, run once, in about a minute on one core; 492,641
positions walked): nothing when the script is left at ply 38 (lesson 7's
start) or later; leaving it at ply 37, 108 tying moves (each placement
counted), and 300 once it may leave at ply 35. The best, now lesson 8 (ply
43): on move 38 the learner buys patch 4 (``4R1@h5``) instead of patch 3;
the tutor advances and places the last special patch (``S@g2``); the
learner buys patch 3 (``3R3@g6``), which completes a 7x7 area, and
advances; the tutor advances to space 52. The learner (29 buttons, score 4)
is to move on space 51, the tutor (25 buttons, score 15, forecast 27) is
on 52, and no patch left in the circle fits the tutor's quilt, so whatever
the learner does the tutor's one move left is an advance, to 27 points.
Every move of the learner's reaches space 53 first: advancing ends on 20
points, patch 10 on 22 (both lose), patch 13 (cost 2, time 3, income 1,
five squares; any of its seven placements) on 27: level, and the learner
wins on the tie-break.
"""

from __future__ import annotations

import sys
import time

from quiltmaker.core.components import LAST_SPACE
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position
from quiltmaker.tutorial import LEARNER, SCRIPT, TUTOR, setup

FIRST_DEPARTURE = 35  # the earliest ply of the script the walk leaves it at (each ply earlier costs several times more)


def tutor_finals(position: Position, memo: dict[Position, frozenset[int]]) -> frozenset[int]:
    """The tutor's final scores over every legal line from ``position`` (the learner's token already on the last space)."""
    if position.is_over:
        return frozenset({position.score(TUTOR)})
    if position not in memo:
        memo[position] = frozenset().union(*(tutor_finals(position.play_unchecked(move), memo) for move in position.legal_moves()))
    return memo[position]


def ties(position: Position, memo: dict[Position, frozenset[int]]) -> list[tuple[str, int, bool]]:
    """The learner's moves onto the last space, first, after which every line ties: (move, score, tutor forced) each."""
    if position.to_move != LEARNER or position.pending or position.times[TUTOR] == LAST_SPACE:
        return []
    found = []
    for move in position.legal_moves():
        after = position.play_unchecked(move)
        if after.times[LEARNER] != LAST_SPACE or after.pending:  # (no special patch is left by the end of this game)
            continue
        score = after.score(LEARNER)
        if tutor_finals(after, memo) == {score}:
            found.append((move.text(), score, len(after.legal_moves()) == 1))
    return found


class Solver:
    """Whether the learner wins from a position with best play on both sides, each position solved once."""

    def __init__(self) -> None:
        self.memo: dict[Position, bool] = {}

    def wins(self, position: Position) -> bool:
        if position.is_over:
            return position.winner == LEARNER
        if position not in self.memo:
            children = (self.wins(position.play_unchecked(move)) for move in position.legal_moves())
            self.memo[position] = any(children) if position.to_move == LEARNER else all(children)
        return self.memo[position]


def main() -> None:
    started = time.perf_counter()
    positions = [setup()]
    for move in SCRIPT:
        positions.append(positions[-1].play(move))
    finds: list[tuple[tuple[int, bool, bool, bool], list[str], str, int]] = []
    seen: set[Position] = set()
    memo: dict[Position, frozenset[int]] = {}
    solver = Solver()

    def walk(position: Position, line: list[str], departure: int) -> None:
        if position.is_over or position in seen:
            return
        seen.add(position)
        for text, score, forced in ties(position, memo):
            # Other placements of the same patch count as the same move (the learner's score does not depend on them).
            tying = Move.from_text(text)
            others = [m for m in position.legal_moves() if (m.kind, m.patch) != (tying.kind, tying.patch)]
            only = not any(solver.wins(position.play_unchecked(m)) for m in others)
            rank = (departure, forced, only, position.bonus == LEARNER)
            finds.append((rank, list(line), text, score))
        for move in position.legal_moves():
            line.append(move.text())
            walk(position.play_unchecked(move), line, departure)
            line.pop()

    for departure in range(len(SCRIPT) - 1, FIRST_DEPARTURE - 1, -1):
        walk(positions[departure], list(SCRIPT[:departure]), departure)
        print(f"left at ply {departure}: {len(finds)} finds, {len(seen)} positions, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    finds.sort(key=lambda find: find[0], reverse=True)
    for rank, line, move, score in finds[:10]:
        position = setup()
        for played in line:
            position = position.play(played)
        departure, forced, only, bonus = rank
        print(
            f"left at ply {departure}, lesson at ply {len(line)}: {' '.join(line[departure:])} | {move} ties at {score}; "
            f"times {position.times}, buttons {position.buttons}, scores {position.scores}; tutor forced {forced}, "
            f"the only winning move {only}, the learner holds the bonus {bonus}"
        )


if __name__ == "__main__":
    main()
