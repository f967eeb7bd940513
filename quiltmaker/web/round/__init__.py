"""One game on the server (Lichess calls it a round): the aggregate its log replays to, the rules of who may do what,
and the services that keep, show and time it.

The pure part (no database, sockets or event loop):

- :mod:`.game`: :class:`~.game.StoredGame`, a game's seats and settings and the
  position its log replays to; every event passes the rules before it applies.
- :mod:`.rules`: one function a rule (may move, the undo's count, may end,
  claim, rematch, hint, is assisted), called by the live checks and by the
  replay alike; :func:`~.rules.check` is the log's one gate.
- :mod:`.log`: the replay of a log. :mod:`.clocks`: the time controls and each
  side's time, derived from the log. :mod:`.kinds`: modes and event kinds.

Around it: :mod:`.store` keeps the logs, :mod:`.intents` words a player's
intents as events, :mod:`.views` draws a game for the page, :mod:`.timeouts`
watches the clocks, :mod:`.summaries` keeps a finished game's line and
:mod:`.finished` reads finished games back; :mod:`quiltmaker.web.games`
serves the games in memory.
"""
