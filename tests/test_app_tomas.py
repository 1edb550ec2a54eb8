"""The señas trainer's takes without a window: recording, the store on disk, crash-safe writes,
the labels a take becomes, the export read by training.senas.evaluate, and the wording of a
poor calibration."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from mesa import tomas as tm  # noqa: E402
from mesa.senas import (  # noqa: E402
    PROBLEMAS_CALIBRACION,
    Entrenador,
    avisos_calibracion,
    texto_calibracion,
)
from mesa.storage import Almacen  # noqa: E402
from mesa.tomas import AlmacenTomas, GrabacionToma, TomaError, etiquetas, nueva_toma  # noqa: E402


def cara(i: int) -> np.ndarray:
    """A 64x48 frame whose grey level tells its index (survives JPEG and mp4v)."""
    img = np.full((48, 64, 3), 20 + 9 * (i % 25), np.uint8)
    img[:, : 4 + i % 50] = 250
    return img


def grabar(n_calib: int = 5, n_intento: int = 15, fps: float = 20.0) -> GrabacionToma:
    g = GrabacionToma()
    t = 0.0
    for i in range(n_calib):
        g.fotograma(t, cara(i), calibrando=True)
        t += 1 / fps
    g.fotograma(t, cara(99), calibrando=False)  # seen before the deal: not in the take
    t += 3.0
    g.empezar()
    for i in range(n_intento):
        g.fotograma(
            t, cara(n_calib + i), calibrando=False, calibracion={"fotogramas": 12, "descartados": 1, "problemas": []}
        )
        t += 1 / fps
    return g


GUINO = {"gesto": "guino", "lado": "derecho", "inicio": 3.55, "fin": 3.75, "confianza": 0.9, "sena": "treinta y una"}


def toma(g: GrabacionToma, eventos: list[dict[str, Any]] | None = None) -> tuple[dict, list]:
    frames, n_calib, _ = g.terminar()
    doc = nueva_toma(
        frames,
        n_calib,
        mano="7o 4c 10e 11b",
        perfil="segovia",
        senas=["treinta y una (guiño)"],
        gestos=["guino"],
        eventos=[GUINO] if eventos is None else eventos,
        correcto=True,
        calibracion=g.calibracion,
    )
    return doc, frames


def test_recording_keeps_the_calibration_as_lead_in_then_the_attempt() -> None:
    g = grabar()
    frames, n_calib, recortada = g.terminar()
    assert not recortada and n_calib == 5 and len(frames) == 20 and g.calibracion["descartados"] == 1
    assert g.terminar() is None  # Comprobar again: a new attempt, no frame yet
    g.fotograma(9.0, cara(3), calibrando=False)
    assert len(g.terminar()[0]) == 6  # the same lead-in, the new attempt's frame
    g.fotograma(9.0, cara(0), calibrando=True)  # a new calibration: the old lead-in goes
    assert len(g.calib) == 1 and g.intento == []
    assert g.terminar() is None  # no attempt frame: no take
    g = GrabacionToma()
    g.empezar()
    g.fotograma(0.0, cara(0), calibrando=False)
    assert g.terminar() is None  # no calibration seen: no lead-in to calibrate on again


def test_a_recalibration_mid_attempt_restarts_the_attempt_after_it() -> None:
    g = grabar(n_intento=6)
    for i in range(3):
        g.fotograma(10 + i / 20, cara(i), calibrando=True)
    g.fotograma(11.0, cara(7), calibrando=False)
    frames, n_calib, _ = g.terminar()
    assert (n_calib, len(frames)) == (3, 4)


def test_a_long_attempt_keeps_its_start() -> None:
    g = GrabacionToma(max_segundos=1.0)
    g.fotograma(0.0, cara(0), calibrando=True)
    g.empezar()
    for i in range(40):
        g.fotograma(1 + i / 10, cara(i), calibrando=False)
    assert g.recortada and len(g.intento) == 11
    assert g.terminar().recortada and not g.recortada


def test_real_rate_and_event_frames() -> None:
    g = grabar()
    doc, _ = toma(g)
    assert doc["fps"] == pytest.approx(20.0, abs=0.01)  # not the 3 s jump between the parts
    # the attempt starts at t = 5/20 + 3 = 3.25 s, frame 5; 3.55 s is its 7th frame
    assert doc["marcos"] == [[11, 15]] and doc["eventos"] == [GUINO]
    assert doc["pedido"] == {"senas": ["treinta y una (guiño)"], "gestos": ["guino"]}
    assert doc["respuesta"] is None and doc["fotogramas"] == 20


def test_saved_take_is_a_clip_at_its_rate_and_a_json(tmp_path: Path) -> None:
    store = AlmacenTomas(tmp_path)
    doc, frames = toma(grabar())
    tid = store.guardar(doc, frames)
    clip = tmp_path / "tomas" / f"{tid}.mp4"
    cap = cv2.VideoCapture(str(clip))
    n, fps = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)), cap.get(cv2.CAP_PROP_FPS)
    ok, first = cap.read()
    cap.release()
    assert (n, round(fps)) == (20, 20) and ok and first.shape == (48, 64, 3)
    assert abs(int(first[:, 30].mean()) - int(cara(0)[:, 30].mean())) < 12
    (leida,) = store.tomas()
    assert leida["id"] == tid and leida["clip"] == clip.name and leida["respuesta"] is None
    store.responder(tid, True)
    assert store.leer(tid)["respuesta"] is True
    assert [p.name for p in (tmp_path / "tomas").iterdir() if p.name.startswith(".")] == []


def test_labels_of_a_confirmed_a_rejected_and_an_unanswered_take() -> None:
    doc, _ = toma(grabar())
    assert etiquetas(doc) == []
    doc["respuesta"] = True
    assert etiquetas(doc) == [["neutro", 0, 4, "calibración"], ["guino_izquierdo", 11, 15, "reconocido y confirmado"]]
    doc["respuesta"] = False
    assert etiquetas(doc) == [
        ["neutro", 0, 4, "calibración"],
        ["guino_izquierdo?", 11, 15, "reconocido; el jugador dijo que no"],
        ["guino?", 5, 19, "pedido; el jugador dijo que no"],
    ]
    doc["espejo"] = True  # a mirrored image shows the player's right eye on the right
    assert etiquetas(doc)[1][0] == "guino_derecho?"


def _exportar(tmp_path: Path, respuestas: list[bool | None]) -> tuple[tm.Exportacion, Any]:
    evaluate = pytest.importorskip("training.senas.evaluate")
    store = AlmacenTomas(tmp_path / "datos")
    for r in respuestas:
        doc, frames = toma(grabar())
        tid = store.guardar(doc, frames)
        if r is not None:
            store.responder(tid, r)
    return store.exportar(tmp_path / "export"), evaluate


def test_export_is_read_by_the_evaluation_and_scores_a_clubs_takes(tmp_path: Path) -> None:
    hecho, evaluate = _exportar(tmp_path, [True, False, None])
    assert (hecho.clips, hecho.sin_respuesta) == (2, 1)
    clips = evaluate.load_labels(hecho.carpeta)  # the evaluation's own reader
    assert len(clips) == 2 and all((hecho.carpeta / c.nombre).is_file() for c in clips)
    si, no = sorted(
        clips,
        key=lambda c: json.loads((hecho.carpeta / "labels.json").read_text())["clips"][c.nombre]["respuesta"] == "no",
    )
    assert si.frames == 20 and si.fps == pytest.approx(20.0, abs=0.01)
    assert evaluate.neutral_frame(si) == 2  # --calibracion neutra: the middle of the lead-in
    E = evaluate.EventoClip
    # confirmed: the same wink is found; a wink elsewhere, or a morro, is a false event
    p = evaluate.score_clip(si.etiquetas, [E("guino_izquierdo", 11, 15), E("morro", 17, 19)])
    assert p.encontradas == {1: 0} and p.falsos == {1: "sin_etiqueta"}
    # rejected: nothing is required; the asked or recognised gesture is not wrong, others are
    p = evaluate.score_clip(no.etiquetas, [E("guino_derecho", 6, 8), E("morro", 12, 14)])
    assert p.encontradas == {} and list(p.falsos) == [1]
    assert not any(lab.requerida for lab in no.etiquetas)


def test_export_with_no_answered_take_says_so(tmp_path: Path) -> None:
    with pytest.raises(TomaError, match="sin respuesta"):
        _exportar(tmp_path, [None])
    assert not (tmp_path / "export").exists()


def test_unwritable_folder_is_a_clear_message_and_keeps_earlier_takes(tmp_path: Path) -> None:
    store = AlmacenTomas(tmp_path / "datos")
    doc, frames = toma(grabar())
    store.guardar(doc, frames)
    malo = AlmacenTomas(tmp_path / "otra")
    (tmp_path / "otra").write_text("un fichero, no una carpeta")
    with pytest.raises(TomaError) as exc:
        malo.guardar(doc, frames)
    assert "no es una carpeta" in str(exc.value) and "anteriores no se pierden" in str(exc.value)
    assert "Traceback" not in str(exc.value) and len(store.tomas()) == 1
    assert exc.value.texto("en") != str(exc.value)  # translated for the player


def test_full_disk_loses_no_earlier_take(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = AlmacenTomas(tmp_path)
    doc, frames = toma(grabar())
    primera = store.guardar(doc, frames)
    store.responder(primera, True)

    def lleno(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tm.os, "fsync", lleno)
    with pytest.raises(TomaError, match="el disco está lleno"):
        store.guardar(doc, frames)
    with pytest.raises(TomaError, match="el disco está lleno"):
        store.responder(primera, False)  # the answer is written whole or not at all
    with pytest.raises(TomaError, match="el disco está lleno"):
        store.exportar(tmp_path / "export")
    monkeypatch.undo()
    (una,) = store.tomas()
    assert una["id"] == primera and una["respuesta"] is True
    assert sorted(p.name for p in (tmp_path / "tomas").iterdir()) == [
        f"{primera}.json",
        f"{primera}.mp4",
    ]  # no half take, no temporary file left
    assert not (tmp_path / "export").exists()


def test_truncated_clip_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VideoWriter says nothing when the disk fills mid-clip: the clip is read back."""
    store = AlmacenTomas(tmp_path)
    doc, frames = toma(grabar())
    real = cv2.VideoWriter

    class Corto:  # writes only the first 3 frames, as a disk that fills up
        def __init__(self, *a: Any) -> None:
            self.w, self.n = real(*a), 0

        def isOpened(self) -> bool:
            return self.w.isOpened()

        def write(self, img: np.ndarray) -> None:
            self.n += 1
            if self.n <= 3:
                self.w.write(img)

        def release(self) -> None:
            self.w.release()

    monkeypatch.setattr(cv2, "VideoWriter", Corto)
    with pytest.raises(TomaError, match="No se pudo guardar la toma"):
        store.guardar(doc, frames)
    assert store.tomas() == [] and list((tmp_path / "tomas").iterdir()) == []


def test_the_setting_lives_with_the_other_settings(tmp_path: Path) -> None:
    s = Almacen.abrir(tmp_path)
    assert s.ajuste(tm.AJUSTE, "0") == "0"  # off unless the player turns it on
    s.guardar_ajuste(tm.AJUSTE, "1")
    s.cerrar()
    assert Almacen.abrir(tmp_path).ajuste(tm.AJUSTE) == "1"


def test_asked_gestures_of_a_hand() -> None:
    e = Entrenador("segovia")
    e.poner_mano("12o 12c 7e 4b")  # dos reyes and 31
    assert e.gestos_pedidos() == ["guino", "labio_mordido"]
    e.poner_mano("4o 5c 6e 7b")  # nothing to signal
    assert e.gestos_pedidos() == []


# -- a poor calibration, in the player's words -----------------------------------------------------


def test_every_calibration_problem_is_worded_in_three_languages() -> None:
    types = pytest.importorskip("gestures.types")
    assert set(PROBLEMAS_CALIBRACION) == set(types.PROBLEMAS_CALIBRACION)
    for code in types.PROBLEMAS_CALIBRACION:
        cal = types.Calibracion(fotogramas=3, problemas=(code,))
        es, eu, en = (avisos_calibracion(cal, lang) for lang in ("es", "eu", "en"))
        assert len(es) == 1 and es != eu and es != en and eu != en, code
    good = types.Calibracion(fotogramas=40)
    assert good.buena and avisos_calibracion(good) == [] and texto_calibracion(good) == ""
    assert texto_calibracion(None) == ""


def test_poor_calibration_line_names_what_to_do() -> None:
    types = pytest.importorskip("gestures.types")
    cal = types.Calibracion(fotogramas=2, descartados=30, problemas=("cara_pequena", "oscuro"))
    line = texto_calibracion(cal)
    assert line.startswith("Calibración pobre: Acerca la cara") and "poca luz" in line
    assert texto_calibracion(cal, "en").startswith("Poor calibration")
    unknown = types.Calibracion(fotogramas=2, problemas=("nuevo_a", "nuevo_b"))
    assert avisos_calibracion(unknown) == ["La calibración no es buena: vuelve a calibrar"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_take_shows_a_players_face_so_it_is_the_owners_only(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        hecho, _ = _exportar(tmp_path, [True])
    finally:
        os.umask(old)
    guardados = sorted((tmp_path / "datos" / "tomas").iterdir())
    exportados = sorted(hecho.carpeta.iterdir())
    assert [p.suffix for p in guardados] == [".json", ".mp4"] and len(exportados) == 2
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in guardados} == {p.name: "0o600" for p in guardados}
    assert oct(hecho.carpeta.stat().st_mode & 0o777) == "0o700"  # the export's clip and labels inside it
