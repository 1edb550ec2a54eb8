"""Benchmark of full tanteos on random hand records (run on demand: `make bench`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from scoring.tanteo import tantear


def _bench_module() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_tanteo.py"
    spec = importlib.util.spec_from_file_location("bench_tanteo", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.benchmark
def test_bench_tanteo_random_records(benchmark) -> None:  # type: ignore[no-untyped-def]
    records = _bench_module().random_records(2_000, seed=1)

    def run() -> int:
        return sum(1 for record in records if tantear(record).marcador)

    assert benchmark(run) == len(records)
    benchmark.extra_info["tanteos_per_round"] = len(records)
