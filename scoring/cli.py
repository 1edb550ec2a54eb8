"""`mus tanteo [--json] [--idioma es|eu|en] FILE`: score one hand record or a JSON array of them.

``--idioma`` writes the text (its reasons, header and end of juego) in Spanish (the default),
Basque or English; ``--json`` is the contract other tools read and stays as it is, its
``razon`` in Spanish.

FILE is a path or ``-`` for stdin, read within scoring.inputs' limits (8 MiB, 32 levels of
nesting, integers of at most 18 digits). Bad input exits with status 2 and a one-line message
that quotes at most a short excerpt of it (with ``--json`` also printed as ``{"error": ...}`` on
stdout), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any, Final

from scoring.inputs import InputError, excerpt, read_json
from scoring.razones import IDIOMAS, SOURCE
from scoring.tanteo import RegistroManoError, ResultadoTanteo, tantear

__all__ = ["InputError", "configure", "fail", "print_tanteo", "read_json", "run"]

# A message names the problem and quotes an excerpt; a longer one is cut, so no input can
# flood the terminal whatever message quotes it.
MAX_MESSAGE: Final = 280


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="registro de mano en JSON, o '-' para stdin")
    parser.add_argument("--json", action="store_true", help="salida en JSON")
    parser.add_argument(
        "--idioma",
        choices=IDIOMAS,
        default=SOURCE,
        help="idioma del texto y sus razones: es (castellano), eu (euskara), en (English)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.file)
    except InputError as exc:
        return fail(str(exc), args.json)
    return print_tanteo(data, args.json, getattr(args, "idioma", SOURCE))


def fail(message: str, as_json: bool) -> int:
    """Report bad input the way every `mus` command does: one printable line, status 2."""
    line = excerpt(" ".join(message.split()), MAX_MESSAGE)
    print(f"mus: {line}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": line}, ensure_ascii=False))
    return 2


def print_tanteo(data: Any, as_json: bool, idioma: str = SOURCE) -> int:
    """Score a record (or array) and print it; returns the exit status. Reused by `mus mano`."""
    records = data if isinstance(data, list) else [data]
    if isinstance(data, list) and not data:
        return fail("la lista de registros está vacía", as_json)
    try:
        results = []
        for i, record in enumerate(records):
            try:
                results.append(tantear(record))
            except RegistroManoError as exc:
                prefix = f"registro {i}: " if isinstance(data, list) else ""
                raise RegistroManoError(f"{prefix}{exc}") from None
    except RegistroManoError as exc:
        return fail(str(exc), as_json)
    if not isinstance(data, list):
        print(_json(results[0]) if as_json else results[0].texto(idioma))
    elif as_json:  # one record at a time: 30,000 records never sit in memory as one text
        print("[")
        for i, r in enumerate(results):
            print(textwrap.indent(_json(r), "  ") + ("," if i < len(results) - 1 else ""))
        print("]")
    else:
        for i, r in enumerate(results):
            print(("\n" if i else "") + r.texto(idioma))
    return 0


def _json(result: ResultadoTanteo) -> str:
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2, allow_nan=False)
