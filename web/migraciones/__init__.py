"""The phone pages' Alembic migrations, run by the server on every start, after the
tournament's: the same transaction rules (torneo.migraciones), their own version table
``alembic_version_web`` so the two histories never mix."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from alembic import command
from sqlalchemy.engine import Engine

from torneo import migraciones as migraciones_torneo
from torneo.migraciones import revision_de, transaccion

CARPETA: Final = Path(__file__).resolve().parent
TABLA_VERSION: Final = "alembic_version_web"


def ultima() -> str:
    return migraciones_torneo.ultima(CARPETA)


def actualizar(engine: Engine, destino: str = "head") -> None:
    """Upgrade the phone pages' tables of ``engine``'s database to ``destino``."""
    with transaccion(engine) as conn:
        cfg = migraciones_torneo.configuracion(conn, CARPETA)
        actual = revision_de(conn, TABLA_VERSION)
        if actual is not None:
            migraciones_torneo.conocida(cfg, actual, "de las partidas", CARPETA)
        command.upgrade(cfg, destino)
