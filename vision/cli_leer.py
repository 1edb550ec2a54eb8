"""`mus leer [--json] [--anotar DIR] [--baraja FILE] IMAGE...`: read the cards in photos.

For each image: the cards with confidence and box, the four hands in seat order (0 bottom,
1 right, 2 top, 3 left) when there are four groups of four, and warnings. Bad input (a missing
or corrupt file, a photo with no cards) gets a one-line message and exit status 2; with
``--json`` the image's entry is ``{"imagen": ..., "error": ...}``. The photos are read against
the deck registered with ``mus baraja registrar`` in the user's data folder when there is one
(:func:`vision.registered_deck.default_deck_path`); ``--baraja FILE`` reads against another
registration, ``--sin-baraja`` with the generic reader alone.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from vision.arrays import Image
from vision.detections import SEAT_NAMES, CardDetections
from vision.draw import annotate
from vision.images import ImageError, load_for_reading
from vision.reader import CardReader, reader_for_deck
from vision.registered_deck import DeckError, default_deck_path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="foto(s) de la mesa")
    parser.add_argument("--json", action="store_true", help="salida en JSON")
    parser.add_argument("--anotar", metavar="DIR", type=Path, help="escribe cada foto con las cartas dibujadas en DIR")
    add_baraja_option(parser)


def add_baraja_option(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--baraja",
        metavar="FILE",
        default=None,
        help="otra baraja registrada con 'mus baraja registrar' (por defecto, la "
        "registrada en la carpeta de datos, si la hay)",
    )
    group.add_argument(
        "--sin-baraja", dest="sin_baraja", action="store_true", help="lee sin baraja registrada, con el lector genérico"
    )


class ReadError(Exception):
    """A photo that cannot be read as a table of cards; the message says why."""


NO_DECK = object()  # read_one(baraja=NO_DECK): the generic reader, whatever is registered


def deck_to_use(baraja: str | None = None, sin_baraja: bool = False) -> str | object:
    """The registration a command reads against: ``baraja`` when given, none (NO_DECK) with
    ``sin_baraja``, else the one in the user's data folder, or none if nothing is there."""
    if sin_baraja:
        return NO_DECK
    if baraja:
        return baraja
    default = default_deck_path()
    return str(default) if default.is_file() else NO_DECK


def chosen_deck(args: argparse.Namespace) -> str | object | None:
    """What ``--baraja`` and ``--sin-baraja`` ask for, as read_one takes it."""
    return NO_DECK if args.sin_baraja else args.baraja


def reader_for(baraja: str | object | None) -> CardReader:
    """The reader of ``deck_to_use``'s answer (None: the default, as deck_to_use gives it);
    ReadError if the registration is unusable."""
    chosen = deck_to_use() if baraja is None else baraja
    try:
        return reader_for_deck(None if chosen is NO_DECK else str(chosen))
    except (DeckError, FileNotFoundError) as exc:
        if baraja is None:  # the registered deck the user did not name: say how to do without
            raise ReadError(f"baraja registrada: {exc} (o lee sin ella con --sin-baraja)") from None
        raise ReadError(str(exc)) from None


def read_one(path: str, anotar: Path | None = None, baraja: str | object | None = None) -> CardDetections:
    """Read one photo; raise ReadError (clear Spanish message) for bad input or no cards.
    ``baraja``: a registration file, NO_DECK, or None for the one in the data folder."""
    reader = reader_for(baraja)
    try:
        image, factor = load_for_reading(path)  # a phone's 12 MP JPEG at half its size
    except ImageError as exc:
        raise ReadError(str(exc)) from None
    return read_image(reader, image, path, anotar).scaled(factor)  # boxes in the photo's pixels


def read_image(reader: CardReader, image: Image, name: str, anotar: Path | None = None) -> CardDetections:
    """Read one decoded photo called ``name`` (as :func:`read_one` reads a file: the server
    reads uploads so); ReadError when it shows no cards."""
    try:
        dets = reader.read(image)
    except FileNotFoundError as exc:
        raise ReadError(str(exc)) from None
    if anotar is not None:
        target = anotar / (Path(name).stem + "_anotada.jpg")
        if not cv2.imwrite(str(target), annotate(image, dets)):
            raise ReadError(f"--anotar: no se puede escribir {target}")
    if len(dets) == 0:
        raise ReadError(f"{name}: no se ve ninguna carta (¿es una foto de la mesa?)")
    return dets


def json_entry(name: str, read: Callable[[], CardDetections]) -> dict[str, Any]:
    """One image's object of ``mus leer --json``: ``read()``'s reading, or ``{"imagen",
    "error"}`` when it raises ReadError."""
    try:
        return read().to_json(name)
    except ReadError as exc:
        return error_entry(name, exc)


def error_entry(name: str, exc: ReadError) -> dict[str, Any]:
    return {"imagen": name, "error": str(exc)}


def prepare_folder(folder: Path) -> None:
    """Create the ``--anotar`` folder before any photo is read; ReadError saying why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError, FileNotFoundError):
        raise ReadError(
            f"--anotar {folder}: no puede ser una carpeta (en el camino hay un fichero o un enlace roto)"
        ) from None
    except PermissionError:
        raise ReadError(f"--anotar {folder}: no hay permiso para crear la carpeta") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadError(f"--anotar {folder}: hay un bucle de enlaces simbólicos en el camino") from None
        raise ReadError(f"--anotar {folder}: no se puede crear la carpeta ({exc.strerror or exc})") from None


def _text(path: str, dets: CardDetections) -> str:
    lines = [f"{path}: {len(dets)} cartas"]
    if dets.hands:
        for s, hand in enumerate(dets.hands):
            lines.append(f"  asiento {s} ({SEAT_NAMES[s]}): {' '.join(hand)}")
    else:
        lines.append("  cartas: " + " ".join(dets.sorted_by_x().ids))
    for aviso in dets.warnings:
        lines.append(f"  aviso: {aviso}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.anotar is not None:
        try:
            prepare_folder(args.anotar)
        except ReadError as exc:
            print(f"mus leer: {' '.join(str(exc).split())}", file=sys.stderr)
            if args.json:
                print(json.dumps({"error": str(exc)}, ensure_ascii=False))
            return 2
    status = 0
    results: list[dict[str, Any] | str] = []
    for path in args.images:
        try:
            dets = read_one(path, args.anotar, chosen_deck(args))
        except ReadError as exc:
            print(f"mus leer: {' '.join(str(exc).split())}", file=sys.stderr)
            status = 2
            results.append(error_entry(path, exc))
            continue
        results.append(dets.to_json(path) if args.json else _text(path, dets))
    if args.json:
        payload = results if len(args.images) > 1 else results[0]
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        text = [r for r in results if isinstance(r, str)]
        if text:
            print("\n".join(text))
    return status
