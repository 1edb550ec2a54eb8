"""Alembic's environment, run by torneo.migraciones with the connection it opened (there is
no alembic.ini: the server configures Alembic in code, from an installed package too)."""

from __future__ import annotations

from alembic import context

from torneo.db import Base

conexion = context.config.attributes.get("connection")
if conexion is None or context.is_offline_mode():
    raise RuntimeError("las migraciones se ejecutan con torneo.migraciones.actualizar(engine)")
# batch mode: SQLite cannot ALTER a column, so Alembic copies the table (no-op on PostgreSQL)
context.configure(connection=conexion, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
