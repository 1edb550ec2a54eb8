"""`mus leer` and `mus mano`: output contract and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
LANCES = REPO / "examples" / "lances.json"

pytestmark = pytest.mark.skipif(
    not (models_dir() / DETECTOR_FILE).is_file() or not (models_dir() / CLASSIFIER_FILE).is_file(),
    reason="the trained models are not in models/",
)


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path, monkeypatch):
    """The commands read against the deck registered in the data folder: a folder of the
    test's own, never the real home's."""
    monkeypatch.setenv("MUSMESA_DATA", str(tmp_path / "datos"))


def mus(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "musmesa", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_leer_json_contract(tmp_path):
    res = mus("leer", "--json", "--anotar", str(tmp_path), str(EXAMPLE))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["imagen"] == str(EXAMPLE)
    assert len(out["cartas"]) == 16
    for c in out["cartas"]:
        assert set(c) >= {"carta", "confianza", "caja"} and len(c["caja"]) == 4
        assert 0 <= c["confianza"] <= 1
    assert len(out["asientos"]) == 4 and all(len(h) == 4 for h in out["asientos"])
    assert isinstance(out["avisos"], list)
    assert (tmp_path / "mesa_anotada.jpg").is_file()


def test_leer_several_images_gives_an_array_and_reports_bad_ones(tmp_path):
    bad = tmp_path / "rota.jpg"
    bad.write_bytes(b"\xff\xd8 esto no es un jpeg")
    res = mus("leer", "--json", str(EXAMPLE), str(bad), str(tmp_path / "no_existe.jpg"))
    assert res.returncode == 2
    out = json.loads(res.stdout)
    assert isinstance(out, list) and len(out) == 3
    assert "cartas" in out[0] and "error" in out[1] and "error" in out[2]
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("content", [None, b"", b"GIF89a basura"])
def test_leer_bad_files(tmp_path, content):
    path = tmp_path / "x.png"
    if content is not None:
        path.write_bytes(content)
    res = mus("leer", str(path))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and res.stderr.count("\n") == 1


def test_leer_a_photo_without_cards(tmp_path):
    import cv2
    import numpy as np

    from training.cards.synth import make_background

    path = tmp_path / "mantel.jpg"
    cv2.imwrite(str(path), make_background(np.random.default_rng(2), "wood", 480, 640))
    res = mus("leer", str(path))
    assert res.returncode == 2 and "ninguna carta" in res.stderr


def test_mano_runs_the_main_job_on_the_example():
    truth = json.loads((REPO / "examples" / "mesa.json").read_text())
    res = mus("mano", str(EXAMPLE), "--mano", "0", "--lances", str(LANCES), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) >= {"por_lance", "marcador", "fin", "detalle"}
    # same result as scoring the true record directly
    record = {
        "reglas": "general",
        "mano": 0,
        "manos": truth["manos"],
        "marcador": [0, 0],
        "lances": json.loads(LANCES.read_text()),
    }
    expected = subprocess.run(
        [sys.executable, "-m", "musmesa", "tanteo", "--json", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert out["marcador"] == json.loads(expected.stdout)["marcador"]


def test_mano_text_output_names_the_seats():
    res = mus("mano", str(EXAMPLE), "--mano", "2")
    assert res.returncode == 0, res.stderr
    assert "asiento 0 (abajo)" in res.stdout and "(mano)" in res.stdout


def test_mano_bad_input(tmp_path):
    res = mus("mano", str(tmp_path / "nada.jpg"), "--mano", "0")
    assert res.returncode == 2 and "no existe" in res.stderr
    res = mus("mano", str(EXAMPLE), "--mano", "7")
    assert res.returncode == 2
    bad = tmp_path / "lances.json"
    bad.write_text("{no es json")
    res = mus("mano", str(EXAMPLE), "--mano", "0", "--lances", str(bad), "--json")
    assert res.returncode == 2 and "error" in json.loads(res.stdout)
    assert "Traceback" not in res.stderr


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """`mus` in this process (so a test can patch it); an exception here is a traceback."""
    from musmesa.cli import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_clean_line(err: str, prefix: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(prefix), err


@pytest.mark.parametrize(
    ("h", "w", "why"), [(3, 5000, "pequeña"), (5000, 3, "pequeña"), (1, 1, "pequeña"), (40, 2000, "estrecha")]
)
def test_leer_refuses_images_too_small_or_thin_to_hold_a_card(tmp_path, h, w, why):
    import cv2
    import numpy as np

    path = tmp_path / "tira.png"
    cv2.imwrite(str(path), np.full((h, w, 3), 128, np.uint8))
    res = mus("leer", str(path))
    assert res.returncode == 2
    one_clean_line(res.stderr, "mus leer:")
    assert f"demasiado {why}" in res.stderr and f"{w}x{h}" in res.stderr


def test_the_reader_refuses_a_thin_array_clearly():
    import numpy as np

    from vision.images import ImageError
    from vision.reader import CardReader

    with pytest.raises(ImageError, match="demasiado pequeña"):
        CardReader().read(np.zeros((3, 5000, 3), np.uint8))


def test_leer_a_file_without_permission(capsys, monkeypatch):
    """Tests run as root, where mode 000 does not stop a read: the open is made to fail."""
    import builtins

    real_open = builtins.open

    def no_permission(file, *args, **kwargs):
        if str(file) == str(EXAMPLE):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", no_permission)
    status, _, err = run_main(capsys, "leer", str(EXAMPLE))
    assert status == 2
    one_clean_line(err, "mus leer:")
    assert "no hay permiso" in err


def test_leer_a_loop_of_links_is_not_a_missing_file(tmp_path):
    (tmp_path / "a.jpg").symlink_to(tmp_path / "b.jpg")
    (tmp_path / "b.jpg").symlink_to(tmp_path / "a.jpg")
    res = mus("leer", str(tmp_path / "a.jpg"))
    assert res.returncode == 2
    one_clean_line(res.stderr, "mus leer:")
    assert "bucle de enlaces" in res.stderr and "no existe" not in res.stderr


@pytest.mark.parametrize("where", ["fichero", "fichero/sub", "roto/sub"])
@pytest.mark.parametrize("as_json", [False, True])
def test_leer_anotar_where_no_folder_can_be(tmp_path, where, as_json):
    (tmp_path / "fichero").write_text("no soy una carpeta")
    (tmp_path / "roto").symlink_to(tmp_path / "no_existe" / "x")
    res = mus("leer", *(["--json"] if as_json else []), "--anotar", str(tmp_path / where), str(EXAMPLE))
    assert res.returncode == 2
    one_clean_line(res.stderr, "mus leer: --anotar")
    assert "no puede ser una carpeta" in res.stderr
    if as_json:
        assert "error" in json.loads(res.stdout)


def test_leer_anotar_when_the_picture_cannot_be_written(tmp_path):
    (tmp_path / "mesa_anotada.jpg").mkdir()  # a folder where the picture should go
    res = mus("leer", "--anotar", str(tmp_path), str(EXAMPLE))
    assert res.returncode == 2
    one_clean_line(res.stderr, "mus leer: --anotar")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"lances": ' + "[" * 100_000 + "]" * 100_000 + "}", "anidado"),
        ('{"lances": {}, "jugadores": ["\\ud800", "B", "C", "D"]}', "no válidos"),
        ('{"lances": {"grande": "\\udfff"}}', "no válidos"),
        ('{"lances": {"pares": {"quiero": 1' + "0" * 5000 + "}}}", "demasiado largo"),
        ("[1, 2]", "una lista"),
        ('{"lances": "paso"}', "un texto"),
        ('"paso"', "un texto"),
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_mano_refuses_lances_files_it_cannot_use(tmp_path, content, why, as_json):
    lances = tmp_path / "lances.json"
    lances.write_text(content)
    res = mus("mano", str(EXAMPLE), "--mano", "0", "--lances", str(lances), *(["--json"] if as_json else []))
    assert res.returncode == 2
    one_clean_line(res.stderr, "mus mano: --lances")
    assert why in res.stderr
    if as_json:
        assert "error" in json.loads(res.stdout)


def test_leer_reads_a_phone_photo_at_half_its_size_with_its_boxes_in_the_photos_pixels(tmp_path):
    """A phone's 12 MP JPEG is decoded at half its size (vision.images.reading_reduction), as
    `mus servir` decodes it, and its boxes come back in the photo's own pixels."""
    import cv2

    from vision.images import load_for_reading

    grande = tmp_path / "grande.jpg"
    img = cv2.resize(cv2.imread(str(EXAMPLE)), (4032, 3024), interpolation=cv2.INTER_CUBIC)
    assert cv2.imwrite(str(grande), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    leida, factor = load_for_reading(grande)
    assert factor == 2 and leida.shape == (1512, 2016, 3)
    assert load_for_reading(EXAMPLE)[1] == 1  # 1280x960: read as it is
    want, got = (json.loads(mus("leer", "--json", str(p)).stdout) for p in (EXAMPLE, grande))
    assert got["asientos"] == want["asientos"]
    cajas = {c["carta"]: c["caja"] for c in got["cartas"]}
    assert sorted(cajas) == sorted(c["carta"] for c in want["cartas"])
    for c in want["cartas"]:  # each box the 1280-wide photo's, 3.15 times bigger, within 1 %
        assert max(abs(a - b * 4032 / 1280) for a, b in zip(cajas[c["carta"]], c["caja"], strict=True)) < 40
    from vision.reader import CardReader

    leidas = CardReader().read(grande)  # the library reads a file as the command does
    assert leidas.image_size == (4032, 3024)
    assert {c: [round(float(v), 1) for v in b] for c, b in zip(leidas.card_ids, leidas.xyxy, strict=True)} == cajas
