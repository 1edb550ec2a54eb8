"""Untrusted input, read once and checked before anything uses it: JSON files with limits on
size and nesting, text a terminal can print, and short excerpts for error messages.

Every `mus` command reads its JSON through :func:`read_json` (or :func:`parse_json`), so a
50 MB file, a document nested 500 levels deep, an integer of 5,000 digits or a lone surrogate
gives one clear Spanish line, never a traceback.

    >>> parse_json('{"mano": 1}', "x")
    {'mano': 1}
    >>> try:
    ...     parse_json('[' * 100 + ']' * 100, "x")
    ... except InputError as exc:
    ...     print(exc)
    x: JSON anidado demasiado profundo (más de 32 niveles)
    >>> excerpt("a" * 500)[-12:]
    '… (500 car.)'
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
from typing import Any, Final

from scoring.errors import ScoringError

MAX_INPUT_BYTES: Final = 8 * 1024 * 1024  # 8 MiB: about 39,000 hand records
MAX_DEPTH: Final = 32  # a hand record is 4 deep; reglas overrides a few more
MAX_INT_DIGITS: Final = 18  # any count in Mus fits; larger is not a number we can use
EXCERPT: Final = 60


class InputError(ScoringError):
    """Input that cannot be used; the message is one Spanish line with at most an excerpt."""


def excerpt(value: object, limit: int = EXCERPT) -> str:
    """``value`` as text of at most about ``limit`` characters, printable (no surrogates)."""
    text = value if isinstance(value, str) else repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} car.)"


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (a scan, so no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _int(token: str) -> int:
    if len(token.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError("número demasiado largo ({n} cifras)", n=len(token))
    return int(token)


def _float(token: str) -> float:
    if len(token) > 64:
        raise InputError(f"número demasiado largo ({len(token)} caracteres)")
    value = float(token)
    if not math.isfinite(value):
        raise InputError(f"número fuera de rango: {excerpt(token, 20)}")
    return value


def _no_constant(token: str) -> Any:
    raise InputError(f"{token} no es un número JSON válido")


def check_text(value: Any, where: str) -> None:
    """InputError when a string anywhere in ``value`` cannot be printed (a lone surrogate)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(
                    "{donde}: texto con caracteres no válidos: {texto}", donde=where, texto=excerpt(v, 20)
                ) from None
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def parse_json(text: str, where: str) -> Any:
    """JSON from ``text`` within the limits above; InputError naming ``where`` otherwise."""
    if len(text) > MAX_INPUT_BYTES:
        raise InputError(
            "{donde}: demasiado grande ({n} caracteres; como mucho {maximo})",
            donde=where,
            n=f"{len(text):,}".replace(",", "."),
            maximo=f"{MAX_INPUT_BYTES:,}".replace(",", "."),
        )
    if _depth(text) > MAX_DEPTH:
        raise InputError("{donde}: JSON anidado demasiado profundo (más de {n} niveles)", donde=where, n=MAX_DEPTH)
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_no_constant)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            "JSON inválido en {donde}: {motivo} (línea {linea})", donde=where, motivo=exc.msg, linea=exc.lineno
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"JSON inválido en {where}: {excerpt(str(exc))}") from None
    check_text(data, where)
    return data


def _unreadable(exc: OSError, where: str, kind: str) -> InputError:
    """Why ``where`` cannot be read, in one line: missing, a folder, no permission, a loop."""
    where = excerpt(where)
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{where}: no existe el fichero")
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{where}: es una carpeta, no {kind}")
    if isinstance(exc, PermissionError):
        return InputError(f"{where}: no hay permiso para leer el fichero")
    if exc.errno == errno.ELOOP:
        return InputError(f"{where}: es un bucle de enlaces simbólicos")
    return InputError(f"no se puede leer {where}: {exc.strerror or exc}")


def read_bytes(path: str | os.PathLike[str], limit: int, where: str | None = None, kind: str = "un fichero") -> bytes:
    """At most ``limit`` bytes of a file or ``-`` (stdin); InputError saying why it cannot be
    read (``kind`` names what a folder is not), or that it holds more."""
    where = where or str(path)
    try:
        if str(path) == "-":
            raw = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                raw = fh.read(limit + 1)
    except OSError as exc:
        raise _unreadable(exc, where, kind) from None
    if len(raw) > limit:
        raise InputError(f"{excerpt(where)}: demasiado grande (más de {limit // 2**20} MiB)")
    return raw


def check_readable(path: str | os.PathLike[str], kind: str = "un fichero") -> None:
    """InputError, as :func:`read_bytes` says it, when ``path`` cannot be opened for reading."""
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise _unreadable(exc, str(path), kind) from None


def read_text(path: str, where: str | None = None) -> str:
    """The UTF-8 text of a file or ``-`` (stdin), at most MAX_INPUT_BYTES; InputError otherwise."""
    raw = read_bytes(path, MAX_INPUT_BYTES, where)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{excerpt(where or path)} no es texto UTF-8") from None


def read_json(path: str, where: str | None = None) -> Any:
    """JSON from a file or ``-`` (stdin) within the limits; InputError with one line otherwise."""
    return parse_json(read_text(path, where), excerpt(where or path))
