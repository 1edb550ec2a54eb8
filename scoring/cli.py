"""`mus tanteo [--json] FILE`: score one hand record or a JSON array of them.

FILE is a path or ``-`` for stdin. Bad input exits with status 2 and a one-line message (with
``--json`` also printed as ``{"error": ...}`` on stdout), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scoring.tanteo import RegistroError, tantear


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="registro de mano en JSON, o '-' para stdin")
    parser.add_argument("--json", action="store_true", help="salida en JSON")


def run(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.file)
    except InputError as exc:
        return fail(str(exc), args.json)
    return print_tanteo(data, args.json)


class InputError(Exception):
    pass


def read_json(path: str) -> Any:
    """JSON from a file or ``-`` (stdin); InputError with a one-line message on any problem."""
    try:
        text = sys.stdin.read() if path == "-" else _read(path)
    except OSError as exc:
        raise InputError(f"no se puede leer {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} no es texto UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"JSON inválido en {path}: {exc.msg} (línea {exc.lineno})") from None
    except RecursionError:
        raise InputError(f"JSON inválido en {path}: anidado demasiado profundo") from None


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def fail(message: str, as_json: bool) -> int:
    """Report bad input the way every `mus` command does: one line, status 2."""
    print(f"mus: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    return 2


def print_tanteo(data: Any, as_json: bool) -> int:
    """Score a record (or array) and print it; returns the exit status. Reused by `mus mano`."""
    records = data if isinstance(data, list) else [data]
    if isinstance(data, list) and not data:
        return fail("la lista de registros está vacía", as_json)
    try:
        results = []
        for i, record in enumerate(records):
            try:
                results.append(tantear(record))
            except RegistroError as exc:
                prefix = f"registro {i}: " if isinstance(data, list) else ""
                raise RegistroError(f"{prefix}{exc}") from None
    except RegistroError as exc:
        return fail(str(exc), as_json)
    if as_json:
        payload = [r.to_json() for r in results]
        print(json.dumps(payload if isinstance(data, list) else payload[0], ensure_ascii=False,
                         indent=2))
    else:
        print("\n\n".join(r.texto() for r in results))
    return 0
