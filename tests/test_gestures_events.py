"""The temporal event detector on synthetic score sequences (no MediaPipe, no images)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gestures.events import TIEMPOS, EventDetector
from gestures.types import GESTOS

FPS = 25


def run(
    score: Callable[[float], dict[str, float]],
    seconds: float,
    lados: Callable[[float], dict[str, str]] | None = None,
    claros: Callable[[float], set[str]] | None = None,
) -> EventDetector:
    det = EventDetector()
    for i in range(int(seconds * FPS)):
        t = i / FPS
        det.update(t, score(t), lados(t) if lados else {}, (), claros(t) if claros else ())
    det.finish(seconds)
    return det


def pulse(gesto: str, start: float, end: float, level: float = 0.9):
    return lambda t: {gesto: level if start <= t < end else 0.0}


def test_wink_held_briefly_is_one_event_with_its_side():
    det = run(pulse("guino", 1.0, 1.4), 3.0, lambda t: {"guino": "b"})
    assert [(e.gesto, e.lado) for e in det.eventos] == [("guino", "b")]
    ev = det.eventos[0]
    assert ev.inicio == pytest.approx(1.0) and ev.fin == pytest.approx(1.4 - 1 / FPS)
    assert ev.confianza == pytest.approx(0.9)


def test_eyes_shut_half_a_second_are_closed_eyes_a_long_blink_is_not():
    """senas-lp d7 2.30 s holds both eyes shut 0.5 s on purpose; the labelled blinks of the
    three shared folders keep them shut 0.3 s at most (a 0.4 s closure on a neutral face too)."""
    closed = run(pulse("ojos_cerrados", 1.0, 1.56), 3.0)
    assert [e.gesto for e in closed.eventos] == ["ojos_cerrados"]
    assert run(pulse("ojos_cerrados", 1.0, 1.4), 3.0).eventos == []


def test_a_blink_is_not_ojos_cerrados_but_a_long_closure_is():
    blink = run(pulse("ojos_cerrados", 1.0, 1.3), 3.0)
    assert blink.eventos == []
    closed = run(pulse("ojos_cerrados", 1.0, 2.0), 3.0)
    assert [e.gesto for e in closed.eventos] == ["ojos_cerrados"]


@pytest.mark.parametrize("gesto", [g for g in GESTOS if TIEMPOS[g].minimo >= 0.3])
def test_shorter_than_the_minimum_never_fires(gesto):
    short = TIEMPOS[gesto].minimo - 2 / FPS
    assert run(pulse(gesto, 1.0, 1.0 + short), 3.0).eventos == []


def test_hysteresis_keeps_one_event_through_a_dip_and_a_dropped_frame():
    def score(t: float) -> dict[str, float]:
        if not 1.0 <= t < 2.0:
            return {"cejas_arriba": 0.0}
        if 1.40 <= t < 1.44:  # one frame lost (no face): below salir
            return {"cejas_arriba": 0.0}
        return {"cejas_arriba": 0.45 if t >= 1.6 else 0.9}  # sagging, above salir

    det = run(score, 3.0)
    assert len(det.eventos) == 1
    assert det.eventos[0].fin == pytest.approx(2.0 - 1 / FPS)


def test_flicker_around_the_threshold_does_not_fire():
    # speech-like: 0.1 s up, 0.1 s down, never long enough for a mouth seña
    det = run(lambda t: {"morro": 0.9 if int(t * 10) % 2 else 0.0}, 4.0)
    assert det.eventos == []


def test_cooldown_merges_nothing_but_delays_the_next_start():
    det = run(lambda t: {"morro": 0.9 if (1.0 <= t < 1.6 or 1.7 <= t < 2.5) else 0.0}, 3.0)
    # the second burst starts inside the cooldown, so it is counted from its end only
    assert len(det.eventos) == 2
    assert det.eventos[1].inicio >= det.eventos[0].fin + TIEMPOS["morro"].enfriar


def test_side_switch_splits_the_event():
    det = run(
        lambda t: {"labios_lado": 0.9 if 1.0 <= t < 2.6 else 0.0},
        3.5,
        lambda t: {"labios_lado": "a" if t < 1.8 else "b"},
        lambda t: {"labios_lado"},
    )
    assert [(e.gesto, e.lado) for e in det.eventos] == [("labios_lado", "a"), ("labios_lado", "b")]


def test_lips_aside_needs_one_clear_frame():
    """A lips-aside held at full score but never clearly aside (a pressed, worried mouth's slight
    asymmetry) is no event; one clear frame anywhere in it confirms it from its first frame."""
    held = pulse("labios_lado", 1.0, 1.6)
    assert run(held, 3.0, lambda t: {"labios_lado": "a"}).eventos == []
    det = run(held, 3.0, lambda t: {"labios_lado": "a"}, lambda t: {"labios_lado"} if 1.3 <= t < 1.34 else set())
    assert [(e.gesto, e.inicio, e.fin) for e in det.eventos] == [("labios_lado", 1.0, pytest.approx(1.56))]
    # a clear frame where the score is too low to hold the gesture does not count
    det = run(held, 3.0, lambda t: {"labios_lado": "a"}, lambda t: {"labios_lado"} if t < 1.0 or t >= 1.6 else set())
    assert det.eventos == []
    # the other gestures need no clear frame
    assert [e.gesto for e in run(pulse("morro", 1.0, 1.6), 3.0).eventos] == ["morro"]


def test_one_shoulder_then_both_reports_only_both():
    def score(t: float) -> dict[str, float]:
        return {"hombro_arriba": 0.9 if 1.0 <= t < 1.5 else 0.0, "hombros_arriba": 0.9 if 1.5 <= t < 2.3 else 0.0}

    det = run(score, 3.5, lambda t: {"hombro_arriba": "a"})
    assert [e.gesto for e in det.eventos] == ["hombros_arriba"]


def test_one_shoulder_alone_is_reported_after_a_short_wait():
    det = EventDetector()
    ended_at = None
    for i in range(int(3.0 * FPS)):
        t = i / FPS
        out = det.update(t, {"hombro_arriba": 0.9 if 1.0 <= t < 1.6 else 0.0}, {"hombro_arriba": "b"})
        if out and ended_at is None:
            ended_at = t
    assert [(e.gesto, e.lado) for e in det.eventos] == [("hombro_arriba", "b")]
    assert ended_at is not None and ended_at < 2.2


def test_activos_reports_a_confirmed_gesture_before_it_ends():
    det = EventDetector()
    seen = []
    for i in range(int(2.0 * FPS)):
        t = i / FPS
        det.update(t, {"cejas_arriba": 0.9 if t >= 1.0 else 0.0})
        seen += [(round(t, 2), e.gesto) for e in det.activos(t)]
    assert seen and seen[0][0] == pytest.approx(1.0 + TIEMPOS["cejas_arriba"].minimo, abs=0.05)
    assert det.eventos == []
    assert [e.gesto for e in det.finish(2.0)] == ["cejas_arriba"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 0.59), min_size=1, max_size=120))
def test_scores_below_the_entry_threshold_never_fire(levels):
    det = EventDetector()
    for i, s in enumerate(levels):
        det.update(i / FPS, dict.fromkeys(GESTOS, s))
    assert det.finish(len(levels) / FPS) == [] and det.eventos == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=150))
def test_events_last_at_least_their_minimum_and_never_overlap(levels):
    det = EventDetector()
    for i, s in enumerate(levels):
        det.update(i / FPS, {"cejas_arriba": s})
    det.finish(len(levels) / FPS)
    evs = det.eventos
    assert all(e.fin - e.inicio >= TIEMPOS["cejas_arriba"].minimo - 1e-9 for e in evs)
    assert all(a.fin < b.inicio for a, b in itertools.pairwise(evs))


def test_a_barred_face_sena_is_cut_and_a_barred_shrug_goes_on_once_started():
    det = EventDetector()
    for i in range(20):
        t = i / 10
        barred = {"morro"} if 0.5 <= t < 0.8 else set()
        det.update(t, {"morro": 0.9 if 0.5 <= t < 1.5 else 0.0}, {}, barred)
    assert [(e.gesto, e.inicio) for e in det.eventos] == [("morro", 0.8)]
    for gesto, expected in (("hombros_arriba", [("hombros_arriba", 0.5, 1.4)]), ("morro", [])):
        det = EventDetector()
        for i in range(20):
            t = i / 10
            det.update(t, {gesto: 0.9 if 0.5 <= t < 1.5 else 0.0}, {}, {gesto} if t >= 0.6 else ())
        assert [(e.gesto, e.inicio, e.fin) for e in det.eventos] == expected


def test_the_clear_frame_rule_can_be_switched_off():
    from gestures.events import tiempos_with

    tiempos = tiempos_with({"labios_lado": {"claro": False}})
    assert TIEMPOS["labios_lado"].claro and not tiempos["labios_lado"].claro
    assert tiempos["labios_lado"].minimo == TIEMPOS["labios_lado"].minimo
    det = EventDetector(tiempos)
    for i in range(int(3.0 * FPS)):
        t = i / FPS
        det.update(t, {"labios_lado": 0.9 if 1.0 <= t < 1.6 else 0.0}, {"labios_lado": "a"})
    det.finish(3.0)
    assert [e.gesto for e in det.eventos] == ["labios_lado"]


def run_with_blink(score: Callable[[float], dict[str, float]], seconds: float, blink: tuple[float, float]):
    """As :func:`run`, with every gesture but closed eyes barred (``sin_inicio``) over
    ``blink``, as the recognizer bars them over a blink and the tenths of a second after."""
    barred = frozenset(GESTOS) - {"ojos_cerrados"}
    det = EventDetector()
    for i in range(int(seconds * FPS)):
        t = i / FPS
        det.update(t, score(t), {}, barred if blink[0] <= t < blink[1] else (), ())
    det.finish(seconds)
    return det


@pytest.mark.parametrize("gesto", ["morro", "cejas_arriba", "labio_mordido", "guino", "lengua_fuera"])
def test_a_blink_cuts_a_held_face_sena_short(gesto):
    """A seña confirmed before a blink ends at its last frame before the blink (it never
    shares a frame with one); what follows the blink is a new event that starts after it."""
    det = run_with_blink(pulse(gesto, 1.0, 2.4), 3.0, (1.6, 1.8))
    evs = [(e.inicio, e.fin) for e in det.eventos]
    # the lids' closing frames (CIERRE, 0.07 s: one frame at 25 fps) are left out too, but
    # for a wink's (its own eye closing)
    assert evs[0] == pytest.approx((1.0, 1.6 - (1 if gesto == "guino" else 2) / FPS))
    assert all(fin < 1.6 or inicio >= 1.8 for inicio, fin in evs), evs
    # before: the event went on through the blink
    old = run(pulse(gesto, 1.0, 2.4), 3.0)
    assert len(old.eventos) == 1
    assert (old.eventos[0].inicio, old.eventos[0].fin) == pytest.approx((1.0, 2.4 - 1 / FPS))


@pytest.mark.parametrize("gesto", ["morro", "cejas_arriba", "guino"])
def test_a_blink_never_confirms_a_sena(gesto):
    """A seña not yet held its minimum when the blink comes is dropped, and one whose only
    frames are the blink's never starts."""
    short = run_with_blink(pulse(gesto, 1.0, 1.4), 3.0, (1.12, 1.5))
    assert short.eventos == []
    # held its minimum only on the lids' closing frame before the blink was seen
    minimum = TIEMPOS[gesto].minimo
    closing = run_with_blink(pulse(gesto, 1.0, 2.0), 3.0, (1.0 + minimum + 1 / FPS, 1.9))
    assert [e.gesto for e in closing.eventos] == (["guino"] if gesto == "guino" else [])
    inside = run_with_blink(pulse(gesto, 1.0, 1.6), 3.0, (0.9, 1.7))
    assert inside.eventos == []


def test_a_shrug_goes_on_through_a_blink_and_closed_eyes_start_on_one():
    det = run_with_blink(pulse("hombros_arriba", 1.0, 2.0), 3.0, (1.4, 1.6))
    assert [(e.gesto, e.inicio) for e in det.eventos] == [("hombros_arriba", 1.0)]
    eyes = run_with_blink(pulse("ojos_cerrados", 1.0, 2.0), 3.0, (1.0, 1.3))
    assert [e.gesto for e in eyes.eventos] == ["ojos_cerrados"]


def test_a_wink_known_late_starts_when_its_eye_shut():
    """The blink watch knows a closure of both eyes was a wink's only frames after it
    (``desde``): the wink starts back then, and counts as held its minimum at once."""
    det = EventDetector()
    for i in range(40):
        t = i / 30
        seen = 0.9 if 13 <= i < 16 else 0.0  # the wink after the closure: 0.1 s, under the minimum
        det.update(t, {"guino": seen}, {"guino": "a"}, (), (), {"guino": 3 / 30} if 13 <= i < 16 else None)
    det.finish(40 / 30)
    assert [(e.gesto, e.lado) for e in det.eventos] == [("guino", "a")]
    assert det.eventos[0].inicio == pytest.approx(3 / 30) and det.eventos[0].fin == pytest.approx(15 / 30)
    late = run(lambda t: {"guino": 0.9 if 13 / 30 <= t < 16 / 30 else 0.0}, 2.0)
    assert late.eventos == []  # the same frames without it: too short
