"""The no-loss property of the load test, short: 8 simulated tables for ~12 s against a real
server, random network drops and one `kill -9` of the server midway. The full run (64
tables, minutes) is `benchmarks/torneo_carga.py`; its figures are not asserted here."""

from __future__ import annotations

import glob
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("uvicorn")


def _carga() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "torneo_carga.py"
    spec = importlib.util.spec_from_file_location("torneo_carga", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_hand_is_stored_once_through_drops_and_a_kill_9():
    # comprobar() inside asserts: stored ids == confirmed ids per table, none twice, and the
    # standings equal the sum of the tables' own marcadores
    r = _carga().main(["--mesas", "8", "--minutos", "0.2", "--intervalo", "0.4", "--caidas", "0.2", "--json"])
    assert r["muertes"] == 1
    assert r["manos"] >= 8 * 5  # each table got hands through, before and after the kill


@pytest.mark.slow
@pytest.mark.skipif(not glob.glob("/usr/lib/postgresql/*/bin/initdb"), reason="PostgreSQL no está instalado")
def test_every_hand_is_stored_once_against_postgresql_too():
    r = _carga().main(
        ["--mesas", "8", "--minutos", "0.2", "--intervalo", "0.4", "--caidas", "0.2", "--postgres", "--json"]
    )
    assert r["base"] == "postgresql" and r["manos"] >= 8 * 5
