"""Rule sets (perfiles): every regional difference between the source texts, as data.

Each built-in profile is named after the document it follows; the texts themselves are in the
project's shared seeds folder (``../shared/seeds/``), and code and messages cite them by title:

- ``general``: Enciclopedia, artículo «Mus»: 8 reyes, 40 tantos, four juegos to win.
- ``segovia``: Normas generales de mus para la provincia de Segovia (4 juegos of 40, sin deje,
  no real), with the Reglamento Campeonatos de Mus (Segovia) published with them.
- ``cuellar``: the «especialidades» of Cuéllar in the same normas: 31 real with any figure,
  30 tantos.
- ``euskadi``: Euskadiko Kooperatiben arteko III. Mus Txapelketa: 40 harri, Basque señas.
- ``ludoteka-4`` / ``ludoteka-8``: Ludoteka, «Reglas del Mus», the modes «Mus a 4 Reyes» and
  «Mus a 8 Reyes Por Parejas».

A profile can be overridden field by field or loaded from a TOML file::

    >>> perfil("general").reyes
    8
    >>> perfil({"base": "general", "reyes": 4, "tantos": 30}).tantos
    30
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from scoring.cards import DECK, Card
from scoring.inputs import excerpt

REAL_OPCIONES: Final = ("no", "cualquier_figura", "sota_oros")
DEJE_OPCIONES: Final = ("no", "al_final")
MUS_CORRIDO_OPCIONES: Final = ("partida", "juego", "no")


class PerfilError(ValueError):
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
    deje: "no" (Segovia: "se juega sin deje"); "al_final" (the encyclopedia's vocabulary: the
        piedra of a refused opening envite at pares or juego is taken at the end, in the count,
        not at once; the Basque rules mention this "utzia" too).
    mus_corrido: which first hands are played with mus corrido (the mano passes on each time
        all four ask for mus): "partida" (Reglamento Campeonatos de Mus, Título II art. 16;
        Ludoteka), "juego" (the first hand of every juego, a common house rule) or "no". The
        Basque championship's «Araudia» makes it optional and gives the mano to whoever cuts
        the mus, which is what recording the real mano of that hand does.
    senas: the seña set (scoring/data/senas/<name>.toml).
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
    fuente: str = ""
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
        for name in ("nombre", "fuente"):
            if not isinstance(getattr(self, name), str):
                raise PerfilError(f"{name} debe ser un texto, no {excerpt(getattr(self, name))}")
        if not self.nombre.strip():
            raise PerfilError("nombre del perfil vacío")
        if not isinstance(self.senas, str) or not self.senas:
            raise PerfilError("senas debe nombrar un conjunto de señas")
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


_SEG = "Normas generales de mus para la provincia de Segovia"
_REGLAMENTO = "Reglamento Campeonatos de Mus (Segovia)"
_LUDOTEKA = "Ludoteka, «Reglas del Mus»"
PERFILES: Final[dict[str, Reglas]] = {
    "general": Reglas(
        nombre="general", reyes=8, tantos=40, juegos_por_vaca=4, vacas_por_partida=1,
        fuente="Enciclopedia, artículo «Mus»: 8 reyes, cuatro juegos de cuarenta tantos",
    ),
    "segovia": Reglas(
        nombre="segovia", reyes=8, tantos=40, juegos_por_vaca=4, vacas_por_partida=1,
        real="no", deje="no", mus_corrido="partida", senas="segovia",
        fuente=f"{_SEG} y {_REGLAMENTO}: 4 juegos de 40 tantos, sin deje, no vale la real",
    ),
    "cuellar": Reglas(
        nombre="cuellar", reyes=8, tantos=30, juegos_por_vaca=4, vacas_por_partida=1,
        real="cualquier_figura", deje="no", mus_corrido="partida", senas="segovia",
        fuente=(f"{_SEG}, especialidades de Cuéllar, y {_REGLAMENTO}: 31 real con tres sietes y "
                "cualquier figura, a 30 tantos"),
    ),
    "euskadi": Reglas(
        nombre="euskadi", reyes=8, tantos=40, juegos_por_vaca=3, vacas_por_partida=1,
        real="no", deje="al_final", mus_corrido="partida", senas="euskadi",
        fuente="Euskadiko Kooperatiben arteko III. Mus Txapelketa: 40 harri (8 hamarreko)",
    ),
    "ludoteka-4": Reglas(
        nombre="ludoteka-4", reyes=4, tantos=30, juegos_por_vaca=2, vacas_por_partida=1,
        mus_corrido="partida", senas="segovia",
        fuente=f"{_LUDOTEKA}, «Mus a 4 Reyes»: juegos a 30, gana quien logra 2 juegos",
    ),
    "ludoteka-8": Reglas(
        nombre="ludoteka-8", reyes=8, tantos=40, juegos_por_vaca=2, vacas_por_partida=1,
        mus_corrido="partida", senas="segovia",
        fuente=f"{_LUDOTEKA}, «Mus a 8 Reyes Por Parejas»: juegos a 40, 2 juegos",
    ),
}
DEFAULT: Final = "general"
_FIELDS_ORDER: Final = tuple(f.name for f in dataclasses.fields(Reglas) if f.init)
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
        return dataclasses.replace(base, **overrides)
    except TypeError as exc:
        raise PerfilError(f"reglas inválidas: {exc}") from None


def cargar_perfil(path: str | Path) -> Reglas:
    """Load a profile from a TOML file: ``base = "segovia"`` plus any fields to change.

    A missing or malformed file raises PerfilError naming the file.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PerfilError(f"no se puede leer el perfil {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PerfilError(f"perfil {path}: TOML inválido ({exc})") from None
    data.setdefault("nombre", path.stem)
    return _from_mapping(data)
