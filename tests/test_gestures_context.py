"""Talking is no seña: the mouth activity over the last second, on hand-made measurements."""

from __future__ import annotations

import math

import pytest

from gestures.context import (
    SPEECH_FAKES,
    ActivitySettings,
    BlinkWatch,
    MouthActivity,
    Veda,
    hush,
    veto,
)
from gestures.types import GESTOS

FPS = 25


def feed(activity: MouthActivity, seconds: float, jaw, gap, start: float = 0.0) -> list[float]:
    out = []
    for i in range(int(seconds * FPS)):
        t = start + i / FPS
        out.append(activity.update(t, {"jawOpen": jaw(t), "lip_gap": gap(t)}))
    return out


def test_a_still_face_is_not_talking_once_seen_long_enough():
    m = MouthActivity()
    talk = feed(m, 2.0, lambda t: 0.03, lambda t: 0.01)
    assert talk[0] == 1.0  # a face just found: not known yet
    assert all(v == 0.0 for v in talk[int(ActivitySettings().known_after * FPS) + 1 :])


def test_syllables_are_talking():
    m = MouthActivity()
    feed(m, 1.0, lambda t: 0.03, lambda t: 0.01)
    # four syllables a second: the jaw and the lips open and close
    talk = feed(
        m,
        2.0,
        lambda t: 0.03 + 0.25 * (math.sin(8 * math.pi * t) > 0),
        lambda t: 0.01 + 0.12 * (math.sin(8 * math.pi * t) > 0),
        start=1.0,
    )
    assert min(talk[FPS // 2 :]) == 1.0


def test_a_pout_with_the_chin_raised_is_not_talking():
    # the jaw blendshape rises when the chin pushes up, but the lips stay shut
    m = MouthActivity()
    feed(m, 1.0, lambda t: 0.02, lambda t: 0.0)
    talk = feed(m, 1.5, lambda t: 0.02 + 0.4 * (1.3 < t < 2.0), lambda t: 0.0, start=1.0)
    assert max(talk) == 0.0


def test_the_measure_forgets_after_its_window():
    m = MouthActivity()
    feed(m, 1.0, lambda t: 0.03 + 0.3 * (int(t * 8) % 2), lambda t: 0.01 + 0.1 * (int(t * 8) % 2))
    after = feed(m, 2.0, lambda t: 0.03, lambda t: 0.01, start=1.0)
    assert after[-1] == 0.0


def test_hush_turns_down_only_what_speech_fakes():
    scores = dict.fromkeys(GESTOS, 1.0)
    quiet = hush(scores, 0.75)
    for g in GESTOS:
        assert quiet[g] == (0.25 if g in SPEECH_FAKES else 1.0), g
    assert hush(scores, 0.0) == scores
    assert {"guino", "ojos_cerrados", "hombros_arriba", "hombro_arriba"}.isdisjoint(SPEECH_FAKES)


# --- blinks -------------------------------------------------------------------------------


def _watch(closures: list[tuple[float, float]], fps: int = 25) -> list[Veda]:
    w = BlinkWatch()
    return [w.update(i / fps, a, b) for i, (a, b) in enumerate(closures)]


def test_a_blink_rules_out_lids_and_brows_over_it_and_after_it():
    open_, shut = (0.0, 0.0), (1.0, 0.9)
    v = _watch([open_] * 5 + [shut] * 4 + [open_] * 15)  # 0.16 s blink at 25 fps
    eyes = [x.ojos for x in v]
    brows = [x.cejas for x in v]
    assert eyes == [False] * 5 + [True] * 4 + [True] * 3 + [False] * 12  # 0.15 s after
    assert brows[5:19] == [True] * 14 and not any(brows[19:])  # 0.4 s after
    assert [x.parpadeo for x in v] == [False] * 5 + [True] * 4 + [False] * 15
    assert [x.inicio for x in v] == eyes


def test_a_lopsided_blink_is_a_blink_and_a_wink_is_not():
    # one eye shuts a frame early and opens a frame late: those frames fall in the veto
    lopsided = [(0.0, 0.0)] * 5 + [(0.9, 0.1)] + [(1.0, 1.0)] * 3 + [(0.9, 0.1)] + [(0.0, 0.0)] * 5
    v = _watch(lopsided)
    assert v[9].ojos and v[9].cejas
    wink = [(0.0, 0.0)] * 5 + [(1.0, 0.1)] * 10 + [(0.0, 0.0)] * 5
    assert not any(x.ojos or x.cejas or x.inicio for x in _watch(wink))


def test_eyes_shut_for_half_a_second_are_no_blink():
    v = _watch([(0.0, 0.0)] * 5 + [(1.0, 1.0)] * 13 + [(0.0, 0.0)] * 10)  # 0.52 s shut
    assert v[5].parpadeo and not v[5 + 12].parpadeo
    assert not any(x.ojos or x.cejas or x.inicio for x in v[18:])


def test_eyes_held_closed_are_no_blink():
    v = _watch([(0.0, 0.0)] * 5 + [(1.0, 1.0)] * 25 + [(0.0, 0.0)] * 10)  # 1 s shut
    assert v[6].parpadeo and not v[5 + 14].parpadeo  # a blink for its first 0.45 s only
    assert not any(x.ojos or x.cejas for x in v[30:])  # nothing vetoed after closed eyes


def test_veto_takes_out_what_a_blink_fakes():
    scores = {"guino": 0.9, "ojos_cerrados": 0.9, "cejas_arriba": 0.9, "morro": 0.9}
    during = veto(scores, Veda(parpadeo=True, ojos=True, cejas=True, inicio=True))
    assert during == {"guino": 0.0, "ojos_cerrados": 0.9, "cejas_arriba": 0.0, "morro": 0.9}
    after = veto(scores, Veda(ojos=True, cejas=True, inicio=True))
    assert after == {"guino": 0.0, "ojos_cerrados": 0.0, "cejas_arriba": 0.0, "morro": 0.9}
    assert veto(scores, Veda()) == scores


def test_a_wink_that_narrows_both_eyes_first_is_no_blink():
    """senas-lp d7 0.73 s: the winking eye shuts a frame before the other, both read shut for
    0.2 s, then the other opens and the winking eye stays shut two frames more (30 fps)."""
    open_, both, left = (0.0, 0.0), (1.0, 1.0), (1.0, 0.1)
    v = _watch([open_] * 5 + [left] + [both] * 6 + [left] * 2 + [open_] * 5, fps=30)
    assert v[6].parpadeo and v[12].ojos  # while both read shut it looks like a blink...
    assert v[13].guino_desde == pytest.approx(5 / 30)  # ...until the same eye stays shut
    assert not (v[13].ojos or v[13].inicio)
    # d1 0.30 s: no eye shut alone before, three frames after
    v = _watch([open_] * 3 + [both] * 7 + [left] * 3 + [open_] * 3, fps=30)
    assert v[11].guino_desde is None and v[12].guino_desde == pytest.approx(3 / 30)


def test_a_blink_opening_one_eye_late_is_still_a_blink():
    """Labelled blinks end with one eye a frame or two behind the other (0.04-0.08 s at 25 fps),
    once after the same eye shut first: never a wink's narrowing."""
    open_, both, left = (0.0, 0.0), (1.0, 1.0), (1.0, 0.1)
    for closures in (
        [open_] * 5 + [both] * 4 + [left] * 2 + [open_] * 8,  # trails two frames, 0.04 s
        [open_] * 5 + [left] + [both] * 4 + [left] + [open_] * 8,  # led and trailed one frame
        [open_] * 5 + [both] * 4 + [(0.1, 1.0)] + [left] * 4 + [open_] * 8,  # the eyes swap
    ):
        v = _watch(closures)
        assert all(x.guino_desde is None for x in v)
        assert any(x.ojos for x in v[9:])
