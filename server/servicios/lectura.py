"""Photos from the phones, without HTTP: bytes -> a checked image -> the reading, in a bounded
pool of reader threads.

A photo is at most :data:`MAX_FOTO` bytes and :data:`MAX_PIXELES` pixels (read from its header
before anything is decoded), JPEG, PNG or WebP, turned as its EXIF orientation tag says
(OpenCV's decoder applies the tag; tests/test_web_leer.py checks it on a photo with the tag).
Decoded, it holds at most vision.images.MAX_DECODED_PIXELS (12 MP): a JPEG is decoded reduced
by libjpeg as far as its long side stays at vision.images.READ_LONG_SIDE or more (a phone's
12 MP at half its size: read as well, in less time) and always under that limit, never whole,
and the reading's boxes are scaled back to the sent photo's pixels, where the page draws them; a
PNG, WebP or BMP over the limit, which cannot be reduced while decoded, is refused
(:func:`decodificar_foto`).
An iPhone's HEIC/HEIF (when the browser did not convert it) and anything unreadable get a clear
message. The photo lives only in memory (server.rutas.leer parses the upload itself, no temporary
file): nothing is written anywhere. The last table photo of a partida, or its seats' photos when
the hand is read seat by seat, stays in memory until its next confirmed hand, which teaches the
partida's deck from it in the background (:func:`aprender_tras_confirmar`), then it is dropped; a
few partidas' photos at most.

Readings run in a :class:`PoolLecturas`: a fixed number of threads and a bounded queue; when
both are full a photo is refused at once with "busy, retry in a moment" instead of waiting, so
a burst of photos never holds up the marcador pages (they never wait on this pool). A route
takes its place (:meth:`PoolLecturas.reservar`) before it reads the photo's body: with no room,
the body is refused unread.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import os
import struct
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
from sqlalchemy.orm import Session

from mesa.asientos import N_ASIENTOS, AsientoError, AsientoPorAsiento, FotoAsiento, turn_seats
from mesa.i18n import N_, SOURCE, t
from mesa.lectura import PALOS_FOTOS, LecturaError, PaloError, mano_de, registrar_baraja
from mesa.lectura import comprobar_palo as comprobar_palo_app
from mesa.storage import Aviso
from scoring.cards import Card, NotationError
from server.servicios.partidas import DatosBorrador, WebError, _partida, leer_borrador

MAX_FOTO: Final = 16 * 1024 * 1024  # bytes: a phone's photo is a few MB
# Pixels a photo may have, read from its header before it is decoded: the biggest phone cameras
# take 48-50 MP (8000x6000 = 48 MP); a usual photo is 12 MP. A 631-byte JPEG claiming
# 30000x30000 would otherwise take 12 s and 5 GB to decode.
MAX_PIXELES: Final = 50_000_000
# the formats whose header is read (Pillow's names; JPEG's takes a phone's MPO too): phones send
# JPEG, PNG or WebP
FORMATOS: Final = ("JPEG", "PNG", "WEBP", "BMP")
# ISO-BMFF brands of HEIF images (an iPhone's HEIC among them): OpenCV reads none of them here
HEIF: Final = frozenset(
    {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1", b"avif", b"avis"}
)

FOTO_GRANDE: Final = N_("la foto es demasiado grande: como mucho {mib} MB")
FOTO_VACIA: Final = N_("no ha llegado ninguna foto")
FOTO_HEIC: Final = N_(
    "la foto está en formato HEIC/HEIF, que no se puede leer: en el iPhone elige "
    "Ajustes > Cámara > Formatos > Más compatible, o envía la foto como JPEG"
)
FOTO_ILEGIBLE: Final = N_("no es una foto que se pueda leer: envía una foto JPEG o PNG")
FOTO_PIXELES: Final = N_("la foto tiene demasiados píxeles: como mucho {mp} megapíxeles")
FOTO_PEQUENA: Final = N_("la foto es demasiado pequeña o estrecha para ver una carta")
FOTO_LENTA: Final = N_("la foto tarda demasiado en llegar: vuelve a enviarla")
OCUPADO: Final = N_("el lector está ocupado con otras fotos: vuelve a intentarlo en un momento")

T = TypeVar("T")


def es_heif(data: bytes) -> bool:
    """Whether ``data`` is an ISO-BMFF file (its first box ``ftyp``) of a HEIF brand, as major
    brand or among the compatible ones."""
    if data[4:8] != b"ftyp":
        return False
    size = int.from_bytes(data[:4], "big")
    box = data[8 : min(max(size, 16), 64)]
    brands = {box[i : i + 4] for i in range(0, len(box) - 3, 4)}  # major, version, compatible...
    return bool(brands & HEIF)


def comprobar_cabecera(data: bytes) -> tuple[int, int]:
    """The photo's (width, height) read from its header alone, nothing decoded (Pillow reads
    the header when it opens a file; the pixels only on ``load()``); WebError (a message for
    the player) when it is too big, empty, HEIC/HEIF, has more than :data:`MAX_PIXELES` pixels,
    or has no header we read (truncated, invalid, another format)."""
    ancho, alto, _ = _cabecera(data)
    return ancho, alto


def _abrir(data: bytes) -> Any:
    """The photo opened by Pillow's own plugin for its format (header read, no pixel): what
    ``Image.open(..., formats=FORMATOS)`` does, without going through ``Image.open``, which
    ultralytics replaces in a process that imported it (tests, training) by one that tries to
    install a HEIF plugin from the network for a file it cannot identify."""
    from PIL import Image, UnidentifiedImageError

    Image.init()
    for formato in FORMATOS:
        factory, accept = Image.OPEN[formato]
        aceptado = accept(data[:16]) if accept is not None else True
        if aceptado and not isinstance(aceptado, str):  # a str: the plugin's reason to refuse
            return factory(io.BytesIO(data), "")
    raise UnidentifiedImageError("no es JPEG, PNG, WebP ni BMP")


def _cabecera(data: bytes) -> tuple[int, int, str]:
    """:func:`comprobar_cabecera`'s check, and the format Pillow read the header of."""
    from PIL import Image, UnidentifiedImageError  # the header only; loaded with the first photo

    if len(data) > MAX_FOTO:
        raise WebError(FOTO_GRANDE, 413, mib=MAX_FOTO // (1024 * 1024))
    if not data:
        raise WebError(FOTO_VACIA, 422)
    if es_heif(data):
        raise WebError(FOTO_HEIC, 415)
    muchos = WebError(FOTO_PIXELES, 413, mp=MAX_PIXELES // 1_000_000)
    try:
        with warnings.catch_warnings():
            # Pillow's own alarm, above 89 MP: ours is lower, and said below
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with _abrir(data) as im:
                (ancho, alto), formato = im.size, str(im.format)
    except Image.DecompressionBombError:  # over 179 MP: Pillow refuses to open it at all
        raise muchos from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError, struct.error):
        raise WebError(FOTO_ILEGIBLE, 415) from None
    if ancho * alto > MAX_PIXELES:
        raise muchos
    return ancho, alto, formato


def comprobar_foto(data: bytes) -> np.ndarray:
    """The BGR image of a photo's bytes, upright as its EXIF tag says, reduced to at most
    MAX_DECODED_PIXELS (:func:`decodificar_foto`); WebError (a message for the player) when it
    is too big, empty, HEIC/HEIF, has too many pixels (its header is read first:
    :func:`comprobar_cabecera`), is unreadable or too small to hold a card."""
    return decodificar_foto(data)[0]


def decodificar_foto(data: bytes) -> tuple[np.ndarray, int]:
    """:func:`comprobar_foto`'s image and the factor it was reduced by (1, 2, 4 or 8: a pixel
    of the image is that many of the photo's, each way). A JPEG is decoded reduced by libjpeg
    as far as vision.images.reading_reduction says (a phone's 12 MP at half its size), over
    MAX_DECODED_PIXELS always, never whole; any other format over that limit is refused (413,
    naming it): OpenCV would decode it whole before shrinking it."""
    import cv2  # OpenCV: only when a photo comes

    from vision.images import MAX_DECODED_PIXELS, ImageError, decode_image, reading_reduction, reduction

    ancho, alto, formato = _cabecera(data)  # before any pixel is decoded
    jpeg = formato in ("JPEG", "MPO")  # MPO: a phone's JPEG with a second image
    factor = reading_reduction(ancho, alto) if jpeg else reduction(ancho, alto)
    if factor != 1 and not jpeg:
        raise WebError(FOTO_PIXELES, 413, mp=MAX_DECODED_PIXELS // 1_000_000)
    if factor == 0:  # not with MAX_PIXELES at 50 MP (1/2 brings it to 12.5), were it raised
        raise WebError(FOTO_PIXELES, 413, mp=MAX_PIXELES // 1_000_000)
    try:
        img = decode_image(data, "la foto", factor)
    except ImageError:
        raise WebError(FOTO_PEQUENA, 422) from None
    except cv2.error:  # a body the header promised and the decoder could not follow
        raise WebError(FOTO_ILEGIBLE, 415) from None
    if img is None:
        raise WebError(FOTO_ILEGIBLE, 415)
    return img, factor


def leer(data: bytes, nombre: str = "foto", baraja: bytes | None = None, abajo: int = 0) -> dict[str, Any]:
    """``mus leer --json``'s object for one photo (vision.cli_leer's own code): the reading
    against ``baraja`` (a registered deck's .npz bytes) or the shipped reader, or ``{"imagen",
    "error"}`` when it shows no cards. Its seats are the partida's, ``abajo`` the one at the
    photo's bottom edge (mesa.asientos.turn_seats; 0: ``mus leer``'s own answer). WebError for a
    photo that is no image to read or a registered deck that cannot be used."""
    from vision.cli_leer import json_entry, read_image  # vision: loaded with the first photo

    img, factor = decodificar_foto(data)
    deck = cargar_baraja(baraja)
    # the boxes in the sent photo's pixels: the page draws them over the photo it holds, at its
    # own size (server/static/mano_foto.js), and a seat's reading sits beside the others'
    return json_entry(
        nombre, lambda: turn_seats(_leida(deck, lambda r: read_image(r, img, nombre)), abajo).scaled(factor)
    )


def _leida(baraja: BarajaCargada | None, leer_con: Callable[[Any], Any]) -> Any:
    """The reading against the partida's deck, registered from its suit photos or learned from
    its confirmed hands (a learned deck reads the cards it knows as a registered one and the
    others as the generic reader); the generic reading when the partida has none. A learned deck
    is used on every photo, not only on those the generic reader calls unfamiliar: on a design
    the classifier never saw the generic reader flagged 5.5-5.8 right cards a photo against
    0.9-1.9 registered, and called the deck unfamiliar on only one photo in five (issue 53's
    real decks), so reading it only then left most hands as doubtful as before any learning."""
    return leer_con(_lector_general() if baraja is None else baraja.lector)


def _lector_general() -> Any:
    from vision.reader import default_reader  # vision: loaded with the first photo

    return default_reader()


BARAJA_INSERVIBLE: Final = N_("la baraja registrada de la partida no se puede usar: {motivo}")


class BarajaCargada:
    """A partida's registered deck as loaded once: the deck (vision.registered_deck's), how many
    cards it knows when it was learned from confirmed hands only (:func:`cartas_aprendidas`), and
    the reader against it, made with the first photo read with it."""

    def __init__(self, deck: Any) -> None:
        self.deck = deck
        self.aprendidas: int | None = int(deck.known.sum()) if deck.series == 0 else None
        self._lector: Any = None
        self._lock = threading.Lock()

    @property
    def lector(self) -> Any:
        """The vision.reader.CardReader against the deck (WebError 422 when it cannot be used)."""
        from vision.reader import CardReader  # vision: loaded with the first photo
        from vision.registered_deck import DeckError

        with self._lock:
            if self._lector is None:
                try:
                    self._lector = CardReader(deck=self.deck)
                except DeckError as exc:
                    raise WebError(BARAJA_INSERVIBLE, 422, motivo=str(exc)) from None
            return self._lector


class BarajasCargadas:
    """The decks loaded from their .npz bytes, each once, kept by the bytes' SHA-256 (a new
    registration or a deck learned from a hand is other bytes, so another entry): at most
    ``tope``, the least recently used dropped first; thread-safe (the reader threads share it).
    Two threads that load the same new deck at once both load it, and one is kept."""

    def __init__(self, tope: int = 8) -> None:
        self.tope = tope
        self._barajas: OrderedDict[str, BarajaCargada] = OrderedDict()
        self._lock = threading.Lock()

    def cargar(self, npz: bytes) -> BarajaCargada:
        """The deck of ``npz``, loaded now only when these bytes were not (WebError 422 for a
        deck that cannot be used)."""
        huella = hashlib.sha256(npz).hexdigest()
        with self._lock:
            hecha = self._barajas.get(huella)
            if hecha is not None:
                self._barajas.move_to_end(huella)
                return hecha
        nueva = _cargar(npz)  # outside the lock: other decks' photos go on
        with self._lock:
            hecha = self._barajas.setdefault(huella, nueva)
            self._barajas.move_to_end(huella)
            while len(self._barajas) > self.tope:
                self._barajas.popitem(last=False)
            return hecha

    def __len__(self) -> int:
        with self._lock:
            return len(self._barajas)


def _cargar(npz: bytes) -> BarajaCargada:
    from vision.registered_deck import DeckError, RegisteredDeck  # vision: loaded with the first deck

    try:
        return BarajaCargada(RegisteredDeck.from_bytes(npz))
    except DeckError as exc:
        raise WebError(BARAJA_INSERVIBLE, 422, motivo=str(exc)) from None


BARAJAS: Final = BarajasCargadas()


def cargar_baraja(npz: bytes | None) -> BarajaCargada | None:
    """A partida's deck (its .npz bytes) as loaded once (:data:`BARAJAS`); None for none."""
    return BARAJAS.cargar(npz) if npz else None


# -- seat by seat, and corrections: mesa/'s rules on the reading the page holds ----------------------


def _sesion(fotos_asiento: list[dict[str, Any] | None], jugadores: list[str] | None) -> AsientoPorAsiento:
    """mesa.asientos' session holding the seats already read (their readings' JSON)."""
    from vision.detections import CardDetections  # vision: loaded with the first photo

    ses = AsientoPorAsiento(jugadores)
    for s, j in enumerate((list(fotos_asiento) + [None] * N_ASIENTOS)[:N_ASIENTOS]):
        if j:
            ses.fotos[s] = FotoAsiento(_de_json(CardDetections, j))
    return ses


def _de_json(tipo: Any, datos: dict[str, Any]) -> Any:
    try:
        return tipo.from_json(datos)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise WebError(LECTURA_ROTA, 422) from None


LECTURA_ROTA: Final = N_("la lectura enviada no se entiende: vuelve a hacer la foto")


def _seguir(ses: AsientoPorAsiento) -> dict[str, Any]:
    """The seats' readings, and the four hands' reading once all four are there."""
    fotos = _fotos(ses)
    if not ses.completas:
        return {"fotos_asiento": fotos, "mesa": None, "cartas": None}
    try:
        mesa = ses.lectura().to_json()  # the four hands grouped once, here
    except LecturaError as exc:  # corrections made two seats hold one card
        raise WebError(str(exc), 422) from None
    return {"fotos_asiento": fotos, "mesa": mesa, "cartas": _manos_json(mesa)}


def _fotos(ses: AsientoPorAsiento) -> list[dict[str, Any] | None]:
    return [None if f is None else f.lectura.to_json() for f in ses.fotos]


def _manos_json(lectura: dict[str, Any]) -> list[str] | None:
    """mesa.lectura.manos of a reading from its JSON's hands (``asientos``): not grouped again."""
    asientos = lectura.get("asientos")
    return [" ".join(h) for h in asientos] if asientos else None


def leer_asiento(
    data: bytes,
    nombre: str,
    baraja: bytes | None,
    asiento: int,
    fotos_asiento: list[dict[str, Any] | None],
    jugadores: list[str] | None,
    quitar: list[int] | None = None,
) -> dict[str, Any]:
    """One seat's photo (seat by seat): its four cards, checked as the app checks them
    (mesa.asientos: four cards, none already in another seat's photo), with the other seats'
    readings ``fotos_asiento``. ``quitar``: the indices, in this photo's reading, of what the
    player says is no card (a cup, a coin read as one), left out before the checks. Answers
    ``lectura`` (this photo's reading), ``fotos_asiento`` (the four so far), and, with all four,
    ``mesa`` (the four hands' reading) and ``cartas``. WebError naming the player and the card
    otherwise; nothing changes then."""
    img, factor = decodificar_foto(data)
    deck = cargar_baraja(baraja)
    try:
        det = mano_de(_leida(deck, lambda r: r.read(img))).scaled(factor)  # in the photo's pixels
    except FileNotFoundError as exc:  # a model file missing: the page offers the grid
        raise WebError(str(exc), 500) from None
    if quitar:
        if not all(0 <= i < len(det) for i in quitar):
            raise WebError(LECTURA_ROTA, 422)
        det = det[[i for i in range(len(det)) if i not in set(quitar)]]
    ses = _sesion(fotos_asiento, jugadores)
    try:
        ses.poner(det, asiento=asiento)
    except AsientoError as exc:
        raise ErrorAviso(exc.aviso, 422, datos={"lectura": det.to_json(nombre)}) from None
    return {"lectura": det.to_json(nombre), **_seguir(ses)}


def corregir(
    lectura: dict[str, Any], indice: int, carta: str, fotos_asiento: list[dict[str, Any] | None] | None = None
) -> dict[str, Any]:
    """Card ``indice`` of the reading the page holds set to ``carta`` by the player, as the
    app corrects (CardDetections.correct: a card read elsewhere swaps with it and is flagged).
    Seat by seat, each seat's reading takes its corrected cards back. Answers ``lectura``,
    ``cambios`` [(index, before, after)], ``cartas`` (the four hands, or null) and, seat by
    seat, ``fotos_asiento``."""
    from vision.detections import CardDetections  # vision: loaded with the first photo

    det = _de_json(CardDetections, lectura)
    if not 0 <= indice < len(det):
        raise WebError(LECTURA_ROTA, 422)
    try:
        nueva = str(Card.parse(carta))
    except NotationError:
        raise WebError(CARTA_DESCONOCIDA, 422, carta=carta[:8]) from None
    cambios = det.correct(indice, nueva)
    leida = det.to_json(lectura.get("imagen"))
    out: dict[str, Any] = {"lectura": leida, "cambios": cambios, "cartas": _manos_json(leida)}
    if fotos_asiento and all(fotos_asiento):
        ses = _sesion(fotos_asiento, None)
        ses.tomar(det)
        out["fotos_asiento"] = _fotos(ses)
    return out


CARTA_DESCONOCIDA: Final = N_("carta desconocida: {carta}")


def del_borrador(s: Session, clave: str, version: int) -> DatosBorrador:
    """The hand's draft as stored, when it is still at ``version`` (the one the phone's hand
    extends): a seat's photo and a correction read the reading and the seats read so far from
    it, so that the phone does not send them back. WebError 409 with the stored draft otherwise
    (another phone's step, or this phone's not stored yet: the phone then sends its own)."""
    datos, actual = leer_borrador(s, clave)
    if actual != version:
        raise WebError(OTRO_BORRADOR, 409, {"borrador": datos.model_dump(), "version": actual})
    return datos


OTRO_BORRADOR: Final = N_("otro teléfono ha cambiado esta mano: se muestra lo suyo")


class Ocupado(WebError):
    """The pool is full: retry in a moment (HTTP 503 with Retry-After)."""

    def __init__(self) -> None:
        super().__init__(OCUPADO, 503)
        self.reintento = 2  # seconds: the page retries by itself


class Plaza:
    """A place in a :class:`PoolLecturas`, taken before a photo's body is read (so no body is
    read, nor held in memory, while no reader has room for it); the reading that uses it gives
    it back when it ends, :meth:`cerrar` when none used it."""

    def __init__(self, plazas: threading.BoundedSemaphore) -> None:
        self._plazas, self._usada, self._suelta = plazas, False, False
        self._lock = threading.Lock()

    def usar(self) -> None:
        """Now a reading's: given back when it ends (:meth:`soltar`), not by :meth:`cerrar`."""
        self._usada = True

    def soltar(self) -> None:
        with self._lock:
            if not self._suelta:
                self._suelta = True
                self._plazas.release()

    def cerrar(self) -> None:
        """Give it back unless a reading took it (the request ended before any reading)."""
        if not self._usada:
            self.soltar()


class PoolLecturas:
    """``hilos`` reader threads and room for ``cola`` more photos waiting; beyond that,
    :meth:`reservar` and :meth:`enviar` refuse at once (Ocupado). The model's own threads are
    ONNX Runtime's (vision.models.DEFAULT_THREADS), so two reader threads keep a small machine
    busy."""

    def __init__(self, hilos: int = 2, cola: int = 8) -> None:
        self.hilos, self.cola = hilos, cola
        self._plazas = threading.BoundedSemaphore(hilos + cola)
        self._exec = ThreadPoolExecutor(max_workers=hilos, thread_name_prefix="musmesa-lectura")

    def reservar(self) -> Plaza:
        """A place for one reading, or Ocupado, without waiting."""
        if not self._plazas.acquire(blocking=False):
            raise Ocupado()
        return Plaza(self._plazas)

    def enviar(self, fn: Callable[..., T], *args: Any, plaza: Plaza | None = None) -> Future[T]:
        """Run ``fn(*args)`` in the pool, in ``plaza`` (taken before) or a place taken now;
        Ocupado, without queueing, when it is full."""
        plaza = plaza or self.reservar()
        plaza.usar()
        try:
            fut = self._exec.submit(fn, *args)
        except BaseException:
            plaza.soltar()
            raise
        fut.add_done_callback(lambda _: plaza.soltar())
        return fut

    async def ejecutar(self, fn: Callable[..., T], *args: Any, plaza: Plaza | None = None) -> T:
        """:meth:`enviar`, awaited without holding the event loop (other pages go on)."""
        return await asyncio.wrap_future(self.enviar(fn, *args, plaza=plaza))

    def cerrar(self) -> None:
        self._exec.shutdown(wait=False, cancel_futures=True)


def pool_por_defecto() -> PoolLecturas:
    """The server's pool: ``$MUSMESA_LECTORES`` threads (default 2) and a queue of four
    photos per thread (a table's seat-by-seat photos come four at a time)."""
    try:
        hilos = max(1, int(os.environ.get("MUSMESA_LECTORES", "2")))
    except ValueError:
        hilos = 2
    return PoolLecturas(hilos, 4 * hilos)


# -- the players' deck, registered from the phone ------------------------------------------------


def comprobar_palo(data: bytes, palo: int) -> None:
    """One suit's registration photo checked as the app checks it as it is taken: its ten
    cards in a row of ten or two rows of five, in order; WebError saying what is wrong."""
    _comprobar_palo(comprobar_foto(data), palo)


def _comprobar_palo(img: np.ndarray, palo: int) -> None:
    try:
        comprobar_palo_app(img, palo)  # the app's own check
    except PaloError as exc:
        raise ErrorPalo(exc) from None
    except LecturaError as exc:  # its Spanish text, as the app shows it
        raise WebError(str(exc), 422) from None


class ErrorAviso(WebError):
    """A mesa Aviso (a seat's photo refused) for the page: worded in the player's language when
    it is shown, its count's plural and the cards' names included."""

    def __init__(self, aviso: Aviso, estado: int = 422, datos: dict[str, Any] | None = None) -> None:
        super().__init__(aviso.texto(), estado, datos=datos)
        self.aviso = aviso

    def texto(self, idioma: str = SOURCE) -> str:
        return self.aviso.texto(idioma)


class ErrorPalo(WebError):
    """mesa.lectura's PaloError for the page: the sentence and the suits' names it holds in the
    player's language."""

    def __init__(self, exc: PaloError) -> None:
        super().__init__(exc.plantilla, 422, **exc.datos)

    def texto(self, idioma: str = SOURCE) -> str:
        datos = {k: t(v, idioma) if k in ("palo", "visto") else v for k, v in self.params.items()}
        return t(self.msgid, idioma).format(**datos)


def registrar(fotos: list[bytes]) -> tuple[bytes, dict[str, Any], list[str]]:
    """The deck from the four suit photos (oros, copas, espadas, bastos), each checked again
    (the server keeps no photo between requests): (its .npz bytes, its description, warnings).
    WebError naming the photo that is wrong."""
    if len(fotos) != len(PALOS_FOTOS):
        raise WebError(FALTAN_PALOS, 422)
    imagenes = [comprobar_foto(d) for d in fotos]
    for palo, img in enumerate(imagenes):
        _comprobar_palo(img, palo)
    try:
        baraja, avisos = registrar_baraja(imagenes)
    except LecturaError as exc:
        raise WebError(str(exc), 422) from None
    return baraja.to_bytes(), baraja.describe(), avisos


FALTAN_PALOS: Final = N_("faltan fotos: hacen falta las de oros, copas, espadas y bastos")


def baraja_de_partida(s: Session, clave: str) -> bytes | None:
    """The deck registered for partida ``clave`` (.npz bytes), None when it has none; WebError
    404 for no such partida."""
    return _partida(s, clave).baraja


def cartas_aprendidas(npz: bytes) -> int | None:
    """How many of the 40 cards a partida's deck knows when it was learned from confirmed hands
    only (no suit photos, series 0); None for a deck registered from its photos (it knows all)."""
    return BARAJAS.cargar(npz).aprendidas


def guardar_baraja(s: Session, clave: str, npz: bytes | None) -> None:
    """Keep ``npz`` as partida ``clave``'s deck (None: read with the general model again)."""
    _partida(s, clave).baraja = npz


def jugadores_de_partida(s: Session, clave: str) -> list[str]:
    return list(_partida(s, clave).jugadores)


# -- the players' deck, learned from the hands they confirm ------------------------------------------

# The last whole-table photo read for a partida (or, seat by seat, each seat's last photo) is kept
# in memory (never written anywhere) until that partida's next confirmed hand, then learned from
# in the background and dropped: at most FOTOS_PARTIDAS partidas and FOTOS_BYTES bytes, the
# oldest dropped first.
FOTOS_PARTIDAS: Final = 8
FOTOS_BYTES: Final = 48 * 1024 * 1024


@dataclass(frozen=True)
class FotoMesa:
    """A table photo's bytes and the seat at its bottom edge (the reading's ``abajo``)."""

    datos: bytes
    abajo: int

    @property
    def tamano(self) -> int:
        return len(self.datos)


@dataclass(frozen=True)
class FotosAsientos:
    """A hand read seat by seat: each of the partida's seats' last photo read (None: none yet)."""

    fotos: tuple[bytes | None, ...] = (None,) * N_ASIENTOS

    def con(self, asiento: int, datos: bytes) -> FotosAsientos:
        """The same with seat ``asiento``'s photo (a photo taken again replaces the first)."""
        return FotosAsientos(tuple(datos if s == asiento else f for s, f in enumerate(self.fotos)))

    @property
    def tamano(self) -> int:
        return sum(len(f) for f in self.fotos if f)


class FotosParaAprender:
    """The last photos of each partida's hand, bounded (see FOTOS_PARTIDAS), thread-safe: a
    table photo, or the seats' photos of a hand read seat by seat (the last way the hand was
    photographed replaces the other)."""

    def __init__(self, partidas: int = FOTOS_PARTIDAS, max_bytes: int = FOTOS_BYTES) -> None:
        self.partidas, self.max_bytes = partidas, max_bytes
        self._fotos: OrderedDict[str, FotoMesa | FotosAsientos] = OrderedDict()
        self._lock = threading.Lock()

    def guardar(self, clave: str, datos: bytes, abajo: int) -> None:
        """Partida ``clave``'s table photo."""
        if len(datos) <= self.max_bytes:
            with self._lock:
                self._poner(clave, FotoMesa(datos, abajo))

    def guardar_asiento(self, clave: str, asiento: int, datos: bytes) -> None:
        """Seat ``asiento``'s photo of partida ``clave``'s hand, read seat by seat."""
        if len(datos) > self.max_bytes or not 0 <= asiento < N_ASIENTOS:
            return
        with self._lock:
            antes = self._fotos.get(clave)
            hasta_ahora = antes if isinstance(antes, FotosAsientos) else FotosAsientos()
            self._poner(clave, hasta_ahora.con(asiento, datos))

    def _poner(self, clave: str, fotos: FotoMesa | FotosAsientos) -> None:
        self._fotos.pop(clave, None)
        self._fotos[clave] = fotos
        while len(self._fotos) > self.partidas or sum(f.tamano for f in self._fotos.values()) > self.max_bytes:
            self._fotos.popitem(last=False)

    def sacar(self, clave: str) -> FotoMesa | FotosAsientos | None:
        """The partida's photos, dropped from memory."""
        with self._lock:
            return self._fotos.pop(clave, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._fotos)


FOTOS: Final = FotosParaAprender()
# one thread learns, one hand after another (each rewrites the partida's deck): off the requests
_APRENDER: Final = ThreadPoolExecutor(max_workers=1, thread_name_prefix="musmesa-aprender")
log = logging.getLogger(__name__)


def guardar_foto_mesa(clave: str | None, datos: bytes, lectura: dict[str, Any], abajo: int) -> None:
    """After ``POST /api/leer``: keep the photo of partida ``clave`` when it read as a table in
    four hands (a whole-table photo teaches the deck only then)."""
    if clave and lectura.get("asientos"):
        FOTOS.guardar(clave, datos, abajo)


def guardar_foto_asiento(clave: str | None, asiento: int, datos: bytes) -> None:
    """After ``POST /api/leer/asiento`` read seat ``asiento``'s photo of partida ``clave``."""
    if clave:
        FOTOS.guardar_asiento(clave, asiento, datos)


def aprender_tras_confirmar(
    abrir: Callable[[], AbstractContextManager[Session]], clave: str, cartas: list[str | None], origen: str
) -> Future[int] | None:
    """After a hand of partida ``clave`` is confirmed: its photos kept in memory (dropped now,
    whatever happens) and the confirmed ``cartas`` (the four hands, the partida's seat order)
    teach the partida's deck, in the background: a table photo when the hand came from one
    (``origen`` ``camara``), the seats' photos when it was read seat by seat (``asientos``).
    None when there is nothing to learn (no photo since the last hand, a hand typed in, a hand
    without all four hands, photos of the other kind)."""
    fotos = FOTOS.sacar(clave)
    if fotos is None or any(not c for c in cartas):
        return None
    manos = [str(c) for c in cartas]
    if isinstance(fotos, FotoMesa) and origen == "camara":
        return _APRENDER.submit(aprender_de_foto, abrir, clave, fotos, manos)
    if isinstance(fotos, FotosAsientos) and origen == "asientos":
        return _APRENDER.submit(aprender_de_asientos, abrir, clave, fotos, manos)
    return None


def aprender_de_foto(
    abrir: Callable[[], AbstractContextManager[Session]], clave: str, foto: FotoMesa, cartas: list[str]
) -> int:
    """Learn the partida's deck from one confirmed table photo (vision.aprender, the code of
    ``mus baraja aprender``) and store it (see :func:`_aprender`). The cards learned."""

    def ensenar(deck: Any) -> tuple[Any, int]:
        # vision: loaded with the first photo
        from vision.aprender import learn
        from vision.reader import CardReader

        img, _ = decodificar_foto(foto.datos)
        nueva, hechas = learn(deck, CardReader(deck=deck), img, cartas, seats=lambda d: turn_seats(d, foto.abajo))
        return nueva, len(hechas.card_ids)

    return _aprender(abrir, clave, ensenar)


def aprender_de_asientos(
    abrir: Callable[[], AbstractContextManager[Session]], clave: str, fotos: FotosAsientos, cartas: list[str]
) -> int:
    """Learn the partida's deck from the photos of a hand confirmed seat by seat, each with its
    seat's confirmed hand (vision.aprender.learn_hand), and store it (see :func:`_aprender`). A
    seat whose photo does not match its hand teaches nothing; the others still do. The cards
    learned."""

    def ensenar(deck: Any) -> tuple[Any, int]:
        # vision: loaded with the first photo
        from vision.aprender import learn_hand
        from vision.reader import CardReader
        from vision.registered_deck import DeckError

        hechas = 0
        for asiento, datos in enumerate(fotos.fotos):
            if not datos:
                continue
            try:
                img, _ = decodificar_foto(datos)
                deck, encontradas = learn_hand(deck, CardReader(deck=deck), img, cartas[asiento])
            except (DeckError, WebError) as exc:  # this seat's photo is of another hand, or unreadable
                log.info("el asiento %d de la partida %s no enseñó a la baraja: %s", asiento, clave, exc)
                continue
            hechas += len(encontradas.card_ids)
        return deck, hechas

    return _aprender(abrir, clave, ensenar)


def _aprender(
    abrir: Callable[[], AbstractContextManager[Session]], clave: str, ensenar: Callable[[Any], tuple[Any, int]]
) -> int:
    """The partida's deck (None: none yet) taught by ``ensenar`` (the deck -> the new deck and
    the cards learned) and stored, unless the partida's deck changed meanwhile (a registration
    from the suit photos wins). The cards learned; 0 when nothing matched or anything fails:
    learning never fails the partida."""
    try:
        from vision.registered_deck import RegisteredDeck  # vision: loaded with the first photo

        with abrir() as s:
            antes = baraja_de_partida(s, clave)
        nueva, hechas = ensenar(RegisteredDeck.from_bytes(antes) if antes else None)
        if not hechas:
            return 0
        with abrir() as s:
            if baraja_de_partida(s, clave) != antes:
                return 0
            guardar_baraja(s, clave, nueva.to_bytes())
        return int(hechas)
    except Exception as exc:  # a photo of another hand, a foreign deck, a closed database
        log.info("la baraja de la partida %s no aprendió de la mano: %s", clave, exc)
        return 0
