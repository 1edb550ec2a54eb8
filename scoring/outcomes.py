"""Outcomes as values: how the betting of a lance ended, how a juego ended, what a hand ended.

Modelled on python-chess's ``Outcome`` and ``Termination``: small immutable values instead of
strings and dicts. The enums are ``StrEnum``, so they still compare equal to the words of the
hand-record JSON (``"quiero"``, ``"ordago"``, ``"tantos"``, ``"vaca"``), and each value writes
itself back to exactly that JSON.

A lance's betting ends en paso, with an envite accepted (``quiero``), with the last bet refused
(``no_quiero``: the pareja who made it takes its tantos at once) or with an accepted órdago::

    >>> lance = NoQuiero(tantos=2, gana=1)
    >>> lance.tipo, lance.to_json()
    (<TipoLance.NO_QUIERO: 'no_quiero'>, {'no_quiero': 2, 'gana': 1})
    >>> lance.tipo == "no_quiero", Quiero(5).to_json(), PASO.to_json(), Ordago().to_json()
    (True, {'quiero': 5}, 'paso', {'ordago': 'quiero'})

A juego ends when a pareja reaches the tantos, or at once with an accepted órdago::

    >>> fin = FinJuego(ganador=0, por=Terminacion.ORDAGO)
    >>> fin.to_json(), fin.por == "ordago"
    ({'ganador': 0, 'por': 'ordago'}, True)

What a hand ended, the way the marcador announces it (a juego, a vaca, the partida)::

    >>> Cierre.VACA == "vaca", Cierre("partida").termina_partida, bool(Cierre.NADA)
    (True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Final, TypeAlias


class TipoLance(StrEnum):
    """How the betting of one lance ended: the key of its value in the hand record."""

    PASO = "paso"
    QUIERO = "quiero"
    NO_QUIERO = "no_quiero"
    ORDAGO = "ordago"


@dataclass(frozen=True, slots=True)
class Paso:
    """Nobody bet, or every bet was withdrawn: the lance is counted at the end of the hand.

    >>> Paso() == PASO, Paso().tipo
    (True, <TipoLance.PASO: 'paso'>)
    """

    tipo: ClassVar[TipoLance] = TipoLance.PASO

    def to_json(self) -> str:
        return "paso"


@dataclass(frozen=True, slots=True)
class Quiero:
    """An envite of ``tantos`` accepted: the lance's winner takes them at the end of the hand.

    >>> Quiero(3).tantos
    3
    """

    tantos: int
    tipo: ClassVar[TipoLance] = TipoLance.QUIERO

    def to_json(self) -> dict[str, int]:
        return {"quiero": self.tantos}


@dataclass(frozen=True, slots=True)
class NoQuiero:
    """Pareja ``gana``'s last bet refused: it takes ``tantos`` at once (the tantos in the
    record: 1 for a refused opening envite, or what was accepted before the refused raise).

    >>> NoQuiero(1, gana=0).gana
    0
    """

    tantos: int
    gana: int
    tipo: ClassVar[TipoLance] = TipoLance.NO_QUIERO

    def to_json(self) -> dict[str, int]:
        return {"no_quiero": self.tantos, "gana": self.gana}


@dataclass(frozen=True, slots=True)
class Ordago:
    """An accepted órdago: whoever wins the lance wins the juego.

    >>> Ordago().to_json()
    {'ordago': 'quiero'}
    """

    tipo: ClassVar[TipoLance] = TipoLance.ORDAGO

    def to_json(self) -> dict[str, str]:
        return {"ordago": "quiero"}


# The result of one lance's betting. Narrow it with ``isinstance`` (or ``match``): only a
# NoQuiero has a ``gana``, only a Quiero or a NoQuiero has ``tantos``.
Lance: TypeAlias = Paso | Quiero | NoQuiero | Ordago
PASO: Final = Paso()


class Terminacion(StrEnum):
    """Why a juego ended: a pareja reached the tantos, or won an accepted órdago."""

    TANTOS = "tantos"
    ORDAGO = "ordago"


@dataclass(frozen=True, slots=True)
class FinJuego:
    """The end of a juego: the pareja that won it (0 or 1) and how.

    >>> FinJuego(1, Terminacion.TANTOS)
    FinJuego(ganador=1, por=<Terminacion.TANTOS: 'tantos'>)
    """

    ganador: int
    por: Terminacion

    def to_json(self) -> dict[str, int | str]:
        return {"ganador": self.ganador, "por": self.por.value}


class Cierre(StrEnum):
    """What the last hand of a partida ended, if anything: a juego, a vaca or the partida.
    Each one includes the ones before it (the juego that ends a vaca ends a juego too)."""

    NADA = ""
    JUEGO = "juego"
    VACA = "vaca"
    PARTIDA = "partida"

    @property
    def termina_vaca(self) -> bool:
        return self in (Cierre.VACA, Cierre.PARTIDA)

    @property
    def termina_partida(self) -> bool:
        return self is Cierre.PARTIDA
