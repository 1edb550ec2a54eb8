"""The tanteo of one hand: who scores what, in which order, and why.

The order follows the Reglamento Campeonatos de Mus (Segovia), Título VI art. 1, and Ludoteka's
«Reglas del Mus» («Puntuación»):

1. While betting, a refused envite scores at once for the pareja whose bet was refused, in lance
   order. An accepted órdago ends the juego at once for the pareja that wins that lance.
2. Then the count runs lance by lance (grande, chica, pares, juego or punto) and stops as soon
   as a pareja reaches the tantos of the juego.

A hand record is a plain mapping (the ``mus tanteo`` JSON)::

    >>> r = tantear({"mano": 0, "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]})
    >>> r.por_lance["grande"], r.marcador
    ([0, 1], (3, 6))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scoring import declaraciones, razones
from scoring.cards import Hand, NotationError, check_distinct, parse_hand
from scoring.declaraciones import CorreccionLance
from scoring.errors import ScoringError
from scoring.inputs import excerpt
from scoring.jugadas import Jugada, cuarto_lance, evaluar, ganador_de, se_apuesta, speaking_order, tienen
from scoring.outcomes import PASO, FinJuego, Lance, NoQuiero, Ordago, Paso, Quiero, Terminacion
from scoring.razones import SOURCE, Motivo, TipoApunte, idioma_de, nombre_lance, plantilla
from scoring.rules import PERFILES, PerfilError, Reglas, perfil

APUESTA_LANCES: Final = ("grande", "chica", "pares", "juego", "punto")
NOMBRES_LANCE: Final = {
    "grande": "Grande",
    "chica": "Chica",
    "pares": "Pares",
    "juego": "Juego",
    "punto": "Punto",
}


class RegistroManoError(ScoringError):
    """A hand record that cannot be scored; the message names the problem in one line.

    >>> tantear({"manos": ["12o 12c 11e 1b"]})
    Traceback (most recent call last):
    ...
    scoring.tanteo.RegistroManoError: manos debe ser una lista de 4 manos, una por asiento
    """


def parse_lance(lance: str, value: Any) -> Lance:
    """A lance's value in the hand record (JSON) as a typed outcome; the inverse of its ``to_json``.

    >>> parse_lance("grande", {"no_quiero": 2, "gana": 1})
    NoQuiero(tantos=2, gana=1)
    >>> parse_lance("pares", {"ordago": "no"})
    Traceback (most recent call last):
    ...
    scoring.tanteo.RegistroManoError: lance pares: un órdago no querido se escribe {"no_quiero": N, "gana": P}
    """
    if value == "paso" or value is None:
        return PASO
    if not isinstance(value, Mapping):
        raise RegistroManoError("lance {cual}: resultado inválido {valor}", cual=lance, valor=excerpt(value))
    keys = set(value)
    if keys == {"quiero"}:
        return Quiero(_int_at_least(lance, "quiero", value["quiero"], 2))
    if keys == {"no_quiero", "gana"}:
        gana = value["gana"]
        if type(gana) is not int or gana not in (0, 1):
            raise RegistroManoError(f"lance {lance}: 'gana' debe ser la pareja 0 o 1, no {excerpt(gana)}")
        return NoQuiero(_int_at_least(lance, "no_quiero", value["no_quiero"], 1), gana)
    if keys == {"ordago"}:
        if value["ordago"] != "quiero":
            raise RegistroManoError(f'lance {lance}: un órdago no querido se escribe {{"no_quiero": N, "gana": P}}')
        return Ordago()
    raise RegistroManoError("lance {cual}: resultado inválido {valor}", cual=lance, valor=excerpt(dict(value)))


def _int_at_least(lance: str, key: str, value: Any, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise RegistroManoError(f"lance {lance}: {key} debe ser un entero >= {low}, no {excerpt(value)}")
    return value


@dataclass(frozen=True, slots=True)
class Apunte:
    """Tantos a pareja takes, in which lance, and why: ``razon`` in Spanish (the hand record's
    and ``mus tanteo``'s), ``motivo`` what any language's reason is written from
    (:meth:`ResultadoTanteo.razon`)."""

    pareja: int
    tantos: int
    lance: str
    razon: str
    motivo: Motivo | None = None

    def to_json(self) -> dict[str, Any]:
        return {"pareja": self.pareja, "tantos": self.tantos, "lance": self.lance, "razon": self.razon}


@dataclass(frozen=True)
class RegistroMano:
    """A validated hand record: the four hands in speaking order, the mano, the scoreboard before
    the hand and the outcome of each lance (missing lances were played en paso)."""

    manos: tuple[Hand, Hand, Hand, Hand]
    mano: int = 0
    reglas: Reglas = field(default_factory=perfil)
    marcador: tuple[int, int] = (0, 0)
    lances: Mapping[str, Lance] = field(default_factory=dict)
    jugadores: tuple[str, str, str, str] | None = None
    declaraciones: Mapping[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: Any) -> RegistroMano:
        if not isinstance(data, Mapping):
            raise RegistroManoError("un registro de mano debe ser un objeto JSON")
        unknown = sorted(map(str, set(data) - CLAVES_REGISTRO))
        if unknown:
            raise RegistroManoError(f"campo desconocido en el registro: {excerpt(', '.join(unknown))}")
        try:
            reglas = perfil(data.get("reglas"))
        except PerfilError as exc:
            raise RegistroManoError(str(exc)) from None
        manos = _parse_manos(data.get("manos"))
        mano = data.get("mano", 0)
        if type(mano) is not int or mano not in (0, 1, 2, 3):
            raise RegistroManoError(f"mano debe ser un asiento de 0 a 3, no {excerpt(mano)}")
        marcador = _parse_marcador(data.get("marcador", [0, 0]), reglas)
        lances = _parse_lances(data.get("lances", {}))
        return cls(
            manos,
            mano,
            reglas,
            marcador,
            lances,
            _parse_jugadores(data.get("jugadores")),
            _parse_declaraciones(data.get("declaraciones")),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reglas": self.reglas.nombre
            if PERFILES.get(self.reglas.nombre) == self.reglas
            else {k: v for k, v in self.reglas.to_dict().items() if k != "fuente"} | {"base": "general"},
            "mano": self.mano,
            "manos": [str(h) for h in self.manos],
            "marcador": list(self.marcador),
            "lances": {k: v.to_json() for k, v in self.lances.items()},
        }
        if self.jugadores:
            out["jugadores"] = list(self.jugadores)
        if self.declaraciones:
            out["declaraciones"] = dict(self.declaraciones)
        return out

    def nombre(self, seat: int) -> str:
        return self.jugadores[seat] if self.jugadores else f"asiento {seat}"

    def nombre_pareja(self, pareja: int) -> str:
        if self.jugadores:
            return f"{self.jugadores[pareja]} y {self.jugadores[pareja + 2]}"
        return f"pareja {pareja}"


CLAVES_REGISTRO: Final = frozenset({"reglas", "mano", "manos", "marcador", "lances", "jugadores", "declaraciones"})


def _parse_manos(value: Any) -> tuple[Hand, Hand, Hand, Hand]:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 4:
        raise RegistroManoError("manos debe ser una lista de 4 manos, una por asiento")
    try:
        a, b, c, d = (parse_hand(text) for text in value)
        check_distinct((a, b, c, d))
    except NotationError as exc:
        raise RegistroManoError(str(exc)) from None
    return a, b, c, d


def _parse_marcador(value: Any, reglas: Reglas) -> tuple[int, int]:
    ok = isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2
    if not ok or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise RegistroManoError(f"marcador debe ser [tantos pareja 0, tantos pareja 1], no {excerpt(value)}")
    if max(value) >= reglas.tantos:
        raise RegistroManoError(f"marcador {list(value)}: una pareja ya tiene {reglas.tantos} tantos, el juego acabó")
    return value[0], value[1]


def _parse_lances(value: Any) -> dict[str, Lance]:
    if not isinstance(value, Mapping):
        raise RegistroManoError("lances debe ser un objeto {lance: resultado}")
    unknown = sorted(map(str, set(value) - set(APUESTA_LANCES)))
    if unknown:
        raise RegistroManoError("lance desconocido: {lances}", lances=excerpt(", ".join(unknown)))
    if "juego" in value and "punto" in value:
        raise RegistroManoError("el cuarto lance es juego o punto, no los dos")
    return {k: parse_lance(k, v) for k, v in value.items()}


def _parse_jugadores(value: Any) -> tuple[str, str, str, str] | None:
    if value is None:
        return None
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str)
        or len(value) != 4
        or not all(isinstance(v, str) and v.strip() and _printable(v) for v in value)
    ):
        raise RegistroManoError("jugadores debe ser una lista de 4 nombres, uno por asiento")
    a, b, c, d = (v.strip() for v in value)
    return a, b, c, d


def _printable(text: str) -> bool:
    """No lone surrogate: the name must reach the terminal and the JSON output."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parse_declaraciones(value: Any) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RegistroManoError("declaraciones debe ser un objeto")
    try:  # checked here, with the record, so a bad value never reaches the count
        declaraciones.leer_declaraciones(value)
    except ValueError as exc:
        raise RegistroManoError("declaraciones: {motivo}", motivo=exc) from None
    return dict(value)


@dataclass
class ResultadoTanteo:
    """The tanteo of one hand. ``por_lance`` counts only tantos scored before the juego ended."""

    registro: RegistroMano
    jugadas: tuple[Jugada, ...]
    orden: tuple[str, ...]
    ganadores: dict[str, int | None]
    apuestas: dict[str, bool]
    por_lance: dict[str, list[int]]
    marcador: tuple[int, int]
    fin: FinJuego | None
    detalle: list[Apunte]
    notas: list[str] = field(default_factory=list)  # penalties applied (declaraciones)
    # each note's kind and lance, to write it in another language (razones.PLANTILLAS)
    notas_de: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        reg = self.registro
        return {
            "reglas": reg.reglas.nombre,
            "mano": reg.mano,
            "manos": [str(h) for h in reg.manos],
            "marcador_antes": list(reg.marcador),
            "lances_jugados": list(self.orden),
            "apuestas": self.apuestas,
            "ganadores": self.ganadores,
            "jugadas": [_jugada_json(j) for j in self.jugadas],
            "por_lance": self.por_lance,
            "marcador": list(self.marcador),
            "fin": self.fin.to_json() if self.fin else None,
            "detalle": [a.to_json() for a in self.detalle],
            "notas": self.notas,
        }

    def razon(self, apunte: Apunte, idioma: str = SOURCE) -> str:
        """An apunte's reason in ``idioma`` (es, eu, en), written from its motivo.

        >>> r = tantear({"manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
        ...              "jugadores": ["Ana", "Iñaki", "Bea", "Josu"]})
        >>> for idioma in ("es", "eu", "en"):
        ...     print(r.razon(r.detalle[0], idioma))
        Grande en paso: gana Iñaki (3o 3c 3e 7b) (1)
        Handia pasoan: irabazlea Iñaki (3o 3c 3e 7b) (1)
        Grande passed: Iñaki (3o 3c 3e 7b) wins (1)
        """
        if apunte.motivo is None or idioma == SOURCE:
            return apunte.razon
        reg = self.registro
        return razones.razon(
            apunte.motivo, apunte.lance, apunte.tantos, self.jugadas, reg.jugadores, idioma, apunte.pareja
        )

    def razones(self, idioma: str = SOURCE) -> list[str]:
        """Every apunte's reason in ``idioma``, in the order of ``detalle``."""
        return [self.razon(a, idioma) for a in self.detalle]

    def resumen(self, lance: str, idioma: str = SOURCE) -> str:
        """All reasons of one lance in one line, e.g. 'Pares: duples de reyes de Ana (3), ...'."""
        parts = [self.razon(a, idioma) for a in self.detalle if a.lance == lance]
        return "; ".join(parts) if parts else plantilla("nada", idioma).format(lance=nombre_lance(lance, idioma))

    def fin_texto(self, idioma: str = SOURCE) -> str:
        """How the juego ended, one line ('' if it did not)."""
        if not self.fin:
            return ""
        clave = "fin_ordago" if self.fin.por is Terminacion.ORDAGO else "fin_tantos"
        return plantilla(clave, idioma).format(gana=self._pareja(self.fin.ganador, idioma))

    def notas_en(self, idioma: str = SOURCE) -> list[str]:
        """The notes in ``idioma``: a referee's note on the declarations is the referee's
        Spanish, so another language says where to read it (``mus arbitro --declaraciones``)."""
        if idioma == SOURCE or len(self.notas_de) != len(self.notas):
            return list(self.notas)
        campos = [
            (clave, nombre_lance(lance, idioma), razones.LANCE_MINUSCULA[idioma_de(idioma)][lance])
            for clave, lance in self.notas_de
        ]
        return [plantilla(clave, idioma).format(lance=n, lance_min=m) for clave, n, m in campos]

    def _pareja(self, pareja: int, idioma: str) -> str:
        return razones.nombre_pareja(pareja, self.registro.jugadores, idioma)

    def texto(self, idioma: str = SOURCE) -> str:
        """The tanteo as ``mus tanteo`` prints it, in ``idioma`` (es, eu, en)."""
        reg = self.registro
        nombres = reg.jugadores
        lines = [
            plantilla("cabecera", idioma).format(
                reglas=reg.reglas.nombre,
                reyes=reg.reglas.reyes,
                tantos=reg.reglas.tantos,
                mano=razones.nombre(reg.mano, nombres, idioma),
            )
        ]
        for seat, hand in enumerate(reg.manos):
            quien = razones.nombre(seat, nombres, idioma)
            lines.append(plantilla("asiento", idioma).format(nombre=quien, p=seat % 2, mano=hand))
        for lance in self.orden:
            a, b = self.por_lance[lance]
            lines.append(f"{nombre_lance(lance, idioma):<7} {a:>3} {b:>3}   {self.resumen(lance, idioma)}")
        lines.extend(plantilla("nota", idioma).format(nota=nota) for nota in self.notas_en(idioma))
        p0, p1 = (razones.nombre_pareja(p, nombres, idioma, sola=True) for p in (0, 1))
        lines.append(plantilla("marcador", idioma).format(p0=p0, a=self.marcador[0], p1=p1, b=self.marcador[1]))
        if self.fin:
            lines.append(self.fin_texto(idioma))
        return "\n".join(lines)


def _jugada_json(j: Jugada) -> dict[str, Any]:
    return {
        "pares": j.pares.describe() if j.pares else None,
        "juego": j.valor if j.juego else None,
        "punto": j.valor,
        "real": j.real,
    }


class _Cuenta:
    """Running scoreboard of one hand; stops taking tantos once a pareja reaches the target."""

    def __init__(self, reg: RegistroMano, orden: Sequence[str], jugadas: Sequence[Jugada]) -> None:
        self.reg, self.jugadas = reg, jugadas
        self.target = reg.reglas.tantos
        self.score = list(reg.marcador)
        self.por_lance = {lance: [0, 0] for lance in orden}
        self.detalle: list[Apunte] = []
        self.fin: FinJuego | None = None
        self.notas: list[str] = []
        self.notas_de: list[tuple[str, str]] = []
        self.punto_a_falta = False  # the punto was bet with a pareja one tanto short (Título VI art. 1)

    def add(self, pareja: int, tantos: int, lance: str, motivo: Motivo) -> None:
        if self.fin or tantos <= 0:
            return
        self.score[pareja] += tantos
        self.por_lance[lance][pareja] += tantos
        razon = razones.razon(motivo, lance, tantos, self.jugadas, self.reg.jugadores, SOURCE, pareja)
        self.detalle.append(Apunte(pareja, tantos, lance, razon, motivo))
        if self.score[pareja] >= self.target:
            self.fin = FinJuego(pareja, Terminacion.TANTOS)


def tantear(record: Mapping[str, Any] | RegistroMano, correcciones: Sequence[CorreccionLance] = ()) -> ResultadoTanteo:
    """Score one hand. Raises RegistroManoError on a record that cannot be scored.

    ``correcciones`` apply penalties from false declarations (scoring.declaraciones.CorreccionLance);
    when the record carries ``declaraciones`` they are computed by scoring.declaraciones.
    """
    reg = record if isinstance(record, RegistroMano) else RegistroMano.from_dict(record)
    jugadas = tuple(evaluar(h, reg.reglas) for h in reg.manos)
    if reg.declaraciones and not correcciones:
        correcciones = _correcciones_de(reg)
    por_lance_corr = {c.lance: c for c in correcciones}
    orden = ("grande", "chica", "pares", _cuarto(jugadas, por_lance_corr.get("juego")))
    lances = _lances_en_orden(reg, jugadas, orden)
    ganadores = {lance: _ganador(lance, jugadas, reg.mano, por_lance_corr.get(lance)) for lance in orden}
    cuenta = _Cuenta(reg, orden, jugadas)
    notadas = [c for c in correcciones if c.razon and c.lance in orden]
    _apuestas(cuenta, reg, jugadas, lances, ganadores, orden, por_lance_corr)
    if not cuenta.fin:
        for lance in orden:
            _contar(cuenta, reg, jugadas, lance, lances[lance], ganadores[lance], por_lance_corr.get(lance))
    return ResultadoTanteo(
        registro=reg,
        jugadas=jugadas,
        orden=orden,
        ganadores=ganadores,
        apuestas={lance: se_apuesta(lance, jugadas) for lance in orden},
        por_lance=cuenta.por_lance,
        marcador=(cuenta.score[0], cuenta.score[1]),
        fin=cuenta.fin,
        detalle=cuenta.detalle,
        notas=[f"{NOMBRES_LANCE[c.lance]}: {c.razon}" for c in notadas] + cuenta.notas,
        notas_de=[("nota_declaracion", c.lance) for c in notadas] + cuenta.notas_de,
    )


def _cuarto(jugadas: Sequence[Jugada], corr: CorreccionLance | None) -> str:
    """Juego or punto; a juego nobody may count (Reglamento Campeonatos
    de Mus (Segovia), Título X art. 2) leaves the punto."""
    cuarto = cuarto_lance(jugadas)
    if cuarto == "juego" and corr and corr.ganador is None:
        holders = {s for s, j in enumerate(jugadas) if j.juego}
        if holders <= corr.anulados:
            return "punto"
    return cuarto


def _correcciones_de(reg: RegistroMano) -> Sequence[CorreccionLance]:
    try:
        return declaraciones.correcciones(reg.declaraciones, reg.manos, reg.reglas, reg.mano, reg.lances)
    except (ValueError, KeyError, TypeError) as exc:
        raise RegistroManoError("declaraciones: {motivo}", motivo=exc) from None


def _lances_en_orden(reg: RegistroMano, jugadas: Sequence[Jugada], orden: Sequence[str]) -> dict[str, Lance]:
    """Map the record's lances onto the lances actually played and check they could be bet."""
    given = dict(reg.lances)
    fourth = given.pop("juego", None) or given.pop("punto", None) or PASO
    given[orden[3]] = fourth
    lances = {lance: given.get(lance, PASO) for lance in orden}
    ordago_en = None
    for lance in orden:
        outcome = lances[lance]
        if isinstance(outcome, Paso):
            continue
        if ordago_en:
            raise RegistroManoError(f"lance {lance}: no puede haber apuestas después del órdago querido a {ordago_en}")
        if not se_apuesta(lance, jugadas) and not _abierto_por_declaraciones(reg, lance):
            holders = tienen(lance, jugadas)
            quien = "ninguna pareja" if not any(holders) else f"solo la pareja {holders.index(True)}"
            raise RegistroManoError(f"lance {lance}: no se pudo apostar ({quien} tiene {lance}), debe ser 'paso'")
        if isinstance(outcome, Ordago):
            ordago_en = lance
    return lances


def _abierto_por_declaraciones(reg: RegistroMano, lance: str) -> bool:
    """A false «pares sí» / «juego sí» can open the betting the cards alone would not."""
    if not reg.declaraciones or lance not in ("pares", "juego"):
        return False
    try:
        held = declaraciones.parejas_declaradas(reg.declaraciones, reg.manos, reg.reglas, lance)
    except ValueError as exc:
        raise RegistroManoError("declaraciones: {motivo}", motivo=exc) from None
    return all(held)


def _ganador(lance: str, jugadas: Sequence[Jugada], mano: int, corr: CorreccionLance | None) -> int | None:
    """Winning seat; with a correction that forces a pareja, the pareja's seat nearer the mano."""
    if corr and corr.ganador is not None:
        seats = [s for s in speaking_order(mano) if s % 2 == corr.ganador]
        holders = [s for s in seats if s not in corr.anulados and jugadas[s].clave(lance)]
        return (holders or seats)[0]
    if corr and corr.anulados:
        masked = [None if s in corr.anulados else j for s, j in enumerate(jugadas)]
        return _ganador_masked(lance, masked, mano)
    return ganador_de(lance, jugadas, mano)


def _ganador_masked(lance: str, jugadas: Sequence[Jugada | None], mano: int) -> int | None:
    best_seat, best_key = None, None
    for seat in speaking_order(mano):
        j = jugadas[seat]
        key = j.clave(lance) if j else None
        if key is not None and (best_key is None or key > best_key):
            best_seat, best_key = seat, key
    return best_seat


def _apuestas(
    cuenta: _Cuenta,
    reg: RegistroMano,
    jugadas: Sequence[Jugada],
    lances: Mapping[str, Lance],
    ganadores: Mapping[str, int | None],
    orden: Sequence[str],
    corrs: Mapping[str, CorreccionLance] | None = None,
) -> None:
    """Betting phase: refused envites score at once; an accepted órdago ends the juego."""
    for lance in orden:
        outcome = lances[lance]
        name = NOMBRES_LANCE[lance]
        corr = (corrs or {}).get(lance)
        if corr and corr.al_momento and corr.ganador is not None:  # seen as the órdago is resolved
            cuenta.add(corr.ganador, corr.negada, lance, _correccion(corr))
        if lance == "punto" and reg.reglas.punto_falta_un_tanto == "negada_y_punto":
            cuenta.punto_a_falta = cuenta.target - 1 in cuenta.score
        if isinstance(outcome, NoQuiero) and cuenta.punto_a_falta:
            p = outcome.gana
            cuenta.add(p, 1, lance, Motivo(TipoApunte.PUNTO_FALTA_NEGADA, pareja=p, envite=outcome.tantos))
        elif isinstance(outcome, NoQuiero) and not _deje_al_final(reg, lance, outcome):
            p = outcome.gana
            tipo = TipoApunte.DEJE if _es_deje(reg, lance, outcome) else TipoApunte.NO_QUERIDO
            cuenta.add(p, outcome.tantos, lance, Motivo(tipo, pareja=p, envite=outcome.tantos))
        elif isinstance(outcome, Ordago) and not cuenta.fin and _valido(corrs, lance):
            seat = ganadores[lance]
            if seat is None:  # opened by false declarations and nobody holds the jugada
                cuenta.notas.append(plantilla("ordago_sin_efecto").format(lance=name, lance_min=lance))
                cuenta.notas_de.append(("ordago_sin_efecto", lance))
                continue
            p = seat % 2
            falta = cuenta.target - cuenta.score[p]
            cuenta.add(p, falta, lance, Motivo(TipoApunte.ORDAGO, seat=seat))
            cuenta.fin = FinJuego(p, Terminacion.ORDAGO)
        if cuenta.fin:
            return


def _valido(corrs: Mapping[str, CorreccionLance] | None, lance: str) -> bool:
    corr = (corrs or {}).get(lance)
    return corr is None or corr.envites_validos


def _es_deje(reg: RegistroMano, lance: str, outcome: Lance) -> bool:
    """The refused opening envite at pares or juego, in a profile that plays with deje."""
    return (
        reg.reglas.deje != "no"
        and isinstance(outcome, NoQuiero)
        and lance in ("pares", "juego")
        and outcome.tantos == 1
    )


def _deje_al_final(reg: RegistroMano, lance: str, outcome: Lance) -> bool:
    return reg.reglas.deje == "al_final" and _es_deje(reg, lance, outcome)


def _correccion(corr: CorreccionLance) -> Motivo:
    """A false declaration's penalty: its reason is the referee's (scoring.declaraciones)."""
    return Motivo(TipoApunte.CORRECCION, pareja=corr.ganador, envite=corr.negada, nota=corr.razon)


def _contar(
    cuenta: _Cuenta,
    reg: RegistroMano,
    jugadas: Sequence[Jugada],
    lance: str,
    outcome: Lance,
    seat: int | None,
    corr: CorreccionLance | None,
) -> None:
    """The count of one lance at the end of the hand."""
    if corr and not corr.envites_validos and isinstance(outcome, Quiero | Ordago):
        outcome = PASO
    if corr and corr.ganador is not None and corr.negada and not corr.al_momento:
        cuenta.add(corr.ganador, corr.negada, lance, _correccion(corr))
    if seat is None:
        return  # nobody holds pares or juego: the lance is not played
    if isinstance(outcome, NoQuiero):
        p = outcome.gana
        if _deje_al_final(reg, lance, outcome):
            cuenta.add(p, 1, lance, Motivo(TipoApunte.DEJE_AL_FINAL, pareja=p, envite=outcome.tantos))
        if lance == "punto":  # encyclopedia: the refusing pareja cannot take the punto either
            cuenta.add(p, 1, lance, Motivo(TipoApunte.PUNTO_NO_QUERIDO, pareja=p, envite=outcome.tantos))
        _bonus(cuenta, reg, jugadas, lance, p, corr)
        return
    p = seat % 2
    if isinstance(outcome, Quiero) and lance == "punto" and cuenta.punto_a_falta:
        cuenta.add(p, 1, lance, Motivo(TipoApunte.PUNTO_FALTA_QUERIDO, seat=seat, envite=outcome.tantos))
        return
    if isinstance(outcome, Quiero):
        cuenta.add(p, outcome.tantos, lance, Motivo(TipoApunte.QUERIDO, seat=seat, envite=outcome.tantos))
    elif lance in ("grande", "chica", "punto"):
        cuenta.add(p, 1, lance, Motivo(TipoApunte.PASO, seat=seat))
    if lance == "punto" and isinstance(outcome, Quiero):
        cuenta.add(p, 1, lance, Motivo(TipoApunte.PUNTO_MAS, seat=seat, envite=outcome.tantos))
    _bonus(cuenta, reg, jugadas, lance, p, corr)


def _bonus(
    cuenta: _Cuenta,
    reg: RegistroMano,
    jugadas: Sequence[Jugada],
    lance: str,
    pareja: int,
    corr: CorreccionLance | None,
) -> None:
    """Pares and juego are worth their jugada to each player of the pareja who holds it."""
    if lance not in ("pares", "juego"):
        return
    anulados = corr.anulados if corr else frozenset()
    for seat in speaking_order(reg.mano):
        bonus = jugadas[seat].bonus(lance)
        if seat % 2 == pareja and bonus and seat not in anulados:
            cuenta.add(pareja, bonus, lance, Motivo(TipoApunte.JUGADA, seat=seat))
