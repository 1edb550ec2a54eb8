"""The referee log: a hash chain that shows any edit, deletion, insertion or reordering."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.registro import (
    GENESIS,
    RegistroArbitro,
    RegistroArbitroError,
    calcular_hash,
    huella_archivo,
    verificar,
)

FIXTURE = Path(__file__).parent / "data" / "arbitro" / "registro_partida.json"


def partida(clave: bytes | None = None) -> RegistroArbitro:
    log = RegistroArbitro.nuevo({"reglas": "segovia", "jugadores": ["Ana", "Luis", "Eva", "Juan"]}, clave)
    log.anotar("mano", {"numero": 1, "mano": 0}, t=0.0)
    log.anotar("fase", {"fase": "reparto"}, t=0.5)
    log.anotar("sena", {"jugador": 1, "gesto": "guino", "sena": "treinta y una"}, t=12.25)
    log.anotar("cartas", {"jugador": 1, "cartas": "12o 11c 10e 1b"}, t=80.0)
    return log


def test_chain_links_every_entry() -> None:
    log = partida()
    entradas = log.entradas
    assert entradas[0].anterior == GENESIS
    for before, after in itertools.pairwise(entradas):
        assert after.anterior == before.hash
    assert log.sello == entradas[-1].hash
    assert verificar(log.to_json()).valido


def test_recorded_fixture_still_verifies() -> None:
    # Hashes are computed on canonical JSON: a log written by an earlier version keeps verifying.
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    check = verificar(data, sello=data["sello"])
    assert check.valido and check.sello == data["sello"]
    log = RegistroArbitro.cargar(FIXTURE)
    assert log.cerrado and log.entradas[-1].tipo == "cierre"


def mutations(data: dict) -> dict[str, dict]:
    out = {}
    edited = copy.deepcopy(data)
    edited["entradas"][3]["datos"]["gesto"] = "morro"
    out["editada"] = edited
    retimed = copy.deepcopy(data)
    retimed["entradas"][3]["t"] = 13.0
    out["hora cambiada"] = retimed
    removed = copy.deepcopy(data)
    del removed["entradas"][2]
    out["borrada"] = removed
    swapped = copy.deepcopy(data)
    swapped["entradas"][2], swapped["entradas"][3] = swapped["entradas"][3], swapped["entradas"][2]
    out["reordenada"] = swapped
    truncated = copy.deepcopy(data)
    del truncated["entradas"][-1]
    out["recortada"] = truncated
    return out


@pytest.mark.parametrize("kind", ["editada", "hora cambiada", "borrada", "reordenada", "recortada"])
def test_any_tampering_shows(kind: str) -> None:
    data = partida().to_json()
    check = verificar(mutations(data)[kind])
    assert not check.valido
    assert check.motivo


def test_the_first_bad_entry_is_named() -> None:
    data = partida().to_json()
    data["entradas"][3]["datos"]["sena"] = "juego"
    check = verificar(data)
    assert (check.valido, check.entrada) == (False, 3)
    assert "modificada" in check.motivo


def test_a_rebuilt_chain_is_caught_by_the_sello_on_the_acta() -> None:
    log = partida()
    acta = log.sello_corto
    forged = RegistroArbitro.nuevo({"reglas": "segovia", "jugadores": ["Ana", "Luis", "Eva", "Juan"]})
    forged.anotar("mano", {"numero": 1, "mano": 0}, t=0.0)
    assert verificar(forged.to_json()).valido  # internally consistent...
    assert not verificar(forged.to_json(), sello=acta).valido  # ...but not the one on the acta
    assert verificar(log.to_json(), sello=acta).valido
    assert not verificar(log.to_json(), sello=acta[:6]).valido  # too short to mean anything


def test_hmac_key() -> None:
    log = partida(clave=b"secreto del juez")
    data = log.to_json()
    assert data["algoritmo"] == "hmac-sha256"
    assert verificar(data, clave=b"secreto del juez").valido
    assert not verificar(data, clave=b"otra clave").valido
    assert not verificar(data).valido  # plain sha256 expected
    # without the key a forger cannot produce a valid entry
    data["entradas"][3]["datos"]["gesto"] = "morro"
    data["entradas"][3]["hash"] = calcular_hash(
        {k: data["entradas"][3][k] for k in ("indice", "tipo", "datos", "t", "anterior")}
    )
    assert not verificar(data, clave=b"secreto del juez").valido


def test_closed_log_and_bad_entries() -> None:
    log = partida()
    sello = log.cerrar(t=90.0)
    assert sello == log.sello and log.cerrado
    with pytest.raises(RegistroArbitroError, match="cerrado"):
        log.anotar("nota", {"texto": "tarde"})
    fresh = partida()
    with pytest.raises(RegistroArbitroError, match="tipo de entrada desconocido"):
        fresh.anotar("gol", {})
    with pytest.raises(RegistroArbitroError, match="JSON"):
        fresh.anotar("nota", {"valor": float("nan")})
    with pytest.raises(RegistroArbitroError, match="JSON"):
        fresh.anotar("nota", {"valor": object()})
    with pytest.raises(RegistroArbitroError, match="segundos"):
        fresh.anotar("nota", {}, t="ayer")


def test_entries_are_copies() -> None:
    datos = {"jugador": 1, "gestos": ["guino"]}
    log = partida()
    log.anotar("nota", datos)
    datos["gestos"].append("morro")
    assert verificar(log.to_json()).valido
    assert log.entradas[-1].datos["gestos"] == ["guino"]


def test_save_load_round_trip(tmp_path) -> None:
    path = tmp_path / "registro.json"
    log = partida()
    log.guardar(path)
    again = RegistroArbitro.cargar(path)
    assert again.sello == log.sello and len(again.entradas) == len(log.entradas)
    again.anotar("nota", {"texto": "sigue"})
    assert verificar(again.to_json()).valido
    path.write_text(path.read_text(encoding="utf-8").replace("guino", "morro"), encoding="utf-8")
    with pytest.raises(RegistroArbitroError, match="alterado"):
        RegistroArbitro.cargar(path)
    with pytest.raises(RegistroArbitroError, match="no se puede leer"):
        RegistroArbitro.cargar(tmp_path / "nada.json")


def test_file_fingerprint(tmp_path) -> None:
    thumb = tmp_path / "sena.png"
    thumb.write_bytes(b"\x89PNG fake thumbnail")
    h = huella_archivo(thumb)
    assert len(h) == 64
    thumb.write_bytes(b"\x89PNG other thumbnail")
    assert huella_archivo(thumb) != h


@pytest.mark.parametrize("data", [None, [], {"formato": "otro"}, {"formato": "musmesa-arbitro/1"}])
def test_not_a_log(data) -> None:
    assert not verificar(data).valido


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=3), min_size=1, max_size=6), st.data())
def test_changing_any_entry_field_is_detected(datos_list, data) -> None:
    log = RegistroArbitro.nuevo({"reglas": "general"})
    for i, datos in enumerate(datos_list):
        log.anotar("nota", datos, t=float(i))
    exported = json.loads(json.dumps(log.to_json()))  # through real JSON text
    assert verificar(exported).valido
    i = data.draw(st.integers(0, len(exported["entradas"]) - 1))
    field = data.draw(st.sampled_from(("datos", "t", "tipo", "indice", "anterior")))
    entry = exported["entradas"][i]
    new = {
        "datos": {**entry["datos"], "añadido": True},
        "t": (entry["t"] or 0.0) + 1.5,
        "tipo": "cierre" if entry["tipo"] != "cierre" else "nota",
        "indice": entry["indice"] + 1,
        "anterior": "f" * 64,
    }[field]
    entry[field] = new
    assert not verificar(exported).valido
