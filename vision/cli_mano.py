"""`mus mano FOTO --mano K [--lances FILE] [--reglas NAME] [--baraja FILE] [--json]`: the main job.

Reads the photo of the table at the end of a hand, gives the four hands to the seats (seat 0 is
the group of cards nearest the camera, then counter-clockwise), builds the hand record of
``mus tanteo`` (issue 2, section 3) and prints the tanteo. ``--lances`` is a JSON file with the
``lances`` object (``{"grande": "paso", "pares": {"quiero": 5}}``), or a partial hand record
whose ``lances``, ``marcador``, ``reglas`` and ``jugadores`` are used. Without it every lance was
played en paso.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scoring.cli import print_tanteo
from scoring.inputs import excerpt, read_json
from vision.cli_leer import ReadError, add_baraja_option, read_one
from vision.detections import SEAT_NAMES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("foto", metavar="FOTO", help="foto de la mesa con las 16 cartas boca arriba")
    parser.add_argument("--mano", type=int, required=True, metavar="K",
                        help="asiento (0-3) del jugador mano; 0 es el grupo más cercano a la cámara")
    parser.add_argument("--lances", metavar="FILE",
                        help="JSON con lo que pasó en cada lance (por defecto, todo en paso)")
    parser.add_argument("--reglas", default=None, metavar="NAME",
                        help="perfil de reglas (por defecto 'general')")
    parser.add_argument("--marcador", type=int, nargs=2, default=None, metavar=("P0", "P1"),
                        help="tantos de cada pareja antes de la mano")
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
        raise ValueError(f"--lances {excerpt(path)}: se espera un objeto JSON con los lances, "
                         f"no {_json_type(data)}")
    record = data if "lances" in data else {"lances": data}
    if not isinstance(record["lances"], dict):
        raise ValueError(f"--lances {excerpt(path)}: \"lances\" debe ser un objeto, "
                         f"no {_json_type(record['lances'])}")
    return record


def _json_type(value: Any) -> str:
    names = {dict: "un objeto", list: "una lista", str: "un texto", bool: "un booleano",
             int: "un número", float: "un número", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def build_record(hands: list[list[str]], mano: int, extra: dict[str, Any] | None = None,
                 reglas: str | None = None, marcador: list[int] | None = None) -> dict[str, Any]:
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


def run(args: argparse.Namespace) -> int:
    if args.mano not in range(4):
        return _fail(f"--mano {args.mano}: el asiento mano va de 0 a 3", args.json)
    try:
        extra = _load_lances(args.lances) if args.lances else {}
    except ValueError as exc:
        return _fail(str(exc), args.json)
    try:
        dets = read_one(args.foto, baraja=args.baraja)
    except ReadError as exc:
        return _fail(str(exc), args.json)
    hands = dets.hands
    if hands is None:
        why = "; ".join(dets.warnings) or "no se han podido asignar los asientos"
        return _fail(f"{args.foto}: {why}", args.json)
    for aviso in dets.warnings:
        print(f"mus mano: aviso: {aviso}", file=sys.stderr)
    record = build_record(hands, args.mano, extra, args.reglas, args.marcador)
    if not args.json:
        print(f"Cartas leídas en {args.foto}:")
        for s, hand in enumerate(hands):
            mark = "  (mano)" if s == args.mano else ""
            print(f"  asiento {s} ({SEAT_NAMES[s]}): {' '.join(hand)}{mark}")
        print()
    return print_tanteo(record, args.json)
