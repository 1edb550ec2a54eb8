"""The phone pages of a partida: server-rendered HTML (Jinja2) with small vanilla scripts.

    /                    home: new partida, join a tournament table, open a partida
    /nueva               the new partida form (GET, POST)
    /abrir?enlace=...    open a partida from its link or clave
    /p/{clave}           the marcador (refreshes itself from /p/{clave}/parte)
    /p/{clave}/mano      a hand: cards, lances, tanteo, confirm (the draft is saved at every step)

Every error is a page in the player's language (``?lang=`` switches it and a cookie keeps it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

import segno
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from jinja2.runtime import Context
from sqlalchemy.orm import Session

from mesa import cartas
from mesa.i18n import IDIOMAS, N_, t, tn
from mesa.mano import IMPORTES, IMPORTES_NO_QUIERO, LANCES
from mesa.partida import resumen_reglas
from scoring.cards import RANKS, SUITS
from scoring.rules import PERFILES, perfil
from scoring.tanteo import NOMBRES_LANCE
from server.cuerpo import leer_formulario
from server.deps import COOKIE_IDIOMA, Idioma, Sesion, lang
from server.rutas.paginas_torneo import base_publica
from server.rutas.partidas import sin_cambios
from server.seguridad import campo_csrf
from server.servicios import partidas as servicio
from server.servicios.partidas import WebError

router = APIRouter(tags=["paginas"])
PLANTILLAS: Final = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent.parent / "plantillas"),
    autoescape=select_autoescape(["html"]),
)


# A card's names in the page's language, one function for every page: {{ '11e'|carta }} gives
# "caballo de espadas", |carta_corta "C" (a label beside its suit), |palo on a suit's letter
# "espadas"; a page's script reads the same names from /cartas.js (window.musCartas), which
# base.html loads.
@pass_context
def _filtro_carta(ctx: Context, carta: str) -> str:
    return cartas.nombre_carta(carta, ctx["lang"])


@pass_context
def _filtro_corta(ctx: Context, carta: str) -> str:
    return cartas.corta(carta, ctx["lang"])


@pass_context
def _filtro_palo(ctx: Context, palo: str) -> str:
    return cartas.nombre_palo(palo, ctx["lang"])


PLANTILLAS.filters.update(carta=_filtro_carta, carta_corta=_filtro_corta, palo=_filtro_palo)
MAX_FORM: Final = 64 * 1024
# the largest envite the number pad takes: more than any profile's tantos (10 to 100), so any bet
# a table makes fits, and a slip of the thumb (a 4-digit number) does not
MAX_ENVITE: Final = 100
REFRESCO_S: Final = 4  # how often the marcador asks for news, so the other phones follow
_CLAVE: Final = re.compile(r"^[A-Za-z0-9_-]{16,32}$")


def render(request: Request, nombre: str, estado: int = 200, **ctx: Any) -> HTMLResponse:
    """A page in the player's language; a ``?lang=`` choice is kept in a cookie."""
    idioma = lang(request)
    html = PLANTILLAS.get_template(nombre).render(
        t=lambda texto: t(texto, idioma),
        tn=lambda uno, varios, n: tn(uno, varios, n, idioma),
        lang=idioma,
        idiomas=IDIOMAS,
        ruta=request.url.path,
        csrf=lambda: campo_csrf(request),  # every form's token (server.seguridad)
        **ctx,
    )
    resp = HTMLResponse(html, status_code=estado)
    if request.query_params.get("lang") in IDIOMAS:
        resp.set_cookie(COOKIE_IDIOMA, idioma, max_age=365 * 24 * 3600, samesite="lax")
    return resp


def enlace(request: Request, clave: str) -> str:
    """The partida's link for the other phones (an address a phone can open, as the tables' QR
    codes of a tournament hold)."""
    return f"{base_publica(request)}/p/{clave}"


def qr_svg(texto: str) -> str:
    """The code as inline SVG that scales to its box (a viewBox, no fixed size: with a fixed
    148 px drawing in a wider box the code sat in the box's top-left corner), on white."""
    return str(segno.make(texto, error="m").svg_inline(scale=4, border=2, omitsize=True, light="#fff"))


@router.get("/", response_class=HTMLResponse)
def inicio(request: Request) -> Any:
    return render(request, "inicio.html")


@router.get("/abrir")
def abrir(request: Request, enlace: str = "") -> Any:
    """A partida from its link (or the clave alone); the home page again when it is neither."""
    texto = enlace.strip().rstrip("/")
    clave = texto.rsplit("/p/", 1)[-1].split("/")[0].split("?")[0] if "/p/" in texto else texto
    if not _CLAVE.match(clave):
        raise WebError(N_("eso no es el enlace de una partida"), 404)
    return RedirectResponse(f"/p/{clave}", status_code=303)


def _perfiles(idioma: str) -> list[dict[str, Any]]:
    out = []
    for nombre in PERFILES:
        r = perfil(nombre)
        resumen = resumen_reglas(r, idioma)
        out.append({"nombre": nombre, "resumen": resumen, "juegos": r.juegos_por_vaca, "vacas": r.vacas_por_partida})
    return out


@router.get("/nueva", response_class=HTMLResponse)
def nueva(request: Request, idioma: Idioma) -> Any:
    return render(request, "nueva.html", perfiles=_perfiles(idioma), form={}, error=None, propio=servicio.PERFIL_PROPIO)


def _entero(valor: str, campo: str, bajo: int, alto: int) -> int | None:
    valor = valor.strip()
    if not valor:
        return None
    if not valor.isdigit() or not bajo <= int(valor) <= alto:
        raise WebError(N_("{campo}: escribe un número de {bajo} a {alto}"), campo=campo, bajo=bajo, alto=alto)
    return int(valor)


@router.post("/nueva", response_class=HTMLResponse)
async def crear(request: Request) -> Any:
    idioma = lang(request)
    try:
        form = await leer_formulario(request, MAX_FORM)
    except ValueError:
        form = {}
    fabrica = request.app.state.web_sesiones

    def run() -> str:
        jugadores = [form.get(f"jugador{i}", "")[:40] for i in range(4)]
        mano = _entero(form.get("mano", "0"), t("Mano", idioma), 0, 3) or 0
        juegos = _entero(form.get("juegos", ""), t("Juegos", idioma), 1, 20)
        vacas = _entero(form.get("vacas", ""), t("Vacas", idioma), 1, 20)
        reglas = servicio.reglas_de(form.get("reglas", "general"), form.get("toml"), juegos, vacas)
        with fabrica() as s, s.begin():
            return servicio.crear_partida(s, jugadores, reglas, mano, idioma)

    try:
        clave = await run_in_threadpool(run)
    except WebError as exc:  # the form again, as filled, with the reason: nothing typed is lost
        return render(
            request,
            "nueva.html",
            exc.estado,
            perfiles=_perfiles(idioma),
            form=form,
            error=exc.texto(idioma),
            propio=servicio.PERFIL_PROPIO,
        )
    return RedirectResponse(f"/p/{clave}", status_code=303)


def _marcador_ctx(request: Request, s: Session, clave: str, idioma: str) -> dict[str, Any]:
    m = servicio.ver(s, clave, idioma)
    nombres = {lance: t(nombre, idioma) for lance, nombre in NOMBRES_LANCE.items()}
    return {"m": m, "clave": clave, "refresco": REFRESCO_S, "nombres_lance": nombres}


@router.get("/p/{clave}", response_class=HTMLResponse)
def marcador(clave: str, request: Request, s: Sesion, idioma: Idioma) -> Any:
    if servicio._partida(s, clave).torneo:  # a tournament table's partida: its page says what reached the server
        return RedirectResponse(f"/mesa/{clave}", status_code=303)
    ctx = _marcador_ctx(request, s, clave, idioma)
    url = enlace(request, clave)
    return render(request, "marcador.html", enlace=url, qr=qr_svg(url), **ctx)


@router.get("/p/{clave}/parte", response_class=HTMLResponse)
def parte(clave: str, request: Request, s: Sesion, idioma: Idioma) -> Any:
    """The marcador's changing part alone, for the page to refresh itself; 304 with no body
    when the page's ``If-None-Match`` holds the marcador's version (nothing changed)."""
    cabeceras, igual = sin_cambios(request, s, clave, idioma)
    if igual is not None:
        return igual
    respuesta = render(request, "_marcador.html", **_marcador_ctx(request, s, clave, idioma))
    respuesta.headers.update(cabeceras)
    return respuesta


def _baraja(idioma: str) -> list[dict[str, Any]]:
    """The 40 cards by suit, each with its notation (data-carta), what the button shows and the
    card's name (mesa.cartas, as every page names a card)."""
    return [
        {
            "palo": palo,
            "cartas": [
                {
                    "id": f"{r}{palo}",
                    "texto": cartas.corta(f"{r}{palo}", idioma),
                    "nombre": cartas.nombre_carta(f"{r}{palo}", idioma),
                }
                for r in RANKS
            ],
        }
        for palo in SUITS
    ]


@router.get("/p/{clave}/mano", response_class=HTMLResponse)
def mano(clave: str, request: Request, s: Sesion, idioma: Idioma) -> Any:
    ctl = servicio.control(s, clave, idioma)
    m = servicio.marcador(ctl)
    if m["terminada"]:  # a hand page opened late (a link, a reload): the result is on the marcador
        return RedirectResponse(f"/p/{clave}", status_code=303)
    textos = {k: t(k, idioma) for k in _TEXTOS_JS}
    p = ctl.partida
    config = {
        "clave": clave,
        "lang": idioma,
        "jugadores": m["jugadores"],
        "mano": m["mano"],
        "n": m["numero_mano"],
        "importes": list(IMPORTES),
        "lances": list(LANCES),
        "parejas": [ctl.nombre_pareja(0), ctl.nombre_pareja(1)],
        "mus_corrido": bool(p and p.estado.mus_corrido),
        "textos": textos,
    }
    # "<" escaped: a name can never close the script element the configuration sits in
    config_json = json.dumps(config, ensure_ascii=False).replace("<", "\\u003c")
    return render(
        request,
        "mano.html",
        m=m,
        clave=clave,
        baraja=_baraja(idioma),
        mus_corrido=config["mus_corrido"],
        torneo=servicio._partida(s, clave).torneo,  # a tournament table's hand: mano_torneo.html
        palos={k: cartas.nombre_palo(k, idioma).capitalize() for k in SUITS},
        config=config_json,
        lances=[(lance, t(NOMBRES_LANCE[lance], idioma)) for lance in LANCES],
        importes=IMPORTES,
        importes_no_quiero=IMPORTES_NO_QUIERO,
        max_envite=MAX_ENVITE,
    )


# the words the hand page's script shows (it gets them translated in its configuration)
_TEXTOS_JS: Final = (
    N_("Paso"),
    N_("Quiero"),
    N_("No quiero"),
    N_("Órdago"),
    N_("gana"),
    N_("tantos"),
    N_("Sin conexión: se reintenta"),
    N_("Guardado"),
    N_("Guardando…"),
    N_("Total"),
    N_("Nadie suma tantos en esta mano"),
    N_("Faltan cartas"),
    N_("Punto"),
    N_("Juego"),
    N_("Elige un asiento"),
    N_("Confirmando…"),
    N_("Contando el tanteo…"),
    N_("Escribe un número de {bajo} a {alto}"),
    N_("Después del órdago querido no se juega"),
)


_CARTAS_JS: Final = """// A card's names in the page's language, the same on every page and in the tablet app
// (mesa/cartas.py): musCartas.nombre("11e") "caballo de espadas", musCartas.corta("11e") "C"
// (a label beside its suit), musCartas.palo("11e") "espadas"; an unknown notation comes back as is.
window.musCartas = (function (tabla) {
  "use strict";
  function campo(k) { return function (carta) { return tabla[carta] ? tabla[carta][k] : (carta || ""); }; }
  return {nombre: campo("nombre"), corta: campo("corta"), palo: campo("palo"), tabla: tabla};
})(%s);
"""


@router.get("/cartas.js")
def cartas_js(idioma: Idioma) -> Response:
    """The card names of a language for the pages' scripts (base.html loads it with the page's
    ?lang=, so each language is its own cached file)."""
    return Response(
        _CARTAS_JS % cartas.tabla_json(idioma),
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "public, max-age=3600"},
    )


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)
