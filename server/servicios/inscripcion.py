"""The organiser's changes to the field: add a pareja (any format before the first round, a
league later too), withdraw one before its next match (its opponents then get byes; its results stand). No HTTP here."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from server.modelos.torneo import Enfrentamiento, Pareja, Torneo
from server.servicios import torneos as servicio
from server.servicios.torneos import NuevaPareja, ServicioError
from torneo import formato as fm


def anadir_pareja(s: Session, torneo: Torneo, nueva: NuevaPareja) -> Pareja:
    """A pareja more. Before the first round, any format (groups are drawn again). After it,
    a league only (it plays everyone in the rounds to come: docs/torneo.md); groups and the
    knockout refuse it, as the groups' round robins are already under way."""
    formato = fm.Formato.from_dict(torneo.formato)
    rondas = servicio.rondas_de(s, torneo)
    if rondas and formato.tipo == "grupos":
        if any(r.fase == "eliminatoria" for r in rondas):
            raise ServicioError("la eliminatoria ya empezó: no se añaden parejas", 409)
        raise ServicioError(
            "los grupos ya empezaron: en un torneo por grupos una pareja solo se añade antes de la primera ronda", 409
        )
    if rondas and servicio.estado_torneo(s, torneo)["terminado"]:
        raise ServicioError("el torneo ha terminado: no se añaden parejas", 409)
    parejas = servicio.parejas_de(s, torneo)
    if len(parejas) >= fm.MAX_PAREJAS:
        raise ServicioError("un torneo necesita de 2 a {maximo} parejas", maximo=fm.MAX_PAREJAS)
    (limpia,) = servicio.limpiar_parejas([nueva])
    if any(p.nombre.casefold() == limpia.nombre.casefold() for p in parejas):
        raise ServicioError("dos parejas tienen el mismo nombre")
    semilla = (s.scalar(select(func.max(Pareja.semilla)).where(Pareja.torneo_id == torneo.id)) or 0) + 1
    fila = Pareja(
        torneo_id=torneo.id,
        nombre=limpia.nombre,
        jugadores=list(limpia.jugadores),
        semilla=semilla,
        entra_en=len(rondas),
    )
    s.add(fila)
    s.flush()
    if formato.tipo == "grupos":  # the groups are drawn again with it, as at creation
        todas = [*parejas, fila]
        por_id = {p.id: p for p in todas}
        for g, miembros in enumerate(
            fm.repartir_grupos(fm.orden([p.id for p in todas], formato), formato.grupos), start=1
        ):
            for pid in miembros:
                por_id[pid].grupo = g
    return fila


def retirar_pareja(s: Session, torneo: Torneo, pareja_id: int) -> Pareja:
    pareja = s.get(Pareja, pareja_id) if servicio.id_valido(pareja_id) else None
    if pareja is None or pareja.torneo_id != torneo.id:
        raise ServicioError("no existe esa pareja", 404)
    en_juego = s.scalar(
        select(Enfrentamiento).where(
            Enfrentamiento.torneo_id == torneo.id,
            Enfrentamiento.ganador.is_(None),
            (Enfrentamiento.pareja0_id == pareja.id) | (Enfrentamiento.pareja1_id == pareja.id),
        )
    )
    if en_juego is not None:
        raise ServicioError("esa pareja tiene una partida sin terminar: corrígela antes (incomparecencia)", 409)
    pareja.retirada = True
    return pareja
