"""The day's pages besides the organiser's: the public read-only page of a tournament (standings,
the round's pairings by table, live marcadores, the bracket, the champion; it refreshes itself;
a projector layout and a phone layout) with its QR code, and the organiser's print view
(pairings by table, table cards with their QR, the bracket, the standings) for A4."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import segno
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from torneo import auth, inscripcion, resumen, servicio
from torneo.cuerpo import leer_formulario
from torneo.db import Torneo
from torneo.dependencias import Servidor
from torneo.estado import Estado
from torneo.i18n import idioma_de
from torneo.paginas import base_publica, pagina, parse_parejas
from torneo.paginas import texto as texto_de

router = APIRouter(include_in_schema=False)
REFRESCO = 15  # seconds between the public page's refreshes


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
    vista = "proyector" if request.query_params.get("vista") == "proyector" else "movil"
    return pagina(request, "publico.html", t=data, vista=vista, refresco=REFRESCO)


@router.get("/publico/{torneo_id}/{firma}/qr.png")
async def qr_publico(torneo_id: int, firma: str, request: Request, srv: Servidor) -> Response:
    await srv.en_hilo(lambda s: servicio.torneo_publico(s, torneo_id, firma))
    return _png(enlace_publico(request, torneo_id, firma))


def _png(texto: str, escala: int = 6) -> Response:
    buf = io.BytesIO()
    segno.make(texto, error="m").save(buf, kind="png", scale=escala, border=2)
    return Response(buf.getvalue(), media_type="image/png")


@router.get("/torneos/{torneo_id}/imprimir", response_class=HTMLResponse)
async def imprimir(torneo_id: int, request: Request, srv: Servidor) -> Any:
    def run(s: Session) -> Any:
        cuenta = auth.cuenta_del_token(s, auth.token_de(request))
        t = servicio.torneo_de(s, torneo_id, cuenta)
        return _vista(s, t) | {"mesas": resumen.resumen(s, t)["mesas"]}

    try:
        data = await srv.en_hilo(run)
    except servicio.ServicioError as exc:
        if exc.estado != 401:
            raise
        return RedirectResponse("/entrar", status_code=303)
    return pagina(request, "imprimir.html", t=data, publico=enlace_publico(request, torneo_id, data["firma"]))


@router.post("/torneos/{torneo_id}/mesas/{numero}/codigo")
async def nuevo_codigo(torneo_id: int, numero: int, request: Request, srv: Servidor) -> Any:
    """A new join code for a table (the organiser's button): the old code and its tokens stop."""

    def run(s: Session) -> None:
        cuenta = auth.cuenta_del_token(s, auth.token_de(request))
        if cuenta.rol != "organizador":
            raise servicio.ServicioError("solo un organizador puede hacer esto", 403)
        servicio.nuevo_codigo(s, servicio.torneo_de(s, torneo_id, cuenta), numero)

    await srv.en_hilo(run)
    return RedirectResponse(f"/torneos/{torneo_id}?lang={request.query_params.get('lang', 'es')}", status_code=303)


async def _accion_organizador(
    request: Request, srv: Estado, torneo_id: int, fn: Callable[[Session, Torneo, dict[str, str]], Any]
) -> Response:
    """An organiser's form on the tournament page: done, then back to the page; refused, an error page."""
    form = await leer_formulario(request, 64 * 1024)

    def run(s: Session) -> None:
        cuenta = auth.cuenta_del_token(s, auth.token_de(request))
        if cuenta.rol != "organizador":
            raise servicio.ServicioError("solo un organizador puede hacer esto", 403)
        fn(s, servicio.torneo_de(s, torneo_id, cuenta), form)

    await srv.en_hilo(run)
    return RedirectResponse(f"/torneos/{torneo_id}?lang={idioma_de(request)}", status_code=303)


@router.post("/torneos/{torneo_id}/parejas")
async def anadir_pareja(torneo_id: int, request: Request, srv: Servidor) -> Response:
    def fn(s: Session, t: Torneo, form: dict[str, str]) -> None:
        nuevas = parse_parejas(form.get("pareja", ""))
        if len(nuevas) != 1:
            raise servicio.ServicioError("línea {linea} de parejas: escribe «Nombre: Jugador, Jugador»", linea=1)
        inscripcion.anadir_pareja(s, t, nuevas[0])

    return await _accion_organizador(request, srv, torneo_id, fn)


@router.post("/torneos/{torneo_id}/parejas/{pareja_id}/retirada")
async def retirar_pareja(torneo_id: int, pareja_id: int, request: Request, srv: Servidor) -> Response:
    return await _accion_organizador(
        request, srv, torneo_id, lambda s, t, _f: inscripcion.retirar_pareja(s, t, pareja_id)
    )


@router.post("/torneos/{torneo_id}/arbitros")
async def crear_arbitro(torneo_id: int, request: Request, srv: Servidor) -> Response:
    """A referee's account from the tournament page."""
    return await _accion_organizador(
        request,
        srv,
        torneo_id,
        lambda s, t, f: auth.crear_cuenta(s, f.get("usuario", "")[:64], f.get("clave", "")[:256], "arbitro", t),
    )


@router.get("/cuenta", response_class=HTMLResponse)
async def cuenta_get(request: Request) -> Any:
    return pagina(request, "cuenta.html", error=None, hecho=False)


@router.post("/cuenta", response_class=HTMLResponse)
async def cuenta_post(request: Request, srv: Servidor) -> Any:
    """The password change page: the current password, the new one twice."""
    srv.limitar(srv.limite_entrar, request)
    form = await leer_formulario(request, 64 * 1024)
    token = auth.token_de(request) or ""

    def run(s: Session) -> None:
        cuenta = auth.cuenta_del_token(s, token)
        if form.get("nueva", "") != form.get("repetida", ""):
            raise servicio.ServicioError("las dos contraseñas nuevas no coinciden")
        auth.cambiar_clave(s, cuenta.id, form.get("actual", "")[:256], form.get("nueva", "")[:256], token)

    try:
        await srv.en_hilo(run)
    except servicio.ServicioError as exc:
        if exc.estado == 401:
            return RedirectResponse("/entrar", status_code=303)
        return pagina(request, "cuenta.html", exc.estado, error=texto_de(exc, request), hecho=False)
    return pagina(request, "cuenta.html", error=None, hecho=True)
