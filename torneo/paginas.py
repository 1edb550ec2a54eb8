"""The organiser's pages: server-rendered HTML (Jinja2), no JavaScript needed.

The login sets an HttpOnly, SameSite=Strict cookie holding the login token, so a form on
another site cannot post with it. Each page reads only the tournament its organiser (or one
of its referees) may see, through the same functions as the API.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import select
from sqlalchemy.orm import Session

from scoring.inputs import excerpt
from scoring.protocolo import enlace_mesa
from torneo import auth, correcciones, resumen, servicio
from torneo import formato as fm
from torneo.cuerpo import leer_formulario
from torneo.db import Ronda, Torneo
from torneo.dependencias import Servidor
from torneo.estado import Estado
from torneo.i18n import idioma_de, mensaje, traducir

PLANTILLAS = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "plantillas"), autoescape=select_autoescape(["html"])
)
PERFILES = fm.PERFILES
MAX_FORM = 256 * 1024


def base_publica(request: Request) -> str:
    """This server's address as a phone can open it: a loopback one (the organiser's browser on
    the server's own machine) is replaced by the LAN address `mus servir` found at its start."""
    base = str(request.base_url).rstrip("/")
    lan = getattr(request.app.state, "direccion_lan", None)
    host = urlsplit(base).hostname or ""
    if lan and (host in ("localhost", "::1") or host.startswith("127.")):
        return str(lan).rstrip("/")
    return base


def _lang(request: Request) -> str:
    return idioma_de(request)


def texto(exc: Exception, request: Request) -> str:
    """An error's line in the page's language (a FormatoError is matched as finished text)."""
    if not isinstance(exc, servicio.ServicioError):
        exc = servicio.ServicioError(str(exc))
    return excerpt(mensaje(exc.mensaje, exc.params, _lang(request)), 280)


def pagina(request: Request, nombre: str, estado: int = 200, **ctx: Any) -> HTMLResponse:
    lang = _lang(request)
    html = PLANTILLAS.get_template(nombre).render(_=lambda t: traducir(t, lang), lang=lang, **ctx)
    return HTMLResponse(html, status_code=estado)


def pagina_error(request: Request, texto: str, estado: int) -> HTMLResponse:
    """An error as a page (never JSON or a traceback in a browser)."""
    return pagina(request, "error.html", estado, error=texto, volver=None)


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


def _entero(form: Any, campo: str, defecto: int | None, bajo: int, alto: int) -> int | None:
    value = str(form.get(campo, "") or "").strip()
    if not value:
        return defecto
    if not value.lstrip("-").isdigit() or not bajo <= int(value) <= alto:
        raise servicio.ServicioError("{campo} debe ser un número de {bajo} a {alto}", campo=campo, bajo=bajo, alto=alto)
    return int(value)


router = APIRouter(include_in_schema=False)  # the organiser's pages


async def formulario(request: Request) -> dict[str, str]:
    return await leer_formulario(request, MAX_FORM)


def cuenta_o_none(s: Session, request: Request) -> Any:
    try:
        return auth.cuenta_del_token(s, auth.token_de(request))
    except servicio.ServicioError:
        return None


def con_torneo(srv: Estado, request: Request, torneo_id: int, fn: Any) -> Any:
    def run(s: Session) -> Any:
        cuenta = cuenta_o_none(s, request)
        if cuenta is None:
            return None
        return fn(s, servicio.torneo_de(s, torneo_id, cuenta))

    return srv.en_hilo(run)


def a_entrar(request: Request) -> RedirectResponse:
    return RedirectResponse(f"/entrar?lang={_lang(request)}", status_code=303)


@router.get("/entrar", response_class=HTMLResponse)
async def entrar_get(request: Request, srv: Servidor) -> Any:
    return pagina(request, "entrar.html", error=None)


@router.post("/entrar")
async def entrar_post(request: Request, srv: Servidor) -> Any:
    srv.limitar(srv.limite_entrar, request)
    form = await formulario(request)
    try:
        token, _caduca = await srv.en_hilo(
            lambda s: auth.entrar(s, str(form.get("usuario", ""))[:64], str(form.get("clave", ""))[:256])
        )
    except servicio.ServicioError as exc:
        return pagina(request, "entrar.html", exc.estado, error=texto(exc, request))
    resp = RedirectResponse(f"/torneos?lang={_lang(request)}", status_code=303)
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
async def salir(request: Request, srv: Servidor) -> Any:
    token = auth.token_de(request)
    if token:
        await srv.en_hilo(lambda s: auth.salir(s, token))
    resp = a_entrar(request)
    resp.delete_cookie(auth.COOKIE)
    return resp


@router.get("/")
async def raiz(request: Request, srv: Servidor) -> Any:
    # `mus servir` puts the phone pages' home here; the organiser's is /torneos
    return RedirectResponse(f"/torneos?lang={_lang(request)}", status_code=303)


@router.get("/torneos", response_class=HTMLResponse)
async def inicio(request: Request, srv: Servidor) -> Any:
    def run(s: Session) -> Any:
        cuenta = cuenta_o_none(s, request)
        if cuenta is None:
            return None
        q = select(Torneo).where((Torneo.organizador_id == cuenta.id) | (Torneo.id == cuenta.torneo_id))
        return cuenta, list(s.scalars(q.order_by(Torneo.id)))

    got = await srv.en_hilo(run)
    if got is None:
        return a_entrar(request)
    cuenta, torneos = got
    return pagina(request, "inicio.html", cuenta=cuenta, torneos=torneos, perfiles=PERFILES, error=None)


@router.post("/torneos")
async def crear(request: Request, srv: Servidor) -> Any:
    form = await formulario(request)

    def run(s: Session) -> Any:
        cuenta = cuenta_o_none(s, request)
        if cuenta is None or cuenta.rol != "organizador":
            return None
        formato = fm.Formato.from_dict(
            {
                "tipo": str(form.get("tipo", "liga")),
                "grupos": _entero(form, "grupos", 1, 1, 32),
                "clasifican": _entero(form, "clasifican", 2, 1, 16),
                "juegos": _entero(form, "juegos", None, 1, 20),
                "sorteo": form.get("sorteo") == "1",
                "semilla": _entero(form, "semilla", None, 0, 2**31),
            }
        )
        reglas = str(form.get("reglas", "segovia"))
        if reglas not in PERFILES:
            raise servicio.ServicioError("perfil de reglas desconocido: {reglas}", reglas=reglas[:30])
        t = servicio.crear_torneo(
            s,
            cuenta,
            str(form.get("nombre", "")).strip()[:120] or "Torneo",
            reglas,
            formato,
            parse_parejas(str(form.get("parejas", ""))),
            _entero(form, "mesas", 1, 1, fm.MAX_MESAS) or 1,
        )
        t.arbitros_corrigen = form.get("arbitros_corrigen") == "1"
        return t.id

    try:
        tid = await srv.en_hilo(run)
    except (servicio.ServicioError, fm.FormatoError) as exc:
        return pagina(request, "error.html", 422, error=texto(exc, request))
    if tid is None:
        return a_entrar(request)
    return RedirectResponse(f"/torneos/{tid}?lang={_lang(request)}", status_code=303)


@router.get("/torneos/{torneo_id}", response_class=HTMLResponse)
async def torneo(torneo_id: int, request: Request, srv: Servidor) -> Any:
    data = await con_torneo(srv, request, torneo_id, lambda s, t: resumen.resumen(s, t))
    return a_entrar(request) if data is None else pagina(request, "torneo.html", t=data)


@router.post("/torneos/{torneo_id}/rondas")
async def ronda(torneo_id: int, request: Request, srv: Servidor) -> Any:
    def run(s: Session, t: Torneo) -> Any:
        if s.get(type(t), t.id).organizador_id != auth.cuenta_del_token(s, auth.token_de(request)).id:
            raise servicio.ServicioError("solo el organizador puede empezar una ronda", 403)
        return servicio.iniciar_ronda(s, t).numero

    try:
        got = await con_torneo(srv, request, torneo_id, run)
    except servicio.ServicioError as exc:
        return pagina(request, "error.html", exc.estado, error=texto(exc, request), volver=f"/torneos/{torneo_id}")
    if got is None:
        return a_entrar(request)
    return RedirectResponse(f"/torneos/{torneo_id}?lang={_lang(request)}", status_code=303)


@router.get("/torneos/{torneo_id}/clasificacion", response_class=HTMLResponse)
async def clasificacion(torneo_id: int, request: Request, srv: Servidor) -> Any:
    data = await con_torneo(srv, request, torneo_id, lambda s, t: (resumen.resumen(s, t), servicio.clasificacion(s, t)))
    if data is None:
        return a_entrar(request)
    return pagina(request, "clasificacion.html", t=data[0], c=data[1])


@router.get("/torneos/{torneo_id}/incidencias", response_class=HTMLResponse)
async def incidencias(torneo_id: int, request: Request, srv: Servidor) -> Any:
    data = await con_torneo(srv, request, torneo_id, lambda s, t: (resumen.resumen(s, t), servicio.incidencias(s, t)))
    if data is None:
        return a_entrar(request)
    return pagina(request, "incidencias.html", t=data[0], incidencias=data[1])


@router.get("/torneos/{torneo_id}/partidas/{partida_id}/corregir", response_class=HTMLResponse)
async def corregir_get(torneo_id: int, partida_id: int, request: Request, srv: Servidor) -> Any:
    data = await con_torneo(srv, request, torneo_id, lambda s, t: _correccion(s, t, partida_id))
    return a_entrar(request) if data is None else pagina(request, "corregir.html", t=data[0], p=data[1])


@router.post("/torneos/{torneo_id}/partidas/{partida_id}/corregir", response_class=HTMLResponse)
async def corregir_post(torneo_id: int, partida_id: int, request: Request, srv: Servidor) -> Any:
    form = await formulario(request)

    def run(s: Session, t: Torneo) -> Any:
        e = correcciones.enfrentamiento_de(s, t, partida_id)
        juegos = [_entero(form, f"juegos{i}", 0, 0, 1000) or 0 for i in (0, 1)]
        cuenta = auth.cuenta_del_token(s, auth.token_de(request))
        correcciones.corregir(
            s, t, cuenta, e, _entero(form, "ganador", 0, 0, 1) or 0, juegos, str(form.get("motivo", ""))
        )
        return True

    try:
        got = await con_torneo(srv, request, torneo_id, run)
    except servicio.ServicioError as exc:
        data = await con_torneo(srv, request, torneo_id, lambda s, t: _correccion(s, t, partida_id))
        return pagina(request, "corregir.html", exc.estado, t=data[0], p=data[1], error=texto(exc, request))
    if got is None:
        return a_entrar(request)
    return RedirectResponse(f"/torneos/{torneo_id}?lang={_lang(request)}", status_code=303)


def _correccion(s: Session, t: Torneo, partida_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    e = correcciones.enfrentamiento_de(s, t, partida_id)
    partida = servicio.estado_partida(s, t, e) | {"ronda": s.get(Ronda, e.ronda_id).numero}
    return {"id": t.id, "nombre": t.nombre}, partida


@router.get("/torneos/{torneo_id}/mesas/{numero}/qr.png")
async def qr(torneo_id: int, numero: int, request: Request, srv: Servidor) -> Any:
    data = await con_torneo(srv, request, torneo_id, lambda s, t: resumen.resumen(s, t))
    codigo = next((m["codigo"] for m in (data or {}).get("mesas", []) if m["numero"] == numero), None)
    if codigo is None:
        return Response(status_code=404)
    buf = io.BytesIO()
    # the link of the phone's table page: a phone's camera opens it, the tablet reads the code in it
    segno.make(enlace_mesa(base_publica(request), codigo), error="m").save(buf, kind="png", scale=6, border=2)
    return Response(buf.getvalue(), media_type="image/png")


def rutas_paginas(app: FastAPI, _srv: Any = None) -> None:
    """The organiser's pages on ``app`` (kept for callers that add them by hand)."""
    app.include_router(router)
