"""The players' own deck, registered from a phone and kept with the partida (its ``baraja``
column: the .npz bytes of vision.registered_deck); every reading of that partida uses it.

    POST   /api/baraja/comprobar          one suit's photo checked as it is taken (foto, palo)
    GET    /api/partidas/{clave}/baraja   whether the partida has a deck
    POST   /api/partidas/{clave}/baraja   the four suit photos (oros, copas, espadas, bastos)
    DELETE /api/partidas/{clave}/baraja   read with the general model again
    GET    /p/{clave}/baraja              the page: the four photos with the framing guide

The checks are the app's (mesa.lectura.comprobar_palo, vision.registration); the photos are
not kept: the page holds the four until it sends them together.
"""

from __future__ import annotations

import json
from typing import Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from mesa.i18n import N_, t
from mesa.lectura import NOMBRES_PALOS, PALOS_FOTOS, PIDE_PALO, REGISTRADA
from server.deps import Sesion, lang
from server.rutas.leer import PlazaLectura, Sesiones, formulario, limitar, ocupado, pool
from server.rutas.paginas import render
from server.servicios import lectura
from server.servicios.partidas import WebError

router = APIRouter(tags=["baraja"])

PALO_DESCONOCIDO: Final = N_("palo desconocido: oros, copas, espadas o bastos")
OCUPADO_REINTENTA: Final = N_("El lector está ocupado: se reintenta en un momento")
APRENDIDA: Final = N_(
    "Baraja aprendida de vuestras manos: conoce {n} de las 40 cartas. Registrar las cuatro fotos la deja perfecta."
)


class PaloOut(BaseModel):
    palo: str  # oros, copas, espadas, bastos
    bien: bool  # the photo shows its ten cards in order


class BarajaOut(BaseModel):
    registrada: bool  # read with a deck of its own: registered from the photos or learned
    aprendida: bool = False  # learned from confirmed hands only: the four photos make it whole
    conocidas: int | None = None  # the cards of the 40 a learned deck knows
    cartas: int | None = None  # 40 once registered
    series: int | None = None  # sets of photos it holds
    avisos: list[str] = []  # the registration's warnings (small cards, a row like another suit)


def _palo(valor: str) -> int:
    valor = valor.strip().lower()
    if valor.isdigit() and int(valor) < len(PALOS_FOTOS):
        return int(valor)
    if valor in PALOS_FOTOS:
        return PALOS_FOTOS.index(valor)
    raise WebError(PALO_DESCONOCIDO, 422)


@router.post("/api/baraja/comprobar", response_model=PaloOut, dependencies=[Depends(limitar)])
async def comprobar(request: Request, sitio: PlazaLectura) -> Any:
    fotos, textos = await formulario(request, ("foto",))
    if "foto" not in fotos:
        raise WebError(lectura.FOTO_VACIA, 422)
    palo = _palo(textos.get("palo", ""))
    try:
        await pool(request).ejecutar(lectura.comprobar_palo, fotos["foto"][1], palo, plaza=sitio)
    except lectura.Ocupado as exc:
        return ocupado(exc, request)
    return PaloOut(palo=PALOS_FOTOS[palo], bien=True)


@router.get("/api/partidas/{clave}/baraja", response_model=BarajaOut)
def ver(clave: str, s: Sesion) -> Any:
    npz = lectura.baraja_de_partida(s, clave)
    if npz is None:
        return BarajaOut(registrada=False)
    conocidas = lectura.cartas_aprendidas(npz)
    return BarajaOut(registrada=True, aprendida=conocidas is not None, conocidas=conocidas)


@router.post("/api/partidas/{clave}/baraja", response_model=BarajaOut, dependencies=[Depends(limitar)])
async def registrar(clave: str, request: Request, abrir: Sesiones, sitio: PlazaLectura) -> Any:
    await run_in_threadpool(_existe, abrir, clave)  # no partida: said before the photos are read
    fotos, _ = await formulario(request, PALOS_FOTOS)
    if set(fotos) != set(PALOS_FOTOS):
        raise WebError(lectura.FALTAN_PALOS, 422)
    try:
        npz, info, avisos = await pool(request).ejecutar(
            lectura.registrar, [fotos[p][1] for p in PALOS_FOTOS], plaza=sitio
        )
    except lectura.Ocupado as exc:
        return ocupado(exc, request)

    def guardar() -> None:
        with abrir() as s:
            lectura.guardar_baraja(s, clave, npz)

    await run_in_threadpool(guardar)
    return BarajaOut(registrada=True, cartas=info["cartas"], series=info["series"], avisos=avisos)


def _existe(abrir: Any, clave: str) -> None:
    with abrir() as s:
        lectura.baraja_de_partida(s, clave)


@router.delete("/api/partidas/{clave}/baraja", response_model=BarajaOut)
def quitar(clave: str, s: Sesion) -> Any:
    lectura.guardar_baraja(s, clave, None)
    return BarajaOut(registrada=False)


@router.get("/p/{clave}/baraja", response_class=HTMLResponse)
def pagina(clave: str, request: Request, s: Sesion) -> Any:
    idioma = lang(request)
    npz = lectura.baraja_de_partida(s, clave)
    conocidas = None if npz is None else lectura.cartas_aprendidas(npz)
    registrada = npz is not None and conocidas is None  # a learned deck: the photos still help
    aprendida = t(APRENDIDA, idioma).format(n=conocidas) if conocidas is not None else ""
    palos = [
        {"id": p, "nombre": t(n, idioma), "pide": t(PIDE_PALO, idioma).format(palo=t(n, idioma))}
        for p, n in zip(PALOS_FOTOS, NOMBRES_PALOS, strict=True)
    ]
    textos = {k: t(v, idioma) for k, v in _TEXTOS_JS.items()}
    return render(
        request,
        "baraja.html",
        clave=clave,
        palos=palos,
        registrada=registrada,
        aprendida=aprendida,
        textos=json.dumps(textos, ensure_ascii=False).replace("<", "\\u003c"),
    )


# the words the page's script shows (translated in its configuration)
_TEXTOS_JS: Final = {
    "hecha": N_("hecha"),
    "ahora": N_("ahora"),
    "pendiente": N_("pendiente"),
    "comprobando": N_("Comprobando la foto…"),
    "registrando": N_("Registrando la baraja…"),
    "registrada": REGISTRADA,
    "ocupado": OCUPADO_REINTENTA,
    "sin_conexion": N_("Sin conexión: se reintenta"),
    "general": N_("Se lee con el modelo general"),
}
