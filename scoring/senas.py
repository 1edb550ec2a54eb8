"""Seña sets: what each regulated gesture (and each sequence of gestures) means, as data.

The gesture ids are a contract with gestures/ (``gestures.types.GESTOS``). Which gesture means what is not code:
each set lives in ``scoring/data/senas/<nombre>.toml`` with its source and article, and a rule
profile names its set in ``Reglas.senas``::

    >>> seg = conjunto_senas("segovia")
    >>> seg.interpretar(["labio_mordido", "guino", "morro"])
    ['dos reyes', 'treinta y una', 'juego']
    >>> conjunto_senas("euskadi").interpretar(["labio_mordido", "labio_mordido"])
    ['dos reyes', 'cuatro reyes']
    >>> conjunto_senas("euskadi").interpretar(["labios_lado", "lengua_fuera", "ojos_cerrados"])
    ['medias', 'tres ases', None]

A seña's ``afirma`` says what it claims about the hand, so the referee (scoring.arbitro) can
check it against the revealed cards: ``tipo``/``rangos`` for pares, ``juego``/``valores`` for
juego and punto, ``ciego`` for the blind seña.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from scoring.errors import ScoringError
from scoring.inputs import excerpt

GESTOS: Final[tuple[str, ...]] = (
    "labio_mordido",
    "lengua_fuera",
    "lengua_lado",
    "labios_lado",
    "cejas_arriba",
    "morro",
    "guino",
    "ojos_cerrados",
    "hombros_arriba",
    "hombro_arriba",
)
# Moments of a hand a referee marks, in order. "descarte" is the dealing of the discards;
# "lances" stands for "after the mus was cut, lance not marked".
FASES: Final[tuple[str, ...]] = (
    "reparto",
    "mus",
    "descarte",
    "lances",
    "grande",
    "chica",
    "pares",
    "juego",
    "punto",
    "tanteo",
)
LANCES_SENA: Final = ("pares", "juego", "ciego")
TIPOS_PARES: Final = {"pareja": 1, "medias": 2, "duples": 3}
# When ciego may be signalled: the Segovia regulation's list; "no jugada with a seña in this
# set" (Segovia's normas); "nothing": no pares, no juego and no seña (the encyclopedia).
REGLAS_CIEGO: Final = ("sin_pares_ni_29_30_ni_juego", "sin_jugada_con_sena", "nada")
DATA_DIR: Final = Path(__file__).parent / "data" / "senas"
_NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


class SenasError(ScoringError):
    """An unknown seña set, a malformed set file or an unknown gesture id."""


@dataclass(frozen=True, slots=True)
class Momento:
    """A moment restriction on one seña: only in ``fases``, unless the hand's pares are of one of
    ``salvo_rangos`` (Segovia: medias not of kings only after the grande)."""

    fases: tuple[str, ...]
    salvo_rangos: tuple[int, ...]
    articulo: str
    texto: str


@dataclass(frozen=True, slots=True)
class Sena:
    """One regulated seña: a gesture, or a sequence of gestures, and what it claims.

    lance: "pares", "juego" (juego and punto) or "ciego".
    tipo / rangos (pares): the claim is "at least this jugada with these effective ranks":
        ``pareja`` [12] = two kings or more; ``medias`` [] = any medias; ``duples`` [12] =
        duples with kings; ``duples`` [12, 12] = four kings.
    juego / valores (juego): ``juego = True`` claims any juego; ``valores`` a juego or punto
        value among these (31; 30; 31 or 30...).
    fases: the seña only means this in these phases (Segovia: a wink after "juego no" is 30).
    """

    id: str
    significado: str
    gestos: tuple[str, ...]
    lance: str
    articulo: str
    tipo: str | None = None
    rangos: tuple[int, ...] = ()
    juego: bool = False
    valores: tuple[int, ...] = ()
    fases: tuple[str, ...] = ()
    momento: Momento | None = None
    nota: str = ""

    @property
    def nivel(self) -> int:
        """Pares level of the claim (1 pareja, 2 medias, 3 duples); 0 outside pares."""
        return TIPOS_PARES.get(self.tipo or "", 0)

    @property
    def precision(self) -> int:
        """How specific the claim is within its level: more ranks, or fewer values, is more."""
        if self.lance == "pares":
            return len(self.rangos)
        if self.valores:
            return 100 - len(self.valores)
        return 0


@dataclass(frozen=True, slots=True)
class MomentoProhibido:
    """A phase in which no seña may be passed (optionally only in the partida's first hand)."""

    fases: tuple[str, ...]
    solo_primera_mano: bool
    articulo: str
    texto: str


@dataclass(frozen=True, slots=True)
class Desacuerdo:
    """Where the sources disagree or are ambiguous, and what this set does about it."""

    tema: str
    eleccion: str
    alternativa: str
    fuentes: str


@dataclass(frozen=True, slots=True)
class LecturaSena:
    """One seña read from a gesture list: the regulated seña (None: not in this set) and the
    positions of the gestures that form it."""

    sena: Sena | None
    indices: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ConjuntoSenas:
    """A regulated list of señas, loaded from TOML. Immutable.

    nombre, titulo, fuente: the set and its source text with article.
    senas: every regulated seña, single gestures and sequences.
    ciego: when the blind seña is allowed (one of REGLAS_CIEGO), ``ciego_articulo`` its source.
    prohibido: phases where no seña may be passed.
    no_reglamentada_articulo: the article forbidding señas outside the list.
    declaraciones: which regulation judges false declarations ("segovia" or "euskadi").
    pausa_max_s: longest pause between the gestures of a sequence (musmesa's choice; the
        sources give no time).
    desacuerdos: disagreements between sources, made explicit.
    """

    nombre: str
    titulo: str
    fuente: str
    senas: tuple[Sena, ...]
    ciego: str = "sin_jugada_con_sena"
    ciego_articulo: str = ""
    prohibido: tuple[MomentoProhibido, ...] = ()
    no_reglamentada_articulo: str = ""
    veraz_articulo: str = ""
    inferiores_articulo: str = ""
    completa_articulo: str = ""
    combinaciones_libres: tuple[tuple[str, str], ...] = ()
    combinaciones_articulo: str = ""
    declaraciones: str = "segovia"
    pausa_max_s: float = 4.0
    desacuerdos: tuple[Desacuerdo, ...] = ()
    _por_gestos: Mapping[tuple[str, ...], tuple[Sena, ...]] = field(
        default_factory=dict, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        index: dict[tuple[str, ...], list[Sena]] = {}
        for sena in self.senas:
            index.setdefault(sena.gestos, []).append(sena)
        object.__setattr__(self, "_por_gestos", {k: tuple(v) for k, v in index.items()})

    @property
    def significados(self) -> dict[str, str]:
        """Meaning of each single gesture, in any phase (phase-bound meanings left out).

        >>> conjunto_senas("segovia").significados["hombro_arriba"]
        'veintinueve'
        """
        return {s.gestos[0]: s.significado for s in self.senas if len(s.gestos) == 1 and not s.fases}

    @property
    def secuencias(self) -> dict[tuple[str, ...], str]:
        """Meaning of each sequence of two or more gestures.

        >>> conjunto_senas("euskadi").secuencias[("cejas_arriba", "labio_mordido")]
        'duples de reyes'
        """
        return {s.gestos: s.significado for s in self.senas if len(s.gestos) > 1}

    @property
    def gestos_reglamentados(self) -> frozenset[str]:
        return frozenset(g for s in self.senas for g in s.gestos)

    def sena(self, sena_id: str) -> Sena:
        """The seña with this id; KeyError if the set has none."""
        for s in self.senas:
            if s.id == sena_id:
                return s
        raise KeyError(f"el conjunto {self.nombre!r} no tiene la seña {sena_id!r}")

    def leer(
        self,
        gestos: Sequence[str],
        fases: str | Sequence[str | None] | None = None,
        tiempos: Sequence[tuple[float, float]] | None = None,
    ) -> list[LecturaSena]:
        """Group gestures into señas, longest sequence first, left to right.

        ``fases``: one phase for all gestures or one per gesture (None: unknown). ``tiempos``:
        (inicio, fin) per gesture; gestures further apart than ``pausa_max_s`` never form a
        sequence.

        >>> [l.sena.id for l in conjunto_senas("euskadi").leer(["labios_lado", "labio_mordido"])]
        ['tres_reyes']
        >>> conjunto_senas("segovia").leer(["guino"], fases="punto")[0].sena.significado
        'treinta'
        """
        gestos = _check_gestos(gestos)
        per_fase = _per_gesture(fases, len(gestos))
        out: list[LecturaSena] = []
        i = 0
        while i < len(gestos):
            sena, size = self._mejor(gestos, per_fase, tiempos, i)
            out.append(LecturaSena(sena, tuple(range(i, i + size))))
            i += size
        return out

    def interpretar(self, gestos: Sequence[str], fases: str | Sequence[str | None] | None = None) -> list[str | None]:
        """Meaning of each gesture in order, in plain Spanish; None if it is no seña here.

        In a sequence the last gesture carries the sequence's meaning and the earlier ones
        their own (what a partner has understood so far).

        >>> conjunto_senas("euskadi").interpretar(["cejas_arriba", "lengua_fuera"])
        ['duples', 'duples de ases']
        >>> conjunto_senas("segovia").interpretar(["guino", "guino"], fases=["juego", "punto"])
        ['treinta y una', 'treinta']
        """
        gestos = _check_gestos(gestos)
        per_fase = _per_gesture(fases, len(gestos))
        meanings: list[str | None] = []
        for lectura in self.leer(gestos, per_fase):
            for pos in lectura.indices[:-1]:
                alone = self._mejor(gestos[pos : pos + 1], per_fase[pos : pos + 1], None, 0)[0]
                meanings.append(alone.significado if alone else None)
            meanings.append(lectura.sena.significado if lectura.sena else None)
        return meanings

    def _mejor(
        self,
        gestos: Sequence[str],
        fases: Sequence[str | None],
        tiempos: Sequence[tuple[float, float]] | None,
        start: int,
    ) -> tuple[Sena | None, int]:
        longest = max((len(k) for k in self._por_gestos), default=1)
        for size in range(min(longest, len(gestos) - start), 0, -1):
            if size > 1 and not _close_enough(tiempos, start, size, self.pausa_max_s):
                continue
            candidates = self._por_gestos.get(tuple(gestos[start : start + size]), ())
            chosen = _por_fase(candidates, fases[start + size - 1])
            if chosen is not None:
                return chosen, size
        return None, 1


def _por_fase(candidates: Sequence[Sena], fase: str | None) -> Sena | None:
    """A phase-bound meaning wins in its phase; otherwise the meaning valid in any phase."""
    for sena in candidates:
        if sena.fases and fase in sena.fases:
            return sena
    for sena in candidates:
        if not sena.fases:
            return sena
    return None


def _close_enough(tiempos: Sequence[tuple[float, float]] | None, start: int, size: int, pausa: float) -> bool:
    if tiempos is None:
        return True
    return all(tiempos[j + 1][0] - tiempos[j][1] <= pausa for j in range(start, start + size - 1))


def _check_gestos(gestos: Sequence[str]) -> list[str]:
    if isinstance(gestos, str):
        raise SenasError("gestos debe ser una lista de ids, no un texto")
    unknown = [g for g in gestos if not isinstance(g, str) or g not in GESTOS]
    if unknown:
        raise SenasError(f"gesto desconocido {excerpt(repr(unknown[0]))} (ids válidos: {', '.join(GESTOS)})")
    return list(gestos)


def _per_gesture(fases: str | Sequence[str | None] | None, n: int) -> list[str | None]:
    if fases is None or isinstance(fases, str):
        values: list[str | None] = [fases] * n
    else:
        values = list(fases)
        if len(values) != n:
            raise SenasError(f"se esperan {n} fases, una por gesto; hay {len(values)}")
    bad = [f for f in values if f is not None and f not in FASES]
    if bad:
        raise SenasError(f"fase desconocida {excerpt(repr(bad[0]))} ({', '.join(FASES)})")
    return values


def nombres_conjuntos() -> tuple[str, ...]:
    """Names of the bundled seña sets."""
    return tuple(sorted(p.stem for p in DATA_DIR.glob("*.toml")))


def conjunto_senas(nombre: str) -> ConjuntoSenas:
    """Load a bundled seña set by name (``general`` is an alias of ``segovia``).

    >>> conjunto_senas("murcia")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.senas.SenasError: conjunto de señas desconocido 'murcia' (enciclopedia, euskadi, ...)
    """
    # short names only: a long one would make the file lookup fail with "name too long"
    if not isinstance(nombre, str) or not nombre or len(nombre) > 64 or not set(nombre) <= _NAME_CHARS:
        raise SenasError(f"nombre de conjunto de señas inválido: {excerpt(repr(nombre))}")
    return _cargar(nombre)


@cache
def _cargar(nombre: str) -> ConjuntoSenas:
    path = DATA_DIR / f"{nombre}.toml"
    if not path.is_file():
        raise SenasError(f"conjunto de señas desconocido {nombre!r} ({', '.join(nombres_conjuntos())})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SenasError(f"conjunto de señas {path.name}: TOML inválido ({exc})") from None
    if "alias_de" in data:
        return _cargar(data["alias_de"])
    try:
        return _desde_datos(nombre, data)
    except (KeyError, TypeError, ValueError) as exc:
        raise SenasError(f"conjunto de señas {path.name}: {exc}") from None


def cargar_conjunto(path: str | Path) -> ConjuntoSenas:
    """Load a user's own seña set from a TOML file written like the bundled ones."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return _desde_datos(data.get("nombre", path.stem), data)
    except OSError as exc:
        raise SenasError(f"no se puede leer {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SenasError(f"conjunto de señas {path}: TOML inválido ({exc})") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise SenasError(f"conjunto de señas {path}: {exc}") from None


def _desde_datos(nombre: str, data: Mapping[str, Any]) -> ConjuntoSenas:
    art = data.get("articulos", {})
    ciego = data.get("ciego", {})
    if ciego.get("regla", "sin_jugada_con_sena") not in REGLAS_CIEGO:
        raise ValueError(f"regla de ciego desconocida {ciego.get('regla')!r}")
    return ConjuntoSenas(
        nombre=nombre,
        titulo=data["titulo"],
        fuente=data["fuente"],
        senas=tuple(_sena(d) for d in data["senas"]),
        ciego=ciego.get("regla", "sin_jugada_con_sena"),
        ciego_articulo=ciego.get("articulo", ""),
        prohibido=tuple(_prohibido(d) for d in data.get("prohibido", [])),
        no_reglamentada_articulo=art.get("no_reglamentada", ""),
        veraz_articulo=art.get("veraz", ""),
        inferiores_articulo=art.get("inferiores", ""),
        completa_articulo=art.get("completa", ""),
        combinaciones_libres=tuple(tuple(c) for c in data.get("combinaciones_libres", {}).get("pares", [])),
        combinaciones_articulo=data.get("combinaciones_libres", {}).get("articulo", ""),
        declaraciones=data.get("declaraciones", "segovia"),
        pausa_max_s=float(data.get("pausa_max_s", 4.0)),
        desacuerdos=tuple(Desacuerdo(**d) for d in data.get("desacuerdos", [])),
    )


def _sena(d: Mapping[str, Any]) -> Sena:
    gestos = tuple(d["gestos"])
    _check_gestos(gestos)
    if d["lance"] not in LANCES_SENA:
        raise ValueError(f"seña {d['id']}: lance {d['lance']!r} ({', '.join(LANCES_SENA)})")
    afirma = d.get("afirma", {})
    tipo = afirma.get("tipo")
    if tipo is not None and tipo not in TIPOS_PARES:
        raise ValueError(f"seña {d['id']}: tipo de pares {tipo!r}")
    fases = tuple(d.get("fases", ()))
    _per_gesture(fases, len(fases))
    momento = d.get("momento")
    return Sena(
        id=d["id"],
        significado=d["significado"],
        gestos=gestos,
        lance=d["lance"],
        articulo=d["articulo"],
        tipo=tipo,
        rangos=tuple(afirma.get("rangos", ())),
        juego=bool(afirma.get("juego", False)),
        valores=tuple(afirma.get("valores", ())),
        fases=fases,
        nota=d.get("nota", ""),
        momento=Momento(
            tuple(momento["fases"]), tuple(momento.get("salvo_rangos", ())), momento["articulo"], momento["texto"]
        )
        if momento
        else None,
    )


def _prohibido(d: Mapping[str, Any]) -> MomentoProhibido:
    fases = tuple(d["fases"])
    _per_gesture(fases, len(fases))
    return MomentoProhibido(fases, bool(d.get("solo_primera_mano", False)), d["articulo"], d["texto"])
