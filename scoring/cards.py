"""Cards of the 40-card Spanish deck and their text notation.

A card is written ``<rank><suit>``: rank 1-7, 10 (sota), 11 (caballo) or 12 (rey), suit one of
``o c e b`` (oros, copas, espadas, bastos), case-insensitive. A hand is four cards separated by
spaces, like a FEN field in chess::

    >>> Card.parse("12o")
    Card(rank=12, suit='o')
    >>> str(parse_hand("12O 3c 11e 1b"))
    '12o 3c 11e 1b'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from scoring.errors import ScoringError
from scoring.inputs import excerpt

RANKS: Final = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS: Final = ("o", "c", "e", "b")
SUIT_NAMES: Final = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
RANK_NAMES: Final = {
    1: "as",
    2: "dos",
    3: "tres",
    4: "cuatro",
    5: "cinco",
    6: "seis",
    7: "siete",
    10: "sota",
    11: "caballo",
    12: "rey",
}
# Plural names for jugadas ("pareja de reyes", "medias de sotas").
RANK_PLURALS: Final = {
    1: "ases",
    2: "doses",
    3: "treses",
    4: "cuatros",
    5: "cincos",
    6: "seises",
    7: "sietes",
    10: "sotas",
    11: "caballos",
    12: "reyes",
}
HAND_SIZE: Final = 4

# ASCII only: \d and int() would also take full-width or Arabic-Indic digits ("１２o").
_CARD_RE = re.compile(r"^([0-9]{1,2})([a-zA-Z])$")


def _cita(value: object) -> str:
    """The offending text as the message quotes it: its repr, cut to a short excerpt."""
    return excerpt(repr(value), 40)


class NotationError(ScoringError):
    """Text that is not a valid card, hand or hand record; the message names the offending text."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card of the Spanish deck. Immutable and hashable.

    >>> Card(12, "o").name
    'rey de oros'
    """

    rank: int
    suit: str
    # small int identity (0-39), derived once: cards are hashed a lot while scoring
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if type(self.rank) is not int or self.rank not in RANKS:  # True and 1.0 are not ranks
            raise NotationError(f"rango de carta inválido: {_cita(self.rank)} (1-7, 10, 11, 12)")
        if type(self.suit) is not str or self.suit not in SUITS:
            raise NotationError(f"palo de carta inválido: {_cita(self.suit)} (o, c, e, b)")
        object.__setattr__(self, "index", SUITS.index(self.suit) * 10 + RANKS.index(self.rank))

    def __hash__(self) -> int:
        return self.index

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``'12o'`` (any case, surrounding spaces ignored).

        >>> Card.parse(" 7E ")
        Card(rank=7, suit='e')
        >>> Card.parse("8o")
        Traceback (most recent call last):
        ...
        scoring.cards.NotationError: carta '8o': el rango 8 no existe en la baraja de 40 cartas
        """
        if not isinstance(text, str):
            raise NotationError(f"carta {_cita(text)}: se espera un texto como '12o'")
        card = _BY_TEXT.get(text)
        if card is not None:  # fast path: canonical or upper-case text, no spaces
            return card
        token = text.strip()
        match = _CARD_RE.match(token)
        if not match:
            raise NotationError(f"carta {_cita(token)}: se espera rango y palo, por ejemplo '12o'")
        rank, suit = int(match.group(1)), match.group(2).lower()
        if rank not in RANKS:
            raise NotationError(f"carta {_cita(token)}: el rango {rank} no existe en la baraja de 40 cartas")
        if suit not in SUITS:
            raise NotationError(f"carta {_cita(token)}: palo {suit!r} desconocido (o, c, e, b)")
        return cls(rank, suit)

    @property
    def name(self) -> str:
        return f"{RANK_NAMES[self.rank]} de {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"


# The deck in a fixed order: suit by suit (oros, copas, espadas, bastos), rank ascending.
DECK: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in SUITS for r in RANKS)
CARD_IDS: Final[tuple[str, ...]] = tuple(str(c) for c in DECK)
_BY_TEXT: Final[dict[str, Card]] = {t: c for c in DECK for t in (str(c), str(c).upper())}


@dataclass(frozen=True, slots=True)
class Hand:
    """Four cards held by one player. Order is kept for display but never matters for play.

    >>> h = parse_hand("12o 3c 11e 1b")
    >>> len(h), str(h)
    (4, '12o 3c 11e 1b')
    """

    cards: tuple[Card, Card, Card, Card]

    def __post_init__(self) -> None:
        if len(self.cards) != HAND_SIZE:
            raise NotationError("una mano tiene {n} cartas, no {m}", n=HAND_SIZE, m=len(self.cards))
        if len(set(self.cards)) != HAND_SIZE:
            dupes = {str(c) for c in self.cards if self.cards.count(c) > 1}
            raise NotationError("carta repetida en la mano: {cartas}", cartas=", ".join(sorted(dupes)))

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return HAND_SIZE

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)

    def ranks(self) -> tuple[int, ...]:
        return tuple(c.rank for c in self.cards)


def parse_hand(text: str) -> Hand:
    """Parse four cards separated by whitespace.

    >>> parse_hand("12o 3c 11e")
    Traceback (most recent call last):
    ...
    scoring.cards.NotationError: mano '12o 3c 11e': tiene 3 cartas, se esperan 4
    """
    if not isinstance(text, str):
        raise NotationError(f"mano {_cita(text)}: se espera un texto como '12o 3c 11e 1b'")
    tokens = text.split()
    if len(tokens) != HAND_SIZE:
        raise NotationError(f"mano {_cita(text.strip())}: tiene {len(tokens)} cartas, se esperan {HAND_SIZE}")
    try:
        cards = tuple(Card.parse(t) for t in tokens)
    except NotationError as exc:
        raise NotationError("mano {mano}: {motivo}", mano=_cita(text.strip()), motivo=exc) from None
    try:
        return Hand(cards)  # type: ignore[arg-type]
    except NotationError as exc:
        raise NotationError("mano {mano}: {motivo}", mano=_cita(text.strip()), motivo=exc) from None


def check_distinct(hands: Iterable[Hand]) -> None:
    """Raise if any card appears in more than one hand (a deck holds each card once)."""
    hands = list(hands)
    if len({c for h in hands for c in h.cards}) == HAND_SIZE * len(hands):
        return
    seen: dict[Card, int] = {}
    for seat, hand in enumerate(hands):
        for card in hand:
            if card in seen:
                raise NotationError(
                    "la carta {carta} aparece en la mano {a} y en la mano {b}", carta=card, a=seen[card], b=seat
                )
            seen[card] = seat
