"""The replay's thresholds measured (docs/web.md, "The replay teaches"): the analysis' own noise, and the levels' accuracy.

Run: ``python benchmarks/judgement_noise.py`` (about four minutes on one core).
Plays 12 games between the levels (``expert`` thinks by time, so the games
differ from run to run), analyses each as the server's replay does (20,000
playouts a position), and prints as JSON:

* ``noise``: where the move played was the analysis' best, how far the mover's
  chance to win and expected margin moved all the same (which is the search's
  noise, not the move's worth): the 95th percentile, the most, and the share
  of such moves at or over the inaccuracy's points threshold;
* ``chance_per_point``: the slope of the chance to win on the expected margin
  over the positions between 20% and 80%, where the two scales can be compared;
* ``games``: each game's levels, scores, and each player's review.
"""

from __future__ import annotations

import json
from statistics import fmean

from quiltmaker.ai.analysis import analyse_game
from quiltmaker.ai.judgement import INACCURACY_POINTS, judge_every_move, review
from quiltmaker.ai.levels import LEVELS, ai_player_from_spec
from quiltmaker.ai.players import Limit, play_game
from quiltmaker.core.position import Position
from quiltmaker.web.settings import Settings

PLAYOUTS = Settings.__dataclass_fields__["analysis_iterations"].default
GAMES = (
    ("beginner", "strong"), ("strong", "casual"), ("casual", "strong"), ("strong", "beginner"),
    ("beginner", "expert"), ("expert", "beginner"), ("casual", "expert"), ("expert", "casual"),
    ("strong", "strong"), ("beginner", "casual"), ("casual", "beginner"), ("strong", "expert"),
)  # fmt: skip


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main() -> None:
    chance_noise: list[float] = []
    points_noise: list[float] = []
    pairs: list[tuple[float, float]] = []
    games = []
    for seed, levels in enumerate(GAMES, start=1):
        players = [ai_player_from_spec(LEVELS[level].spec, seed=seed + seat) for seat, level in enumerate(levels)]
        game = play_game(players, Position.initial(seed, first_player=0))
        for player in players:
            player.close()
        analysis = analyse_game(game, Limit(iterations=PLAYOUTS), seed=0)
        wins = [a.win_probability_player0 for a in analysis]
        margins = [a.expected_margin_player0 for a in analysis]
        best = [a.best_move for a in analysis]
        for ply, (mover, move) in enumerate(zip(game.movers, game.moves), start=1):
            if best[ply - 1] == move.text():
                sign = 1 if mover == 0 else -1
                chance_noise.append(sign * (wins[ply - 1] - wins[ply]))
                points_noise.append(sign * (margins[ply - 1] - margins[ply]))
        pairs += [(m, w) for w, m in zip(wins, margins) if 0.2 < w < 0.8]
        reviews = review(judge_every_move(game, wins, margins, best))
        games.append({"levels": levels, "scores": game.position.scores, "reviews": [r.__dict__ for r in reviews]})
    mean_m, mean_w = fmean(m for m, _ in pairs), fmean(w for _, w in pairs)
    slope = sum((m - mean_m) * (w - mean_w) for m, w in pairs) / sum((m - mean_m) ** 2 for m, _ in pairs)
    figures = {
        "playouts": PLAYOUTS,
        "noise": {
            "moves": len(chance_noise),
            "chance_95": round(percentile(chance_noise, 0.95), 3),
            "chance_most": round(max(chance_noise), 3),
            "points_95": round(percentile(points_noise, 0.95), 2),
            "points_most": round(max(points_noise), 2),
            "points_at_or_over_inaccuracy": round(sum(p >= INACCURACY_POINTS for p in points_noise) / len(points_noise), 3),
        },
        "chance_per_point": {"positions": len(pairs), "slope": round(slope, 4)},
        "games": games,
    }
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
