"""One game on the server (Lichess calls it a round): the aggregate its log replays to, and the rules of who may do what.

- :mod:`.game`: :class:`~.game.StoredGame`, a game's seats and settings and the
  position its log replays to; every event passes the rules before it applies.
- :mod:`.rules`: one function a rule (may move, the undo's count, may end,
  claim, rematch, hint, is assisted), called by the live checks and by the
  replay alike.
- :mod:`.clocks`: the time controls and each side's time, derived from the log.

Pure: no database, sockets or event loop here; :mod:`quiltmaker.web.store`
keeps the logs and :mod:`quiltmaker.web.games` serves them.
"""
