"""Rule profiles: built-ins, overrides, TOML loading."""

from __future__ import annotations

import ast
import dataclasses
import tomllib
from pathlib import Path

import pytest

from scoring.cards import Card
from scoring.rules import PERFILES, PerfilError, Reglas, cargar_perfil, perfil

# What each source says, read from the rules texts (not from the engine).
EXPECTED = {
    # encyclopedia §4.6: "cuatro juegos de cuarenta tantos"; general is 8 reyes, 40 tantos.
    "general": {"reyes": 8, "tantos": 40},
    # Normas generales de Segovia: "Se juega a 4 juegos de 40 tantos siempre. Se juega sin deje.
    # No vale la real". Reglamento, Título V art. 7: "Queda expresamente prohibido querer un
    # órdago a juego con treinta y tres de postre"; Título VI art. 1: "En el envite a punto y a
    # falta de un tanto, no se apuntará más que el tanto de negada y el de punto".
    "segovia": {
        "tantos": 40,
        "juegos_por_vaca": 4,
        "deje": "no",
        "real": "no",
        "ordago_33_postre": "penalizado",
        "punto_falta_un_tanto": "negada_y_punto",
    },
    # Normas generales de Segovia, Cuéllar: "VALE LA 31 REAL (con tres sietes y cualquier figura)
    # ... a 30 tantos ... 4 juegos"; the rest as in Segovia.
    "cuellar": {
        "tantos": 30,
        "juegos_por_vaca": 4,
        "real": "cualquier_figura",
        "deje": "no",
        "ordago_33_postre": "penalizado",
        "punto_falta_un_tanto": "negada_y_punto",
    },
    # Euskadiko Kooperatiben arteko III. Mus Txapelketa: 40 harri (8 hamarreko), Basque señas;
    # "jasotzen diren lehen harriak “Ez” esateagatik edo “Paso” egiteagatik kobratzen direnak
    # direla" (the stones for refusing come first); a bet at juego accepted with 33 stands
    # ("atzeskuak bagara ere"). Reyes: the «Araudia» is silent; the encyclopedia: "En el País
    # Vasco ... se juega solamente con cuatro reyes y cuatro ases".
    "euskadi": {"tantos": 40, "senas": "euskadi", "reyes": 4, "deje": "primero", "ordago_33_postre": "vale"},
    # Ludoteka: "Mus a 4 Reyes ... a 30 puntos, y vence la pareja que logra 2 juegos".
    "ludoteka-4": {"reyes": 4, "tantos": 30, "juegos_por_vaca": 2, "vacas_por_partida": 1},
    # Ludoteka: "Mus a 8 Reyes Por Parejas ... a 40 puntos, y vence la pareja que logra 2 juegos".
    "ludoteka-8": {"reyes": 8, "tantos": 40, "juegos_por_vaca": 2, "vacas_por_partida": 1},
}


def test_builtin_profiles_are_the_sources() -> None:
    assert set(PERFILES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_builtin_profile_matches_its_source(name: str) -> None:
    reglas = perfil(name)
    assert reglas.nombre == name
    for field, value in EXPECTED[name].items():
        assert getattr(reglas, field) == value, field
    assert reglas.fuente, "every profile documents its source"
    assert reglas.ases == reglas.reyes  # 8 reyes goes with 8 ases unless set apart


def test_default_profile_is_general() -> None:
    assert perfil() == perfil("general") == perfil(None)
    assert perfil(perfil("cuellar")) is perfil("cuellar")


@pytest.mark.parametrize(
    ("rank", "r8", "r4", "v8", "v4"),
    # Ludoteka: with 8 reyes "los treses son reyes ... los doses son ases" a todos los efectos;
    # encyclopedia §2: figures (and threes) are worth 10, aces (and twos) 1.
    [
        (3, 12, 3, 10, 3),
        (2, 1, 2, 1, 2),
        (12, 12, 12, 10, 10),
        (11, 11, 11, 10, 10),
        (10, 10, 10, 10, 10),
        (1, 1, 1, 1, 1),
        (7, 7, 7, 7, 7),
        (4, 4, 4, 4, 4),
    ],
)
def test_rango_and_valor_with_4_and_8_reyes(rank: int, r8: int, r4: int, v8: int, v4: int) -> None:
    card = Card(rank, "e")
    assert perfil("general").rango(card) == r8
    assert perfil("ludoteka-4").rango(card) == r4
    assert perfil("general").valor(card) == v8
    assert perfil("ludoteka-4").valor(card) == v4


def test_ases_can_be_set_apart_from_reyes() -> None:
    # Normas generales de mus: "A cuatro u 8 reyes, a 4 u 8 ases" are separate choices.
    reglas = perfil({"base": "general", "ases": 4})
    assert reglas.rango(Card(3, "o")) == 12 and reglas.rango(Card(2, "o")) == 2


def test_overrides_change_only_what_they_name() -> None:
    reglas = perfil({"base": "ludoteka-8", "reyes": 4, "tantos": 30})
    base = perfil("ludoteka-8")
    assert (reglas.reyes, reglas.ases, reglas.tantos) == (4, 4, 30)
    assert reglas.juegos_por_vaca == base.juegos_por_vaca
    assert reglas.nombre != "ludoteka-8"  # an edited profile must not pass for the built-in


def test_overrides_default_base_is_general() -> None:
    reglas = perfil({"tantos": 30})
    assert reglas.reyes == 8 and reglas.tantos == 30


@pytest.mark.parametrize(
    "spec",
    [
        "murcia",
        {"base": "murcia"},
        {"base": "general", "reyez": 4},  # unknown option
        {"reyes": 6},
        {"ases": 2},
        {"tantos": "40"},
        {"tantos": 0},
        {"tantos": True},
        {"juegos_por_vaca": 0},
        {"vacas_por_partida": -1},
        {"real": "si"},
        {"deje": "yes"},
        {"mus_corrido": "siempre"},
        {"senas": ""},
        {"deje": "al_principio"},
        {"ordago_33_postre": "prohibido"},
        {"punto_falta_un_tanto": True},
        {"fuentes": ()},  # where a value comes from is documentation, not an option
        12,
        ["general"],
    ],
)
def test_bad_profile_spec_raises_perfil_error(spec: object) -> None:
    with pytest.raises(PerfilError) as info:
        perfil(spec)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_unknown_option_is_named() -> None:
    with pytest.raises(PerfilError, match="reyez"):
        perfil({"base": "general", "reyez": 4})


def test_reglas_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        perfil("general").tantos = 30  # type: ignore[misc]


def test_reglas_constructor_validates() -> None:
    with pytest.raises(PerfilError):
        Reglas(reyes=5)


def test_toml_profile_loads_with_base_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "mi_bar.toml"
    path.write_text('base = "cuellar"\nreyes = 4\ndeje = "al_final"\n', encoding="utf-8")
    reglas = cargar_perfil(path)
    assert reglas.nombre == "mi_bar"  # named after the file unless it says otherwise
    assert (reglas.reyes, reglas.ases, reglas.tantos, reglas.real, reglas.deje) == (
        4,
        4,
        30,
        "cualquier_figura",
        "al_final",
    )


def test_toml_profile_without_base_starts_from_general(tmp_path: Path) -> None:
    path = tmp_path / "casa.toml"
    path.write_text('nombre = "casa"\ntantos = 30\n', encoding="utf-8")
    reglas = cargar_perfil(str(path))
    assert (reglas.nombre, reglas.reyes, reglas.tantos) == ("casa", 8, 30)


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("tantos = \n", "mal.toml"),  # TOML syntax error
        ('base = "murcia"\n', "murcia"),
        ("reyes = 5\n", "reyes"),
        ("colores = 3\n", "colores"),  # unknown option
        (b"\xff\xfe", "mal.toml"),  # not UTF-8
    ],
)
def test_bad_toml_profile_raises_naming_the_problem(tmp_path: Path, content: str | bytes, named: str) -> None:
    path = tmp_path / "mal.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(PerfilError, match=named):
        cargar_perfil(path)


def test_missing_toml_file_raises_perfil_error(tmp_path: Path) -> None:
    with pytest.raises(PerfilError, match="no_existe"):
        cargar_perfil(tmp_path / "no_existe.toml")


@pytest.mark.parametrize("spec", [{"nombre": ["x"]}, {"nombre": 5}, {"nombre": ""}, {"fuente": {"a": 1}}])
def test_nombre_and_fuente_must_be_text(spec: dict) -> None:
    # A record's "reglas": {"nombre": ["x"]} is accepted today, printed as "Reglas: ['x']", and
    # RegistroMano.to_dict() / hash(reglas) then raise TypeError.
    with pytest.raises(PerfilError):
        perfil(spec)


# -- citations: the documents by their titles, never our file names --------------------------

# The titles the rules texts give themselves (Ludoteka's page is «Reglas del Mus»).
DOCUMENTOS = (
    "Enciclopedia, artículo «Mus»",
    "Normas generales de mus para la provincia de Segovia",
    "Reglamento Campeonatos de Mus (Segovia)",
    "Euskadiko Kooperatiben arteko III. Mus Txapelketa",
    "Ludoteka, «Reglas del Mus»",
)
SCORING = Path(__file__).resolve().parents[1] / "scoring"


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _literals(path: Path) -> list[str]:
    """Every string literal of a module (f-string parts included), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@pytest.mark.parametrize("name", list(PERFILES))
def test_profile_source_is_a_document_title(name: str) -> None:
    fuente = PERFILES[name].fuente
    assert fuente.startswith(DOCUMENTOS), fuente
    assert "seed" not in fuente.lower()


@pytest.mark.parametrize("path", sorted((SCORING / "data" / "senas").glob("*.toml")), ids=lambda p: p.name)
def test_sena_set_texts_do_not_name_our_files(path: Path) -> None:
    texts = _strings(tomllib.loads(path.read_text(encoding="utf-8")))
    assert texts
    assert [t for t in texts if "seed" in t.lower() or ".txt" in t] == []


@pytest.mark.parametrize("path", sorted(SCORING.glob("*.py")), ids=lambda p: p.name)
def test_reasons_and_findings_do_not_name_our_files(path: Path) -> None:
    # The templates of reasons, findings and messages are the modules' string literals.
    assert [t for t in _literals(path) if "seed" in t.lower()] == []
