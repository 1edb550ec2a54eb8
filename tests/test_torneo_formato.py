"""The tournament's shape without a server: round robins, groups, brackets, standings."""

from __future__ import annotations

import itertools

import pytest

from torneo import formato as fm


@pytest.mark.parametrize("n", [2, 3, 4, 7, 8, 16])
def test_round_robin_pairs_everyone_once_and_gives_each_one_bye_when_odd(n: int):
    rounds = fm.round_robin(list(range(1, n + 1)))
    pairs = [frozenset(p) for r in rounds for p in r if None not in p]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, itertools.combinations(range(1, n + 1), 2)))
    for r in rounds:  # nobody plays twice in a round
        seen = [x for p in r for x in p if x is not None]
        assert len(seen) == len(set(seen))
    byes = [x for r in rounds for p in r if None in p for x in p if x is not None]
    assert sorted(byes) == (list(range(1, n + 1)) if n % 2 else [])


def test_a_draw_is_reproducible_from_its_seed_and_seeding_is_kept_without_it():
    ids = list(range(1, 17))
    drawn = fm.orden(ids, fm.Formato(sorteo=True, semilla=7))
    assert drawn == fm.orden(ids, fm.Formato(sorteo=True, semilla=7)) != ids
    assert fm.orden(ids, fm.Formato()) == ids


def test_groups_are_serpentine_and_the_bracket_crosses_them():
    assert fm.repartir_grupos([1, 2, 3, 4, 5, 6, 7, 8], 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert fm.cuadro_grupos([[11, 12], [21, 22]], 2) == [(11, 22), (21, 12)]  # 1A-2B, 1B-2A


def test_four_and_eight_groups_get_the_standard_crossing():
    a, b, c, d = [[10 * g + 1, 10 * g + 2] for g in range(1, 5)]
    # 1A-2B, 1C-2D in the top half, 1B-2A, 1D-2C in the bottom: a group's 1st and 2nd meet only in the final
    assert fm.cuadro_grupos([a, b, c, d], 2) == [(11, 22), (31, 42), (21, 12), (41, 32)]
    ocho = [[10 * g + 1, 10 * g + 2] for g in range(1, 9)]
    pares = fm.cuadro_grupos(ocho, 2)
    assert pares[:4] == [(11, 22), (31, 42), (51, 62), (71, 82)]
    assert pares[4:] == [(21, 12), (41, 32), (61, 52), (81, 72)]


def test_three_groups_cross_with_byes_to_the_group_winners():
    pares = fm.cuadro_grupos([[11, 12], [21, 22], [31, 32]], 2)
    assert [p for p in pares if None in p] == [(11, None), (21, None)]
    assert all(a // 10 != b // 10 for a, b in pares if b is not None)


def test_byes_go_to_the_top_seeds():
    assert fm.cuadro([1, 2, 3, 4, 5, 6]) == [(1, None), (4, 5), (2, None), (3, 6)]
    assert fm.siguiente_cuadro([1, 4, 2, 3]) == [(1, 4), (2, 3)]


def test_match_length_is_folded_into_the_profile():
    from scoring.rules import perfil

    r = perfil(fm.reglas_de_partida("euskadi", fm.Formato(juegos=2)))
    assert (r.juegos_por_vaca, r.vacas_por_partida, r.tantos, r.deje) == (2, 1, 40, perfil("euskadi").deje)
    assert perfil(fm.reglas_de_partida("segovia", fm.Formato(vacas=3))).vacas_por_partida == 3
    with pytest.raises(fm.FormatoError, match="a juegos o a vacas"):
        fm.Formato.from_dict({"juegos": 2, "vacas": 1})
    with pytest.raises(fm.FormatoError, match="desempate desconocido"):
        fm.Formato.from_dict({"desempates": ["altura"]})


def test_standings_order_by_wins_then_the_tie_breaks_in_order():
    res = [
        fm.Resultado(1, 2, (2, 0), (60, 95), 0),
        fm.Resultado(3, 4, (2, 0), (80, 40), 0),
        fm.Resultado(1, 3, (1, 2), (70, 80), 1),
        fm.Resultado(2, 4, (2, 1), (60, 70), 0),
        fm.Resultado(5, None, (0, 0), (0, 0), 0),
    ]
    seeds = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
    by_juegos = [f.pareja for f in fm.clasificacion(seeds, res, ("diferencia_juegos",))]
    assert by_juegos == [3, 1, 5, 2, 4]
    by_tantos = [f.pareja for f in fm.clasificacion(seeds, res, ("tantos_favor",))]
    assert by_tantos == [3, 2, 1, 5, 4]  # 2 scored more tantos than 1 but lost the juegos
