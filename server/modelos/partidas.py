"""The phone pages' tables in SQLAlchemy 2, on the server's one ``Base`` (server.db) beside the
tournament's, in the same database (SQLite in the data folder, or PostgreSQL).

The database gets them from the one Alembic chain in server/migraciones (revision 0009), run on
every start. The stored hands are the source of truth: a
partida is rebuilt by replaying them, so nothing that matters lives in a server process.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from server.db import Base, ahora


class PartidaWeb(Base):
    """A partida played from the phones; ``clave`` is the secret of its link (/p/{clave})."""

    __tablename__ = "partidas"
    id: Mapped[int] = mapped_column(primary_key=True)
    clave: Mapped[str] = mapped_column(String(32), unique=True)
    creada: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
    # a scoring.rules profile name, or an overrides mapping (a custom TOML is parsed into one)
    reglas: Mapped[Any] = mapped_column(JSON)
    jugadores: Mapped[list[Any]] = mapped_column(JSON)  # four names, seats 0..3
    mano_inicial: Mapped[int] = mapped_column(Integer)
    idioma: Mapped[str] = mapped_column(String(8), default="es")
    terminada: Mapped[bool] = mapped_column(default=False)
    ganador: Mapped[int | None] = mapped_column(Integer, nullable=True)
    baraja: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)  # a registered deck's .npz
    torneo: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # the match it plays, if any


class ManoPartida(Base):
    """One confirmed hand. The unique pairs decide between two phones confirming at once."""

    __tablename__ = "manos_partida"
    __table_args__ = (
        UniqueConstraint("partida_id", "n", name="uq_manos_partida_n"),
        UniqueConstraint("partida_id", "id_mano", name="uq_manos_partida_id_mano"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    partida_id: Mapped[int] = mapped_column(ForeignKey("partidas.id"), index=True)
    n: Mapped[int] = mapped_column(Integer)  # 1, 2, ... with no gaps (undo deletes the last)
    id_mano: Mapped[str] = mapped_column(String(64))  # the entering phone's id: a resend answers alike
    registro: Mapped[dict[str, Any]] = mapped_column(JSON)  # `mus tanteo` hand record
    tanteo: Mapped[dict[str, Any]] = mapped_column(JSON)  # ResultadoTanteo.to_json()
    origen: Mapped[str] = mapped_column(String(16), default="manual")
    creada: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class Borrador(Base):
    """The hand being entered, saved at every step (``datos``: server.servicios.partidas.DatosBorrador)."""

    __tablename__ = "borradores"
    partida_id: Mapped[int] = mapped_column(ForeignKey("partidas.id"), primary_key=True)
    datos: Mapped[dict[str, Any]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=1)
    actualizado: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
