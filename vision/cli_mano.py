"""`mus mano FOTO... --mano K [--lances FILE] [--reglas NAME] [--baraja FILE | --sin-baraja] [--json]`.

The main job. Reads the photo of the table at the end of a hand, gives the four hands to the
seats (seat 0 is the group of cards nearest the camera, then counter-clockwise), builds the
hand record of ``mus tanteo`` (docs/scoring.md) and prints the tanteo. ``--lances`` is a JSON file with the
``lances`` object (``{"grande": "paso", "pares": {"quiero": 5}}``), or a partial hand record
whose ``lances``, ``marcador``, ``reglas`` and ``jugadores`` are used. Without it every lance was
played en paso.

Seat by seat: four photos instead of one, each of one player's four cards, in seat order
(the first is seat 0, the player nearest the camera at the table, then counter-clockwise;
``--mano`` says which seat is mano). The cards of each photo are that seat's hand
(:func:`vision.hands.seat_hands`): a photo with other than four cards, or a card repeated
across photos, is refused naming the photo and the card. The photos are read against the
registered deck of the data folder by default (see :mod:`vision.cli_leer`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scoring.cli import print_tanteo
from scoring.inputs import excerpt, read_json
from vision.cli_leer import ReadError, add_baraja_option, chosen_deck, read_one
from vision.detections import SEAT_NAMES
from vision.hands import HandsError, seat_hands
from vision.seats import N_SEATS


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "fotos",
        nargs="+",
        metavar="FOTO",
        help="foto de la mesa con las 16 cartas boca arriba, o cuatro fotos, "
        "una por asiento (0, 1, 2, 3) con sus 4 cartas",
    )
    parser.add_argument(
        "--mano",
        type=int,
        required=True,
        metavar="K",
        help="asiento (0-3) del jugador mano; 0 es el grupo más cercano a la cámara",
    )
    parser.add_argument(
        "--lances", metavar="FILE", help="JSON con lo que pasó en cada lance (por defecto, todo en paso)"
    )
    parser.add_argument("--reglas", default=None, metavar="NAME", help="perfil de reglas (por defecto 'general')")
    parser.add_argument(
        "--marcador",
        type=int,
        nargs=2,
        default=None,
        metavar=("P0", "P1"),
        help="tantos de cada pareja antes de la mano",
    )
    parser.add_argument("--json", action="store_true", help="salida en JSON")
    add_baraja_option(parser)


def _fail(message: str, as_json: bool) -> int:
    message = " ".join(message.split())  # one line, whatever a path or the input holds
    print(f"mus mano: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    return 2


def _load_lances(path: str) -> dict[str, Any]:
    """The ``--lances`` file as a partial hand record; ValueError (one Spanish line) if unusable."""
    data = read_json(path, f"--lances {excerpt(path)}")  # size, depth, numbers, text checked
    if not isinstance(data, dict):
        raise ValueError(f"--lances {excerpt(path)}: se espera un objeto JSON con los lances, no {_json_type(data)}")
    record = data if "lances" in data else {"lances": data}
    if not isinstance(record["lances"], dict):
        raise ValueError(f'--lances {excerpt(path)}: "lances" debe ser un objeto, no {_json_type(record["lances"])}')
    return record


def _json_type(value: Any) -> str:
    names = {
        dict: "un objeto",
        list: "una lista",
        str: "un texto",
        bool: "un booleano",
        int: "un número",
        float: "un número",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def build_record(
    hands: list[list[str]],
    mano: int,
    extra: dict[str, Any] | None = None,
    reglas: str | None = None,
    marcador: list[int] | None = None,
) -> dict[str, Any]:
    """The hand record of `mus tanteo` for four hands read from a photo."""
    extra = dict(extra or {})
    record: dict[str, Any] = {
        "reglas": reglas or extra.get("reglas", "general"),
        "mano": mano,
        "manos": [" ".join(hand) for hand in hands],
        "marcador": list(marcador) if marcador is not None else extra.get("marcador", [0, 0]),
        "lances": extra.get("lances", {}),
    }
    if "jugadores" in extra:
        record["jugadores"] = extra["jugadores"]
    return record


def _read_hands(fotos: list[str], baraja: str | object | None) -> tuple[list[list[str]], list[str]]:
    """The four hands and the warnings: from one table photo, or four hand photos in seat
    order. ReadError or HandsError (one Spanish line naming the photo) when they cannot be."""
    if len(fotos) == N_SEATS:
        read = seat_hands([(foto, read_one(foto, baraja=baraja)) for foto in fotos])
        return read.hands, read.warnings
    dets = read_one(fotos[0], baraja=baraja)
    if dets.hands is None:
        why = "; ".join(dets.warnings) or "no se han podido asignar los asientos"
        raise ReadError(f"{fotos[0]}: {why}")
    return dets.hands, list(dets.warnings)


def run(args: argparse.Namespace) -> int:
    if args.mano not in range(4):
        return _fail(f"--mano {args.mano}: el asiento mano va de 0 a 3", args.json)
    try:
        extra = _load_lances(args.lances) if args.lances else {}
    except ValueError as exc:
        return _fail(str(exc), args.json)
    if len(args.fotos) not in (1, N_SEATS):
        return _fail(
            f"se espera una foto de la mesa o {N_SEATS}, una por asiento (0 a 3), no {len(args.fotos)}", args.json
        )
    try:
        hands, warnings = _read_hands(args.fotos, chosen_deck(args))
    except (ReadError, HandsError) as exc:
        return _fail(str(exc), args.json)
    for aviso in warnings:
        print(f"mus mano: aviso: {aviso}", file=sys.stderr)
    record = build_record(hands, args.mano, extra, args.reglas, args.marcador)
    if not args.json:
        print(f"Cartas leídas en {', '.join(args.fotos)}:")
        for s, hand in enumerate(hands):
            mark = "  (mano)" if s == args.mano else ""
            print(f"  asiento {s} ({SEAT_NAMES[s]}): {' '.join(hand)}{mark}")
        print()
    return print_tanteo(record, args.json)
