"""The day's pages besides the organiser's: the public read-only page of a tournament (standings,
the round's pairings by table, live marcadores, the bracket, the champion; it refreshes itself;
a projector layout and a phone layout) with its QR code, and the organiser's print view
(pairings by table, table cards with their QR, the bracket, the standings) for A4, the
organiser's actions on the field (parejas, table codes) and its members (co-organisers and
referees), and the password change page."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import io
import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

import segno
from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from server.deps import CuentaActual, Miembro, OrganizadorTorneo, Permiso, Servidor, lang, limite_entrar
from server.estado import Estado
from server.formularios import ArbitroForm, ClaveForm, MiembroForm, ParejaForm, formulario
from server.modelos.torneo import Torneo
from server.rutas.paginas_torneo import a_pagina, base_publica, pagina, parse_parejas, renderizar
from server.rutas.paginas_torneo import texto as texto_de
from server.servicios import auth, inscripcion, miembros, resumen
from server.servicios import torneos as servicio

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


# seconds a public page is served before the tournament's version is read again: at 5 s, 200 spectators
# of 1,000 tables still had each tournament rendered every 5 s (the page reloads itself every 15 s)
FRESCURA: Final = 10.0
Pagina = tuple[str, bytes]  # ETag, HTML


@dataclass
class Publica:
    """One tournament's public pages as rendered at ``version`` (confirmed current at ``vista_en``)."""

    version: int
    vista_en: float
    datos: dict[str, Any]
    paginas: dict[tuple[str, str], Pagina] = field(default_factory=dict)


class PaginasPublicas:
    """The public pages of one server as rendered: for each tournament, its data and pages at
    one ``torneo.version``, and the links already checked. A page is served as it is for
    ``FRESCURA`` seconds, then the version is read (one indexed row); if it changed, the page it
    had is served while one thread renders the new one (``refrescar``). So 200 spectators cost
    at most one rendering per tournament every ``FRESCURA`` seconds, not one each (a rendering
    took 90-130 ms of CPU for a 125-table tournament, in the process that takes the hands: issue
    51), and none of them waits for one but the first after a start. The page refreshes itself
    every ``REFRESCO`` s, so a few seconds are never seen."""

    MAX_TORNEOS: Final = 1024  # the least recently rendered tournament goes first beyond this

    def __init__(self, reloj: Callable[[], float] = time.monotonic) -> None:
        self.reloj = reloj
        self._lock = threading.Lock()
        self._firmas: dict[int, str] = {}
        self._publicas: dict[int, Publica] = {}
        self._cerrojos: dict[int, asyncio.Lock] = {}
        self._hilos: dict[int, threading.Thread] = {}

    def firma(self, torneo_id: int) -> str | None:
        return self._firmas.get(torneo_id)

    def recordar_firma(self, torneo_id: int, firma: str) -> None:
        with self._lock:
            self._firmas[torneo_id] = firma

    def cerrojo(self, torneo_id: int) -> asyncio.Lock:
        """One rendering at a time per tournament; the requests that wait for it hold no thread
        (only the event loop calls this)."""
        if torneo_id not in self._cerrojos:
            self._cerrojos[torneo_id] = asyncio.Lock()
        return self._cerrojos[torneo_id]

    def publica(self, torneo_id: int) -> Publica | None:
        return self._publicas.get(torneo_id)

    def refrescar(self, srv: Estado, torneo_id: int) -> None:
        """Render the tournament's pages again in a thread of their own, unless one is at it."""
        with self._lock:
            hilo = self._hilos.get(torneo_id)
            if hilo is not None and hilo.is_alive():
                return
            hilo = threading.Thread(target=_refrescar, args=(srv, self, torneo_id), daemon=True)
            self._hilos[torneo_id] = hilo
        hilo.start()

    def esperar(self) -> None:
        """Until the renderings started are done (for tests)."""
        for hilo in list(self._hilos.values()):
            hilo.join()

    def guardar(self, torneo_id: int, hecha: Publica) -> None:
        with self._lock:
            vieja = self._publicas.pop(torneo_id, None)
            if vieja is not None and vieja.version > hecha.version:
                hecha = vieja  # a slower reader of an older version: the newer pages stay
            while len(self._publicas) >= self.MAX_TORNEOS:
                self._publicas.pop(next(iter(self._publicas)))
            self._publicas[torneo_id] = hecha


_PUBLICAS: weakref.WeakKeyDictionary[Estado, PaginasPublicas] = weakref.WeakKeyDictionary()
_PUBLICAS_LOCK = threading.Lock()


def publicas(srv: Estado) -> PaginasPublicas:
    """The server's cache of public pages (one per server: a test's servers share nothing)."""
    with _PUBLICAS_LOCK:
        if srv not in _PUBLICAS:
            _PUBLICAS[srv] = PaginasPublicas()
        return _PUBLICAS[srv]


def version_publica(s: Session, torneo_id: int) -> int | None:
    """What the public page shows, as a number that grows with every change of it (None: no such
    tournament). Read from the database, so a change made by another server process counts."""
    return s.scalar(select(Torneo.version).where(Torneo.id == torneo_id))


def _en_memoria(cache: PaginasPublicas, torneo_id: int, firma: str, clave: tuple[str, str]) -> Pagina | None:
    """The page as rendered while it is fresh, with no I/O (on the event loop: no thread taken)."""
    conocida = cache.firma(torneo_id)
    if conocida is None:
        return None
    if not hmac.compare_digest(conocida, firma[:40]):
        raise servicio.ServicioError("no existe ese torneo", 404)
    hecha = cache.publica(torneo_id)
    if hecha is None or cache.reloj() - hecha.vista_en >= FRESCURA:
        return None
    return hecha.paginas.get(clave)


def _vigente(
    srv: Estado, cache: PaginasPublicas, torneo_id: int, firma: str, clave: tuple[str, str]
) -> tuple[Pagina | None, Pagina | None]:
    """The page as rendered if the tournament's version has not changed (and the link checked
    once); else None and the page it had, if any."""
    with srv.sesion() as s:
        if cache.firma(torneo_id) is None:
            servicio.torneo_publico(s, torneo_id, firma)  # 404 unless the link is the tournament's
            cache.recordar_firma(torneo_id, firma)
        version = version_publica(s, torneo_id)
    hecha = cache.publica(torneo_id)
    if hecha is not None and hecha.version == version:
        hecha.vista_en = cache.reloj()
        if clave in hecha.paginas:
            return hecha.paginas[clave], None
    return None, hecha.paginas.get(clave) if hecha is not None else None


def _refrescar(srv: Estado, cache: PaginasPublicas, torneo_id: int) -> None:
    """The thread of ``PaginasPublicas.refrescar``: every page the tournament had, rendered again."""
    hecha = cache.publica(torneo_id)
    try:
        _renderizar_publica(srv, cache, torneo_id, list(hecha.paginas) if hecha else [])
    except Exception:  # a thread of its own: nobody else would see it; the next request tries again
        logging.getLogger(__name__).exception("la página pública del torneo %s no se pudo preparar", torneo_id)


def _renderizar_publica(
    srv: Estado, cache: PaginasPublicas, torneo_id: int, claves: list[tuple[str, str]]
) -> Pagina | None:
    """The tournament's pages ``claves`` at its version now (the first's returned), its data read
    once for all."""
    ahora = cache.reloj()
    with srv.sesion() as s:
        version = version_publica(s, torneo_id)  # read before the data, in the data's transaction
        if version is None:
            raise servicio.ServicioError("no existe ese torneo", 404)
        hecha = cache.publica(torneo_id)
        if hecha is not None and hecha.version >= version and all(c in hecha.paginas for c in claves):
            return hecha.paginas[claves[0]] if claves else None  # rendered while this one waited
        if hecha is None or hecha.version != version:
            hecha = Publica(version, ahora, _vista(s, servicio.fila(s, Torneo, torneo_id)))
    for vista, idioma in claves:
        html = renderizar(
            "publico.html",
            idioma,
            t=hecha.datos,
            vista=vista,
            refresco=REFRESCO,
            rotacion=ROTACION,
            filas=FILAS if vista == "proyector" else FILAS_SIN_LIMITE,
        ).encode()
        hecha.paginas[(vista, idioma)] = ('"' + hashlib.sha256(html).hexdigest()[:32] + '"', html)
    cache.guardar(torneo_id, hecha)
    return hecha.paginas[claves[0]] if claves else None


def coincide(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (weak or strong, in a list, or ``*``)."""
    dichas = [e.strip().removeprefix("W/") for e in if_none_match.split(",")]
    return etag in dichas or "*" in dichas


@router.get("/publico/{torneo_id}/{firma}", response_class=HTMLResponse)
async def publico(torneo_id: int, firma: str, request: Request, srv: Servidor) -> Any:
    """The public page: rendered once per change of the tournament and kept; a browser that has
    it (If-None-Match with its ETag) gets 304 with no body."""
    clave = ("proyector" if request.query_params.get("vista") == "proyector" else "movil", lang(request))
    cache = publicas(srv)
    pagina = _en_memoria(cache, torneo_id, firma, clave)
    if pagina is None:
        pagina, vieja = await run_in_threadpool(_vigente, srv, cache, torneo_id, firma, clave)
        if pagina is None and vieja is not None:
            cache.refrescar(srv, torneo_id)  # changed: rendered again apart, the page it had meanwhile
            pagina = vieja
        elif pagina is None:  # never rendered here (the first request after a start): wait for it
            async with cache.cerrojo(torneo_id):
                pagina = await run_in_threadpool(_renderizar_publica, srv, cache, torneo_id, [clave])
    assert pagina is not None  # rendered for its clave
    etag, html = pagina
    cabeceras = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Language"}
    if coincide(request.headers.get("if-none-match", ""), etag):
        return Response(status_code=304, headers=cabeceras)
    return HTMLResponse(html, headers=cabeceras)


@router.get("/publico/{torneo_id}/{firma}/qr.png")
async def qr_publico(torneo_id: int, firma: str, request: Request, srv: Servidor) -> Response:
    if not hmac.compare_digest(publicas(srv).firma(torneo_id) or "", firma[:40]):
        await srv.en_hilo(lambda s: servicio.torneo_publico(s, torneo_id, firma))
    return _png(enlace_publico(request, torneo_id, firma))


@functools.lru_cache(maxsize=256)
def _png_de(texto: str, escala: int) -> bytes:
    buf = io.BytesIO()
    segno.make(texto, error="m").save(buf, kind="png", scale=escala, border=2)
    return buf.getvalue()


def _png(texto: str, escala: int = 6) -> Response:
    return Response(_png_de(texto, escala), media_type="image/png")


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

    def run(s: Session) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        t = servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)
        data = {"id": t.id, "nombre": t.nombre, "firma": servicio.firma_publica(s, t)}
        return data, miembros.miembros(s, t), miembros.cambios(s, t), miembros.invitaciones(s, t)

    data, filas, cambios, invitadas = await srv.en_hilo(run)
    return pagina(
        request,
        "miembros.html",
        t=data,
        miembros=filas,
        cambios=cambios,
        invitaciones=invitadas,
        rol=permiso.rol,
        yo=permiso.cuenta.id,
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


@router.get("/invitaciones", response_class=HTMLResponse)
async def invitaciones_get(request: Request, srv: Servidor, cuenta: CuentaActual) -> HTMLResponse:
    """The account's invitations to tournaments, each with its buttons to accept and decline."""
    filas = await srv.en_hilo(lambda s: miembros.invitaciones_de(s, cuenta))
    return pagina(request, "invitaciones.html", cuenta=cuenta, invitaciones=filas)


@router.post("/invitaciones/{invitacion_id}/aceptar")
async def invitacion_aceptar(
    invitacion_id: int, request: Request, srv: Servidor, cuenta: CuentaActual
) -> RedirectResponse:
    """Accepted: to the tournament's page."""
    tid: int = await srv.en_hilo(lambda s: miembros.aceptar(s, cuenta, invitacion_id).id)
    return a_pagina(request, f"/torneos/{tid}")


@router.post("/invitaciones/{invitacion_id}/rechazar")
async def invitacion_rechazar(
    invitacion_id: int, request: Request, srv: Servidor, cuenta: CuentaActual
) -> RedirectResponse:
    await srv.en_hilo(lambda s: miembros.rechazar(s, cuenta, invitacion_id))
    return a_pagina(request, "/invitaciones")


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
