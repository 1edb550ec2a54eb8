"""Card and suit names as a player reads them, in Spanish, Basque and English: the one place the
phone pages (template filters, and /cartas.js for their scripts) and the tablet's screens take
them from, so that a card has the same name on every screen.

    >>> nombre_carta("11e"), nombre_carta("11e", "en"), nombre_carta("11e", "eu")
    ('caballo de espadas', 'knight of swords', 'zaldi (ezpatak)')
    >>> corta("12o"), corta("12o", "en"), corta("7b", "eu"), nombre_palo("b", "en")
    ('R', 'K', '7', 'clubs')

In Spanish a card's name is the rules engine's own (``scoring.cards.Card.name``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from mesa.i18n import N_, SOURCE, t
from scoring.cards import RANKS, SUITS, Card

# the suits by their letter in the notation; the same msgids as the deck registration's
PALOS: Final = {"o": N_("oros"), "c": N_("copas"), "e": N_("espadas"), "b": N_("bastos")}
FIGURAS: Final = {
    1: N_("as"),
    2: N_("dos"),
    3: N_("tres"),
    4: N_("cuatro"),
    5: N_("cinco"),
    6: N_("seis"),
    7: N_("siete"),
    10: N_("sota"),
    11: N_("caballo"),
    12: N_("rey"),
}
# What a card's small label shows for a figure (a number card shows its number): the initial of
# the figure's name in the language (Spanish S, C, R; English J, Kn, K; Basque S, Z, E).
CORTAS: Final = {10: N_("S"), 11: N_("C"), 12: N_("R")}
NOMBRE: Final = N_("{figura} de {palo}")


def _card(carta: str | Card) -> Card:
    return carta if isinstance(carta, Card) else Card.parse(carta)


def nombre_palo(palo: str, idioma: str = SOURCE) -> str:
    """A suit's name from its letter (o, c, e, b), lower case: 'oros', 'coins', 'urreak'."""
    return t(PALOS[palo], idioma)


def nombre_figura(rank: int, idioma: str = SOURCE) -> str:
    return t(FIGURAS[rank], idioma)


def nombre_carta(carta: str | Card, idioma: str = SOURCE) -> str:
    """A card's full name ('rey de oros') from its notation ('12o') or a Card."""
    c = _card(carta)
    return t(NOMBRE, idioma).format(figura=nombre_figura(c.rank, idioma), palo=nombre_palo(c.suit, idioma))


def corta(carta: str | Card, idioma: str = SOURCE) -> str:
    """What a small card label shows beside its suit: the number, or the figure's initial."""
    c = _card(carta)
    return t(CORTAS[c.rank], idioma) if c.rank in CORTAS else str(c.rank)


def tabla(idioma: str = SOURCE) -> dict[str, dict[str, str]]:
    """Every card's names by its notation, for a page's script: nombre, corta and palo."""
    return {
        f"{r}{s}": {
            "nombre": nombre_carta(f"{r}{s}", idioma),
            "corta": corta(f"{r}{s}", idioma),
            "palo": nombre_palo(s, idioma),
        }
        for s in SUITS
        for r in RANKS
    }


def tabla_json(idioma: str = SOURCE) -> str:
    """:func:`tabla` as JSON that is safe inside a page's <script> element."""
    return json.dumps(tabla(idioma), ensure_ascii=False).replace("<", "\\u003c")


@dataclass(frozen=True)
class Nombres:
    """Cards named in the language of the message they go into (a value of a mesa.storage.Aviso,
    worded when the message is): one card's name, or several joined by commas.

        >>> Nombres(("11e",)).texto("en"), str(Nombres(("1o", "12c")))
        ('knight of swords', 'as de oros, rey de copas')
    """

    cartas: tuple[str, ...]

    def texto(self, idioma: str = SOURCE) -> str:
        return ", ".join(nombre_carta(c, idioma) for c in self.cartas)

    def __str__(self) -> str:
        return self.texto()
