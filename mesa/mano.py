"""Entering one hand: the four hands (optional until the tanteo) and what happened per lance.

The lance outcomes use the hand-record format of `mus tanteo` (docs/scoring.md)::

    >>> e = EntradaMano(mano=0, reglas="general")
    >>> e.poner_cartas(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    >>> e.envite("pares", 5)
    >>> e.no_quiero("chica", gana=1)
    >>> e.lances() == {"chica": {"no_quiero": 1, "gana": 1}, "pares": {"quiero": 5}}
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mesa.i18n import N_
from scoring.cards import check_distinct, parse_hand
from scoring.jugadas import cuarto_lance, evaluar, se_apuesta, tienen
from scoring.rules import perfil

LANCES: Final = ("grande", "chica", "pares", "juego")
# Quick amounts offered for an accepted envite (2 is the opening bet; "envido").
IMPORTES: Final = (2, 3, 4, 5, 6, 8, 10, 15, 20)
# Quick amounts offered for a refused envite (1: the opening bet refused); any other is typed.
IMPORTES_NO_QUIERO: Final = (1, 2, 3, 4, 5)
ORDAGO: Final = {"ordago": "quiero"}
DESPUES_DEL_ORDAGO: Final = N_("no se apuesta después de un órdago querido")

Resultado = str | dict[str, Any]


def row_of(lance: str) -> str:
    """The lance row an outcome is entered in: punto is played in juego's place (the fourth
    lance, when no one holds juego), so it shares juego's row; every other lance has its own.

    >>> [row_of(lance) for lance in ("grande", "chica", "pares", "juego", "punto")]
    ['grande', 'chica', 'pares', 'juego', 'juego']
    """
    return "juego" if lance == "punto" else lance


class EntradaError(ValueError):
    """An outcome that cannot be recorded; the message says why in Spanish."""


@dataclass
class EstadoLance:
    """What the screen shows for one lance row."""

    lance: str  # grande, chica, pares, juego or punto
    apostable: bool
    motivo: str  # why it is not bet on, or "" (Spanish)
    resultado: Resultado
    plantilla: tuple[str, ...] = ()  # (template, *args) of motivo, for translation


@dataclass
class EntradaMano:
    mano: int
    reglas: str | dict = "general"
    cartas: list[str | None] = field(default_factory=lambda: [None] * 4)
    parejas: tuple[str, str] = ("pareja 1", "pareja 2")  # display names, for the reasons
    _res: dict[str, Resultado] = field(default_factory=dict)

    # -- cards ----------------------------------------------------------------------------
    def poner_cartas(self, manos: list[str]) -> None:
        """Set all four hands (validated: 4 cards each, no card twice)."""
        if len(manos) != 4:
            raise EntradaError(f"se esperan 4 manos, no {len(manos)}")
        hands = [parse_hand(m) for m in manos]
        check_distinct(hands)
        self.cartas = [str(h) for h in hands]
        self._quitar_imposibles()

    def poner_mano(self, asiento: int, texto: str | None) -> None:
        self.cartas[asiento] = str(parse_hand(texto)) if texto else None
        if self.cartas_completas():
            check_distinct([parse_hand(c) for c in self.manos()])
            self._quitar_imposibles()

    def cartas_completas(self) -> bool:
        return all(self.cartas)

    def manos(self) -> list[str]:
        """The four hands' texts, in seat order; EntradaError naming the seats still missing."""
        manos = [c for c in self.cartas if c]
        if len(manos) != len(self.cartas):
            faltan = [str(i) for i, c in enumerate(self.cartas) if not c]
            raise EntradaError(f"faltan las cartas de los asientos {', '.join(faltan)}")
        return manos

    def cartas_usadas(self, salvo: int | None = None) -> set[str]:
        used: set[str] = set()
        for seat, text in enumerate(self.cartas):
            if text and seat != salvo:
                used.update(text.split())
        return used

    def _jugadas(self) -> list | None:
        if not self.cartas_completas():
            return None
        reglas = perfil(self.reglas)
        return [evaluar(parse_hand(c), reglas) for c in self.manos()]

    # -- lances ---------------------------------------------------------------------------
    def estado(self) -> list[EstadoLance]:
        """The four lance rows; pares/juego that cannot be bet are marked with the reason."""
        jugadas = self._jugadas()
        rows = []
        for lance in LANCES:
            nombre, ok, motivo = lance, True, ""
            plantilla: tuple[str, ...] = ()
            if jugadas is not None and lance == "juego":
                nombre = cuarto_lance(jugadas)
            if jugadas is not None and nombre in ("pares", "juego"):
                ok = se_apuesta(nombre, jugadas)
                if not ok:
                    plantilla = _motivo(nombre, tienen(nombre, jugadas), self.parejas)
                    motivo = plantilla[0].format(*plantilla[1:])
            rows.append(EstadoLance(nombre, ok, motivo, self._res.get(lance, "paso"), plantilla))
        return rows

    def _check(self, lance: str) -> None:
        lance = row_of(lance)
        if lance not in LANCES:
            raise EntradaError(f"lance desconocido: {lance!r}")
        if any(self._res.get(antes) == ORDAGO for antes in LANCES[: LANCES.index(lance)]):
            raise EntradaError(DESPUES_DEL_ORDAGO)  # the hand ended there: scoring/ would refuse it
        for row in self.estado():
            if row_of(row.lance) == lance and not row.apostable:
                raise EntradaError(f"{row.lance}: no se apuesta ({row.motivo})")

    def paso(self, lance: str) -> None:
        self._res.pop(row_of(lance), None)

    def envite(self, lance: str, tantos: int) -> None:
        self._check(lance)
        if not isinstance(tantos, int) or tantos < 2:
            raise EntradaError("un envite querido vale al menos 2 tantos")
        self._res[row_of(lance)] = {"quiero": tantos}

    def no_quiero(self, lance: str, gana: int, tantos: int = 1) -> None:
        self._check(lance)
        if gana not in (0, 1):
            raise EntradaError("la pareja que gana es 0 o 1")
        if tantos < 1:
            raise EntradaError("un envite no querido vale al menos 1 tanto")
        self._res[row_of(lance)] = {"no_quiero": tantos, "gana": gana}

    def ordago(self, lance: str) -> None:
        """Órdago querido (a refused órdago is a no_quiero: use :meth:`no_quiero`); the lances
        after it are not played, so what they held goes.

        >>> e = EntradaMano(mano=0)
        >>> e.envite("juego", 3)
        >>> e.ordago("chica")
        >>> e.lances()
        {'chica': {'ordago': 'quiero'}}
        >>> e.envite("pares", 2)
        Traceback (most recent call last):
        ...
        mesa.mano.EntradaError: no se apuesta después de un órdago querido
        """
        self._check(lance)
        key = row_of(lance)
        for despues in LANCES[LANCES.index(key) + 1 :]:
            self._res.pop(despues, None)
        self._res[key] = dict(ORDAGO)

    def cargar_lances(self, lances: Mapping[str, Any]) -> None:
        """Set every lance from hand-record outcomes (``{"pares": {"quiero": 5}, ...}``), through
        the same checks as the buttons: a lance that cannot be bet refuses its bet."""
        if not isinstance(lances, Mapping):
            raise EntradaError("lances debe ser un objeto {lance: resultado}")
        _nada_tras_el_ordago(lances)
        for lance, valor in lances.items():
            if isinstance(valor, Mapping) and not all(type(v) is int for k, v in valor.items() if k != "ordago"):
                raise EntradaError(f"lance {lance}: los tantos son números enteros")
            if valor == "paso":
                self.paso(lance)
            elif isinstance(valor, Mapping) and set(valor) == {"quiero"}:
                self.envite(lance, valor["quiero"])
            elif isinstance(valor, Mapping) and set(valor) == {"no_quiero", "gana"}:
                self.no_quiero(lance, valor["gana"], valor["no_quiero"])
            elif isinstance(valor, Mapping) and dict(valor) == {"ordago": "quiero"}:
                self.ordago(lance)
            else:
                raise EntradaError(f"lance {lance}: resultado inválido {valor!r}"[:200])

    def resultado(self, lance: str) -> Resultado:
        return self._res.get(row_of(lance), "paso")

    def _quitar_imposibles(self) -> None:
        """Once the cards are known, forget bets on lances that cannot be bet."""
        for row in self.estado():
            if not row.apostable:
                self._res.pop(row_of(row.lance), None)

    def lances(self) -> dict[str, Resultado]:
        """Non-paso outcomes, keyed as the cards decide (juego or punto)."""
        names = {row_of(r.lance): r.lance for r in self.estado()}
        return {names[k]: v for k, v in self._res.items() if k in names}

    def registro(self, marcador: list[int] | tuple[int, int]) -> dict[str, Any]:
        """The hand record for scoring/ (`mus tanteo` format)."""
        return {
            "reglas": self.reglas,
            "mano": self.mano,
            "manos": self.manos(),
            "marcador": list(marcador),
            "lances": self.lances(),
        }


def _nada_tras_el_ordago(lances: Mapping[str, Any]) -> None:
    """An accepted órdago ends the hand: a bet in a later lance is refused, whatever the order
    of the keys it was sent in."""
    jugados = [LANCES.index(row_of(k)) for k, v in lances.items() if k in (*LANCES, "punto")]
    valores = [v for k, v in lances.items() if k in (*LANCES, "punto")]
    ordagos = [i for i, v in zip(jugados, valores, strict=True) if v == ORDAGO]
    if ordagos and any(i > min(ordagos) and v != "paso" for i, v in zip(jugados, valores, strict=True)):
        raise EntradaError(DESPUES_DEL_ORDAGO)


def _motivo(lance: str, tiene: tuple[bool, bool], parejas: tuple[str, str]) -> tuple[str, ...]:
    """Why pares or juego is not bet on, as a translatable template and its arguments."""
    if not any(tiene):
        return (N_("Nadie tiene pares"),) if lance == "pares" else (N_("Nadie tiene juego"),)
    quien = parejas[0] if tiene[0] else parejas[1]
    if lance == "pares":
        return N_("Solo {0} tienen pares"), quien  # a pareja: two players
    return N_("Solo {0} tienen juego"), quien
