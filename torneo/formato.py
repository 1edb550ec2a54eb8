"""The shape of a tournament, pure and without a database: the match length folded into the
rule profile, the pairings of each round (a league's round robin, groups then a knockout
bracket, byes) and the standings with their tie-breaks.

    >>> [[(a, b) for a, b in r] for r in round_robin([1, 2, 3])]
    [[(1, None), (2, 3)], [(1, 3), (None, 2)], [(1, 2), (3, None)]]
    >>> orden_cuadro(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    >>> cuadro_grupos([[11, 12], [21, 22]], 2)  # 1A-2B, 1B-2A
    [(11, 22), (21, 12)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scoring.rules import PerfilError, perfil

TIPOS: Final = ("liga", "grupos", "suizo", "ceros")
# the rule profiles the organiser picks from (pages and API): scoring.rules' named profiles
PERFILES: Final = ("segovia", "euskadi", "cuellar", "general", "ludoteka-4", "ludoteka-8")
DESEMPATES: Final = ("diferencia_juegos", "juegos_favor", "diferencia_tantos", "tantos_favor")
# a Swiss phase's standings also know the Buchholz (the sum of the opponents' wins)
DESEMPATES_SUIZO: Final = ("buchholz", *DESEMPATES)
MAX_PAREJAS: Final = 256
MAX_MESAS: Final = 128


class FormatoError(ValueError):
    """A tournament shape that cannot be played: its message as a gettext msgid (Spanish) and
    the fields that fill it, said in the reader's language by the server (server.handlers)."""

    def __init__(self, msgid: str, /, **params: Any) -> None:
        super().__init__(msgid.format(**params) if params else msgid)
        self.msgid, self.params = msgid, params

    @classmethod
    def de(cls, exc: Exception) -> FormatoError:
        """Another error (a rule profile's) as a format error, its msgid and fields kept."""
        msgid, params = getattr(exc, "msgid", None), getattr(exc, "params", None)
        if isinstance(msgid, str) and msgid and isinstance(params, Mapping):
            return cls(msgid, **params)
        return cls(str(exc))


@dataclass(frozen=True)
class Formato:
    """tipo: ``liga`` (everyone meets everyone), ``grupos`` (a round robin in each of
    ``grupos`` groups, then a knockout of the first ``clasifican`` of each), ``suizo`` (``rondas``
    Swiss rounds, then a knockout of the first ``clasifican`` when given) or ``ceros``
    (elimination: a pareja is out at its ``ceros``-th lost match, 1 to 3). A match is won at
    ``juegos`` juegos, or at ``vacas`` vacas of the profile's juegos. ``sorteo``: draw the
    order (with ``semilla``) instead of following the seeding; the Swiss and ceros draws among
    equals follow ``semilla`` too.

    >>> Formato.from_dict({"tipo": "ceros", "ceros": 2, "juegos": 3}).ceros
    2
    >>> Formato.from_dict({"tipo": "suizo", "rondas": 4}).clasifican  # no knockout after it
    0
    """

    tipo: str = "liga"
    grupos: int = 1
    clasifican: int = 2
    juegos: int | None = None
    vacas: int | None = None
    desempates: tuple[str, ...] = DESEMPATES
    sorteo: bool = False
    semilla: int | None = None
    rondas: int | None = None
    ceros: int = 2
    # the round clock (server.servicios.reloj): {"minutos": 50, "al_acabar": "juegos_tantos"}; None: none
    tiempo: Mapping[str, Any] | None = None
    # each hand counts once a player of the other pareja confirms it (server.servicios.confirmacion)
    confirmacion_rival: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Formato:
        tipo = data.get("tipo", "liga")
        f = cls(
            tipo=tipo,
            grupos=data.get("grupos", 1),
            # a Swiss phase is followed by a knockout only when asked for
            clasifican=(0 if tipo == "suizo" else 2) if data.get("clasifican") is None else data["clasifican"],
            juegos=data.get("juegos"),
            vacas=data.get("vacas"),
            desempates=tuple(
                (DESEMPATES_SUIZO if tipo == "suizo" else DESEMPATES)
                if data.get("desempates") is None
                else data["desempates"]
            ),
            sorteo=bool(data.get("sorteo", False)),
            semilla=data.get("semilla"),
            rondas=data.get("rondas"),
            ceros=data.get("ceros", 2),
            tiempo=dict(data["tiempo"]) if data.get("tiempo") is not None else None,
            confirmacion_rival=bool(data.get("confirmacion_rival", False)),
        )
        f.comprobar()
        return f

    def comprobar(self) -> None:
        if self.tipo not in TIPOS:
            raise FormatoError(
                "formato desconocido {tipo} ({lista})", tipo=repr(self.tipo)[:40], lista=", ".join(TIPOS)
            )
        if self.tipo == "suizo" and self.rondas is None:
            raise FormatoError("un torneo suizo necesita su número de rondas")
        if self.juegos is not None and self.vacas is not None:
            raise FormatoError("una partida se juega a juegos o a vacas, no a las dos")
        # clasifican 0: a Swiss tournament with no knockout after it
        sin_cuadro = 0 if self.tipo == "suizo" else 1
        for name, value, low, high in (
            ("grupos", self.grupos, 1, 32),
            ("clasifican", self.clasifican, sin_cuadro, 16),
            ("juegos", self.juegos, 1, 20),
            ("vacas", self.vacas, 1, 9),
            ("rondas", self.rondas, 1, 20),
            ("ceros", self.ceros, 1, 3),
        ):
            if value is not None and (type(value) is not int or not low <= value <= high):
                raise FormatoError(
                    "{campo} debe ser un entero de {minimo} a {maximo}", campo=name, minimo=low, maximo=high
                )
        if self.tiempo is not None:
            minutos, regla = self.tiempo.get("minutos"), self.tiempo.get("al_acabar", "juegos_tantos")
            if type(minutos) is not int or not 1 <= minutos <= 600 or set(self.tiempo) - {"minutos", "al_acabar"}:
                raise FormatoError("tiempo.minutos debe ser un entero de 1 a 600")
            if regla not in ("juegos_tantos", "tantos"):
                raise FormatoError("tiempo.al_acabar debe ser juegos_tantos o tantos")
        validos = DESEMPATES_SUIZO if self.tipo == "suizo" else DESEMPATES
        unknown = [d for d in self.desempates if d not in validos]
        if unknown or len(set(self.desempates)) != len(self.desempates):
            raise FormatoError("desempate desconocido o repetido ({lista})", lista=", ".join(validos))

    def to_dict(self) -> dict[str, Any]:
        return {
            "tipo": self.tipo,
            "grupos": self.grupos,
            "clasifican": self.clasifican,
            "juegos": self.juegos,
            "vacas": self.vacas,
            "desempates": list(self.desempates),
            "sorteo": self.sorteo,
            "semilla": self.semilla,
            "rondas": self.rondas,
            "ceros": self.ceros,
        } | self._dia()

    def _dia(self) -> dict[str, Any]:
        """The day's options, only when set: older tournaments' formats stay as they were."""
        out: dict[str, Any] = {"tiempo": dict(self.tiempo)} if self.tiempo is not None else {}
        return out | ({"confirmacion_rival": True} if self.confirmacion_rival else {})


def reglas_de_partida(spec: Any, formato: Formato) -> Any:
    """The profile a match is scored with: ``spec`` with the match length folded in."""
    try:
        base = perfil(spec)
    except PerfilError as exc:
        raise FormatoError.de(exc) from None
    if formato.juegos is None and formato.vacas is None:
        return spec if isinstance(spec, str) else {**spec}
    overrides: dict[str, Any] = dict(spec) if isinstance(spec, Mapping) else {"base": base.nombre}
    if formato.juegos is not None:
        overrides |= {"juegos_por_vaca": formato.juegos, "vacas_por_partida": 1}
    else:
        overrides["vacas_por_partida"] = formato.vacas
    largo = f"{formato.juegos} juegos" if formato.juegos is not None else f"{formato.vacas} vacas"
    overrides["nombre"] = f"{base.nombre}, a {largo}"
    try:
        perfil(overrides)
    except PerfilError as exc:
        raise FormatoError.de(exc) from None
    return overrides


# -- pairings -------------------------------------------------------------------------------
Par = tuple[int | None, int | None]


def round_robin(ids: Sequence[int]) -> list[list[Par]]:
    """Every round of a round robin (circle method); ``None`` marks the bye of an odd count."""
    items: list[int | None] = list(ids)
    if len(items) % 2:
        items.append(None)
    n = len(items)
    rounds = []
    for _ in range(n - 1):
        rounds.append([(items[i], items[n - 1 - i]) for i in range(n // 2)])
        items = [items[0], items[-1], *items[1:-1]]
    return rounds


def ronda_pendiente(ids: Sequence[int], jugados: Iterable[tuple[int, int]]) -> list[Par]:
    """One round of the league pairs not yet played (a league a pareja joined late): the
    parejas with the most matches left are paired first, so the league ends in few rounds. A
    pareja with no opponent left free sits the round out (no bye). [] when every pair has met.

    >>> ronda_pendiente([1, 2, 3, 4, 5], [(1, 2), (3, 4)])
    [(5, 1), (2, 3)]
    """
    hechos = {frozenset(par) for par in jugados}
    faltan = {i: [j for j in ids if j != i and frozenset((i, j)) not in hechos] for i in ids}
    puesto = {pid: n for n, pid in enumerate(ids)}

    def prioridad(i: int) -> tuple[int, int]:
        return -len(faltan[i]), puesto[i]

    libres = set(ids)
    pares: list[Par] = []
    for i in sorted(ids, key=prioridad):
        rival = next((j for j in sorted(faltan[i], key=prioridad) if j in libres), None)
        if i in libres and rival is not None:
            libres -= {i, rival}
            pares.append((i, rival))
    return pares


def orden(ids_por_semilla: Sequence[int], formato: Formato) -> list[int]:
    """The order the pairings follow: the seeding, or a draw reproducible from the seed."""
    ids = list(ids_por_semilla)
    if formato.sorteo:
        random.Random(formato.semilla).shuffle(ids)
    return ids


def repartir_grupos(ids: Sequence[int], grupos: int) -> list[list[int]]:
    """Serpentine split (1st seeds spread over the groups, then back), so groups are even."""
    out: list[list[int]] = [[] for _ in range(grupos)]
    for i, pid in enumerate(ids):
        lap, pos = divmod(i, grupos)
        out[pos if lap % 2 == 0 else grupos - 1 - pos].append(pid)
    return out


def orden_cuadro(n: int) -> list[int]:
    """Seed numbers in bracket order for a bracket of ``n`` (a power of two): 1 meets n."""
    order = [1]
    while len(order) < n:
        size = len(order) * 2
        order = [s for seed in order for s in (seed, size + 1 - seed)]
    return order


def cuadro(clasificados: Sequence[int]) -> list[Par]:
    """First knockout round for parejas in seed order; the top seeds get the byes. Fewer than
    two parejas make no knockout."""
    if len(clasificados) < 2:
        return []
    size = 1
    while size < len(clasificados):
        size *= 2
    seeded: list[int | None] = [*clasificados, *[None] * (size - len(clasificados))]
    order = orden_cuadro(size)
    return [(seeded[order[i] - 1], seeded[order[i + 1] - 1]) for i in range(0, size, 2)]


def siguiente_cuadro(ganadores: Sequence[int]) -> list[Par]:
    """The next knockout round: winners of consecutive matches meet."""
    return [(ganadores[i], ganadores[i + 1] if i + 1 < len(ganadores) else None) for i in range(0, len(ganadores), 2)]


def cuadro_grupos(clasificacion_por_grupo: Sequence[Sequence[int]], clasifican: int) -> list[Par]:
    """The first knockout round after the groups, crossing them: two of one group never meet
    in it when that can be avoided. The first ``clasifican`` of each group qualify.

    Two qualifiers from a power-of-two number of groups get the standard crossing: groups
    paired A-B, C-D, ...; 1A-2B, 1C-2D, ... in the top half and 1B-2A, 1D-2C, ... in the
    bottom half, so a group's first and second meet again only in the final.

    >>> cuadro_grupos([[11, 12], [21, 22]], 2)
    [(11, 22), (21, 12)]
    >>> cuadro_grupos([[11, 12], [21, 22], [31, 32], [41, 42]], 2)
    [(11, 22), (31, 42), (21, 12), (41, 32)]

    Otherwise the qualifiers are seeded by place (every group's first, then every second, ...)
    into a bracket with byes for the top seeds (``cuadro``), and parejas of the same place
    swap seeds while that removes a same-group match.
    """
    grupos = [list(g[:clasifican]) for g in clasificacion_por_grupo]
    n = len(grupos)
    if clasifican == 2 and n >= 2 and n & (n - 1) == 0 and all(len(g) == 2 for g in grupos):
        arriba = [(grupos[i][0], grupos[i + 1][1]) for i in range(0, n, 2)]
        abajo = [(grupos[i + 1][0], grupos[i][1]) for i in range(0, n, 2)]
        return [*arriba, *abajo]
    grupo_de = {pid: gi for gi, g in enumerate(grupos) for pid in g}
    puestos = [[g[k] for g in grupos if k < len(g)] for k in range(clasifican)]
    semillas = [pid for puesto in puestos for pid in puesto]
    puesto_de = [k for k, puesto in enumerate(puestos) for _ in puesto]

    def choques(orden: list[int]) -> int:
        return sum(1 for a, b in cuadro(orden) if a is not None and b is not None and grupo_de[a] == grupo_de[b])

    actual = choques(semillas)
    mejorado = True
    while actual and mejorado:  # swap seeds of the same place while that removes a same-group match,
        mejorado = False  # the lowest seeds first (the top seeds keep their byes)
        for i in reversed(range(len(semillas))):
            for j in reversed(range(i + 1, len(semillas))):
                if puesto_de[i] != puesto_de[j]:
                    continue
                semillas[i], semillas[j] = semillas[j], semillas[i]
                nuevo = choques(semillas)
                if nuevo < actual:
                    actual, mejorado = nuevo, True
                else:
                    semillas[i], semillas[j] = semillas[j], semillas[i]
    return cuadro(semillas)


# -- standings ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Resultado:
    """What the stored hands of one match add up to (tantos: every tanto scored)."""

    pareja0: int
    pareja1: int | None
    juegos: tuple[int, int]
    tantos: tuple[int, int]
    ganador: int | None


@dataclass
class Fila:
    pareja: int
    jugadas: int = 0
    ganadas: int = 0
    perdidas: int = 0
    juegos_favor: int = 0
    juegos_contra: int = 0
    tantos_favor: int = 0
    tantos_contra: int = 0
    descansos: int = 0
    buchholz: int = 0  # the sum of the opponents' wins (a Swiss tie-break)
    semilla: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def diferencia_juegos(self) -> int:
        return self.juegos_favor - self.juegos_contra

    @property
    def diferencia_tantos(self) -> int:
        return self.tantos_favor - self.tantos_contra

    def to_json(self) -> dict[str, Any]:
        return {
            "pareja": self.pareja,
            "jugadas": self.jugadas,
            "ganadas": self.ganadas,
            "perdidas": self.perdidas,
            "juegos_favor": self.juegos_favor,
            "juegos_contra": self.juegos_contra,
            "tantos_favor": self.tantos_favor,
            "tantos_contra": self.tantos_contra,
            "descansos": self.descansos,
            "buchholz": self.buchholz,
            "ceros": self.perdidas,
        }


def clasificacion(
    parejas: Mapping[int, int],
    resultados: Iterable[Resultado],
    desempates: Sequence[str] = DESEMPATES,
    por_ceros: bool = False,
) -> list[Fila]:
    """Rows sorted by matches won, then the tie-breaks in order, then the seeding.

    ``parejas``: pareja id -> seed. A bye counts as a match won with no juegos. A match still
    being played counts its juegos and tantos but no win yet. The ``buchholz`` tie-break sums
    the wins of the opponents met in finished matches (a bye adds nothing). ``por_ceros``: an
    elimination by ceros, where a rest is no win and the fewest ceros (matches lost) come first.

    >>> filas = clasificacion({1: 1, 2: 2, 3: 3}, [Resultado(1, 2, (2, 0), (80, 40), 0),
    ...     Resultado(3, None, (0, 0), (0, 0), None), Resultado(1, 3, (1, 2), (60, 70), 1)],
    ...     ("buchholz", "diferencia_juegos"))
    >>> [(f.pareja, f.ganadas, f.buchholz) for f in filas]
    [(3, 2, 1), (1, 1, 2), (2, 0, 1)]
    """
    filas = {pid: Fila(pid, semilla=seed) for pid, seed in parejas.items()}
    rivales: dict[int, list[int]] = {}
    for r in resultados:
        if r.pareja1 is None:
            if r.pareja0 in filas:
                filas[r.pareja0].descansos += 1
                filas[r.pareja0].ganadas += not por_ceros
            continue
        for lado, pid in ((0, r.pareja0), (1, r.pareja1)):
            if pid not in filas:
                continue
            f, otro = filas[pid], 1 - lado
            f.juegos_favor += r.juegos[lado]
            f.juegos_contra += r.juegos[otro]
            f.tantos_favor += r.tantos[lado]
            f.tantos_contra += r.tantos[otro]
            if r.ganador is not None:
                rivales.setdefault(pid, []).append(r.pareja1 if lado == 0 else r.pareja0)
                f.jugadas += 1
                f.ganadas += r.ganador == lado
                f.perdidas += r.ganador != lado
    if "buchholz" in desempates:
        for f in filas.values():
            f.buchholz = sum(filas[r].ganadas for r in rivales.get(f.pareja, ()) if r in filas)

    def orden(f: Fila) -> tuple[int, ...]:
        return (f.perdidas if por_ceros else 0, -f.ganadas, *(-getattr(f, d) for d in desempates), f.semilla)

    return sorted(filas.values(), key=orden)
