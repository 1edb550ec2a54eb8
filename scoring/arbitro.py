"""The referee and the trainer: which señas a hand allows, and checking the señas a player made.

Everything here is pure and immutable. The seña set comes from the rule profile
(``Reglas.senas``, see scoring.senas); each verdict cites the article it comes from::

    >>> sp = senas_permitidas("12o 12c 3e 5b", "segovia")  # 8 reyes: three kings, 35
    >>> [j.sena.significado for j in sp.completas]
    ['medias', 'juego']
    >>> [(j.sena.id, j.estado) for j in sp.prohibidas][:2]
    [('dos_reyes', 'inferior'), ('dos_ases', 'falsa')]
    >>> informe = comprobar_senas([{"gesto": "labio_mordido", "inicio": 8.0, "fin": 8.4}],
    ...                           "12o 12c 3e 5b", "segovia", "grande")
    >>> [(h.tipo, h.articulo) for h in informe][0]
    ('inferior', 'Título VII, art. 7 («Nunca se podrán pasar señas de inferiores»)')

The API in short (for the app's referee and trainer screens):

- ``senas_permitidas(mano, perfil) -> SenasPermitidas``: ``.completas`` (what to signal),
  ``.permitidas``, ``.prohibidas`` (Juicio: sena, estado, razon, articulo, gravedad, fases),
  ``.libres``, ``.texto()``, ``.to_json()``.
- ``comprobar_senas(eventos, cartas, perfil, fase, primera_mano=False) -> InformeSenas``: iterate
  it for the ``Hallazgo`` findings (tipo, articulo, razon, gravedad, eventos, inicio, sena);
  ``.vistas`` are the señas read from the events, ``.correcto``, ``.texto()``, ``.to_json()``.
- ``fase`` is one phase name for every event, or the referee's taps as
  ``[{"fase": "reparto", "inicio": 0.0}, {"fase": "mus", "inicio": 4.1}, ...]`` with the same
  clock as the events; an event's own ``"fase"`` wins. Phases: scoring.senas.FASES.
- Señas made before the last dealing (``reparto``/``descarte``) are shown but not judged
  against the final cards (the hand changed); moments are always judged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from scoring.cards import Hand, parse_hand
from scoring.inputs import excerpt
from scoring.jugadas import Jugada, evaluar
from scoring.rules import Reglas
from scoring.rules import perfil as _perfil
from scoring.senas import (
    FASES,
    TIPOS_PARES,
    ConjuntoSenas,
    LecturaSena,
    Sena,
    SenasError,
    conjunto_senas,
)

# Estados of a seña for one hand. The first three are allowed, the rest are not.
PERMITIDOS: Final = ("completa", "insuficiente", "permitida")
PROHIBIDOS: Final = ("inferior", "falsa")
TIPOS_HALLAZGO: Final = ("falsa", "inferior", "incompleta", "no_reglamentada", "momento")
# Phases after which the cards in hand are the final ones (the last dealing is over).
_REPARTOS: Final = ("reparto", "descarte")
_TRAS_GRANDE: Final = ("chica", "pares", "juego", "punto", "tanteo")


@dataclass(frozen=True, slots=True)
class Juicio:
    """What one seña of the set means for one hand.

    estado: ``completa`` (true and as precise as the list allows: the seña to pass),
    ``insuficiente`` (true but less precise than another seña for the same jugada; allowed
    only together with the complete one), ``permitida`` (ciego, when allowed), ``inferior``
    (a lower jugada than the one held, "señas de inferiores") or ``falsa`` (the cards do not
    hold it). ``gravedad`` is ``aviso`` where the set's text does not forbid it in so many words.
    ``fases``: phases in which the seña may be passed for this hand (empty: any phase).
    """

    sena: Sena
    estado: str
    razon: str
    articulo: str
    gravedad: str = "infraccion"
    fases: tuple[str, ...] = ()

    @property
    def permitida(self) -> bool:
        return self.estado in PERMITIDOS

    def to_json(self) -> dict[str, Any]:
        return {
            "sena": self.sena.id,
            "significado": self.sena.significado,
            "gestos": list(self.sena.gestos),
            "estado": self.estado,
            "razon": self.razon,
            "articulo": self.articulo,
            "gravedad": self.gravedad,
            "fases": list(self.fases),
        }


@dataclass(frozen=True, slots=True)
class SenasPermitidas:
    """The señas one hand entitles under a profile.

    completas: the señas to pass if the player passes any (per lance, alternatives).
    libres: True when, by the set's rule (Reglamento Campeonatos de Mus (Segovia), Título VII
        art. 7), the complete seña of either lance is enough (duples and juego, duples and 30,
        tres reyes and juego).
    juicios: every seña of the set judged for this hand, in the set's order.
    """

    mano: Hand
    reglas: str
    conjunto: str
    jugada: str
    juicios: tuple[Juicio, ...]
    libres: bool
    libres_articulo: str
    evaluacion: Jugada

    @property
    def completas(self) -> tuple[Juicio, ...]:
        return tuple(j for j in self.juicios if j.estado == "completa")

    @property
    def permitidas(self) -> tuple[Juicio, ...]:
        return tuple(j for j in self.juicios if j.permitida)

    @property
    def prohibidas(self) -> tuple[Juicio, ...]:
        return tuple(j for j in self.juicios if not j.permitida)

    def completas_de(self, lance: str) -> tuple[Juicio, ...]:
        return tuple(j for j in self.completas if j.sena.lance == lance)

    def juicio(self, sena_id: str) -> Juicio:
        for j in self.juicios:
            if j.sena.id == sena_id:
                return j
        raise KeyError(sena_id)

    def texto(self) -> str:
        """Plain Spanish for the trainer: what to signal and why."""
        lines = [f"Mano {self.mano} ({self.jugada}); señas de «{self.conjunto}»."]
        if self.completas:
            names = " / ".join(f"{j.sena.significado} ({_como(j.sena)})" for j in self.completas)
            lines.append(f"Seña completa: {names}.")
        else:
            lines.append("Ninguna jugada con seña.")
        if self.libres:
            lines.append(f"Basta la seña de una de las dos jugadas: {self.libres_articulo}.")
        for j in self.juicios:
            lines.append(
                f"  {'sí' if j.permitida else 'no'}  {j.sena.significado:<12} {j.estado}: {j.razon} [{j.articulo}]"
            )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "mano": str(self.mano),
            "reglas": self.reglas,
            "conjunto": self.conjunto,
            "jugada": self.jugada,
            "libres": self.libres,
            "completas": [j.sena.id for j in self.completas],
            "juicios": [j.to_json() for j in self.juicios],
        }


def _como(sena: Sena) -> str:
    return " y luego ".join(g.replace("_", " ") for g in sena.gestos)


def resolver_reglas(spec: Reglas | str | Mapping[str, Any] | None) -> Reglas:
    """A profile name, an overrides mapping or Reglas (see scoring.rules.perfil)."""
    return _perfil(spec)


def _conjunto(reglas: Reglas, conjunto: ConjuntoSenas | str | None) -> ConjuntoSenas:
    if isinstance(conjunto, ConjuntoSenas):
        return conjunto
    return conjunto_senas(conjunto or reglas.senas)


def _mano(mano: Hand | str) -> Hand:
    return mano if isinstance(mano, Hand) else parse_hand(mano)


def describir(jugada: Jugada) -> str:
    """The hand's jugadas in words: 'medias de reyes, 33 de juego'."""
    pares = jugada.pares.describe() if jugada.pares else "sin pares"
    juego = f"{jugada.valor} de juego" if jugada.juego else f"{jugada.valor} al punto"
    return f"{pares}, {juego}"


# -- what a seña claims, against the cards ------------------------------------------------------


def _cuenta(jugada: Jugada, rango: int) -> int:
    return jugada.rangos.count(rango)


def es_cierta(sena: Sena, jugada: Jugada) -> bool:
    """Whether the hand holds what the seña claims (ciego claims nothing: see _juzgar_ciego)."""
    if sena.lance == "pares":
        return _pares_cierta(sena, jugada)
    if sena.lance == "juego":
        if sena.valores:
            return jugada.valor in sena.valores
        return jugada.juego if sena.juego else False
    return False


def _pares_cierta(sena: Sena, jugada: Jugada) -> bool:
    if jugada.pares is None:
        return False
    if sena.tipo == "duples":
        if jugada.pares.tipo != "duples":
            return False
        held = list(jugada.pares.rangos)
        for r in sena.rangos:
            if r not in held:
                return False
            held.remove(r)
        return True
    need = TIPOS_PARES[sena.tipo or "pareja"] + 1  # pareja: 2 alike, medias: 3 alike
    if sena.rangos:
        return all(_cuenta(jugada, r) >= need for r in sena.rangos)
    return max(jugada.rangos.count(r) for r in set(jugada.rangos)) >= need


def _nivel(jugada: Jugada) -> int:
    return TIPOS_PARES[jugada.pares.tipo] if jugada.pares else 0


# -- senas_permitidas -------------------------------------------------------------------------


def senas_permitidas(
    mano: Hand | str,
    perfil: Reglas | str | Mapping[str, Any] | None = None,
    conjunto: ConjuntoSenas | str | None = None,
) -> SenasPermitidas:
    """Judge every seña of the profile's set for a hand of four cards.

    ``conjunto`` overrides the profile's seña set (a name or a loaded ConjuntoSenas).

    >>> sp = senas_permitidas("1o 1c 1e 4b", "ludoteka-4")  # medias de ases, Segovia señas
    >>> [(j.sena.id, j.estado) for j in sp.juicios if j.sena.lance == "pares"][1:4]
    [('dos_ases', 'inferior'), ('medias_ases', 'completa'), ('medias', 'insuficiente')]
    """
    reglas = resolver_reglas(perfil)
    cs = _conjunto(reglas, conjunto)
    hand = _mano(mano)
    jugada = evaluar(hand, reglas)
    juicios = [_juzgar(s, jugada, cs) for s in cs.senas if s.lance != "ciego"]
    ciego = [s for s in cs.senas if s.lance == "ciego"]
    if ciego:
        con_sena = any(j.estado == "completa" for j in juicios)
        juicios.extend(_juzgar_ciego(s, jugada, cs, con_sena) for s in ciego)
    order = {s.id: i for i, s in enumerate(cs.senas)}
    juicios.sort(key=lambda j: order[j.sena.id])
    libres = _combinacion_libre(cs, jugada) if any(j.estado == "completa" for j in juicios) else False
    return SenasPermitidas(
        hand,
        reglas.nombre,
        cs.nombre,
        describir(jugada),
        tuple(juicios),
        libres,
        cs.combinaciones_articulo if libres else "",
        jugada,
    )


def _juzgar(sena: Sena, jugada: Jugada, cs: ConjuntoSenas) -> Juicio:
    if not es_cierta(sena, jugada):
        return _falsa(sena, jugada, cs)
    if sena.lance == "pares" and sena.nivel < _nivel(jugada):
        art, grav = _articulo(cs.inferiores_articulo, sena)
        razon = f"dice {sena.significado} y la mano tiene {jugada.describe('pares')}: seña de una jugada inferior"
        return Juicio(sena, "inferior", razon, art, grav)
    best = max(
        s.precision
        for s in cs.senas
        if s.lance == sena.lance and es_cierta(s, jugada) and (s.lance != "pares" or s.nivel == sena.nivel)
    )
    if sena.precision < best:
        art, grav = _articulo(cs.completa_articulo, sena)
        razon = f"cierta, pero hay una seña más precisa para {_tiene(sena, jugada)}"
        return Juicio(sena, "insuficiente", razon, art, grav)
    fases, nota = _fases_validas(sena, jugada)
    razon = f"la mano tiene {_tiene(sena, jugada)}{nota}"
    return Juicio(sena, "completa", razon, sena.articulo, "", fases)


def _falsa(sena: Sena, jugada: Jugada, cs: ConjuntoSenas) -> Juicio:
    art, grav = _articulo(cs.veraz_articulo, sena)
    razon = f"dice {sena.significado} y la mano tiene {_tiene(sena, jugada)}"
    return Juicio(sena, "falsa", razon, art, grav)


def _tiene(sena: Sena, jugada: Jugada) -> str:
    if sena.lance == "pares":
        return jugada.pares.describe() if jugada.pares else "sin pares"
    return f"{jugada.valor} de juego" if jugada.juego else f"{jugada.valor} al punto"


def _articulo(rule_article: str, sena: Sena) -> tuple[str, str]:
    """The set's article for this kind of fault, or (no such article) the seña's own
    definition as a warning."""
    if rule_article:
        return rule_article, "infraccion"
    return f"{sena.articulo}; aviso: el texto no lo prohíbe expresamente", "aviso"


def _fases_validas(sena: Sena, jugada: Jugada) -> tuple[tuple[str, ...], str]:
    if sena.fases:
        return sena.fases, f"; sólo en la fase {', '.join(sena.fases)} ({sena.nota or sena.articulo})"
    if sena.momento and not _exento(sena, jugada):
        return sena.momento.fases, f"; {sena.momento.texto.lower()} ({sena.momento.articulo})"
    return (), ""


def _exento(sena: Sena, jugada: Jugada) -> bool:
    """Whether the hand escapes the seña's moment restriction (medias of kings)."""
    if sena.momento is None:
        return True
    return jugada.pares is not None and jugada.pares.rangos[0] in sena.momento.salvo_rangos


def _juzgar_ciego(sena: Sena, jugada: Jugada, cs: ConjuntoSenas, con_sena: bool) -> Juicio:
    art = cs.ciego_articulo or sena.articulo
    if cs.ciego == "sin_pares_ni_29_30_ni_juego":
        bad = jugada.pares is not None or jugada.valor >= 29
        why = f"la mano tiene {describir(jugada)}" if bad else "ni pares, ni 29, 30 ni juego"
    elif cs.ciego == "nada":
        bad = con_sena or jugada.pares is not None or jugada.juego
        why = (
            f"la mano tiene {describir(jugada)}"
            if bad
            else f"no tiene nada: ni pares, ni juego, ni seña ({describir(jugada)})"
        )
    else:
        bad = con_sena
        why = (
            "la mano tiene una jugada con seña" if bad else "ninguna jugada con seña en esta lista"
        ) + f" ({describir(jugada)})"
    gravedad = ("infraccion" if cs.veraz_articulo else "aviso") if bad else ""
    return Juicio(sena, "falsa" if bad else "permitida", why, art, gravedad)


_CONDICIONES: Final[dict[str, Callable[[Jugada], bool]]] = {
    "duples": lambda j: j.pares is not None and j.pares.tipo == "duples",
    "medias_reyes": lambda j: j.pares is not None and j.pares.tipo == "medias" and j.pares.rangos[0] == 12,
    "juego": lambda j: j.juego,
    "punto30": lambda j: j.valor == 30,
}


def _combinacion_libre(cs: ConjuntoSenas, jugada: Jugada) -> bool:
    for combo in cs.combinaciones_libres:
        unknown = [c for c in combo if c not in _CONDICIONES]
        if unknown:
            raise SenasError(f"conjunto {cs.nombre}: condición desconocida {unknown[0]!r}")
        if all(_CONDICIONES[c](jugada) for c in combo):
            return True
    return False


# -- comprobar_senas --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hallazgo:
    """One finding about a player's señas in a hand, with the article it comes from.

    tipo: ``falsa``, ``inferior``, ``incompleta``, ``no_reglamentada`` or ``momento``.
    eventos: positions in the events list of the gestures concerned (empty for incompleta).
    """

    tipo: str
    articulo: str
    razon: str
    gravedad: str = "infraccion"
    eventos: tuple[int, ...] = ()
    inicio: float | None = None
    sena: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tipo": self.tipo,
            "articulo": self.articulo,
            "razon": self.razon,
            "gravedad": self.gravedad,
            "eventos": list(self.eventos),
            "inicio": self.inicio,
            "sena": self.sena,
        }


@dataclass(frozen=True, slots=True)
class SenaVista:
    """A seña read from the events: which events, when, in which phase, and whether it can be
    checked against the revealed cards (it was made after the last dealing)."""

    sena: Sena | None
    eventos: tuple[int, ...]
    gestos: tuple[str, ...]
    inicio: float | None
    fase: str | None
    comprobable: bool

    @property
    def significado(self) -> str | None:
        return self.sena.significado if self.sena else None

    def to_json(self) -> dict[str, Any]:
        return {
            "sena": self.sena.id if self.sena else None,
            "significado": self.significado,
            "gestos": list(self.gestos),
            "eventos": list(self.eventos),
            "inicio": self.inicio,
            "fase": self.fase,
            "comprobable": self.comprobable,
        }


@dataclass(frozen=True, slots=True)
class InformeSenas:
    """The referee's verdict on one player's señas in one hand. Iterating yields the findings.

    >>> informe = comprobar_senas([], "4o 4c 6e 7b", "segovia")
    >>> informe.correcto, len(informe)
    (True, 0)
    """

    permitidas: SenasPermitidas
    vistas: tuple[SenaVista, ...]
    hallazgos: tuple[Hallazgo, ...]
    primera_mano: bool = False

    def __iter__(self) -> Iterator[Hallazgo]:
        return iter(self.hallazgos)

    def __len__(self) -> int:
        return len(self.hallazgos)

    @property
    def correcto(self) -> bool:
        """No infraction (warnings allowed)."""
        return all(h.gravedad != "infraccion" for h in self.hallazgos)

    def texto(self) -> str:
        p = self.permitidas
        lines = [f"Cartas: {p.mano} ({p.jugada}). Reglas: {p.reglas}, señas «{p.conjunto}»."]
        for v in self.vistas:
            when = f"{v.inicio:7.2f}s" if v.inicio is not None else "      ?"
            extra = "" if v.comprobable else " (antes del último reparto: no se comprueba)"
            lines.append(
                f"  {when} {v.fase or '?':<8} {' + '.join(v.gestos)} -> "
                f"{v.significado or 'no es seña reglamentada'}{extra}"
            )
        if not self.hallazgos:
            lines.append("Sin faltas: las señas son fieles a las cartas.")
        for h in self.hallazgos:
            lines.append(f"- {h.tipo.upper()} ({h.gravedad}): {h.razon} [{h.articulo}]")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "cartas": str(self.permitidas.mano),
            "reglas": self.permitidas.reglas,
            "conjunto": self.permitidas.conjunto,
            "jugada": self.permitidas.jugada,
            "primera_mano": self.primera_mano,
            "correcto": self.correcto,
            "senas": [v.to_json() for v in self.vistas],
            "hallazgos": [h.to_json() for h in self.hallazgos],
            "completas": [j.sena.id for j in self.permitidas.completas],
        }


Fases = str | Sequence[Mapping[str, Any] | tuple[str, float]] | None


def comprobar_senas(
    eventos: Sequence[Mapping[str, Any]],
    cartas: Hand | str,
    perfil: Reglas | str | Mapping[str, Any] | None = None,
    fase: Fases = None,
    *,
    primera_mano: bool = False,
    conjunto: ConjuntoSenas | str | None = None,
    confianza_min: float = 0.0,
) -> InformeSenas:
    """Check one player's señas in a hand against the cards revealed at the end.

    eventos: gesture events as ``mus senas`` writes them (``gesto``, ``inicio``, ``fin``,
        optionally ``fase`` and ``confianza``), in any order.
    fase: the phase of every event (one name of scoring.senas.FASES), or the referee's phase
        marks ``[{"fase": "reparto", "inicio": 0.0}, {"fase": "mus", "inicio": 4.1}, ...]``;
        None when unknown (no moment is checked, every seña is checked against the cards).
    primera_mano: the partida's first hand (no señas until the mus is cut).
    confianza_min: events less confident than this are ignored.
    """
    reglas = resolver_reglas(perfil)
    cs = _conjunto(reglas, conjunto)
    permitidas = senas_permitidas(cartas, reglas, cs)
    evs = _eventos(eventos, confianza_min)
    marcas = _marcas(fase)
    fases = [_fase_de(ev, marcas, fase) for _, ev in evs]
    final_desde = _fin_ultimo_reparto(marcas)
    vistas = _leer(cs, evs, fases, final_desde)
    hallazgos: list[Hallazgo] = []
    for vista in vistas:
        hallazgos.extend(_momento(vista, cs, permitidas, primera_mano))
        if vista.sena is None:
            hallazgos.append(_no_reglamentada(vista, cs))
        elif vista.comprobable:
            hallazgos.extend(_veracidad(vista, permitidas))
    hallazgos.extend(_incompletas([v for v in vistas if v.comprobable and v.sena], permitidas, cs))
    return InformeSenas(permitidas, tuple(vistas), tuple(hallazgos), primera_mano)


def _eventos(eventos: Sequence[Mapping[str, Any]], confianza_min: float) -> list[tuple[int, Mapping[str, Any]]]:
    if isinstance(eventos, Mapping | str) or not isinstance(eventos, Sequence):
        raise SenasError("eventos debe ser una lista de objetos {gesto, inicio, fin}")
    out = []
    for i, ev in enumerate(eventos):
        if not isinstance(ev, Mapping) or "gesto" not in ev:
            raise SenasError(f"evento {i}: se espera un objeto con 'gesto'")
        if not isinstance(ev["gesto"], str):
            raise SenasError(f"evento {i}: gesto debe ser un texto, no {excerpt(ev['gesto'])}")
        for key in ("inicio", "fin", "confianza"):
            if key in ev and not _numero(ev[key]):
                raise SenasError(f"evento {i}: {key} debe ser un número, no {excerpt(ev[key])}")
        if ev.get("confianza", 1.0) >= confianza_min:
            out.append((i, ev))
    out.sort(key=lambda pair: (pair[1].get("inicio", 0.0), pair[0]))
    return out


def _numero(value: Any) -> bool:
    """A finite int or float: a JSON true is not a time, and NaN cannot be ordered or printed."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _marcas(fase: Fases) -> list[tuple[float, str | None]]:
    if fase is None or isinstance(fase, str):
        _check_fase(fase)
        return []
    if isinstance(fase, Mapping) or not isinstance(fase, Sequence):
        raise SenasError("fases debe ser una lista de marcas {fase, inicio} o el nombre de una fase")
    marcas = []
    for i, m in enumerate(fase):
        t: Any  # JSON: checked below
        if isinstance(m, Mapping):
            name, t = m.get("fase"), m.get("inicio")
        elif isinstance(m, Sequence) and not isinstance(m, str) and len(m) == 2:
            name, t = m[0], m[1]
        else:
            raise SenasError(f"marca de fase {i}: se espera {{fase, inicio}}")
        checked = _check_fase(name)
        if not _numero(t):
            raise SenasError(f"marca de fase {i}: inicio debe ser un número, no {excerpt(t)}")
        marcas.append((float(t), checked))
    # by time, then name; a mark without a phase (None) sorts first instead of failing to compare
    return sorted(marcas, key=lambda m: (m[0], m[1] or ""))


def _check_fase(name: Any) -> str | None:
    """A phase's name as given (None: no phase); anything else is refused."""
    if name is not None and (not isinstance(name, str) or name not in FASES):
        raise SenasError(f"fase desconocida {excerpt(repr(name))} ({', '.join(FASES)})")
    return name


def _fase_de(ev: Mapping[str, Any], marcas: list[tuple[float, str | None]], fase: Fases) -> str | None:
    if "fase" in ev:
        return _check_fase(ev["fase"])
    if isinstance(fase, str):
        return fase
    t = ev.get("inicio")
    current = None
    for start, name in marcas:
        if t is not None and start <= t:
            current = name
    return current


def _fin_ultimo_reparto(marcas: list[tuple[float, str | None]]) -> float | None:
    """Time the last dealing ended (the next mark after it); None if no dealing was marked."""
    last = None
    for i, (_, name) in enumerate(marcas):
        if name in _REPARTOS:
            last = marcas[i + 1][0] if i + 1 < len(marcas) else float("inf")
    return last


def _leer(
    cs: ConjuntoSenas,
    evs: list[tuple[int, Mapping[str, Any]]],
    fases: list[str | None],
    final_desde: float | None,
) -> list[SenaVista]:
    gestos = [ev["gesto"] for _, ev in evs]
    tiempos = None
    if all("inicio" in ev for _, ev in evs):
        tiempos = [(float(ev["inicio"]), float(ev.get("fin", ev["inicio"]))) for _, ev in evs]
    vistas = []
    for lectura in cs.leer(gestos, fases, tiempos):
        vistas.append(_vista(lectura, evs, fases, final_desde))
    return vistas


def _vista(
    lectura: LecturaSena,
    evs: list[tuple[int, Mapping[str, Any]]],
    fases: list[str | None],
    final_desde: float | None,
) -> SenaVista:
    first = lectura.indices[0]
    inicio = evs[first][1].get("inicio")
    fase = fases[lectura.indices[-1]]
    comprobable = fase not in _REPARTOS and (final_desde is None or (inicio is not None and inicio >= final_desde))
    return SenaVista(
        lectura.sena,
        tuple(evs[i][0] for i in lectura.indices),
        tuple(evs[i][1]["gesto"] for i in lectura.indices),
        None if inicio is None else float(inicio),
        fase,
        comprobable,
    )


def _momento(vista: SenaVista, cs: ConjuntoSenas, permitidas: SenasPermitidas, primera_mano: bool) -> list[Hallazgo]:
    for regla in cs.prohibido:
        if vista.fase in regla.fases and (primera_mano or not regla.solo_primera_mano):
            return [
                Hallazgo(
                    "momento",
                    regla.articulo,
                    f"{' + '.join(vista.gestos)} en la fase {vista.fase}: {regla.texto}",
                    eventos=vista.eventos,
                    inicio=vista.inicio,
                    sena=vista.sena.id if vista.sena else None,
                )
            ]
    sena = vista.sena
    # Only a known phase before the end of the grande breaks the medias rule; "lances" and an
    # unknown phase cannot be judged.
    if (
        sena
        and sena.momento
        and vista.comprobable
        and vista.fase in ("mus", "grande")
        and not _exento(sena, permitidas.evaluacion)
        and es_cierta(sena, permitidas.evaluacion)
    ):
        return [
            Hallazgo(
                "momento",
                sena.momento.articulo,
                f"{sena.significado} en la fase {vista.fase}: {sena.momento.texto}",
                eventos=vista.eventos,
                inicio=vista.inicio,
                sena=sena.id,
            )
        ]
    return []


def _no_reglamentada(vista: SenaVista, cs: ConjuntoSenas) -> Hallazgo:
    art = cs.no_reglamentada_articulo or f"{cs.fuente}; aviso: no está en la lista"
    grav = "infraccion" if cs.no_reglamentada_articulo else "aviso"
    return Hallazgo(
        "no_reglamentada",
        art,
        f"{' + '.join(vista.gestos)} no es una seña de «{cs.nombre}»",
        grav,
        vista.eventos,
        vista.inicio,
    )


def _veracidad(vista: SenaVista, permitidas: SenasPermitidas) -> list[Hallazgo]:
    if vista.sena is None:  # an unregulated gesture is judged by _no_reglamentada
        return []
    juicio = permitidas.juicio(vista.sena.id)
    if juicio.estado in PROHIBIDOS:
        return [
            Hallazgo(
                juicio.estado,
                juicio.articulo,
                juicio.razon,
                juicio.gravedad,
                vista.eventos,
                vista.inicio,
                vista.sena.id,
            )
        ]
    return []


def _incompletas(vistas: Sequence[SenaVista], permitidas: SenasPermitidas, cs: ConjuntoSenas) -> list[Hallazgo]:
    """A player who passes señas must pass the complete seña of each jugada that has one."""
    if not vistas:
        return []
    made = {v.sena.id for v in vistas if v.sena}
    missing = [
        lance
        for lance in ("pares", "juego")
        if permitidas.completas_de(lance) and not made & {j.sena.id for j in permitidas.completas_de(lance)}
    ]
    if permitidas.libres and len(missing) < 2:
        return []
    out = []
    for lance in missing:
        options = permitidas.completas_de(lance)
        names = " o ".join(f"{j.sena.significado} ({_como(j.sena)})" for j in options)
        art, grav = _articulo(cs.completa_articulo, options[0].sena)
        out.append(
            Hallazgo(
                "incompleta",
                art,
                f"pasó señas pero no la de {lance}: la mano tiene "
                f"{_tiene(options[0].sena, permitidas.evaluacion)}, seña completa: {names}",
                grav,
                sena=options[0].sena.id,
            )
        )
    return out
