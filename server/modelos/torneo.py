"""The tournament's tables in SQLAlchemy 2: one schema for SQLite (a club's laptop) and
PostgreSQL (a federation's server).

These classes are on the server's one ``Base`` (server.db); the database gets them from the one
Alembic chain in server/migraciones, which ``server.db.motor`` runs on every start.
Every row below a tournament carries ``torneo_id`` so that each query can be scoped to one
tournament (no page or API may show another tournament's data).
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from itertools import chain
from pathlib import Path
from typing import Any, Final, Literal, get_args

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
    false,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from common.files import default_data_dir
from server.db import Base, ahora, fichero_sqlite


class Cuenta(Base):
    """A login. ``rol`` "organizador" may create tournaments; "arbitro" is an account made for
    a tournament's referee. What an account may do in a tournament is its ``Miembro`` row."""

    __tablename__ = "cuenta"
    id: Mapped[int] = mapped_column(primary_key=True)
    usuario: Mapped[str] = mapped_column(String(64), unique=True)
    clave_hash: Mapped[str] = mapped_column(String(255))
    rol: Mapped[str] = mapped_column(String(16))  # "organizador" | "arbitro"
    # cuenta <-> torneo refer to each other: the constraint is added after both tables exist
    torneo_id: Mapped[int | None] = mapped_column(
        ForeignKey("torneo.id", use_alter=True, name="fk_cuenta_torneo"), nullable=True
    )


class Miembro(Base):
    """An account's part in one tournament: "organizador" (its creator and the co-organisers:
    everything the creator may do) or "arbitro" (reads it, uploads reports, corrects results if
    the tournament allows it). An account without a row does not see the tournament."""

    __tablename__ = "miembro"
    __table_args__ = (UniqueConstraint("torneo_id", "cuenta_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    cuenta_id: Mapped[int] = mapped_column(ForeignKey("cuenta.id"), index=True)
    rol: Mapped[str] = mapped_column(String(16))  # see server.modelos.torneo.ROLES_MIEMBRO


RolMiembro = Literal["organizador", "arbitro"]
ROLES_MIEMBRO: Final = get_args(RolMiembro)


class CambioMiembro(Base):
    """One change of a tournament's members, as it was made: ``usuario`` became a member in
    ``rol`` ("alta"), changed to ``rol`` ("rol") or stopped being one ("baja"), done by the
    account ``por`` (user names: the log reads alone, in the JSON export too)."""

    __tablename__ = "cambio_miembro"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    usuario: Mapped[str] = mapped_column(String(64))
    rol: Mapped[str] = mapped_column(String(16))
    accion: Mapped[str] = mapped_column(String(8))  # "alta" | "rol" | "baja" | "invita" | "acepta" | "rechaza"
    por: Mapped[str] = mapped_column(String(64))
    cuando: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class Invitacion(Base):
    """An organiser's invitation to be a member in ``rol``: the account becomes a member only
    when it accepts. Kept by the user name as typed, with ``cuenta_id`` None when no account had
    that name (such an invitation is shown to nobody), so the organiser's view and answer are the
    same whether the name exists or not."""

    __tablename__ = "invitacion"
    __table_args__ = (UniqueConstraint("torneo_id", "usuario"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    usuario: Mapped[str] = mapped_column(String(64))
    cuenta_id: Mapped[int | None] = mapped_column(ForeignKey("cuenta.id"), nullable=True, index=True)
    rol: Mapped[str] = mapped_column(String(16))
    por: Mapped[str] = mapped_column(String(64))
    cuando: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class Sesion(Base):
    """A login token, stored as its SHA-256 (a leaked database gives no usable token)."""

    __tablename__ = "sesion"
    id: Mapped[int] = mapped_column(primary_key=True)
    huella: Mapped[str] = mapped_column(String(64), unique=True)
    cuenta_id: Mapped[int] = mapped_column(ForeignKey("cuenta.id"))
    caduca: Mapped[dt.datetime] = mapped_column(DateTime)


class Torneo(Base):
    __tablename__ = "torneo"
    id: Mapped[int] = mapped_column(primary_key=True)
    nombre: Mapped[str] = mapped_column(String(120))
    organizador_id: Mapped[int] = mapped_column(ForeignKey("cuenta.id"))
    # reglas: the scoring.rules profile (name or overrides) the matches are scored with, with
    # the match length already folded in (juegos_por_vaca, vacas_por_partida)
    reglas: Mapped[Any] = mapped_column(JSON)
    formato: Mapped[dict[str, Any]] = mapped_column(JSON)  # see torneo.formato.Formato
    creado: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
    # whether the tournament's referees may correct a result (the organiser always may)
    arbitros_corrigen: Mapped[bool] = mapped_column(default=False, server_default=false())
    # one more on every change of what the public page shows (``_versionar``): the key of its cache
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Pareja(Base):
    __tablename__ = "pareja"
    __table_args__ = (UniqueConstraint("torneo_id", "nombre"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    nombre: Mapped[str] = mapped_column(String(120))
    jugadores: Mapped[list[Any]] = mapped_column(JSON)  # two names
    semilla: Mapped[int] = mapped_column(Integer)  # seeding order, 1 = first seed
    grupo: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # withdrawn: its matches not yet paired are byes for its opponents; its results stand
    retirada: Mapped[bool] = mapped_column(default=False, server_default=false())
    # rounds already paired when it joined (0: from the start); a league with a late pareja
    # pairs its remaining rounds from the pairs not yet played (torneo.formato.ronda_pendiente)
    entra_en: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Mesa(Base):
    """A table. Its join code (typed or read from the QR code) is not stored: it is made from the
    server's key, the table's id and ``version`` (server.servicios.torneos.codigo_mesa), and only its
    SHA-256 is kept, so a copy of the database lets nobody join. ``version`` 0: a code made
    before that, which still joins but cannot be shown again."""

    __tablename__ = "mesa"
    __table_args__ = (UniqueConstraint("torneo_id", "numero"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    numero: Mapped[int] = mapped_column(Integer)
    huella: Mapped[str] = mapped_column(String(64), unique=True)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="0")


class Ronda(Base):
    __tablename__ = "ronda"
    __table_args__ = (UniqueConstraint("torneo_id", "numero"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    numero: Mapped[int] = mapped_column(Integer)
    fase: Mapped[str] = mapped_column(String(16))  # "liga" | "grupos" | "eliminatoria"
    semilla: Mapped[int | None] = mapped_column(Integer, nullable=True)  # of the draw, to replay it


class Enfrentamiento(Base):
    """A match of a round: pareja 0 sits at seats 0 and 2, pareja 1 at 1 and 3. A bye has no
    mesa and no pareja 1."""

    __tablename__ = "enfrentamiento"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    ronda_id: Mapped[int] = mapped_column(ForeignKey("ronda.id"), index=True)
    mesa_id: Mapped[int | None] = mapped_column(ForeignKey("mesa.id"), nullable=True)
    pareja0_id: Mapped[int] = mapped_column(ForeignKey("pareja.id"))
    pareja1_id: Mapped[int | None] = mapped_column(ForeignKey("pareja.id"), nullable=True)
    ganador: Mapped[int | None] = mapped_column(Integer, nullable=True)  # 0 or 1 once finished


class TokenMesa(Base):
    """What a table's tablet writes with: bound to one match, stored as its SHA-256."""

    __tablename__ = "token_mesa"
    id: Mapped[int] = mapped_column(primary_key=True)
    huella: Mapped[str] = mapped_column(String(64), unique=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"))
    enfrentamiento_id: Mapped[int] = mapped_column(ForeignKey("enfrentamiento.id"))


class Mano(Base):
    """One confirmed hand as the table sent it; ``cuerpo`` is kept to answer a resend."""

    __tablename__ = "mano"
    __table_args__ = (
        UniqueConstraint("enfrentamiento_id", "cliente_id"),
        UniqueConstraint("enfrentamiento_id", "numero"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    enfrentamiento_id: Mapped[int] = mapped_column(ForeignKey("enfrentamiento.id"), index=True)
    cliente_id: Mapped[str] = mapped_column(String(64))
    numero: Mapped[int] = mapped_column(Integer)
    huella_cuerpo: Mapped[str] = mapped_column(String(64))  # SHA-256 of the canonical body
    registro: Mapped[dict[str, Any]] = mapped_column(JSON)  # the full `mus tanteo` record
    marcador: Mapped[list[Any]] = mapped_column(JSON)  # tantos after the hand, as recomputed
    ganados: Mapped[list[Any]] = mapped_column(JSON)  # tantos each pareja scored in the hand
    juego: Mapped[int | None] = mapped_column(Integer, nullable=True)  # pareja that won a juego with it
    respuesta: Mapped[dict[str, Any]] = mapped_column(JSON)  # what was answered, to answer a resend alike
    foto: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # the tanteo the table had counted when the server's differed (the hand is stored with the server's)
    discrepancia: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    anulada: Mapped[bool] = mapped_column(default=False)  # voided by a later correction
    recibida: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class Correccion(Base):
    """A result set by the organiser (or a referee allowed to): who, when, why, the result
    before and after (``{"ganador", "juegos", "tantos"}``). The match's newest correction is
    its result; the hands stay as the table sent them."""

    __tablename__ = "correccion"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    enfrentamiento_id: Mapped[int] = mapped_column(ForeignKey("enfrentamiento.id"), index=True)
    cuenta_id: Mapped[int] = mapped_column(ForeignKey("cuenta.id"))
    usuario: Mapped[str] = mapped_column(String(64))  # as it was then, for the audit trail
    cuando: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)
    motivo: Mapped[str] = mapped_column(Text)
    antes: Mapped[dict[str, Any]] = mapped_column(JSON)
    despues: Mapped[dict[str, Any]] = mapped_column(JSON)


class Informe(Base):
    """A referee's hash-chained log, verified before it is stored."""

    __tablename__ = "informe"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    mesa_id: Mapped[int] = mapped_column(ForeignKey("mesa.id"))
    enfrentamiento_id: Mapped[int | None] = mapped_column(ForeignKey("enfrentamiento.id"), nullable=True)
    arbitro_id: Mapped[int] = mapped_column(ForeignKey("cuenta.id"))
    sello: Mapped[str] = mapped_column(String(64))
    registro: Mapped[dict[str, Any]] = mapped_column(JSON)
    recibido: Mapped[dt.datetime] = mapped_column(DateTime, default=ahora)


class Incidencia(Base):
    """One finding of a referee's report (scoring.arbitro.Hallazgo, with its article), a hand
    whose tanteo the table counted otherwise than the rules (``origen`` "tanteo", with its mano),
    or a table that tried to change a closed match (``origen`` "mesa")."""

    __tablename__ = "incidencia"
    id: Mapped[int] = mapped_column(primary_key=True)
    torneo_id: Mapped[int] = mapped_column(ForeignKey("torneo.id"), index=True)
    origen: Mapped[str] = mapped_column(String(16), default="arbitro", server_default="arbitro")  # | tanteo | mesa
    informe_id: Mapped[int | None] = mapped_column(ForeignKey("informe.id"), nullable=True)
    mano_id: Mapped[int | None] = mapped_column(ForeignKey("mano.id", name="fk_incidencia_mano"), nullable=True)
    mesa_id: Mapped[int] = mapped_column(ForeignKey("mesa.id"))
    pareja_id: Mapped[int | None] = mapped_column(ForeignKey("pareja.id"), nullable=True)
    asiento: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tipo: Mapped[str] = mapped_column(String(32))
    gravedad: Mapped[str] = mapped_column(String(32))
    articulo: Mapped[str] = mapped_column(Text)
    razon: Mapped[str] = mapped_column(Text)


class MesaRemota(Base):
    """A table of a remote tournament server played from this server's phone pages (`mus servir
    --torneo-remoto URL`): what its join gave, and which sender holds its queue now. In the
    database, not in one host's folder, so every host behind one proxy sends it."""

    __tablename__ = "mesa_remota"
    id: Mapped[int] = mapped_column(primary_key=True)
    clave: Mapped[str] = mapped_column(String(64), unique=True)  # a hash of the server and the code
    servidor: Mapped[str] = mapped_column(String(200))
    # the table's code, to join again when the token is no longer good (as the tablet keeps it)
    codigo: Mapped[str] = mapped_column(String(16))
    token: Mapped[str] = mapped_column(String(128))
    torneo: Mapped[str] = mapped_column(Text)  # the tournament's name
    partida: Mapped[dict[str, Any]] = mapped_column(JSON)  # the match as the join gave it, with "primera"
    envio_hasta: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # the sender's lease


class ManoRemota(Base):
    """One hand of a remote table's queue, written before it is sent (mesa.torneo's protocol):
    ``id_mano`` is its id on the server (a corrected hand's ``<id>:s``), ``estado`` pendiente,
    enviada or rechazada."""

    __tablename__ = "mano_remota"
    __table_args__ = (UniqueConstraint("mesa_id", "numero"), UniqueConstraint("mesa_id", "id_mano"))
    id: Mapped[int] = mapped_column(primary_key=True)
    mesa_id: Mapped[int] = mapped_column(ForeignKey("mesa_remota.id"), index=True)
    numero: Mapped[int] = mapped_column(Integer)
    id_mano: Mapped[str] = mapped_column(String(80))
    cuerpo: Mapped[dict[str, Any]] = mapped_column(JSON)  # what is sent, the same at every resend
    estado: Mapped[str] = mapped_column(String(16), default="pendiente")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)  # the server's words for a refusal
    estado_http: Mapped[int | None] = mapped_column(Integer, nullable=True)
    respuesta: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    tanteo_mesa: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)  # the table's, when corrected


class Contador(Base):
    """A rate limit's or a login wait's state, shared by every process over the database
    (server.limites): ``clase`` the limit (its name, size and window), ``clave`` what it counts
    (an address, a table, an account name), ``detalle`` a second part of the key (an account's
    known address). ``marca`` and ``caduca`` are times in seconds since the epoch; a row past
    ``caduca`` means nothing and is pruned."""

    __tablename__ = "contador"
    clase: Mapped[str] = mapped_column(String(64), primary_key=True)
    clave: Mapped[str] = mapped_column(String(128), primary_key=True)
    detalle: Mapped[str] = mapped_column(String(64), primary_key=True, default="")
    marca: Mapped[float] = mapped_column(Float)
    cuenta: Mapped[int] = mapped_column(Integer, default=0)
    caduca: Mapped[float] = mapped_column(Float, index=True)


# what the public page shows: a row of these added, changed or deleted bumps its tournament's version
_VERSIONADAS: Final = (Pareja, Ronda, Enfrentamiento, Mano, Correccion)


@event.listens_for(Session, "after_flush")
def _versionar(s: Session, _contexto: Any) -> None:
    """Bump ``torneo.version`` of every tournament whose public data this flush changed, in the
    same transaction (so a reader that sees the change sees the new version, in any process).
    After the flush's own statements: a hand's transaction locks its match, then the tournament,
    as a correction's does, so two of them never wait on each other in turn (PostgreSQL)."""
    ids = {o.torneo_id for o in chain(s.new, s.dirty, s.deleted) if isinstance(o, _VERSIONADAS)}
    ids |= {o.id for o in s.dirty if isinstance(o, Torneo)}
    ids.discard(None)
    if ids:
        s.connection().execute(
            update(Torneo).where(Torneo.id.in_(ids)).values(version=Torneo.version + 1),
            execution_options={"synchronize_session": False},
        )


ENTORNO_CLAVE: Final = "MUSMESA_TORNEO_CLAVE"  # the server key, hex, where it cannot be a file


def clave_servidor(url: str) -> bytes:
    """The key the tables' join codes are made from, kept outside the database: in
    ``$MUSMESA_TORNEO_CLAVE`` (hex), else in a file beside the SQLite database
    (``torneo.sqlite3.clave``) or, for PostgreSQL, in the data folder
    (common.files.default_data_dir: ``clave-torneo``); the file is made on first use, readable
    by its owner only."""
    if os.environ.get(ENTORNO_CLAVE):
        return bytes.fromhex(os.environ[ENTORNO_CLAVE])
    fichero = fichero_sqlite(url)
    if fichero is None and url.startswith("sqlite"):
        return _CLAVE_MEMORIA  # an in-memory database lives no longer than this process
    ruta = Path(f"{fichero}.clave") if fichero else default_data_dir() / "clave-torneo"
    if not ruta.exists():
        ruta.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(ruta, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:  # another process made it first
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
    return bytes.fromhex(ruta.read_text(encoding="ascii").strip())


_CLAVE_MEMORIA: Final = secrets.token_bytes(32)


# the day's running: calls to the referee and the round clock, in a module of their own
from server.modelos.dia import CambioReloj, Llamada, ManoPendiente, RelojRonda  # noqa: E402,F401
