"""scoring.inputs: the limits every command's JSON input is read within."""

from __future__ import annotations

import io

import pytest

from scoring import inputs
from scoring.inputs import InputError, excerpt, parse_json, read_json


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"a": "\\ud800"}', "no válidos"),
        ('{"mano": ' + "9" * 5000 + "}", "demasiado largo"),
        ("[NaN]", "no es un número"),
        ("[1e999]", "fuera de rango"),
        ("[" * 500 + "]" * 500, "anidado"),
        ('{"a": ', "JSON inválido"),
    ],
)
def test_bad_json_is_one_clear_line(text, says):
    with pytest.raises(InputError, match=says) as exc:
        parse_json(text, "f.json")
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 200


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert parse_json('{"n": "' + "[" * 100 + '"}', "f") == {"n": "[" * 100}


def test_input_over_the_limit_is_refused_without_reading_it_all(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text("[" + ", ".join(["1"] * 600) + "]")
    with pytest.raises(InputError, match="demasiado grande"):
        read_json(str(big))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(big.read_bytes())))
    with pytest.raises(InputError, match="demasiado grande"):
        read_json("-")


def test_files_that_cannot_be_read(tmp_path):
    with pytest.raises(InputError, match="no existe"):
        read_json(str(tmp_path / "no.json"))
    with pytest.raises(InputError, match="carpeta"):
        read_json(str(tmp_path))
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"a": "\xf1"}')
    with pytest.raises(InputError, match="UTF-8"):
        read_json(str(bad))


def test_an_excerpt_is_short_and_printable():
    text = excerpt("x" * 50_000_000)
    assert len(text) < 100 and text.endswith("(50000000 car.)")
    assert excerpt("\ud800").encode("utf-8")
