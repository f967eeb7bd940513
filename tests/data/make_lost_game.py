"""Regenerate tests/data/lost_game.json: a game the beginner lost to `max`, with the replay's analysis of it.

The issue this answers (#22): the replay of a game lost to `max` marked no
move, since once a game is lost no move changes the chance to win by much.
tests/test_judgement.py judges these stored figures and expects the moves that
lost the most points marked. `max` thinks by time, so a new run plays another
game: run this only to replace the game, and check the tests still say what
they mean::

    .venv/bin/python tests/data/make_lost_game.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from quiltmaker.ai.analysis import analyse_game
from quiltmaker.ai.levels import LEVELS, ai_player_from_spec
from quiltmaker.ai.players import Limit, play_game
from quiltmaker.core.position import Position
from quiltmaker.web.settings import Settings

PLAYOUTS = Settings.__dataclass_fields__["analysis_iterations"].default  # the server's replay analysis: as many a position

SEED = 10
LEVELS_PLAYED = ("beginner", "max")  # seat 0 first

if __name__ == "__main__":
    SEED = int(sys.argv[1]) if len(sys.argv) > 1 else SEED
    OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).with_name("lost_game.json")
    players = [ai_player_from_spec(LEVELS[level].spec, seed=SEED + seat) for seat, level in enumerate(LEVELS_PLAYED)]
    game = play_game(players, Position.initial(SEED, first_player=0))
    for player in players:
        player.close()
    analysis = analyse_game(game, Limit(iterations=PLAYOUTS), seed=0)
    data = {
        "levels": list(LEVELS_PLAYED),
        "seed": SEED,
        "playouts": PLAYOUTS,
        "scores": list(game.position.scores),
        "start": game.start.text(),
        "moves": [move.text() for move in game.moves],
        "positions": [
            {
                "win_probability_player0": round(a.win_probability_player0, 4),
                "expected_margin_player0": round(a.expected_margin_player0, 2),
                "best_move": a.best_move,
            }
            for a in analysis
        ],
    }
    path = OUT
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {path}: {LEVELS_PLAYED[0]} {data['scores'][0]}, {LEVELS_PLAYED[1]} {data['scores'][1]}, {len(game.moves)} moves"
    )
