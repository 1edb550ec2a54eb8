"""The neutral face from several frames: which frames are kept, and when it is poor."""

from __future__ import annotations

import pytest

from gestures.calibration import CalibrationSettings, calibrate
from gestures.types import PROBLEMAS_CALIBRACION, Calibracion

STILL = {
    "jawOpen": 0.02,
    "lip_gap": 0.01,
    "mouthPucker": 0.02,
    "mouthSmileLeft": 0.1,
    "mouthSmileRight": 0.1,
    "browInnerUp": 0.05,
    "ear_a": 0.3,
    "ear_b": 0.3,
    "eyeBlinkLeft": 0.05,
    "eyeBlinkRight": 0.05,
    "mouth_w": 0.62,
    "brow_h": 0.23,
    "scale_px": 90.0,
    "skin_lum": 140.0,
}


def jitter(i: int) -> dict[str, float]:
    """A still face with the measurement noise of a webcam."""
    d = 0.004 * ((i * 7) % 5 - 2)
    return {**STILL, "mouth_w": STILL["mouth_w"] + d, "mouthPucker": STILL["mouthPucker"] + d}


def test_a_still_face_is_a_good_calibration():
    base, q = calibrate([jitter(i) for i in range(20)])
    assert q == Calibracion(20, 0, ()) and q.buena
    assert base.frames == 20
    assert base.values["mouth_w"] == pytest.approx(0.62, abs=0.005)


def test_blinks_smiles_and_pouts_are_left_out():
    frames = [jitter(i) for i in range(20)]
    frames[3] = {**STILL, "eyeBlinkLeft": 0.8, "eyeBlinkRight": 0.8, "ear_a": 0.05, "ear_b": 0.05}
    frames[7] = {**STILL, "mouthSmileLeft": 0.7, "mouthSmileRight": 0.7}
    frames[11] = {**STILL, "mouthPucker": 0.8, "mouth_w": 0.5}
    base, q = calibrate(frames)
    assert (q.fotogramas, q.descartados, q.buena) == (17, 3, True)
    assert base.values["mouthSmileLeft"] == pytest.approx(0.1)
    assert base.values["mouthPucker"] == pytest.approx(0.02, abs=0.01)


def test_talking_frames_are_left_out():
    frames = [jitter(i) for i in range(20)]
    talking = [1.0 if i < 8 else 0.0 for i in range(20)]
    _, q = calibrate(frames, talking=talking)
    assert (q.fotogramas, q.descartados, q.buena) == (12, 8, True)


def test_a_face_that_never_keeps_still_is_poor():
    _, q = calibrate([jitter(i) for i in range(20)], talking=[1.0] * 20)
    assert not q.buena and "no_neutra" in q.problemas and q.fotogramas == 0


def test_one_photo_is_too_few():
    base, q = calibrate([STILL])
    assert q.problemas == ("pocos_fotogramas",) and base.frames == 1


def test_small_or_dark_faces_are_said():
    _, small = calibrate([{**jitter(i), "scale_px": 30.0} for i in range(10)])
    _, dark = calibrate([{**jitter(i), "skin_lum": 30.0} for i in range(10)])
    assert small.problemas == ("cara_pequena",)
    assert dark.problemas == ("oscuro",)
    settings = CalibrationSettings(min_face_px=20.0)
    assert calibrate([{**jitter(i), "scale_px": 30.0} for i in range(10)], settings)[1].buena


def test_every_problem_is_a_known_code_and_no_face_is_an_error():
    _, q = calibrate([{**STILL, "scale_px": 10.0, "skin_lum": 10.0}], talking=[1.0])
    assert set(q.problemas) <= set(PROBLEMAS_CALIBRACION)
    assert q.to_dict()["buena"] is False
    with pytest.raises(ValueError):
        calibrate([{}, {}])
