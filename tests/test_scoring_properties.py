"""Property-based tests of the tanteo, with hypothesis.

Records are drawn with 16 distinct cards and valid outcomes for the lances that can be bet. Which
lances can be bet, and a small reference count used as an oracle, are written here again from the
rules texts (Ludoteka "Puntuación", the encyclopedia §4.7 and §3.8, Reglamento Campeonatos de Mus
Título VI), not taken from scoring/.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.cards import CARD_IDS, Card
from scoring.rules import PERFILES, Reglas, perfil
from scoring.tanteo import RegistroMano, RegistroManoError, ResultadoTanteo, tantear

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LANCES = ("grande", "chica", "pares", "juego", "punto")
PROFILES: list[Any] = [
    *sorted(PERFILES),
    {"base": "general", "deje": "al_final"},
    {"base": "cuellar", "real": "sota_oros"},
    {"base": "ludoteka-8", "tantos": 30},
    {"base": "general", "ases": 4},
    {"base": "ludoteka-4", "real": "cualquier_figura"},
]
# Ludoteka: "31, 32, 40, 37, 36, 35, 34 y 33", best first.
ORDEN_JUEGO = (31, 32, 40, 37, 36, 35, 34, 33)


# -- a reference reading of the rules -------------------------------------------------------------


def rank(card: Card, reglas: Reglas) -> int:
    """Ludoteka: with 8 reyes the threes are kings and the twos aces, "a todos los efectos"."""
    if card.rank == 3 and reglas.reyes == 8:
        return 12
    if card.rank == 2 and reglas.ases == 8:
        return 1
    return card.rank


def value(hand: list[Card], reglas: Reglas) -> int:
    return sum(min(rank(c, reglas), 10) for c in hand)


def pares_key(hand: list[Card], reglas: Reglas) -> tuple[int, ...] | None:
    counts = Counter(rank(c, reglas) for c in hand)
    if 4 in counts.values():
        (r,) = counts
        return (3, r, r)  # four of a kind is duples
    if 3 in counts.values():
        return (2, *(r for r, n in counts.items() if n == 3))
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    if len(pairs) == 2:
        return (3, *pairs)
    return (1, pairs[0]) if pairs else None


def is_real(hand: list[Card], reglas: Reglas) -> bool:
    sevens = [c for c in hand if c.rank == 7]
    if reglas.real == "no" or len(sevens) != 3:
        return False
    (other,) = (c for c in hand if c.rank != 7)
    if reglas.real == "sota_oros":
        return other == Card(10, "o")
    return rank(other, reglas) >= 10


def key(lance: str, hand: list[Card], reglas: Reglas) -> tuple | None:
    ranks = sorted((rank(c, reglas) for c in hand), reverse=True)
    if lance == "grande":
        return tuple(ranks)
    if lance == "chica":
        return tuple(-r for r in reversed(ranks))
    if lance == "pares":
        return pares_key(hand, reglas)
    v = value(hand, reglas)
    if lance == "juego":
        return (-ORDEN_JUEGO.index(v), is_real(hand, reglas)) if v >= 31 else None
    return (v,)


def bonus(lance: str, hand: list[Card], reglas: Reglas) -> int:
    if lance == "pares":
        k = pares_key(hand, reglas)
        return k[0] if k else 0  # pareja 1, medias 2, duples 3
    v = value(hand, reglas)
    return (3 if v == 31 else 2) if v >= 31 else 0


def winner(lance: str, hands: list[list[Card]], mano: int, reglas: Reglas) -> int | None:
    best, best_key = None, None
    for step in range(4):  # ties: the seat nearer the mano
        seat = (mano + step) % 4
        k = key(lance, hands[seat], reglas)
        if k is not None and (best_key is None or k > best_key):
            best, best_key = seat, k
    return best


def holders(lance: str, hands: list[list[Card]], reglas: Reglas) -> tuple[bool, bool]:
    has = [key(lance, h, reglas) is not None for h in hands]
    return has[0] or has[2], has[1] or has[3]


def fourth(hands: list[list[Card]], reglas: Reglas) -> str:
    return "juego" if any(value(h, reglas) >= 31 for h in hands) else "punto"


def can_bet(lance: str, hands: list[list[Card]], reglas: Reglas) -> bool:
    return lance not in ("pares", "juego") or all(holders(lance, hands, reglas))


def reference(record: dict[str, Any]) -> tuple[dict[str, list[int]], tuple[int, int], dict | None]:
    """The tanteo as the rules texts describe it: refused bets and an accepted órdago at once, in
    lance order; then the count, lance by lance, stopping as soon as a pareja reaches the target."""
    reglas = perfil(record["reglas"])
    hands = [[Card.parse(t) for t in m.split()] for m in record["manos"]]
    mano, target = record["mano"], reglas.tantos
    order = ("grande", "chica", "pares", fourth(hands, reglas))
    given = dict(record["lances"])
    outcomes = {lance: given.get(lance, "paso") for lance in order[:3]}
    outcomes[order[3]] = given.get("juego", given.get("punto", "paso"))
    score = list(record["marcador"])
    por = {lance: [0, 0] for lance in order}
    fin: dict | None = None

    def add(p: int, n: int, lance: str) -> None:
        nonlocal fin
        if fin is None and n > 0:
            score[p] += n
            por[lance][p] += n
            if score[p] >= target:
                fin = {"ganador": p, "por": "tantos"}

    def deje(lance: str, o: Any) -> bool:  # encyclopedia: the deje is taken at the end, pares/juego only
        return reglas.deje == "al_final" and lance in ("pares", "juego") and o["no_quiero"] == 1

    # Reglamento Campeonatos de Mus (Segovia), Título VI art. 1: "En el envite a punto y a falta de
    # un tanto, no se apuntará más que el tanto de negada y el de punto cuando le corresponda."
    a_falta = False
    for lance in order:
        o = outcomes[lance]
        if lance == "punto" and reglas.punto_falta_un_tanto == "negada_y_punto":
            a_falta = target - 1 in score  # as the punto is bet: after the earlier refusals
        if isinstance(o, dict) and "no_quiero" in o and not deje(lance, o):
            add(o["gana"], 1 if lance == "punto" and a_falta else o["no_quiero"], lance)
        elif isinstance(o, dict) and "ordago" in o and fin is None:
            p = winner(lance, hands, mano, reglas) % 2
            add(p, target - score[p], lance)
            fin = {"ganador": p, "por": "ordago"}
    for lance in order:
        o, seat = outcomes[lance], winner(lance, hands, mano, reglas)
        if seat is None:
            continue  # nobody holds pares (or juego): the lance is not played
        refused = isinstance(o, dict) and "no_quiero" in o
        p = o["gana"] if refused else seat % 2
        if refused and deje(lance, o):
            add(p, 1, lance)
        if isinstance(o, dict) and "quiero" in o:
            add(p, 0 if lance == "punto" and a_falta else o["quiero"], lance)
        elif o == "paso" and lance in ("grande", "chica"):
            add(p, 1, lance)
        if lance == "punto":
            add(p, 1, lance)
        if lance in ("pares", "juego"):
            for step in range(4):
                s = (mano + step) % 4
                if s % 2 == p:
                    add(p, bonus(lance, hands[s], reglas), lance)
    return por, (score[0], score[1]), fin


# -- strategies -----------------------------------------------------------------------------------


def outcome(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["paso", "paso", "quiero", "no_quiero", "no_quiero", "ordago"]))
    if kind == "quiero":
        return {"quiero": draw(st.integers(2, 45))}
    if kind == "no_quiero":
        return {"no_quiero": draw(st.sampled_from([1, 1, 2, 3, 5, 10])), "gana": draw(st.integers(0, 1))}
    if kind == "ordago":
        return {"ordago": "quiero"}
    return "paso"


@st.composite
def records(draw: st.DrawFn, profiles: list[Any] | None = None, cards: list[str] | None = None) -> dict[str, Any]:
    spec = draw(st.sampled_from(profiles or PROFILES))
    reglas = perfil(spec)
    ids = draw(st.permutations(cards or CARD_IDS))[:16]
    manos = [" ".join(ids[i : i + 4]) for i in range(0, 16, 4)]
    hands = [[Card.parse(t) for t in m.split()] for m in manos]
    marcador = [draw(st.integers(0, reglas.tantos - 1)) for _ in range(2)]
    lances: dict[str, Any] = {}
    for lance in ("grande", "chica", "pares", fourth(hands, reglas)):
        if not can_bet(lance, hands, reglas):
            continue
        o = outcome(draw)
        if o != "paso":
            lances[lance] = o
        if o == {"ordago": "quiero"}:
            break  # no bet after an accepted órdago
    return {"reglas": spec, "mano": draw(st.integers(0, 3)), "manos": manos, "marcador": marcador, "lances": lances}


def scores(r: ResultadoTanteo) -> tuple:
    return ({k: list(v) for k, v in r.por_lance.items()}, tuple(r.marcador), r.to_json()["fin"])


def mirror(r: ResultadoTanteo) -> tuple:
    fin = None if r.fin is None else {**r.fin.to_json(), "ganador": 1 - r.fin.ganador}
    return ({k: [v[1], v[0]] for k, v in r.por_lance.items()}, (r.marcador[1], r.marcador[0]), fin)


# -- properties -----------------------------------------------------------------------------------


@SETTINGS
@given(records())
def test_engine_agrees_with_the_reference_reading(record: dict[str, Any]) -> None:
    assert scores(tantear(record)) == reference(record)


# Aces to sevens but twos and threes: four of them never make juego, so the punto is played.
SIN_JUEGO = [c for c in CARD_IDS if Card.parse(c).rank in (1, 4, 5, 6, 7)]


@SETTINGS
@given(
    records(["segovia", "cuellar", {"base": "general", "punto_falta_un_tanto": "negada_y_punto"}], SIN_JUEGO),
    st.integers(0, 1),
    st.integers(1, 2),
)
def test_punto_a_falta_de_un_tanto_agrees_with_the_reference(record: dict[str, Any], p: int, falta: int) -> None:
    # The end of the juego, where Título VI art. 1 applies: a pareja one (or two) tantos short
    # and an envite at punto.
    assume("punto" in record["lances"])
    record["marcador"][p] = perfil(record["reglas"]).tantos - falta
    assert scores(tantear(record)) == reference(record)


@SETTINGS
@given(records())
def test_rotating_seats_and_mano_swaps_the_parejas(record: dict[str, Any]) -> None:
    m = record["manos"]
    rotated = {
        **record,
        "manos": [m[3], m[0], m[1], m[2]],  # seat s moves to seat s + 1
        "mano": (record["mano"] + 1) % 4,
        "marcador": record["marcador"][::-1],
        "lances": {
            k: ({**v, "gana": 1 - v["gana"]} if isinstance(v, dict) and "gana" in v else v)
            for k, v in record["lances"].items()
        },
    }
    assert scores(tantear(rotated)) == mirror(tantear(record))


@SETTINGS
@given(records(), st.randoms(use_true_random=False))
def test_order_of_cards_within_a_hand_never_matters(record: dict[str, Any], rnd: Any) -> None:
    shuffled = []
    for text in record["manos"]:
        cards = text.split()
        rnd.shuffle(cards)
        shuffled.append(" ".join(cards))
    assert scores(tantear({**record, "manos": shuffled})) == scores(tantear(record))


EIGHT_REYES = [p for p in PROFILES if perfil(p).reyes == 8 and perfil(p).ases == 8]


@SETTINGS
@given(records(EIGHT_REYES))
def test_with_8_reyes_threes_are_kings_and_twos_aces(record: dict[str, Any]) -> None:
    # Ludoteka: "los treses son reyes ... los doses son ases", a todos los efectos.
    used = {c for m in record["manos"] for c in m.split()}
    free = {12: [f"12{s}" for s in "oceb" if f"12{s}" not in used], 1: [f"1{s}" for s in "oceb" if f"1{s}" not in used]}
    replaced = []
    for text in record["manos"]:
        cards = []
        for c in text.split():
            card = Card.parse(c)
            target = {3: 12, 2: 1}.get(card.rank)
            cards.append(free[target].pop() if target and free[target] else c)
        replaced.append(" ".join(cards))
    assert scores(tantear({**record, "manos": replaced})) == scores(tantear(record))


@SETTINGS
@given(records())
def test_points_only_for_jugadas_a_pareja_holds(record: dict[str, Any]) -> None:
    r = tantear(record)
    reglas = r.registro.reglas
    hands = [[Card.parse(t) for t in m.split()] for m in record["manos"]]
    given_lances = record["lances"]
    for lance in ("pares", "juego"):
        if lance not in r.por_lance:
            continue
        held = holders(lance, hands, reglas)
        o = given_lances.get(lance, "paso")
        for p in (0, 1):
            if not held[p]:
                # a pareja without the jugada: no betting possible, so nothing at all
                assert r.por_lance[lance][p] == 0
            if isinstance(o, dict) and o.get("gana") == 1 - p:
                assert r.por_lance[lance][p] == 0  # it refused the envite: no bonus
            if not (isinstance(o, dict) and "ordago" in o):
                own = sum(bonus(lance, hands[s], reglas) for s in (p, p + 2))
                bet = o.get("quiero", o.get("no_quiero", 0)) if isinstance(o, dict) else 0
                assert r.por_lance[lance][p] <= bet + own
    # and each bonus apunte names a player of the pareja that takes it
    names = {0: ("asiento 0", "asiento 2"), 1: ("asiento 1", "asiento 3")}
    for a in r.detalle:
        if a.lance in ("pares", "juego"):
            assert any(n in a.razon for n in names[a.pareja]) or "no querido" in a.razon or "deje" in a.razon


@SETTINGS
@given(records())
def test_tantos_never_negative_and_marcador_is_the_sum(record: dict[str, Any]) -> None:
    r = tantear(record)
    assert all(a.tantos > 0 for a in r.detalle)
    assert all(v >= 0 for pair in r.por_lance.values() for v in pair)
    for p in (0, 1):
        assert r.marcador[p] == record["marcador"][p] + sum(v[p] for v in r.por_lance.values())
        assert sum(a.tantos for a in r.detalle if a.pareja == p) == r.marcador[p] - record["marcador"][p]
    target = r.registro.reglas.tantos
    if r.fin is None:
        assert max(r.marcador) < target
    else:
        assert r.marcador[r.fin.ganador] >= target
        assert r.marcador[1 - r.fin.ganador] < target
    assert all(a.razon.strip() and a.lance in r.por_lance for a in r.detalle)


@SETTINGS
@given(records())
def test_hand_record_round_trips_through_to_dict(record: dict[str, Any]) -> None:
    again = RegistroMano.from_dict(json.loads(json.dumps(RegistroMano.from_dict(record).to_dict())))
    assert scores(tantear(again)) == scores(tantear(record))


NAMES = ["Ana", "Luis", "Eva", "Iker"]
TITLES = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}


@SETTINGS
@given(records())
def test_every_reason_names_its_lance_and_a_player(record: dict[str, Any]) -> None:
    r = tantear({**record, "jugadores": NAMES})
    for a in r.detalle:
        assert a.razon.startswith(TITLES[a.lance]), a
        assert any(name in a.razon for name in NAMES), a
        assert "asiento" not in a.razon and "pareja 0" not in a.razon and "pareja 1" not in a.razon, a


@st.composite
def records_with_declaraciones(draw: st.DrawFn) -> dict[str, Any]:
    """Records whose players declared pares/juego (sometimes falsely), with bets on those lances
    that only a false «sí» could open: the penalties of the Reglamento Campeonatos de Mus
    (Títulos VIII-X) and of the Basque championship's «Araudia»."""
    record = draw(records())
    said = st.sampled_from([True, False, None])
    declaraciones = {
        lance: draw(st.lists(said, min_size=4, max_size=4)) for lance in ("pares", "juego") if draw(st.booleans())
    }
    lances = dict(record["lances"])
    if draw(st.booleans()) and not any(isinstance(v, dict) and "ordago" in v for v in lances.values()):
        lances[draw(st.sampled_from(["pares", "juego"]))] = draw(
            st.sampled_from([{"quiero": 4}, {"no_quiero": 1, "gana": 0}, {"no_quiero": 2, "gana": 1}])
        )
    return {**record, "lances": lances, "declaraciones": declaraciones}


def _rotate(record: dict[str, Any]) -> dict[str, Any]:
    m = record["manos"]
    return {
        **record,
        "manos": [m[3], m[0], m[1], m[2]],
        "mano": (record["mano"] + 1) % 4,
        "marcador": record["marcador"][::-1],
        "lances": {
            k: ({**v, "gana": 1 - v["gana"]} if isinstance(v, dict) and "gana" in v else v)
            for k, v in record["lances"].items()
        },
        "declaraciones": {k: [v[3], v[0], v[1], v[2]] for k, v in record.get("declaraciones", {}).items()},
    }


@SETTINGS
@given(records_with_declaraciones())
def test_rotation_symmetry_holds_with_false_declarations(record: dict[str, Any]) -> None:
    # A bet the declarations could not open is a RegistroManoError, for both seatings alike.
    try:
        result = tantear(record)
    except RegistroManoError:
        with pytest.raises(RegistroManoError):
            tantear(_rotate(record))
        return
    assert scores(tantear(_rotate(record))) == mirror(result)
