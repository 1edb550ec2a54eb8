"""Card reading for the app: run vision/ lazily, hold the result, apply one-tap corrections.

vision/ is optional: if it (or its model) is missing, :func:`leer_foto` raises LecturaError
with a message for the screen, and the manual path (the 40-card grid) still works.

    >>> lec = Lectura.desde_json({"cartas": [{"carta": "12o", "confianza": 0.4,
    ...     "caja": [0, 0, 10, 10]}], "asientos": None, "avisos": ["1 carta"]})
    >>> lec.cartas[0].dudosa, lec.manos()
    (True, None)
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from mesa.storage import baraja_registrada
from scoring.cards import CARD_IDS, Card, NotationError

# Only for a JSON that does not say which cards are doubtful (older `mus leer` output, files
# written by hand): the reader's own flags ("dudosa") decide otherwise. Its generic threshold.
UMBRAL_DUDOSA: Final = 0.82
SEAT_COLOURS_BGR: Final = ((60, 200, 255), (80, 80, 230), (230, 160, 60), (120, 220, 120))


class LecturaError(RuntimeError):
    """Reading failed or is unavailable; the message is for the user."""


@dataclass
class CartaLeida:
    carta: str
    confianza: float
    caja: tuple[float, float, float, float]
    dudosa: bool = False
    corregida_de: str | None = None
    alternativa: str | None = None  # the reader's runner-up id, offered first when correcting


@dataclass
class Lectura:
    cartas: list[CartaLeida]
    asientos: list[list[int]] | None  # per seat, indices into cartas
    avisos: list[str] = field(default_factory=list)

    @classmethod
    def desde_json(cls, data: dict[str, Any]) -> Lectura:
        """From `mus leer --json` output (one image)."""
        cartas = []
        for c in data.get("cartas", []):
            conf = float(c.get("confianza", 1.0))
            low = bool(c.get("dudosa", c.get("baja_confianza", conf < UMBRAL_DUDOSA)))
            alt = c.get("alternativa")
            cartas.append(CartaLeida(str(Card.parse(c["carta"])), conf,
                                     tuple(float(v) for v in c.get("caja", (0, 0, 0, 0))), low,
                                     alternativa=str(Card.parse(alt)) if alt else None))
        asientos = None
        seats = data.get("asientos")
        if seats:
            asientos = _indices(cartas, seats)
        return cls(cartas, asientos, list(data.get("avisos", [])))

    @classmethod
    def desde_detecciones(cls, det: Any) -> Lectura:
        """From vision.read_cards' CardDetections (its JSON form is the contract)."""
        for name in ("to_json", "to_dict", "as_json"):
            fn = getattr(det, name, None)
            if callable(fn):
                data = fn()
                if isinstance(data, str):
                    data = json.loads(data)
                return cls.desde_json(data)
        if isinstance(det, dict):
            return cls.desde_json(det)
        raise LecturaError("formato de lectura desconocido")

    def manos(self) -> list[str] | None:
        """The four hands as text in seat order, or None when seats are unknown."""
        if self.asientos is None:
            return None
        return [" ".join(self.cartas[i].carta for i in seat) for seat in self.asientos]

    def usadas(self, salvo: int | None = None) -> set[str]:
        return {c.carta for i, c in enumerate(self.cartas) if i != salvo}

    def corregir(self, indice: int, nueva: str) -> list[tuple[int, str, str]]:
        """Set one card to ``nueva``. A deck holds each card once, so if another detection
        had ``nueva`` the two swap ids (a typical confusion) and that one is flagged for a
        look. Returns the changes as (index, before, after)."""
        nueva = str(Card.parse(nueva))
        c = self.cartas[indice]
        antes = c.carta
        changes = [(indice, antes, nueva)]
        for j, other in enumerate(self.cartas):
            if j != indice and other.carta == nueva:
                other.corregida_de = other.corregida_de or other.carta
                other.carta, other.dudosa = antes, True
                changes.append((j, nueva, antes))
        c.corregida_de = c.corregida_de or antes
        c.carta, c.dudosa, c.confianza = nueva, False, 1.0
        return changes

    def dibujar(self, image_bgr: np.ndarray) -> np.ndarray:
        """The photo with each card's box and id, coloured by seat (grey: no seat)."""
        import cv2  # OpenCV is an optional extra: only when a read photo is shown

        out = image_bgr.copy()
        seat_of = {}
        for s, idxs in enumerate(self.asientos or []):
            for i in idxs:
                seat_of[i] = s
        scale = max(out.shape[:2]) / 1000
        for i, c in enumerate(self.cartas):
            colour = SEAT_COLOURS_BGR[seat_of[i]] if i in seat_of else (200, 200, 200)
            if c.dudosa:
                colour = (0, 140, 255)
            x1, y1, x2, y2 = (int(v) for v in c.caja)
            cv2.rectangle(out, (x1, y1), (x2, y2), colour, max(2, int(3 * scale)))
            cv2.putText(out, c.carta, (x1, max(0, y1 - int(6 * scale))),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale, colour, max(2, int(2 * scale)))
        return out


def _indices(cartas: list[CartaLeida], seats: list[list[str]]) -> list[list[int]]:
    pos = {c.carta: i for i, c in enumerate(cartas)}
    out = []
    for seat in seats:
        try:
            out.append([pos[str(Card.parse(cid))] for cid in seat])
        except (KeyError, NotationError):
            raise LecturaError(f"asiento con una carta que no está en la lista: {seat}") from None
    return out


def _lector(baraja: str | None):
    """The shipped reader, or one reading against the registered deck in ``baraja`` (.npz)."""
    # vision/ (OpenCV, ONNX Runtime) is an optional extra: imported when a photo is read, so
    # the app runs without it and says so
    from vision.reader import read_cards, reader_for_deck
    from vision.registered_deck import DeckError

    if not baraja:
        return read_cards

    try:
        return reader_for_deck(baraja).read
    except (DeckError, FileNotFoundError) as exc:
        raise LecturaError(f"baraja registrada: {exc}") from None


def _detectar(image_bgr: np.ndarray, baraja: str | None) -> Any:
    """The reader's CardDetections of the photo; every failure a LecturaError."""
    try:
        read_cards = _lector(baraja)
    except ImportError as exc:
        raise LecturaError(f"la lectura de cartas no está disponible ({exc}); "
                           "escribe las cartas a mano") from None
    try:
        return read_cards(image_bgr)
    except Exception as exc:  # a model file missing or broken must not crash the app
        raise LecturaError(f"no se pudo leer la foto: {exc}") from None


def leer_foto(image_bgr: np.ndarray, baraja: str | None = None) -> Lectura:
    """Run the card reader (against a registered deck file when given); every failure becomes
    a LecturaError with a readable message."""
    lec = Lectura.desde_detecciones(_detectar(image_bgr, baraja))
    if not lec.cartas:
        raise LecturaError("no se ve ninguna carta en la foto")
    return lec


def leer_mano(image_bgr: np.ndarray, baraja: str | None = None) -> Lectura:
    """One player's cards (seat by seat): the photo's cards without seats, however many (the
    seat step says when they are not four), and its warnings less the one about seats."""
    from vision.hands import photo_warnings  # optional extra: _detectar has imported vision

    det = _detectar(image_bgr, baraja)
    lec = Lectura.desde_detecciones(det)
    lec.asientos, lec.avisos = None, photo_warnings(det)
    return lec


SIN_BARAJA: Final = "-"  # the setting when the player chose the general model in Ajustes


def baraja_de(baraja: str, carpeta: str | Path) -> str | None:
    """The deck to read against: the one chosen in Ajustes (``SIN_BARAJA``: none, the general
    model, even with a deck in the data folder), else the data folder's registered deck (where
    `mus baraja registrar` puts it: `mus leer`/`mus mano` read it by default)."""
    if baraja == SIN_BARAJA:
        return None
    if baraja:
        return baraja
    defecto = baraja_registrada(carpeta)
    return str(defecto) if defecto.is_file() else None


PALOS_FOTOS: Final = ("oros", "copas", "espadas", "bastos")


def preparar_baraja(origen: str, carpeta_datos: str) -> tuple[str, str, list[str]]:
    """Make ``origen`` the deck to read against: a registered .npz (checked and used as it
    is), or a folder with the photos to register (``oros.jpg copas.jpg espadas.jpg
    bastos.jpg``, or ``baraja.jpg`` with all 40), registered into ``carpeta_datos/baraja.npz``.
    Subfolders holding more sets of photos of the same deck (another light, another cloth)
    are registered too and merged in (up to vision.registered_deck.MAX_SERIES sets): it reads better.

    Returns (path of the .npz, a one-line description, warnings); LecturaError otherwise.
    """
    try:  # vision/ is an optional extra, imported when used (see _lector)
        from vision.images import ImageError
        from vision.reader import CardReader
        from vision.registered_deck import DeckError, RegisteredDeck
        from vision.registration import register
    except ImportError as exc:
        raise LecturaError(f"la lectura de cartas no está disponible ({exc})") from None
    src = Path(origen.strip()).expanduser()
    avisos: list[str] = []
    try:
        if src.is_dir():
            reader, baraja = CardReader(), None
            for fotos in _series_de_registro(src):
                nueva, nuevos = register(reader, fotos, name=src.name)
                baraja = nueva if baraja is None else baraja.combined(nueva)
                avisos += nuevos
            destino = baraja.save(baraja_registrada(carpeta_datos))
        elif src.is_file():
            baraja = RegisteredDeck.load(src)
            CardReader(deck=baraja)  # refuses a registration made with another classifier
            destino = src
        else:
            raise LecturaError(f"{src}: no existe (da una carpeta con las fotos o un .npz)")
    except (DeckError, ImageError, FileNotFoundError) as exc:
        raise LecturaError(str(exc)) from None
    except OSError as exc:
        raise LecturaError(f"no se puede guardar la baraja: {exc.strerror or exc}") from None
    info = baraja.describe()
    series = "" if info["series"] == 1 else f", {info['series']} series de fotos"
    return str(destino), f"{info['nombre'] or destino.stem} ({info['cartas']} cartas{series})", avisos


def _series_de_registro(carpeta: Any) -> list[list[str]]:
    """The sets of registration photos in ``carpeta``: its own, then each subfolder's that
    holds a set, by name."""
    from vision.registered_deck import MAX_SERIES  # optional extra (see _lector)

    series, falta = [], None
    try:
        series.append(_fotos_de_registro(carpeta))
    except LecturaError as exc:
        falta = exc  # said only when no subfolder holds a set either
    for sub in sorted(p for p in carpeta.iterdir() if p.is_dir()):
        try:
            series.append(_fotos_de_registro(sub))
        except LecturaError:
            continue  # a subfolder without a set is someone else's
    if not series:
        raise falta
    if len(series) > MAX_SERIES:
        raise LecturaError(f"{carpeta}: {len(series)} series de fotos; como mucho {MAX_SERIES}")
    return series


def _fotos_de_registro(carpeta: Any) -> list[str]:
    todas = carpeta / "baraja.jpg"
    if todas.is_file():
        return [str(todas)]
    fotos = [carpeta / f"{p}.jpg" for p in PALOS_FOTOS]
    faltan = [f.name for f in fotos if not f.is_file()]
    if faltan:
        raise LecturaError(f"{carpeta}: faltan {', '.join(faltan)} (o baraja.jpg con las 40)")
    return [str(f) for f in fotos]


# -- registering the players' deck from the app: one photo per suit, each checked on the spot --
FOTO_PALO: Final = 10  # cards in one suit's registration photo
FILAS_PALO: Final = ((1, 10), (2, 5))  # a row of ten or two rows of five


def _lector_general() -> Any:
    """The generic reader that registers decks (loaded once: its models take seconds)."""
    global _LECTOR
    if _LECTOR is None:
        from vision.reader import CardReader  # optional extra (see _lector)

        _LECTOR = CardReader()
    return _LECTOR


_LECTOR: Any = None


def comprobar_palo(image_bgr: np.ndarray, palo: int) -> None:
    """Check one suit's registration photo as it is taken (vision.registration.locate_grid:
    ten confident cards in a row of ten or two rows of five, none missing, none on another);
    LecturaError saying what is wrong, naming the suit."""
    try:  # optional extra (see _lector)
        from vision.registered_deck import DeckError
        from vision.registration import locate_grid
    except ImportError as exc:
        raise LecturaError(f"la lectura de cartas no está disponible ({exc})") from None
    try:
        cajas = locate_grid(_lector_general(), image_bgr, FOTO_PALO, FILAS_PALO)
    except DeckError as exc:
        raise LecturaError(f"foto de {PALOS_FOTOS[palo]}: {exc}") from None
    fuera = _fuera_de_orden(image_bgr, cajas, palo)
    if fuera:
        k, vista = fuera
        raise LecturaError(f"foto de {PALOS_FOTOS[palo]}: en el puesto {k + 1} (por filas, de "
                           f"izquierda a derecha) debería ir el {CARD_IDS[palo * FOTO_PALO + k]} "
                           f"y se ve el {vista}: pon las cartas en orden del 1 al 12")


# Only a sure reading calls a card misplaced: on a deck the classifier never saw, a doubtful
# one would refuse a good photo.
SEGURA: Final = 0.95


def _fuera_de_orden(image_bgr: np.ndarray, cajas: np.ndarray, palo: int) -> tuple[int, str] | None:
    """The first place whose card the generic classifier surely reads as another one (and
    surely not as the card that goes there), with the card it sees; None when all fit."""
    from vision.geometry import CROP_H, CROP_W, crop_cards  # optional extra (see _lector)

    crops = np.ascontiguousarray(crop_cards(image_bgr, cajas, (CROP_W, CROP_H)))
    logits, _ = _lector_general().classifier.run_network(crops)
    e = np.exp(logits - logits.max(1, keepdims=True))
    probs = e / e.sum(1, keepdims=True)
    for k, p in enumerate(probs):
        esperada, vista = palo * FOTO_PALO + k, int(np.argmax(p))
        if vista != esperada and p[vista] >= SEGURA and p[esperada] < 1 - SEGURA:
            return k, CARD_IDS[vista]
    return None


def registrar_fotos(fotos: list[np.ndarray], carpeta_datos: str | Path) -> tuple[str, list[str]]:
    """Register the deck from the four suit photos (oros, copas, espadas, bastos) into the data
    folder's registered deck; (its path, warnings: a row that looks like another suit, small
    cards). LecturaError otherwise."""
    from vision.registered_deck import DeckError  # optional extra (see _lector)
    from vision.registration import register

    try:
        baraja, avisos = register(_lector_general(), fotos)
        destino = baraja.save(baraja_registrada(carpeta_datos))
    except DeckError as exc:
        raise LecturaError(str(exc)) from None
    except OSError as exc:
        raise LecturaError(f"no se puede guardar la baraja: {exc.strerror or exc}") from None
    return str(destino), avisos


def reforzar_baraja(lectura: Lectura, foto: np.ndarray | None, baraja: str | None) -> int:
    """After the player confirms ``lectura`` (each card's id as they left it, corrections
    included), add its cards to the registered deck ``baraja`` as more examples of those cards
    (vision.refuerzo); the number of cards read whole that went in. Never for a reading the
    player has not confirmed: the deck would learn the reader's mistakes. It never fails the
    hand: with no deck, no photo, vision/ missing or a file that cannot be written, it adds
    nothing and returns 0."""
    if not baraja or foto is None or not lectura.cartas:
        return 0
    try:  # optional extra (see _lector)
        from vision.refuerzo import ENABLED, strengthen_file
    except ImportError:
        return 0
    if not ENABLED:
        return 0
    try:
        antes = _refuerzos(baraja)
        nueva = strengthen_file(baraja, _lector_general(), foto,
                                np.array([c.caja for c in lectura.cartas], np.float32),
                                [c.carta for c in lectura.cartas],
                                [c.corregida_de is not None for c in lectura.cartas])
    except (ValueError, OSError):  # DeckError is a ValueError: another classifier, bad file
        return 0
    return max(0, nueva.extra_count - antes)


def reforzar_en_segundo_plano(confirmadas: list[tuple[Lectura, Any]], baraja: str | None) -> None:
    """:func:`reforzar_baraja` for each confirmed (reading, photo), in a worker thread (a few
    tenths of a second each: the player goes on meanwhile); one after another, and after the
    previous hand's, since each rewrites the deck's file."""
    if not baraja or not confirmadas:
        return

    def run() -> None:
        with _REFORZANDO:
            for lectura, foto in confirmadas:
                reforzar_baraja(lectura, foto, baraja)

    threading.Thread(target=run, name="reforzar-baraja", daemon=True).start()


_REFORZANDO = threading.Lock()


def _refuerzos(baraja: str) -> int:
    from vision.registered_deck import RegisteredDeck  # optional extra (see _lector)

    return RegisteredDeck.load(baraja).extra_count
