"""Alembic's environment for the phone pages' tables, run by web.migraciones with the
connection it opened; only these tables are ours (the tournament's have their own history)."""

from __future__ import annotations

from typing import Any

from alembic import context

from web.db import Base
from web.migraciones import TABLA_VERSION

conexion = context.config.attributes.get("connection")
if conexion is None or context.is_offline_mode():
    raise RuntimeError("las migraciones se ejecutan con web.migraciones.actualizar(engine)")


def _nuestra(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    return type_ != "table" or name in Base.metadata.tables


context.configure(
    connection=conexion,
    target_metadata=Base.metadata,
    render_as_batch=True,
    version_table=TABLA_VERSION,
    include_object=_nuestra,
)
with context.begin_transaction():
    context.run_migrations()
