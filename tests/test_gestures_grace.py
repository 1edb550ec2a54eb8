"""A second real face: Grace Hopper's portrait from matplotlib's sample data (US Navy photo,
public domain), read from the installed package, never copied. Older face, thin lips, thick
glasses frames over the brows, a cap: the cases where our cues are weak show up here and are
kept visible as expected failures (xfail) with their reason, see docs/senas.md.

The señas are SYNTHETIC, made from her photo by training.senas.synthetic_faces.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from gestures.models import shared_landmarkers
from gestures.recognizer import SenaRecognizer
from training.senas import synthetic_faces as S

pytest.importorskip("mediapipe")  # needs the gestures extra
cbook = pytest.importorskip("matplotlib.cbook")

EXPECTED = {  # recipe -> (gesto, player's side)
    "guino_b": ("guino", "izquierdo"),
    "ojos_cerrados": ("ojos_cerrados", None),
    "labios_lado_a": ("labios_lado", "derecho"),
    "labios_lado_b": ("labios_lado", "izquierdo"),
    "lengua_fuera": ("lengua_fuera", None),
    "hombros_arriba": ("hombros_arriba", None),
    "hombro_arriba_b": ("hombro_arriba", "izquierdo"),
}
WEAK = {  # recipe -> (gesto, side, why it is missed on this photo)
    "cejas_arriba": (
        "cejas_arriba",
        None,
        "brows hidden behind thick glasses frames: the warp moves the frames and the landmarks stay",
    ),
    "guino_a": (
        "guino",
        "derecho",
        "the painted lid behind the glasses lens closes the landmarks only a third of the way",
    ),
    "labio_mordido": ("labio_mordido", None, "thin lips: the painted teeth band is a sliver"),
    "hombro_arriba_a": (
        "hombro_arriba",
        "derecho",
        "the wide shoulder warp drags her jaw and mouthLeft/Right rise: labios_lado fires as well",
    ),
    "morro": (
        "morro",
        None,
        "a 2-D warp has no depth: the mesh puts her lips 0.011 IOD in "
        "front of the corners, real pouts measured 0.04-0.06 (the lip_push gate)",
    ),
    "lengua_lado_a": (
        "lengua_lado",
        "derecho",
        "a tongue painted at a corner of her thin "
        "lips does not part them in the mesh; a real tongue does (closed-lips "
        "gate)",
    ),
    "lengua_lado_b": ("lengua_lado", "izquierdo", "as lengua_lado_a, on the other corner"),
}


@pytest.fixture(scope="module")
def grace() -> np.ndarray:
    path = cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        pytest.skip("matplotlib's sample data is not installed")
    return img


@pytest.fixture(scope="module")
def recipes(grace):
    obs = shared_landmarkers("image", pose=True).detect(grace[:, :, ::-1].copy())
    assert obs.face is not None and obs.pose is not None
    return S.recipes(grace, obs.face, obs.pose)


@pytest.fixture(scope="module")
def rec(grace) -> SenaRecognizer:
    r = SenaRecognizer(pose=True)
    assert r.calibrate([grace, grace]) is not None
    return r


def test_her_neutral_face_fires_nothing(grace, rec):
    cara, scores, _ = rec.score_image(grace)
    assert cara and max(scores.values()) < 0.5, scores


def _check(rec: SenaRecognizer, frame: np.ndarray, gesto: str, lado: str | None) -> None:
    _, scores, lados = rec.score_image(frame)
    assert max(scores, key=scores.get) == gesto and scores[gesto] >= 0.6, scores
    assert all(s < 0.6 for g, s in scores.items() if g != gesto), scores
    if lado:
        assert lados[gesto] == lado


@pytest.mark.parametrize("recipe", sorted(EXPECTED))
def test_her_senas(grace, recipes, rec, recipe):
    _check(rec, recipes[recipe](grace, 1.0), *EXPECTED[recipe])


@pytest.mark.parametrize("recipe", sorted(WEAK))
def test_her_weak_senas(grace, recipes, rec, recipe, request):
    gesto, lado, why = WEAK[recipe]
    request.applymarker(pytest.mark.xfail(reason=f"{why} (docs/senas.md)", strict=True))
    _check(rec, recipes[recipe](grace, 1.0), gesto, lado)


def test_a_second_person_coming_into_view_does_not_steal_the_track(grace, recipes):
    """Grace is followed from the start; at 1.2 s a bigger face (the astronaut, close to the
    camera) appears beside her; only Grace's tongue at 2.0-2.6 s may come out."""
    big = cv2.resize(data.astronaut()[30:250, 150:370][:, :, ::-1], (560, 560))

    def canvas(t: float) -> np.ndarray:
        out = np.full((600, 1100, 3), 90, np.uint8)
        out[:, :512] = recipes["lengua_fuera"](grace, 1.0) if 2.0 <= t < 2.6 else grace
        if t >= 1.2:
            out[20:580, 530:1090] = big
        return out

    rec = SenaRecognizer(pose=False, calibracion=1.0)
    results = [rec.process(canvas(i / 10), i / 10) for i in range(32)]
    assert all(r.landmarks is not None and r.landmarks[:, 0].mean() < 512 for r in results)
    assert [e.gesto for e in rec.finish()] == ["lengua_fuera"]
