"""Seña recognition on a real face: scikit-image's astronaut portrait (a real photo).

The señas are SYNTHETIC: made from the real face by landmark-guided warping and painting
(training.senas.synthetic_faces): an eye shut by inpainting the lid, brows and lips moved by smooth
warps, a tongue painted in the person's own lip colour, a shoulder lifted. They check the whole
chain (MediaPipe -> features -> scores -> events) on real pixels; real video of people making
the señas remains the final judge (docs/senas.md).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

pytest.importorskip("mediapipe")  # needs the gestures extra

from gestures.models import POSE_EVERY, Landmarkers, shared_landmarkers
from gestures.recognizer import SenaRecognizer
from gestures.types import GESTOS
from training.senas import synthetic_faces as S

FPS = 10
CALIB = 1.0

# recipe -> (gesto, player's side for an unmirrored camera)
CASES = {
    "guino_a": ("guino", "derecho"),
    "guino_b": ("guino", "izquierdo"),
    "ojos_cerrados": ("ojos_cerrados", None),
    "cejas_arriba": ("cejas_arriba", None),
    "morro": ("morro", None),
    "labios_lado_a": ("labios_lado", "derecho"),
    "labios_lado_b": ("labios_lado", "izquierdo"),
    "labio_mordido": ("labio_mordido", None),
    "lengua_fuera": ("lengua_fuera", None),
    "lengua_lado_a": ("lengua_lado", "derecho"),
    "lengua_lado_b": ("lengua_lado", "izquierdo"),
}
SHOULDERS = {
    "hombros_arriba": ("hombros_arriba", None),
    "hombro_arriba_a": ("hombro_arriba", "derecho"),
}


@pytest.fixture(scope="module")
def neutral() -> np.ndarray:
    """The astronaut as a 640x480 webcam-like BGR frame (head and shoulders)."""
    return cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()


@pytest.fixture(scope="module")
def marks(neutral):
    obs = shared_landmarkers("image", pose=True).detect(neutral[:, :, ::-1].copy())
    assert obs.face is not None and obs.pose is not None
    return obs


@pytest.fixture(scope="module")
def recipes(neutral, marks):
    return S.recipes(neutral, marks.face, marks.pose)


def calibrated(neutral: np.ndarray, pose: bool = False) -> SenaRecognizer:
    rec = SenaRecognizer("segovia", pose=pose, calibracion=CALIB)
    assert rec.calibrate([neutral] * 3) is not None
    return rec


def stream(rec: SenaRecognizer, frames) -> list:
    for t, frame in frames:
        rec.process(frame, t)
    return rec.finish()


def gesture_clip(neutral, recipe, hold: float = 0.7):
    """1 s of neutral face (calibration), the gesture, then neutral again."""
    return list(S.sequence(neutral, recipe, FPS, before=CALIB + 0.3, ramp=0.1, hold=hold, after=0.5))


def test_neutral_portrait_fires_nothing_without_calibration():
    # the original 512x512 photo, typical neutral values as the baseline
    rec = SenaRecognizer(pose=False)
    cara, scores, _ = rec.score_image(data.astronaut()[:, :, ::-1].copy())
    assert cara
    assert max(scores.values()) < 0.5, scores


def test_neutral_stream_with_sensor_noise_and_light_changes_fires_nothing(neutral):
    rng = np.random.default_rng(1)
    frames = []
    for i in range(30):
        gain = 1.0 if i < 15 else 0.7  # the room gets darker after calibration
        noise = rng.normal(0, 4, neutral.shape)
        shifted = np.roll(neutral, (i % 3) - 1, axis=1)  # a little head sway
        frames.append((i / FPS, np.clip(shifted * gain + noise, 0, 255).astype(np.uint8)))
    rec = SenaRecognizer(pose=True, calibracion=CALIB)
    assert stream(rec, frames) == []


@pytest.mark.parametrize("recipe", sorted(CASES))
def test_each_face_sena_in_a_still_image(neutral, recipes, recipe):
    gesto, lado = CASES[recipe]
    rec = calibrated(neutral)
    cara, scores, lados = rec.score_image(recipes[recipe](neutral, 1.0))
    assert cara
    assert max(scores, key=scores.get) == gesto, scores
    assert scores[gesto] >= 0.6
    assert all(s < 0.6 for g, s in scores.items() if g != gesto), scores
    if lado:
        assert lados[gesto] == lado


@pytest.mark.parametrize("recipe", sorted(CASES))
def test_each_face_sena_in_a_stream_is_one_event(neutral, recipes, recipe):
    gesto, lado = CASES[recipe]
    rec = SenaRecognizer("segovia", pose=False, calibracion=CALIB)
    events = stream(rec, gesture_clip(neutral, recipes[recipe]))
    assert [(e.gesto, e.lado) for e in events] == [(gesto, lado)]
    ev = events[0]
    start = CALIB + 0.3
    assert start - 0.05 <= ev.inicio <= start + 0.25
    assert ev.fin <= start + 0.2 + 0.7 + 0.15
    assert ev.sena is not None  # every gesture means something in the Segovia set


@pytest.mark.parametrize("recipe", sorted(SHOULDERS))
def test_shoulder_senas_in_a_stream(neutral, recipes, recipe):
    gesto, lado = SHOULDERS[recipe]
    rec = SenaRecognizer("segovia", pose=True, calibracion=CALIB)
    events = stream(rec, gesture_clip(neutral, recipes[recipe]))
    assert [(e.gesto, e.lado) for e in events] == [(gesto, lado)]


@pytest.mark.xfail(
    reason="astronaut in a bulky suit: warping the image-right shoulder moves "
    "both of PoseLandmarker's shoulder estimates (docs/senas.md)",
    strict=True,
)
def test_one_shoulder_on_the_image_right(neutral, recipes):
    rec = SenaRecognizer("segovia", pose=True, calibracion=CALIB)
    events = stream(rec, gesture_clip(neutral, recipes["hombro_arriba_b"]))
    assert [(e.gesto, e.lado) for e in events] == [("hombro_arriba", "izquierdo")]


def test_a_short_wink_is_a_wink_but_blinks_are_nothing(neutral, marks, recipes):
    rec = SenaRecognizer(pose=False, calibracion=CALIB)
    frames = gesture_clip(neutral, recipes["guino_b"], hold=0.2)
    assert [e.gesto for e in stream(rec, frames)] == ["guino"]
    rec = SenaRecognizer(pose=False, calibracion=CALIB)
    blinks = S.blinking(neutral, marks.face, FPS, 4.0, every=1.0, length=0.2)
    calib = [(i / FPS, neutral) for i in range(int(CALIB * FPS) + 2)]
    shifted = [(t + CALIB + 0.3, f) for t, f in blinks]
    assert stream(rec, calib + shifted) == []


def test_talking_with_blinks_fires_nothing(neutral, marks):
    rec = SenaRecognizer(pose=False, calibracion=CALIB)
    calib = [(i / FPS, neutral) for i in range(int(CALIB * FPS) + 2)]
    talk = S.talking(neutral, marks.face, FPS, 5.0, seed=3)
    events = stream(rec, calib + [(t + CALIB + 0.3, f) for t, f in talk])
    assert events == []


def test_sequence_of_two_senas_reads_as_one_euskadi_sena(neutral, recipes):
    """Basque set: medias (lips aside) then the kings sign (bitten lip) = three kings."""
    rec = SenaRecognizer("euskadi", pose=False, calibracion=CALIB)
    first = gesture_clip(neutral, recipes["labios_lado_b"], hold=0.6)
    second = list(S.sequence(neutral, recipes["labio_mordido"], FPS, before=0.4, ramp=0.1, hold=0.6, after=0.5))
    t0 = first[-1][0] + 1 / FPS
    events = stream(rec, first + [(t + t0, f) for t, f in second])
    assert [e.gesto for e in events] == ["labios_lado", "labio_mordido"]
    assert events[-1].sena == "tres reyes"


def test_a_mirrored_source_swaps_the_side(neutral, recipes):
    winked = recipes["guino_b"](neutral, 1.0)  # image-right eye shut
    rec = SenaRecognizer(pose=False, mirrored=True)
    rec.calibrate([neutral])
    _, scores, lados = rec.score_image(winked)
    assert scores["guino"] >= 0.6 and lados["guino"] == "derecho"


def test_a_smaller_face_still_winks(neutral, recipes):
    small = cv2.resize(neutral, (320, 240))
    rec = SenaRecognizer(pose=False)
    rec.calibrate([small])
    wink = cv2.resize(recipes["guino_a"](neutral, 1.0), (320, 240))
    _, scores, _ = rec.score_image(wink)
    assert scores["guino"] >= 0.6


def test_no_face_gives_no_scores_and_no_events():
    coffee = data.coffee()[:, :, ::-1].copy()
    rec = SenaRecognizer(pose=False, calibracion=CALIB)
    assert rec.score_image(coffee) == (False, {}, {})
    results = [rec.process(coffee, i / FPS) for i in range(5)]
    assert not any(r.cara for r in results) and rec.finish() == []
    assert set(results[0].puntuaciones) == set(GESTOS)


@pytest.mark.parametrize("cast", [(0.6, 0.6, 0.6), (0.55, 0.65, 0.8)], ids=["dim", "dim_warm"])
def test_colour_cues_follow_the_light(neutral, recipes, cast):
    """Calibrated in normal light; then the light dims (and warms): the light change alone
    fires nothing, a bitten lip and a tongue are still seen (colour ratios, not levels)."""

    def lit(frame: np.ndarray) -> np.ndarray:
        return np.clip(frame * np.array(cast, np.float32), 0, 255).astype(np.uint8)

    rec = calibrated(neutral)
    assert max(rec.score_image(lit(neutral))[1].values()) < 0.5
    for recipe, gesto in (("labio_mordido", "labio_mordido"), ("lengua_fuera", "lengua_fuera")):
        _, scores, _ = rec.score_image(lit(recipes[recipe](neutral, 1.0)))
        assert max(scores, key=scores.get) == gesto and scores[gesto] >= 0.6, scores


def test_the_pose_model_runs_five_times_a_second_in_a_stream(neutral):
    marks = Landmarkers("image", pose=True)
    calls = []
    real = marks._pose.detect
    marks._pose.detect = lambda image: calls.append(image) or real(image)
    rgb = neutral[:, :, ::-1].copy()
    seen = [marks.detect(rgb, i / 25) for i in range(25)]
    assert len(calls) == round(1.0 / POSE_EVERY)
    # the first run waits (a stream starting); later ones run beside the next frames' faces,
    # their answer standing until the next run
    assert all(o.pose is not None for o in seen)
    marks.detect(rgb, 0.0)  # a new stream (time back to 0) or a single image: runs again
    assert len(calls) == round(1.0 / POSE_EVERY) + 1
    marks.close()
