"""The organiser's pages: server-rendered HTML (Jinja2), no JavaScript needed.

The login sets an HttpOnly, SameSite=Strict cookie holding the login token; every form carries
its page's token (``{{ csrf() }}``) and every change made with the cookie must come from this
server's own pages (server.seguridad), so a form on another site cannot post with it. Each page
reads only a tournament the account is a member of (its organisers and referees:
server.modelos.torneo.Miembro), checked by the API's dependencies (server.deps); a page's form is
read as a pydantic model (server.formularios). A page asked without a valid login sends the
browser to the login page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import segno
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.orm import Session

from mesa.i18n import t
from scoring.protocolo import enlace_mesa
from server.deps import (
    CuentaActual,
    Miembro,
    Organizador,
    OrganizadorTorneo,
    Permiso,
    Servidor,
    lang,
    limite_entrar,
)
from server.errores import ServidorError
from server.formularios import CorreccionForm, EntrarForm, TorneoForm, formulario
from server.modelos.torneo import Ronda, Torneo
from server.seguridad import campo_csrf
from server.servicios import auth, correcciones, llamadas, miembros, reloj, resumen
from server.servicios import torneos as servicio
from torneo import formato as fm

PLANTILLAS = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent.parent / "plantillas" / "torneo"),
    autoescape=select_autoescape(["html"]),
)
PERFILES = fm.PERFILES


def base_publica(request: Request) -> str:
    """This server's address as a phone can open it: a loopback one (the organiser's browser on
    the server's own machine) is replaced by the LAN address `mus servir` found at its start."""
    base = str(request.base_url).rstrip("/")
    lan = getattr(request.app.state, "direccion_lan", None)
    host = urlsplit(base).hostname or ""
    if lan and (host in ("localhost", "::1") or host.startswith("127.")):
        return str(lan).rstrip("/")
    return base


def texto(exc: ServidorError, request: Request) -> str:
    """An error's line in the page's language."""
    return exc.linea(lang(request))


def renderizar(nombre: str, idioma: str, csrf: Callable[[], Any] = lambda: "", **ctx: Any) -> str:
    """The template ``nombre`` in ``idioma`` (what depends on the request is in ``ctx``; a page
    rendered once for everyone, as the public one, has no form and so no ``csrf`` field). Its
    words are msgids of mesa.i18n's catalogues: ``{{ _("...") }}``."""
    return PLANTILLAS.get_template(nombre).render(_=lambda texto: t(texto, idioma), lang=idioma, csrf=csrf, **ctx)


def pagina(request: Request, nombre: str, estado: int = 200, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(renderizar(nombre, lang(request), csrf=lambda: campo_csrf(request), **ctx), status_code=estado)


def pagina_error(request: Request, texto: str, estado: int) -> HTMLResponse:
    """An error as a page (never JSON or a traceback in a browser), with a link back to the
    tournament's page when the request was about one."""
    dentro = re.match(r"^/torneos/(\d{1,10})(/|$)", request.url.path)
    return pagina(
        request, "error.html", estado, error=texto, volver=f"/torneos/{dentro[1]}" if dentro and estado != 404 else None
    )


def parse_parejas(texto: str) -> list[servicio.NuevaPareja]:
    """'Nombre: Jugador, Jugador' per line -> parejas; ServicioError naming the bad line."""
    out = []
    for n, line in enumerate(texto.splitlines(), start=1):
        if not line.strip():
            continue
        nombre, sep, resto = line.partition(":")
        jugadores = [j.strip() for j in resto.split(",")]
        if not sep or not nombre.strip() or len(jugadores) != 2 or not all(jugadores):
            raise servicio.ServicioError("línea {linea} de parejas: escribe «Nombre: Jugador, Jugador»", linea=n)
        if len(nombre) > 120 or any(len(j) > 60 for j in jugadores):
            raise servicio.ServicioError("línea {linea} de parejas: nombre demasiado largo", linea=n)
        out.append(servicio.NuevaPareja(nombre.strip(), (jugadores[0], jugadores[1])))
    return out


router = APIRouter(include_in_schema=False)  # the organiser's pages


def a_pagina(request: Request, ruta: str) -> RedirectResponse:
    """After a form: back to ``ruta`` in the reader's language (303: the browser GETs it)."""
    return RedirectResponse(f"{ruta}?lang={lang(request)}", status_code=303)


@router.get("/entrar", response_class=HTMLResponse)
async def entrar_get(request: Request) -> HTMLResponse:
    return pagina(request, "entrar.html", error=None)


@router.post("/entrar", dependencies=[Depends(limite_entrar)])
async def entrar_post(
    request: Request, srv: Servidor, form: Annotated[EntrarForm, Depends(formulario(EntrarForm))]
) -> Response:
    direccion = srv.direccion(request)
    try:
        token, _caduca = await srv.en_hilo(lambda s: auth.entrar(s, form.usuario, form.clave, srv.intentos, direccion))
    except servicio.ServicioError as exc:
        rechazo = pagina(request, "entrar.html", exc.estado, error=texto(exc, request))
        if exc.reintento is not None:
            rechazo.headers["Retry-After"] = str(exc.reintento)
        return rechazo
    resp = a_pagina(request, "/torneos")
    # Secure when the browser came over HTTPS (directly or through the trusted proxy)
    resp.set_cookie(
        auth.COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=srv.por_https(request),
        max_age=int(auth.DURACION.total_seconds()),
    )
    return resp


@router.post("/salir")
async def salir(request: Request, srv: Servidor) -> RedirectResponse:
    token = auth.token_de(request)
    if token:
        await srv.en_hilo(lambda s: auth.salir(s, token))
    resp = a_pagina(request, "/entrar")
    resp.delete_cookie(auth.COOKIE)
    return resp


@router.get("/")
async def raiz(request: Request) -> RedirectResponse:
    # `mus servir` puts the phone pages' home here; the organiser's is /torneos
    return a_pagina(request, "/torneos")


@router.get("/torneos", response_class=HTMLResponse)
async def inicio(request: Request, srv: Servidor, cuenta: CuentaActual) -> HTMLResponse:
    torneos, invitaciones = await srv.en_hilo(
        lambda s: (miembros.torneos_de(s, cuenta), len(miembros.invitaciones_de(s, cuenta)))
    )
    return pagina(
        request,
        "inicio.html",
        cuenta=cuenta,
        torneos=torneos,
        invitaciones=invitaciones,
        perfiles=PERFILES,
        error=None,
    )


@router.post("/torneos")
async def crear(
    request: Request,
    srv: Servidor,
    cuenta: Organizador,
    form: Annotated[TorneoForm, Depends(formulario(TorneoForm))],
) -> RedirectResponse:
    formato = form.formato()
    if form.reglas not in PERFILES:
        raise servicio.ServicioError("perfil de reglas desconocido: {reglas}", reglas=form.reglas[:30])
    parejas = parse_parejas(form.parejas)

    def run(s: Session) -> int:
        t = servicio.crear_torneo(s, cuenta, form.nombre.strip() or "Torneo", form.reglas, formato, parejas, form.mesas)
        t.arbitros_corrigen = form.arbitros_corrigen
        return t.id

    tid: int = await srv.en_hilo(run)
    return a_pagina(request, f"/torneos/{tid}")


@router.get("/torneos/{torneo_id}", response_class=HTMLResponse)
async def torneo(request: Request, srv: Servidor, permiso: Miembro) -> HTMLResponse:
    def run(s: Session) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
        t = servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)
        return resumen.resumen(s, t), llamadas.llamadas(s, t, abiertas=True), reloj.estado(s, t)

    data, abiertas, estado_reloj = await srv.en_hilo(run)
    return pagina(request, "torneo.html", t=data, rol=permiso.rol, llamadas=abiertas, reloj=estado_reloj)


@router.post("/torneos/{torneo_id}/rondas")
async def ronda(request: Request, srv: Servidor, permiso: OrganizadorTorneo) -> RedirectResponse:
    await srv.en_hilo(lambda s: servicio.iniciar_ronda(s, _torneo(s, permiso)))
    return a_pagina(request, f"/torneos/{permiso.torneo_id}")


def _torneo(s: Session, permiso: Permiso) -> Torneo:
    return servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)


@router.get("/torneos/{torneo_id}/clasificacion", response_class=HTMLResponse)
async def clasificacion(request: Request, srv: Servidor, permiso: Miembro) -> HTMLResponse:
    def run(s: Session) -> tuple[dict[str, Any], dict[str, Any]]:
        t = _torneo(s, permiso)
        return resumen.resumen(s, t), servicio.clasificacion(s, t)

    data, tabla = await srv.en_hilo(run)
    return pagina(request, "clasificacion.html", t=data, c=tabla, rol=permiso.rol)


@router.get("/torneos/{torneo_id}/incidencias", response_class=HTMLResponse)
async def incidencias(request: Request, srv: Servidor, permiso: Miembro) -> HTMLResponse:
    def run(s: Session) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        t = _torneo(s, permiso)
        return resumen.resumen(s, t), servicio.incidencias(s, t)

    data, filas = await srv.en_hilo(run)
    return pagina(request, "incidencias.html", t=data, incidencias=filas, rol=permiso.rol)


@router.get("/torneos/{torneo_id}/partidas/{partida_id}/corregir", response_class=HTMLResponse)
async def corregir_get(partida_id: int, request: Request, srv: Servidor, permiso: Miembro) -> HTMLResponse:
    data, partida = await srv.en_hilo(lambda s: _correccion(s, _torneo(s, permiso), partida_id))
    return pagina(request, "corregir.html", t=data, p=partida, rol=permiso.rol)


@router.post("/torneos/{torneo_id}/partidas/{partida_id}/corregir", response_class=HTMLResponse)
async def corregir_post(
    partida_id: int,
    request: Request,
    srv: Servidor,
    permiso: Miembro,
    form: Annotated[CorreccionForm, Depends(formulario(CorreccionForm))],
) -> Response:
    def run(s: Session) -> None:
        t = _torneo(s, permiso)
        e = correcciones.enfrentamiento_de(s, t, partida_id)
        correcciones.corregir(s, t, permiso.cuenta, e, form.ganador, [form.juegos0, form.juegos1], form.motivo)

    try:
        await srv.en_hilo(run)
    except servicio.ServicioError as exc:
        data, partida = await srv.en_hilo(lambda s: _correccion(s, _torneo(s, permiso), partida_id))
        return pagina(
            request, "corregir.html", exc.estado, t=data, p=partida, rol=permiso.rol, error=texto(exc, request)
        )
    return a_pagina(request, f"/torneos/{permiso.torneo_id}")


def _correccion(s: Session, t: Torneo, partida_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    e = correcciones.enfrentamiento_de(s, t, partida_id)
    ronda = s.get(Ronda, e.ronda_id)
    partida = servicio.estado_partida(s, t, e) | {"ronda": ronda.numero if ronda else None}
    return {"id": t.id, "nombre": t.nombre}, partida


@router.get("/torneos/{torneo_id}/mesas/{numero}/qr.png")
async def qr(numero: int, request: Request, srv: Servidor, permiso: Miembro) -> Response:
    data = await srv.en_hilo(lambda s: resumen.resumen(s, _torneo(s, permiso)))
    codigo = next((m["codigo"] for m in data["mesas"] if m["numero"] == numero), None)
    if codigo is None:
        return Response(status_code=404)
    buf = io.BytesIO()
    # the link of the phone's table page: a phone's camera opens it, the tablet reads the code in it
    segno.make(enlace_mesa(base_publica(request), codigo), error="m").save(buf, kind="png", scale=6, border=2)
    return Response(buf.getvalue(), media_type="image/png")


ESTILOS = (
    Path(__file__).resolve().parent.parent / "static" / "torneo" / "torneo.css"
)  # the pages' look: the table's pages' (server/static/mesa.css)


@router.get("/estilos/torneo.css", include_in_schema=False)
def estilos() -> FileResponse:
    return FileResponse(ESTILOS, media_type="text/css", headers={"Cache-Control": "public, max-age=3600"})


def rutas_paginas(app: FastAPI, _srv: Any = None) -> None:
    """The organiser's pages on ``app`` (kept for callers that add them by hand)."""
    app.include_router(router)
