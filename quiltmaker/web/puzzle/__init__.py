"""Puzzles: positions to solve, served one at a time, rated when first answered.

- :mod:`.puzzles`: the puzzle set, a player's puzzle rating, an answer judged as news of ``game.ended``.
- :mod:`.api`: the puzzles' HTTP routes.
"""
