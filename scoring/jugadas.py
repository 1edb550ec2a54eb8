"""Hand evaluation for the five lances: grande, chica, pares, juego and punto.

Ties are won by the player nearer the mano (Ludoteka: "vence el primer jugador según el orden
de la mano"; the encyclopedia article, §3 «La mano»: "gana siempre quien sea mano")::

    >>> from scoring.cards import parse_hand
    >>> from scoring.rules import perfil
    >>> reglas = perfil("general")
    >>> pares(parse_hand("12o 3c 11e 1b"), reglas).describe()
    'pareja de reyes'
    >>> valor_juego(parse_hand("12o 3c 11e 1b"), reglas)
    31
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from scoring.cards import RANK_PLURALS, Hand
from scoring.rules import Reglas

LANCES: Final = ("grande", "chica", "pares", "juego", "punto")
# Juego from best to worst (Ludoteka: 31, 32, 40, 37, 36, 35, 34, 33; the encyclopedia article
# also lists 39 and 38, which four cards cannot make).
ORDEN_JUEGO: Final = (31, 32, 40, 39, 38, 37, 36, 35, 34, 33)
_JUEGO_KEY: Final = {v: len(ORDEN_JUEGO) - i for i, v in enumerate(ORDEN_JUEGO)}
_TIPO_ORDEN: Final = {"pareja": 1, "medias": 2, "duples": 3}
BONUS_PARES: Final = {"pareja": 1, "medias": 2, "duples": 3}


@dataclass(frozen=True, slots=True)
class Pares:
    """A pares jugada: ``pareja`` (two alike), ``medias`` (three) or ``duples`` (two pairs, or four
    alike, which the sources count as duples). ``rangos`` holds effective ranks, highest first.

    >>> Pares("duples", (12, 11)).describe(), Pares("duples", (12, 11)).bonus
    ('duples de reyes y caballos', 3)
    """

    tipo: str
    rangos: tuple[int, ...]

    @property
    def bonus(self) -> int:
        return BONUS_PARES[self.tipo]

    @property
    def clave(self) -> tuple[int, ...]:
        return (_TIPO_ORDEN[self.tipo], *self.rangos)

    def describe(self) -> str:
        if self.tipo == "duples":
            high, low = self.rangos
            if high == low:
                return f"duples de {RANK_PLURALS[high]} (cuatro {RANK_PLURALS[high]})"
            return f"duples de {RANK_PLURALS[high]} y {RANK_PLURALS[low]}"
        return f"{self.tipo} de {RANK_PLURALS[self.rangos[0]]}"


def rangos(hand: Hand, reglas: Reglas) -> tuple[int, ...]:
    """Effective ranks, highest first (threes are kings with 8 reyes, twos aces with 8 ases)."""
    return tuple(sorted((reglas.rango(c) for c in hand), reverse=True))


def pares(hand: Hand, reglas: Reglas) -> Pares | None:
    """The hand's pares jugada, or None."""
    return _pares_de(rangos(hand, reglas))


@cache  # at most 715 multisets of four ranks: a lookup table built on first use
def _pares_de(ranks: tuple[int, ...]) -> Pares | None:
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    for r, n in counts.items():
        if n == 4:
            return Pares("duples", (r, r))
        if n == 3:
            return Pares("medias", (r,))
    if len(pairs) == 2:
        return Pares("duples", (pairs[0], pairs[1]))
    if pairs:
        return Pares("pareja", (pairs[0],))
    return None


def valor_juego(hand: Hand, reglas: Reglas) -> int:
    """Sum of the cards for juego and punto: figures 10, threes 10 with 8 reyes."""
    return sum(reglas.valor(c) for c in hand)


def tiene_juego(hand: Hand, reglas: Reglas) -> bool:
    return valor_juego(hand, reglas) >= 31


def es_real(hand: Hand, reglas: Reglas) -> bool:
    """31 real: three sevens and a figure (any figure, or only the sota de oros), if the profile
    plays it. With 8 reyes a three is a king "a todos los efectos", so it counts as a figure.

    >>> from scoring.cards import parse_hand
    >>> from scoring.rules import perfil
    >>> es_real(parse_hand("7o 7c 7e 11b"), perfil("cuellar")), es_real(parse_hand("7o 7c 7e 11b"), perfil("segovia"))
    (True, False)
    """
    if reglas.real == "no":
        return False
    sevens = [c for c in hand if c.rank == 7]
    others = [c for c in hand if c.rank != 7]
    if len(sevens) != 3:
        return False
    figure = others[0]
    if reglas.real == "sota_oros":
        return figure.rank == 10 and figure.suit == "o"
    return reglas.rango(figure) >= 10


_CLAVE_INDEX: Final = {lance: i for i, lance in enumerate(LANCES)}


@dataclass(frozen=True, slots=True)
class Jugada:
    """Everything a hand is worth under one rule set, computed once per hand."""

    hand: Hand
    rangos: tuple[int, ...]
    pares: Pares | None
    valor: int
    real: bool
    # comparison keys in LANCES order, derived once: the tanteo compares them many times
    claves: tuple[tuple[int, ...] | None, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "claves", _claves(self.rangos, self.pares, self.valor, self.real))

    @property
    def juego(self) -> bool:
        return self.valor >= 31

    def clave(self, lance: str) -> tuple[int, ...] | None:
        """Comparison key for a lance (greater is better); None when the hand has no jugada."""
        try:
            return self.claves[_CLAVE_INDEX[lance]]
        except KeyError:
            raise ValueError(f"lance desconocido: {lance!r}") from None

    def bonus(self, lance: str) -> int:
        """Tantos the jugada itself is worth: pares 1/2/3, juego 3 (31) or 2."""
        if lance == "pares":
            return self.pares.bonus if self.pares else 0
        if lance == "juego":
            return (3 if self.valor == 31 else 2) if self.juego else 0
        return 0

    def describe(self, lance: str) -> str:
        if lance in ("grande", "chica"):
            return str(self.hand)
        if lance == "pares":
            return self.pares.describe() if self.pares else "sin pares"
        if lance == "juego":
            return ("31 real" if self.real else str(self.valor)) if self.juego else "sin juego"
        return f"{self.valor} al punto"


@cache  # depends only on the ranks and the sum: a small lookup table, not a cache of hands
def _claves(ranks: tuple[int, ...], pares: Pares | None, valor: int, real: bool) -> tuple[tuple[int, ...] | None, ...]:
    juego = (_JUEGO_KEY[valor] + (1 if real else 0), int(real)) if valor >= 31 else None
    chica = tuple(-r for r in reversed(ranks))
    return (ranks, chica, pares.clave if pares else None, juego, (valor,))


def evaluar(hand: Hand, reglas: Reglas) -> Jugada:
    """Evaluate a hand once for every lance."""
    tabla = reglas.tabla
    a, b, c, d = (tabla[card] for card in hand.cards)
    ranks = tuple(sorted((a[0], b[0], c[0], d[0]), reverse=True))
    valor = a[1] + b[1] + c[1] + d[1]
    real = valor == 31 and reglas.real != "no" and es_real(hand, reglas)
    return Jugada(hand, ranks, _pares_de(ranks), valor, real)


def ganador_de(lance: str, jugadas: Sequence[Jugada], mano: int) -> int | None:
    """Seat that wins the lance; ties go to the seat nearer the mano. None if no one holds it."""
    index = _CLAVE_INDEX[lance]
    best_seat, best_key = None, None
    for seat in speaking_order(mano):
        key = jugadas[seat].claves[index]
        if key is not None and (best_key is None or key > best_key):
            best_seat, best_key = seat, key
    return best_seat


# The seats in the order they speak, for each mano: the mano first, then round the table.
_FROM_MANO: Final = tuple(tuple((m + i) % 4 for i in range(4)) for m in range(4))


def speaking_order(mano: int) -> tuple[int, ...]:
    """The four seats in the order they speak and win ties: the mano first, then round the table.

    >>> speaking_order(0), speaking_order(3)
    ((0, 1, 2, 3), (3, 0, 1, 2))
    """
    return _FROM_MANO[mano]


def ganador(lance: str, hands: Sequence[Hand], mano: int, reglas: Reglas) -> int | None:
    """Seat that wins ``lance`` with these four hands.

    >>> from scoring.cards import parse_hand
    >>> from scoring.rules import perfil
    >>> hands = [parse_hand(t) for t in ("12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b")]
    >>> ganador("grande", hands, 0, perfil("general")), ganador("chica", hands, 0, perfil("general"))
    (1, 3)
    """
    return ganador_de(lance, [evaluar(h, reglas) for h in hands], mano)


def cuarto_lance(jugadas: Sequence[Jugada]) -> str:
    """``juego`` if anyone holds juego, else ``punto``."""
    return "juego" if any(j.juego for j in jugadas) else "punto"


def tienen(lance: str, jugadas: Sequence[Jugada]) -> tuple[bool, bool]:
    """Whether each pareja (0: seats 0 and 2, 1: seats 1 and 3) holds the lance's jugada."""
    has = [jugadas[s].clave(lance) is not None for s in range(4)]
    return (has[0] or has[2], has[1] or has[3])


def se_apuesta(lance: str, jugadas: Sequence[Jugada]) -> bool:
    """Whether the lance is bet on: grande, chica and punto always; pares and juego only when
    both parejas hold the jugada (Ludoteka: "si los dos jugadores de alguna de las dos parejas
    no tienen jugada, no se abre el turno de apuestas")."""
    if lance in ("pares", "juego"):
        return all(tienen(lance, jugadas))
    return True
