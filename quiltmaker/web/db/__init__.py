"""The server's database: one connection every part shares, the tables, and the commits that group moves.

- :mod:`.database`: the engine, the migrations run at start-up, sessions and bare connections to read and write.
- :mod:`.schema`: every table (each written by the part that owns it: ``tests/web/test_web_setup.py`` holds which).
- :mod:`.commits`: the moves and chat lines that come at once, committed together.
- :mod:`.migrations`: Alembic's revisions of the schema, each tested.
"""
