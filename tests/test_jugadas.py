"""Hand evaluation, examples worked by hand from the rules texts.

Texts: Ludoteka, «Reglas del Mus»; Enciclopedia, artículo «Mus»; Normas generales de mus para la
provincia de Segovia (with Cuéllar's especialidades).
"""

from __future__ import annotations

from itertools import combinations

import pytest

from scoring.cards import DECK, Card, check_distinct, parse_hand
from scoring.jugadas import (
    Pares,
    cuarto_lance,
    es_real,
    evaluar,
    ganador,
    pares,
    se_apuesta,
    tiene_juego,
    tienen,
    valor_juego,
)
from scoring.rules import perfil

R8 = perfil("general")  # 8 reyes
R4 = perfil("ludoteka-4")  # 4 reyes


def hands(*texts: str) -> list:
    return [parse_hand(t) for t in texts]


def first_from_mano(seats: set[int], mano: int) -> int:
    """Encyclopedia §3: among equal jugadas 'gana siempre quien sea mano' (the first in speaking order)."""
    return next((mano + i) % 4 for i in range(4) if (mano + i) % 4 in seats)


# -- grande and chica -----------------------------------------------------------------------------


@pytest.mark.parametrize("mano", range(4))
def test_grande_tie_goes_to_the_seat_nearer_the_mano(mano: int) -> None:
    # Seats 1 and 3 hold the same ranks (12 11 7 6); seats 0 and 2 lower. Ludoteka "Grande".
    four = hands("1o 4o 5o 6o", "12o 11o 7o 6c", "1c 4c 5c 7c", "12c 11c 7e 6e")
    assert ganador("grande", four, mano, R4) == first_from_mano({1, 3}, mano)


@pytest.mark.parametrize("mano", range(4))
def test_chica_tie_goes_to_the_seat_nearer_the_mano(mano: int) -> None:
    # Seats 0 and 2 hold 1 1 4 5 (lowest); Ludoteka "Pequeña: gana la carta más baja".
    four = hands("1o 1c 4o 5o", "12o 11o 7o 6c", "1e 1b 4c 5c", "12c 11c 7e 6e")
    assert ganador("chica", four, mano, R4) == first_from_mano({0, 2}, mano)


@pytest.mark.parametrize(
    ("better", "worse", "lance"),
    [
        # Ludoteka: grande compares the highest card, then the second, third, fourth.
        ("12o 1o 1c 1e", "11o 11c 11e 10o", "grande"),
        ("12o 11o 1o 1c", "12c 10o 10c 7o", "grande"),
        ("12o 11o 10o 5o", "12c 11c 10c 4c", "grande"),
        # chica: the lowest card, then the next lowest.
        ("1o 12o 12c 12e", "4o 5o 6o 7o", "chica"),
        ("1o 4o 12o 12c", "1c 5c 6c 7c", "chica"),
        ("1o 1c 4o 7o", "1e 1b 5o 6o", "chica"),
    ],
)
@pytest.mark.parametrize("mano", range(4))
def test_grande_and_chica_order(better: str, worse: str, lance: str, mano: int) -> None:
    # Put the worse hand at the mano so that the tie rule cannot help the better one.
    # Fillers that lose the lance: twos and threes for grande (4 reyes), figures for chica.
    fillers = ("2o 3o 2c 3c", "2e 3e 2b 3b") if lance == "grande" else ("12b 11b 10b 7b", "11e 10e 11o 10o")
    seats = [None] * 4
    seats[mano] = parse_hand(worse)
    seats[(mano + 1) % 4] = parse_hand(better)
    seats[(mano + 2) % 4] = parse_hand(fillers[0])
    seats[(mano + 3) % 4] = parse_hand(fillers[1])
    check_distinct(seats)
    assert ganador(lance, seats, mano, R4) == (mano + 1) % 4


def test_grande_and_chica_with_8_reyes() -> None:
    # Ludoteka: with 8 reyes "los treses son reyes" and "los doses son ases", for every lance.
    four = hands("3o 3c 3e 1o", "12o 12c 11o 1c", "2o 2c 1e 4o", "1b 4c 5c 6c")
    assert ganador("grande", four, 0, R8) == 0  # three kings beat two kings
    assert ganador("grande", four, 0, R4) == 1  # with 4 reyes the threes are threes
    assert ganador("chica", four, 0, R8) == 2  # 2 2 1 4 is 1 1 1 4 with 8 reyes
    assert ganador("chica", four, 0, R4) == 2  # 1 2 2 4: the two still beats a four


# -- pares ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reglas", "tipo", "rangos", "bonus"),
    [
        ("12o 12c 7o 4o", R8, "pareja", (12,), 1),
        ("7o 7c 7e 1o", R8, "medias", (7,), 2),
        ("12o 12c 11o 11c", R8, "duples", (12, 11), 3),
        ("7o 7c 7e 7b", R8, "duples", (7, 7), 3),  # Ludoteka: four of a kind is duples
        ("3o 12c 3e 12b", R8, "duples", (12, 12), 3),  # 8 reyes: four kings
        ("3o 12c 3e 12b", R4, "duples", (12, 3), 3),
        ("3o 3c 12o 2o", R8, "medias", (12,), 2),  # 8 reyes: threes are kings
        ("3o 3c 12o 2o", R4, "pareja", (3,), 1),
        ("2o 1c 5o 6o", R8, "pareja", (1,), 1),  # 8 reyes: a two is an ace
        ("2o 1c 5o 6o", R4, None, None, 0),
        ("1o 4c 5o 6o", R8, None, None, 0),
    ],
)
def test_pares_kind_ranks_and_bonus(text: str, reglas, tipo, rangos, bonus: int) -> None:
    # encyclopedia §4.7: "los pares vale una piedra; las medias valen dos; los duples valen tres".
    got = pares(parse_hand(text), reglas)
    if tipo is None:
        assert got is None
    else:
        assert (got.tipo, got.rangos, got.bonus) == (tipo, rangos, bonus)


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("12o 12c 11o 11c", "7o 7c 7e 1o"),  # duples beat medias (encyclopedia §4.3)
        ("7o 7c 7e 1o", "12o 12c 11o 1c"),  # medias beat pareja
        ("5o 5c 5e 1o", "1c 1e 1b 4o"),  # "unas medias de ases pierden ante unas medias de cincos"
        ("12o 12c 4o 5o", "10o 10c 4c 5c"),  # "pares de sotas pierden ante una pareja de reyes"
        ("12o 12c 1o 1c", "11o 11c 10o 10c"),  # duples: the higher pair first (the encyclopedia's example)
        ("12o 12c 5o 5c", "12e 12b 4o 4c"),  # duples with the same top pair: the second pair
        ("7o 7c 7e 7b", "6o 6c 5o 5c"),  # four sevens as duples of sietes
    ],
)
@pytest.mark.parametrize("mano", range(4))
def test_pares_order_beats_the_mano(better: str, worse: str, mano: int) -> None:
    seats = [None] * 4
    seats[mano] = parse_hand(worse)
    seats[(mano + 1) % 4] = parse_hand(better)
    used = {c for h in seats if h for c in h}
    free = [c for c in DECK if c not in used and c.rank in (2, 3, 4, 6, 10, 11)]
    # fillers without pares: one card of each of four ranks per hand
    by_rank: dict[int, list[Card]] = {}
    for c in free:
        by_rank.setdefault(c.rank, []).append(c)
    ranks = [r for r in by_rank if len(by_rank[r]) >= 2][:4]
    assert len(ranks) == 4
    picked = [by_rank[r][0] for r in ranks] + [by_rank[r][1] for r in ranks]
    seats[(mano + 2) % 4] = parse_hand(" ".join(map(str, picked[:4])))
    seats[(mano + 3) % 4] = parse_hand(" ".join(map(str, picked[4:])))
    check_distinct(seats)
    assert ganador("pares", seats, mano, R4) == (mano + 1) % 4


@pytest.mark.parametrize("mano", range(4))
def test_pares_tie_goes_to_the_seat_nearer_the_mano(mano: int) -> None:
    # Seats 0 and 3 both hold a pareja de reyes (the kicker does not count, Ludoteka).
    four = hands("12o 12c 4o 1o", "5o 6o 7o 1c", "5c 6c 7c 1e", "12e 12b 7e 6e")
    assert ganador("pares", four, mano, R4) == first_from_mano({0, 3}, mano)


def test_nobody_with_pares_has_no_winner() -> None:
    four = hands("1o 4o 5o 6o", "1c 4c 5c 7c", "1e 4e 6e 7e", "10o 4b 5b 6b")
    assert ganador("pares", four, 0, R8) is None
    jugadas = [evaluar(h, R8) for h in four]
    assert tienen("pares", jugadas) == (False, False)
    assert not se_apuesta("pares", jugadas)


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (Pares("pareja", (12,)), "pareja de reyes"),
        (Pares("medias", (1,)), "medias de ases"),
        (Pares("duples", (12, 11)), "duples de reyes y caballos"),
    ],
)
def test_pares_describe_in_spanish(p: Pares, text: str) -> None:
    assert p.describe() == text


# -- juego and punto --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "v8", "v4"),
    [
        ("12o 11o 10o 1o", 31, 31),
        ("3o 3c 12o 2o", 31, 18),  # 8 reyes: 10 + 10 + 10 + 1; 4 reyes: 3 + 3 + 10 + 2
        ("12o 12c 11o 11c", 40, 40),
        ("1o 1c 2o 2c", 4, 6),  # "hasta 4, que sería el mínimo punto posible al tener cuatro ases"
        ("7o 7c 7e 11o", 31, 31),
        ("4o 5o 6o 7o", 22, 22),
    ],
)
def test_valor_juego_counts_figures_as_ten(text: str, v8: int, v4: int) -> None:
    # encyclopedia §2: figures (and threes, with 8 reyes) are worth 10, aces (and twos) 1.
    hand = parse_hand(text)
    assert valor_juego(hand, R8) == v8
    assert valor_juego(hand, R4) == v4
    assert tiene_juego(hand, R8) == (v8 >= 31)
    assert tiene_juego(hand, R4) == (v4 >= 31)


# Rank multisets worth each juego value, none using a two or a three (same value with 4 or 8 reyes).
JUEGO_RANKS = {
    31: (12, 11, 10, 1),
    32: (12, 11, 7, 5),
    40: (12, 11, 10, 12),
    37: (12, 11, 10, 7),
    36: (12, 11, 10, 6),
    35: (12, 11, 10, 5),
    34: (12, 11, 10, 4),
    33: (12, 11, 7, 6),
}
# Ludoteka: "31, 32, 40, 37, 36, 35, 34 y 33", best first.
ORDEN = (31, 32, 40, 37, 36, 35, 34, 33)


def _deal(*rank_lists: tuple[int, ...]) -> list:
    """Hands with these ranks, suits taken from what is still free, in order."""
    free = list(DECK)
    out = []
    for ranks in rank_lists:
        cards = []
        for r in ranks:
            card = next(c for c in free if c.rank == r)
            free.remove(card)
            cards.append(card)
        out.append(parse_hand(" ".join(map(str, cards))))
    return out


@pytest.mark.parametrize(("better", "worse"), list(combinations(ORDEN, 2)))
@pytest.mark.parametrize("reglas", [R8, R4], ids=["8reyes", "4reyes"])
def test_juego_order_31_32_40_37_36_35_34_33(better: int, worse: int, reglas) -> None:
    w, b, f1, f2 = _deal(JUEGO_RANKS[worse], JUEGO_RANKS[better], (1, 4, 5, 6), (1, 4, 5, 7))
    assert valor_juego(b, reglas) == better and valor_juego(w, reglas) == worse
    four = [w, b, f1, f2]  # the worse juego is mano
    assert ganador("juego", four, 0, reglas) == 1


@pytest.mark.parametrize("mano", range(4))
def test_juego_tie_goes_to_the_seat_nearer_the_mano(mano: int) -> None:
    four = _deal((12, 11, 10, 1), (1, 4, 5, 6), (12, 11, 10, 1), (4, 5, 6, 7))
    assert ganador("juego", four, mano, R8) == first_from_mano({0, 2}, mano)


def test_juego_without_juego_has_no_winner_and_punto_is_played() -> None:
    four = hands("1o 4o 5o 6o", "1c 4c 5c 7c", "1e 4e 6e 7e", "10o 4b 5b 6b")
    assert ganador("juego", four, 0, R8) is None
    jugadas = [evaluar(h, R8) for h in four]
    assert cuarto_lance(jugadas) == "punto"
    # encyclopedia §4.4: punto goes to the highest sum: 16, 17, 18, 25 -> seat 3.
    assert ganador("punto", four, 0, R8) == 3


@pytest.mark.parametrize("mano", range(4))
def test_punto_tie_goes_to_the_seat_nearer_the_mano(mano: int) -> None:
    four = hands("10o 11o 4o 5o", "1c 4c 5c 6c", "10c 11c 4e 5e", "1e 2e 5b 6b")  # 29, 16, 29, 14/15
    assert ganador("punto", four, mano, R4) == first_from_mano({0, 2}, mano)


def test_punto_order_is_by_sum() -> None:
    # "Gana el punto quien tenga mayor suma (desde 30 ... hasta 4)", encyclopedia §4.4.
    four = hands("10o 11o 12o 1o", "10c 11c 4o 5o", "1c 1e 1b 2o", "7o 7c 7e 6o")  # 31 is juego, skip it
    jugadas = [evaluar(h, R8) for h in four]
    assert cuarto_lance(jugadas) == "juego"
    four = hands("10o 11o 7o 1o", "10c 11c 4o 5o", "1c 1e 1b 2o", "7c 7e 6o 6c")  # 28, 29, 4, 26
    assert ganador("punto", four, 0, R8) == 1


# -- 31 real ----------------------------------------------------------------------------------------

REAL = "7o 7c 7e 11o"  # three sevens and a figure: encyclopedia, «Vocabulario» "Treinta y una real"
REAL_SOTA_OROS = "7o 7c 7e 10o"
REAL_TRES = "7o 7c 7e 3o"  # with 8 reyes a three is a king "a todos los efectos" (Ludoteka)


@pytest.mark.parametrize(
    ("real", "text", "expected"),
    [
        ("no", REAL, False),
        # Cuéllar (Normas generales de Segovia): "con tres sietes y cualquier figura"
        ("cualquier_figura", REAL, True),
        ("cualquier_figura", REAL_SOTA_OROS, True),
        ("sota_oros", REAL, False),  # encyclopedia: "a veces ... la figura sea la sota de oros"
        ("sota_oros", REAL_SOTA_OROS, True),
        ("sota_oros", "7o 7c 7e 10c", False),
        ("cualquier_figura", REAL_TRES, True),
        ("cualquier_figura", "7o 7c 7e 7b", False),
        ("cualquier_figura", "7o 7c 12e 11o", False),
    ],
)
def test_es_real_under_each_option(real: str, text: str, expected: bool) -> None:
    assert es_real(parse_hand(text), perfil({"base": "general", "real": real})) is expected


def test_tres_is_no_figure_for_real_with_4_reyes() -> None:
    reglas = perfil({"base": "ludoteka-4", "real": "cualquier_figura"})
    assert not es_real(parse_hand(REAL_TRES), reglas)


@pytest.mark.parametrize(
    ("real", "winner"),
    [("no", 1), ("cualquier_figura", 2), ("sota_oros", 1)],
)
def test_31_real_beats_any_31_even_the_mano(real: str, winner: int) -> None:
    # Seat 1 is mano with a plain 31; seat 2 holds 31 real with the caballo (not the sota de oros).
    four = hands("1o 4o 5o 6o", "12o 12c 11c 1c", REAL, "4c 5c 6c 1e")
    assert ganador("juego", four, 1, perfil({"base": "general", "real": real})) == winner


def test_cuellar_plays_31_real_and_segovia_does_not() -> None:
    four = hands("1o 4o 5o 6o", "12o 12c 11c 1c", REAL, "4c 5c 6c 1e")
    assert ganador("juego", four, 1, perfil("cuellar")) == 2
    assert ganador("juego", four, 1, perfil("segovia")) == 1


def test_31_real_is_worth_3_like_any_31() -> None:
    # encyclopedia §4.7: "31 al juego valen tres piedras".
    assert evaluar(parse_hand(REAL), perfil("cuellar")).bonus("juego") == 3
    assert evaluar(parse_hand("12o 11o 10o 7o"), perfil("cuellar")).bonus("juego") == 2
    assert evaluar(parse_hand("1o 4o 5o 6o"), perfil("cuellar")).bonus("juego") == 0


# -- 8 reyes for every lance ------------------------------------------------------------------------


def test_8_reyes_changes_pares_juego_and_chica() -> None:
    # Ludoteka: with 8 reyes threes are kings and twos aces "a todos los efectos".
    # Seat 0, 3 3 2 2: duples of reyes and ases worth 22 al punto with 8 reyes; duples of treses
    # and doses worth 10 with 4 reyes.
    four = hands("3o 3c 2o 2c", "11o 6o 5c 4c", "1o 4o 12e 12b", "10o 7o 7c 5o")
    j8, j4 = evaluar(four[0], R8), evaluar(four[0], R4)
    assert j8.pares == Pares("duples", (12, 1)) and j4.pares == Pares("duples", (3, 2))
    assert (j8.valor, j4.valor) == (22, 10)
    assert ganador("chica", four, 0, R8) == 0  # 1 1 12 12 beats 1 4 12 12
    assert ganador("chica", four, 0, R4) == 2  # 1 4 12 12 beats 2 2 3 3
