"""Who acts in a tournament besides its creator: co-organisers (everything the creator may do)
and referees. A member is an account; the organiser adds an existing account by its user name,
or creates it with a password. Each change is logged (``cambio_miembro``). No HTTP here."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from torneo import auth, servicio
from torneo.db import ROLES_MIEMBRO, CambioMiembro, Cuenta, Miembro, Torneo
from torneo.servicio import ServicioError


def miembros(s: Session, torneo: Torneo) -> list[dict[str, Any]]:
    """The tournament's organisers then referees, each with its account id and user name."""
    q = (
        select(Miembro, Cuenta)
        .join(Cuenta, Cuenta.id == Miembro.cuenta_id)
        .where(Miembro.torneo_id == torneo.id)
        .order_by(Miembro.rol.desc(), Cuenta.usuario)  # "organizador" sorts after "arbitro"
    )
    return [
        {"cuenta": c.id, "usuario": c.usuario, "rol": m.rol, "creador": c.id == torneo.organizador_id}
        for m, c in s.execute(q)
    ]


def anadir_miembro(
    s: Session, torneo: Torneo, usuario: str, rol: str, clave: str | None = None, por: Cuenta | None = None
) -> Miembro:
    """Add the account ``usuario`` in ``rol``; with ``clave``, the account is created first (a
    new one only: an existing account keeps its own password). An existing member changes role.
    ``por``: who does it, for the log."""
    if rol not in ROLES_MIEMBRO:
        raise ServicioError("rol desconocido {rol}", rol=repr(rol)[:40])
    usuario = auth.comprobar_usuario(usuario)
    cuenta = s.scalar(select(Cuenta).where(Cuenta.usuario == usuario))
    if cuenta is None:
        if not clave:
            raise ServicioError(
                "no existe el usuario {usuario}: escribe una contraseña para crearlo", 404, usuario=usuario
            )
        cuenta = auth.crear_cuenta(s, usuario, clave, rol)
    elif clave:
        raise ServicioError("ya existe el usuario {usuario}: se añade sin contraseña", 409, usuario=usuario)
    if cuenta.id == torneo.organizador_id:
        raise ServicioError("quien creó el torneo es siempre su organizador", 409)
    fila = s.scalar(select(Miembro).where(Miembro.torneo_id == torneo.id, Miembro.cuenta_id == cuenta.id))
    if fila is None:
        fila = Miembro(torneo_id=torneo.id, cuenta_id=cuenta.id, rol=rol)
        s.add(fila)
        registrar(s, torneo, cuenta.usuario, rol, "alta", por)
    elif fila.rol != rol:
        registrar(s, torneo, cuenta.usuario, rol, "rol", por)
    fila.rol = rol
    s.flush()
    return fila


def quitar_miembro(s: Session, torneo: Torneo, cuenta_id: int, por: Cuenta | None = None) -> None:
    """Remove a co-organiser or referee: from now on the account does not see the tournament."""
    if cuenta_id == torneo.organizador_id:
        raise ServicioError("quien creó el torneo es siempre su organizador", 409)
    fila = (
        s.scalar(select(Miembro).where(Miembro.torneo_id == torneo.id, Miembro.cuenta_id == cuenta_id))
        if servicio.id_valido(cuenta_id)
        else None
    )
    if fila is None:
        raise ServicioError("esa cuenta no es de este torneo", 404)
    cuenta = s.get(Cuenta, cuenta_id)
    registrar(s, torneo, cuenta.usuario if cuenta else str(cuenta_id), fila.rol, "baja", por)
    s.delete(fila)
    s.flush()


def registrar(s: Session, torneo: Torneo, usuario: str, rol: str, accion: str, por: Cuenta | None) -> None:
    """One line of the members' log (``por`` None: done from the command line or the server)."""
    s.add(CambioMiembro(torneo_id=torneo.id, usuario=usuario, rol=rol, accion=accion, por=por.usuario if por else ""))


def cambios(s: Session, torneo: Torneo) -> list[dict[str, Any]]:
    """The members' log, oldest first: who became (``alta``), changed to (``rol``) or stopped
    being (``baja``) a member in which role, by whom and when (UTC)."""
    q = select(CambioMiembro).where(CambioMiembro.torneo_id == torneo.id).order_by(CambioMiembro.id)
    return [
        {
            "usuario": c.usuario,
            "rol": c.rol,
            "accion": c.accion,
            "por": c.por,
            "cuando": c.cuando.isoformat(timespec="seconds") + "Z",
        }
        for c in s.scalars(q)
    ]


def torneos_de(s: Session, cuenta: Cuenta) -> list[Torneo]:
    """The tournaments ``cuenta`` is a member of, oldest first."""
    q = select(Torneo).join(Miembro, Miembro.torneo_id == Torneo.id).where(Miembro.cuenta_id == cuenta.id)
    return list(s.scalars(q.order_by(Torneo.id)))
