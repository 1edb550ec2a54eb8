"""Translations: the standard library's gettext reading the compiled catalogues ``<idioma>.mo``.

Spanish is the source language: msgids are the Spanish texts, so Spanish needs no catalogue
and a string a catalogue lacks shows in Spanish. Translators edit ``<idioma>.po`` beside the
.mo; ``python -m mesa.i18n.extraer`` (a developer tool, with Babel) refreshes the .po files
from the source and compiles them. The app itself needs nothing beyond the standard library.

    >>> t("Nueva mano", "en"), t("Nueva mano", "eu"), t("Nueva mano")
    ('New hand', 'Esku berria', 'Nueva mano')

A text with a count has two forms, chosen by the count with gettext's ngettext (``tn``), so that
no page says "1 vacas":

    >>> tn("{n} vaca", "{n} vacas", 1).format(n=1), tn("{n} vaca", "{n} vacas", 3, "en").format(n=3)
    ('1 vaca', '3 vacas')
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path
from typing import Final

IDIOMAS: Final = {"es": "Español", "eu": "Euskara", "en": "English"}
SOURCE: Final = "es"  # the language of the msgids
DOMAIN: Final = "musmesa"
CARPETA: Final = Path(__file__).resolve().parent


def mo_path(idioma: str) -> Path:
    return CARPETA / f"{idioma}.mo"


def po_path(idioma: str) -> Path:
    return CARPETA / f"{idioma}.po"


@cache
def traductor(idioma: str) -> gettext.NullTranslations:
    """The translations for a language code; Spanish and unknown codes give the msgids back."""
    if idioma == SOURCE or idioma not in IDIOMAS:
        return gettext.NullTranslations()
    try:
        with mo_path(idioma).open("rb") as f:
            return gettext.GNUTranslations(f)
    except FileNotFoundError:  # a broken install still plays, in Spanish; tests/test_i18n.py guards it
        return gettext.NullTranslations()


def N_(texto: str) -> str:
    """Mark a constant for extraction (gettext's no-op); translate it later with t()."""
    return texto


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a text with a count for extraction (as N_); choose its form later with tn()."""
    return singular, plural


def t(texto: str, idioma: str = SOURCE) -> str:
    return traductor(idioma).gettext(texto)


def tn(singular: str, plural: str, n: int, idioma: str = SOURCE) -> str:
    """The form of a text for the count ``n`` (gettext's ngettext: the language's plural rule in
    its catalogue's Plural-Forms; Spanish, the source, takes the singular for 1 alone)."""
    return traductor(idioma).ngettext(singular, plural, n)
