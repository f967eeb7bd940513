"""Play in the browser: a FastAPI server over a database of game logs (see docs/web.md).

Needs the ``web`` extra (FastAPI, uvicorn, SQLAlchemy); the rules core does not.
"""
