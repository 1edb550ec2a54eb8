"""Seña sets as data: meanings taken from the articles of the rules texts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.senas import (
    FASES,
    GESTOS,
    ConjuntoSenas,
    SenasError,
    cargar_conjunto,
    conjunto_senas,
    nombres_conjuntos,
)

SETS = ("segovia", "segovia-normas", "euskadi", "enciclopedia")
# Each set's source, by the title the text gives itself.
DOCUMENTOS = (
    "Reglamento Campeonatos de Mus (Segovia)",
    "Normas generales de mus para la provincia de Segovia",
    "Euskadiko Kooperatiben arteko III. Mus Txapelketa",
    "Enciclopedia, artículo «Mus»",
)


def test_gesture_ids_are_the_contract_with_gestures() -> None:
    assert GESTOS == (
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


def test_bundled_sets() -> None:
    assert set(SETS) | {"general"} == set(nombres_conjuntos())
    for name in SETS:
        conjunto = conjunto_senas(name)
        assert isinstance(conjunto, ConjuntoSenas)
        assert conjunto.nombre == name
        assert conjunto.fuente.startswith(DOCUMENTOS), conjunto.fuente
        assert conjunto.titulo.startswith(DOCUMENTOS), conjunto.titulo
        assert all(s.articulo for s in conjunto.senas)


def test_general_is_segovia() -> None:
    assert conjunto_senas("general") == conjunto_senas("segovia")


@pytest.mark.parametrize(
    ("conjunto", "gesto", "significado"),
    [
        # Reglamento, Título VII, art. 2
        ("segovia", "labio_mordido", "dos reyes"),
        ("segovia", "lengua_fuera", "dos ases"),
        ("segovia", "lengua_lado", "medias de ases"),
        ("segovia", "labios_lado", "medias"),
        ("segovia", "cejas_arriba", "duples"),
        ("segovia", "morro", "juego"),
        ("segovia", "guino", "treinta y una"),
        ("segovia", "hombros_arriba", "treinta"),
        ("segovia", "hombro_arriba", "veintinueve"),
        ("segovia", "ojos_cerrados", "ciego"),
        # Basque championship, «Keinuak»
        ("euskadi", "labio_mordido", "dos reyes"),
        ("euskadi", "lengua_fuera", "dos ases"),
        ("euskadi", "labios_lado", "medias"),
        ("euskadi", "cejas_arriba", "duples"),
        ("euskadi", "guino", "treinta y una (o treinta al punto sin juego)"),
        # encyclopedia §4.5: one shoulder is 30 al punto there, 29 in Segovia
        ("enciclopedia", "hombro_arriba", "treinta"),
        ("enciclopedia", "ojos_cerrados", "ciego"),
    ],
)
def test_single_gesture_meanings(conjunto: str, gesto: str, significado: str) -> None:
    assert conjunto_senas(conjunto).interpretar([gesto]) == [significado]


@pytest.mark.parametrize(
    ("conjunto", "gesto"),
    [
        # Keinuak has no ciego, no juego seña, no shoulders, no tongue to the side.
        ("euskadi", "ojos_cerrados"),
        ("euskadi", "morro"),
        ("euskadi", "hombro_arriba"),
        ("euskadi", "hombros_arriba"),
        ("euskadi", "lengua_lado"),
        # §4.5 has no seña for juego nor for both shoulders.
        ("enciclopedia", "morro"),
        ("enciclopedia", "hombros_arriba"),
    ],
)
def test_gestures_outside_a_list_mean_nothing(conjunto: str, gesto: str) -> None:
    assert conjunto_senas(conjunto).interpretar([gesto]) == [None]


@pytest.mark.parametrize(
    ("gestos", "esperado"),
    [
        # Basque championship, «Keinuak»: the same sign twice = four; medias then kings/aces = three;
        # duples then kings/aces = duples of kings/aces.
        (["labio_mordido", "labio_mordido"], ["dos reyes", "cuatro reyes"]),
        (["lengua_fuera", "lengua_fuera"], ["dos ases", "cuatro ases"]),
        (["labios_lado", "labio_mordido"], ["medias", "tres reyes"]),
        (["labios_lado", "lengua_fuera"], ["medias", "tres ases"]),
        (["cejas_arriba", "labio_mordido"], ["duples", "duples de reyes"]),
        (["cejas_arriba", "lengua_fuera"], ["duples", "duples de ases"]),
        # three bites: four kings, then a new "dos reyes"
        (["labio_mordido"] * 3, ["dos reyes", "cuatro reyes", "dos reyes"]),
        (["labio_mordido", "guino"], ["dos reyes", "treinta y una (o treinta al punto sin juego)"]),
    ],
)
def test_basque_sequences(gestos: list[str], esperado: list[str]) -> None:
    assert conjunto_senas("euskadi").interpretar(gestos) == esperado


def test_segovia_has_no_sequences() -> None:
    # Título VII lists no sequence: twice the same seña is the same seña twice.
    assert conjunto_senas("segovia").interpretar(["labio_mordido"] * 2) == ["dos reyes"] * 2


def test_segovia_wink_after_juego_no_is_treinta() -> None:
    # Título VII, art. 2: «Guiñar un ojo después de cantar juego no, los cuatro».
    seg = conjunto_senas("segovia")
    assert seg.interpretar(["guino"], fases="punto") == ["treinta"]
    assert seg.interpretar(["guino"], fases="mus") == ["treinta y una"]
    assert seg.interpretar(["guino", "guino"], fases=["juego", "punto"]) == [
        "treinta y una",
        "treinta",
    ]
    # the Basque wink already means 31 or 30 in any phase
    assert conjunto_senas("euskadi").interpretar(["guino"], fases="punto") == [
        "treinta y una (o treinta al punto sin juego)"
    ]


def test_sequences_need_gestures_close_in_time() -> None:
    eus = conjunto_senas("euskadi")
    near = eus.leer(["labio_mordido", "labio_mordido"], tiempos=[(1.0, 1.4), (2.0, 2.3)])
    far = eus.leer(["labio_mordido", "labio_mordido"], tiempos=[(1.0, 1.4), (20.0, 20.3)])
    assert [lec.sena.id for lec in near if lec.sena] == ["cuatro_reyes"]
    assert [lec.sena.id for lec in far if lec.sena] == ["dos_reyes", "dos_reyes"]
    assert [lec.indices for lec in far] == [(0,), (1,)]


def test_disagreements_are_explicit() -> None:
    temas = {d.tema for d in conjunto_senas("segovia").desacuerdos}
    assert {"ciego con pares", "seña de treinta", "enseñar las cartas antes de tiempo"} <= temas
    assert conjunto_senas("segovia").ciego == "sin_pares_ni_29_30_ni_juego"
    assert conjunto_senas("segovia-normas").ciego == "sin_jugada_con_sena"


@pytest.mark.parametrize("name", ["murcia", "", "../segovia", "Segovia!"])
def test_unknown_set_is_a_clear_value_error(name: str) -> None:
    with pytest.raises(ValueError, match="señas"):
        conjunto_senas(name)


def test_unknown_gesture_and_phase() -> None:
    seg = conjunto_senas("segovia")
    with pytest.raises(SenasError, match="gesto desconocido 'nariz'"):
        seg.interpretar(["nariz"])
    with pytest.raises(SenasError, match="fase desconocida"):
        seg.interpretar(["guino"], fases="siesta")
    with pytest.raises(SenasError, match="una por gesto"):
        seg.interpretar(["guino", "morro"], fases=["punto"])
    with pytest.raises(SenasError, match="lista"):
        seg.interpretar("guino")


def test_user_set_from_file(tmp_path) -> None:
    path = tmp_path / "bar.toml"
    path.write_text(
        'titulo = "Bar Paco"\nfuente = "la pizarra del bar"\n'
        '[[senas]]\nid = "rey"\nsignificado = "dos reyes"\ngestos = ["guino"]\n'
        'lance = "pares"\nafirma = { tipo = "pareja", rangos = [12] }\narticulo = "pizarra"\n',
        encoding="utf-8",
    )
    assert cargar_conjunto(path).interpretar(["guino", "morro"]) == ["dos reyes", None]
    path.write_text(
        'titulo = "x"\nfuente = "y"\n[[senas]]\nid = "a"\nsignificado = "b"\n'
        'gestos = ["nariz"]\nlance = "pares"\narticulo = "c"\n',
        encoding="utf-8",
    )
    with pytest.raises(SenasError, match="nariz"):
        cargar_conjunto(path)
    path.write_text("titulo = ", encoding="utf-8")
    with pytest.raises(SenasError, match="TOML"):
        cargar_conjunto(path)


@given(
    st.sampled_from(SETS),
    st.lists(st.sampled_from(GESTOS), max_size=8),
    st.sampled_from((None, *FASES)),
)
def test_interpretation_is_total_and_none_only_outside_the_list(name: str, gestos: list[str], fase: str | None) -> None:
    conjunto = conjunto_senas(name)
    meanings = conjunto.interpretar(gestos, fases=fase)
    assert len(meanings) == len(gestos)
    for gesto, meaning in zip(gestos, meanings, strict=True):
        assert (meaning is None) == (gesto not in conjunto.gestos_reglamentados)
    lecturas = conjunto.leer(gestos, fases=fase)
    assert [i for lec in lecturas for i in lec.indices] == list(range(len(gestos)))
