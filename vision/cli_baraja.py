"""`mus baraja registrar FOTO... [--salida FILE]` and `mus baraja ver [FILE]`: your own deck.

``registrar`` takes one photo of the 40 cards in four rows of ten (oros, copas, espadas,
bastos; each row 1 2 3 4 5 6 7 10 11 12) or four photos, one suit each in that order (a row of
ten or two rows of five), and writes the registration (an .npz of about 1.5 MB), by default
into the user's data folder (:func:`vision.registered_deck.default_deck_path`), where ``mus
leer`` and ``mus mano`` read against it without being told (``--baraja FILE`` for one stored
elsewhere; the app registers into the same file, ``baraja.npz`` of its data folder). A photo
that does not show the layout is refused with a message that says what was seen (exit status
2); nothing is written then, and an existing file is only replaced once the new one is
complete.

With ``--añadir`` the photos are added to the registration already in FILE (another set of the
same deck, under another light or on another cloth): a card is then matched against all its
photos, which reads better than any one set; up to four sets.

``mus baraja aprender --baraja FILE FOTO REGISTRO.json`` learns the deck from a table photo and
its confirmed hands (REGISTRO: a hand record whose ``manos`` are the photo's four hands, asiento
0 at the bottom), with no suit photos: FILE is created when missing, else strengthened
(:mod:`vision.aprender`). The cards it has seen are then read as against a registered deck, the
others as the generic reader reads them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.aprender import learn
from vision.images import ImageError, load_for_reading
from vision.reader import CardReader
from vision.registered_deck import DeckError, RegisteredDeck, default_deck_path
from vision.registration import register


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="accion", metavar="ACCIÓN", required=True)
    reg = sub.add_parser(
        "registrar", help="registra tu baraja con una foto de las 40 cartas o cuatro fotos, una por palo"
    )
    reg.add_argument(
        "fotos", nargs="+", metavar="FOTO", help="una foto de las 40 cartas, o cuatro: oros, copas, espadas, bastos"
    )
    reg.add_argument(
        "--salida",
        type=Path,
        metavar="FILE",
        default=None,
        help="fichero donde guardar la baraja registrada (.npz; por defecto, en la "
        "carpeta de datos, donde la usan 'mus leer' y 'mus mano')",
    )
    reg.add_argument("--nombre", default="", help="nombre de la baraja (p. ej. 'Fournier del bar')")
    reg.add_argument(
        "--añadir",
        "--anadir",
        dest="anadir",
        action="store_true",
        help="añade estas fotos a la baraja ya registrada en --salida (otra luz, otro tapete: se lee mejor)",
    )
    reg.add_argument("--json", action="store_true", help="salida en JSON")
    apr = sub.add_parser(
        "aprender",
        help="aprende (o refuerza) tu baraja con una foto de la mesa y sus manos confirmadas, sin fotos por palo",
    )
    apr.add_argument("foto", metavar="FOTO", help="la foto de la mesa: las cuatro manos, el asiento 0 abajo")
    apr.add_argument(
        "registro", type=Path, metavar="REGISTRO.json", help="el registro de la mano: sus 'manos' son las de la foto"
    )
    apr.add_argument(
        "--baraja",
        type=Path,
        metavar="FILE",
        default=None,
        help="la baraja (.npz) que crear o reforzar (por defecto, la de la carpeta de datos)",
    )
    apr.add_argument("--json", action="store_true", help="salida en JSON")
    ver = sub.add_parser("ver", help="describe una baraja registrada")
    ver.add_argument(
        "fichero",
        type=Path,
        metavar="FILE",
        nargs="?",
        default=None,
        help="la baraja registrada (por defecto, la de la carpeta de datos)",
    )
    ver.add_argument("--json", action="store_true", help="salida en JSON")


def _fail(message: str, as_json: bool) -> int:
    print(f"mus baraja: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    return 2


def run(args: argparse.Namespace) -> int:
    if args.accion == "ver":
        if args.fichero is None and not default_deck_path().is_file():
            return _fail(
                "no hay ninguna baraja registrada: regístrala con 'mus baraja registrar' y las fotos de sus cartas",
                args.json,
            )
        args.fichero = args.fichero or default_deck_path()
        try:
            info = RegisteredDeck.load(args.fichero).describe()
        except DeckError as exc:
            return _fail(str(exc), args.json)
        if args.json:
            print(json.dumps(info, ensure_ascii=False, indent=2))
        else:
            print(
                f"{args.fichero}: baraja '{info['nombre']}', {info['cartas']} cartas, "
                f"{_series(info['series'])}, {info['recortes']} recortes, "
                f"{info['plantillas'] or 'sin'} plantillas, {info['refuerzos']} cartas de manos confirmadas, "
                f"{info['conocidas']} de 40 cartas conocidas, clasificador {info['modelo']}"
            )
        return 0
    if args.accion == "aprender":
        return _aprender(args)
    args.salida = args.salida or default_deck_path()
    try:
        reader = CardReader()
        previa = _previous(args.salida, reader) if args.anadir else None
        baraja, avisos = register(reader, args.fotos, name=args.nombre)
        if previa is not None:
            if not previa.has_templates:
                avisos.append(
                    "la baraja guardada es de una versión anterior, sin plantillas: "
                    "regístrala de nuevo desde el principio para leerla mejor"
                )
            baraja = previa.combined(baraja)
            if args.nombre:
                baraja = replace(baraja, name=args.nombre)
        baraja.save(args.salida)
    except (DeckError, ImageError, FileNotFoundError) as exc:
        return _fail(str(exc), args.json)
    except OSError as exc:
        return _fail(f"no se puede escribir {args.salida}: {exc.strerror or exc}", args.json)
    if args.json:
        print(
            json.dumps(
                {**baraja.describe(), "fichero": str(args.salida), "avisos": avisos}, ensure_ascii=False, indent=2
            )
        )
    else:
        print(f"baraja registrada en {args.salida}: 40 cartas, {_series(baraja.series)}")
        for aviso in avisos:
            print(f"  aviso: {aviso}")
    return 0


def _aprender(args: argparse.Namespace) -> int:
    path = args.baraja or default_deck_path()
    try:
        registro = _registro(args.registro)
        previa = RegisteredDeck.load(path) if path.exists() else None
        reader = CardReader(deck=previa)
        foto, _ = load_for_reading(args.foto)  # read as `mus leer` and `mus servir` read it
        baraja, found = learn(previa, reader, foto, registro["manos"])
        baraja.save(path)
    except (DeckError, ImageError, FileNotFoundError) as exc:
        return _fail(str(exc), args.json)
    except OSError as exc:
        return _fail(f"no se puede escribir {path}: {exc.strerror or exc}", args.json)
    info = {
        **baraja.describe(),
        "fichero": str(path),
        "aprendidas": len(found.card_ids),
        "corregidas": sum(found.corrected),
        "sin_casar": found.left_out,
    }
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
    else:
        print(
            f"baraja {'reforzada' if previa is not None else 'aprendida'} en {path}: "
            f"{info['aprendidas']} cartas de la foto ({info['corregidas']} corregidas), "
            f"{info['conocidas']} de 40 cartas conocidas"
        )
    return 0


def _registro(path: Path) -> dict[str, Any]:
    """The hand record of ``aprender``; DeckError (Spanish) when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckError(f"{path}: no existe el registro de la mano") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DeckError(f"{path}: no es un registro de mano en JSON legible ({exc})") from None
    if not isinstance(data, dict) or "manos" not in data:
        raise DeckError(f"{path}: el registro no tiene 'manos' (las cuatro manos de la foto)")
    return data


def _previous(path: Path, reader: CardReader) -> RegisteredDeck | None:
    """The registration to add to (None when there is none yet), checked against the reader's
    classifier before any photo is read."""
    if not path.exists():
        return None
    previa = RegisteredDeck.load(path)
    previa.check_model(reader.folder)
    previa.check_room()
    return previa


def _series(n: int) -> str:
    return f"{n} {'serie' if n == 1 else 'series'} de fotos"
