"""The computer on the server: its moves, hints and analyses, in worker processes, never on the event loop.

- :mod:`.service`: the computer's moves in games against it, hints and analyses, and their budgets.
- :mod:`.worker`: what a worker process runs (the search of :mod:`quiltmaker.ai`).
- :mod:`.queue`: the queue of moves waiting for a worker, fair between players.
- :mod:`.advice`: a hint's and an analysis's views.
"""
