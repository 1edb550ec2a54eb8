"""The partida's JSON API, ``/api/partidas/...``: what the pages use and any other client may.

Every error is ``{"error": one line in the player's language}`` with any data the client
needs beside it (the marcador after a lost race, the stored draft after another phone's step).
docs/web.md describes each call.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from mesa.partida import VistaPareja
from server.deps import Idioma, Sesion, cuerpo, sesiones
from server.servicios import lectura, mesa_torneo
from server.servicios import partidas as servicio
from server.servicios.partidas import ID_MANO, DatosBorrador, ManoNueva
from server.servidor import Estricto

router = APIRouter(prefix="/api/partidas", tags=["partidas"])

Nombre = Annotated[str, Field(min_length=1, max_length=40)]
Asiento = Annotated[int, Field(ge=0, le=3)]
Cartas = Annotated[list[Annotated[str, Field(max_length=64)] | None], Field(min_length=4, max_length=4)]


class PartidaIn(Estricto):
    jugadores: Annotated[list[Nombre], Field(min_length=4, max_length=4)]  # seats 0..3; 0 and 2 are pareja 0
    reglas: Annotated[str, Field(max_length=40)] = "general"  # a profile of scoring.rules, or "propio"
    toml: Annotated[str, Field(max_length=servicio.MAX_TOML)] | None = None  # the rules of "propio"
    mano: Asiento = 0
    juegos: Annotated[int, Field(ge=1, le=20)] | None = None  # juegos por vaca (the profile's if absent)
    vacas: Annotated[int, Field(ge=1, le=20)] | None = None  # vacas por partida


class MarcadorOut(BaseModel):
    clave: str
    parejas: list[VistaPareja]  # mesa's own view of a pareja: name, tantos, amarracos, piedras, ...
    jugadores: list[str]
    mano: int  # the seat that is mano for the next hand
    mano_nombre: str
    reglas: str
    tantos_juego: int
    juegos_por_vaca: int
    vacas_por_partida: int
    numero_mano: int  # the next hand's n
    manos: int  # hands confirmed
    ultimas: list[str]  # the last hands, newest first, in the player's language
    terminada: bool
    ganador: int | None
    ganador_nombre: str | None
    problema: str
    avisos: list[str] = []  # the last hand's end of a juego, vaca or partida, each one line
    siguiente: str | None = None  # once it ended: the clave of the partida a phone started next


class CreadaOut(BaseModel):
    clave: str
    url: str  # the partida's page, /p/{clave}: its link and QR are shared with the table
    marcador: MarcadorOut


class BorradorOut(BaseModel):
    datos: DatosBorrador
    version: int  # 0: nothing saved yet for this hand


class BorradorIn(Estricto):
    datos: DatosBorrador
    version: Annotated[int, Field(ge=0)] | None = None  # the version read; None overwrites whatever is there


class VersionOut(BaseModel):
    version: int


class PreviaIn(Estricto):
    cartas: Cartas
    lances: dict[str, Any] = Field(default_factory=dict)
    mano: Asiento | None = None


class ConfirmarManoIn(PreviaIn):
    id_mano: Annotated[str, Field(pattern=ID_MANO)]
    n: Annotated[int, Field(ge=1, le=100_000)]
    origen: Annotated[str, Field(max_length=16)] = "manual"


class LanceOut(BaseModel):
    lance: str  # as the cards name it: grande, chica, pares, juego or punto
    fila: str  # the row it is entered in: grande, chica, pares or juego (punto's row too)
    nombre: str
    apostable: bool
    motivo: str
    resultado: Any


class FilaTanteoOut(BaseModel):
    lance: str
    nombre: str
    tantos: list[int]


class RazonOut(BaseModel):
    pareja: int
    nombre: str
    tantos: int
    razon: str  # scoring/'s reason in the player's language (resultado's detalle keeps the Spanish)


class TanteoOut(BaseModel):
    resultado: dict[str, Any]  # `mus tanteo --json` of the hand
    parejas: list[str]
    filas: list[FilaTanteoOut]
    total: list[int]
    razones: list[RazonOut]
    avisos: list[str]  # end of a juego, vaca or partida


class PreviaOut(BaseModel):
    lances: list[LanceOut]
    tanteo: TanteoOut | None  # once the four hands are in


class ConfirmadaOut(BaseModel):
    n: int
    id_mano: str
    repetida: bool  # the same id_mano was already stored: this is its stored result
    tanteo: TanteoOut
    marcador: MarcadorOut


class DeshacerIn(Estricto):
    n: Annotated[int, Field(ge=1, le=100_000)]  # the hand to undo: it must still be the last


def _mano(body: PreviaIn) -> ManoNueva:
    mano = ManoNueva(cartas=list(body.cartas), lances=dict(body.lances), mano=body.mano)
    if isinstance(body, ConfirmarManoIn):  # a hand to confirm, not only to preview
        mano = replace(mano, id_mano=body.id_mano, n=body.n, origen=body.origen)
    return mano


@router.post("", status_code=201, response_model=CreadaOut)
def crear(s: Sesion, idioma: Idioma, body: Annotated[PartidaIn, Depends(cuerpo(PartidaIn))]) -> Any:
    reglas = servicio.reglas_de(body.reglas, body.toml, body.juegos, body.vacas)
    clave = servicio.crear_partida(s, list(body.jugadores), reglas, body.mano, idioma)
    return {"clave": clave, "url": f"/p/{clave}", "marcador": servicio.ver(s, clave, idioma)}


def sin_cambios(request: Request, s: Session, clave: str, idioma: str) -> tuple[dict[str, str], Response | None]:
    """The marcador's ETag headers (server.servicios.partidas.version_marcador), and the answer 304 Not
    Modified when the phone's ``If-None-Match`` holds that version: nothing else is read. A
    phone polls every few seconds; only a change costs reading the hands."""
    etag = servicio.version_marcador(s, clave, idioma)
    cabeceras = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"}
    vistas = {v.strip().removeprefix("W/") for v in request.headers.get("if-none-match", "").split(",")}
    return cabeceras, (Response(status_code=304, headers=cabeceras) if etag in vistas else None)


@router.get("/{clave}", response_model=MarcadorOut, responses={304: {}})
def ver(clave: str, s: Sesion, idioma: Idioma, request: Request, response: Response) -> Any:
    """The marcador; 304 with no body when ``If-None-Match`` holds its ETag."""
    cabeceras, igual = sin_cambios(request, s, clave, idioma)
    if igual is not None:
        return igual
    response.headers.update(cabeceras)
    return servicio.ver(s, clave, idioma)


@router.get("/{clave}/borrador", response_model=BorradorOut)
def borrador(clave: str, s: Sesion, idioma: Idioma) -> Any:
    datos, version = servicio.leer_borrador(s, clave, idioma)
    return {"datos": datos, "version": version}


@router.put("/{clave}/borrador", response_model=VersionOut)
def guardar_borrador(clave: str, s: Sesion, body: Annotated[BorradorIn, Depends(cuerpo(BorradorIn))]) -> Any:
    return {"version": servicio.guardar_borrador(s, clave, body.datos, body.version)}


@router.post("/{clave}/previsualizar", response_model=PreviaOut)
def previsualizar(clave: str, s: Sesion, idioma: Idioma, body: Annotated[PreviaIn, Depends(cuerpo(PreviaIn))]) -> Any:
    return servicio.previsualizar(s, clave, _mano(body), idioma)


@router.post("/{clave}/manos", status_code=201, response_model=ConfirmadaOut)
def confirmar(
    clave: str,
    idioma: Idioma,
    abrir: Annotated[Callable[[], AbstractContextManager[Session]], Depends(sesiones)],
    body: Annotated[ConfirmarManoIn, Depends(cuerpo(ConfirmarManoIn))],
    request: Request,
    tareas: BackgroundTasks,
) -> Any:
    # a hand of this server's own tournament is written to it in the same transaction
    hecha = servicio.confirmar_mano(abrir, clave, _mano(body), idioma, mesa_torneo.al_confirmar)
    if not hecha.get("repetida"):  # the deck learns from the hand's photo, in its own thread
        lectura.aprender_tras_confirmar(abrir, clave, list(body.cartas), body.origen)
    # a remote tournament table's hand goes on to its server once this is answered
    tareas.add_task(mesa_torneo.enviar_si_torneo, abrir, clave, idioma, mesa_torneo.remotos_de(request.app.state))
    return hecha


@router.post("/{clave}/deshacer", response_model=MarcadorOut)
def deshacer(clave: str, s: Sesion, idioma: Idioma, body: Annotated[DeshacerIn, Depends(cuerpo(DeshacerIn))]) -> Any:
    return servicio.deshacer(s, clave, body.n, idioma)


class OtraOut(BaseModel):
    clave: str
    url: str


@router.post("/{clave}/otra", response_model=OtraOut)
def otra(
    clave: str, idioma: Idioma, abrir: Annotated[Callable[[], AbstractContextManager[Session]], Depends(sesiones)]
) -> Any:
    """Another partida with the same players, seats and rules once this one ended (the same one
    for every phone that asks)."""
    nueva = servicio.otra_partida(abrir, clave, idioma)
    return {"clave": nueva, "url": f"/p/{nueva}"}


def _descarga(clave: str, extension: str) -> dict[str, str]:
    """A download's headers: the file's name, the same for the JSON and the CSV of a partida."""
    return {"Content-Disposition": f'attachment; filename="partida-{clave[:8]}.{extension}"'}


@router.get("/{clave}/exportar.json")
def exportar_json(clave: str, s: Sesion) -> Any:
    return JSONResponse(servicio.exportar_json(s, clave), headers=_descarga(clave, "json"))


@router.get("/{clave}/exportar.csv")
def exportar_csv(clave: str, s: Sesion) -> Response:
    return Response(
        servicio.exportar_csv(s, clave), media_type="text/csv; charset=utf-8", headers=_descarga(clave, "csv")
    )
