"""The match (partida): tantos, juegos, vacas, the rotating mano, mus corrido, undo and history.

State is never stored twice: it is the replay of the hand records, so undo is dropping the last
record and a history loaded from JSON is checked hand by hand as it is replayed::

    >>> p = Partida("ludoteka-4", ["Ana", "Luis", "Eva", "Iker"])
    >>> r = p.registrar(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    >>> p.tantos, p.mano
    ((4, 4), 1)
    >>> p.deshacer().marcador, p.tantos
    ((4, 4), (0, 0))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from scoring.errors import ScoringError
from scoring.outcomes import Cierre, FinJuego, Terminacion
from scoring.rules import PerfilError, Reglas, perfil
from scoring.tanteo import RegistroMano, RegistroManoError, ResultadoTanteo, tantear

FORMATO: Final = "musmesa-partida"
VERSION: Final = 1


class PartidaError(ScoringError):
    """An action the match does not allow (a hand after the end, a wrong mano, bad history)."""


def amarracos(tantos: int) -> tuple[int, int]:
    """Tantos as players keep them: amarracos of five and loose piedras.

    >>> amarracos(23)
    (4, 3)
    """
    return divmod(tantos, 5)


@dataclass(frozen=True)
class EstadoPartida:
    """The scoreboard after some hands. ``aviso`` says what the last hand ended, as a value:

    >>> p = Partida("ludoteka-4", ["Ana", "Luis", "Eva", "Iker"])
    >>> manos = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
    >>> r = p.registrar(manos, {"grande": {"ordago": "quiero"}})
    >>> r.fin, p.estado.aviso, p.juegos
    (FinJuego(ganador=0, por=<Terminacion.ORDAGO: 'ordago'>), <Cierre.JUEGO: 'juego'>, (1, 0))
    """

    tantos: tuple[int, int] = (0, 0)
    juegos: tuple[int, int] = (0, 0)
    vacas: tuple[int, int] = (0, 0)
    mano: int = 0
    mus_corrido: bool = True
    ganador: int | None = None
    aviso: Cierre = Cierre.NADA  # what the last hand ended


class Partida:
    """A partida between pareja 0 (seats 0 and 2) and pareja 1 (seats 1 and 3)."""

    def __init__(
        self,
        reglas: str | Mapping[str, Any] | Reglas | None = None,
        jugadores: Sequence[str] | None = None,
        mano: int = 0,
    ) -> None:
        try:
            self.reglas = perfil(reglas)
        except PerfilError as exc:
            raise PartidaError(str(exc)) from None
        if jugadores is None:
            names: tuple[Any, ...] = tuple(f"asiento {i}" for i in range(4))
        elif isinstance(jugadores, Sequence) and not isinstance(jugadores, str):
            names = tuple(jugadores)
        else:
            raise PartidaError("jugadores debe ser una lista de cuatro nombres")
        if len(names) != 4 or not all(isinstance(n, str) and n.strip() for n in names):
            raise PartidaError("una partida necesita cuatro nombres, uno por asiento")
        if len({n.strip() for n in names}) != 4:
            raise PartidaError("los cuatro jugadores deben tener nombres distintos")
        if type(mano) is not int or mano not in (0, 1, 2, 3):
            raise PartidaError("mano debe ser un asiento de 0 a 3, no {valor}", valor=repr(mano))
        self.jugadores: tuple[str, ...] = tuple(n.strip() for n in names)
        self.mano_inicial = mano
        self._manos: list[ResultadoTanteo] = []
        self._estados: list[EstadoPartida] = [EstadoPartida(mano=mano, mus_corrido=self.reglas.mus_corrido != "no")]

    # -- state -------------------------------------------------------------------------------
    @property
    def estado(self) -> EstadoPartida:
        return self._estados[-1]

    @property
    def tantos(self) -> tuple[int, int]:
        return self.estado.tantos

    @property
    def juegos(self) -> tuple[int, int]:
        return self.estado.juegos

    @property
    def vacas(self) -> tuple[int, int]:
        return self.estado.vacas

    @property
    def mano(self) -> int:
        """Seat that is mano for the next hand (for a mus corrido hand: where it starts)."""
        return self.estado.mano

    @property
    def terminada(self) -> bool:
        return self.estado.ganador is not None

    @property
    def ganador(self) -> int | None:
        return self.estado.ganador

    @property
    def historial(self) -> tuple[ResultadoTanteo, ...]:
        return tuple(self._manos)

    def nombre_pareja(self, pareja: int) -> str:
        return f"{self.jugadores[pareja]} y {self.jugadores[pareja + 2]}"

    # -- actions -----------------------------------------------------------------------------
    def registro(
        self,
        manos: Sequence[str],
        lances: Mapping[str, Any] | None = None,
        mano: int | None = None,
        declaraciones: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The hand record (``mus tanteo`` format) for the next hand, without scoring it."""
        if self.ganador is not None:
            raise PartidaError("la partida ya terminó: ganó {pareja}", pareja=self.nombre_pareja(self.ganador))
        for name, value in (("lances", lances), ("declaraciones", declaraciones)):
            if value is not None and not isinstance(value, Mapping):
                raise PartidaError(f"{name} debe ser un objeto, no {value!r}")
        seat = self._mano_para(mano)
        record: dict[str, Any] = {
            "reglas": self._reglas_json(),
            "mano": seat,
            "manos": list(manos),
            "marcador": list(self.tantos),
            "lances": dict(lances or {}),
            "jugadores": list(self.jugadores),
        }
        if declaraciones:
            record["declaraciones"] = dict(declaraciones)
        return record

    def registrar(
        self,
        manos: Sequence[str],
        lances: Mapping[str, Any] | None = None,
        mano: int | None = None,
        declaraciones: Mapping[str, Any] | None = None,
    ) -> ResultadoTanteo:
        """Score the next hand and add it to the partida.

        ``mano`` may differ from :attr:`mano` only in a mus corrido hand, where the mano passes
        on each time all four ask for mus (Ludoteka; the Basque championship's «Araudia» gives it
        to whoever cuts the mus).
        Raises PartidaError or RegistroManoError (both ScoringError) and changes nothing on error.
        """
        record = self.registro(manos, lances, mano, declaraciones)
        result = tantear(record)
        self._manos.append(result)
        self._estados.append(self._siguiente(self.estado, result))
        return result

    def anotar(self, result: ResultadoTanteo) -> None:
        """Add a hand already scored by :meth:`registrar` of a partida at this same point (the
        same players, the marcador before it, its mano), without scoring it again; PartidaError
        when the hand was scored for another point of the match.

        >>> a, b = Partida(), Partida()
        >>> b.anotar(a.registrar(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]))
        >>> b.tantos == a.tantos, b.mano
        (True, 1)
        >>> b.anotar(a.historial[0])
        Traceback (most recent call last):
        ...
        scoring.partida.PartidaError: la mano se tanteó con otro marcador: (0, 0), no ...
        """
        if self.ganador is not None:
            raise PartidaError(f"la partida ya terminó: ganó {self.nombre_pareja(self.ganador)}")
        reg = result.registro
        if tuple(reg.marcador) != self.tantos:
            raise PartidaError(f"la mano se tanteó con otro marcador: {tuple(reg.marcador)}, no {self.tantos}")
        if reg.jugadores is not None and tuple(reg.jugadores) != self.jugadores:
            raise PartidaError("la mano se tanteó con otros jugadores")
        self._mano_para(reg.mano)
        self._manos.append(result)
        self._estados.append(self._siguiente(self.estado, result))

    def corregir(
        self, tantos: Sequence[int], juegos: Sequence[int], vacas: Sequence[int], ganador: int | None = None
    ) -> EstadoPartida:
        """Set the marcador after the last hand to what an authority counted (a tournament's
        server, a referee), keeping the mano; later hands count from it. The correction is
        not part of :meth:`to_dict` (a saved partida is its hands): whoever corrects keeps it.

        >>> p = Partida()
        >>> p.corregir((12, 3), (1, 0), (0, 0)).tantos
        (12, 3)
        >>> p.corregir((12, 3), (1, 0), (0, -1))
        Traceback (most recent call last):
        ...
        scoring.partida.PartidaError: vacas debe ser un par de enteros de 0 en adelante, no (0, -1)
        """
        pares = {"tantos": tantos, "juegos": juegos, "vacas": vacas}
        for nombre, par in pares.items():
            if not isinstance(par, Sequence) or len(par) != 2 or not all(type(v) is int and v >= 0 for v in par):
                raise PartidaError(f"{nombre} debe ser un par de enteros de 0 en adelante, no {par!r}")
        if ganador not in (None, 0, 1):
            raise PartidaError(f"ganador debe ser la pareja 0 o 1, o nada, no {ganador!r}")
        self._estados[-1] = replace(
            self.estado, tantos=_par(tantos), juegos=_par(juegos), vacas=_par(vacas), ganador=ganador
        )
        return self.estado

    def deshacer(self) -> ResultadoTanteo:
        """Undo the last hand and return it."""
        if not self._manos:
            raise PartidaError("no hay ninguna mano que deshacer")
        self._estados.pop()
        return self._manos.pop()

    def _mano_para(self, mano: int | None) -> int:
        if mano is None or mano == self.mano:
            return self.mano
        if type(mano) is not int or mano not in (0, 1, 2, 3):
            raise PartidaError("mano debe ser un asiento de 0 a 3, no {valor}", valor=repr(mano))
        if not self.estado.mus_corrido:
            raise PartidaError(
                f"le toca ser mano al asiento {self.mano} ({self.jugadores[self.mano]}); "
                "solo con mus corrido puede ser otro"
            )
        return mano

    def _siguiente(self, prev: EstadoPartida, result: ResultadoTanteo) -> EstadoPartida:
        return estado_siguiente(self.reglas, prev, result.registro.mano, result.marcador, result.fin)

    # -- persistence -------------------------------------------------------------------------
    def _reglas_json(self) -> Any:
        base = perfil(self.reglas.nombre) if _is_builtin(self.reglas.nombre) else None
        if base == self.reglas:
            return self.reglas.nombre
        return {k: v for k, v in self.reglas.to_dict().items() if k != "fuente"} | {"base": "general"}

    def to_dict(self) -> dict[str, Any]:
        return {
            "formato": FORMATO,
            "version": VERSION,
            "reglas": self._reglas_json(),
            "jugadores": list(self.jugadores),
            "mano_inicial": self.mano_inicial,
            "manos": [_hand_entry(r.registro) for r in self._manos],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> Partida:
        if not isinstance(data, Mapping) or data.get("formato") != FORMATO:
            raise PartidaError(f"no es una partida de musmesa (falta formato={FORMATO!r})")
        if data.get("version") != VERSION:
            raise PartidaError(f"versión de partida no soportada: {data.get('version')!r}")
        partida = cls(data.get("reglas"), data.get("jugadores"), data.get("mano_inicial", 0))
        manos = data.get("manos", [])
        if not isinstance(manos, list):
            raise PartidaError("el historial de manos debe ser una lista")
        for i, entry in enumerate(manos):
            if not isinstance(entry, Mapping):
                raise PartidaError(f"mano {i + 1} del historial: debe ser un objeto")
            try:
                partida.registrar(entry["manos"], entry.get("lances"), entry.get("mano"), entry.get("declaraciones"))
            except (KeyError, TypeError, RegistroManoError, PartidaError) as exc:
                raise PartidaError(f"mano {i + 1} del historial: {exc}") from None
        return partida

    @classmethod
    def from_json(cls, text: str) -> Partida:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PartidaError(f"JSON inválido: {exc}") from None
        return cls.from_dict(data)


def estado_siguiente(
    reglas: Reglas, prev: EstadoPartida, mano: int, marcador: tuple[int, int], fin: FinJuego | None
) -> EstadoPartida:
    """The marcador after a hand whose mano was ``mano``, that left ``marcador`` and ended a
    juego as ``fin`` says (None: it did not), from ``prev``, the one before it."""
    next_mano = (mano + 1) % 4
    if not fin:
        return EstadoPartida(marcador, prev.juegos, prev.vacas, next_mano, False, None, Cierre.NADA)
    p = fin.ganador
    juegos = _inc(prev.juegos, p)
    vacas, aviso = prev.vacas, Cierre.JUEGO
    if juegos[p] >= reglas.juegos_por_vaca:
        vacas, juegos, aviso = _inc(prev.vacas, p), (0, 0), Cierre.VACA
    ganador = p if vacas[p] >= reglas.vacas_por_partida else None
    corrido = reglas.mus_corrido == "juego"
    aviso = Cierre.PARTIDA if ganador is not None else aviso
    return EstadoPartida((0, 0), juegos, vacas, next_mano, corrido, ganador, aviso)


def fin_de_tanteo(tanteo: Mapping[str, Any]) -> FinJuego | None:
    """The end of a juego a stored tanteo (ResultadoTanteo.to_json()) says, or None."""
    fin = tanteo["fin"]
    return FinJuego(int(fin["ganador"]), Terminacion(fin["por"])) if fin else None


def estados_de_tanteos(reglas: Reglas, mano: int, tanteos: Sequence[Mapping[str, Any]]) -> list[EstadoPartida]:
    """The marcador before any hand and after each one, from each hand's stored tanteo
    (ResultadoTanteo.to_json()), no hand scored again: what :meth:`Partida.registrar` leaves
    after each. KeyError, TypeError or ValueError for a tanteo that is not one.

    >>> p = Partida("ludoteka-4", ["Ana", "Luis", "Eva", "Iker"])
    >>> r = p.registrar(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
    ...                 {"grande": {"ordago": "quiero"}})
    >>> estados_de_tanteos(p.reglas, 0, [r.to_json()])[-1] == p.estado
    True
    """
    estados = [EstadoPartida(mano=mano, mus_corrido=reglas.mus_corrido != "no")]
    for tan in tanteos:
        a, b = tan["marcador"]
        estados.append(estado_siguiente(reglas, estados[-1], int(tan["mano"]), (int(a), int(b)), fin_de_tanteo(tan)))
    return estados


def _par(values: Sequence[int]) -> tuple[int, int]:
    """A checked pair of counts as the two-item tuple an EstadoPartida holds."""
    return values[0], values[1]


def _inc(pair: tuple[int, int], p: int) -> tuple[int, int]:
    return (pair[0] + 1, pair[1]) if p == 0 else (pair[0], pair[1] + 1)


def _is_builtin(name: str) -> bool:
    try:
        perfil(name)
    except PerfilError:
        return False
    return True


def _hand_entry(reg: RegistroMano) -> dict[str, Any]:
    entry = {
        "mano": reg.mano,
        "manos": [str(h) for h in reg.manos],
        "lances": {k: v.to_json() for k, v in reg.lances.items()},
    }
    if reg.declaraciones:
        entry["declaraciones"] = dict(reg.declaraciones)
    return entry
