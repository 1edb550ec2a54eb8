"""Full tanteos per second on random hand records, on one core (the aim: >= 50,000/s).

Each record is a random deal of 16 distinct cards, a random mano and scoreboard, a random profile
and a random valid outcome for every lance that can be bet; one tanteo is the whole
``tantear(record)`` call, from the plain JSON-like dict (parsing and validation included) to the
result with its reasons.

    .venv/bin/python benchmarks/bench_tanteo.py            # 20,000 records, best of 5 runs
    .venv/bin/python benchmarks/bench_tanteo.py --n 50000 --repeat 3 --profile general
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.cards import CARD_IDS, parse_hand
from scoring.jugadas import cuarto_lance, evaluar, se_apuesta
from scoring.rules import PERFILES, perfil
from scoring.tanteo import tantear


def random_outcome(rng: random.Random) -> Any:
    kind = rng.choice(("paso", "paso", "quiero", "no_quiero", "ordago"))
    if kind == "quiero":
        return {"quiero": rng.randint(2, 20)}
    if kind == "no_quiero":
        return {"no_quiero": rng.choice((1, 1, 2, 4)), "gana": rng.randint(0, 1)}
    if kind == "ordago":
        return {"ordago": "quiero"}
    return "paso"


def random_record(rng: random.Random, profiles: list[str]) -> dict[str, Any]:
    """One valid hand record: bets only where both parejas may bet, nothing after an órdago."""
    name = rng.choice(profiles)
    reglas = perfil(name)
    cards = rng.sample(CARD_IDS, 16)
    manos = [" ".join(cards[i : i + 4]) for i in range(0, 16, 4)]
    jugadas = [evaluar(parse_hand(m), reglas) for m in manos]
    lances: dict[str, Any] = {}
    for lance in ("grande", "chica", "pares", cuarto_lance(jugadas)):
        if not se_apuesta(lance, jugadas):
            continue
        outcome = random_outcome(rng)
        if outcome != "paso":
            lances[lance] = outcome
        if outcome == {"ordago": "quiero"}:
            break
    return {
        "reglas": name,
        "mano": rng.randint(0, 3),
        "manos": manos,
        "marcador": [rng.randrange(reglas.tantos), rng.randrange(reglas.tantos)],
        "lances": lances,
    }


def random_records(n: int, seed: int = 0, profiles: list[str] | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    names = profiles or sorted(PERFILES)
    return [random_record(rng, names) for _ in range(n)]


def tanteos_per_second(records: list[dict[str, Any]], repeat: int) -> tuple[float, float]:
    """Best rate over ``repeat`` passes over all records: by wall clock and by CPU time of this
    process (the second is the fairer figure on a machine shared with other jobs)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for record in records:
            tantear(record)
        wall.append(len(records) / (time.perf_counter() - start))
        cpu.append(len(records) / max(time.process_time() - start_cpu, 1e-9))
    return max(wall), max(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="random records per pass")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes; the best is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--profile",
        action="append",
        choices=sorted(PERFILES),
        help="profile(s) to draw from (default: all built-in profiles)",
    )
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):  # one core, as the issue asks
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    records = random_records(args.n, args.seed, args.profile)
    for record in records[:500]:  # warm-up
        tantear(record)
    wall, cpu = tanteos_per_second(records, args.repeat)
    print(
        f"{wall:,.0f} tanteos/s wall clock, {cpu:,.0f} tanteos/s of CPU time (best of {args.repeat} "
        f"passes over {args.n:,} random records) on one core, Python {platform.python_version()}, "
        f"{platform.machine()}, load average {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
