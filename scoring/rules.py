"""Rule sets (perfiles): every regional difference between the source texts, as data.

Each built-in profile is named after the document it follows; the texts themselves are in the
project's shared seeds folder (``../shared/seeds/``), and code and messages cite them by title:

- ``general``: Enciclopedia, artículo «Mus»: 8 reyes, 40 tantos, four juegos to win.
- ``segovia``: Normas generales de mus para la provincia de Segovia (4 juegos of 40, sin deje,
  no real), with the Reglamento Campeonatos de Mus (Segovia) published with them.
- ``cuellar``: the «especialidades» of Cuéllar in the same normas: 31 real with any figure,
  30 tantos.
- ``euskadi``: Euskadiko Kooperatiben arteko III. Mus Txapelketa: 40 harri, Basque señas, the
  stones for «Ez» and «Paso» collected first, an órdago at juego accepted with 33 stands; 4 reyes,
  which the «Araudia» does not say and the encyclopedia says for the Basque Country.
- ``ludoteka-4`` / ``ludoteka-8``: Ludoteka, «Reglas del Mus», the modes «Mus a 4 Reyes» and
  «Mus a 8 Reyes Por Parejas».

Every value of a built-in profile names the words of the text it comes from, or says that it is
musmesa's choice and why (``Reglas.fuente_de``, ``Reglas.valores``; ``mus arbitro --listar``)::

    >>> perfil("cuellar").fuente_de("real").citas[0].texto
    'VALE LA 31 REAL (con tres sietes y cualquier figura)'
    >>> perfil("ludoteka-4").fuente_de("real").eleccion
    'Ludoteka no habla de la 31 real'

A profile can be overridden field by field or loaded from a TOML file; a changed value is then a
choice::

    >>> perfil("general").reyes
    8
    >>> r = perfil({"base": "general", "reyes": 4, "tantos": 30})
    >>> r.tantos, r.fuente_de("tantos").eleccion
    (30, 'cambiado respecto al perfil «general» (40 → 30)')
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from scoring import textos as t
from scoring.cards import DECK, Card
from scoring.errors import ScoringError
from scoring.inputs import excerpt
from scoring.textos import Fuente

REAL_OPCIONES: Final = ("no", "cualquier_figura", "sota_oros")
DEJE_OPCIONES: Final = ("no", "al_final", "primero")
MUS_CORRIDO_OPCIONES: Final = ("partida", "juego", "no")
ORDAGO_33_POSTRE_OPCIONES: Final = ("vale", "penalizado")
PUNTO_FALTA_OPCIONES: Final = ("envites", "negada_y_punto")


class PerfilError(ScoringError):
    """An unknown profile, an unknown option or a value out of range."""


@dataclass(frozen=True, slots=True)
class Reglas:
    """One rule set. Every field is an explicit choice between the sources.

    reyes: 4, or 8 (threes count as kings for every lance, juego value included).
    ases: 4 or 8 (twos count as aces); the sources pair it with ``reyes`` but the Normas
        generales de mus list "a 4 u 8 ases" as its own choice, so it can be set apart.
        Defaults to ``reyes``.
    tantos: tantos to win a juego (30 or 40 in the sources; any value from 10 to 100 accepted).
    juegos_por_vaca: juegos a pareja must win to take a vaca.
    vacas_por_partida: vacas a pareja must win to take the partida.
    real: 31 real (three sevens and a figure beats every other 31): "no"; "cualquier_figura"
        (Cuéllar); "sota_oros" (the convention the encyclopedia article mentions).
    deje: when the piedra of a refused opening envite at pares or juego is collected, which
        fixes the order stones are collected in (see ``orden_de_cobro``): "no" (Segovia: "se
        juega sin deje"; every refused envite scores at once, in its lance, Reglamento Título VI
        art. 1); "al_final" (the encyclopedia's «Vocabulario»: the deje is taken at the end, in
        the count); "primero" (the Basque «Araudia»: there is an «utzia», and the stones for
        «Ez» and «Paso» are the first collected, before the count).
    mus_corrido: which first hands are played with mus corrido (the mano passes on each time
        all four ask for mus): "partida" (Reglamento Campeonatos de Mus, Título II art. 16;
        Ludoteka), "juego" (the first hand of every juego, a common house rule) or "no". The
        Basque championship's «Araudia» makes it optional and gives the mano to whoever cuts
        the mus, which is what recording the real mano of that hand does.
    senas: the seña set (scoring/data/senas/<name>.toml).
    ordago_33_postre: a player who accepts an órdago at juego with 33 de postre: "vale" (the
        bet stands: the Basque «Araudia», «atzeskuak bagara ere»); "penalizado" (Reglamento
        Campeonatos de Mus (Segovia), Título V arts. 7-8: the órdago does not stand and the
        other pareja takes "dos tantos más el de negada, tres en total"). Checked when the
        record's ``declaraciones`` say who accepted (``quiere_ordago``).
    punto_falta_un_tanto: an envite at punto while a pareja needs one tanto: "envites" (counted
        as any envite); "negada_y_punto" (Reglamento Título VI art. 1: "no se apuntará más que
        el tanto de negada y el de punto cuando le corresponda").
    fuente: the document the profile follows, by its title.
    """

    nombre: str = "general"
    reyes: int = 8
    ases: int | None = None
    tantos: int = 40
    juegos_por_vaca: int = 4
    vacas_por_partida: int = 1
    real: str = "no"
    deje: str = "no"
    mus_corrido: str = "partida"
    senas: str = "segovia"
    ordago_33_postre: str = "vale"
    punto_falta_un_tanto: str = "envites"
    fuente: str = ""
    # field -> where its value comes from (``fuente_de``); not part of the rules, so not compared.
    fuentes: tuple[tuple[str, Fuente], ...] = field(default=(), compare=False, repr=False)
    # card -> (effective rank, juego value), derived once: evaluation is the hot path.
    tabla: dict[Card, tuple[int, int]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if type(self.reyes) is not int or self.reyes not in (4, 8):  # 8.0 is not 8 here
            raise PerfilError(f"reyes debe ser 4 u 8, no {excerpt(self.reyes)}")
        if self.ases is None:
            object.__setattr__(self, "ases", self.reyes)
        if type(self.ases) is not int or self.ases not in (4, 8):
            raise PerfilError(f"ases debe ser 4 u 8, no {excerpt(self.ases)}")
        _check_int("tantos", self.tantos, 10, 100)
        _check_int("juegos_por_vaca", self.juegos_por_vaca, 1, 20)
        _check_int("vacas_por_partida", self.vacas_por_partida, 1, 20)
        _check_choice("real", self.real, REAL_OPCIONES)
        _check_choice("deje", self.deje, DEJE_OPCIONES)
        _check_choice("mus_corrido", self.mus_corrido, MUS_CORRIDO_OPCIONES)
        _check_choice("ordago_33_postre", self.ordago_33_postre, ORDAGO_33_POSTRE_OPCIONES)
        _check_choice("punto_falta_un_tanto", self.punto_falta_un_tanto, PUNTO_FALTA_OPCIONES)
        for name in ("nombre", "fuente"):
            if not isinstance(getattr(self, name), str):
                raise PerfilError(f"{name} debe ser un texto, no {excerpt(getattr(self, name))}")
        if not self.nombre.strip():
            raise PerfilError("nombre del perfil vacío")
        if not isinstance(self.senas, str) or not self.senas:
            raise PerfilError("senas debe nombrar un conjunto de señas")
        for name, fuente in self.fuentes:
            if name not in VALORES or not isinstance(fuente, Fuente):
                raise PerfilError(f"fuente inválida para {excerpt(name)}")
        ranks = _RANGO[self.reyes == 8, self.ases == 8]
        object.__setattr__(self, "tabla", {c: (ranks[c.rank], _VALOR[ranks[c.rank]]) for c in DECK})

    def rango(self, card: Card) -> int:
        """Effective rank: with 8 reyes a three is a king (12), with 8 ases a two is an ace (1).

        >>> perfil("general").rango(Card(3, "o")), perfil("ludoteka-4").rango(Card(3, "o"))
        (12, 3)
        """
        return self.tabla[card][0]

    def valor(self, card: Card) -> int:
        """Value for juego and punto: figures (and threes with 8 reyes) count 10."""
        return self.tabla[card][1]

    def to_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in _FIELDS_ORDER}

    def fuente_de(self, campo: str) -> Fuente:
        """Where the value of ``campo`` comes from: the texts' words, or a choice and why.

        >>> perfil("segovia").fuente_de("deje").citas[0].texto
        'Se juega sin deje'
        >>> perfil("euskadi").fuente_de("juegos_por_vaca").es_eleccion
        True
        """
        if campo not in VALORES:
            raise PerfilError(f"{excerpt(campo)} no es un valor de las reglas ({', '.join(VALORES)})")
        return dict(self.fuentes).get(campo, _SIN_FUENTE)

    def valores(self) -> tuple[tuple[str, Any, Fuente], ...]:
        """Every value of the profile with its source, in field order."""
        return tuple((campo, getattr(self, campo), self.fuente_de(campo)) for campo in VALORES)


# The fields that are rules (nombre and fuente name the profile; fuentes documents the values).
VALORES: Final = tuple(
    f.name for f in dataclasses.fields(Reglas) if f.init and f.name not in ("nombre", "fuente", "fuentes")
)
_SIN_FUENTE: Final = Fuente(eleccion="valor por omisión de musmesa: este perfil no dice de dónde sale")


def orden_de_cobro(reglas: Reglas) -> str:
    """The order the stones of a hand are collected in, which the profile's deje decides.

    >>> orden_de_cobro(perfil("euskadi")).split(";")[0]
    'primero las piedras por «Ez» y «Paso» (envites no queridos, el utzia o deje incluido)'
    """
    cuenta = (
        "después el recuento, lance por lance (grande, chica, pares, juego o punto), hasta que una "
        "pareja llega a los tantos del juego"
    )
    if reglas.deje == "al_final":
        return (
            "los envites no queridos al momento, en su lance, salvo el deje (envite inicial no querido "
            f"a pares o a juego), que espera al recuento; {cuenta}"
        )
    if reglas.deje == "primero":
        return f"primero las piedras por «Ez» y «Paso» (envites no queridos, el utzia o deje incluido); {cuenta}"
    return f"los envites no queridos al momento, en su lance; {cuenta}"


def _rank_map(kings8: bool, aces8: bool) -> dict[int, int]:
    table = {r: r for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)}
    if kings8:
        table[3] = 12
    if aces8:
        table[2] = 1
    return table


_RANGO: Final = {(k, a): _rank_map(k, a) for k in (False, True) for a in (False, True)}
_VALOR: Final = {r: (10 if r >= 10 else r) for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)}


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise PerfilError(f"{name} debe ser un entero entre {low} y {high}, no {excerpt(value)}")


def _check_choice(name: str, value: object, options: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in options:
        raise PerfilError(f"{name} debe ser uno de {', '.join(options)}; no {excerpt(value)}")


def _valores(**valores: tuple[Any, Fuente]) -> dict[str, Any]:
    """Profile values with their sources: ``reyes=(8, Fuente(...))`` -> Reglas keyword arguments."""
    return {**{k: v for k, (v, _) in valores.items()}, "fuentes": tuple((k, f) for k, (_, f) in valores.items())}


def _derivado(base: Reglas, nombre: str, fuente: str, **valores: tuple[Any, Fuente]) -> Reglas:
    """A profile that follows ``base`` except in the values given (with their own sources)."""
    fuentes = dict(base.fuentes) | {k: f for k, (_, f) in valores.items()}
    return dataclasses.replace(
        base,
        nombre=nombre,
        fuente=fuente,
        **{k: v for k, (v, _) in valores.items()},
        fuentes=tuple((k, fuentes[k]) for k in VALORES if k in fuentes),
    )


def _cita(*citas: t.Cita, nota: str = "") -> Fuente:
    return Fuente(citas, nota=nota)


def _eleccion(por_que: str, *citas: t.Cita) -> Fuente:
    return Fuente(citas, eleccion=por_que)


_UNA_VACA: Final = _eleccion(
    "ningún texto agrupa los juegos en vacas (para Ludoteka «vacas» es otro nombre "
    "de los juegos): la partida es una sola vaca",
    t.LUD_VACAS,
)
_SENAS_REGLAMENTO: Final = "musmesa usa la lista reglamentada del Reglamento Campeonatos de Mus (Segovia)"
_SIN_PENA_33: Final = "ningún texto del perfil prohíbe querer el órdago; lo resuelven las cartas"
_PUNTO_ENVITES: Final = "ningún texto del perfil hace excepción para el punto: cada envite se cuenta"

_GENERAL: Final = Reglas(
    nombre="general",
    fuente=f"{t.ENCICLOPEDIA}: 8 reyes, cuatro juegos de cuarenta tantos",
    **_valores(
        reyes=(8, _cita(t.ENC_OCHO_REYES)),
        ases=(8, _cita(t.ENC_OCHO_REYES)),
        tantos=(40, _cita(t.ENC_CUATRO_JUEGOS)),
        juegos_por_vaca=(4, _cita(t.ENC_CUATRO_JUEGOS)),
        vacas_por_partida=(1, _UNA_VACA),
        real=("no", _eleccion("el artículo dice que vale sólo «en algunas reglas»", t.ENC_REAL)),
        deje=(
            "no",
            _eleccion(
                "el artículo define el deje pero dice que no siempre es reglamentario; sin deje, "
                "cada envite no querido se apunta en su lance",
                t.ENC_DEJE,
                t.ENC_NO_ACEPTADO,
            ),
        ),
        mus_corrido=(
            "partida",
            _eleccion(
                "el artículo no habla del mus corrido; se sigue a Ludoteka y al Reglamento",
                t.LUD_MUS_CORRIDO,
                t.REG_MUS_CORRIDO,
            ),
        ),
        senas=(
            "segovia",
            _eleccion(
                f"el artículo enumera señas sin reglamentarlas; {_SENAS_REGLAMENTO} (la "
                "lista del artículo es el conjunto «enciclopedia»)",
                t.REG_SENAS,
            ),
        ),
        ordago_33_postre=("vale", _eleccion(_SIN_PENA_33)),
        punto_falta_un_tanto=("envites", _eleccion(_PUNTO_ENVITES)),
    ),
)
_SEGOVIA: Final = Reglas(
    nombre="segovia",
    fuente=f"{t.NORMAS_SEGOVIA} y {t.REGLAMENTO}: 4 juegos de 40 tantos, sin deje, no vale la real",
    **_valores(
        reyes=(
            8,
            _eleccion(
                "las normas de Segovia sólo enumeran las variantes; Segovia no está entre las "
                "provincias que según Ludoteka juegan a 4 reyes",
                t.SEG_VARIANTES,
                t.LUD_8_REYES,
            ),
        ),
        ases=(8, _eleccion("como los reyes", t.SEG_VARIANTES, t.LUD_8_REYES)),
        tantos=(40, _cita(t.SEG_JUEGOS)),
        juegos_por_vaca=(4, _cita(t.SEG_JUEGOS)),
        vacas_por_partida=(1, _UNA_VACA),
        real=("no", _cita(t.SEG_NO_REAL)),
        deje=("no", _cita(t.SEG_SIN_DEJE, t.REG_ORDEN)),
        mus_corrido=("partida", _cita(t.REG_MUS_CORRIDO)),
        senas=("segovia", _cita(t.REG_SENAS)),
        ordago_33_postre=("penalizado", _cita(t.POSTRE_33_PROHIBIDO, t.POSTRE_33_PENA, t.POSTRE_33_VALIDA)),
        punto_falta_un_tanto=("negada_y_punto", _cita(t.REG_PUNTO_FALTA)),
    ),
)
_LUDOTEKA_4: Final = Reglas(
    nombre="ludoteka-4",
    fuente=f"{t.LUDOTEKA}, «Mus a 4 Reyes»: juegos a 30, gana quien logra 2 juegos",
    **_valores(
        reyes=(4, _cita(t.LUD_MODO_4)),
        ases=(4, _cita(t.LUD_MODO_4, t.LUD_REGLAS_8, nota="a 4 reyes los doses no son ases")),
        tantos=(30, _cita(t.LUD_JUEGOS_4)),
        juegos_por_vaca=(2, _cita(t.LUD_JUEGOS_4)),
        vacas_por_partida=(1, _UNA_VACA),
        real=("no", _eleccion("Ludoteka no habla de la 31 real")),
        deje=("no", _cita(t.LUD_INMEDIATA, t.LUD_ORDEN)),
        mus_corrido=("partida", _cita(t.LUD_MUS_CORRIDO)),
        senas=("segovia", _eleccion(f"Ludoteka no habla de señas; {_SENAS_REGLAMENTO}", t.REG_SENAS)),
        ordago_33_postre=("vale", _eleccion(_SIN_PENA_33, t.LUD_ORDAGO)),
        punto_falta_un_tanto=("envites", _eleccion(_PUNTO_ENVITES, t.LUD_APUESTA)),
    ),
)
PERFILES: Final[dict[str, Reglas]] = {
    "general": _GENERAL,
    "segovia": _SEGOVIA,
    "cuellar": _derivado(
        _SEGOVIA,
        "cuellar",
        f"{t.NORMAS_SEGOVIA}, especialidades de Cuéllar, y {t.REGLAMENTO}: 31 real con tres sietes y "
        "cualquier figura, a 30 tantos",
        tantos=(30, _cita(t.CUELLAR_TANTOS)),
        juegos_por_vaca=(4, _cita(t.CUELLAR_TANTOS)),
        real=("cualquier_figura", _cita(t.CUELLAR_REAL)),
    ),
    "euskadi": Reglas(
        nombre="euskadi",
        fuente=f"{t.TXAPELKETA}: 40 harri (8 hamarreko), señas «Keinuak»",
        **_valores(
            reyes=(4, _cita(t.ENC_PAIS_VASCO, t.LUD_8_REYES, nota="la «Araudia» no lo dice")),
            ases=(4, _cita(t.ENC_PAIS_VASCO, nota="la «Araudia» no lo dice")),
            tantos=(40, _cita(t.EUS_40)),
            juegos_por_vaca=(
                4,
                _eleccion(
                    "la «Araudia» habla de juegos parciales sin decir cuántos; se toma la "
                    "forma normal del artículo de la enciclopedia",
                    t.EUS_JOKO_PARTZIALA,
                    t.ENC_CUATRO_JUEGOS,
                ),
            ),
            vacas_por_partida=(1, _UNA_VACA),
            real=(
                "no",
                _eleccion(
                    "la «Araudia» no habla de la 31 real; la enciclopedia dice que vale sólo «en algunas reglas»",
                    t.ENC_REAL,
                ),
            ),
            deje=(
                "primero",
                _cita(
                    t.EUS_UTZIA,
                    t.EUS_LEHEN_HARRIAK,
                    t.EUS_ORDENA,
                    nota="hay utzia (deje) y se cobra antes que nada, con los demás envites no queridos",
                ),
            ),
            mus_corrido=(
                "partida",
                _eleccion(
                    "la «Araudia» deja elegir entre dar la mano a los visitantes y el "
                    "mus corrido, en el que es mano quien corta el mus: el registro de "
                    "la mano anota el mano real",
                    t.EUS_MUS_JARRAIA,
                ),
            ),
            senas=("euskadi", _cita(t.EUS_KEINUAK)),
            ordago_33_postre=("vale", _cita(t.EUS_33)),
            punto_falta_un_tanto=("envites", _eleccion(_PUNTO_ENVITES, t.EUS_ORDENA)),
        ),
    ),
    "ludoteka-4": _LUDOTEKA_4,
    "ludoteka-8": _derivado(
        _LUDOTEKA_4,
        "ludoteka-8",
        f"{t.LUDOTEKA}, «Mus a 8 Reyes Por Parejas»: juegos a 40, 2 juegos",
        reyes=(8, _cita(t.LUD_MODO_8)),
        ases=(8, _cita(t.LUD_MODO_8, t.LUD_DOSES)),
        tantos=(40, _cita(t.LUD_JUEGOS_8)),
        juegos_por_vaca=(2, _cita(t.LUD_JUEGOS_8)),
    ),
}
DEFAULT: Final = "general"
_FIELDS_ORDER: Final = tuple(f.name for f in dataclasses.fields(Reglas) if f.init and f.name != "fuentes")
_FIELDS: Final = frozenset(_FIELDS_ORDER)


def perfil(spec: str | Mapping[str, Any] | Reglas | None = None) -> Reglas:
    """Resolve a profile name, an overrides mapping (``{"base": name, field: value}``) or Reglas.

    >>> perfil("cuellar").real
    'cualquier_figura'
    >>> perfil("murcia")
    Traceback (most recent call last):
    ...
    scoring.rules.PerfilError: perfil desconocido 'murcia' (general, segovia, cuellar, euskadi, ludoteka-4, ludoteka-8)
    """
    if spec is None:
        return PERFILES[DEFAULT]
    if isinstance(spec, Reglas):
        return spec
    if isinstance(spec, str):
        if spec not in PERFILES:
            raise PerfilError(f"perfil desconocido {excerpt(repr(spec))} ({', '.join(PERFILES)})")
        return PERFILES[spec]
    if isinstance(spec, Mapping):
        return _from_mapping(spec)
    raise PerfilError(f"reglas debe ser un nombre de perfil o un objeto, no {excerpt(spec)}")


def _from_mapping(spec: Mapping[str, Any]) -> Reglas:
    overrides = dict(spec)
    base_name = overrides.pop("base", DEFAULT)
    if not isinstance(base_name, str):  # a base is a built-in profile, never another mapping
        raise PerfilError(f"base debe ser el nombre de un perfil, no {excerpt(base_name)}")
    base = perfil(base_name)
    unknown = sorted(str(k) for k in set(overrides) - _FIELDS)
    if unknown:
        raise PerfilError(f"opción de reglas desconocida: {excerpt(', '.join(unknown))}")
    if "reyes" in overrides and "ases" not in overrides:
        overrides["ases"] = None  # follow the new reyes unless set apart
    if "nombre" not in overrides:
        overrides["nombre"] = f"{base.nombre}+" if overrides else base.nombre
    try:
        reglas = dataclasses.replace(base, **overrides)
    except TypeError as exc:
        raise PerfilError(f"reglas inválidas: {exc}") from None
    return dataclasses.replace(reglas, fuentes=_fuentes_cambiadas(base, reglas))


def _fuentes_cambiadas(base: Reglas, reglas: Reglas) -> tuple[tuple[str, Fuente], ...]:
    """The base's sources, except for the values the overrides changed: those are a choice."""
    out = []
    for campo, valor, fuente in reglas.valores():
        antes = getattr(base, campo)
        if valor != antes:
            fuente = Fuente(eleccion=f"cambiado respecto al perfil «{base.nombre}» ({antes} → {valor})")
        out.append((campo, fuente))
    return tuple(out)


def cargar_perfil(path: str | Path) -> Reglas:
    """Load a profile from a TOML file: ``base = "segovia"`` plus any fields to change.

    A missing or malformed file raises PerfilError naming the file.
    """
    path = Path(path)
    try:
        texto = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PerfilError(f"no se puede leer el perfil {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise PerfilError(f"perfil {path}: TOML inválido ({exc})") from None
    return _from_mapping(datos_toml(texto, str(path), path.stem))


def datos_toml(texto: str, donde: str, nombre: str) -> dict[str, Any]:
    """A profile's TOML text as the overrides mapping :func:`perfil` takes (checked), named
    ``nombre`` unless it names itself; PerfilError naming ``donde`` when it is not valid.

    >>> datos_toml('base = "segovia"\\ntantos = 30', "subido", "propio")
    {'base': 'segovia', 'tantos': 30, 'nombre': 'propio'}
    """
    try:
        data = tomllib.loads(texto)
    except tomllib.TOMLDecodeError as exc:
        raise PerfilError(f"perfil {donde}: TOML inválido ({exc})") from None
    data.setdefault("nombre", nombre)
    _from_mapping(data)
    return data
