"""Card reading for the screens (the tablet's and the phone pages'): run vision/ lazily and
hand on its result, :class:`vision.detections.CardDetections`, the one type every screen shows,
corrects (``CardDetections.correct``) and draws (:mod:`vision.draw`).

vision/ is optional: if it (or its model) is missing, :func:`leer_foto` raises LecturaError
with a message for the screen, and the manual path (the 40-card grid) still works.

    >>> manos(None) is None
    True
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from mesa.i18n import N_
from mesa.storage import baraja_registrada
from scoring.cards import CARD_IDS

if TYPE_CHECKING:  # vision/ is an optional extra: its type only for the checker
    from vision.detections import CardDetections


class LecturaError(RuntimeError):
    """Reading failed or is unavailable; the message is for the user."""


def manos(lectura: CardDetections | None) -> list[str] | None:
    """The four hands as text in seat order (as the hand entry takes them), or None when the
    reading has no four seats of four."""
    hands = lectura.hands if lectura is not None else None
    return [" ".join(h) for h in hands] if hands else None


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


def _detectar(image_bgr: np.ndarray, baraja: str | None) -> CardDetections:
    """The reader's CardDetections of the photo; every failure a LecturaError."""
    try:
        read_cards = _lector(baraja)
    except ImportError as exc:
        raise LecturaError(f"la lectura de cartas no está disponible ({exc}); escribe las cartas a mano") from None
    try:
        return read_cards(image_bgr)
    except Exception as exc:  # a model file missing or broken must not crash the app
        raise LecturaError(f"no se pudo leer la foto: {exc}") from None


def leer_foto(image_bgr: np.ndarray, baraja: str | None = None) -> CardDetections:
    """Run the card reader (against a registered deck file when given); every failure becomes
    a LecturaError with a readable message."""
    lec = _detectar(image_bgr, baraja)
    if not len(lec):
        raise LecturaError("no se ve ninguna carta en la foto")
    return lec


def leer_mano(image_bgr: np.ndarray, baraja: str | None = None) -> CardDetections:
    """One player's cards (seat by seat): the photo's cards without seats, however many (the
    seat step says when they are not four), and its warnings less the one about seats."""
    return mano_de(_detectar(image_bgr, baraja))


def mano_de(lectura: CardDetections) -> CardDetections:
    """A reading as one player's hand (seat by seat): its cards without seats, its warnings
    less the one about seats (one hand is never four groups of four)."""
    from vision.hands import photo_warnings  # optional extra: a reading comes with vision

    lectura.warnings = photo_warnings(lectura)
    return lectura.without_seats()


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


def baraja_para_aprender(baraja: str, carpeta: str | Path) -> str | None:
    """The deck file the confirmed hands teach: the one read against (:func:`baraja_de`), else
    the data folder's, learned from the hands when there is none yet (vision.aprender); None
    when the player chose the general model in Ajustes."""
    if baraja == SIN_BARAJA:
        return None
    return baraja or str(baraja_registrada(carpeta))


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
            reader = CardReader()
            primera, *otras = _series_de_registro(src)  # at least one set, or LecturaError
            baraja, avisos = register(reader, primera, name=src.name)
            for fotos in otras:
                nueva, nuevos = register(reader, fotos, name=src.name)
                baraja = baraja.combined(nueva)
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

    series: list[list[str]] = []
    falta: LecturaError | None = None
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
        raise falta or LecturaError(f"{carpeta}: no hay fotos de la baraja")
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


# -- registering the players' deck (the app's screen and the phone page): one photo per suit,
# each checked on the spot --
FOTO_PALO: Final = 10  # cards in one suit's registration photo
PIDE_PALO: Final = N_(
    "Foto de {palo}: sus diez cartas boca arriba, del 1 al 12, en dos filas de cinco dentro del marco"
)
NOMBRES_PALOS: Final = (N_("oros"), N_("copas"), N_("espadas"), N_("bastos"))  # PALOS_FOTOS, to translate
REGISTRADA: Final = N_("Baraja registrada: desde ahora se lee con ella")
FILAS_PALO: Final = ((1, 10), (2, 5))  # a row of ten or two rows of five


def _lector_general() -> Any:
    """The generic reader that registers decks (loaded once: its models take seconds)."""
    global _LECTOR
    if _LECTOR is None:
        from vision.reader import CardReader  # optional extra (see _lector)

        _LECTOR = CardReader()
    return _LECTOR


_LECTOR: Any = None


class PaloError(LecturaError):
    """A suit's registration photo refused: ``plantilla`` (a msgid) and ``datos``, where
    ``palo`` and ``visto`` are suit names (msgids of NOMBRES_PALOS) for the screen to translate;
    the exception's text is the Spanish sentence."""

    def __init__(self, plantilla: str, **datos: Any) -> None:
        super().__init__(plantilla.format(**datos))
        self.plantilla, self.datos = plantilla, datos


PALO_ERROR: Final = N_("foto de {palo}: {motivo}")
PALO_EQUIVOCADO: Final = N_("esta foto es de {visto}, no de {palo}: haz la foto de las cartas de {palo}")
PALO_DESORDEN: Final = N_(
    "foto de {palo}: en el puesto {k} (por filas, de izquierda a derecha) debería ir el {esperada} "
    "y se ve el {vista}: pon las cartas en orden del 1 al 12"
)
# A photo of another suit: at least this many of its ten cards whose suit is surely that one
# other suit (the suit summed over its ten cards' probabilities: the generated example deck's
# suit photos give every card 0.87-0.99 for its own suit, while its rank alone is often under
# SEGURA); a card or two misread is a card out of order, not a wrong suit
OTRO_PALO_MIN: Final = 6
PALO_SEGURO: Final = 0.8


def comprobar_palo(image_bgr: np.ndarray, palo: int) -> None:
    """Check one suit's registration photo as it is taken (vision.registration.locate_grid:
    ten confident cards in a row of ten or two rows of five, none missing, none on another);
    PaloError (a LecturaError) saying what is wrong, naming the suit: a photo of another suit
    says so before any card out of order."""
    try:  # optional extra (see _lector)
        from vision.registered_deck import DeckError
        from vision.registration import locate_grid
    except ImportError as exc:
        raise LecturaError(f"la lectura de cartas no está disponible ({exc})") from None
    nombre = NOMBRES_PALOS[palo]
    try:
        cajas = locate_grid(_lector_general(), image_bgr, FOTO_PALO, FILAS_PALO)
    except DeckError as exc:
        raise PaloError(PALO_ERROR, palo=nombre, motivo=str(exc)) from None
    probs = _probabilidades(image_bgr, cajas)
    otro = _otro_palo(probs, palo)
    if otro is not None:
        raise PaloError(PALO_EQUIVOCADO, palo=nombre, visto=NOMBRES_PALOS[otro])
    fuera = _fuera_de_orden(probs, palo)
    if fuera:
        k, vista = fuera
        raise PaloError(PALO_DESORDEN, palo=nombre, k=k + 1, esperada=CARD_IDS[palo * FOTO_PALO + k], vista=vista)


# Only a sure reading calls a card misplaced: on a deck the classifier never saw, a doubtful
# one would refuse a good photo.
SEGURA: Final = 0.95


def _probabilidades(image_bgr: np.ndarray, cajas: np.ndarray) -> np.ndarray:
    """The generic classifier's (10, 40) probabilities of the photo's cards, in place order."""
    from vision.classify import softmax  # optional extra (see _lector)
    from vision.geometry import CROP_H, CROP_W, crop_cards

    crops = np.ascontiguousarray(crop_cards(image_bgr, cajas, (CROP_W, CROP_H)))
    logits, _ = _lector_general().classifier.run_network(crops)
    return np.asarray(softmax(logits))


def _otro_palo(probs: np.ndarray, palo: int) -> int | None:
    """The suit the photo surely shows when it is not ``palo``: at least OTRO_PALO_MIN cards
    whose suit is surely that one other suit; None otherwise."""
    por_palo = probs.reshape(len(probs), len(PALOS_FOTOS), FOTO_PALO).sum(2)
    vistos = np.argmax(por_palo, axis=1)
    seguros = vistos[por_palo[np.arange(len(probs)), vistos] >= PALO_SEGURO]
    cuentas = np.bincount(seguros, minlength=len(PALOS_FOTOS))
    cuentas[palo] = 0
    otro = int(np.argmax(cuentas))
    return otro if cuentas[otro] >= OTRO_PALO_MIN else None


def _fuera_de_orden(probs: np.ndarray, palo: int) -> tuple[int, str] | None:
    """The first place whose card the generic classifier surely reads as another one (and
    surely not as the card that goes there), with the card it sees; None when all fit."""
    for k, p in enumerate(probs):
        esperada, vista = palo * FOTO_PALO + k, int(np.argmax(p))
        if vista != esperada and p[vista] >= SEGURA and p[esperada] < 1 - SEGURA:
            return k, CARD_IDS[vista]
    return None


def registrar_baraja(fotos: list[np.ndarray]) -> tuple[Any, list[str]]:
    """The deck registered from the four suit photos (oros, copas, espadas, bastos; each
    checked by :func:`comprobar_palo` as it was taken): (the vision.registered_deck.RegisteredDeck,
    warnings: a row that looks like another suit, small cards). LecturaError otherwise."""
    from vision.registered_deck import DeckError  # optional extra (see _lector)
    from vision.registration import register

    if len(fotos) != len(PALOS_FOTOS):
        raise LecturaError(f"hacen falta las {len(PALOS_FOTOS)} fotos, una por palo ({', '.join(PALOS_FOTOS)})")
    try:
        return register(_lector_general(), fotos)
    except DeckError as exc:
        raise LecturaError(str(exc)) from None


def registrar_fotos(fotos: list[np.ndarray], carpeta_datos: str | Path) -> tuple[str, list[str]]:
    """Register the deck from the four suit photos (:func:`registrar_baraja`) into the data
    folder's registered deck; (its path, warnings). LecturaError otherwise."""
    baraja, avisos = registrar_baraja(fotos)
    try:
        destino = baraja.save(baraja_registrada(carpeta_datos))
    except OSError as exc:
        raise LecturaError(f"no se puede guardar la baraja: {exc.strerror or exc}") from None
    return str(destino), avisos


def reforzar_baraja(lectura: CardDetections, foto: np.ndarray | None, baraja: str | None) -> int:
    """After the player confirms ``lectura`` (each card's id as they left it, corrections
    included), add its cards to the registered deck ``baraja`` as more examples of those cards
    (vision.refuerzo); the number of cards read whole that went in. Never for a reading the
    player has not confirmed: the deck would learn the reader's mistakes. It never fails the
    hand: with no deck, no photo, vision/ missing or a file that cannot be written, it adds
    nothing and returns 0."""
    if not baraja or foto is None or not len(lectura):
        return 0
    try:  # optional extra (see _lector)
        from vision.refuerzo import ENABLED, strengthen_file
    except ImportError:
        return 0
    if not ENABLED:
        return 0
    try:
        antes = _refuerzos(baraja) if Path(baraja).exists() else 0
        nueva = strengthen_file(baraja, _lector_general(), foto, lectura.xyxy, lectura.ids, lectura.corrected.tolist())
    except (ValueError, OSError):  # DeckError is a ValueError: another classifier, bad file
        return 0
    return max(0, nueva.extra_count - antes)


def reforzar_en_segundo_plano(confirmadas: list[tuple[CardDetections, Any]], baraja: str | None) -> None:
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
