"""The pairings of the formats that follow the results round by round, pure and without a
database: the Swiss system (parejas with the same wins meet) and elimination by ceros (every
pareja still in plays; a pareja is out at its ``limite``-th lost match).

Both pair with a maximum-weight matching (networkx's, Edmonds' blossom algorithm) over every
pair, where each pair's cost says what the rules want avoided, in this order: meeting again,
meeting a pareja of another score, and last a draw among equals (reproducible with the seed);
a pareja rests a second time only once every other has rested. A pairing that breaks a rule is
chosen only where no pairing keeps it.

    >>> r = ronda_suiza([1, 2, 3, 4, 5], victorias={1: 1, 2: 1, 3: 0, 4: 0, 5: 0},
    ...                 jugados=[(1, 3), (2, 4)], descansaron=[5], semilla=1)
    >>> r.descansa, len(r.pares)
    (4, 2)
    >>> ronda_ceros([1, 2, 3], ceros={1: 0, 2: 1, 3: 2}, limite=2, jugados=[], descansaron=[])
    Emparejamiento(pares=((1, 2),), descansa=None)
    >>> campeon_ceros([1, 2, 3], ceros={1: 2, 2: 1, 3: 2}, limite=2)
    2
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import networkx as nx

# the cost of each broken rule, each larger than any sum of the ones after it can be
_OTRA_VEZ: Final = 10**15  # a pair that has met already
_DISTANCIA: Final = 10**6  # per square of the difference in score
_SORTEO: Final = 1000  # the draw among equals: 0 .. _SORTEO - 1
_DESCANSO: Final = -1  # the rest's node in the matching graph


@dataclass(frozen=True)
class Emparejamiento:
    """One round's pairs (each a tuple of two pareja ids) and the pareja that rests, if any."""

    pares: tuple[tuple[int, int], ...]
    descansa: int | None = None


def ronda_suiza(
    parejas: Sequence[int],
    victorias: Mapping[int, int],
    jugados: Iterable[tuple[int, int]],
    descansaron: Collection[int],
    semilla: int | None = None,
) -> Emparejamiento:
    """The next Swiss round: parejas with the same wins meet (one floats down where a group is
    odd), never a pair twice while a pairing without one exists; with an odd count the lowest
    pareja that has not rested yet rests (a rest counts as a win, given by the caller).

    ``parejas``: in their order of the standings (first = best); ``victorias``: wins so far.
    """
    puesto = {p: i for i, p in enumerate(parejas)}
    n = len(parejas)

    def descanso(p: int) -> int:
        # the lowest in the standings rests: the first placed costs the most
        return victorias.get(p, 0) ** 2 * _DISTANCIA + (n - puesto[p]) * (_SORTEO // max(n, 1) + 1)

    return _emparejar(parejas, victorias, jugados, descansaron, semilla, descanso, mayor_primero=True)


def ronda_ceros(
    parejas: Sequence[int],
    ceros: Mapping[int, int],
    limite: int,
    jugados: Iterable[tuple[int, int]],
    descansaron: Collection[int],
    semilla: int | None = None,
) -> Emparejamiento:
    """The next round of an elimination by ceros: every pareja with fewer than ``limite`` ceros
    plays, drawn among those with the same count of ceros where it can, avoiding a pair that has
    met while another pairing exists; with an odd count one rests (neither a win nor a cero),
    drawn among those that have not rested yet. No round (``Emparejamiento(())``) once one pareja is left.
    """
    vivas = [p for p in parejas if ceros.get(p, 0) < limite]
    if len(vivas) < 2:
        return Emparejamiento(())
    rng = random.Random(semilla)
    sorteo = {p: rng.randrange(_SORTEO) for p in vivas}
    return _emparejar(vivas, ceros, jugados, descansaron, rng.randrange(2**32), sorteo.__getitem__, mayor_primero=False)


def campeon_ceros(parejas: Iterable[int], ceros: Mapping[int, int], limite: int) -> int | None:
    """The last pareja with fewer than ``limite`` ceros, once it is the only one; else None."""
    vivas = [p for p in parejas if ceros.get(p, 0) < limite]
    return vivas[0] if len(vivas) == 1 else None


def buchholz(victorias: Mapping[int, int], rivales: Mapping[int, Iterable[int]]) -> dict[int, int]:
    """Each pareja's Buchholz: the sum of its opponents' wins (a rest adds nothing).

    >>> buchholz({1: 2, 2: 1, 3: 0}, {1: [2, 3], 2: [1], 3: [1]})
    {1: 1, 2: 2, 3: 2}
    """
    return {p: sum(victorias.get(r, 0) for r in rivales.get(p, ())) for p in victorias}


def _emparejar(
    parejas: Sequence[int],
    puntos: Mapping[int, int],
    jugados: Iterable[tuple[int, int]],
    descansaron: Collection[int],
    semilla: int | None,
    coste_descanso: Callable[[int], int],
    mayor_primero: bool,
) -> Emparejamiento:
    if len(set(parejas)) != len(parejas):
        raise ValueError("una pareja aparece dos veces")
    if len(parejas) < 2:
        return Emparejamiento((), parejas[0] if parejas else None)
    vistos = {frozenset(par) for par in jugados}
    ronda = _por_grupos(parejas, puntos, vistos, descansaron, semilla, coste_descanso, mayor_primero)
    if ronda is None:
        # the score groups left a pareja with no one it may meet: one matching over every pair
        g = _grafo(parejas, puntos, vistos, descansaron, semilla, coste_descanso)
        ronda = _ronda(parejas, nx.max_weight_matching(g, maxcardinality=True))
    return ronda


def _por_grupos(
    parejas: Sequence[int],
    puntos: Mapping[int, int],
    vistos: Collection[frozenset[int]],
    descansaron: Collection[int],
    semilla: int | None,
    coste_descanso: Callable[[int], int],
    mayor_primero: bool,
) -> Emparejamiento | None:
    """The usual case, quickly: the rest first, then each score group (the best first) paired
    within itself with the parejas floated down from the one above, its odd one floating on.
    None where that leaves someone unpaired."""
    rng = random.Random(semilla)
    quedan = list(parejas)
    descansa = None
    if len(quedan) % 2:
        libres = [p for p in quedan if p not in descansaron] or quedan
        descansa = min(libres, key=coste_descanso)
        quedan.remove(descansa)
    grupos: dict[int, list[int]] = {}
    for p in quedan:
        grupos.setdefault(puntos.get(p, 0), []).append(p)
    orden = sorted(grupos, reverse=mayor_primero)
    pares: list[tuple[int, int]] = []
    bajan: list[int] = []
    for clave in orden:
        miembros = bajan + grupos[clave]
        rapido = _sorteo_rapido(miembros, len(bajan), vistos, rng)
        if rapido is not None:
            pares += rapido[0]
            bajan = rapido[1]
            continue
        g = nx.Graph()
        g.add_nodes_from(miembros)
        for i, a in enumerate(miembros):
            for b in miembros[i + 1 :]:
                if frozenset((a, b)) not in vistos:
                    # those floated down meet someone first; then the better placed; then the draw
                    peso = _SORTEO * _SORTEO * ((a in bajan) + (b in bajan))
                    puesto = _SORTEO * (2 * len(miembros) - i - miembros.index(b))
                    g.add_edge(a, b, weight=peso + puesto + rng.randrange(_SORTEO))
        emparejados = nx.max_weight_matching(g, maxcardinality=True)
        pares += [(a, b) for a, b in emparejados]
        sueltos = set(miembros) - {p for par in emparejados for p in par}
        bajan = [p for p in miembros if p in sueltos]
    if bajan:
        return None
    return _ronda(parejas, pares, descansa)


def _sorteo_rapido(
    miembros: Sequence[int], arriba: int, vistos: Collection[frozenset[int]], rng: random.Random
) -> tuple[list[tuple[int, int]], list[int]] | None:
    """A draw of the group in order (those floated down first, then the others shuffled), each
    paired with the next it has not met; the last one left floats on (the lowest placed, where
    it can). None when the draw leaves more than the group's odd one, or one floated down again:
    the matching decides then."""
    resto = list(miembros[arriba:])
    rng.shuffle(resto)
    cola = [*miembros[:arriba], *resto]
    if len(cola) % 2:
        # the lowest placed floats on: drawn out of the draw before it starts
        ultimo = miembros[-1]
        cola.remove(ultimo)
        sueltos = [ultimo]
    else:
        sueltos = []
    pares: list[tuple[int, int]] = []
    while cola:
        a = cola.pop(0)
        b = next((x for x in cola if frozenset((a, x)) not in vistos), None)
        if b is None:
            return None
        cola.remove(b)
        pares.append((a, b))
    return pares, sueltos


def _ronda(
    parejas: Sequence[int], emparejados: Iterable[tuple[int, int]], descansa: int | None = None
) -> Emparejamiento:
    pares = []
    for a, b in emparejados:
        if _DESCANSO in (a, b):
            descansa = a if b == _DESCANSO else b
        else:
            pares.append((a, b) if _antes(parejas, a, b) else (b, a))
    pares.sort(key=lambda par: parejas.index(par[0]))
    return Emparejamiento(tuple(pares), descansa)


def _grafo(
    parejas: Sequence[int],
    puntos: Mapping[int, int],
    vistos: Collection[frozenset[int]],
    descansaron: Collection[int],
    semilla: int | None,
    coste_descanso: Callable[[int], int],
) -> nx.Graph:
    rng = random.Random(semilla)  # the same draw in both graphs
    g = nx.Graph()
    for i, a in enumerate(parejas):
        for b in parejas[i + 1 :]:
            coste = (puntos.get(a, 0) - puntos.get(b, 0)) ** 2 * _DISTANCIA + rng.randrange(_SORTEO)
            coste += _OTRA_VEZ if frozenset((a, b)) in vistos else 0
            g.add_edge(a, b, weight=_OTRA_VEZ * 4 - coste)
    if len(parejas) % 2:
        # nobody rests twice while another can: only those that have not rested may
        libres = [p for p in parejas if p not in descansaron] or list(parejas)
        for p in libres:
            g.add_edge(p, _DESCANSO, weight=_OTRA_VEZ * 4 - coste_descanso(p))
    return g


def _antes(parejas: Sequence[int], a: int, b: int) -> bool:
    return parejas.index(a) < parejas.index(b)
