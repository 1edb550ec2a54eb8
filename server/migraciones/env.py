"""Alembic's environment, run by server.migraciones with the connection it opened (there is
no alembic.ini: the server configures Alembic in code, from an installed package too)."""

from __future__ import annotations

from alembic import context

from server.db import Base

conexion = context.config.attributes.get("connection")
if conexion is None or context.is_offline_mode():
    raise RuntimeError("las migraciones se ejecutan con server.migraciones.actualizar(engine)")
# batch mode: SQLite cannot ALTER a column, so Alembic copies the table (no-op on PostgreSQL).
# The revisions are written by hand; Base.metadata holds the tables whose modules the caller
# imported (tests/test_torneo_migraciones.py compares it, all imported, with the chain's schema).
context.configure(connection=conexion, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
