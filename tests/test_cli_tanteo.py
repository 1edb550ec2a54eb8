"""`mus tanteo [--json] FILE`: the contract other tools rely on."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from musmesa.cli import main

ROOT = Path(__file__).resolve().parents[1]
C = ["12o 12c 11o 11c", "7o 7c 7e 1o", "4o 4c 5o 6o", "10o 10c 6c 5c"]  # en paso: 5-4 (test_tanteo.py)
GOOD = {"reglas": "general", "mano": 0, "manos": C}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["tanteo", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_output_for_one_record(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    status, out, err = run(capsys, "--json", str(write_json(GOOD)))
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert data["marcador"] == [5, 4] and data["fin"] is None
    assert data["por_lance"] == {"grande": [1, 0], "chica": [0, 1], "pares": [4, 0], "juego": [0, 3]}
    assert data["detalle"] and all(d["razon"] for d in data["detalle"])


def test_json_array_gives_an_array(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    records = [GOOD, {**GOOD, "marcador": [0, 39]}]
    status, out, _ = run(capsys, "--json", str(write_json(records)))
    data = json.loads(out)
    assert status == 0 and isinstance(data, list) and len(data) == 2
    assert data[1]["fin"] == {"ganador": 1, "por": "tantos"}


def test_dash_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # a real stdin: text over bytes (read_json reads the bytes, to bound them before decoding)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(GOOD).encode())))
    status, out, _ = run(capsys, "--json", "-")
    assert status == 0 and json.loads(out)["marcador"] == [5, 4]


def test_text_output(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    status, out, err = run(capsys, str(write_json({**GOOD, "jugadores": ["Ana", "Luis", "Eva", "Iker"]})))
    assert (status, err) == (0, "")
    assert "Ana" in out and "Marcador" in out


def test_bundled_examples_score(capsys: pytest.CaptureFixture[str]) -> None:
    # examples/manos.json is what README shows; every record in it must be valid.
    status, out, err = run(capsys, "--json", str(ROOT / "examples" / "manos.json"))
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert isinstance(data, list) and len(data) >= 3
    # The second example worked by hand (test_tanteo.py hands C, mano 1, from 12-20): grande
    # envite 3, chica en paso 1 to pareja 1, pares 5 + duples 3 + pareja 1, juego refused by
    # pareja 1: 1 + the 40 of seat 0 (2).
    assert data[1]["marcador"] == [12 + 3 + 9 + 3, 20 + 1]


BAD_INPUTS: dict[str, Any] = {
    "invalid-json": '{"manos": [',
    "empty-array": [],
    "unknown-profile": {**GOOD, "reglas": "murcia"},
    "bad-card": {**GOOD, "manos": ["12o 12c 11o 8c", *C[1:]]},
    "duplicate-card": {**GOOD, "manos": [C[0], C[0], *C[2:]]},
    "bet-not-allowed": {
        **GOOD,
        "manos": ["1o 4o 5o 6o", "1c 4c 7b 7c", "1e 4e 6e 7e", "10o 4b 5b 6b"],
        "lances": {"pares": {"quiero": 2}},
    },
    "bet-after-ordago": {**GOOD, "lances": {"grande": {"ordago": "quiero"}, "juego": {"quiero": 2}}},
    "unknown-key": {**GOOD, "colour": 1},
    "bad-outcome": {**GOOD, "lances": {"grande": {"quiero": 2, "no_quiero": 1}}},
    "array-with-bad-record": [GOOD, {**GOOD, "mano": 9}],
    "not-an-object": "42",
}


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path], name: str, as_json: bool
) -> None:
    path = write_json(BAD_INPUTS[name])
    status, out, err = run(capsys, *(["--json"] if as_json else []), str(path))
    assert status == 2
    assert err.count("\n") == 1 and err.strip()
    assert "Traceback" not in err
    if as_json:
        error = json.loads(out)["error"]
        assert error and "\n" not in error and error in err
    else:
        assert out == ""


def test_error_in_an_array_names_the_record(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]
) -> None:
    status, out, _ = run(capsys, "--json", str(write_json(BAD_INPUTS["array-with-bad-record"])))
    assert status == 2 and "registro 1" in json.loads(out)["error"]


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "--json", str(tmp_path / "nada.json"))
    assert status == 2 and "nada.json" in err and "error" in json.loads(out)


def test_float_mano_exit_2(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    # JSON 1.0 as the mano: one clear line and exit 2, never a TypeError traceback.
    status, out, err = run(capsys, "--json", str(write_json({**GOOD, "mano": 1.0})))
    assert status == 2 and "mano" in json.loads(out)["error"] and err.count("\n") == 1


def test_deeply_nested_json_exit_2(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    # deep nesting: one clear line and exit 2, never a RecursionError traceback.
    status, out, _ = run(capsys, "--json", str(write_json("[" * 100_000 + "]" * 100_000)))
    assert status == 2 and "error" in json.loads(out)


def _mus() -> list[str]:
    script = Path(sys.executable).with_name("mus")
    return [str(script)] if script.exists() else [sys.executable, "-m", "musmesa"]


def test_installed_mus_command(write_json: Callable[..., Path]) -> None:
    ok = subprocess.run(
        [*_mus(), "tanteo", "--json", "-"],
        input=json.dumps([GOOD]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)[0]["marcador"] == [5, 4]
    bad = subprocess.run(
        [*_mus(), "tanteo", "--json", str(write_json(BAD_INPUTS["bad-card"]))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "8c" in bad.stderr
    assert "8c" in json.loads(bad.stdout)["error"]


def test_missing_file_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["tanteo"])
    assert info.value.code == 2
    assert "FILE" in capsys.readouterr().err


def _nested_reglas(depth: int) -> str:
    return '{"base": ' * depth + '"general"' + "}" * depth


_MANOS = json.dumps(C)
ISSUE_29: dict[str, tuple[str, str]] = {
    # name: (the file's JSON text, what the message says)
    "surrogate-in-a-name": (f'{{"manos": {_MANOS}, "jugadores": ["\\ud800", "B", "C", "D"]}}', "caracteres no válidos"),
    "4301-digit-mano": (f'{{"manos": {_MANOS}, "mano": {"9" * 4301}}}', "demasiado largo"),
    "19-digit-mano": (f'{{"manos": {_MANOS}, "mano": {"9" * 19}}}', "demasiado largo"),
    "float-seat-1": (
        json.dumps(
            {"reglas": "segovia", "manos": C, "declaraciones": {"ensenadas": [{"asiento": 1.0, "lance": "pares"}]}}
        ),
        "asiento 1.0",
    ),
    "float-seat-3": (
        json.dumps(
            {"reglas": "segovia", "manos": C, "declaraciones": {"ensenadas": [{"asiento": 3.0, "lance": "pares"}]}}
        ),
        "asiento 3.0",
    ),
    "bool-seat": (
        json.dumps(
            {"reglas": "segovia", "manos": C, "declaraciones": {"ensenadas": [{"asiento": True, "lance": "pares"}]}}
        ),
        "asiento True",
    ),
    "ensenadas-not-a-list": (
        json.dumps({"manos": C, "declaraciones": {"ensenadas": 5}}),
        "ensenadas debe ser una lista",
    ),
    "float-declaration": (
        json.dumps({"reglas": "segovia", "manos": C, "declaraciones": {"pares": [1.0, None, None, None]}}),
        "declaraciones.pares[0]",
    ),
    "reglas-500-deep": (f'{{"manos": {_MANOS}, "reglas": {_nested_reglas(500)}}}', "profundo"),
    "reglas-base-not-a-name": (f'{{"manos": {_MANOS}, "reglas": {_nested_reglas(3)}}}', "base debe ser el nombre"),
    "float-reyes": (json.dumps({"manos": C, "reglas": {"reyes": 8.0}}), "reyes debe ser 4 u 8"),
    "nan-marcador": (f'{{"manos": {_MANOS}, "marcador": [NaN, 0]}}', "NaN"),
    "full-width-card": (json.dumps({"manos": ["１２o 12c 11o 11c", *C[1:]]}), "１２o"),
    "arabic-indic-card": (json.dumps({"manos": ["١٢o 12c 11o 11c", *C[1:]]}), "١٢o"),
}


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("name", sorted(ISSUE_29))
def test_issue_29_inputs_exit_2_with_one_short_line(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path], name: str, as_json: bool
) -> None:
    text, says = ISSUE_29[name]
    status, out, err = run(capsys, *(["--json"] if as_json else []), str(write_json(text)))
    assert status == 2 and err.startswith("mus: ") and err.count("\n") == 1, err[:300]
    assert says in err and len(err) <= 300
    if as_json:
        assert json.loads(out)["error"] in err
    else:
        assert out == ""


def test_a_huge_hand_is_quoted_as_an_excerpt(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]
) -> None:
    hand = "x" * 5_000_000 + " 3c 11e 1b"  # under the 8 MiB limit: the card is what is wrong
    status, out, err = run(capsys, "--json", str(write_json({"manos": [hand, *C[1:]]})))
    assert status == 2 and err.count("\n") == 1 and len(err) <= 300
    assert "se espera rango y palo" in err and "car.)" in err
    assert len(out) <= 300


def test_an_input_over_the_limit_is_refused(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]
) -> None:
    from scoring.inputs import MAX_INPUT_BYTES

    status, out, err = run(capsys, "--json", str(write_json([GOOD] * (MAX_INPUT_BYTES // 80))))
    assert status == 2 and "demasiado grande" in err and "8 MiB" in err
    assert err.count("\n") == 1 and len(err) <= 300 and json.loads(out)["error"] in err


def test_an_array_is_printed_as_one_json_array(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]
) -> None:
    records = [GOOD, {**GOOD, "jugadores": ["Ñuño", "B", "C", "D"]}, {**GOOD, "marcador": [0, 39]}]
    status, out, _ = run(capsys, "--json", str(write_json(records)))
    assert status == 0
    assert out == json.dumps([json.loads(json.dumps(r)) for r in json.loads(out)], ensure_ascii=False, indent=2) + "\n"
    assert [r["marcador"] for r in json.loads(out)] == [[5, 4], [5, 4], [1, 40]]


@pytest.mark.slow
def test_an_array_near_the_limit_in_bounded_time_and_memory(tmp_path: Path) -> None:
    import resource
    import time

    from scoring.inputs import MAX_INPUT_BYTES

    one = json.dumps({**GOOD, "jugadores": ["Ana", "Luis", "Eva", "Iker"], "marcador": [10, 20]})
    path = tmp_path / "big.json"
    path.write_text("[" + ",".join([one] * (MAX_INPUT_BYTES // (len(one) + 1) - 1)) + "]")
    start = time.monotonic()
    done = subprocess.run(
        [*_mus(), "tanteo", "--json", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-300:]
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert time.monotonic() - start < 120 and peak_mib < 600, (time.monotonic() - start, peak_mib)


# -- the contract, byte for byte -------------------------------------------------------------------
# tests/data/tanteo/: 24 varied hand records (every profile family, paso, quiero, no quiero, órdago,
# deje, declaraciones, a juego ended by tantos and by órdago) and what `mus tanteo --json` printed
# for them, and the records as RegistroMano.to_dict writes them back, both saved from the engine
# before its outcomes became typed values. Any change to these files is a change of the contract.
GOLDEN = ROOT / "tests" / "data" / "tanteo"


def test_json_output_is_byte_for_byte_the_pinned_contract(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--json", str(GOLDEN / "registros.json"))
    assert (status, err) == (0, "")
    assert out == (GOLDEN / "tanteo.json").read_text(encoding="utf-8")


def test_hand_record_format_written_back_is_the_pinned_one() -> None:
    from scoring.tanteo import RegistroMano

    records = json.loads((GOLDEN / "registros.json").read_text(encoding="utf-8"))
    written = [RegistroMano.from_dict(r).to_dict() for r in records]
    assert json.dumps(written, ensure_ascii=False, indent=1) + "\n" == (GOLDEN / "registros_dict.json").read_text(
        encoding="utf-8"
    )


# -- `mus tanteo --idioma` --------------------------------------------------------------------

NAMED = {**GOOD, "jugadores": ["Ana", "Iñaki", "Bea", "Josu"], "lances": {"chica": {"no_quiero": 2, "gana": 0}}}


@pytest.mark.parametrize(
    ("idioma", "says"),
    [
        (
            "es",
            ["Reglas: general", "Chica: envite no querido por Iñaki y Josu, 2 para Ana y Bea", "Marcador: Ana y Bea"],
        ),
        ("eu", ["Arauak: general", "Txikia: Iñaki eta Josu bikoteak ez du enbidoa onartu", "Markagailua: Ana eta Bea"]),
        (
            "en",
            ["Rules: general", "Chica: envite refused by Iñaki and Josu, 2 to Ana and Bea", "Scoreboard: Ana and Bea"],
        ),
    ],
)
def test_idioma_writes_the_text_and_its_reasons_in_the_language(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path], idioma: str, says: list[str]
) -> None:
    status, out, err = run(capsys, "--idioma", idioma, str(write_json(NAMED)))
    assert (status, err) == (0, "")
    for text in says:
        assert text in out, out
    if idioma != "es":
        assert " para " not in out and " gana " not in out and "Marcador" not in out


def test_spanish_is_the_default_and_json_stays_the_contract(
    capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]
) -> None:
    path = str(write_json(NAMED))
    assert run(capsys, path)[1] == run(capsys, "--idioma", "es", path)[1]
    spanish = json.loads(run(capsys, "--json", path)[1])
    assert json.loads(run(capsys, "--json", "--idioma", "en", path)[1]) == spanish  # razon stays Spanish there
    assert spanish["detalle"][0]["razon"].startswith("Chica: envite no querido por Iñaki y Josu")


def test_unknown_idioma_exits_2(capsys: pytest.CaptureFixture[str], write_json: Callable[..., Path]) -> None:
    with pytest.raises(SystemExit) as info:
        run(capsys, "--idioma", "fr", str(write_json(GOOD)))
    assert info.value.code == 2 and "--idioma" in capsys.readouterr().err
