"""The tables of the day's running: the tables' calls to the referee and the round
clock with its log. On the server's one ``Base`` (server.db), made by revision 0012; server.modelos.torneo
imports this module, so the models are known wherever server.modelos.torneo is."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from server.db import Base, ahora


class Llamada(Base):
    """A table's call to the referee (server.servicios.llamadas): made from the table's token (so bound to
    its match) at ``cuando``; attended by the member ``atendida_por`` at ``atendida``. A table
    has at most one open call (``atendida`` None) at a time."""

    __tablename__ = "llamada"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    mesa_id: Mapped[int] = mapped_column(ForeignKey("mesa.id"))
    enfrentamiento_id: Mapped[int | None] = mapped_column(ForeignKey("enfrentamiento.id"), nullable=True)
    motivo: Mapped[str | None] = mapped_column(String(200), nullable=True)
    cuando: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
    atendida: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    atendida_por: Mapped[str | None] = mapped_column(String(64), nullable=True)


class RelojRonda(Base):
    """A round's clock (server.servicios.reloj): ``fin`` the instant it ends while it runs; paused, ``fin``
        is None and ``restante`` the seconds it had left. ``regla``: who wins a match unfinished at the
    end (server.servicios.reloj.REGLAS). ``cerrada``: the round was closed on time."""

    __tablename__ = "reloj_ronda"
    ronda_id: Mapped[int] = mapped_column(ForeignKey("ronda.id"), primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    minutos: Mapped[int] = mapped_column(Integer)
    regla: Mapped[str] = mapped_column(String(16), default="juegos_tantos")  # who wins at the end
    fin: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    restante: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cerrada: Mapped[bool] = mapped_column(default=False)


class CambioReloj(Base):
    """One change of a round's clock as it was made: ``accion`` "inicio", "pausa", "reanuda",
    "prorroga" (``minutos`` more) or "cierre" (the round closed on time), by ``usuario``, why."""

    __tablename__ = "cambio_reloj"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    ronda_id: Mapped[int] = mapped_column(ForeignKey("ronda.id"))
    accion: Mapped[str] = mapped_column(String(16))
    minutos: Mapped[int | None] = mapped_column(Integer, nullable=True)
    usuario: Mapped[str] = mapped_column(String(64))
    motivo: Mapped[str] = mapped_column(Text, default="")
    cuando: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class ManoPendiente(Base):
    """A hand sent by a table of a tournament with ``confirmacion_rival`` (server.servicios.confirmacion):
    kept as sent (``cuerpo``, server.esquemas.ManoIn) until a player of the other pareja confirms
    it (then it is stored as any hand) or refuses it (an incident with both versions). A match
    has at most one."""

    __tablename__ = "mano_pendiente"
    __table_args__ = (UniqueConstraint("enfrentamiento_id", "cliente_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    enfrentamiento_id: Mapped[int] = mapped_column(ForeignKey("enfrentamiento.id"), index=True)
    cliente_id: Mapped[str] = mapped_column(String(64))
    numero: Mapped[int] = mapped_column(Integer)
    cuerpo: Mapped[dict[str, Any]] = mapped_column(JSON)
    recibida: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
