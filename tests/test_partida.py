"""The match: tantos, juegos, vacas, mano, mus corrido, undo, history."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.cards import CARD_IDS
from scoring.outcomes import FinJuego, Terminacion
from scoring.partida import Partida, PartidaError, amarracos
from scoring.rules import PERFILES, perfil
from scoring.tanteo import RegistroManoError

# Hands C of tests/test_tanteo.py: en paso pareja 0 makes 5 and pareja 1 makes 4, whatever the
# mano; seat 0 (12 12 11 11) wins grande with 4 or 8 reyes, so an órdago a grande goes to pareja 0.
C = ["12o 12c 11o 11c", "7o 7c 7e 1o", "4o 4c 5o 6o", "10o 10c 6c 5c"]
C_PAREJA_1 = [C[3], C[0], C[1], C[2]]  # the same deal moved one seat on: pareja 1 wins grande
ORDAGO = {"grande": {"ordago": "quiero"}}
NAMES = ["Ana", "Luis", "Eva", "Iker"]


def test_tantos_accumulate_and_the_mano_rotates() -> None:
    p = Partida("general", NAMES)
    assert (p.tantos, p.mano, p.terminada, p.ganador) == ((0, 0), 0, False, None)
    p.registrar(C)
    assert (p.tantos, p.mano) == ((5, 4), 1)
    p.registrar(C)
    assert (p.tantos, p.mano) == ((10, 8), 2)
    p.registrar(C)
    p.registrar(C)
    assert p.mano == 0  # "the mano rotating to the next seat each hand": back to seat 0
    assert p.tantos == (20, 16)
    assert len(p.historial) == 4


def test_partida_starts_with_the_given_mano() -> None:
    p = Partida("general", NAMES, mano=3)
    r = p.registrar(C)
    assert r.registro.mano == 3 and p.mano == 0


def test_the_next_hand_uses_the_scoreboard_before_it() -> None:
    p = Partida("general")
    p.registrar(C)
    r = p.registrar(C, {"pares": {"quiero": 5}})
    assert r.registro.marcador == (5, 4)
    assert r.marcador == (5 + 10, 4 + 4)


@pytest.mark.parametrize(
    ("name", "juegos"),
    # Normas generales de Segovia: "4 juegos de 40 tantos", Cuéllar "Siempre a 4 juegos";
    # Ludoteka: "vence la pareja que logra 2 juegos"; encyclopedia: "cuatro juegos".
    [("general", 4), ("segovia", 4), ("cuellar", 4), ("ludoteka-4", 2), ("ludoteka-8", 2)],
)
def test_partida_is_won_with_the_profiles_juegos(name: str, juegos: int) -> None:
    p = Partida(name, NAMES)
    for i in range(juegos):
        assert not p.terminada
        r = p.registrar(C, ORDAGO)
        assert r.fin == FinJuego(0, Terminacion.ORDAGO)
        assert p.tantos == (0, 0)  # a new juego starts from zero
        if i < juegos - 1:
            assert p.juegos == (i + 1, 0)
    assert p.terminada and p.ganador == 0
    with pytest.raises(PartidaError):
        p.registrar(C)


@pytest.mark.parametrize("name", sorted(PERFILES))
def test_every_profile_ends_after_juegos_times_vacas(name: str) -> None:
    reglas = perfil(name)
    p = Partida(name)
    for _ in range(reglas.juegos_por_vaca * reglas.vacas_por_partida):
        assert not p.terminada
        p.registrar(C, ORDAGO)
    assert p.terminada and p.ganador == 0


def test_vacas_count_juegos_and_reset_them() -> None:
    p = Partida({"base": "ludoteka-4", "vacas_por_partida": 2}, NAMES)
    p.registrar(C, ORDAGO)
    assert (p.juegos, p.vacas) == ((1, 0), (0, 0))
    p.registrar(C_PAREJA_1, ORDAGO)  # pareja 1 wins the second juego
    assert (p.juegos, p.vacas) == ((1, 1), (0, 0))
    p.registrar(C, ORDAGO)
    assert (p.juegos, p.vacas) == ((0, 0), (1, 0))  # 2 juegos make a vaca, juegos start again
    assert p.estado.aviso == "vaca"
    for _ in range(2):
        p.registrar(C_PAREJA_1, ORDAGO)
    assert p.vacas == (1, 1) and not p.terminada
    p.registrar(C, ORDAGO)
    p.registrar(C, ORDAGO)
    assert p.terminada and p.ganador == 0 and p.estado.aviso == "partida"


def test_a_juego_won_at_the_tantos_counts_like_an_ordago() -> None:
    p = Partida("ludoteka-4")  # 30 tantos
    for _ in range(5):
        p.registrar(C)  # 5 a hand for pareja 0, 4 for pareja 1 (4 reyes: same hands, same count)
    assert p.tantos == (25, 20) and p.juegos == (0, 0)
    r = p.registrar(C)
    assert r.fin == FinJuego(0, Terminacion.TANTOS)
    assert p.juegos == (1, 0) and p.tantos == (0, 0)


# -- mus corrido ----------------------------------------------------------------------------------


def test_mus_corrido_mano_only_on_the_first_hand_of_the_partida() -> None:
    # Reglamento, Título II art. 16 "La primera jugada de una partida es corrida"; Ludoteka the same.
    p = Partida("general", NAMES, mano=0)
    r = p.registrar(C, mano=2)
    assert r.registro.mano == 2 and p.mano == 3
    with pytest.raises(PartidaError):
        p.registrar(C, mano=1)
    p.registrar(C, mano=3)  # naming the right mano is always fine
    p.deshacer()
    p.deshacer()
    p.registrar(C, mano=1)  # after undoing the first hand, it is corrido again
    assert p.mano == 2


def test_mus_corrido_partida_does_not_apply_to_later_juegos() -> None:
    p = Partida("general")
    p.registrar(C, ORDAGO)
    with pytest.raises(PartidaError):
        p.registrar(C, mano=3)


def test_mus_corrido_juego_applies_to_the_first_hand_of_every_juego() -> None:
    p = Partida({"base": "general", "mus_corrido": "juego"})
    p.registrar(C, mano=1)
    with pytest.raises(PartidaError):
        p.registrar(C, mano=0)
    p.registrar(C, ORDAGO)  # mano 2 ends the juego
    r = p.registrar(C, mano=0)  # first hand of the new juego: corrido again
    assert r.registro.mano == 0


def test_mus_corrido_no_forbids_any_other_mano() -> None:
    p = Partida({"base": "general", "mus_corrido": "no"})
    with pytest.raises(PartidaError):
        p.registrar(C, mano=1)


@pytest.mark.parametrize("mano", [4, -1, "1", 1.5])
def test_bad_mano_override_is_rejected(mano: Any) -> None:
    p = Partida("general")
    with pytest.raises((PartidaError, RegistroManoError)):
        p.registrar(C, mano=mano)
    assert p.historial == ()


# -- undo and errors --------------------------------------------------------------------------------


def test_undo_restores_the_previous_state() -> None:
    p = Partida("ludoteka-4")
    p.registrar(C)
    before = (p.tantos, p.juegos, p.vacas, p.mano)
    last = p.registrar(C, ORDAGO)
    assert p.juegos == (1, 0)
    assert p.deshacer() is last
    assert (p.tantos, p.juegos, p.vacas, p.mano) == before
    p.deshacer()
    assert (p.tantos, p.mano, p.historial) == ((0, 0), 0, ())
    with pytest.raises(PartidaError):
        p.deshacer()


def test_undo_after_the_end_reopens_the_partida() -> None:
    p = Partida("ludoteka-4")
    p.registrar(C, ORDAGO)
    p.registrar(C, ORDAGO)
    assert p.terminada
    p.deshacer()
    assert not p.terminada and p.ganador is None and p.juegos == (1, 0)


def test_a_bad_hand_changes_nothing() -> None:
    p = Partida("general")
    p.registrar(C)
    state = (p.tantos, p.mano, len(p.historial))
    with pytest.raises(RegistroManoError):
        p.registrar(["12o 12c 11o 11c", "7o 7c 7e 12o", C[2], C[3]])
    with pytest.raises(RegistroManoError):
        p.registrar(C, {"grande": {"ordago": "quiero"}, "chica": {"quiero": 2}})
    assert (p.tantos, p.mano, len(p.historial)) == state


@pytest.mark.parametrize(
    ("lances", "declaraciones"),
    [(["paso"], None), (None, ["x"]), (5, None), (None, 5)],
)
def test_registrar_rejects_lances_or_declaraciones_that_are_not_objects(lances: Any, declaraciones: Any) -> None:
    # registrar() promises PartidaError or RegistroManoError on bad input, and changes nothing.
    p = Partida("general")
    with pytest.raises((PartidaError, RegistroManoError)):
        p.registrar(C, lances, declaraciones=declaraciones)
    assert p.historial == ()


@pytest.mark.parametrize(
    ("reglas", "jugadores", "mano"),
    [
        ("murcia", None, 0),
        ("general", ["Ana", "Luis", "Eva"], 0),
        ("general", ["Ana", "Ana", "Eva", "Iker"], 0),
        ("general", ["Ana", " ", "Eva", "Iker"], 0),
        ("general", None, 4),
        ({"reyes": 5}, None, 0),
    ],
)
def test_bad_partida_is_rejected(reglas: Any, jugadores: Any, mano: Any) -> None:
    with pytest.raises(PartidaError):
        Partida(reglas, jugadores, mano)


@pytest.mark.parametrize(("tantos", "expected"), [(0, (0, 0)), (4, (0, 4)), (5, (1, 0)), (23, (4, 3)), (40, (8, 0))])
def test_amarracos_of_five(tantos: int, expected: tuple[int, int]) -> None:
    # encyclopedia §4.6: "cada cinco piedras ... se le denomina amarraco".
    assert amarracos(tantos) == expected


# -- history --------------------------------------------------------------------------------------


def _played() -> Partida:
    p = Partida({"base": "ludoteka-4", "tantos": 40}, NAMES, mano=1)
    p.registrar(C, {"pares": {"quiero": 5}}, mano=3)
    p.registrar(C, {"chica": {"no_quiero": 1, "gana": 0}})
    p.registrar(C_PAREJA_1, ORDAGO)
    p.registrar(C)
    return p


def _snapshot(p: Partida) -> tuple:
    return (
        p.tantos,
        p.juegos,
        p.vacas,
        p.mano,
        p.terminada,
        p.ganador,
        p.reglas.to_dict() | {"fuente": ""},
        [(r.registro.mano, r.marcador, r.fin) for r in p.historial],
        p.jugadores,
    )


def test_history_round_trips_through_json() -> None:
    p = _played()
    text = p.to_json()
    json.loads(text)
    q = Partida.from_json(text)
    assert _snapshot(q) == _snapshot(p)
    assert q.to_json() == text


def test_builtin_profile_is_stored_by_name() -> None:
    assert Partida("cuellar").to_dict()["reglas"] == "cuellar"


def _history(**changes: Any) -> dict[str, Any]:
    return {**_played().to_dict(), **changes}


def _entry(**changes: Any) -> dict[str, Any]:
    return {"mano": 0, "manos": C, "lances": {}, **changes}


CORRUPT = {
    "not-json": "{nope",
    "not-an-object": [],
    "no-formato": {k: v for k, v in _played().to_dict().items() if k != "formato"},
    "wrong-version": _history(version=99),
    "unknown-profile": _history(reglas="murcia"),
    "bad-profile-override": _history(reglas={"base": "general", "reyes": 5}),
    "three-players": _history(jugadores=["Ana", "Luis", "Eva"]),
    "bad-mano-inicial": _history(mano_inicial=7),
    "hand-without-cards": _history(manos=[{"mano": 1}]),
    "hand-not-object": _history(manos=["12o 12c 11o 11c"]),
    "bad-card": _history(manos=[_entry(mano=1, manos=["12o 12c 11o 8c", *C[1:]])]),
    "dup-card": _history(manos=[_entry(mano=1, manos=[C[0], C[0], *C[2:]])]),
    "wrong-mano-later": _history(manos=[_entry(mano=1), _entry(mano=0)]),
    "hand-after-the-end": {
        **Partida("ludoteka-4").to_dict(),
        "manos": [_entry(mano=0, lances=ORDAGO), _entry(mano=1, lances=ORDAGO), _entry(mano=2)],
    },
    "bad-lances": _history(manos=[_entry(mano=1, lances={"grande": {"quiero": 0}})]),
    "jugadores-not-a-list": _history(jugadores=5),
    "manos-not-a-list": _history(manos=5),
    "jugadores-string": _history(jugadores="ABCD"),
    "mano-inicial-true": _history(mano_inicial=True, manos=[]),
    "lances-a-list": _history(manos=[_entry(mano=1, lances=["paso"])]),
    "declaraciones-a-list": _history(manos=[_entry(mano=1, declaraciones=["x"])]),
}
# Bugs B2 and B5 (TypeError, bare ValueError, or accepted) are fixed.


@pytest.mark.parametrize("data", [pytest.param(v, id=k) for k, v in CORRUPT.items()])
def test_corrupted_history_is_a_partida_error(data: Any) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(PartidaError) as info:
        Partida.from_json(text)
    assert "\n" not in str(info.value)


def test_history_is_checked_hand_by_hand_naming_the_hand() -> None:
    data = _history(manos=[_entry(mano=1), _entry(mano=2, manos=["12o 12c 11o 8c", *C[1:]])])
    with pytest.raises(PartidaError, match="mano 2"):
        Partida.from_dict(data)


# -- round trip of any sequence of valid hands (hypothesis) -----------------------------------------


@st.composite
def hands_and_lances(draw: st.DrawFn) -> tuple[list[str], dict[str, Any]]:
    ids = draw(st.permutations(CARD_IDS))
    manos = [" ".join(ids[i : i + 4]) for i in range(0, 16, 4)]
    lances: dict[str, Any] = {}
    # grande and chica can always be bet; pares and juego are left to the cards (en paso).
    for lance in ("grande", "chica"):
        kind = draw(st.sampled_from(["paso", "quiero", "no_quiero"]))
        if kind == "quiero":
            lances[lance] = {"quiero": draw(st.integers(2, 12))}
        elif kind == "no_quiero":
            lances[lance] = {"no_quiero": draw(st.integers(1, 6)), "gana": draw(st.integers(0, 1))}
    if draw(st.integers(0, 9)) == 0:
        lances["grande"] = {"ordago": "quiero"}
        lances.pop("chica", None)
    return manos, lances


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(sorted(PERFILES)),
    first_mano=st.integers(0, 3),
    corrido=st.one_of(st.none(), st.integers(0, 3)),
    hands=st.lists(hands_and_lances(), min_size=0, max_size=12),
)
def test_any_sequence_of_valid_hands_round_trips(
    profile: str, first_mano: int, corrido: int | None, hands: list
) -> None:
    p = Partida(profile, NAMES, mano=first_mano)
    for i, (manos, lances) in enumerate(hands):
        if p.terminada:
            break
        p.registrar(manos, lances, mano=corrido if i == 0 else None)
    q = Partida.from_json(p.to_json())
    assert _snapshot(q) == _snapshot(p)
    if p.historial:
        p.deshacer()
        q.deshacer()
        assert _snapshot(q) == _snapshot(p)


def test_corregir_sets_the_marcador_and_the_next_hand_counts_from_it() -> None:
    p = Partida("general", ["A", "B", "C", "D"])
    p.registrar(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    mano = p.mano
    assert p.corregir((30, 2), (0, 0), (0, 0)).tantos == (30, 2)
    assert p.mano == mano  # the mano is the hands', not the count's
    after = p.registrar(["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    assert after.registro.marcador == (30, 2)
    assert p.to_dict()["manos"] == Partida.from_dict(p.to_dict()).to_dict()["manos"]


@pytest.mark.parametrize(
    "args", [((1, 2, 3), (0, 0), (0, 0)), ((1, -2), (0, 0), (0, 0)), ((1, 2), (0, 0), (0, 0.5)), ((1, 2), "00", (0, 0))]
)
def test_corregir_refuses_what_is_no_marcador_and_changes_nothing(args) -> None:
    p = Partida()
    with pytest.raises(PartidaError):
        p.corregir(*args)
    with pytest.raises(PartidaError):
        p.corregir((1, 2), (0, 0), (0, 0), ganador=2)
    assert p.estado.tantos == (0, 0)
