"""The database's migrations (Alembic): a baseline for the schema every earlier version kept, and one revision a change since.

:mod:`quiltmaker.web.db.database` runs them when a server starts; ``quiltmaker
migrate`` runs or shows them by hand. A revision is frozen once released:
it spells out its tables and columns instead of importing :mod:`..schema`,
which moves on.
"""
