"""The Swiss system and elimination by ceros (torneo.emparejar): every round valid for 4 to 128
parejas with random results, no pair twice while the rounds allow it, rests as the rules say."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torneo.emparejar import Emparejamiento, buchholz, campeon_ceros, ronda_ceros, ronda_suiza


def _valida(ronda: Emparejamiento, esperadas: set[int]) -> None:
    """Every pareja of the round exactly once, in a pair or resting."""
    vistas = [p for par in ronda.pares for p in par] + ([ronda.descansa] if ronda.descansa is not None else [])
    assert len(vistas) == len(set(vistas)), "a pareja twice in one round"
    assert set(vistas) == esperadas
    assert (ronda.descansa is not None) == (len(esperadas) % 2 == 1)


def _sin_repetir_posible(parejas: list[int], jugados: set[frozenset[int]]) -> bool:
    """Dirac: each pareja has not met at least half of the others, so a pairing of new pairs exists."""
    n = len(parejas)
    return all(sum(frozenset((a, b)) not in jugados for b in parejas if b != a) >= n / 2 for a in parejas)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 128), rondas=st.integers(1, 9), semilla=st.integers(0, 2**16))
def test_suizo_cada_ronda_valida(n: int, rondas: int, semilla: int) -> None:
    rng = random.Random(semilla)
    ids = list(range(100, 100 + n))
    victorias = dict.fromkeys(ids, 0)
    jugados: set[frozenset[int]] = set()
    descansaron: list[int] = []
    for r in range(rondas):
        orden = sorted(ids, key=lambda p: -victorias[p])
        grupos = len({victorias[p] for p in ids})
        posible = _sin_repetir_posible(ids, jugados)
        ronda = ronda_suiza(orden, victorias, [(a, b) for a, b in map(sorted, jugados)], descansaron, semilla=r)
        _valida(ronda, set(ids))
        nuevos = {frozenset(par) for par in ronda.pares}
        if posible:
            assert not nuevos & jugados, "a pair met twice though a pairing of new pairs existed"
        if ronda.descansa is not None:
            if len(descansaron) < n:
                assert ronda.descansa not in descansaron, "a second rest while another could rest"
            descansaron.append(ronda.descansa)
            victorias[ronda.descansa] += 1  # a rest counts as a win
        # parejas meet their own score group: one floats down out of each odd group
        if r < 2:  # later, a group whose parejas have met may send more than one down
            cruzados = sum(victorias[a] != victorias[b] for a, b in ronda.pares)
            assert cruzados <= grupos - 1
        jugados |= nuevos
        for a, b in ronda.pares:
            victorias[rng.choice((a, b))] += 1


def test_suizo_empareja_por_victorias_y_descansa_el_ultimo() -> None:
    ids = [1, 2, 3, 4, 5, 6, 7]
    victorias = {1: 2, 2: 2, 3: 1, 4: 1, 5: 1, 6: 0, 7: 0}
    ronda = ronda_suiza(ids, victorias, jugados=[(1, 3), (2, 4)], descansaron=[7], semilla=3)
    assert ronda.descansa == 6  # the lowest that has not rested
    assert (1, 2) in ronda.pares
    assert sum(victorias[a] != victorias[b] for a, b in ronda.pares) == 1  # 3, 4, 5: one floats to 7


def test_suizo_reproducible_con_la_semilla() -> None:
    ids = list(range(1, 21))
    v = dict.fromkeys(ids, 0)
    assert ronda_suiza(ids, v, [], [], semilla=7) == ronda_suiza(ids, v, [], [], semilla=7)
    assert ronda_suiza(ids, v, [], [], semilla=7) != ronda_suiza(ids, v, [], [], semilla=8)


def test_suizo_se_repite_solo_cuando_no_queda_otra() -> None:
    # four parejas after three rounds have all met: the fourth round must repeat, and is still valid
    ids = [1, 2, 3, 4]
    jugados = [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)]
    ronda = ronda_suiza(ids, dict.fromkeys(ids, 1), jugados, [], semilla=0)
    _valida(ronda, set(ids))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 128), limite=st.integers(1, 3), semilla=st.integers(0, 2**16))
def test_ceros_hasta_el_campeon(n: int, limite: int, semilla: int) -> None:
    rng = random.Random(semilla)
    ids = list(range(1, n + 1))
    ceros = dict.fromkeys(ids, 0)
    jugados: set[frozenset[int]] = set()
    descansos: Counter[int] = Counter()
    rondas = 0
    while campeon_ceros(ids, ceros, limite) is None:
        rondas += 1
        assert rondas <= limite * n, "the elimination does not end"
        vivas = [p for p in ids if ceros[p] < limite]
        posible = _sin_repetir_posible(vivas, jugados)
        ronda = ronda_ceros(
            ids, ceros, limite, [(a, b) for a, b in map(sorted, jugados)], list(descansos.elements()), semilla=rondas
        )
        _valida(ronda, set(vivas))
        nuevos = {frozenset(par) for par in ronda.pares}
        if posible:
            assert not nuevos & jugados, "a pair met twice though a pairing of new pairs existed"
        if ronda.descansa is not None:
            # nobody rests twice while another can: a second rest only once every one left has rested
            if descansos[ronda.descansa]:
                assert all(descansos[p] for p in vivas)
            descansos[ronda.descansa] += 1  # a rest is neither a win nor a cero
        por_ceros = Counter(ceros[p] for p in vivas)
        cruzados = sum(ceros[a] != ceros[b] for a, b in ronda.pares)
        if rondas <= 2:  # later, a group whose parejas have met may send more than one on
            assert cruzados <= sum(1 for c in por_ceros.values() if c % 2)
        jugados |= nuevos
        for a, b in ronda.pares:
            ceros[rng.choice((a, b))] += 1  # the loser's cero
    campeon = campeon_ceros(ids, ceros, limite)
    assert campeon is not None and ceros[campeon] < limite
    assert sum(ceros[p] >= limite for p in ids) == n - 1


def test_ceros_sin_ronda_con_una_pareja() -> None:
    assert ronda_ceros([1, 2], {1: 2, 2: 1}, 2, [], []) == Emparejamiento(())
    assert campeon_ceros([1, 2], {1: 2, 2: 1}, 2) == 2


def test_ceros_empareja_a_los_de_igual_cuenta() -> None:
    ids = list(range(1, 9))
    ceros = {1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 1, 7: 1, 8: 1}
    ronda = ronda_ceros(ids, ceros, 2, [], [], semilla=5)
    assert all(ceros[a] == ceros[b] for a, b in ronda.pares)


def test_buchholz_suma_las_victorias_de_los_rivales() -> None:
    assert buchholz({1: 3, 2: 1, 3: 2}, {1: [2, 3], 2: [1], 3: [1]}) == {1: 3, 2: 3, 3: 3}


def test_una_pareja_repetida_se_rechaza() -> None:
    with pytest.raises(ValueError):
        ronda_suiza([1, 1, 2, 3], {}, [], [])
