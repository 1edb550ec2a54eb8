"""Fuzzing `mus tanteo` and `mus arbitro` the way a user's bad file would: valid inputs mutated
(wrong types, huge numbers, lone surrogates, deep nesting, missing and extra keys) always give
their answer or one line starting "mus" with exit status 2, never a traceback; with ``--json``
stdout is JSON (no NaN). A referee log that fails its check is status 1, as README says."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from musmesa.cli import main

DATA = Path(__file__).resolve().parent / "data" / "arbitro"

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_LINE = 300  # "mus: " and the message; scoring.cli cuts longer ones

C = ["12o 12c 11o 11c", "7o 7c 7e 1o", "4o 4c 5o 6o", "10o 10c 6c 5c"]
RECORDS: list[dict[str, Any]] = [
    {"reglas": "general", "mano": 0, "manos": C},
    {
        "reglas": "segovia",
        "mano": 1,
        "manos": C,
        "marcador": [10, 20],
        "jugadores": ["Ana", "Luis", "Eva", "Iker"],
        "lances": {
            "grande": {"quiero": 2},
            "chica": {"no_quiero": 1, "gana": 0},
            "pares": "paso",
            "juego": {"ordago": "quiero"},
        },
    },
    {
        "reglas": "segovia",
        "manos": C,
        "declaraciones": {
            "pares": [True, False, True, None],
            "juego": ["si", "no", None, None],
            "ensenadas": [{"asiento": 1, "lance": "pares"}],
        },
    },
    {
        "reglas": {"base": "euskadi", "reyes": 4, "tantos": 30},
        "manos": C,
        "declaraciones": {"pares": [None, None, True, True]},
    },
]
EVENTS: dict[str, Any] = {
    "fases": [
        {"fase": "reparto", "inicio": 0.0},
        {"fase": "mus", "inicio": 6.0},
        {"fase": "grande", "inicio": 20.0},
        {"fase": "pares", "inicio": 55.0},
    ],
    "primera_mano": False,
    "eventos": [
        {"gesto": "labio_mordido", "inicio": 3.1, "fin": 3.4, "confianza": 0.9},
        {"gesto": "labios_lado", "lado": "izquierdo", "inicio": 8.0, "fin": 8.5, "confianza": 0.91},
        {"gesto": "guino", "inicio": 25.0, "fin": 25.3, "confianza": 0.88, "fase": "juego"},
    ],
}


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is: what json.dumps cannot write (a 5,000-digit integer, NaN,
    500 levels of brackets)."""

    text: str


def dump(value: Any) -> str:
    """JSON text of ``value``, with Raw pieces inlined; surrogates escaped as \\udXXX."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{dump(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dump(v) for v in value) + "]"
    return json.dumps(value)


def _nested(depth: int) -> Raw:
    return Raw('{"a":' * depth + "1" + "}" * depth)


ODD_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "\ud800",
            "A\udfff",
            "１２o",
            "١٢o",
            "12o\u3000",
            "",
            " ",
            "x" * 5000,
            "12o 12c 11o",
            "paso",
            "quiero",
            "segovia",
            "pares",
        ]
    ),
)
ODD_NUMBER = st.one_of(
    st.integers(-5, 50),
    st.sampled_from([0.0, 1.0, 3.0, -0.0, 1e308, 2.5]),
    st.integers(10**17, 10**40),
    st.integers(19, 6000).map(lambda n: Raw("9" * n)),
    st.sampled_from([Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e999"), Raw("-1e400")]),
)
LEAF = st.one_of(st.booleans(), st.none(), ODD_TEXT, ODD_NUMBER)
ODD = st.one_of(
    LEAF,
    st.lists(LEAF, max_size=5),
    st.dictionaries(
        st.sampled_from(["asiento", "lance", "quiero", "gana", "base", "fase", "inicio", "gesto", "zzz"]),
        LEAF,
        max_size=3,
    ),
    st.integers(1, 600).map(_nested),
    st.integers(1, 600).map(lambda n: Raw("[" * n + "]" * n)),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """``base`` with one to three changes: a value replaced, a key removed or one added."""
    value = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(value)))
        if not path:
            value = draw(ODD)
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "remove", "add"]))
        if action == "remove":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "mano", "fase", "\ud800", "x" * 300]))] = draw(ODD)
        else:
            parent[path[-1]] = draw(ODD)
        if not isinstance(value, dict | list):
            break
    return value


def run_mus(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _no_nan(token: str) -> Any:
    raise AssertionError(f"{token} in the JSON output")


def check(status: int, out: str, err: str) -> None:
    """The contract: an answer (0) or one short line starting "mus" (2); JSON on stdout."""
    assert status in (0, 2), (status, err)
    assert "Traceback" not in err
    if status == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("mus"), err[:500]
        assert len(lines[0]) <= MAX_LINE, lines[0][:500]
    json.loads(out, parse_constant=_no_nan)
    out.encode("utf-8")  # printable: no lone surrogate reached stdout


_TMP = tempfile.TemporaryDirectory(prefix="mus-fuzz-")


def write(text: str) -> str:
    path = Path(_TMP.name) / "input.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


@FUZZ
@given(st.sampled_from(RECORDS).flatmap(mutated))
def test_tanteo_on_a_mutated_record(record: Any) -> None:
    check(*run_mus(["tanteo", "--json", write(dump(record))]))


@FUZZ
@given(st.lists(st.sampled_from(RECORDS).flatmap(mutated), min_size=1, max_size=4))
def test_tanteo_on_an_array_of_mutated_records(records: list[Any]) -> None:
    check(*run_mus(["tanteo", "--json", write(dump(records))]))


@FUZZ
@given(
    mutated(EVENTS),
    st.sampled_from(["general", "segovia", "euskadi"]),
    st.sampled_from(["12o 12c 1e 1b", "12o 12c 3e 5b", "4o 4c 6e 7b"]),
)
def test_arbitro_on_a_mutated_events_file(events: Any, perfil: str, cartas: str) -> None:
    status, out, err = run_mus(
        ["arbitro", "--senas", write(dump(events)), "--cartas", cartas, "--perfil", perfil, "--json"]
    )
    check(status, out, err)
    if status == 0:
        assert err == "" and "hallazgos" in json.loads(out)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(json.loads((DATA / "registro_partida.json").read_text(encoding="utf-8"))))
def test_arbitro_on_a_mutated_referee_log(log: Any) -> None:
    status, out, err = run_mus(["arbitro", "--verificar", write(dump(log)), "--json"])
    if status == 1:  # an altered log: the verdict, on stdout
        assert err == "" and json.loads(out)["valido"] is False
        return
    check(status, out, err)
