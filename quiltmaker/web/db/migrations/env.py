"""Alembic's entry: run the migrations on the connection :mod:`quiltmaker.web.db.database` hands over, in its transaction."""

from __future__ import annotations

from typing import Any

from alembic import context

from quiltmaker.web.db.schema import Base


def run_migrations(config: Any) -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("quiltmaker's migrations run through quiltmaker.web.db.database (`quiltmaker migrate`), on its connection")
    # Batch mode: SQLite alters a table by copying it, and Alembic's batch operations do that for it.
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


try:
    _config = context.config
except (AttributeError, NameError):  # imported outside a migration run (the test runner's doctest collection): nothing to run
    _config = None  # type: ignore[assignment]
if _config is not None:
    run_migrations(_config)
