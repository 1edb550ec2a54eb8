"""Talking is no seña: the mouth activity over the last second, on hand-made measurements."""

from __future__ import annotations

import math

from gestures.context import SPEECH_FAKES, ActivitySettings, MouthActivity, hush
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
    assert all(v == 0.0 for v in talk[int(ActivitySettings().known_after * FPS) + 1:])


def test_syllables_are_talking():
    m = MouthActivity()
    feed(m, 1.0, lambda t: 0.03, lambda t: 0.01)
    # four syllables a second: the jaw and the lips open and close
    talk = feed(m, 2.0, lambda t: 0.03 + 0.25 * (math.sin(8 * math.pi * t) > 0),
                lambda t: 0.01 + 0.12 * (math.sin(8 * math.pi * t) > 0), start=1.0)
    assert min(talk[FPS // 2:]) == 1.0


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
