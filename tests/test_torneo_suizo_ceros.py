"""A 12-pareja elimination to two ceros and a 10-pareja Swiss of 4 rounds played through the API
with simulated tables: who plays, who rests, who is out, no pair twice, the standings."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests.test_torneo_api import client1, organizador, srv1, torneo  # noqa: F401 (fixtures)


def _jugar_ronda(client: TestClient, h: dict[str, str], tid: int, rng: random.Random) -> dict[str, Any] | None:
    """Start the next round and play each of its matches to the end; None when none is left."""
    r = client.post(f"/api/torneos/{tid}/rondas", headers=h)
    if r.status_code == 409:
        assert "ha terminado" in r.json()["error"]
        return None
    assert r.status_code == 201, r.text
    ronda = r.json()
    for m in client.get(f"/api/torneos/{tid}", headers=h).json()["mesas"]:
        try:
            mesa = MesaSimulada.unirse(client, m["codigo"], semilla=rng.randrange(10**6))
        except Exception:
            continue  # a table with no match yet
        if mesa.siguiente > 1:
            continue  # the table's last match, finished in an earlier round: none for it this round
        while not mesa.partida.terminada:
            mesa.jugar()
        assert mesa.enviar(client) >= 1
    return ronda


def _partidas(client: TestClient, h: dict[str, str], tid: int) -> list[dict[str, Any]]:
    return client.get(f"/api/torneos/{tid}", headers=h).json()["partidas"]


def test_eliminacion_a_dos_ceros(srv1: Servidor, client1: TestClient) -> None:  # noqa: F811
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=12, mesas=6, tipo="ceros", ceros=2, juegos=1, semilla=3)
    rng = random.Random(1)
    rondas = 0
    while (ronda := _jugar_ronda(client1, h, tid, rng)) is not None:
        rondas += 1
        assert ronda["fase"] == "ceros"
        assert rondas < 30
    partidas = _partidas(client1, h, tid)
    ceros: Counter[str] = Counter()
    descansos: Counter[str] = Counter()
    vistos: set[frozenset[str]] = set()
    por_ronda: dict[int, list[dict[str, Any]]] = {}
    for p in partidas:
        por_ronda.setdefault(p["ronda"], []).append(p)
    for n, ps in sorted(por_ronda.items()):
        vivas = {nombre for nombre in (f"P{i}" for i in range(12)) if ceros[nombre] < 2}
        en_ronda = [x for p in ps for x in p["parejas"] if x]
        assert sorted(en_ronda) == sorted(vivas), f"ronda {n}: every pareja still in plays or rests, once"
        for p in ps:
            a, b = p["parejas"]
            if b is None:
                descansos[a] += 1
                continue
            assert frozenset((a, b)) not in vistos or len(vivas) <= 3, f"{a} y {b} otra vez en la ronda {n}"
            vistos.add(frozenset((a, b)))
            ceros[b if p["ganador"] == 0 else a] += 1
    fuera = [x for x, c in ceros.items() if c >= 2]
    assert len(fuera) == 11
    estado = client1.get(f"/api/torneos/{tid}", headers=h).json()
    campeon = next(f"P{i}" for i in range(12) if f"P{i}" not in fuera)
    assert estado["terminado"] and estado["campeon"] == campeon
    assert max(descansos.values(), default=0) <= 1
    tabla = client1.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    assert tabla[0]["nombre"] == campeon and tabla[0]["ceros"] <= 1
    assert {f["nombre"]: f["ceros"] for f in tabla} == {f"P{i}": ceros[f"P{i}"] for i in range(12)}
    assert all(f["ganadas"] + f["perdidas"] == f["jugadas"] for f in tabla)  # a rest is not a win


def test_suizo_de_cuatro_rondas(srv1: Servidor, client1: TestClient) -> None:  # noqa: F811
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=10, mesas=5, tipo="suizo", rondas=4, juegos=1, semilla=5)
    rng = random.Random(2)
    fases = []
    while (ronda := _jugar_ronda(client1, h, tid, rng)) is not None:
        fases.append(ronda["fase"])
    assert fases == ["suizo"] * 4
    partidas = _partidas(client1, h, tid)
    pares = [frozenset(p["parejas"]) for p in partidas if None not in p["parejas"]]
    assert len(pares) == len(set(pares)) == 20, "no pair twice, five matches a round"
    victorias: Counter[str] = Counter()
    for p in partidas:
        victorias[p["parejas"][p["ganador"]]] += 1
    tabla = client1.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    assert [f["ganadas"] for f in tabla] == sorted((victorias[f["nombre"]] for f in tabla), reverse=True)
    rivales: dict[str, list[str]] = {}
    for p in partidas:
        a, b = p["parejas"]
        rivales.setdefault(a, []).append(b)
        rivales.setdefault(b, []).append(a)
    for f in tabla:
        assert f["buchholz"] == sum(victorias[r] for r in rivales[f["nombre"]])
    # between parejas level on wins, the higher Buchholz comes first
    for x, y in itertools.pairwise(tabla):
        if x["ganadas"] == y["ganadas"]:
            assert x["buchholz"] >= y["buchholz"]
    estado = client1.get(f"/api/torneos/{tid}", headers=h).json()
    assert estado["terminado"] and estado["campeon"] == tabla[0]["nombre"]


def test_suizo_con_eliminatoria_de_los_cuatro_primeros(srv1: Servidor, client1: TestClient) -> None:  # noqa: F811
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=9, mesas=5, tipo="suizo", rondas=3, clasifican=4, juegos=1)
    rng = random.Random(3)
    fases = []
    while (ronda := _jugar_ronda(client1, h, tid, rng)) is not None:
        fases.append(ronda["fase"])
    assert fases == ["suizo"] * 3 + ["eliminatoria"] * 2
    partidas = _partidas(client1, h, tid)
    descansos = [p["parejas"][0] for p in partidas if p["parejas"][1] is None]
    assert len(descansos) == 3 and len(set(descansos)) == 3, "one rest a round, never the same pareja twice"


@pytest.mark.parametrize(
    ("formato", "error"),
    [
        ({"tipo": "suizo"}, "rondas"),
        ({"tipo": "ceros", "ceros": 4}, "ceros"),
        ({"tipo": "suizo", "rondas": 3, "desempates": ["buchholz", "buchholz"]}, "desempate"),
    ],
)
def test_formatos_imposibles(srv1: Servidor, client1: TestClient, formato: dict[str, Any], error: str) -> None:  # noqa: F811
    h = organizador(srv1, client1)
    body = {
        "nombre": "Open",
        "formato": formato,
        "parejas": [{"nombre": f"P{i}", "jugadores": ["a", "b"]} for i in range(4)],
        "mesas": 2,
    }
    r = client1.post("/api/torneos", headers=h, json=body)
    assert r.status_code == 422 and error in r.json()["error"], r.text
