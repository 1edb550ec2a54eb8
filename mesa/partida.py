"""The partida being played: scoring/'s Partida plus storage, one transaction per hand.

The stored hand records are the source of truth: on start the partida is rebuilt by
replaying them, so a kill at any moment loses at most the hand being entered.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from mesa.i18n import N_, SOURCE, t, tn
from mesa.mano import EntradaMano
from scoring.outcomes import Cierre, FinJuego
from scoring.partida import EstadoPartida, Partida, amarracos, estados_de_tanteos, fin_de_tanteo
from scoring.rules import Reglas, perfil


class AlmacenPartidas(Protocol):
    """What ControlPartida needs of a store: the tablet's SQLite file (mesa.storage.Almacen)
    and the phone pages' database (server.servicios.partidas.AlmacenWeb) both serve it.

    A hand is ``{"n", "registro", "tanteo", "origen"}``; ``n`` counts from 1 with no gaps.
    ``guardar_mano`` gets the ``n`` the caller replayed up to, and the entering device's
    ``id_mano``: a store shared by several devices refuses a second hand ``n`` or a second
    ``id_mano`` (the tablet's own file, written by one device, may ignore both)."""

    def nueva_partida(self, reglas: str | dict, jugadores: list[str], mano: int) -> int: ...

    def partida(self, partida_id: int) -> dict[str, Any] | None: ...

    def partida_abierta(self) -> dict[str, Any] | None: ...

    def manos(self, partida_id: int) -> list[dict[str, Any]]: ...

    def guardar_mano(
        self,
        partida_id: int,
        registro: dict,
        tanteo: dict,
        origen: str = "manual",
        terminada: bool = False,
        ganador: int | None = None,
        id_mano: str | None = None,
        n: int | None = None,
    ) -> int: ...

    def deshacer_mano(self, partida_id: int, n: int | None = None) -> bool: ...


@dataclass
class VistaPareja:
    nombre: str
    tantos: int
    amarracos: int
    piedras: int
    juegos: int
    vacas: int


@dataclass
class VistaMarcador:
    """Everything the Marcador screen shows, as plain values."""

    parejas: tuple[VistaPareja, VistaPareja]
    jugadores: list[str]
    mano: int
    reglas: str
    tantos_juego: int
    juegos_por_vaca: int
    vacas_por_partida: int
    numero_mano: int
    ultimas: list[str] = field(default_factory=list)
    terminada: bool = False
    ganador: int | None = None
    avisos: list[str] = field(default_factory=list)  # the last hand's end of a juego, vaca or partida


class ControlPartida:
    """Owns the current Partida and writes every change through its store.

    The texts it makes for players (pareja names, the last hands, :attr:`problema`) are in
    ``idioma``, which the app keeps equal to its language.
    """

    def __init__(self, almacen: AlmacenPartidas, idioma: str = SOURCE) -> None:
        self.almacen = almacen
        self.idioma = idioma
        self.partida_id: int | None = None
        self.partida: Partida | None = None
        self.info: dict[str, Any] = {}
        self.problema = ""  # why the last resume stopped early, for the screen
        self.ultimo_registro: dict[str, Any] | None = None  # of the last confirmed hand
        self.guardadas = 0  # hands the store holds (more than replayed when one no longer scores)
        # the last hand's end of a juego, vaca or partida, (template, pareja name): every device
        # that shows the marcador announces it, not only the one that confirmed the hand
        self.avisos_ultima: list[tuple[str, str]] = []

    # -- lifecycle ------------------------------------------------------------------------
    def nueva(self, reglas: str | dict, jugadores: list[str], mano: int) -> None:
        names = [n.strip() for n in jugadores]
        if len(names) != 4 or not all(names):
            raise ValueError(N_("escribe los cuatro nombres"))  # nueva.py shows it translated
        if len(set(names)) != 4:
            raise ValueError(N_("los cuatro nombres deben ser distintos"))
        partida = Partida(perfil(reglas), jugadores=names, mano=mano)  # validates first
        pid = self.almacen.nueva_partida(reglas, names, mano)
        self.partida_id, self.partida, self.guardadas = pid, partida, 0
        self.info = self.almacen.partida(pid) or {}

    def reanudar(self, partida_id: int | None = None) -> bool:
        """Rebuild the open (or given) partida from its stored hands; False if none.

        A stored hand that no longer scores (a damaged row, a rule change) stops the replay
        there; :attr:`problema` says which, and the hands before it are kept.
        """
        self.problema = ""
        info = self.almacen.partida(partida_id) if partida_id is not None else self.almacen.partida_abierta()
        if not info:
            return False
        try:
            partida = Partida(perfil(info["reglas"]), jugadores=info["jugadores"], mano=info["mano_inicial"])
        except ValueError as exc:
            self.problema = t("la partida guardada no se puede abrir: {0}", self.idioma).format(exc)
            return False
        manos = self.almacen.manos(info["id"])
        self.info, self.avisos_ultima = info, []
        for m in manos:
            reg = m["registro"]
            try:
                res = partida.registrar(reg["manos"], reg.get("lances", {}), mano=reg["mano"])
                self.avisos_ultima = self._avisos(partida, res)
            except (ValueError, KeyError, TypeError) as exc:
                self.problema = t("la mano {n} guardada no se puede contar: {error}", self.idioma).format(
                    n=m["n"], error=exc
                )
                break
        self.partida_id, self.partida, self.info = info["id"], partida, info
        self.guardadas = len(manos)
        return True

    @property
    def activa(self) -> bool:
        return self.partida is not None

    def _p(self) -> Partida:
        if self.partida is None:
            raise RuntimeError("no hay partida en juego")
        return self.partida

    # -- hands ----------------------------------------------------------------------------
    def entrada(self) -> EntradaMano:
        p = self._p()
        return EntradaMano(
            mano=p.mano, reglas=self.info["reglas"], parejas=(self.nombre_pareja(0), self.nombre_pareja(1))
        )

    def nombre_pareja(self, pareja: int) -> str:
        """'Ana y Carlos': the players in seats ``pareja`` and ``pareja + 2``."""
        return nombre_pareja(self.info["jugadores"], pareja, self.idioma)

    def registro(self, entrada: EntradaMano) -> dict[str, Any]:
        """The hand record in `mus tanteo` format (what is stored and exported)."""
        return self._p().registro(entrada.manos(), entrada.lances(), mano=entrada.mano)

    def previsualizar(self, entrada: EntradaMano) -> tuple[Any, list[tuple[str, str]]]:
        """The tanteo the hand would give, and the announcements, without storing anything."""
        p = self._p()
        trial = copy.deepcopy(p)
        return self._registrar(trial, entrada)

    def confirmar(
        self, entrada: EntradaMano, origen: str = "manual", id_mano: str | None = None
    ) -> tuple[Any, list[tuple[str, str]]]:
        """Score the hand for real and store it in one transaction (before touching memory).

        ``id_mano``: the entering device's id of the hand, so a store shared by several devices
        stores it once however often it is sent."""
        p = self._p()
        trial = copy.deepcopy(p)
        res, avisos = self._registrar(trial, entrada)
        registro = self.registro(entrada)
        self.almacen.guardar_mano(
            self.partida_id or 0,
            registro,
            res.to_json(),
            origen,
            terminada=trial.terminada,
            ganador=trial.ganador,
            id_mano=id_mano,
            n=self.guardadas + 1,
        )
        self.partida, self.ultimo_registro = trial, registro  # what a tournament queue sends
        self.guardadas += 1
        self.avisos_ultima = avisos
        return res, avisos

    def _registrar(self, p: Partida, entrada: EntradaMano) -> tuple[Any, list[tuple[str, str]]]:
        res = p.registrar(entrada.manos(), entrada.lances(), mano=entrada.mano)
        return res, self._avisos(p, res)

    def deshacer(self) -> bool:
        """Undo the last stored hand; False when there is none, or when the store's last hand is
        another one (a second device undid it first). A stored hand that no longer scored was
        never replayed: undoing it leaves the marcador as it is."""
        p = self._p()
        if not self.guardadas or not self.almacen.deshacer_mano(self.partida_id or 0, n=self.guardadas):
            return False
        if self.guardadas == len(p.historial):
            p.deshacer()
        self.guardadas -= 1
        self.avisos_ultima = []
        return True

    # -- view -----------------------------------------------------------------------------
    def vista(self) -> VistaMarcador:
        p = self._p()
        return _vista(
            self.info,
            p.estado,
            _juegos_al_final(p),
            self.almacen.manos(self.partida_id or 0),
            self.avisos_ultima,
            self.idioma,
        )

    def _avisos(self, p: Partida, res: Any) -> list[tuple[str, str]]:
        """The end of a juego, vaca or partida: (Spanish template, pareja name) for the
        screen to translate and format."""
        return _avisos_fin(p.reglas, res.fin, p.estado.aviso, self.info["jugadores"], self.idioma)


def nombre_pareja(jugadores: list[str], pareja: int, idioma: str = SOURCE) -> str:
    """'Ana y Carlos': the players in seats ``pareja`` and ``pareja + 2``."""
    return t("{0} y {1}", idioma).format(jugadores[pareja], jugadores[pareja + 2])


def _avisos_fin(
    reglas: Reglas, fin: FinJuego | None, aviso: Cierre, jugadores: list[str], idioma: str
) -> list[tuple[str, str]]:
    if not fin:
        return []
    name = nombre_pareja(jugadores, fin.ganador, idioma)
    out = [(N_("¡Órdago! Juego para {0}") if fin.por == "ordago" else N_("¡Juego para {0}!"), name)]
    if aviso in ("vaca", "partida") and reglas.vacas_por_partida > 1:
        out.append((N_("¡Vaca para {0}!"), name))
    if aviso == "partida":
        out.append((N_("¡Partida para {0}!"), name))
    return out


def _vista(
    info: dict[str, Any],
    estado: EstadoPartida,
    juegos: tuple[int, int],
    manos: list[dict[str, Any]],
    avisos: list[tuple[str, str]],
    idioma: str,
) -> VistaMarcador:
    jug = info["jugadores"]
    reglas = perfil(info["reglas"])
    parejas = []
    for k in (0, 1):
        am, pi = amarracos(estado.tantos[k])
        parejas.append(VistaPareja(nombre_pareja(jug, k, idioma), estado.tantos[k], am, pi, juegos[k], estado.vacas[k]))
    return VistaMarcador(
        parejas=(parejas[0], parejas[1]),
        jugadores=list(jug),
        mano=estado.mano,
        reglas=reglas.nombre,
        tantos_juego=reglas.tantos,
        juegos_por_vaca=reglas.juegos_por_vaca,
        vacas_por_partida=reglas.vacas_por_partida,
        numero_mano=len(manos) + 1,
        ultimas=_ultimas(manos, jug, idioma),
        terminada=estado.ganador is not None,
        ganador=estado.ganador,
        avisos=[t(plantilla, idioma).format(nombre) for plantilla, nombre in avisos],
    )


def vista_guardada(info: dict[str, Any], manos: list[dict[str, Any]], idioma: str = SOURCE) -> VistaMarcador:
    """The marcador of the partida ``info`` (as AlmacenPartidas.partida gives it) from its stored
    hands' tanteos, no hand scored again: what :meth:`ControlPartida.vista` shows after
    :meth:`ControlPartida.reanudar` replays them (tests/test_web_partidas.py compares the two
    over a whole partida). KeyError, TypeError or ValueError when a stored tanteo is not one:
    the replay then says which hand (:attr:`ControlPartida.problema`)."""
    reglas = perfil(info["reglas"])
    estados = estados_de_tanteos(reglas, info["mano_inicial"], [m["tanteo"] for m in manos])
    estado, juegos = estados[-1], estados[-1].juegos
    avisos: list[tuple[str, str]] = []
    if manos:
        avisos = _avisos_fin(reglas, fin_de_tanteo(manos[-1]["tanteo"]), estado.aviso, info["jugadores"], idioma)
        if estado.ganador is not None:  # as _juegos_al_final: the last vaca with its winning juego
            antes = list(estados[-2].juegos)
            antes[estado.ganador] += 1
            juegos = (antes[0], antes[1])
    return _vista(info, estado, juegos, manos, avisos, idioma)


ULTIMAS: Final = 5  # the hands the marcador lists, newest first


def _juegos_al_final(p: Partida) -> tuple[int, int]:
    """The juegos to show: once the partida is over, those of its last vaca with the winning
    juego counted (scoring/ starts every vaca at 0-0, which would show an ended partida as 0/4)."""
    if not p.terminada or not p.historial or p.ganador is None:
        return p.juegos
    antes = copy.deepcopy(p)
    antes.deshacer()
    juegos = list(antes.juegos)
    juegos[p.ganador] += 1
    return juegos[0], juegos[1]


def _ultimas(manos: list[dict], jugadores: list[str], idioma: str, n: int = ULTIMAS) -> list[str]:
    """The last ``n`` hands, newest first: number, who was mano, tantos each pareja won."""
    out = []
    for m in manos[-n:][::-1]:
        tan = m["tanteo"]
        pts = [sum(v[i] for v in tan.get("por_lance", {}).values()) for i in (0, 1)]
        plantilla = (
            N_("{n}. mano {jugador}: +{a} / +{b} · fin del juego")
            if tan.get("fin")
            else N_("{n}. mano {jugador}: +{a} / +{b}")
        )
        out.append(t(plantilla, idioma).format(n=m["n"], jugador=jugadores[m["registro"]["mano"]], a=pts[0], b=pts[1]))
    return out


def resumen_reglas(reglas: Reglas, idioma: str = SOURCE) -> str:
    """A profile in one line, each count with its word in the right number (ngettext), as the
    phone's new-partida page and the tablet's list of profiles show it.

    >>> resumen_reglas(perfil("general"))
    '8 reyes · 40 tantos · 4 juegos · 1 vaca'
    """
    partes = (
        tn("{n} rey", "{n} reyes", reglas.reyes, idioma).format(n=reglas.reyes),
        tn("{n} tanto", "{n} tantos", reglas.tantos, idioma).format(n=reglas.tantos),
        tn("{n} juego", "{n} juegos", reglas.juegos_por_vaca, idioma).format(n=reglas.juegos_por_vaca),
        tn("{n} vaca", "{n} vacas", reglas.vacas_por_partida, idioma).format(n=reglas.vacas_por_partida),
    )
    return " · ".join(partes)
