"""Referee and trainer: señas a hand allows and the checks on a player's señas.

Every expectation comes from an article of the rules texts (cited in each case): the Reglamento
Campeonatos de Mus (Segovia), Título VII (señas); the Basque championship's «Keinuak»; the
encyclopedia article «Mus», §4.5.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.arbitro import (
    PERMITIDOS,
    TIPOS_HALLAZGO,
    comprobar_senas,
    senas_permitidas,
)
from scoring.cards import DECK, Hand
from scoring.senas import GESTOS, SenasError, conjunto_senas

SEG4 = {"base": "segovia", "reyes": 4}  # Segovia señas, 4 reyes: threes are threes


def estados(mano: str, perfil: object) -> dict[str, str]:
    return {j.sena.id: j.estado for j in senas_permitidas(mano, perfil).juicios}


def completas(mano: str, perfil: object) -> list[str]:
    return [j.sena.id for j in senas_permitidas(mano, perfil).completas]


@pytest.mark.parametrize(
    ("mano", "perfil", "esperadas", "cita"),
    [
        ("12o 12c 1e 4b", "segovia", ["dos_reyes"], "VII.2 dos reyes; 25 al punto: sin seña"),
        ("1o 1c 5e 4b", "segovia", ["dos_ases"], "VII.2 dos ases"),
        ("12o 12c 12e 4b", SEG4, ["medias", "juego"], "VII.2 medias (de reyes), juego (34)"),
        ("1o 1c 1e 4b", SEG4, ["medias_ases"], "VII.2 medias de ases: lengua a un lado"),
        ("12o 12c 1e 1b", "segovia", ["duples"], "VII.7: duples con dos reyes y dos ases"),
        ("12o 11c 10e 1b", "segovia", ["treinta_y_una"], "VII.2 treinta y una: guiño"),
        (
            "12o 11c 6e 4b",
            "segovia",
            ["treinta", "treinta_tras_juego_no"],
            "VII.2 treinta: dos hombros, o guiño tras «juego no»",
        ),
        ("12o 11c 5e 4b", "segovia", ["veintinueve"], "VII.2 veintinueve: un hombro"),
        ("4o 5c 6e 7b", "segovia", [], "nada con seña"),
        ("4o 4c 10e 11b", "segovia", [], "pareja de cuatros: no hay seña"),
        # 8 reyes (encyclopedia §2): a three is a king, so 3 + 12 is "dos reyes"
        ("3o 12c 1e 4b", "segovia", ["dos_reyes"], "8 reyes: el tres es rey"),
        ("3o 12c 1e 4b", SEG4, [], "4 reyes: el tres es tres"),
        # Basque championship, «Keinuak»
        ("12o 12c 12e 12b", "euskadi", ["cuatro_reyes"], "Keinuak: dos reyes dos veces"),
        ("1o 1c 1e 1b", {"base": "euskadi", "reyes": 4}, ["cuatro_ases"], "Keinuak: cuatro ases"),
        ("12o 12c 12e 4b", {"base": "euskadi", "reyes": 4}, ["tres_reyes"], "Keinuak: medias y luego dos reyes"),
        ("12o 12c 4e 4b", "euskadi", ["duples_reyes"], "Keinuak: duples y luego dos reyes"),
        (
            "12o 12c 1e 1b",
            "euskadi",
            ["duples_reyes", "duples_ases"],
            "Keinuak: duples de reyes o de ases, ambas ciertas",
        ),
        ("12o 11c 6e 4b", "euskadi", ["treinta_y_una_o_treinta"], "Keinuak: guiño = 31 o 30"),
        ("12o 11c 10e 1b", "euskadi", ["treinta_y_una_o_treinta"], "Keinuak: guiño = 31 o 30"),
        # encyclopedia §4.5: one shoulder is 30 al punto
        (
            "12o 11c 6e 4b",
            {"base": "general", "senas": "enciclopedia"},
            ["treinta"],
            "§4.5: elevar un hombro (30 al punto)",
        ),
    ],
)
def test_complete_sena(mano: str, perfil: object, esperadas: list[str], cita: str) -> None:
    assert completas(mano, perfil) == esperadas, cita


@pytest.mark.parametrize(
    ("mano", "perfil", "sena", "estado", "articulo"),
    [
        # Título VII art. 7: with duples that hold two kings or two aces only the duples seña.
        ("12o 12c 1e 1b", "segovia", "dos_reyes", "inferior", "Título VII, art. 7"),
        ("12o 12c 1e 1b", "segovia", "dos_ases", "inferior", "Título VII, art. 7"),
        ("12o 12c 12e 12b", "segovia", "medias", "inferior", "Título VII, art. 7"),
        ("12o 12c 12e 4b", SEG4, "dos_reyes", "inferior", "Título VII, art. 7"),
        # Título VII art. 3: a seña must be faithful to the cards.
        ("4o 5c 6e 7b", "segovia", "dos_reyes", "falsa", "Título VII, art. 3"),
        ("12o 11c 6e 4b", "segovia", "treinta_y_una", "falsa", "Título VII, art. 3"),
        ("12o 11c 6e 4b", "segovia", "veintinueve", "falsa", "Título VII, art. 3"),
        # Título VII art. 5: the complete seña; a less precise one is not enough by itself.
        ("1o 1c 1e 4b", SEG4, "medias", "insuficiente", "Título VII, art. 5"),
        ("12o 11c 10e 1b", "segovia", "juego", "insuficiente", "Título VII, art. 5"),
        # Título VII art. 2, ciego: never with pares, 29, 30 or juego.
        ("4o 4c 10e 11b", "segovia", "ciego", "falsa", "Título VII, art. 2"),
        ("12o 11c 5e 4b", "segovia", "ciego", "falsa", "Título VII, art. 2"),
        ("12o 11c 6e 4b", "segovia", "ciego", "falsa", "Título VII, art. 2"),
        ("12o 11c 10e 1b", "segovia", "ciego", "falsa", "Título VII, art. 2"),
        ("4o 5c 6e 7b", "segovia", "ciego", "permitida", "Título VII, art. 2"),
        # Normas generales: ciego «si tienes 28 para el punto y dos cuatros».
        (
            "4o 4c 10e 11b",
            {"base": "segovia", "senas": "segovia-normas"},
            "ciego",
            "permitida",
            "Normas generales de Segovia",
        ),
        (
            "12o 12c 10e 4b",
            {"base": "segovia", "senas": "segovia-normas"},
            "ciego",
            "falsa",
            "Normas generales de Segovia",
        ),
        # encyclopedia §4.5: «cerrar los ojos (no tener nada o ciego)»
        ("4o 4c 10e 11b", {"base": "general", "senas": "enciclopedia"}, "ciego", "falsa", "§4.5"),
        ("10o 11c 12e 4b", {"base": "general", "senas": "enciclopedia"}, "ciego", "falsa", "§4.5"),
        ("10o 11c 5e 4b", {"base": "general", "senas": "enciclopedia"}, "ciego", "permitida", "§4.5"),
        # Basque: no article forbids it, so it is a warning citing the seña's meaning.
        ("12o 12c 12e 12b", "euskadi", "dos_reyes", "inferior", "Keinuak"),
        ("12o 12c 12e 12b", "euskadi", "duples", "insuficiente", "Keinuak"),
    ],
)
def test_judgement_and_article(mano: str, perfil: object, sena: str, estado: str, articulo: str) -> None:
    juicio = senas_permitidas(mano, perfil).juicio(sena)
    assert juicio.estado == estado
    assert juicio.articulo.startswith(articulo)


def test_basque_faults_are_warnings_segovia_faults_are_infractions() -> None:
    assert senas_permitidas("12o 12c 12e 12b", "euskadi").juicio("dos_reyes").gravedad == "aviso"
    assert senas_permitidas("12o 12c 12e 12b", "segovia").juicio("dos_reyes").gravedad == "infraccion"


def test_medias_not_of_kings_only_after_grande() -> None:
    # Título VII art. 2: «Si las medias no son de reyes, esta seña no se podrá pasar hasta
    # después del lance de grande».
    cuatros = senas_permitidas("4o 4c 4e 5b", "segovia").juicio("medias")
    reyes = senas_permitidas("12o 12c 12e 5b", SEG4).juicio("medias")
    assert cuatros.estado == reyes.estado == "completa"
    assert "grande" not in cuatros.fases and "chica" in cuatros.fases
    assert reyes.fases == ()


def test_combinations_where_either_sena_is_enough() -> None:
    # Título VII art. 7: duples con juego, duples con treinta, tres reyes con cualquier juego.
    assert senas_permitidas("12o 12c 11e 11b", "segovia").libres  # duples + 40
    assert senas_permitidas("12o 12c 4e 4b", SEG4).libres is False  # duples + 28
    assert senas_permitidas("10o 10c 5e 5b", SEG4).libres  # duples + 30
    assert senas_permitidas("12o 12c 12e 4b", SEG4).libres  # tres reyes + 34
    assert not senas_permitidas("12o 12c 1e 10b", "segovia").libres  # pareja + 31


def ev(gesto: str, t: float, **kw: object) -> dict[str, object]:
    return {"gesto": gesto, "inicio": t, "fin": t + 0.4, "confianza": 0.9, **kw}


def tipos(informe: object) -> list[tuple[str, str | None]]:
    return [(h.tipo, h.sena) for h in informe]


@pytest.mark.parametrize(
    ("mano", "perfil", "gestos", "fase", "esperado", "cita"),
    [
        ("4o 5c 6e 7b", "segovia", ["labio_mordido"], "chica", [("falsa", "dos_reyes")], "VII.3 seña falsa"),
        (
            "12o 12c 1e 1b",
            "segovia",
            ["labio_mordido"],
            "chica",
            [("inferior", "dos_reyes"), ("incompleta", "duples")],
            "VII.7 y VII.5",
        ),
        ("12o 12c 1e 1b", "segovia", ["cejas_arriba"], "chica", [], "VII.7: duples, bien"),
        (
            "12o 12c 1e 10b",
            "segovia",
            ["labio_mordido"],
            "chica",
            [("incompleta", "treinta_y_una")],
            "VII.5: dos reyes y 31, falta el guiño",
        ),
        ("12o 12c 1e 10b", "segovia", ["labio_mordido", "guino"], "chica", [], "completa"),
        ("12o 12c 11e 11b", "segovia", ["cejas_arriba"], "chica", [], "VII.7: duples con juego, basta una"),
        ("12o 12c 11e 11b", "segovia", ["morro"], "chica", [], "VII.7: o la otra"),
        ("12o 12c 1e 10b", "segovia", [], "chica", [], "VII.5: no pasar señas es válido"),
        ("12o 11c 6e 4b", "segovia", ["guino"], "punto", [], "VII.2: guiño tras juego no = 30"),
        (
            "12o 11c 6e 4b",
            "segovia",
            ["guino"],
            "pares",
            [("falsa", "treinta_y_una"), ("incompleta", "treinta")],
            "VII.2: antes de «juego no» el guiño es 31",
        ),
        (
            "4o 4c 4e 5b",
            "segovia",
            ["labios_lado"],
            "grande",
            [("momento", "medias")],
            "VII.2: medias no de reyes en la grande",
        ),
        ("4o 4c 4e 5b", "segovia", ["labios_lado"], "chica", [], "VII.2: después de la grande"),
        (
            "12o 12c 12e 5b",
            SEG4,
            ["labios_lado", "morro"],
            "grande",
            [],
            "VII.2: medias de reyes en cualquier momento; 35 de juego",
        ),
        (
            "4o 4c 4e 5b",
            "segovia",
            ["labios_lado"],
            "lances",
            [],
            "fase sin lance marcado: no se puede juzgar el momento",
        ),
        (
            "4o 5c 6e 7b",
            "euskadi",
            ["ojos_cerrados"],
            "chica",
            [("no_reglamentada", None)],
            "Keinuak: sólo las señas de la lista",
        ),
        ("12o 12c 12e 12b", "euskadi", ["labio_mordido", "labio_mordido"], "chica", [], "Keinuak: cuatro reyes"),
        (
            "12o 12c 12e 12b",
            "euskadi",
            ["labio_mordido"],
            "chica",
            [("inferior", "dos_reyes"), ("incompleta", "cuatro_reyes")],
            "Keinuak: avisos",
        ),
    ],
)
def test_findings(mano: str, perfil: object, gestos: list[str], fase: str, esperado: list, cita: str) -> None:
    eventos = [ev(g, 10.0 + i) for i, g in enumerate(gestos)]
    assert tipos(comprobar_senas(eventos, mano, perfil, fase)) == esperado, cita


def test_every_finding_cites_the_article() -> None:
    informe = comprobar_senas([ev("labio_mordido", 1.0)], "12o 12c 1e 1b", "segovia", "chica")
    arts = {h.tipo: h.articulo for h in informe}
    assert arts["inferior"].startswith("Título VII, art. 7")
    assert arts["incompleta"].startswith("Título VII, art. 5")
    assert not informe.correcto


MARCAS = [
    {"fase": "reparto", "inicio": 0.0},
    {"fase": "mus", "inicio": 5.0},
    {"fase": "descarte", "inicio": 10.0},
    {"fase": "mus", "inicio": 12.0},
    {"fase": "grande", "inicio": 20.0},
    {"fase": "chica", "inicio": 30.0},
]


def test_no_senas_while_dealing() -> None:
    # Título VII art. 6: «prohibido pasar señas, mientras se están repartiendo cartas».
    informe = comprobar_senas([ev("cejas_arriba", 2.0), ev("cejas_arriba", 11.0)], "12o 12c 1e 1b", "segovia", MARCAS)
    assert [(h.tipo, h.articulo) for h in informe] == [("momento", "Título VII, art. 6")] * 2
    assert all(not v.comprobable for v in informe.vistas)


def test_first_hand_no_senas_until_mus_is_cut() -> None:
    # Título VII art. 4 and Título II art. 16: the first hand is "sin señas hasta que se
    # corte el mus"; in later hands señas are allowed during the mus (art. 6).
    eventos = [ev("cejas_arriba", 14.0)]
    first = comprobar_senas(eventos, "12o 12c 1e 1b", "segovia", MARCAS, primera_mano=True)
    later = comprobar_senas(eventos, "12o 12c 1e 1b", "segovia", MARCAS)
    assert [h.articulo for h in first] == ["Título VII, art. 4; Título II, art. 16"]
    assert list(later) == []


def test_senas_before_the_last_discard_are_not_checked_against_final_cards() -> None:
    # Título VII art. 7: «si en el descarte se pasa por seña de dos reyes y luego se reciben
    # dos ases, no podrá pasar la seña de éstos, tendrá que pasar la seña de duples».
    eventos = [ev("labio_mordido", 7.0), ev("lengua_fuera", 14.0)]
    informe = comprobar_senas(eventos, "12o 12c 1e 1b", "segovia", MARCAS)
    assert [v.comprobable for v in informe.vistas] == [False, True]
    assert tipos(informe) == [("inferior", "dos_ases"), ("incompleta", "duples")]
    ok = comprobar_senas([ev("labio_mordido", 7.0), ev("cejas_arriba", 14.0)], "12o 12c 1e 1b", "segovia", MARCAS)
    assert list(ok) == []


def test_basque_sequence_needs_the_gestures_together() -> None:
    far = [ev("labio_mordido", 10.0), ev("labio_mordido", 40.0)]
    informe = comprobar_senas(far, "12o 12c 12e 12b", "euskadi", "chica")
    assert [v.sena.id for v in informe.vistas] == ["dos_reyes", "dos_reyes"]
    near = [ev("labio_mordido", 10.0), ev("labio_mordido", 11.0)]
    assert list(comprobar_senas(near, "12o 12c 12e 12b", "euskadi", "chica")) == []


def test_event_phase_and_confidence() -> None:
    eventos = [ev("labio_mordido", 3.0, fase="reparto"), ev("guino", 9.0, confianza=0.2)]
    informe = comprobar_senas(eventos, "12o 12c 1e 4b", "segovia", "chica", confianza_min=0.5)
    assert [h.tipo for h in informe] == ["momento"]
    assert [v.gestos for v in informe.vistas] == [("labio_mordido",)]


def test_events_out_of_order_are_sorted_by_time() -> None:
    eventos = [ev("labio_mordido", 11.0), ev("labio_mordido", 10.0)]
    informe = comprobar_senas(eventos, "12o 12c 12e 12b", "euskadi", "chica")
    assert informe.vistas[0].eventos == (1, 0)


@pytest.mark.parametrize(
    ("eventos", "fase", "mensaje"),
    [
        ({"gesto": "guino"}, None, "lista"),
        ([{"inicio": 1.0}], None, "'gesto'"),
        ([{"gesto": "nariz", "inicio": 1.0}], None, "gesto desconocido"),
        ([{"gesto": "guino", "inicio": "uno"}], None, "inicio debe ser un número"),
        ([{"gesto": "guino", "inicio": 1.0}], "siesta", "fase desconocida"),
        ([{"gesto": "guino", "inicio": 1.0}], [{"fase": "mus"}], "inicio debe ser un número"),
        ([{"gesto": "guino", "inicio": 1.0, "fase": "x"}], None, "fase desconocida"),
    ],
)
def test_bad_events_are_clear_value_errors(eventos: object, fase: object, mensaje: str) -> None:
    with pytest.raises(SenasError, match=mensaje):
        comprobar_senas(eventos, "12o 12c 1e 4b", "segovia", fase)


def test_bad_cards_and_profile() -> None:
    with pytest.raises(ValueError, match="5 cartas"):
        senas_permitidas("12o 12c 1e 4b 5b", "segovia")
    with pytest.raises(ValueError, match="perfil desconocido"):
        senas_permitidas("12o 12c 1e 4b", "murcia")
    with pytest.raises(ValueError, match="señas"):
        senas_permitidas("12o 12c 1e 4b", "segovia", conjunto="murcia")


# -- properties ----------------------------------------------------------------------------------

PERFILES = (
    "general",
    "segovia",
    "euskadi",
    "ludoteka-4",
    SEG4,
    {"base": "segovia", "senas": "segovia-normas"},
    {"base": "general", "senas": "enciclopedia"},
    {"base": "euskadi", "reyes": 4},
)
manos = st.lists(st.sampled_from(DECK), min_size=4, max_size=4, unique=True).map(lambda cards: Hand(tuple(cards)))
perfiles = st.sampled_from(PERFILES)


@settings(max_examples=300, deadline=None)
@given(manos, perfiles)
def test_a_hand_never_both_requires_and_forbids_a_sena(mano: Hand, perfil: object) -> None:
    sp = senas_permitidas(mano, perfil)
    required = {j.sena.id for j in sp.completas}
    forbidden = {j.sena.id for j in sp.prohibidas}
    assert not required & forbidden
    assert sorted(j.sena.id for j in sp.juicios) == sorted(s.id for s in conjunto_senas(perfil_senas(perfil)).senas)
    for j in sp.juicios:
        assert j.articulo
        assert j.permitida == (j.estado in PERMITIDOS)


def perfil_senas(perfil: object) -> str:
    from scoring.rules import perfil as resolve

    return resolve(perfil).senas


def _pasar(sp, fase_base: str = "chica") -> list[dict[str, object]]:
    """Events for passing one complete seña per lance, each gesture in a phase it reads in."""
    eventos, t = [], 100.0
    for lance in ("pares", "juego"):
        options = sorted(sp.completas_de(lance), key=lambda j: bool(j.sena.fases))
        if not options:
            continue
        sena = options[0].sena
        fase = sena.fases[0] if sena.fases else fase_base
        for g in sena.gestos:
            eventos.append(ev(g, t, fase=fase))
            t += 1.0
        t += 30.0
    return eventos


@settings(max_examples=300, deadline=None)
@given(manos, perfiles)
def test_passing_the_complete_senas_is_always_correct(mano: Hand, perfil: object) -> None:
    sp = senas_permitidas(mano, perfil)
    informe = comprobar_senas(_pasar(sp), mano, perfil)
    assert list(informe) == [], informe.texto()


@settings(max_examples=300, deadline=None)
@given(
    manos,
    perfiles,
    st.lists(
        st.tuples(
            st.sampled_from(GESTOS),
            st.floats(0, 120),
            st.sampled_from((None, "reparto", "mus", "descarte", "grande", "chica", "punto")),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_every_finding_names_an_article(mano: Hand, perfil: object, gestos: list, primera: bool) -> None:
    eventos = [{"gesto": g, "inicio": t, "fin": t + 0.3, **({"fase": f} if f else {})} for g, t, f in gestos]
    informe = comprobar_senas(eventos, mano, perfil, primera_mano=primera)
    for h in informe:
        assert h.tipo in TIPOS_HALLAZGO
        assert h.articulo.strip()
        assert h.gravedad in ("infraccion", "aviso")
    # a seña the cards do not hold, checked against them, is always reported as false
    for v in informe.vistas:
        if v.sena and v.comprobable and sp_estado(mano, perfil, v.sena.id) == "falsa":
            assert any(h.tipo == "falsa" and h.eventos == v.eventos for h in informe)


def sp_estado(mano: Hand, perfil: object, sena_id: str) -> str:
    return senas_permitidas(mano, perfil).juicio(sena_id).estado


@settings(max_examples=300, deadline=None)
@given(manos, perfiles, st.sampled_from(("pares", "juego")))
def test_with_a_free_combination_one_sena_is_enough(mano: Hand, perfil: object, lance: str) -> None:
    """Título VII art. 7: duples con juego, duples con treinta, tres reyes con cualquier juego:
    «se podrá pasar cualquiera de las señas»; otherwise leaving one out is incomplete."""
    sp = senas_permitidas(mano, perfil)
    if not (sp.completas_de("pares") and sp.completas_de("juego")):
        return
    eventos = [e for e in _pasar(sp) if _lance_de(sp, e["gesto"]) == lance]
    tipos_ = [h.tipo for h in comprobar_senas(eventos, mano, perfil)]
    assert ("incompleta" in tipos_) == (not sp.libres)


def _lance_de(sp, gesto: str) -> str:
    return next(j.sena.lance for j in sp.completas if gesto in j.sena.gestos)
