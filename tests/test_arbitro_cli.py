"""`mus arbitro` end to end on the fixtures in tests/data/arbitro (hand-written in the formats of
`mus senas --json` and `mus leer --json`; each says so in its "_nota")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from musmesa.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "arbitro"


def mus(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["arbitro", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def hallazgos(out: str) -> list[tuple[str, str]]:
    return [(h["tipo"], h["articulo"].split(" (")[0]) for h in json.loads(out)["hallazgos"]]


def test_findings_of_a_recorded_hand(capsys) -> None:
    code, out, _ = mus(
        capsys,
        "--senas",
        str(DATA / "segovia_faltas.json"),
        "--cartas",
        "4o 4c 4e 12b",
        "--perfil",
        "segovia",
        "--json",
    )
    assert code == 0
    assert hallazgos(out) == [
        ("momento", "Título VII, art. 6"),  # a seña while dealing
        ("momento", "Título VII, art. 2"),  # medias de cuatros before the grande ended
        ("falsa", "Título VII, art. 3"),  # a wink (31) with 22
        ("falsa", "Título VII, art. 3"),  # both shoulders (30) with 22
    ]
    data = json.loads(out)
    assert data["correcto"] is False and data["completas"] == ["medias"]
    assert [s["comprobable"] for s in data["senas"]] == [False, True, True, True]


def test_clean_hand_with_a_discard(capsys) -> None:
    # the «dos ases» before the discard is not judged against the final cards (Título VII,
    # art. 7, example of the discard)
    code, out, _ = mus(
        capsys, "--senas", str(DATA / "segovia_limpia.json"), "--cartas", "12o 12c 1e 10b", "--perfil", "segovia"
    )
    assert code == 0
    assert "Sin faltas" in out
    assert "antes del último reparto" in out


def test_basque_sequence_and_a_sena_outside_the_list(capsys) -> None:
    code, out, _ = mus(
        capsys,
        "--senas",
        str(DATA / "euskadi_cuatro_reyes.json"),
        "--cartas",
        "12o 12c 12e 12b",
        "--perfil",
        "euskadi",
        "--fase",
        "chica",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert [s["significado"] for s in data["senas"]] == ["cuatro reyes", None]
    assert [h["tipo"] for h in data["hallazgos"]] == ["no_reglamentada"]
    assert data["hallazgos"][0]["articulo"].startswith("Keinuak")


def test_first_hand_flag_in_the_file(capsys) -> None:
    code, out, _ = mus(
        capsys, "--senas", str(DATA / "primera_mano.json"), "--cartas", "12o 12c 1e 1b", "--perfil", "segovia", "--json"
    )
    assert code == 0
    assert hallazgos(out) == [("momento", "Título VII, art. 4; Título II, art. 16")]


def test_cards_from_the_card_reader(capsys) -> None:
    code, out, _ = mus(
        capsys,
        "--senas",
        str(DATA / "segovia_faltas.json"),
        "--cartas-json",
        str(DATA / "foto_jugador.json"),
        "--perfil",
        "segovia",
        "--json",
    )
    assert code == 0 and json.loads(out)["cartas"] == "4o 4c 4e 12b"
    code, out, _ = mus(
        capsys, "--cartas-json", str(DATA / "foto_mesa.json"), "--asiento", "1", "--perfil", "euskadi", "--json"
    )
    assert code == 0 and json.loads(out)["completas"] == ["cuatro_reyes"]


def test_trainer_mode_without_events(capsys) -> None:
    code, out, _ = mus(capsys, "--cartas", "12o 12c 1e 1b", "--perfil", "segovia")
    assert code == 0
    assert "Seña completa: duples (cejas arriba)" in out
    assert "Título VII, art. 7" in out


@pytest.mark.parametrize(
    ("argv", "mensaje"),
    [
        (["--senas", "/no/existe.json", "--cartas", "12o 12c 1e 1b"], "no existe el fichero"),
        (["--cartas", "12o 12c 1e"], "tiene 3 cartas"),
        (["--cartas", "12o 12c 1e 9b"], "rango 9"),
        (["--cartas", "12o 12c 1e 1b", "--perfil", "murcia"], "perfil desconocido"),
        (["--cartas", "12o 12c 1e 1b", "--conjunto", "murcia"], "señas desconocido"),
        (["--senas", str(DATA / "foto_jugador.json"), "--cartas", "12o 12c 1e 1b"], "'eventos'"),
        (["--cartas-json", str(DATA / "foto_mesa.json")], "--asiento"),
        (["--cartas-json", str(DATA / "foto_jugador.json"), "--asiento", "2"], "asientos"),
        (["--senas", str(DATA / "segovia_faltas.json")], "falta --cartas"),
        (["--verificar", str(DATA / "foto_jugador.json")], None),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, argv: list[str], mensaje: str | None) -> None:
    code, out, err = mus(capsys, *argv, "--json")
    if mensaje is None:  # a file that is not a log: the verification fails, status 1
        assert code == 1 and json.loads(out)["valido"] is False
        return
    assert code == 2
    assert mensaje in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert mensaje in json.loads(out)["error"]


def test_bad_json_file(capsys, tmp_path) -> None:
    bad = tmp_path / "ev.json"
    bad.write_text("{eventos: ", encoding="utf-8")
    code, _, err = mus(capsys, "--senas", str(bad), "--cartas", "12o 12c 1e 1b")
    assert code == 2 and "JSON inválido" in err
    bad.write_text(json.dumps({"eventos": [{"gesto": "nariz", "inicio": 1}]}), encoding="utf-8")
    code, _, err = mus(capsys, "--senas", str(bad), "--cartas", "12o 12c 1e 1b")
    assert code == 2 and "gesto desconocido 'nariz'" in err


def test_verify_the_recorded_referee_log(capsys, tmp_path) -> None:
    log = DATA / "registro_partida.json"
    data = json.loads(log.read_text(encoding="utf-8"))
    code, out, _ = mus(capsys, "--verificar", str(log), "--sello", data["sello"][:16])
    assert code == 0 and "íntegro" in out
    data["entradas"][5]["datos"]["gesto"] = "morro"
    tampered = tmp_path / "alterado.json"
    tampered.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = mus(capsys, "--verificar", str(tampered))
    assert code == 1 and "ALTERADO en la entrada 5" in out


def test_subprocess_end_to_end() -> None:
    """The real command line, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "musmesa",
            "arbitro",
            "--senas",
            str(DATA / "segovia_faltas.json"),
            "--cartas",
            "4o 4c 4e 12b",
            "--perfil",
            "segovia",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "FALSA (infraccion): dice treinta y una y la mano tiene 22 al punto" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "musmesa", "arbitro", "--cartas", "12o 12c 1e"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_recorded_recognizer_events(capsys) -> None:
    """Events recorded from gestures/' recognizer on the synthetic astronaut clip (see _nota),
    judged against a hand of duples de sotas y ases: the wink (31) and the medias are false
    (Título VII art. 3), dos ases is a seña of inferiores (art. 7), duples is right."""
    code, out, _ = mus(
        capsys,
        "--senas",
        str(DATA / "grabado_astronauta.json"),
        "--cartas-json",
        str(DATA / "foto_duples.json"),
        "--perfil",
        "segovia",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert [s["sena"] for s in data["senas"]] == ["treinta_y_una", "duples", "dos_ases", "medias"]
    assert hallazgos(out) == [
        ("falsa", "Título VII, art. 3"),
        ("inferior", "Título VII, art. 7"),
        ("falsa", "Título VII, art. 3"),
    ]


@pytest.mark.slow
def test_live_recognizer_into_the_referee(tmp_path) -> None:
    """The whole chain: `mus senas --json` on the synthetic clip, then `mus arbitro` on it."""
    pytest.importorskip("mediapipe")
    clip = ROOT / "tests" / "data" / "gestures" / "astronaut_senas.mp4"
    if not clip.exists():
        pytest.skip("no synthetic clip")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    senas = subprocess.run(
        [sys.executable, "-m", "musmesa", "senas", "--json", "--perfil", "segovia", str(clip)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert senas.returncode == 0, senas.stderr[-2000:]
    events = tmp_path / "eventos.json"
    events.write_text(senas.stdout, encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "musmesa",
            "arbitro",
            "--senas",
            str(events),
            "--cartas",
            "1o 1c 10e 10b",
            "--perfil",
            "segovia",
            "--fase",
            "chica",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    tipos = [h["tipo"] for h in json.loads(proc.stdout)["hallazgos"]]
    assert tipos.count("falsa") >= 1 and "inferior" in tipos


def test_list_the_sena_set_and_its_disagreements(capsys) -> None:
    code, out, _ = mus(capsys, "--listar", "--perfil", "cuellar")
    assert code == 0
    assert "Señas «segovia»" in out and "Desacuerdo: ciego con pares" in out
    code, out, _ = mus(capsys, "--listar", "--conjunto", "euskadi", "--json")
    data = json.loads(out)
    assert code == 0 and data["nombre"] == "euskadi"
    assert ["labio_mordido", "labio_mordido"] in [s["gestos"] for s in data["senas"]]
    assert data["prohibido"] == [] and data["desacuerdos"]


def test_list_the_profile_values_with_their_sources(capsys) -> None:
    code, out, _ = mus(capsys, "--listar", "--perfil", "euskadi")
    assert code == 0
    assert "Reglas del perfil «euskadi»" in out
    assert "  reyes = 4 (texto)" in out and "  juegos_por_vaca = 4 (elección)" in out
    assert "«33rekin jokoan egindako apustuari" in out  # the bet with 33 stands, in its words
    assert "Orden de cobro: primero las piedras por «Ez» y «Paso»" in out
    assert out.index("Reglas del perfil") < out.index("Señas «euskadi»")
    code, out, _ = mus(capsys, "--listar", "--perfil", "segovia", "--json")
    valores = {v["campo"]: v for v in json.loads(out)["perfil"]["valores"]}
    assert code == 0 and valores["ordago_33_postre"]["valor"] == "penalizado"
    assert [c["lugar"] for c in valores["ordago_33_postre"]["citas"]] == [
        "Título V, art. 7",
        "Título V, art. 8",
        "Título V, art. 9",
    ]
    assert valores["reyes"]["eleccion"] and not valores["tantos"]["eleccion"]
    code, out, _ = mus(capsys, "--listar", "--conjunto", "euskadi", "--json")
    assert code == 0 and "perfil" not in json.loads(out)  # a seña set alone has no profile


POSTRE = {
    "manos": ["12o 11c 10e 1b", "4o 5c 6e 7b", "4c 5e 6c 7e", "12c 11e 6o 7o"],
    "lances": {"juego": {"ordago": "quiero"}},
    "declaraciones": {"ordago_querido": {"asiento": 3, "lance": "juego"}},
}


def test_declarations_of_a_hand_record(capsys, tmp_path) -> None:
    path = tmp_path / "mano.json"
    path.write_text(json.dumps({**POSTRE, "reglas": "segovia"}), encoding="utf-8")
    code, out, _ = mus(capsys, "--declaraciones", str(path))
    assert code == 0
    assert (
        "- asiento 3 quiso el órdago a juego con treinta y tres de postre "
        "[Reglamento Campeonatos de Mus (Segovia), Título V, arts. 7 y 8]"
    ) in out
    assert "«Queda expresamente prohibido querer un órdago a juego con treinta y tres de postre.»" in out
    # no reglas in the record: --perfil decides
    path.write_text(json.dumps(POSTRE), encoding="utf-8")
    code, out, _ = mus(capsys, "--declaraciones", str(path), "--perfil", "euskadi", "--json")
    data = json.loads(out)
    assert code == 0 and data["reglas"] == "euskadi" and data["faltas"] == []
    assert "atzeskuak bagara ere" in data["correcciones"][0]["razon"]


def test_declarations_of_a_bad_record_exit_2(capsys, tmp_path) -> None:
    path = tmp_path / "mano.json"
    path.write_text(json.dumps({**POSTRE, "lances": {}}), encoding="utf-8")
    code, _, err = mus(capsys, "--declaraciones", str(path))
    assert code == 2 and "no hay un órdago querido" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("conjunto", "titulo"),
    [
        ("segovia", "Reglamento Campeonatos de Mus (Segovia), Título VII"),
        ("segovia-normas", "Normas generales de mus para la provincia de Segovia"),
        ("euskadi", "Euskadiko Kooperatiben arteko III. Mus Txapelketa"),
        ("enciclopedia", "Enciclopedia, artículo «Mus»"),
    ],
)
def test_listing_names_the_documents_not_our_files(capsys, conjunto: str, titulo: str) -> None:
    code, out, _ = mus(capsys, "--listar", "--conjunto", conjunto)
    assert code == 0 and f"Señas «{conjunto}»: {titulo}" in out
    code, out_json, _ = mus(capsys, "--listar", "--conjunto", conjunto, "--json")
    assert code == 0
    for text in (out, out_json):
        assert "seed" not in text.lower() and ".txt" not in text


def test_doubtful_card_from_the_reader_is_flagged(capsys, tmp_path) -> None:
    data = json.loads((DATA / "foto_jugador.json").read_text(encoding="utf-8"))
    data["cartas"][3].update({"dudosa": True, "alternativa": "11b"})
    path = tmp_path / "foto.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = mus(capsys, "--cartas-json", str(path), "--perfil", "segovia")
    assert code == 0 and "la carta 12b se leyó con poca confianza (¿o 11b?)" in err


_EV = [{"gesto": "labio_mordido", "inicio": 8.0, "fin": 8.4}]
ISSUE_29: dict[str, tuple[str, str]] = {
    # name: (the events file's JSON text, what the message says)
    "fases-a-number": (json.dumps({"eventos": _EV, "fases": 5}), "fases debe ser una lista"),
    "fases-an-object": (json.dumps({"eventos": _EV, "fases": {"fase": "mus"}}), "fases debe ser una lista"),
    "nan-time": ('{"eventos": [{"gesto": "labio_mordido", "inicio": NaN, "fin": NaN}]}', "NaN"),
    "infinite-time": ('{"eventos": [{"gesto": "labio_mordido", "inicio": 1e999}]}', "fuera de rango"),
    "nan-phase-mark": ('{"eventos": [], "fases": [{"fase": "mus", "inicio": NaN}]}', "NaN"),
    "bool-time": (json.dumps({"eventos": [{"gesto": "guino", "inicio": True}]}), "inicio debe ser un número"),
    "gesto-a-number": (json.dumps({"eventos": [{"gesto": 5, "inicio": 1.0}]}), "gesto debe ser un texto"),
    "gesto-a-list": (json.dumps({"eventos": [{"gesto": ["guino"], "inicio": 1.0}]}), "gesto debe ser un texto"),
    "long-phase": (json.dumps({"eventos": [{"gesto": "guino", "fase": "m" * 100_000}]}), "fase desconocida"),
    "phase-a-list": (json.dumps({"eventos": [{"gesto": "guino", "fase": ["mus"]}]}), "fase desconocida"),
    "surrogate": ('{"eventos": [{"gesto": "\\ud800"}]}', "caracteres no válidos"),
    "deep": ('{"eventos": ' + "[" * 500 + "]" * 500 + "}", "profundo"),
}


@pytest.mark.parametrize("name", sorted(ISSUE_29))
def test_issue_29_events_exit_2_with_one_short_line(capsys, tmp_path, name: str) -> None:
    text, says = ISSUE_29[name]
    path = tmp_path / "ev.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = mus(capsys, "--senas", str(path), "--cartas", "12o 12c 1e 1b", "--json")
    assert code == 2 and err.startswith("mus: ") and err.count("\n") == 1, err[:300]
    assert says in err and len(err) <= 300
    assert json.loads(out)["error"] in err


def test_non_finite_times_are_refused_by_the_api() -> None:
    from scoring.arbitro import comprobar_senas
    from scoring.senas import SenasError

    with pytest.raises(SenasError, match="inicio debe ser un número"):
        comprobar_senas([{"gesto": "guino", "inicio": float("nan")}], "12o 12c 1e 1b", "segovia")
    with pytest.raises(SenasError, match="inicio debe ser un número"):
        comprobar_senas([], "12o 12c 1e 1b", "segovia", [{"fase": "mus", "inicio": float("inf")}])


def test_json_output_is_strict_json(capsys) -> None:
    code, out, _ = mus(capsys, "--senas", str(DATA / "segovia_faltas.json"), "--cartas", "12o 12c 1e 1b", "--json")
    assert code == 0

    def refuse(token: str) -> None:
        raise AssertionError(token)

    assert json.loads(out, parse_constant=refuse)["hallazgos"]


def test_a_huge_hand_on_the_command_line_is_quoted_as_an_excerpt(capsys) -> None:
    code, out, err = mus(capsys, "--cartas", "12o " * 1_000_000, "--json")
    assert code == 2 and err.count("\n") == 1 and len(err) <= 300 and "car.)" in err
    assert json.loads(out)["error"] in err


def test_a_log_hash_with_non_ascii_text_is_an_altered_log(capsys, tmp_path) -> None:
    log = json.loads((DATA / "registro_partida.json").read_text(encoding="utf-8"))
    log["entradas"][0]["hash"] = "ñ" * 64  # hmac.compare_digest raises on non-ASCII text
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    code, out, err = mus(capsys, "--verificar", str(path), "--json")
    assert (code, err) == (1, "")
    assert json.loads(out)["valido"] is False and json.loads(out)["entrada"] == 0
