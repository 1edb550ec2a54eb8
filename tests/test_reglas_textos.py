"""The rules texts against the engine.

Every quote in scoring.textos is the exact text of the document it names; every value of every
built-in profile names its source or says it is a choice; and worked cases, each beside the line
it comes from: the 33 de postre (Reglamento Campeonatos de Mus (Segovia), Título V, arts. 7-9,
against the Basque «Araudia»), the order stones are collected in (the deje) and the envite at
punto a falta de un tanto (Título VI, art. 1).
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from scoring import textos
from scoring.declaraciones import correcciones, faltas
from scoring.outcomes import FinJuego, Terminacion
from scoring.rules import PERFILES, VALORES, cargar_perfil, orden_de_cobro, perfil
from scoring.tanteo import RegistroManoError, ResultadoTanteo, tantear

ROOT = Path(__file__).resolve().parents[1]
# The texts are never copied into the repository: they are read where the project keeps them.
SEEDS = Path(os.environ.get("MUSMESA_SEEDS", ROOT.parent / "shared" / "seeds"))


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def documentos() -> dict[str, str]:
    """The texts by the titles they give themselves, whitespace made single (the Segovia text
    breaks its lines inside sentences). One file holds the Normas and the Reglamento."""
    out: dict[str, str] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        text = _normal(path.read_text(encoding="utf-8"))
        if "REGLAMENTO CAMPEONATOS DE MUS" in text:
            normas, reglamento = text.split("REGLAMENTO CAMPEONATOS DE MUS", 1)
            out[textos.NORMAS_SEGOVIA], out[textos.REGLAMENTO] = normas, reglamento
        elif "EUSKADIKO KOOPERATIBEN ARTEKO III. MUS TXAPELKETA" in text:
            out[textos.TXAPELKETA] = text
        elif "Modalidades en Ludoteka" in text:
            out[textos.LUDOTEKA] = text
        elif "Vista del artículo" in text:
            out[textos.ENCICLOPEDIA] = text
    return out


needs_texts = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the rules texts are not at {SEEDS}")


@needs_texts
def test_the_five_documents_are_found() -> None:
    assert set(documentos()) == set(textos.DOCUMENTOS)


@needs_texts
@pytest.mark.parametrize("cita", textos.citas(), ids=lambda c: f"{c.documento[:12]}-{c.lugar}-{c.texto[:24]}")
def test_every_quote_is_the_exact_text_of_its_document(cita: textos.Cita) -> None:
    for fragmento in cita.fragmentos:
        assert _normal(fragmento) in documentos()[cita.documento], fragmento


# -- every profile value with its source, or marked as a choice -------------------------------


@pytest.mark.parametrize("name", list(PERFILES))
def test_every_value_of_a_profile_names_its_source_or_is_a_choice(name: str) -> None:
    reglas = PERFILES[name]
    assert [campo for campo, _ in reglas.fuentes] == list(VALORES)  # each one written down
    for campo, _, fuente in reglas.valores():
        assert fuente.citas or fuente.eleccion, campo
        assert all(c.documento in textos.DOCUMENTOS for c in fuente.citas)
        assert all(c in textos.citas() for c in fuente.citas), "quotes live in scoring.textos"


@pytest.mark.parametrize(
    ("name", "campo", "documento", "palabras"),
    [
        # What the texts fix, and where.
        ("segovia", "tantos", textos.NORMAS_SEGOVIA, "Se juega a 4 juegos de 40 tantos siempre"),
        ("segovia", "deje", textos.NORMAS_SEGOVIA, "Se juega sin deje"),
        ("segovia", "ordago_33_postre", textos.REGLAMENTO, "treinta y tres de postre"),
        ("segovia", "punto_falta_un_tanto", textos.REGLAMENTO, "a falta de un tanto"),
        ("cuellar", "real", textos.NORMAS_SEGOVIA, "VALE LA 31 REAL"),
        ("cuellar", "tantos", textos.NORMAS_SEGOVIA, "juegan a 30 tantos en lugar de a 40"),
        ("euskadi", "tantos", textos.TXAPELKETA, "40 harri"),
        ("euskadi", "deje", textos.TXAPELKETA, "jasotzen diren lehen harriak"),
        ("euskadi", "ordago_33_postre", textos.TXAPELKETA, "atzeskuak bagara ere"),
        # The «Araudia» says nothing on reyes; the encyclopedia says it for the Basque Country.
        ("euskadi", "reyes", textos.ENCICLOPEDIA, "se juega solamente con cuatro reyes y cuatro ases"),
        ("ludoteka-4", "tantos", textos.LUDOTEKA, "Los juegos se disputan a 30 puntos"),
        ("ludoteka-8", "juegos_por_vaca", textos.LUDOTEKA, "vence la pareja que logra 2 juegos"),
        ("general", "reyes", textos.ENCICLOPEDIA, "Se juega con ocho reyes"),
    ],
)
def test_sourced_values_quote_the_words_that_fix_them(name: str, campo: str, documento: str, palabras: str) -> None:
    fuente = perfil(name).fuente_de(campo)
    assert not fuente.es_eleccion
    assert any(c.documento == documento and palabras in c.texto for c in fuente.citas)


@pytest.mark.parametrize(
    ("name", "campo"),
    [
        ("euskadi", "juegos_por_vaca"),  # «Joko partzial» only: the Araudia says no number
        ("euskadi", "real"),
        ("euskadi", "mus_corrido"),
        ("euskadi", "punto_falta_un_tanto"),
        ("segovia", "reyes"),  # the normas only list «A cuatro u 8 reyes» as variants
        ("general", "deje"),  # «El deje no siempre es considerado reglamentario»
        ("general", "ordago_33_postre"),
        ("ludoteka-4", "real"),
        ("ludoteka-8", "senas"),
    ]
    + [(name, "vacas_por_partida") for name in PERFILES],
)
def test_values_no_text_fixes_are_marked_as_choices(name: str, campo: str) -> None:
    assert perfil(name).fuente_de(campo).es_eleccion


def test_euskadi_is_re_read_against_the_basque_regulation() -> None:
    reglas = perfil("euskadi")
    assert (reglas.reyes, reglas.ases, reglas.tantos, reglas.deje, reglas.ordago_33_postre) == (
        4,
        4,
        40,
        "primero",
        "vale",
    )
    assert "la «Araudia» no lo dice" in reglas.fuente_de("reyes").texto()


def test_a_changed_value_becomes_a_choice_and_the_rest_keep_their_source(tmp_path: Path) -> None:
    derived = perfil({"base": "euskadi", "reyes": 8})
    assert derived.fuente_de("reyes").eleccion == "cambiado respecto al perfil «euskadi» (4 → 8)"
    assert derived.fuente_de("ases").es_eleccion  # follows the reyes
    assert derived.fuente_de("deje") == perfil("euskadi").fuente_de("deje")
    path = tmp_path / "bar.toml"
    path.write_text('base = "segovia"\ndeje = "al_final"\n', encoding="utf-8")
    assert cargar_perfil(path).fuente_de("deje").es_eleccion
    assert cargar_perfil(path).fuente_de("tantos") == perfil("segovia").fuente_de("tantos")


# -- 1. the 33 de postre ---------------------------------------------------------------------

# Seat 0 (mano) 31; seats 1 and 2 no juego (22); seat 3, the postre, 33 (10 + 10 + 6 + 7).
POSTRE = ["12o 11c 10e 1b", "4o 5c 6e 7b", "4c 5e 6c 7e", "12c 11e 6o 7o"]
ORDAGO = {"juego": {"ordago": "quiero"}}
QUIERE_3 = {"ordago_querido": {"asiento": 3, "lance": "juego"}}


def hand(manos: list[str], reglas: Any, **record: Any) -> ResultadoTanteo:
    return tantear({"reglas": reglas, "manos": manos, **record})


def test_reglamento_v_7_8_the_ordago_does_not_stand_and_costs_three() -> None:
    # V.7: "Queda expresamente prohibido querer un órdago a juego con treinta y tres de postre."
    # V.8: "será penalizado con dos tantos más el de negada, tres en total."
    r = hand(POSTRE, "segovia", marcador=[10, 20], lances=ORDAGO, declaraciones=QUIERE_3)
    assert r.fin is None
    first = r.detalle[0]  # taken when the órdago is resolved, before the count
    assert (first.pareja, first.tantos, first.lance) == (0, 3, "juego")
    assert textos.POSTRE_33_PROHIBIDO.texto in first.razon and textos.POSTRE_33_PENA.texto in first.razon
    # the count goes on as after a refused envite: grande, chica and the 31 of seat 0 (3)
    assert r.por_lance["juego"] == [6, 0] and r.marcador == (18, 20)


def test_the_three_tantos_are_taken_before_the_count() -> None:
    # At 37-39 the penalty ends the juego for pareja 0 before pareja 1 could count anything.
    r = hand(POSTRE, "segovia", marcador=[37, 39], lances=ORDAGO, declaraciones=QUIERE_3)
    assert r.fin == FinJuego(0, Terminacion.TANTOS) and [a.tantos for a in r.detalle] == [3]


def test_reglamento_v_9_partner_with_juego_si_makes_it_valid() -> None:
    # V.9: "Si un jugador canta pares sí o juego sí y su compañero, postre del lance, acepta un
    # órdago a pares o juego con dos ases o treinta y tres, la jugada será válida."
    manos = [POSTRE[0], "12e 10c 4b 7c", POSTRE[2], POSTRE[3]]  # seat 1 sings 31
    r = hand(manos, "segovia", lances=ORDAGO, declaraciones={**QUIERE_3, "juego": [True, True, False, True]})
    assert r.fin == FinJuego(0, Terminacion.ORDAGO)  # seat 0 is mano with 31
    assert faltas(QUIERE_3, manos, "segovia", 0) == []


def test_not_postre_of_the_lance_no_penalty() -> None:
    # With seat 1 mano, seat 0 (31) speaks after seat 3: seat 3 is not «de postre».
    r = hand(POSTRE, "segovia", mano=1, lances=ORDAGO, declaraciones=QUIERE_3)
    assert r.fin == FinJuego(0, Terminacion.ORDAGO)
    assert faltas(QUIERE_3, POSTRE, "segovia", 1) == []


def test_basque_araudia_the_bet_at_juego_with_33_stands() -> None:
    # «33rekin jokoan egindako apustuari “eduki” erantzuten badiogu, apustua onartuko dugu, ...
    # edo atzeskuak bagara ere» (even if we are postre).
    r = hand(POSTRE, "euskadi", lances=ORDAGO, declaraciones=QUIERE_3)
    assert r.fin == FinJuego(0, Terminacion.ORDAGO)
    assert any(textos.EUS_33.texto in nota for nota in r.notas)


def test_the_penalty_as_a_declaration_check() -> None:
    [falta] = faltas(QUIERE_3, POSTRE, "cuellar", 0)
    assert (falta.asiento, falta.tipo, falta.articulo) == (
        3,
        "postre_33",
        f"{textos.REGLAMENTO}, Título V, arts. 7 y 8",
    )
    [c] = correcciones(QUIERE_3, POSTRE, "cuellar", 0, ORDAGO)
    assert (c.lance, c.ganador, c.negada, c.envites_validos, c.al_momento) == ("juego", 0, 3, False, True)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"declaraciones": QUIERE_3}, "no hay un órdago querido a juego"),
        ({"lances": ORDAGO, "declaraciones": {"ordago_querido": {"asiento": 4, "lance": "juego"}}}, "asiento"),
        ({"lances": ORDAGO, "declaraciones": {"ordago_querido": {"asiento": 3}}}, "ordago_querido"),
        ({"lances": ORDAGO, "declaraciones": {"ordago_querido": 3}}, "ordago_querido"),
    ],
)
def test_a_wrong_ordago_querido_is_a_clear_error(record: dict[str, Any], message: str) -> None:
    with pytest.raises(RegistroManoError, match=message) as info:
        hand(POSTRE, "segovia", **record)
    assert "\n" not in str(info.value)


# -- 3. the order stones are collected in ------------------------------------------------------

# Pareja 1 wins grande (seat 1, two kings) and chica (seat 3, 1 1 4 5); both parejas hold pares;
# nobody holds juego. 4 reyes.
ORDEN = ["7o 7c 6o 5e", "12o 12c 1o 4o", "6c 5o 4e 10o", "1c 1e 4c 5c"]
PARES_NO_QUERIDOS = {"pares": {"no_quiero": 1, "gana": 0}}


def test_basque_the_stones_for_ez_come_first() -> None:
    # «gogoan izan behar da jasotzen diren lehen harriak “Ez” esateagatik edo “Paso”
    # egiteagatik kobratzen direnak direla» and «... 40 harri biltzen dituen lehen bikoteak
    # irabaziko du»: at 39-38 the refused pares give pareja 0 the juego before the count.
    r = hand(ORDEN, "euskadi", marcador=[39, 38], lances=PARES_NO_QUERIDOS)
    assert r.fin == FinJuego(0, Terminacion.TANTOS)
    assert r.detalle[0].razon.startswith("Pares: utzia (deje)")
    # the quote is the profile's source (`mus arbitro --listar`), not a hand's reason
    assert textos.EUS_LEHEN_HARRIAK.texto in perfil("euskadi").fuente_de("deje").texto()
    assert all("«" not in a.razon for a in r.detalle)


def test_encyclopedia_deje_al_final_waits_for_the_count() -> None:
    # «Deje. Es la piedra que se lleva al final una pareja cuando los contrarios no aceptan un
    # envite inicial»: the grande and chica of pareja 1 come first.
    r = hand(ORDEN, {"base": "euskadi", "deje": "al_final"}, marcador=[39, 38], lances=PARES_NO_QUERIDOS)
    assert r.fin == FinJuego(1, Terminacion.TANTOS)
    deje = hand(ORDEN, {"base": "euskadi", "deje": "al_final"}, lances=PARES_NO_QUERIDOS)
    assert any(a.razon == "Pares: deje, envite no querido por pareja 1 (1)" for a in deje.detalle)
    assert all(textos.ENC_DEJE.texto not in a.razon for a in deje.detalle)


@pytest.mark.parametrize("marcador", [[0, 0], [39, 38], [38, 39], [20, 37]])
def test_collected_first_scores_as_sin_deje(marcador: list[int]) -> None:
    # Segovia «Se juega sin deje» and Título VI art. 1 «En cada lance se apuntará la negada»: the
    # refusals are taken at once too; only the words of the reason differ.
    basque = hand(ORDEN, "euskadi", marcador=marcador, lances=PARES_NO_QUERIDOS)
    sin_deje = hand(ORDEN, {"base": "euskadi", "deje": "no"}, marcador=marcador, lances=PARES_NO_QUERIDOS)
    assert (basque.por_lance, basque.marcador, basque.fin) == (sin_deje.por_lance, sin_deje.marcador, sin_deje.fin)


def test_each_profile_says_its_order() -> None:
    assert orden_de_cobro(perfil("euskadi")).startswith("primero las piedras por «Ez» y «Paso»")
    assert "salvo el deje" in orden_de_cobro(perfil({"deje": "al_final"}))
    assert orden_de_cobro(perfil("segovia")).startswith("los envites no queridos al momento")


# -- 4. the punto a falta de un tanto -------------------------------------------------------------

# No pares, no juego. Pareja 1 wins grande (seat 3, 12), chica (seat 1, 1 4 5 6) and punto
# (seat 3, 28).
PUNTO = ["1o 4o 5o 7o", "1c 4c 5c 6c", "11o 7e 6e 4e", "12o 11b 7b 1b"]


def test_reglamento_vi_1_only_the_punto_when_a_pareja_needs_one_tanto() -> None:
    # «En el envite a punto y a falta de un tanto, no se apuntará más que el tanto de negada y el
    # de punto cuando le corresponda.» Pareja 0 needs one tanto; pareja 1 wins the envite of 10.
    r = hand(PUNTO, "segovia", marcador=[39, 30], lances={"punto": {"quiero": 10}})
    assert r.por_lance["punto"] == [0, 1] and r.marcador == (39, 33) and r.fin is None
    assert r.detalle[-1].razon.endswith("a falta de un tanto el envite de 10 no se apunta")
    assert textos.REG_PUNTO_FALTA.texto not in r.detalle[-1].razon  # the rules page quotes it, not the hand
    # Without that rule the envite counts and pareja 1 takes the juego.
    assert hand(PUNTO, "general", marcador=[39, 30], lances={"punto": {"quiero": 10}}).fin == FinJuego(
        1, Terminacion.TANTOS
    )


def test_reglamento_vi_1_a_refused_envite_at_punto_is_one_tanto_de_negada() -> None:
    r = hand(PUNTO, "segovia", marcador=[30, 39], lances={"punto": {"no_quiero": 5, "gana": 0}})
    negada = r.detalle[0]
    assert (negada.pareja, negada.tantos, negada.lance) == (0, 1, "punto")
    assert "a falta de un tanto, sólo el tanto de negada para pareja 0" in negada.razon
    assert textos.REG_PUNTO_FALTA.texto not in negada.razon


def test_a_falta_de_un_tanto_is_judged_when_the_punto_is_bet() -> None:
    # A refused grande (2, taken at once) leaves pareja 0 one tanto short when the punto is bet.
    lances = {"grande": {"no_quiero": 2, "gana": 0}, "punto": {"quiero": 10}}
    assert hand(PUNTO, "segovia", marcador=[37, 20], lances=lances).por_lance["punto"] == [0, 1]
    # Two tantos short: the envite counts.
    assert hand(PUNTO, "segovia", marcador=[36, 20], lances=lances).por_lance["punto"] == [0, 11]
