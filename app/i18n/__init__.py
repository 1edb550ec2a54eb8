"""Translations: gettext .po catalogues read by a tiny pure-Python parser (no build step).

Spanish is the source language: msgids are the Spanish strings, so a missing translation
falls back to Spanish. ``eu`` and ``en`` catalogues may be partly filled.

    >>> Catalogo.from_po_text('msgid "Hola"\\nmsgstr "Hello"\\n').traducir("Hola")
    'Hello'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

IDIOMAS: Final = {"es": "Español", "eu": "Euskara", "en": "English"}
CARPETA: Final = Path(__file__).resolve().parent


class PoError(ValueError):
    """A .po file this reader cannot understand; the message names file and line."""


@dataclass
class Catalogo:
    mensajes: dict[str, str] = field(default_factory=dict)

    def traducir(self, texto: str) -> str:
        return self.mensajes.get(texto) or texto

    @classmethod
    def from_po_text(cls, text: str, origen: str = "<po>") -> Catalogo:
        return cls(parse_po(text, origen))

    @classmethod
    def cargar(cls, idioma: str) -> Catalogo:
        path = CARPETA / f"{idioma}.po"
        if not path.exists():
            return cls()
        return cls.from_po_text(path.read_text(encoding="utf-8"), str(path))


def _unquote(token: str, origen: str, lineno: int) -> str:
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):
        raise PoError(f"{origen}:{lineno}: cadena mal formada: {token[:40]}") from None
    if not isinstance(value, str):
        raise PoError(f"{origen}:{lineno}: se esperaba una cadena entre comillas")
    return value


def parse_po(text: str, origen: str = "<po>") -> dict[str, str]:
    """Parse msgid/msgstr pairs (multi-line strings and comments supported; no plurals)."""
    out: dict[str, str] = {}
    current: dict[str, str] = {}
    key: str | None = None

    def flush() -> None:
        msgid = current.get("msgid")
        if msgid:  # the header entry has an empty msgid
            out[msgid] = current.get("msgstr", "")
        current.clear()

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("msgid ", "msgstr ")):
            key, _, rest = line.partition(" ")
            if key == "msgid":
                flush()
            current[key] = _unquote(rest, origen, lineno)
        elif line.startswith('"') and key:
            current[key] += _unquote(line, origen, lineno)
        else:
            raise PoError(f"{origen}:{lineno}: línea no reconocida: {line[:40]}")
    flush()
    return out


_cache: dict[str, Catalogo] = {}


def traductor(idioma: str) -> Catalogo:
    """The catalogue for a language code, cached; unknown codes give Spanish."""
    if idioma not in _cache:
        _cache[idioma] = Catalogo.cargar(idioma) if idioma in IDIOMAS else Catalogo()
    return _cache[idioma]


def N_(texto: str) -> str:
    """Mark a constant for extraction (gettext's no-op); translate it later with t()."""
    return texto


def t(texto: str, idioma: str = "es") -> str:
    return traductor(idioma).traducir(texto)
