"""Properties of the pairings for every size from 3 to 64 parejas (hypothesis): a league pairs
every two parejas once and nobody twice in a round; groups play their own round robins; the
knockout after them crosses the groups (no two of one group in its first round when the seeding
allows it), byes go to top seeds and count as wins, and the bracket ends with one champion."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torneo import formato as fm


def _sin_repetir(ronda: list[fm.Par]) -> bool:
    vistos = [x for par in ronda for x in par if x is not None]
    return len(vistos) == len(set(vistos))


@pytest.mark.parametrize("n", range(3, 65))
def test_a_league_pairs_every_two_once_and_nobody_twice_in_a_round(n: int):
    rondas = fm.round_robin(list(range(1, n + 1)))
    assert all(_sin_repetir(r) for r in rondas)
    pares = sorted(tuple(sorted(p)) for r in rondas for p in r if None not in p)
    assert pares == list(itertools.combinations(range(1, n + 1), 2))
    descansos = [x for r in rondas for p in r if None in p for x in p if x is not None]
    assert sorted(descansos) == (list(range(1, n + 1)) if n % 2 else [])


def _grupos_jugados(n: int, grupos: int, semilla: int) -> tuple[list[list[int]], list[list[int]]]:
    """The groups of n parejas and a random final standing of each (as the standings would give)."""
    repartidos = fm.repartir_grupos(list(range(1, n + 1)), grupos)
    rng = random.Random(semilla)
    return repartidos, [rng.sample(g, len(g)) for g in repartidos]


@settings(max_examples=300, deadline=None)
@given(n=st.integers(3, 64), data=st.data())
def test_groups_then_a_knockout_that_crosses_them(n: int, data: st.DataObject):
    grupos = data.draw(st.integers(1, n // 2), label="grupos")
    clasifican = data.draw(st.integers(1, min(4, n // grupos)), label="clasifican")
    repartidos, clasif = _grupos_jugados(n, grupos, data.draw(st.integers(0, 10**6), label="semilla"))
    assert max(map(len, repartidos)) - min(map(len, repartidos)) <= 1
    # each round of the group stage: every group's round of its own round robin, nobody twice
    por_grupo = [fm.round_robin(g) for g in repartidos]
    for k in range(max(map(len, por_grupo))):
        ronda = [p for r in por_grupo if k < len(r) for p in r[k]]
        assert _sin_repetir(ronda)
    primera = fm.cuadro_grupos(clasif, clasifican)
    clasificados = [pid for g in clasif for pid in g[:clasifican]]
    if len(clasificados) == 1:  # one group, one qualifier: the group's winner is the champion
        assert primera == []
        return
    assert sorted(x for p in primera for x in p if x is not None) == sorted(clasificados)
    assert all(p != (None, None) for p in primera)
    grupo_de = {pid: gi for gi, g in enumerate(clasif) for pid in g}
    choques = [p for p in primera if None not in p and grupo_de[p[0]] == grupo_de[p[1]]]
    if grupos >= 2 and all(len(g) >= clasifican for g in clasif):
        assert choques == [], (clasif, primera)  # every group sends as many: always avoidable
    _hasta_el_campeon(primera, random.Random(n))


def _hasta_el_campeon(primera: list[fm.Par], rng: random.Random) -> None:
    """Play the bracket with random winners: byes only in the first round, nobody twice in a
    round, one champion after log2(size) rounds."""
    ronda, rondas = primera, 1
    while True:
        assert _sin_repetir(ronda)
        ganadores = [a if b is None else b if a is None else rng.choice((a, b)) for a, b in ronda]
        if len(ganadores) == 1:
            break
        ronda = fm.siguiente_cuadro(ganadores)
        assert all(None not in p for p in ronda)
        rondas += 1
    assert 2**rondas == 2 * len(primera)


def _minimo_de_choques(clasif: list[list[int]], clasifican: int) -> int:
    """The fewest same-group matches any seeding by place can give (brute force, small cases)."""
    grupo_de = {pid: gi for gi, g in enumerate(clasif) for pid in g}
    puestos = [[g[k] for g in clasif if k < len(g)] for k in range(clasifican)]
    mejor = None
    for orden in itertools.product(*(itertools.permutations(p) for p in puestos)):
        semillas = [x for p in orden for x in p]
        n = sum(1 for a, b in fm.cuadro(semillas) if None not in (a, b) and grupo_de[a] == grupo_de[b])
        mejor = n if mejor is None else min(mejor, n)
    return mejor or 0


@settings(max_examples=150, deadline=None)
@given(n=st.integers(3, 12), data=st.data())
def test_the_knockout_has_as_few_same_group_matches_as_any_seeding_by_place(n: int, data: st.DataObject):
    grupos = data.draw(st.integers(1, n // 2), label="grupos")
    clasifican = data.draw(st.integers(1, min(4, n // grupos + 1)), label="clasifican")
    _rep, clasif = _grupos_jugados(n, grupos, data.draw(st.integers(0, 10**6), label="semilla"))
    if sum(min(len(g), clasifican) for g in clasif) > 8:
        return
    grupo_de = {pid: gi for gi, g in enumerate(clasif) for pid in g}
    primera = fm.cuadro_grupos(clasif, clasifican)
    choques = sum(1 for a, b in primera if None not in (a, b) and grupo_de[a] == grupo_de[b])
    assert choques == _minimo_de_choques(clasif, clasifican)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(3, 33).filter(lambda n: n % 2 == 1), semilla=st.integers(0, 10**6))
def test_a_bye_counts_as_a_win_in_the_standings(n: int, semilla: int):
    rng = random.Random(semilla)
    resultados = []
    for ronda in fm.round_robin(list(range(1, n + 1))):
        for a, b in ronda:
            if a is None or b is None:
                resultados.append(fm.Resultado(a or b, None, (0, 0), (0, 0), 0))
            else:
                g = rng.randrange(2)
                resultados.append(fm.Resultado(a, b, (1 - g, g), (40, 20) if g == 0 else (20, 40), g))
    filas = fm.clasificacion({i: i for i in range(1, n + 1)}, resultados)
    assert all(f.descansos == 1 for f in filas)
    assert sum(f.ganadas for f in filas) == n * (n - 1) // 2 + n  # every match won by one, every bye a win


def _jugables(ronda: list[fm.Par]) -> list[tuple[int, int]]:
    return [(a, b) for a, b in ronda if a is not None and b is not None]


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 64), st.data())
def test_a_league_with_late_parejas_still_pairs_every_two_once(n: int, data: st.DataObject):
    """Some parejas join after a few rounds of the round robin: the rounds paired from the
    pairs not yet played end when every two have met once, nobody twice in a round, no bye."""
    tarde = data.draw(st.integers(1, n - 2))
    a_tiempo = list(range(1, n - tarde + 1))
    jugadas = data.draw(st.integers(1, len(fm.round_robin(a_tiempo))))
    rondas = [_jugables(r) for r in fm.round_robin(a_tiempo)[:jugadas]]
    todos = list(range(1, n + 1))
    for _ in range(4 * n):  # bounded: a round that pairs nobody would loop for ever
        ronda = fm.ronda_pendiente(todos, [p for r in rondas for p in r])
        if not ronda:
            break
        assert _sin_repetir(ronda) and _jugables(ronda) == ronda
        rondas.append(_jugables(ronda))
    assert sorted(tuple(sorted(p)) for r in rondas for p in r) == list(itertools.combinations(todos, 2))
