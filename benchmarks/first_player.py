"""The first player's advantage and the mean scores, from the records of a match.

Run: ``python benchmarks/first_player.py RECORDS_DIR`` on the records of a
self-play match (``python benchmarks/strength.py 200 OUT expert/expert``).
Prints, as JSON, the first player's winning share with its 95% Wilson
interval, the mean final score of the first and of the second player, and
the mean margin (first minus second), each with a 95% normal interval.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from quiltmaker.match import mean_interval, wilson_interval


def first_player_figures(records: list[dict]) -> dict:
    finished = [r for r in records if r.get("result")]
    first_wins = sum(1 for r in finished if r["result"]["winner"] == r["first_player"])
    first = [r["result"]["scores"][r["first_player"]] for r in finished]
    second = [r["result"]["scores"][1 - r["first_player"]] for r in finished]
    margins = [a - b for a, b in zip(first, second)]
    ties = sum(1 for m in margins if m == 0)
    low, high = wilson_interval(first_wins, len(finished))
    figures = {"games": len(finished), "first_player_wins": first_wins, "first_player_share": first_wins / len(finished),
               "first_player_share_95": [low, high], "tied_scores": ties}
    for name, values in (("first_player_score", first), ("second_player_score", second), ("margin", margins)):
        mean, half = mean_interval(values)
        figures[f"mean_{name}"] = round(mean, 2)
        figures[f"mean_{name}_95_half_width"] = round(half, 2)
    return figures


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    games = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("game-*.json"))]
    print(json.dumps(first_player_figures(games), indent=2))
