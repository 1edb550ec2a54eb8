"""`mus senas` end to end: a synthetic clip from a real face, images, and every failure mode.

tests/data/gestures/astronaut_senas.mp4 is synthetic (see make_clips.py there): the astronaut
portrait with warped señas at known times, listed in astronaut_senas.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from skimage import data

pytest.importorskip("mediapipe")  # needs the gestures extra

from gestures import cli as senas_cli
from gestures import sources
from gestures.models import shared_landmarkers
from musmesa.cli import main
from training.senas import synthetic_faces as S

DATA = Path(__file__).parent / "data" / "gestures"
CLIP = DATA / "astronaut_senas.mp4"
KEYS = {"gesto", "lado", "inicio", "fin", "confianza", "sena"}


def neutral() -> np.ndarray:
    return cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["senas", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def test_clip_events_match_what_was_made(capsys):
    status, out, _ = run_cli(capsys, "--json", "--sin-hombros", "--perfil", "segovia", str(CLIP))
    assert status == 0
    doc = json.loads(out)
    assert doc["fuente"] == str(CLIP)
    truth = json.loads((DATA / "astronaut_senas.json").read_text())
    got = doc["eventos"]
    assert all(set(e) == KEYS for e in got)
    assert [(e["gesto"], e["lado"]) for e in got] == [(t["gesto"], t["lado"]) for t in truth]
    for e, t in zip(got, truth, strict=True):
        assert abs(e["inicio"] - t["inicio"]) <= 0.25 and abs(e["fin"] - t["fin"]) <= 0.3
        assert 0.6 <= e["confianza"] <= 1.0
    assert [e["sena"] for e in got] == ["treinta y una", "duples", "dos ases", "medias"]


def test_the_calibration_is_reported_and_a_poor_one_said_once(capsys, tmp_path):
    status, out, err = run_cli(capsys, "--json", "--sin-hombros", str(CLIP))
    assert status == 0 and json.loads(out)["calibracion"]["buena"] is True
    assert "calibración pobre" not in err
    photo = tmp_path / "neutra.png"
    cv2.imwrite(str(photo), neutral())
    # one photo is too few frames to know the face's noise: it works, and says so once
    status, out, err = run_cli(capsys, "--json", "--sin-hombros", "--neutra", str(photo), str(CLIP))
    assert status == 0 and len(json.loads(out)["eventos"]) == 4
    assert json.loads(out)["calibracion"]["problemas"] == ["pocos_fotogramas"]
    assert err.count("calibración pobre") == 1
    # several photos of the neutral face make a good one
    status, out, err = run_cli(capsys, "--json", "--sin-hombros", *["--neutra", str(photo)] * 3, str(CLIP))
    assert status == 0 and json.loads(out)["calibracion"]["buena"] is True


def test_clip_text_output_lists_each_sena(capsys):
    status, out, _ = run_cli(capsys, "--sin-hombros", str(CLIP))
    assert status == 0
    lines = out.strip().splitlines()
    assert len(lines) == 5 and "4 gestos" in lines[-1]
    assert "guino (izquierdo)" in lines[0] and "labios_lado (derecho)" in lines[3]


def test_images_give_scores_per_image(capsys, tmp_path):
    img = neutral()
    face = shared_landmarkers("image", pose=False).detect(img[:, :, ::-1].copy()).face
    paths = [tmp_path / "neutra.png", tmp_path / "guino.png"]
    cv2.imwrite(str(paths[0]), img)
    cv2.imwrite(str(paths[1]), S.close_eye(img, face, "b"))
    status, out, _ = run_cli(capsys, "--json", *map(str, paths))
    assert status == 0
    items = json.loads(out)
    assert [i["imagen"] for i in items] == list(map(str, paths))
    assert all(i["cara"] and len(i["gestos"]) == 10 for i in items)
    assert max(items[0]["gestos"].values()) < 0.5
    assert items[1]["gestos"]["guino"] >= 0.6 and items[1]["lados"]["guino"] == "izquierdo"


def test_image_without_a_face_is_said_clearly(capsys, tmp_path):
    path = tmp_path / "cafe.png"
    cv2.imwrite(str(path), data.coffee()[:, :, ::-1])
    status, out, err = run_cli(capsys, str(path))
    assert status == 2
    assert "sin cara" in out and "sin cara" in err


def test_video_without_a_face_is_bad_input(capsys, tmp_path):
    path = tmp_path / "mesa.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (320, 240))
    for _ in range(8):
        writer.write(cv2.resize(data.coffee()[:, :, ::-1], (320, 240)))
    writer.release()
    status, out, err = run_cli(capsys, "--json", "--sin-hombros", str(path))
    assert status == 2  # nothing to recognise: bad input
    assert json.loads(out)["eventos"] == []
    assert "ninguna cara" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["no_existe.mp4"],
        ["--camara", "0", "x.mp4"],
        [],
        ["--perfil", "marte", "x.png"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv):
    status, _, err = run_cli(capsys, *argv)
    assert status == 2
    assert err.startswith("mus senas:") or err.startswith("mus")


def test_a_file_that_is_not_a_video(capsys, tmp_path):
    fake = tmp_path / "partida.mp4"
    fake.write_text("esto no es un vídeo\n")
    status, _, err = run_cli(capsys, str(fake))
    assert status == 2 and "no es un vídeo" in err


def test_missing_model_override(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MUSMESA_FACE_MODEL", str(tmp_path / "nada.task"))
    status, _, err = run_cli(capsys, "--sin-hombros", str(CLIP))
    assert status == 2 and "no existe el modelo" in err


def test_a_stale_decision_file_is_said_in_one_line(capsys, monkeypatch, tmp_path):
    from gestures import decision

    doc = {**json.loads(decision.RUTA.read_text(encoding="utf-8")), "firma": "0000000000000000"}
    stale = tmp_path / "decision.json"
    stale.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(decision, "RUTA", stale)
    decision.de_fabrica.cache_clear()
    try:
        status, out, err = run_cli(capsys, "--sin-hombros", str(CLIP))
    finally:
        decision.de_fabrica.cache_clear()  # the next test reads the shipped file again
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "python -m training.senas.decision" in err


def test_camera_that_cannot_open(capsys, monkeypatch):
    class NoCamera:
        def __init__(self, index: int) -> None:
            raise sources.SourceError(f"no se pudo abrir la cámara {index}")

    monkeypatch.setattr(senas_cli, "CameraSource", NoCamera)
    status, _, err = run_cli(capsys, "--camara", "3")
    assert status == 2 and "cámara 3" in err


def test_camera_vanishing_mid_stream_keeps_the_events(capsys, monkeypatch):
    img = neutral()
    face = shared_landmarkers("image", pose=False).detect(img[:, :, ::-1].copy()).face
    frames = list(
        S.sequence(img, lambda im, a: S.close_eye(im, face, "a", a), 10, before=1.3, ramp=0.1, hold=0.5, after=0.4)
    )

    class DyingCamera:
        """Gives a wink, then stops sending frames (a USB camera unplugged)."""

        def __init__(self, index: int) -> None:
            self.error: str | None = None

        def __iter__(self):
            yield from frames
            self.error = "la cámara 0 dejó de enviar imágenes"

    monkeypatch.setattr(senas_cli, "CameraSource", DyingCamera)
    status, out, err = run_cli(
        capsys, "--json", "--sin-ventana", "--sin-hombros", "--calibracion", "1", "--camara", "0"
    )
    assert status == 1
    assert "dejó de enviar" in err
    doc = json.loads(out)
    assert doc["fuente"] == "camara:0"
    assert [(e["gesto"], e["lado"]) for e in doc["eventos"]] == [("guino", "derecho")]


def test_video_where_the_face_leaves_warns_and_keeps_going(capsys, tmp_path):
    path = tmp_path / "sale.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (640, 480))
    coffee = cv2.resize(data.coffee()[:, :, ::-1], (640, 480))
    for i in range(30):
        writer.write(neutral() if i < 18 else coffee)
    writer.release()
    status, out, err = run_cli(capsys, "--json", "--sin-hombros", str(path))
    assert status == 0
    assert json.loads(out)["eventos"] == []
    assert "sin cara en 12 de 30" in err


def test_images_need_a_neutral_photo_for_the_colour_senas(capsys, tmp_path):
    img = neutral()
    face = shared_landmarkers("image", pose=False).detect(img[:, :, ::-1].copy()).face
    neutra, lengua = tmp_path / "neutra.png", tmp_path / "lengua.png"
    cv2.imwrite(str(neutra), img)
    cv2.imwrite(str(lengua), S.draw_tongue(img, face, "centro"))
    _, out, _ = run_cli(capsys, "--json", "--sin-hombros", str(lengua))
    assert json.loads(out)[0]["gestos"]["lengua_fuera"] == 0.0  # no neutral face: no cue
    status, out, _ = run_cli(capsys, "--json", "--sin-hombros", "--neutra", str(neutra), str(lengua))
    assert status == 0
    assert json.loads(out)[0]["gestos"]["lengua_fuera"] >= 0.6


def test_neutral_photo_without_a_face(capsys, tmp_path):
    cafe = tmp_path / "cafe.png"
    cv2.imwrite(str(cafe), data.coffee()[:, :, ::-1])
    status, _, err = run_cli(capsys, "--neutra", str(cafe), str(cafe))
    assert status == 2 and "imagen neutra" in err


def test_settings_file_changes_the_timing_and_scores_are_written(capsys, tmp_path):
    settings = tmp_path / "ajustes.json"
    settings.write_text(json.dumps({"tiempos": {"guino": {"minimo": 2.0}}, "umbrales": {"brow_geom": [0.03, 0.07]}}))
    scores = tmp_path / "p.csv"
    status, out, _ = run_cli(
        capsys, "--json", "--sin-hombros", "--umbrales", str(settings), "--puntuaciones", str(scores), str(CLIP)
    )
    assert status == 0
    gestos = [e["gesto"] for e in json.loads(out)["eventos"]]
    assert "guino" not in gestos and "cejas_arriba" in gestos  # the wink lasts 0.7 s < 2 s
    rows = scores.read_text().splitlines()
    assert rows[0].split(",")[:4] == ["t", "cara", "calibrando", "labio_mordido"]
    assert len(rows) == 1 + 95
    wink = [r for r in rows[1:] if 2.7 <= float(r.split(",")[0]) <= 3.2]
    assert all(float(r.split(",")[3 + 6]) >= 0.6 for r in wink)  # the guino column


@pytest.mark.parametrize(
    "content", ['{"umbrales": {"nope": 1}}', '{"tiempos": {"x": {}}}', "no es json", '{"otra": 1}']
)
def test_bad_settings_file(capsys, tmp_path, content):
    settings = tmp_path / "ajustes.json"
    settings.write_text(content)
    status, _, err = run_cli(capsys, "--umbrales", str(settings), str(CLIP))
    assert status == 2 and "--umbrales" in err


class NoRecognizer:
    """Stands in for SenaRecognizer: a refused settings file must stop before any model loads."""

    def __init__(self, *args, **kwargs) -> None:
        raise AssertionError("the recogniser was built before the settings were checked")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"umbrales": {"brow_geom": "abc"}}', "dos números"),
        ('{"umbrales": {"brow_geom": [0.03]}}', "dos números"),
        ('{"umbrales": {"brow_geom": [0.03, "x"]}}', "un número"),
        ('{"umbrales": {"brow_geom": [true, 0.07]}}', "un número"),
        ('{"umbrales": {"noise_k": [1, 2]}}', "un número"),
        ('{"umbrales": {"noise_k": -1}}', "fuera de rango"),
        ('{"umbrales": {"head_turn": [1e300, 15]}}', "fuera de rango"),
        ('{"umbrales": {"noise_k": NaN}}', "NaN"),
        ('{"umbrales": [1]}', "debe ser un objeto"),
        ('{"tiempos": {"guino": {"minimo": "0.2"}}}', "un número"),
        ('{"tiempos": {"guino": {"minimo": null}}}', "un número"),
        ('{"tiempos": {"guino": {"hueco_frames": 2.5}}}', "entero"),
        ('{"tiempos": {"labios_lado": {"claro": 1}}}', "true o false"),
        ('{"tiempos": {"guino": {"entrar": 3}}}', "fuera de rango"),
        ('{"tiempos": {"guino": {"salir": 0.9}}}', "mayor que entrar"),
        ('{"tiempos": {"guino": 5}}', "se espera un objeto"),
        ('{"tiempos": {"guino": {"nope": 1}}}', "campo desconocido"),
        ('{"tiempos": []}', "debe ser un objeto"),
        ("[]", "se espera un objeto"),
        ('{"umbrales": ' + "[" * 10_000 + "]" * 10_000 + "}", "anidado"),
    ],
)
def test_settings_of_the_wrong_type_are_refused_before_any_frame(capsys, monkeypatch, tmp_path, content, why):
    settings = tmp_path / "ajustes.json"
    settings.write_text(content)
    monkeypatch.setattr(senas_cli, "SenaRecognizer", NoRecognizer)
    status, _, err = run_cli(capsys, "--sin-hombros", "--umbrales", str(settings), str(CLIP))
    assert status == 2
    assert err.startswith("mus senas: --umbrales") and err.count("\n") == 1
    assert why in err


def test_a_loop_of_links_is_not_a_missing_file(capsys, tmp_path):
    (tmp_path / "a.mp4").symlink_to(tmp_path / "b.mp4")
    (tmp_path / "b.mp4").symlink_to(tmp_path / "a.mp4")
    status, _, err = run_cli(capsys, str(tmp_path / "a.mp4"))
    assert status == 2 and "bucle de enlaces" in err and "no existe" not in err
