"""Who acts in a tournament besides its creator: co-organisers (everything the creator may do)
and referees. A member is an account. The organiser creates a new account with a password (a
member at once), or invites an existing one by its user name: it becomes a member only when it
accepts (``invitacion``), and the organiser's answer is the same whether an account has that
name or not. Each change is logged (``cambio_miembro``). No HTTP here."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from server.db import ahora
from server.modelos.torneo import ROLES_MIEMBRO, CambioMiembro, Cuenta, Invitacion, Miembro, Torneo
from server.servicios import auth
from server.servicios import torneos as servicio
from server.servicios.torneos import ServicioError


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
) -> Miembro | Invitacion:
    """With ``clave``: a new account ``usuario``, a member in ``rol`` at once (an existing name
    is refused: an account keeps its own password). Without: a member changes role; any other
    name is invited (``invitar``), whether an account has it or not. ``por``: who does it, for
    the log."""
    if rol not in ROLES_MIEMBRO:
        raise ServicioError("rol desconocido {rol}", rol=repr(rol)[:40])
    usuario = auth.comprobar_usuario(usuario)
    cuenta = s.scalar(select(Cuenta).where(Cuenta.usuario == usuario))
    if clave:
        if cuenta is not None:
            raise ServicioError("ya existe el usuario {usuario}: se añade sin contraseña", 409, usuario=usuario)
        cuenta = auth.crear_cuenta(s, usuario, clave, rol)
    fila = _fila(s, torneo, cuenta)
    if fila is None and not clave:
        return invitar(s, torneo, usuario, cuenta, rol, por)
    assert cuenta is not None  # made above, or a member's
    if cuenta.id == torneo.organizador_id:
        raise ServicioError("quien creó el torneo es siempre su organizador", 409)
    if fila is None:
        fila = Miembro(torneo_id=torneo.id, cuenta_id=cuenta.id, rol=rol)
        s.add(fila)
        registrar(s, torneo, cuenta.usuario, rol, "alta", por)
    elif fila.rol != rol:
        registrar(s, torneo, cuenta.usuario, rol, "rol", por)
    fila.rol = rol
    s.flush()
    return fila


def _fila(s: Session, torneo: Torneo, cuenta: Cuenta | None) -> Miembro | None:
    if cuenta is None:
        return None
    return s.scalar(select(Miembro).where(Miembro.torneo_id == torneo.id, Miembro.cuenta_id == cuenta.id))


def invitar(
    s: Session, torneo: Torneo, usuario: str, cuenta: Cuenta | None, rol: str, por: Cuenta | None
) -> Invitacion:
    """An invitation to ``usuario`` in ``rol`` (a new one replaces the pending one). Kept by the
    name: with no account of that name it is shown to nobody, and an account made later with
    it does not get it."""
    fila = s.scalar(select(Invitacion).where(Invitacion.torneo_id == torneo.id, Invitacion.usuario == usuario))
    if fila is None:
        fila = Invitacion(torneo_id=torneo.id, usuario=usuario)
        s.add(fila)
    fila.cuenta_id, fila.rol, fila.por, fila.cuando = (
        (cuenta.id if cuenta else None),
        rol,
        por.usuario if por else "",
        ahora(),
    )
    registrar(s, torneo, usuario, rol, "invita", por)
    s.flush()
    return fila


def invitaciones(s: Session, torneo: Torneo) -> list[dict[str, Any]]:
    """The tournament's pending invitations, oldest first, by name (whether an account has it or not)."""
    q = select(Invitacion).where(Invitacion.torneo_id == torneo.id).order_by(Invitacion.id)
    return [
        {"usuario": i.usuario, "rol": i.rol, "por": i.por, "cuando": i.cuando.isoformat(timespec="seconds") + "Z"}
        for i in s.scalars(q)
    ]


def invitaciones_de(s: Session, cuenta: Cuenta) -> list[dict[str, Any]]:
    """The invitations ``cuenta`` may accept, oldest first, with their tournament's name."""
    q = (
        select(Invitacion, Torneo)
        .join(Torneo, Torneo.id == Invitacion.torneo_id)
        .where(Invitacion.cuenta_id == cuenta.id)
        .order_by(Invitacion.id)
    )
    return [
        {
            "id": i.id,
            "torneo": {"id": t.id, "nombre": t.nombre},
            "rol": i.rol,
            "por": i.por,
            "cuando": i.cuando.isoformat(timespec="seconds") + "Z",
        }
        for i, t in s.execute(q)
    ]


def _invitacion(s: Session, cuenta: Cuenta, invitacion_id: int) -> Invitacion:
    fila = s.get(Invitacion, invitacion_id) if servicio.id_valido(invitacion_id) else None
    if fila is None or fila.cuenta_id != cuenta.id:  # another account's: as if missing
        raise ServicioError("no existe esa invitación", 404)
    return fila


def aceptar(s: Session, cuenta: Cuenta, invitacion_id: int) -> Torneo:
    """``cuenta`` accepts its invitation: a member of the tournament in the invitation's role."""
    inv = _invitacion(s, cuenta, invitacion_id)
    torneo = servicio.fila(s, Torneo, inv.torneo_id)
    fila = _fila(s, torneo, cuenta)
    if fila is None:
        s.add(Miembro(torneo_id=torneo.id, cuenta_id=cuenta.id, rol=inv.rol))
    elif cuenta.id != torneo.organizador_id:
        fila.rol = inv.rol
    registrar(s, torneo, cuenta.usuario, inv.rol, "acepta", cuenta)
    s.delete(inv)
    s.flush()
    return torneo


def rechazar(s: Session, cuenta: Cuenta, invitacion_id: int) -> None:
    inv = _invitacion(s, cuenta, invitacion_id)
    registrar(s, servicio.fila(s, Torneo, inv.torneo_id), cuenta.usuario, inv.rol, "rechaza", cuenta)
    s.delete(inv)
    s.flush()


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
    being (``baja``) a member in which role, was invited (``invita``), accepted (``acepta``) or
    declined (``rechaza``) an invitation, by whom and when (UTC)."""
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
