"""``POST /api/leer``: the cards in one photo, answered exactly as ``mus leer --json`` answers
for one image (vision.cli_leer's code).

Multipart fields: ``foto`` (the photo, at most server.servicios.lectura.MAX_FOTO bytes) and optionally
``partida`` (a partida's clave: read against the deck registered for it) and ``abajo`` (0-3,
default 0: the partida's seat whose cards lie at the photo's bottom edge, the photographer's;
the answer's ``asiento`` k is then the partida's player k, whoever took the photo). A photo that shows no
cards answers 422 with ``mus leer``'s own ``{"imagen", "error"}``; anything else refused is
``{"error": one line in the player's language}``: 413 too big, 415 not an image we read (HEIC),
429 too many photos from one address, 503 the readers busy (retry after the ``Retry-After``
seconds). docs/web.md describes it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from python_multipart.multipart import MultipartParseError, MultipartParser, parse_options_header
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from mesa.i18n import N_
from server.cuerpo import CuerpoGrande, CuerpoLento, declarado_excede, leer_trozos
from server.deps import cuerpo, sesiones
from server.handlers import responder
from server.limites import Limite
from server.servicios import lectura
from server.servicios.partidas import DatosBorrador, WebError
from server.servidor import Estricto

router = APIRouter(prefix="/api", tags=["lectura"])

# Photos per minute from one address: a table sends one every ~30 s (four seat by seat), and a
# bar's phones share one address behind its router.
LIMITE_LEER: Final = 120
MARGEN_FORMULARIO: Final = 64 * 1024  # the multipart body beyond the photo: headers, the clave
DEMASIADAS: Final = N_("demasiadas fotos seguidas: espera un momento")


class CartaLeidaOut(BaseModel):
    carta: str  # scoring's notation, "12o"
    confianza: float
    caja: list[float]  # x1, y1, x2, y2 in the photo's pixels (upright as its EXIF tag says)
    asiento: int | None = None  # the partida's seat (0 at the photo's bottom when abajo is 0); absent without seats
    dudosa: bool
    alternativa: str | None = None  # the reader's runner-up, only on doubtful cards


class LecturaOut(BaseModel):
    """``mus leer --json`` for one image (the keys it leaves out stay out)."""

    imagen: str | None = None  # absent in a seat's or a corrected reading when not given
    cartas: list[CartaLeidaOut] = Field(default_factory=list)
    asientos: list[list[str]] | None = None  # the four hands in the partida's seat order
    avisos: list[str] = Field(default_factory=list)  # the reader's, in Spanish
    baraja_desconocida: bool = False
    error: str | None = None  # the photo shows no cards (then only imagen and error)


async def plaza(request: Request) -> AsyncIterator[lectura.Plaza]:
    """A reader's place, taken before the photo's body is read: with no room the body is refused
    unread (503, Retry-After); given back when the reading that took it ends, or with the
    request when none did."""
    reservada = pool(request).reservar()
    try:
        yield reservada
    finally:
        reservada.cerrar()


PlazaLectura = Annotated[lectura.Plaza, Depends(plaza, scope="function")]


def pool(request: Request) -> lectura.PoolLecturas:
    """The process's reading pool (made with the first photo)."""
    state = request.app.state
    with _CREAR:
        if getattr(state, "lecturas", None) is None:
            state.lecturas = lectura.pool_por_defecto()
        return state.lecturas


def limite(request: Request) -> Limite:
    """The photos' limit: ``LIMITE_LEER`` a minute, unless the app's state names another."""
    return getattr(request.app.state, "limite_leer", None) or Limite("leer", LIMITE_LEER, 60.0)


_CREAR = threading.Lock()


def limitar(request: Request) -> None:
    """Photos per client address, counted in the database with the server's other limits
    (server.limites: every host behind a proxy counts together); a dependency of every route
    that reads a photo."""
    srv = request.app.state.servidor
    if not srv.contadores.permitir(limite(request), srv.direccion(request)):
        raise WebError(DEMASIADAS, 429)


async def formulario(request: Request, campos: tuple[str, ...]) -> tuple[dict[str, tuple[str, bytes]], dict[str, str]]:
    """The multipart body: the photos named in ``campos`` (field -> (file name, bytes)) and
    the text fields, read within the photo limit (a bigger body is refused before it is read
    whole) and server.cuerpo's time limits. The photos stay in memory (the body is parsed here,
    never spooled to a temporary file) and go when the request does."""
    limite_cuerpo = len(campos) * lectura.MAX_FOTO + MARGEN_FORMULARIO
    grande = WebError(lectura.FOTO_GRANDE, 413, mib=lectura.MAX_FOTO // (1024 * 1024))
    if declarado_excede(request, limite_cuerpo):
        raise grande
    try:
        crudo = await leer_trozos(request.stream(), limite_cuerpo)
    except CuerpoGrande:
        raise grande from None
    except CuerpoLento:
        raise WebError(lectura.FOTO_LENTA, 408) from None
    try:
        partes = partes_multipart(crudo, request.headers.get("content-type", ""), len(campos) + MAX_TEXTOS)
    except ValueError:  # not multipart, malformed, or too many parts
        raise WebError(lectura.FOTO_VACIA, 422) from None
    fotos = {p.nombre: (p.fichero or p.nombre, p.datos) for p in partes if p.nombre in campos and p.fichero is not None}
    textos = {p.nombre: p.datos.decode("utf-8", "replace") for p in partes if p.fichero is None}
    if len(fotos) > len(campos) or any(len(v) > MAX_TEXTO for v in textos.values()):
        raise WebError(lectura.FOTO_VACIA, 422)
    return fotos, textos


MAX_TEXTOS: Final = 8  # text fields of a photo's form: partida, asiento, fotos_asiento, palo...
MAX_TEXTO: Final = 1024 * 1024  # characters of one (the seats' readings so far are a few KB)


@dataclass
class Parte:
    """One part of a multipart body: its field name, its file name (None: a text field), its bytes."""

    nombre: str
    fichero: str | None
    datos: bytes


def partes_multipart(cuerpo: bytes, tipo: str, max_partes: int) -> list[Parte]:
    """The parts of a ``multipart/form-data`` body held in memory, parsed by python-multipart's
    streaming parser into bytes (Starlette's form parser would spool a file over 1 MiB to disk);
    ValueError for another type, a malformed body or more than ``max_partes`` parts."""
    medio, opciones = parse_options_header(tipo)
    frontera = opciones.get(b"boundary")
    if medio != b"multipart/form-data" or not frontera:
        raise ValueError("not multipart/form-data")
    partes: list[Parte] = []
    trozos: list[bytes] = []
    cabeceras: dict[bytes, bytes] = {}
    campo: list[bytes] = []
    valor: list[bytes] = []

    def fin_cabecera() -> None:
        cabeceras[b"".join(campo).lower()] = b"".join(valor)
        campo.clear()
        valor.clear()

    def fin_parte() -> None:
        _, disp = parse_options_header(cabeceras.get(b"content-disposition", b""))
        fichero = disp.get(b"filename")
        nombre = disp.get(b"name", b"").decode("utf-8", "replace")
        partes.append(Parte(nombre, None if fichero is None else fichero.decode("utf-8", "replace"), b"".join(trozos)))
        if len(partes) > max_partes:
            raise ValueError("too many parts")
        trozos.clear()
        cabeceras.clear()

    callbacks: Any = {
        "on_header_field": lambda d, a, b: campo.append(bytes(d[a:b])),
        "on_header_value": lambda d, a, b: valor.append(bytes(d[a:b])),
        "on_header_end": fin_cabecera,
        "on_part_data": lambda d, a, b: trozos.append(bytes(d[a:b])),
        "on_part_end": fin_parte,
    }
    try:
        parser = MultipartParser(frontera, callbacks)
        parser.write(cuerpo)
        parser.finalize()
    except MultipartParseError as exc:
        raise ValueError(str(exc)) from None
    return partes


def ocupado(exc: lectura.Ocupado, request: Request) -> Response:
    """The readers are busy: retry after a moment (the page does it by itself)."""
    return responder(exc, request)


def baraja(abrir: Callable[[], AbstractContextManager[Session]], clave: str | None) -> bytes | None:
    """The deck registered for partida ``clave`` (None: none, or no partida given)."""
    if not clave:
        return None
    with abrir() as s:
        return lectura.baraja_de_partida(s, clave)


Sesiones = Annotated[Callable[[], AbstractContextManager[Session]], Depends(sesiones)]


@router.post(
    "/leer",
    response_model=LecturaOut,
    response_model_exclude_unset=True,
    dependencies=[Depends(limitar)],
    responses={422: {"model": LecturaOut}, 413: {}, 415: {}, 429: {}, 503: {}},
)
async def leer(request: Request, abrir: Sesiones, sitio: PlazaLectura) -> Any:
    fotos, textos = await formulario(request, ("foto",))
    if "foto" not in fotos:
        raise WebError(lectura.FOTO_VACIA, 422)
    abajo = _abajo(textos)
    deck = await run_in_threadpool(baraja, abrir, textos.get("partida"))
    nombre, datos = fotos["foto"]  # named as `mus leer` names the file it read
    try:
        out = await pool(request).ejecutar(lectura.leer, datos, nombre, deck, abajo, plaza=sitio)
    except lectura.Ocupado as exc:
        return ocupado(exc, request)
    lectura.guardar_foto_mesa(textos.get("partida"), datos, out, abajo)  # to learn the deck once confirmed
    return JSONResponse(LecturaOut.model_validate(out).model_dump(exclude_unset=True), 422 if "error" in out else 200)


class AsientoOut(BaseModel):
    lectura: LecturaOut  # this photo's reading (no seats)
    fotos_asiento: list[LecturaOut | None]  # the four seats' readings so far
    mesa: LecturaOut | None  # the four hands' reading, once the four are read
    cartas: list[str] | None  # the four hands in notation, seat order


@router.post(
    "/leer/asiento", response_model=AsientoOut, response_model_exclude_unset=True, dependencies=[Depends(limitar)]
)
async def leer_asiento(request: Request, abrir: Sesiones, sitio: PlazaLectura) -> Any:
    """Seat by seat: one player's four cards (fields ``foto``, ``partida``, ``asiento`` 0-3 and
    ``fotos_asiento``, the JSON of the seats read so far as the draft keeps them). Every seat
    here is the partida's; ``asiento`` left out is ``abajo`` (default 0), the photographer's
    own seat: a phone's owner photographs their own cards. ``quitar``: JSON, the indices in this
    photo's reading (as a refusal answered it) of what is no card (a cup read as one)."""
    fotos, textos = await formulario(request, ("foto",))
    if "foto" not in fotos:
        raise WebError(lectura.FOTO_VACIA, 422)
    abajo = _abajo(textos)
    asiento = textos.get("asiento", str(abajo))
    if asiento not in ("0", "1", "2", "3"):
        raise WebError(ASIENTO_MAL, 422)
    version = _version(textos.get("version")) if "fotos_asiento" not in textos else None
    try:
        previas = json.loads(textos.get("fotos_asiento") or "[]")
    except ValueError:
        raise WebError(lectura.LECTURA_ROTA, 422) from None
    if not isinstance(previas, list):
        raise WebError(lectura.LECTURA_ROTA, 422)
    quitar = _quitar(textos.get("quitar") or "[]")
    deck, jugadores, borrador = await run_in_threadpool(_partida_de, abrir, textos.get("partida", ""), version)
    if borrador is not None:  # the other seats' readings as the stored draft holds them
        previas = list(borrador.fotos_asiento)
    nombre, datos = fotos["foto"]
    try:
        out = await pool(request).ejecutar(
            lectura.leer_asiento, datos, nombre, deck, int(asiento), previas, jugadores, quitar, plaza=sitio
        )
    except lectura.Ocupado as exc:
        return ocupado(exc, request)
    lectura.guardar_foto_asiento(textos.get("partida"), int(asiento), datos)  # to learn the deck once confirmed
    return out


ASIENTO_MAL: Final = N_("asiento desconocido: de 0 a 3")
ABAJO_MAL: Final = N_("abajo: el asiento de quien hace la foto, de 0 a 3")


def _quitar(texto: str) -> list[int]:
    """The form's ``quitar``: a JSON list of at most 40 card indices; 422 otherwise."""
    try:
        quitar = json.loads(texto)
    except ValueError:
        raise WebError(lectura.LECTURA_ROTA, 422) from None
    if not (isinstance(quitar, list) and len(quitar) <= 40 and all(type(i) is int for i in quitar)):
        raise WebError(lectura.LECTURA_ROTA, 422)
    return quitar


def _abajo(textos: dict[str, str]) -> int:
    """The form's ``abajo``: the partida's seat at the photo's bottom edge (0 when not given);
    422 for anything but 0-3."""
    abajo = textos.get("abajo", "0").strip()
    if abajo not in ("0", "1", "2", "3"):
        raise WebError(ABAJO_MAL, 422)
    return int(abajo)


def _version(texto: str | None) -> int | None:
    """The form's ``version``: the draft version the phone's hand extends (None: not sent)."""
    if texto is None:
        return None
    if not texto.strip().isdigit():
        raise WebError(lectura.LECTURA_ROTA, 422)
    return int(texto)


def _partida_de(
    abrir: Callable[[], AbstractContextManager[Session]], clave: str, version: int | None = None
) -> tuple[bytes | None, list[str], DatosBorrador | None]:
    """The partida's deck and players, and with ``version`` its stored draft at that version."""
    with abrir() as s:
        borrador = lectura.del_borrador(s, clave, version) if version is not None else None
        return lectura.baraja_de_partida(s, clave), lectura.jugadores_de_partida(s, clave), borrador


class CorregirIn(Estricto):
    """A correction: the card (``indice``, ``carta``) and either the reading it is in (``lectura``,
    and seat by seat ``fotos_asiento``) or, instead of sending them back, the partida and the
    draft version the phone holds (``partida``, ``version``): the server reads them from the
    stored draft."""

    lectura: dict[str, Any] | None = None  # the reading as /api/leer (or /api/leer/asiento) gave it
    indice: Annotated[int, Field(ge=0, le=39)]  # the card in lectura.cartas
    carta: Annotated[str, Field(max_length=8)]  # the right card, "12o"
    fotos_asiento: Annotated[list[dict[str, Any] | None], Field(max_length=4)] | None = None
    partida: Annotated[str, Field(max_length=64)] | None = None
    version: Annotated[int, Field(ge=0)] | None = None


class CorregirOut(BaseModel):
    lectura: LecturaOut
    cambios: list[tuple[int, str, str]]  # (card, before, after): two when a card was swapped
    cartas: list[str] | None
    fotos_asiento: list[LecturaOut | None] | None = None


@router.post("/leer/corregir", response_model=CorregirOut, response_model_exclude_unset=True)
def corregir(body: Annotated[CorregirIn, Depends(cuerpo(CorregirIn))], abrir: Sesiones) -> Any:
    """A card of a reading corrected by the player (no photo: the rules of mesa/ and vision/); the
    reading from the stored draft when the phone sends its version instead (409 with the stored
    draft when that is not the version it holds)."""
    leida, fotos = body.lectura, body.fotos_asiento
    if leida is None:
        if body.partida is None or body.version is None:
            raise WebError(lectura.LECTURA_ROTA, 422)
        with abrir() as s:
            borrador = lectura.del_borrador(s, body.partida, body.version)
        if borrador.lectura is None:
            raise WebError(lectura.LECTURA_ROTA, 422)
        leida, fotos = borrador.lectura, list(borrador.fotos_asiento)
    return lectura.corregir(leida, body.indice, body.carta, fotos)
