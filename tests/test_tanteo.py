"""The tanteo of one hand, with worked examples derived by hand from the rules texts.

Texts: Reglamento Campeonatos de Mus (Segovia), Título VI "Cómo tantearse"; Ludoteka, «Reglas del
Mus» ("Puntuación"); Enciclopedia, artículo «Mus» (§4.6 envites, §4.7 "Tantos por cada jugada",
§3.8 "Tantearse").
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from scoring.outcomes import FinJuego, Terminacion
from scoring.rules import cargar_perfil
from scoring.tanteo import RegistroMano, RegistroManoError, ResultadoTanteo, tantear

# Hands C (general profile, 8 reyes), worked out by hand:
#   seat 0 "12o 12c 11o 11c": duples de reyes y caballos (3), 40 (juego, 2); grande 12 12 11 11
#   seat 1 "7o 7c 7e 1o":     medias de sietes (2), 22 (no juego); chica 1 7 7 7
#   seat 2 "4o 4c 5o 6o":     pareja de cuatros (1), 19 (no juego); chica 4 4 5 6
#   seat 3 "10o 10c 6c 5c":   pareja de sotas (1), 31 (juego, 3)
# Grande: seat 0 (pareja 0). Chica: seat 1 (pareja 1), its ace beats every other lowest card.
# Pares: both parejas hold pares, seat 0's duples win. Juego: both hold juego (40 vs 31), 31 wins.
C = ["12o 12c 11o 11c", "7o 7c 7e 1o", "4o 4c 5o 6o", "10o 10c 6c 5c"]
# Hands A: nobody has pares nor juego, so punto is played.
#   sums 16, 17, 18, 25; grande: seat 3 (10 6 5 4); chica: seat 0 (1 4 5 6); punto: seat 3.
A = ["1o 4o 5o 6o", "1c 4c 5c 7c", "1e 4e 6e 7e", "10o 4b 5b 6b"]
# Hands D: like A, but seat 1 holds a pareja de sietes (19): only pareja 1 has pares.
D = ["1o 4o 5o 6o", "1c 4c 7b 7c", "1e 4e 6e 7e", "10o 4b 5b 6b"]
# Hands E: only seat 0 has juego (31, pareja de reyes): pareja 0 alone holds pares and juego.
#   grande: seat 0; chica: seat 3 (1 4 5 6 beats 1 11 12 12).
E = ["12o 12c 11o 1o", "4o 5o 6o 7o", "4c 5c 6c 7c", "4e 5e 6e 1c"]
NAMES = ["Ana", "Luis", "Eva", "Iker"]


def tanteo(manos: list[str], **record: Any) -> ResultadoTanteo:
    return tantear({"manos": manos, **record})


def totals(result: ResultadoTanteo) -> dict[str, list[int]]:
    return {k: list(v) for k, v in result.por_lance.items()}


# -- en paso -----------------------------------------------------------------------------------------


def test_all_en_paso_with_pares_and_juego() -> None:
    # encyclopedia §4.7: grande/chica en paso 1; pares 3 (duples) + 1 (pareja) for pareja 0;
    # juego 3 for the 31 of seat 3.
    r = tanteo(C)
    assert totals(r) == {"grande": [1, 0], "chica": [0, 1], "pares": [4, 0], "juego": [0, 3]}
    assert r.marcador == (5, 4)
    assert r.fin is None


def test_all_en_paso_punto() -> None:
    # encyclopedia §4.4: nobody has juego, punto is played; "el punto, si se jugara, vale una piedra".
    r = tanteo(A)
    assert totals(r) == {"grande": [0, 1], "chica": [1, 0], "pares": [0, 0], "punto": [0, 1]}
    assert r.marcador == (1, 2)
    assert not [a for a in r.detalle if a.lance == "pares"]  # nobody with pares: not played


def test_marcador_before_is_added() -> None:
    r = tanteo(C, marcador=[10, 20])
    assert r.marcador == (15, 24)


@pytest.mark.parametrize("mano", range(4))
def test_no_ties_means_the_mano_does_not_matter(mano: int) -> None:
    # Hands C hold no equal jugadas in any lance, so every mano gives the same 5-4.
    assert tanteo(C, mano=mano).marcador == (5, 4)


@pytest.mark.parametrize(("mano", "winner"), [(0, 0), (1, 1), (2, 0), (3, 0)])
def test_juego_tie_goes_to_the_mano_in_the_tanteo(mano: int, winner: int) -> None:
    # Seats 0 and 1 both hold 31 (12 11 10 1 / 12 11 10 1); seats 2, 3 no juego, no pares,
    # and seat 2's chica / grande do not matter here. Ludoteka: "vence el primer jugador según
    # el orden de la mano". 31 is worth 3 (encyclopedia §4.7).
    manos = ["12o 11o 10o 1o", "12c 11c 10c 1c", "4o 5o 6o 7o", "4c 5c 6c 7e"]
    r = tanteo(manos, mano=mano)
    expected = [0, 0]
    expected[winner] = 3
    assert r.por_lance["juego"] == expected


# -- accepted envites ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lances", "expected"),
    [
        # Ludoteka: "Si se aceptó una apuesta, la pareja ganadora suma el valor de la apuesta"
        # (instead of the 1 en paso).
        ({"grande": {"quiero": 3}}, {"grande": [3, 0], "chica": [0, 1], "pares": [4, 0], "juego": [0, 3]}),
        ({"chica": {"quiero": 2}}, {"grande": [1, 0], "chica": [0, 2], "pares": [4, 0], "juego": [0, 3]}),
        # pares: the envite plus each player's pares of the winning pareja (encyclopedia §3.8).
        ({"pares": {"quiero": 5}}, {"grande": [1, 0], "chica": [0, 1], "pares": [9, 0], "juego": [0, 3]}),
        # juego: the envite plus the 31 (3) of seat 3; seat 1 has no juego, no bonus.
        ({"juego": {"quiero": 10}}, {"grande": [1, 0], "chica": [0, 1], "pares": [4, 0], "juego": [0, 13]}),
    ],
)
def test_accepted_envite(lances: dict, expected: dict) -> None:
    assert totals(tanteo(C, lances=lances)) == expected


def test_accepted_envite_at_punto_adds_the_punto() -> None:
    # encyclopedia §4.7: punto 1 on top of any envite: 4 + 1 for seat 3's 25.
    r = tanteo(A, lances={"punto": {"quiero": 4}})
    assert r.por_lance["punto"] == [0, 5]


def test_fourth_lance_may_be_written_juego_or_punto() -> None:
    # the fourth lance may be written juego or punto: the cards decide (docs/scoring.md).
    as_juego = tanteo(A, lances={"juego": {"quiero": 4}})
    as_punto = tanteo(A, lances={"punto": {"quiero": 4}})
    assert totals(as_juego) == totals(as_punto)
    assert "juego" not in as_juego.por_lance
    both_c = tanteo(C, lances={"punto": {"quiero": 10}})
    assert both_c.por_lance["juego"] == [0, 13]


# -- refused envites -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lances", "expected"),
    [
        # Ludoteka: refused opening bet: 1 at once; "es irrelevante quién tiene la mejor jugada".
        (
            {"grande": {"no_quiero": 1, "gana": 1}},
            {"grande": [0, 1], "chica": [0, 1], "pares": [4, 0], "juego": [0, 3]},
        ),
        # refused raise: what stood accepted before (here 4).
        ({"chica": {"no_quiero": 4, "gana": 0}}, {"grande": [1, 0], "chica": [4, 0], "pares": [4, 0], "juego": [0, 3]}),
        # pares refused by pareja 0: it takes no bonus; pareja 1 (that bet) takes its own:
        # 1 + medias (2) + pareja de sotas (1). Encyclopedia §4.7 "no podrá apuntarse los tantos".
        ({"pares": {"no_quiero": 1, "gana": 1}}, {"grande": [1, 0], "chica": [0, 1], "pares": [0, 4], "juego": [0, 3]}),
        ({"pares": {"no_quiero": 3, "gana": 0}}, {"grande": [1, 0], "chica": [0, 1], "pares": [7, 0], "juego": [0, 3]}),
        # juego refused by pareja 1: pareja 0 takes 1 and its own 40 (2); the 31 of seat 3 is lost.
        ({"juego": {"no_quiero": 1, "gana": 0}}, {"grande": [1, 0], "chica": [0, 1], "pares": [4, 0], "juego": [3, 0]}),
        ({"juego": {"no_quiero": 2, "gana": 1}}, {"grande": [1, 0], "chica": [0, 1], "pares": [4, 0], "juego": [0, 5]}),
    ],
)
def test_refused_envite(lances: dict, expected: dict) -> None:
    assert totals(tanteo(C, lances=lances)) == expected


def test_refused_envite_at_punto_gives_the_punto_to_who_bet() -> None:
    # encyclopedia §4.7: the refusing pareja cannot take the jugada "lo mismo ocurrirá con ... el
    # punto": pareja 0 bet with 16 and pareja 1 (25) refused: 1 + 1 for pareja 0.
    r = tanteo(A, lances={"punto": {"no_quiero": 1, "gana": 0}})
    assert r.por_lance["punto"] == [2, 0]


def test_refused_bets_are_scored_in_lance_order_during_the_betting() -> None:
    # Ludoteka "se contabiliza de manera inmediata"; Reglamento, Título VI art. 1. At 38-38 pareja 1's
    # refused grande (2) reaches 40 before pareja 0's refused pares (2) is even counted.
    r = tanteo(
        C, marcador=[38, 38], lances={"grande": {"no_quiero": 2, "gana": 1}, "pares": {"no_quiero": 2, "gana": 0}}
    )
    assert r.fin == FinJuego(1, Terminacion.TANTOS)
    assert r.marcador == (38, 40)
    assert totals(r) == {"grande": [0, 2], "chica": [0, 0], "pares": [0, 0], "juego": [0, 0]}


def test_refused_bet_reaching_the_target_beats_the_count_of_earlier_lances() -> None:
    # At 39-39 grande en paso would give pareja 0 its 40th tanto in the count, but pareja 1's
    # refused juego bet is scored at once, during the betting (Ludoteka, Reglamento, Título VI art. 1).
    r = tanteo(C, marcador=[39, 39], lances={"juego": {"no_quiero": 1, "gana": 1}})
    assert r.fin == FinJuego(1, Terminacion.TANTOS)
    assert r.marcador == (39, 40)
    assert totals(r) == {"grande": [0, 0], "chica": [0, 0], "pares": [0, 0], "juego": [0, 1]}


# -- the count stops at the target ---------------------------------------------------------------


def test_count_stops_when_a_pareja_reaches_the_target() -> None:
    # Ludoteka: "En cuanto una de las parejas alcanza los 30 ó 40 tantos ... el resultado de los
    # lances posteriores no se tiene en cuenta". 0-39: grande 1 to pareja 0, chica 1 to pareja 1 = 40.
    r = tanteo(C, marcador=[0, 39])
    assert r.fin == FinJuego(1, Terminacion.TANTOS)
    assert r.marcador == (1, 40)
    assert totals(r) == {"grande": [1, 0], "chica": [0, 1], "pares": [0, 0], "juego": [0, 0]}


def test_count_stops_inside_pares() -> None:
    # 38-0: grande 39, chica (pareja 1), then the duples (3) take pareja 0 past 40 at pares;
    # seat 3's 31 at juego is never counted.
    r = tanteo(C, marcador=[38, 0])
    assert r.fin == FinJuego(0, Terminacion.TANTOS)
    assert r.marcador[0] >= 40 and r.marcador[1] == 1
    assert r.por_lance["juego"] == [0, 0]


@pytest.mark.parametrize(("tantos", "fin"), [(30, True), (40, False)])
def test_target_30_or_40_tantos(tantos: int, fin: bool) -> None:
    # Ludoteka: "juegos ... a 30 ó 40 tantos". From 26-0, pareja 0 makes 1 + 4 = 5 -> 31.
    r = tanteo(C, marcador=[26, 0], reglas={"base": "general", "tantos": tantos})
    assert (r.fin is not None) is fin
    if fin:
        assert r.fin == FinJuego(0, Terminacion.TANTOS)
        assert r.por_lance["juego"] == [0, 0]
    else:
        assert r.marcador == (31, 4)


def test_cuellar_plays_to_30() -> None:
    r = tanteo(C, marcador=[26, 0], reglas="cuellar")
    assert r.fin == FinJuego(0, Terminacion.TANTOS)


# -- órdago ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lance", "ganador"),
    [("grande", 0), ("chica", 1), ("pares", 0), ("juego", 1)],
)
def test_accepted_ordago_ends_the_juego_for_the_lance_winner(lance: str, ganador: int) -> None:
    # encyclopedia §4.6: "la pareja que gana el órdago habrá conseguido ese juego".
    r = tanteo(C, marcador=[12, 30], lances={lance: {"ordago": "quiero"}})
    assert r.fin == FinJuego(ganador, Terminacion.ORDAGO)
    assert r.marcador[ganador] >= 40
    assert r.marcador[1 - ganador] == [12, 30][1 - ganador]
    # Nothing else of the hand is counted (Ludoteka: "ignorando ... las apuestas realizadas").
    for other, points in r.por_lance.items():
        if other != lance:
            assert points == [0, 0], other


def test_accepted_ordago_ignores_accepted_envites_of_the_same_hand() -> None:
    r = tanteo(C, lances={"grande": {"quiero": 5}, "pares": {"ordago": "quiero"}})
    assert r.fin == FinJuego(0, Terminacion.ORDAGO)
    assert r.por_lance["grande"] == [0, 0]


def test_refused_bet_before_the_ordago_is_still_scored() -> None:
    r = tanteo(C, marcador=[0, 10], lances={"grande": {"no_quiero": 1, "gana": 1}, "juego": {"ordago": "quiero"}})
    assert r.fin == FinJuego(1, Terminacion.ORDAGO)
    assert r.por_lance["grande"] == [0, 1]


def test_the_hand_record_example_of_the_docs() -> None:
    # the hand record of docs/scoring.md, general profile, worked by hand: chica refused (1 to pareja 1, at once);
    # juego: seat 0's 31 beats seat 1's 37 (three kings and a seven), órdago won by pareja 0.
    r = tantear(
        {
            "reglas": "general",
            "mano": 0,
            "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
            "marcador": [0, 0],
            "lances": {
                "grande": "paso",
                "chica": {"no_quiero": 1, "gana": 1},
                "pares": {"quiero": 5},
                "juego": {"ordago": "quiero"},
            },
        }
    )
    assert r.fin == FinJuego(0, Terminacion.ORDAGO)
    assert r.por_lance["chica"] == [0, 1]
    assert r.por_lance["pares"] == [0, 0] and r.por_lance["grande"] == [0, 0]
    assert r.marcador[1] == 1 and r.marcador[0] >= 40


def test_issue_example_with_4_reyes_cannot_bet_juego() -> None:
    # With 4 reyes seat 1 holds 3+3+3+7 = 16: only pareja 0 (seat 0's 31) has juego.
    with pytest.raises(RegistroManoError, match="juego"):
        tantear(
            {
                "reglas": {"base": "general", "reyes": 4},
                "manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"],
                "lances": {"juego": {"ordago": "quiero"}},
            }
        )


# -- only one pareja (or none) holds the jugada --------------------------------------------------


def test_only_one_pareja_with_pares_takes_its_bonus_without_betting() -> None:
    # Ludoteka: "Si los dos jugadores de alguna de las dos parejas no tienen jugada, no se abre el
    # turno de apuestas"; encyclopedia §4.7 "se apuntará los tantos la que tenga mejor los pares".
    r = tanteo(D)
    assert r.por_lance["pares"] == [0, 1]


def test_only_one_pareja_with_juego_takes_its_bonus_without_betting() -> None:
    r = tanteo(E)
    assert totals(r) == {"grande": [1, 0], "chica": [0, 1], "pares": [1, 0], "juego": [3, 0]}


@pytest.mark.parametrize("outcome", [{"quiero": 2}, {"no_quiero": 1, "gana": 0}, {"ordago": "quiero"}])
@pytest.mark.parametrize(
    ("manos", "lance"),
    # E "punto": seat 0 holds juego, so the fourth lance written "punto" is juego.
    [(D, "pares"), (E, "pares"), (E, "juego"), (A, "pares"), (E, "punto")],
)
def test_bet_on_a_lance_that_could_not_be_bet_is_an_error(manos: list[str], lance: str, outcome: dict) -> None:
    with pytest.raises(RegistroManoError) as info:
        tanteo(manos, lances={lance: outcome})
    message = str(info.value)
    assert "\n" not in message
    assert ("pares" if lance == "pares" else "juego") in message


# -- deje -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("deje", "ganador"), [("no", 1), ("al_final", 0)])
def test_deje_al_final_takes_the_refused_opening_piedra_in_the_count(deje: str, ganador: int) -> None:
    # encyclopedia, «Vocabulario»: "Deje. Es la piedra que se lleva al final una pareja cuando los
    # contrarios no aceptan un envite inicial ... sólo ... en los pares y en el juego".
    # At 39-39 without deje pareja 1's refused pares bet is scored at once and wins; with deje it
    # waits for the count, where pareja 0's grande en paso comes first.
    r = tanteo(
        C, marcador=[39, 39], reglas={"base": "general", "deje": deje}, lances={"pares": {"no_quiero": 1, "gana": 1}}
    )
    assert r.fin == FinJuego(ganador, Terminacion.TANTOS)


def test_deje_is_still_counted_for_the_betting_pareja() -> None:
    r = tanteo(C, reglas={"base": "general", "deje": "al_final"}, lances={"pares": {"no_quiero": 1, "gana": 1}})
    assert r.por_lance["pares"] == [0, 4]  # the deje (1) + medias (2) + pareja (1)


def test_deje_does_not_delay_a_refused_raise_or_grande() -> None:
    reglas = {"base": "general", "deje": "al_final"}
    raise_ = tanteo(C, marcador=[39, 38], reglas=reglas, lances={"pares": {"no_quiero": 2, "gana": 1}})
    assert raise_.fin == FinJuego(1, Terminacion.TANTOS)
    grande = tanteo(C, marcador=[38, 39], reglas=reglas, lances={"chica": {"no_quiero": 1, "gana": 1}})
    assert grande.fin == FinJuego(1, Terminacion.TANTOS)
    assert grande.por_lance["grande"] == [0, 0]


# -- 4 vs 8 reyes in a full tanteo -----------------------------------------------------------------


def test_ludoteka_4_issue_hands_en_paso() -> None:
    # 4 reyes (Ludoteka): seat 0 12 12 11 1 (pareja de reyes, 31); seat 1 3 3 3 7 (medias de
    # treses, 16); seat 2 4 5 6 7 (22); seat 3 1 2 1 4 (pareja de ases, 8).
    # Grande seat 0; chica seat 3 (1 1 2 4); pares: medias win, 2 + pareja de ases 1;
    # juego: only seat 0 (3).
    r = tanteo(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], reglas="ludoteka-4")
    assert totals(r) == {"grande": [1, 0], "chica": [0, 1], "pares": [0, 3], "juego": [3, 0]}


def test_ludoteka_8_issue_hands_en_paso() -> None:
    # 8 reyes: seat 1 is three kings and a seven (medias de reyes, 37); seat 3 is three aces and
    # a four (medias de ases, 7). Grande seat 1; chica seat 3; pares: 2 + 2 to pareja 1;
    # juego: seat 0's 31 beats 37: 3 to pareja 0.
    r = tanteo(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], reglas="ludoteka-8")
    assert totals(r) == {"grande": [0, 1], "chica": [0, 1], "pares": [0, 4], "juego": [3, 0]}


def test_31_real_in_the_tanteo() -> None:
    # Cuéllar (Normas generales de Segovia): seat 1, mano, holds a plain 31; seat 2 the 31 real
    # wins juego (3).
    manos = ["1o 4o 5o 6o", "12o 12c 11c 1c", "7o 7c 7e 11o", "4c 5c 6c 1e"]
    assert tanteo(manos, mano=1, reglas="cuellar").por_lance["juego"] == [3, 0]
    assert tanteo(manos, mano=1, reglas="segovia").por_lance["juego"] == [0, 3]


# -- reasons ---------------------------------------------------------------------------------------


def test_every_apunte_has_a_spanish_reason_naming_lance_jugada_and_player() -> None:
    r = tanteo(C, jugadores=NAMES, lances={"pares": {"quiero": 5}, "juego": {"no_quiero": 1, "gana": 0}})
    assert sum(a.tantos for a in r.detalle) == sum(map(sum, r.por_lance.values()))
    lance_names = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}
    for a in r.detalle:
        assert a.razon.startswith(lance_names[a.lance]), a
        assert any(name in a.razon for name in NAMES), a
        assert a.tantos > 0
    pares_reasons = " | ".join(a.razon for a in r.detalle if a.lance == "pares")
    assert "duples de reyes y caballos" in pares_reasons and "Ana" in pares_reasons
    assert "pareja de cuatros" in pares_reasons and "Eva" in pares_reasons
    juego_reasons = " | ".join(a.razon for a in r.detalle if a.lance == "juego")
    assert "40" in juego_reasons and "Ana" in juego_reasons


def test_reasons_without_names_use_seats() -> None:
    r = tanteo(C)
    assert all(a.razon.strip() for a in r.detalle)


def test_to_json_has_the_contract_keys() -> None:
    r = tanteo(C, jugadores=NAMES)
    out = json.loads(json.dumps(r.to_json()))
    assert {"por_lance", "marcador", "fin", "detalle"} <= set(out)
    assert out["marcador"] == [5, 4] and out["fin"] is None
    assert set(out["por_lance"]) == {"grande", "chica", "pares", "juego"}
    assert all({"pareja", "tantos", "lance", "razon"} <= set(d) for d in out["detalle"])


def test_text_output_shows_the_breakdown() -> None:
    text = tanteo(C, jugadores=NAMES).texto()
    assert "Ana" in text and "Marcador" in text and "Pares" in text


def test_registro_to_dict_keeps_a_custom_profile_named_like_a_builtin(tmp_path: Path) -> None:
    # A user's TOML profile named after their town: segovia.toml with 4 reyes (cargar_perfil names
    # the profile after the file). Written out and read back, the record must score the same.
    # to_dict must write the profile itself, not only "segovia" (read back, that has 8 reyes).
    path = tmp_path / "segovia.toml"
    path.write_text('base = "general"\nreyes = 4\n', encoding="utf-8")
    hands = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
    reg = dataclasses.replace(RegistroMano.from_dict({"manos": hands}), reglas=cargar_perfil(path))
    again = RegistroMano.from_dict(json.loads(json.dumps(reg.to_dict())))
    assert again.reglas.reyes == 4
    assert tantear(again).marcador == tantear(reg).marcador


def test_registro_mano_is_accepted_directly() -> None:
    reg = RegistroMano.from_dict({"manos": C, "mano": 2})
    assert tantear(reg).marcador == tanteo(C, mano=2).marcador


# -- bad records ------------------------------------------------------------------------------------

BAD_RECORDS = {
    "not-an-object": ["12o 12c 11o 11c"],
    "unknown-key": {"manos": C, "color": "rojo"},
    "unknown-profile": {"manos": C, "reglas": "murcia"},
    "bad-override": {"manos": C, "reglas": {"base": "general", "reyes": 6}},
    "no-manos": {},
    "three-manos": {"manos": C[:3]},
    "manos-string": {"manos": "12o 12c 11o 11c"},
    "bad-card": {"manos": ["12o 12c 11o 8c", *C[1:]]},
    "bad-suit": {"manos": ["12o 12c 11o 11x", *C[1:]]},
    "three-cards": {"manos": ["12o 12c 11o", *C[1:]]},
    "dup-in-hand": {"manos": ["12o 12o 11o 11c", *C[1:]]},
    "dup-across-hands": {"manos": [C[0], "7o 7c 7e 12o", *C[2:]]},
    "mano-4": {"manos": C, "mano": 4},
    "mano-str": {"manos": C, "mano": "0"},
    "mano-bool": {"manos": C, "mano": True},
    "mano-float": {"manos": C, "mano": 1.0},
    "marcador-negative": {"manos": C, "marcador": [-1, 0]},
    "marcador-three": {"manos": C, "marcador": [0, 0, 0]},
    "marcador-over": {"manos": C, "marcador": [40, 0]},
    "lances-list": {"manos": C, "lances": ["paso"]},
    "unknown-lance": {"manos": C, "lances": {"mus": "paso"}},
    "juego-and-punto": {"manos": C, "lances": {"juego": "paso", "punto": "paso"}},
    "outcome-str": {"manos": C, "lances": {"grande": "envido"}},
    "quiero-1": {"manos": C, "lances": {"grande": {"quiero": 1}}},
    "quiero-str": {"manos": C, "lances": {"grande": {"quiero": "2"}}},
    "quiero-extra": {"manos": C, "lances": {"grande": {"quiero": 2, "gana": 0}}},
    "no-quiero-0": {"manos": C, "lances": {"grande": {"no_quiero": 0, "gana": 0}}},
    "no-gana": {"manos": C, "lances": {"grande": {"no_quiero": 1}}},
    "gana-2": {"manos": C, "lances": {"grande": {"no_quiero": 1, "gana": 2}}},
    "gana-float": {"manos": C, "lances": {"grande": {"no_quiero": 1, "gana": 1.0}}},
    "ordago-no": {"manos": C, "lances": {"grande": {"ordago": "no_quiero"}}},
    "bet-after-ordago": {"manos": C, "lances": {"grande": {"ordago": "quiero"}, "chica": {"quiero": 2}}},
    "refused-after-ordago": {
        "manos": C,
        "lances": {"chica": {"ordago": "quiero"}, "juego": {"no_quiero": 1, "gana": 0}},
    },
    "ordago-after-ordago": {"manos": C, "lances": {"grande": {"ordago": "quiero"}, "pares": {"ordago": "quiero"}}},
    "jugadores-three": {"manos": C, "jugadores": ["Ana", "Luis", "Eva"]},
    "jugadores-blank": {"manos": C, "jugadores": ["Ana", "", "Eva", "Iker"]},
}


@pytest.mark.parametrize("record", [pytest.param(v, id=k) for k, v in BAD_RECORDS.items()])
def test_registro_invalido(record: Any) -> None:
    with pytest.raises(RegistroManoError) as info:
        tantear(record)
    message = str(info.value)
    assert message and "\n" not in message


@pytest.mark.parametrize(
    ("record", "named"),
    [
        ({"manos": ["12o 12c 11o 8c", *C[1:]]}, "8c"),
        ({"manos": [C[0], "7o 7c 7e 12o", *C[2:]]}, "12o"),
        ({"manos": C, "reglas": "murcia"}, "murcia"),
        ({"manos": C, "color": "rojo"}, "color"),
        ({"manos": C, "lances": {"mus": "paso"}}, "mus"),
        ({"manos": C, "lances": {"grande": {"ordago": "quiero"}, "chica": {"quiero": 2}}}, "órdago"),
    ],
)
def test_error_message_names_the_problem(record: dict, named: str) -> None:
    with pytest.raises(RegistroManoError, match=named):
        tantear(record)


def test_missing_lances_and_null_are_paso() -> None:
    assert tanteo(C, lances={"grande": None, "chica": "paso"}).marcador == tanteo(C).marcador


def test_ordago_opened_by_false_declarations_with_no_pares_at_all() -> None:
    # 4 reyes, nobody holds pares; seats 1 and 2 (one per pareja) said «pares sí», so the betting
    # opened (Ludoteka: each pareja declares before the lance) and an órdago was accepted. The cards
    # give the órdago no winner; Reglamento, Título VIII arts. 2-3 treat a false «sí». Whatever the
    # reading, the record must score or be refused with RegistroManoError, never crash.
    record = {
        "reglas": "ludoteka-4",
        "mano": 3,
        "manos": ["5e 3b 2b 7b", "5b 3o 7e 2c", "6c 1o 4c 5o", "1b 4o 2e 11e"],
        "lances": {"pares": {"ordago": "quiero"}},
        "declaraciones": {"pares": [False, True, True, False]},
    }
    try:
        result = tantear(record)
    except RegistroManoError:
        return
    assert result.fin is None or result.fin["por"] == "ordago"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"reglas": "segovia", "declaraciones": {"ensenadas": [{"asiento": 1.0, "lance": "pares"}]}}, "asiento 1.0"),
        ({"reglas": "segovia", "declaraciones": {"ensenadas": [{"asiento": 3.0, "lance": "pares"}]}}, "asiento 3.0"),
        ({"declaraciones": {"ensenadas": [{"asiento": 1, "lance": ["pares"]}]}}, "lance"),
        ({"declaraciones": {"juego": [None, 0.0, None, None]}}, "declaraciones.juego[1]"),
        ({"declaraciones": {"pares": [1, None, None, None]}}, "declaraciones.pares[0]"),
        ({"reglas": {"reyes": 8.0}}, "reyes"),
        ({"reglas": {"base": {"base": "general"}}}, "base debe ser el nombre"),
        ({"reglas": {"real": ["no"]}}, "real debe ser uno de"),
        ({"jugadores": ["\ud800", "B", "C", "D"]}, "jugadores"),
        ({"mano": 2.0}, "mano debe ser un asiento"),
    ],
)
def test_record_values_are_checked_with_their_types(change: dict[str, Any], says: str) -> None:
    # checked when the record is read, so a bad value never reaches the count
    with pytest.raises(RegistroManoError, match=says.replace("[", r"\[").replace(".", r"\.")):
        RegistroMano.from_dict({"manos": C, **change})


@pytest.mark.parametrize(
    "change",
    [
        {"mano": "9" * 100_000},
        {"reglas": "x" * 100_000},
        {"marcador": [0] * 100_000},
        {"lances": {"grande": {"quiero": "x" * 100_000}}},
        {"y" * 100_000: 1},
        {"declaraciones": {"pares": ["x" * 100_000, None, None, None]}},
    ],
)
def test_errors_quote_only_an_excerpt_of_the_record(change: dict[str, Any]) -> None:
    with pytest.raises(RegistroManoError) as info:
        RegistroMano.from_dict({"manos": C, **change})
    assert len(str(info.value)) < 250


# -- reasons in the player's language -------------------------------------------------------------

BASQUE_NAMES = ["Ana", "Iñaki", "Bea", "Josu"]
# Words of Spanish sentences: none may be in a Basque or English reason. The game's words
# (grande, pares, envite, órdago, paso, mano, medias, duples, reyes, tanto...) are not here.
SPANISH_WORDS = frozenset(
    {
        *("gana", "ganar", "para", "por", "querido", "quiero", "de", "del", "y", "en", "con", "el", "la", "que"),
        *("nada", "reglas", "marcador", "fin", "sólo", "solo", "más", "asiento", "apunta", "envidó", "quisieron"),
        *("los", "al", "sin", "también"),
    }
)
# No pares, no juego. Pareja 1 wins grande (seat 3), chica (seat 1) and punto (seat 3, 28).
PUNTO = ["1o 4o 5o 7o", "1c 4c 5c 6c", "11o 7e 6e 4e", "12o 11b 7b 1b"]
# Every kind of apunte, each from a hand that makes it: (manos, record, the kind it must make).
KINDS: list[tuple[list[str], dict[str, Any], str]] = [
    (C, {}, "paso"),  # grande and chica en paso, pares and juego jugadas
    (C, {"lances": {"grande": {"quiero": 5}}}, "querido"),
    (C, {"lances": {"chica": {"no_quiero": 2, "gana": 0}}}, "no_querido"),
    (C, {"lances": {"grande": {"ordago": "quiero"}}}, "ordago"),
    (C, {}, "jugada"),
    (C, {"reglas": "euskadi", "lances": {"pares": {"no_quiero": 1, "gana": 0}}}, "deje"),
    (
        C,
        {"reglas": {"base": "euskadi", "deje": "al_final"}, "lances": {"pares": {"no_quiero": 1, "gana": 1}}},
        "deje_al_final",
    ),
    (A, {"lances": {"punto": {"no_quiero": 1, "gana": 0}}}, "punto_no_querido"),
    (A, {"lances": {"punto": {"quiero": 3}}}, "punto_mas"),
    (
        PUNTO,
        {"reglas": "segovia", "marcador": [30, 39], "lances": {"punto": {"no_quiero": 5, "gana": 0}}},
        "punto_falta_negada",
    ),
    (PUNTO, {"reglas": "segovia", "marcador": [39, 30], "lances": {"punto": {"quiero": 10}}}, "punto_falta_querido"),
    (C, {"marcador": [38, 0]}, "fin_tantos"),
]


def spanish_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-záéíóúñü]+", text.lower())} & SPANISH_WORDS


@pytest.mark.parametrize(("manos", "record", "kind"), KINDS, ids=[k for _m, _r, k in KINDS])
@pytest.mark.parametrize("idioma", ["eu", "en"])
def test_every_kind_of_apunte_is_written_in_basque_and_english(
    manos: list[str], record: dict[str, Any], kind: str, idioma: str
) -> None:
    r = tanteo(manos, jugadores=BASQUE_NAMES, **record)
    kinds = {a.motivo.tipo.value for a in r.detalle if a.motivo} | ({"fin_" + r.fin.por.value} if r.fin else set())
    assert kind in kinds, kinds
    texts = [*r.razones(idioma), r.fin_texto(idioma), r.texto(idioma)]
    for text, spanish in zip(r.razones(idioma), r.razones(), strict=True):
        assert text != spanish  # written in the language, not the Spanish sentence again
    for text in texts:
        assert not spanish_words(text), (text, spanish_words(text))
        assert "«" not in text  # no quote of a rules text in a hand's reasons
    joined = " ".join(r.razones(idioma))
    assert "Iñaki" in joined or "Ana" in joined
    # the names of a pareja are joined in the language, as the pages name it
    pareja = {"eu": "Iñaki eta Josu", "en": "Iñaki and Josu"}[idioma]
    assert pareja in r.texto(idioma)


def test_the_spanish_reasons_are_those_of_the_hand_record() -> None:
    r = tanteo(C, jugadores=BASQUE_NAMES, lances={"chica": {"no_quiero": 2, "gana": 0}})
    assert r.razones("es") == [a.razon for a in r.detalle] == r.razones()
    assert r.razones()[0] == "Chica: envite no querido por Iñaki y Josu, 2 para Ana y Bea"
    assert r.razones("eu")[0] == "Txikia: Iñaki eta Josu bikoteak ez du enbidoa onartu; 2 Ana eta Bea bikotearentzat"
    assert r.razones("en")[0] == "Chica: envite refused by Iñaki and Josu, 2 to Ana and Bea"
    assert r.texto() == r.texto("es") and r.texto("fr") == r.texto()


@pytest.mark.parametrize(
    ("idioma", "pares", "juego"),
    [
        ("es", "Pares: duples de reyes y caballos de Ana (3)", "Juego: 31 de Josu (3)"),
        ("eu", "Pareak: errege eta zaldun dupleak, Ana (3)", "Jokoa: 31, Josu (3)"),
        ("en", "Pares: duples of reyes and caballos, Ana (3)", "Juego: 31, Josu (3)"),
    ],
)
def test_jugadas_keep_the_games_words(idioma: str, pares: str, juego: str) -> None:
    r = tanteo(C, jugadores=BASQUE_NAMES)
    assert pares in r.razones(idioma) and juego in r.razones(idioma)


def test_an_ordago_ends_the_juego_in_each_language() -> None:
    r = tanteo(C, jugadores=BASQUE_NAMES, lances={"grande": {"ordago": "quiero"}})
    assert r.fin_texto() == "Fin del juego: gana Ana y Bea (por órdago)"
    assert r.fin_texto("eu") == "Jokoaren amaiera: Ana eta Bea bikoteak irabazi du (hordagoz)"
    assert r.fin_texto("en") == "End of the juego: won by Ana and Bea, with an órdago"
    assert "órdago accepted" in r.razones("en")[0]


def test_a_correction_is_written_in_each_language() -> None:
    from scoring.razones import Motivo, TipoApunte, razon

    motivo = Motivo(TipoApunte.CORRECCION, pareja=1, envite=2, nota="pares sí sin pares (Título VIII, art. 1)")
    jugadas = tanteo(C).jugadas
    assert razon(motivo, "pares", 2, jugadas, BASQUE_NAMES) == "Pares: pares sí sin pares (Título VIII, art. 1) (2)"
    for idioma in ("eu", "en"):
        text = razon(motivo, "pares", 2, jugadas, BASQUE_NAMES, idioma)
        assert not spanish_words(text) and "Iñaki" in text, text


def test_the_notes_of_a_declaration_check_point_to_the_referee_in_basque_and_english() -> None:
    # the 33 de postre (euskadi: the bet stands): the referee's note is its Spanish, with the quote;
    # another language says where to read it
    r = tanteo(
        ["12o 11c 10e 1b", "4o 5c 6e 7b", "4c 5e 6c 7e", "12c 11e 6o 7o"],
        reglas="euskadi",
        jugadores=BASQUE_NAMES,
        lances={"juego": {"ordago": "quiero"}},
        declaraciones={"ordago_querido": {"asiento": 3, "lance": "juego"}},
    )
    assert r.notas and r.notas_en() == r.notas
    assert r.notas_en("en") == ["Juego: the referee's note on the declarations (mus arbitro --declaraciones)"]
    for idioma in ("eu", "en"):
        assert not spanish_words(r.texto(idioma)) and "«" not in r.texto(idioma), r.texto(idioma)
