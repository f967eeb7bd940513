"""Ratings: Glicko-2 by clock family, settled when a rated game ends, and what keeps them fair.

- :mod:`.ratings`: the rating rows, a game's rating change, settled as news of ``game.ended``.
- :mod:`.glicko2`: the rating system's arithmetic.
- :mod:`.fairness`: the addresses each account was seen from, which rated games between one person's accounts need.
"""
