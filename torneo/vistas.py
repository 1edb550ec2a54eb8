"""The day's pages besides the organiser's: the public read-only page of a tournament (standings,
the round's pairings by table, live marcadores, the bracket, the champion; it refreshes itself;
a projector layout and a phone layout) with its QR code, and the organiser's print view
(pairings by table, table cards with their QR, the bracket, the standings) for A4, the
organiser's actions on the field (parejas, table codes) and its members (co-organisers and
referees), and the password change page."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from torneo import auth, inscripcion, miembros, resumen, servicio
from torneo.db import Torneo
from torneo.dependencias import CuentaActual, Miembro, OrganizadorTorneo, Permiso, Servidor, limite_entrar
from torneo.estado import Estado
from torneo.formularios import ArbitroForm, ClaveForm, MiembroForm, ParejaForm, formulario
from torneo.paginas import a_pagina, base_publica, pagina, parse_parejas
from torneo.paginas import texto as texto_de

router = APIRouter(include_in_schema=False)
REFRESCO = 15  # seconds between the public page's refreshes
# the projector layout: a block of the page holds at most FILAS rows (the rest go to the next
# block); when the blocks do not all fit the screen, each screenful shows for ROTACION seconds
FILAS = 8
FILAS_SIN_LIMITE = 10_000  # the phone layout: one table a section (a tournament has 256 parejas at most)
ROTACION = 10


def enlace_publico(request: Request, torneo_id: int, firma: str) -> str:
    return f"{base_publica(request)}/publico/{torneo_id}/{firma}"


def _vista(s: Session, t: Any) -> dict[str, Any]:
    """What the public and the print pages show: the summary, the standings, the round now
    played (or the last), and the knockout rounds."""
    data = resumen.resumen(s, t)
    data.pop("mesas")  # join codes are credentials: never on a public page
    ultima = data["rondas"][-1]["numero"] if data["rondas"] else None
    data["ronda_actual"] = [p for p in data["partidas"] if p["ronda"] == ultima]
    fases = {r["numero"]: r["fase"] for r in data["rondas"]}
    data["cuadro"] = [
        (n, [p for p in data["partidas"] if p["ronda"] == n]) for n, f in fases.items() if f == "eliminatoria"
    ]
    return data | {"clasificacion": servicio.clasificacion(s, t)["grupos"]}


@router.get("/publico/{torneo_id}/{firma}", response_class=HTMLResponse)
async def publico(torneo_id: int, firma: str, request: Request, srv: Servidor) -> Any:
    data = await srv.en_hilo(lambda s: _vista(s, servicio.torneo_publico(s, torneo_id, firma)))
    proyector = request.query_params.get("vista") == "proyector"
    return pagina(
        request,
        "publico.html",
        t=data,
        vista="proyector" if proyector else "movil",
        refresco=REFRESCO,
        rotacion=ROTACION,
        filas=FILAS if proyector else FILAS_SIN_LIMITE,
    )


@router.get("/publico/{torneo_id}/{firma}/qr.png")
async def qr_publico(torneo_id: int, firma: str, request: Request, srv: Servidor) -> Response:
    await srv.en_hilo(lambda s: servicio.torneo_publico(s, torneo_id, firma))
    return _png(enlace_publico(request, torneo_id, firma))


def _png(texto: str, escala: int = 6) -> Response:
    buf = io.BytesIO()
    segno.make(texto, error="m").save(buf, kind="png", scale=escala, border=2)
    return Response(buf.getvalue(), media_type="image/png")


@router.get("/torneos/{torneo_id}/imprimir", response_class=HTMLResponse)
async def imprimir(torneo_id: int, request: Request, srv: Servidor, permiso: Miembro) -> HTMLResponse:
    def run(s: Session) -> dict[str, Any]:
        t = servicio.torneo_de(s, torneo_id, permiso.cuenta)
        return _vista(s, t) | {"mesas": resumen.resumen(s, t)["mesas"]}

    data = await srv.en_hilo(run)
    return pagina(request, "imprimir.html", t=data, publico=enlace_publico(request, torneo_id, data["firma"]))


async def _accion(
    request: Request, srv: Estado, permiso: Permiso, fn: Callable[[Session, Torneo], object], ruta: str = ""
) -> RedirectResponse:
    """An organiser's form: done, then back to the tournament's page (or ``ruta`` under it);
    refused, an error page in the reader's language (the app's error handler)."""
    await srv.en_hilo(lambda s: fn(s, servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)))
    return a_pagina(request, f"/torneos/{permiso.torneo_id}{ruta}")


@router.post("/torneos/{torneo_id}/mesas/{numero}/codigo")
async def nuevo_codigo(numero: int, request: Request, srv: Servidor, permiso: OrganizadorTorneo) -> RedirectResponse:
    """A new join code for a table (the organiser's button): the old code and its tokens stop."""
    return await _accion(request, srv, permiso, lambda s, t: servicio.nuevo_codigo(s, t, numero))


@router.post("/torneos/{torneo_id}/parejas")
async def anadir_pareja(
    request: Request,
    srv: Servidor,
    permiso: OrganizadorTorneo,
    form: Annotated[ParejaForm, Depends(formulario(ParejaForm))],
) -> RedirectResponse:
    nuevas = parse_parejas(form.pareja)
    if len(nuevas) != 1:
        raise servicio.ServicioError("línea {linea} de parejas: escribe «Nombre: Jugador, Jugador»", linea=1)
    return await _accion(request, srv, permiso, lambda s, t: inscripcion.anadir_pareja(s, t, nuevas[0]))


@router.post("/torneos/{torneo_id}/parejas/{pareja_id}/retirada")
async def retirar_pareja(
    pareja_id: int, request: Request, srv: Servidor, permiso: OrganizadorTorneo
) -> RedirectResponse:
    return await _accion(request, srv, permiso, lambda s, t: inscripcion.retirar_pareja(s, t, pareja_id))


@router.post("/torneos/{torneo_id}/arbitros")
async def crear_arbitro(
    request: Request,
    srv: Servidor,
    permiso: OrganizadorTorneo,
    form: Annotated[ArbitroForm, Depends(formulario(ArbitroForm))],
) -> RedirectResponse:
    """A referee's account from the tournament page."""
    return await _accion(
        request,
        srv,
        permiso,
        lambda s, t: miembros.anadir_miembro(s, t, form.usuario, "arbitro", form.clave, permiso.cuenta),
    )


@router.get("/torneos/{torneo_id}/miembros", response_class=HTMLResponse)
async def miembros_get(request: Request, srv: Servidor, permiso: OrganizadorTorneo) -> HTMLResponse:
    """The tournament's organisers and referees, with the forms to add and remove them and the
    log of their changes."""

    def run(s: Session) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
        t = servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)
        data = {"id": t.id, "nombre": t.nombre, "firma": servicio.firma_publica(s, t)}
        return data, miembros.miembros(s, t), miembros.cambios(s, t)

    data, filas, cambios = await srv.en_hilo(run)
    return pagina(
        request, "miembros.html", t=data, miembros=filas, cambios=cambios, rol=permiso.rol, yo=permiso.cuenta.id
    )


@router.post("/torneos/{torneo_id}/miembros")
async def miembros_post(
    request: Request,
    srv: Servidor,
    permiso: OrganizadorTorneo,
    form: Annotated[MiembroForm, Depends(formulario(MiembroForm))],
) -> RedirectResponse:
    return await _accion(
        request,
        srv,
        permiso,
        lambda s, t: miembros.anadir_miembro(s, t, form.usuario, form.rol, form.clave or None, permiso.cuenta),
        "/miembros",
    )


@router.post("/torneos/{torneo_id}/miembros/{cuenta_id}/baja")
async def miembros_baja(
    cuenta_id: int, request: Request, srv: Servidor, permiso: OrganizadorTorneo
) -> RedirectResponse:
    return await _accion(
        request, srv, permiso, lambda s, t: miembros.quitar_miembro(s, t, cuenta_id, permiso.cuenta), "/miembros"
    )


@router.get("/cuenta", response_class=HTMLResponse)
async def cuenta_get(request: Request) -> HTMLResponse:
    return pagina(request, "cuenta.html", error=None, hecho=False)


@router.post("/cuenta", response_class=HTMLResponse, dependencies=[Depends(limite_entrar)])
async def cuenta_post(
    request: Request,
    srv: Servidor,
    cuenta: CuentaActual,
    form: Annotated[ClaveForm, Depends(formulario(ClaveForm))],
) -> HTMLResponse:
    """The password change page: the current password, the new one twice."""
    token = auth.token_de(request) or ""

    def run(s: Session) -> None:
        if form.nueva != form.repetida:
            raise servicio.ServicioError("las dos contraseñas nuevas no coinciden")
        auth.cambiar_clave(s, cuenta.id, form.actual, form.nueva, token)

    try:
        await srv.en_hilo(run)
    except servicio.ServicioError as exc:
        return pagina(request, "cuenta.html", exc.estado, error=texto_de(exc, request), hecho=False)
    return pagina(request, "cuenta.html", error=None, hecho=True)
