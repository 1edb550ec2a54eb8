"""SenaRecognizer's own logic (calibration, shoulder smoothing, meanings, sides) without
MediaPipe: a stand-in landmarker replays what MediaPipe saw on the astronaut's neutral frame
(tests/data/gestures/astronaut_marks.npz), changed frame by frame as each test needs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from gestures.decision import ENTRADAS, Decision
from gestures.models import Observation
from gestures.recognizer import SenaRecognizer

MARKS = np.load(Path(__file__).parent / "data" / "gestures" / "astronaut_marks.npz")
FPS = 25
FRAME = np.full((480, 640, 3), 128, np.uint8)  # pixels only feed the colour cues


def neutral_obs() -> Observation:
    blend = dict(zip(MARKS["blend_names"].tolist(), MARKS["blend_values"].tolist(), strict=True))
    return Observation(640, 480, MARKS["face"].copy(), blend, MARKS["matrix"].copy(), MARKS["pose"].copy())


class Replay:
    """Landmarker stand-in: ``change(t, obs)`` edits the neutral observation at time t."""

    mode = "image"
    has_pose = True

    def __init__(self, change: Callable[[float, Observation], Observation | None]) -> None:
        self.change = change

    def detect(self, rgb: np.ndarray, t: float = 0.0, near: tuple[float, float, float] | None = None) -> Observation:
        return self.change(t, neutral_obs()) or Observation(640, 480)


def run(change, seconds: float, perfil: str | None = None, calib: float = 0.5, decision: Decision | None = None):
    rec = SenaRecognizer(perfil, landmarkers=Replay(change), calibracion=calib, decision=decision)
    results = [rec.process(FRAME, i / FPS) for i in range(int(seconds * FPS))]
    return rec, results


def lift_shoulder(obs: Observation, side_index: int, widths: float) -> Observation:
    width = abs(obs.pose[11, 0] - obs.pose[12, 0])
    obs.pose[side_index, 1] -= widths * width
    return obs


def blend(obs: Observation, **values: float) -> Observation:
    obs.blendshapes.update(values)
    return obs


def test_calibration_waits_for_a_face_and_nothing_fires_meanwhile():
    rec, res = run(lambda t, o: None if t < 0.4 else blend(o, eyeBlinkRight=0.9), 1.2)
    assert [r.cara for r in res[:10]] == [False] * 10
    # the face appears at 0.4 s winking: that is its neutral; nothing can fire
    assert all(r.calibrando for r in res[10:20])
    assert rec.finish() == []


def test_a_one_frame_shoulder_spike_is_smoothed_away():
    def spike(t: float, o: Observation) -> Observation:
        return lift_shoulder(o, 11, 0.2) if abs(t - 1.0) < 0.5 / FPS else o

    rec, res = run(spike, 2.0)
    assert max(r.puntuaciones["hombro_arriba"] for r in res) < 0.6
    assert rec.finish() == []


def test_a_held_shoulder_lift_is_one_event_on_the_right_side():
    # pose landmark 12 is the image-left shoulder here: the player's right
    assert MARKS["pose"][12, 0] < MARKS["pose"][11, 0]
    rec, _ = run(lambda t, o: lift_shoulder(o, 12, 0.12) if 1.0 <= t < 1.8 else o, 2.6)
    events = rec.finish()
    assert [(e.gesto, e.lado) for e in events] == [("hombro_arriba", "derecho")]
    assert 1.0 <= events[0].inicio <= 1.2


def test_meanings_follow_the_profile_and_sequences():
    def medias_then_kings(t: float, o: Observation) -> Observation:
        if 1.0 <= t < 1.6:
            return blend(o, mouthLeft=0.6)
        if 2.0 <= t < 2.6:
            o.face[17, 1] -= 0.5 * (o.face[17, 1] - o.face[14, 1])  # the lower lip hidden
            return blend(o, mouthRollLower=0.7)
        return o

    rec, res = run(medias_then_kings, 3.2, perfil="euskadi")
    events = rec.finish()
    assert [(e.gesto, e.sena) for e in events] == [("labios_lado", "medias"), ("labio_mordido", "tres reyes")]
    held = [e for r in res for e in r.activos if e.gesto == "labio_mordido"]
    assert held and held[-1].sena == "tres reyes"  # provisional meaning while held


@pytest.mark.parametrize(("mirrored", "lado"), [(False, "izquierdo"), (True, "derecho")])
def test_the_side_is_the_players(mirrored, lado):
    # eyeBlinkLeft: the person's left eye, on the image right of an unmirrored frame
    rec = SenaRecognizer(
        landmarkers=Replay(lambda t, o: blend(o, eyeBlinkLeft=0.8) if 1.0 <= t < 1.5 else o),
        calibracion=0.5,
        mirrored=mirrored,
    )
    for i in range(2 * FPS):
        rec.process(FRAME, i / FPS)
    assert [(e.gesto, e.lado) for e in rec.finish()] == [("guino", lado)]


def test_reset_forgets_events_and_calibration():
    rec, _ = run(lambda t, o: blend(o, eyeBlinkLeft=0.8) if 1.0 <= t < 1.5 else o, 2.0)
    assert rec.eventos
    rec.reset()
    assert rec.baseline is None and rec.eventos == []


LOWER_LIP = [14, 17, 87, 178, 317, 402]


def mouth_open(until: float, px: float, jaw: float, syllables: bool) -> Callable[[float, Observation], Observation]:
    """The lower lip ``px`` down and jawOpen at ``jaw`` until ``until`` s: every other eighth
    of a second (syllables) or all the time (a held jaw drop); then a still face."""

    def change(t: float, obs: Observation) -> Observation:
        if t < until and (int(t * 8) % 2 or not syllables):
            obs.face[LOWER_LIP, 1] += px
            obs.blendshapes["jawOpen"] = jaw
        return obs

    return change


def talking_then_still(until: float) -> Callable[[float, Observation], Observation]:
    return mouth_open(until, 12.0, 0.4, syllables=True)


def test_auto_calibration_leaves_out_the_open_mouth_of_speech():
    rec, _ = run(talking_then_still(4.0), 1.0, calib=0.5)
    quality = rec.calidad
    assert quality is not None and quality.descartados >= 4 and quality.fotogramas >= 4
    assert rec.baseline.get("jawOpen") < 0.1  # the closed-mouth frames between syllables


def test_auto_calibration_waits_for_a_neutral_face():
    # a held jaw drop is still, but no neutral face: the calibration waits, then says why
    rec, results = run(mouth_open(4.0, 30.0, 0.6, syllables=False), 6.0, calib=0.5)
    said = next(i for i, r in enumerate(results) if r.calibracion is not None)
    # three calibrations long, it says why it is taking so long, and still calibrates
    assert said / FPS == pytest.approx(1.5, abs=0.1)
    assert results[said].calibrando and "no_neutra" in results[said].calibracion.problemas
    # six: the least bad frames, said to be poor
    first = next(i for i, r in enumerate(results) if not r.calibrando)
    assert first / FPS == pytest.approx(3.0, abs=0.1)
    assert not results[first].calibracion.buena
    # it keeps looking, and a neutral window replaces the poor baseline
    assert results[-1].calibracion is not None and results[-1].calibracion.buena
    assert rec.calidad is results[-1].calibracion
    assert rec.baseline.get("jawOpen") < 0.1


def test_a_still_face_calibrates_on_time_and_well():
    _, results = run(lambda t, obs: obs, 1.5, calib=0.5)
    first = next(i for i, r in enumerate(results) if not r.calibrando)
    assert first / FPS == pytest.approx(0.5, abs=0.05)
    assert results[first].calibracion.buena and results[first].calibracion.fotogramas >= 5
    assert all(r.calibracion is None for r in results[: first - 1])  # the last one measured it


def test_talking_makes_no_mouth_sena():
    # a spoken "u" every other syllable: puckered lips a quarter of a second at a time
    def change(t: float, obs: Observation) -> Observation:
        if t >= 1.0:
            obs = talking_then_still(9.0)(t, obs)
            if int(t * 8) % 2 == 0:
                obs.blendshapes["mouthPucker"] = 0.9
        return obs

    rec, _ = run(change, 4.0, calib=0.5)
    assert [e.gesto for e in rec.finish()] == []


def blink_then_brows(blink_at: float | None, brows: tuple[float, float]):
    """Both eyes shut for 0.12 s at ``blink_at``; brows raised over ``brows`` (s)."""

    def change(t: float, obs: Observation) -> Observation:
        if blink_at is not None and blink_at <= t < blink_at + 0.12:
            blend(obs, eyeBlinkLeft=0.95, eyeBlinkRight=0.95)
        if brows[0] <= t < brows[1]:
            blend(obs, browInnerUp=0.7, browOuterUpLeft=0.7, browOuterUpRight=0.7)
        return obs

    return change


def test_brows_raised_just_after_a_blink_are_no_sena():
    rec, _ = run(blink_then_brows(1.5, (1.62, 2.0)), 3.0)
    assert [e.gesto for e in rec.finish()] == []
    # the same brows without the blink, or well after it, are raised brows
    for blink_at in (None, 0.8):
        rec, _ = run(blink_then_brows(blink_at, (1.62, 2.0)), 3.0)
        assert [e.gesto for e in rec.finish()] == ["cejas_arriba"], blink_at


def test_a_blink_starts_no_sena():
    """A pout that begins inside a blink starts when the blink is over."""

    def change(t: float, obs: Observation) -> Observation:
        if 1.5 <= t < 1.62:
            blend(obs, eyeBlinkLeft=0.95, eyeBlinkRight=0.95)
        if 1.5 <= t < 2.4:  # a tongue-free, shut-lipped pout by blendshape and depth
            blend(obs, mouthPucker=0.8)
            obs.face[[0, 13, 14, 17], 2] += 0.03 * np.linalg.norm(obs.face[263, :2] - obs.face[33, :2])
        return obs

    rec, _ = run(change, 3.0)
    events = rec.finish()
    assert [e.gesto for e in events] == ["morro"]
    assert events[0].inicio >= 1.62 + 0.12  # after the blink and its settling frames


# --- the learned decision in the recognizer -------------------------------------------------------


def constant(gestos: tuple[str, ...], sesgo: float) -> Decision:
    """A decision whose probability is sigmoid(sesgo) wherever the rules score at all."""
    n = len(ENTRADAS)
    return Decision(gestos, np.zeros(n), np.ones(n), np.zeros(n), dict.fromkeys(gestos, sesgo))


def test_the_decision_decides_its_gestures_only_where_the_rules_see_a_cue():
    lift = lambda t, o: lift_shoulder(o, 12, 0.12) if 1.0 <= t < 1.8 else o  # noqa: E731
    for decision, want in (
        (Decision.ninguna(), ["hombro_arriba"]),  # the rules alone
        (constant(("hombro_arriba",), 10.0), ["hombro_arriba"]),
        (constant(("hombro_arriba",), -10.0), []),  # the model says no
        (constant(("morro",), 10.0), ["hombro_arriba"]),  # another gesture: the rules decide
    ):
        rec, res = run(lift, 2.6, decision=decision)
        assert [e.gesto for e in rec.finish()] == want, decision.gestos
        # where the rules see nothing, the model gives 0 whatever it would say
        assert all(r.puntuaciones["morro"] == 0.0 for r in res)


def test_a_confident_decision_still_makes_no_sena_of_a_blink():
    rec, _ = run(blink_then_brows(1.5, (1.62, 2.0)), 3.0, decision=constant(("cejas_arriba", "guino"), 10.0))
    assert [e.gesto for e in rec.finish()] == []


def test_the_decision_brings_its_entry_thresholds():
    n = len(ENTRADAS)
    d = Decision(("morro",), np.zeros(n), np.ones(n), np.zeros(n), {}, {"morro": 0.4})
    still = Replay(lambda t, o: o)
    rec = SenaRecognizer(landmarkers=still, decision=d)
    assert rec.tiempos["morro"].entrar == 0.4 and rec.tiempos["morro"].salir == pytest.approx(0.2333, abs=1e-3)
    rules = SenaRecognizer(landmarkers=still, decision=Decision.ninguna())
    assert rec.tiempos["guino"] == rules.tiempos["guino"] and rules.tiempos["morro"].entrar == 0.6


# --- closed eyes, and lids lowered with the gaze ------------------------------------------------


def iod(obs: Observation) -> float:
    return float(np.linalg.norm(obs.face[263, :2] - obs.face[33, :2]))


def lids(obs: Observation, shut: float) -> Observation:
    """Both upper lids lowered ``shut`` of the way onto the lower ones (1: shut)."""
    from gestures import landmarks as L

    for upper, lower in ((L.UPPER_LID_A, L.LOWER_LID_A), (L.UPPER_LID_B, L.LOWER_LID_B)):
        obs.face[list(upper), 1] += shut * (obs.face[list(lower), 1] - obs.face[list(upper), 1])
    return obs


def gaze(obs: Observation, down: float) -> Observation:
    """The eyes turned down: both irises ``down`` IOD lower, eyeLookDown up by 20 times that."""
    obs.face[468:478, 1] += down * iod(obs)
    for k in ("eyeLookDownLeft", "eyeLookDownRight"):
        obs.blendshapes[k] += 20 * down
    return obs


def closed_eyes(look_down_first: bool, look_up_between: bool = False):
    """Eyes shut for 1 s at 2.0 s (lids, eyeBlink; the iris and eyeLookDown read low, as on
    real closed eyes), from a level gaze or after looking down at the cards from 1.2 s with the
    lids lowered a third of the way (and, if ``look_up_between``, level again at 1.8 s)."""

    def change(t: float, obs: Observation) -> Observation:
        if 2.0 <= t < 3.0:
            return gaze(blend(lids(obs, 0.9), eyeBlinkLeft=0.9, eyeBlinkRight=0.9), 0.025)
        if look_down_first and 1.2 <= t < 2.0 and not (look_up_between and t >= 1.8):
            return gaze(lids(obs, 0.3), 0.015)
        return obs

    return change


def test_eyes_shut_from_a_level_gaze_are_closed_eyes():
    for look_up_between in (False, True):
        change = closed_eyes(look_down_first=look_up_between, look_up_between=look_up_between)
        rec, _ = run(change, 3.6)
        assert [e.gesto for e in rec.finish()] == ["ojos_cerrados"], look_up_between


def test_lids_lowered_from_a_downward_gaze_are_no_closed_eyes():
    """A player looking down at the cards with the head level, whose lids then come all the way
    down: no closed eyes (the same closure from a level gaze is one, above)."""
    rec, res = run(closed_eyes(look_down_first=True), 3.6)
    assert [e.gesto for e in rec.finish()] == []
    assert all(r.puntuaciones["ojos_cerrados"] == 0.0 for r in res)


def test_a_glance_down_too_short_or_read_by_one_cue_only_vetoes_nothing():
    def glance(t: float, obs: Observation) -> Observation:
        if 1.92 <= t < 2.0:  # two frames looking down: a lid on its way down does as much
            return gaze(obs, 0.015)
        return closed_eyes(False)(t, obs)

    def blendshape_only(t: float, obs: Observation) -> Observation:
        if 1.2 <= t < 2.0:
            return blend(lids(obs, 0.3), eyeLookDownLeft=0.6, eyeLookDownRight=0.6)
        return closed_eyes(False)(t, obs)

    for change in (glance, blendshape_only):
        rec, _ = run(change, 3.6)
        assert [e.gesto for e in rec.finish()] == ["ojos_cerrados"], change.__name__
