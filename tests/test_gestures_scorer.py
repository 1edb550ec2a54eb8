"""The per-frame scorer on hand-made feature dicts (no MediaPipe): baseline-relative cues,
gates, sides."""

from __future__ import annotations

import numpy as np
import pytest

from gestures.scorer import DEFAULT_NEUTRAL, Baseline, Scorer, Umbrales, ramp, with_overrides
from gestures.types import GESTOS, lado_jugador

NEUTRAL = {
    **DEFAULT_NEUTRAL,
    "scale_px": 80.0,
    "roll": 0.0,
    "upper_lip": 0.08,
    "mouth_y": 0.9,
    "mouthRollUpper": 0.0,
    "eyeSquintLeft": 0.1,
    "eyeSquintRight": 0.1,
    "mouthPressLeft": 0.0,
    "mouthPressRight": 0.0,
    "tongue_fill": 0.0,
    "tongue_dx": 0.0,
    "tongue_dy": 0.0,
    "sh_width_px": 200.0,
    "sh_y_a": 400.0,
    "sh_y_b": 400.0,
    "mouth_y_px": 250.0,
}


def cal(values: dict[str, float]) -> Baseline:
    """A baseline as if measured over 10 calibration frames."""
    return Baseline(dict(values), frames=10)


def score(**changes: float) -> dict[str, float]:
    base = cal(NEUTRAL)
    return Scorer().score({**NEUTRAL, **changes}, base).valores


def fired(**changes: float) -> set[str]:
    return {g for g, s in score(**changes).items() if s >= 0.6}


def test_neutral_scores_zero_everywhere():
    assert set(score()) == set(GESTOS)
    assert max(score().values()) == 0.0


def test_no_face_scores_zero():
    assert max(Scorer().score({}, cal(NEUTRAL)).valores.values()) == 0.0


def test_wink_needs_the_other_eye_open():
    assert fired(ear_a=0.08) == {"guino"}
    both = fired(ear_a=0.08, ear_b=0.08)
    assert both == {"ojos_cerrados"}


def test_wink_allows_the_other_eye_to_narrow_but_not_to_close():
    ear0 = NEUTRAL["ear_a"]
    assert fired(ear_a=ear0 * 0.2, ear_b=ear0 * 0.65) == {"guino"}  # cheek raised on the other
    assert "guino" not in fired(ear_a=ear0 * 0.2, ear_b=ear0 * 0.3)
    # looking down lowers both lids alike: neither a wink nor closed eyes
    assert fired(ear_a=ear0 * 0.62, ear_b=ear0 * 0.65) == set()


def test_wink_side_is_the_closed_eye_and_blendshape_names_are_the_persons_side():
    s = Scorer().score({**NEUTRAL, "ear_b": 0.08}, cal(NEUTRAL))
    assert s.lados["guino"] == "b"
    # MediaPipe's eyeBlinkRight is the person's right eye = image left when unmirrored
    s = Scorer().score({**NEUTRAL, "eyeBlinkRight": 0.8}, cal(NEUTRAL))
    assert s.valores["guino"] >= 0.6 and s.lados["guino"] == "a"


def test_thresholds_are_relative_to_the_persons_neutral_face():
    # someone whose eyes rest narrow (EAR 0.2) is not winking at EAR 0.18
    narrow = {**NEUTRAL, "ear_a": 0.2, "ear_b": 0.2}
    s = Scorer().score({**narrow, "ear_a": 0.18}, cal(narrow))
    assert s.valores["guino"] < 0.6
    # against the typical neutral face the same frame would look like a wink
    assert Scorer().score({**narrow, "ear_a": 0.08}, cal(narrow)).valores["guino"] >= 0.6


def test_brows_by_geometry_or_blendshapes():
    assert fired(brow_h=NEUTRAL["brow_h"] + 0.08) == {"cejas_arriba"}
    assert fired(browInnerUp=0.6, browOuterUpLeft=0.5, browOuterUpRight=0.5) == {"cejas_arriba"}


def test_pucker_needs_closed_lips_and_is_not_a_fading_smile():
    narrow = NEUTRAL["mouth_w"] * 0.85
    assert fired(mouth_w=narrow, lip_push=0.03) == {"morro"}
    assert "morro" not in fired(mouth_w=narrow, lip_push=0.03, lip_gap=NEUTRAL["lip_gap"] + 0.2)
    smiling = {**NEUTRAL, "mouthSmileLeft": 0.9, "mouthSmileRight": 0.9}
    s = Scorer().score(
        {**smiling, "mouth_w": narrow, "mouthSmileLeft": 0.1, "mouthSmileRight": 0.1, "lip_push": 0.03}, cal(smiling)
    )
    assert s.valores["morro"] < 0.6


def test_lips_to_one_side_and_a_one_sided_smile():
    s = Scorer().score(
        {
            **NEUTRAL,
            "lips_x": 0.06,
            "corner_a_x": NEUTRAL["corner_a_x"] + 0.05,
            "corner_b_x": NEUTRAL["corner_b_x"] + 0.05,
        },
        cal(NEUTRAL),
    )
    assert s.valores["labios_lado"] >= 0.6 and s.lados["labios_lado"] == "b"
    # corners moving apart (one up-and-out) is a smirk, not lips moved aside
    smirk = score(lips_x=0.06, corner_a_x=NEUTRAL["corner_a_x"] - 0.05, corner_b_x=NEUTRAL["corner_b_x"] + 0.05)
    assert smirk["labios_lado"] < 0.6


def test_the_mouth_makes_one_sena_at_a_time():
    # lips pushed to one side also narrow the mouth a little
    s = score(
        lips_x=0.06,
        corner_a_x=NEUTRAL["corner_a_x"] + 0.05,
        corner_b_x=NEUTRAL["corner_b_x"] + 0.05,
        mouthPucker=0.3,
        lip_push=0.03,
    )
    assert s["labios_lado"] == 1.0 and 0.35 <= s["morro"] <= 0.5


def test_bite_by_lip_colour_and_not_with_the_tongue_out():
    assert fired(lower_lip_red=0.1, lower_lip_teeth=0.2) == {"labio_mordido"}
    assert "labio_mordido" not in fired(
        lower_lip_red=0.1, lower_lip_teeth=0.2, red_total=0.2, tongue_area=0.05, lip_gap=0.06
    )


def test_pale_lips_disable_the_colour_cue():
    pale = {**NEUTRAL, "lower_lip_red": 0.1}
    s = Scorer().score({**pale, "lower_lip_red": 0.0, "lower_lip_teeth": 0.3}, cal(pale))
    assert s.valores["labio_mordido"] == 0.0


def test_tongue_straight_or_to_a_side():
    assert fired(tongue_area=0.08, tongue_dx=0.1, lip_gap=0.06) == {"lengua_fuera"}
    s = Scorer().score({**NEUTRAL, "tongue_area": 0.08, "tongue_dx": -1.4, "lip_gap": 0.06}, cal(NEUTRAL))
    assert s.valores["lengua_lado"] >= 0.6 and s.lados["lengua_lado"] == "a"
    assert s.valores["lengua_fuera"] < 0.35


def test_red_inside_a_talking_mouth_is_not_a_tongue_out():
    assert "lengua_fuera" not in fired(red_total=0.12, tongue_fill=0.2, lip_gap=0.2)
    assert "lengua_fuera" in fired(red_total=0.12, tongue_fill=0.6, lip_gap=0.2)


def test_red_inside_a_flared_o_is_not_a_tongue_out():
    """Lips flared wide apart (a funnel "O", senas-lp d8 8.33 s) show their red inner side and
    the gums over half the opening with nothing past the lips: no tongue. With the lips only
    parted, the same red is one; a tongue filling most of a wide opening still is."""
    o = {"red_total": NEUTRAL["red_total"] + 0.09, "tongue_fill": 0.46, "jawOpen": NEUTRAL["jawOpen"] + 0.25}
    assert "lengua_fuera" not in fired(**o, lip_gap=NEUTRAL["lip_gap"] + 0.15)
    assert "lengua_fuera" in fired(**o, lip_gap=NEUTRAL["lip_gap"] + 0.04)
    assert "lengua_fuera" in fired(**{**o, "tongue_fill": 0.65}, lip_gap=NEUTRAL["lip_gap"] + 0.15)


def test_colour_cues_need_the_persons_own_neutral_face():
    uncalibrated = Scorer().score({**NEUTRAL, "tongue_area": 0.08, "lower_lip_red": 0.05}, Baseline(dict(NEUTRAL)))
    assert uncalibrated.valores["lengua_fuera"] == 0.0
    assert uncalibrated.valores["labio_mordido"] == 0.0


def test_tongue_is_ignored_on_a_tiny_face():
    assert "lengua_fuera" not in fired(tongue_area=0.08, scale_px=12.0)


def test_closed_eyes_need_the_head_level_as_at_the_neutral_face():
    """Looking down at the cards lowers both lids: with the head pitched 14 degrees from
    neutral no closed eyes; up to 8 degrees, as real closed eyes were, they stand."""
    shut = {"ear_a": 0.08, "ear_b": 0.08}
    assert fired(**shut, pitch=6.0) == {"ojos_cerrados"}
    assert fired(**shut, pitch=-6.0) == {"ojos_cerrados"}
    assert score(**shut, pitch=14.0)["ojos_cerrados"] == 0.0
    assert score(**shut, pitch=-14.0)["ojos_cerrados"] == 0.0


def test_a_turned_head_silences_face_gestures():
    assert fired(ear_a=0.08, yaw=30.0) == set()
    assert fired(ear_a=0.08, yaw=10.0) == {"guino"}


def test_shoulders_must_rise_in_the_image_and_against_the_face():
    up = 0.1 * NEUTRAL["sh_width_px"]
    assert fired(sh_y_a=400 - up, sh_y_b=400 - up) == {"hombros_arriba"}
    s = Scorer().score({**NEUTRAL, "sh_y_b": 400 - up}, cal(NEUTRAL))
    assert s.valores["hombro_arriba"] >= 0.6 and s.lados["hombro_arriba"] == "b"
    # nodding: the mouth comes down towards still shoulders
    assert fired(mouth_y_px=250 + up) == set()
    # the whole person (or the camera) moves: both rise together with the face
    assert fired(sh_y_a=400 - up, sh_y_b=400 - up, mouth_y_px=250 - up) == set()


def test_shoulders_need_a_calibrated_baseline():
    base = Baseline({k: v for k, v in NEUTRAL.items() if not k.startswith("sh_")})
    s = Scorer().score({**NEUTRAL, "sh_y_a": 300.0, "sh_y_b": 300.0}, base)
    assert s.valores["hombros_arriba"] == 0.0


def test_a_noisy_calibration_raises_the_bar():
    rng = np.random.default_rng(0)
    clean = Baseline.from_frames([dict(NEUTRAL)] * 20)
    noisy = Baseline.from_frames([{**NEUTRAL, "brow_h": NEUTRAL["brow_h"] + d} for d in rng.normal(0, 0.015, 50)])
    frame = {**NEUTRAL, "brow_h": NEUTRAL["brow_h"] + 0.07}
    assert Scorer().score(frame, clean).valores["cejas_arriba"] == 1.0
    # 0.07 IOD is within 4.5 std devs of this person's jitter: not a clear raise
    assert Scorer().score(frame, noisy).valores["cejas_arriba"] < 0.6
    assert Scorer().score({**frame, "brow_h": NEUTRAL["brow_h"] + 0.13}, noisy).valores["cejas_arriba"] == 1.0


def test_baseline_is_a_median_robust_to_a_blink_during_calibration():
    frames = [dict(NEUTRAL) for _ in range(9)] + [{**NEUTRAL, "ear_a": 0.05, "ear_b": 0.05}]
    assert Baseline.from_frames(frames).values["ear_a"] == pytest.approx(NEUTRAL["ear_a"])


def test_ramp_and_overrides():
    assert ramp(0.5, 0.0, 1.0) == 0.5 and ramp(2.0, 1.0, 0.0) == 0.0
    u = with_overrides(Umbrales(), {"shoulder": (0.01, 0.02)})
    assert u.shoulder == (0.01, 0.02)
    with pytest.raises(KeyError):
        with_overrides(Umbrales(), {"nope": 1.0})


@pytest.mark.parametrize(
    ("side", "mirrored", "expected"),
    [
        ("a", False, "derecho"),
        ("b", False, "izquierdo"),
        ("a", True, "izquierdo"),
        ("b", True, "derecho"),
        (None, False, None),
    ],
)
def test_player_side(side, mirrored, expected):
    assert lado_jugador(side, mirrored) == expected


# --- what real faces do that is not a seña (measured on the real clips: docs/senas.md) -----------

MORRO = {"mouth_w": NEUTRAL["mouth_w"] * 0.85, "mouthPucker": 0.6}


def test_a_morro_pushes_the_lips_out():
    assert fired(**MORRO, lip_push=0.04) == {"morro"}
    # the same narrow, puckered mouth with the lips pressed flat: a sad mouth, a spoken "u"
    assert "morro" not in fired(**MORRO, lip_push=0.005)


def test_a_grin_or_a_laugh_makes_no_mouth_or_brow_sena():
    brows = {"brow_h": NEUTRAL["brow_h"] + 0.08}
    assert fired(**brows) == {"cejas_arriba"}
    assert fired(**brows, mouthSmileLeft=0.6, mouthSmileRight=0.6) == set()
    aside = {"lips_x": 0.06, "corner_a_x": NEUTRAL["corner_a_x"] + 0.05, "corner_b_x": NEUTRAL["corner_b_x"] + 0.05}
    assert fired(**aside) == {"labios_lado"}
    assert fired(**aside, mouthSmileLeft=0.6) == set()
    assert fired(lower_lip_red=0.1, lower_lip_teeth=0.2, mouthSmileRight=0.6) == set()


def test_surprise_is_not_cejas_arriba():
    assert fired(brow_h=NEUTRAL["brow_h"] + 0.08, jawOpen=0.5, lip_gap=0.3) == set()


def test_a_dropped_jaw_shows_a_tongue_only_past_the_lips():
    open_mouth = {"jawOpen": 0.7, "lip_gap": 0.35, "tongue_area": 0.1, "red_total": 0.15, "tongue_fill": 0.9}
    assert not fired(**open_mouth, tongue_out=0.0) & {"lengua_fuera", "lengua_lado"}
    assert "lengua_fuera" in fired(**open_mouth, tongue_out=0.08)


def test_no_tongue_comes_out_between_closed_lips():
    assert not fired(tongue_area=0.08, red_total=0.1, lip_gap=0.015) & {"lengua_fuera", "lengua_lado"}


def test_a_wink_drags_the_mouth_but_is_not_labios_lado():
    s = score(
        ear_a=0.08, lips_x=-0.06, corner_a_x=NEUTRAL["corner_a_x"] - 0.05, corner_b_x=NEUTRAL["corner_b_x"] - 0.05
    )
    assert s["guino"] >= 0.6 and s["labios_lado"] < 0.35


def test_a_grimace_or_wide_eyed_surprise_is_not_a_sena():
    brows = {"brow_h": NEUTRAL["brow_h"] + 0.08}
    assert fired(**brows, eyeWideLeft=0.6, eyeWideRight=0.6) == set()
    assert fired(**brows, noseSneerLeft=0.5) == set()
    assert fired(**MORRO, lip_push=0.04, mouthStretchRight=0.5) == set()
    # a wink often comes with a wrinkled nose: it stays a wink
    assert fired(ear_a=0.08, noseSneerLeft=0.5) == {"guino"}


def test_a_tongue_out_between_parted_lips_is_no_bite_even_unseen():
    # the tongue hides the lower lip's red as a bite does; the lips wide apart tell them apart
    hidden = {
        "lower_lip_red": 0.1,
        "lower_lip_teeth": 0.2,
        "mouthRollLower": 0.6,
        "lower_lip": NEUTRAL["lower_lip"] * 0.6,
    }
    assert fired(**hidden) == {"labio_mordido"}
    assert "labio_mordido" not in fired(**hidden, lip_gap=NEUTRAL["lip_gap"] + 0.15)


def test_a_pout_pushed_slightly_aside_is_still_a_pout():
    aside = {
        "lips_x": 0.036,
        "corner_a_x": NEUTRAL["corner_a_x"] + 0.03,
        "corner_b_x": NEUTRAL["corner_b_x"] + 0.03,
        "mouthLeft": 0.01 + 0.22,
    }
    pout = {"mouth_w": NEUTRAL["mouth_w"] * 0.85, "lip_push": 0.03}
    assert fired(**aside) == {"labios_lado"}  # lips pulled aside, not pushed out
    assert fired(**aside, **pout) == {"morro"}
    # pushed out and moved well aside: lips aside (as in the real clips' pursed lips)
    far = {
        "lips_x": 0.07,
        "corner_a_x": NEUTRAL["corner_a_x"] + 0.06,
        "corner_b_x": NEUTRAL["corner_b_x"] + 0.06,
        "mouthLeft": 0.01 + 0.5,
    }
    assert score(**far, **pout)["labios_lado"] >= 0.6


def test_lips_pulled_clearly_aside_and_shut_are_no_grin():
    """senas-lp d8 5.87 s: the mouth twisted aside reads as a smile (0.4-0.6 rise) and a stretch
    on that side (0.3); a grin never moves the mouth that far off centre with the lips shut.
    The same twist with the lips apart (d8's bite at 5.03 s, a smirk showing teeth) stays a
    grin, and so does a slight shift."""
    twist = {"mouthRight": NEUTRAL["mouthRight"] + 0.5, "mouthSmileLeft": 0.5, "mouthSmileRight": 0.6}
    twist |= {"mouthStretchLeft": 0.3, "mouthStretchRight": 0.05}
    assert fired(**twist) == {"labios_lado"}
    assert fired(**twist, lip_gap=NEUTRAL["lip_gap"] + 0.09) == set()
    assert fired(**{**twist, "mouthRight": NEUTRAL["mouthRight"] + 0.3}) == set()


def test_lips_clearly_aside_are_told_apart_from_a_slight_asymmetry():
    """Each frame says whether the lips are clearly aside (the event needs one such frame): a
    slight asymmetry scores fully but is not clear; a clear pull is, by either cue; a one-sided
    smile's shift never is."""

    def clear(**changes: float) -> bool:
        s = Scorer().score({**NEUTRAL, **changes}, cal(NEUTRAL))
        return "labios_lado" in s.claros

    def corners(dx: float) -> dict[str, float]:
        return {"corner_a_x": NEUTRAL["corner_a_x"] + dx, "corner_b_x": NEUTRAL["corner_b_x"] + dx}

    assert score(lips_x=0.05, **corners(0.04))["labios_lado"] == 1.0
    assert not clear(lips_x=0.05, **corners(0.04))  # a worried mouth's slight shift
    assert not clear(mouthLeft=0.01 + 0.3)  # ...or its blendshape
    assert clear(lips_x=0.1, **corners(0.08))
    assert clear(mouthLeft=0.01 + 0.55)
    assert not clear(lips_x=0.1, corner_a_x=NEUTRAL["corner_a_x"] - 0.05, corner_b_x=NEUTRAL["corner_b_x"] + 0.05)
    assert not clear()
    # clear, but another gate holds the score at 0 (lips apart): not clear either
    assert not clear(mouthLeft=0.01 + 0.55, lip_gap=NEUTRAL["lip_gap"] + 0.2)


def test_shoulders_that_move_with_the_head_or_the_torso_are_no_shrug():
    up = 0.1 * NEUTRAL["sh_width_px"]
    shrug = {"sh_y_b": 400 - up}
    assert fired(**shrug) == {"hombro_arriba"}
    # the head turned or tilted: the pose model drags the shoulders along
    assert fired(**shrug, yaw=14.0) == set()
    assert fired(**shrug, roll=14.0) == set()
    # the torso turned or leaned: the shoulders' width changes
    assert fired(**shrug, sh_width_px=NEUTRAL["sh_width_px"] * 1.2) == set()
    assert fired(**shrug, sh_width_px=NEUTRAL["sh_width_px"] * 0.7) == set()
    # a shrug narrows the shoulders a little
    assert fired(sh_y_b=400 - 1.5 * up, sh_width_px=NEUTRAL["sh_width_px"] * 0.9) == {"hombro_arriba"}
    assert fired(**shrug, yaw=4.0, sh_width_px=NEUTRAL["sh_width_px"] * 1.05) == {"hombro_arriba"}


def test_drift_follows_only_what_the_calibration_measured():
    base = Baseline({k: v for k, v in NEUTRAL.items() if not k.startswith("sh_")}, frames=1)
    base.blend({**NEUTRAL, "sh_y_a": 300.0}, 0.5)
    assert "sh_y_a" not in base.values  # no shoulder baseline made from one frame
    assert base.values["mouth_w"] == NEUTRAL["mouth_w"]
    base.blend({**NEUTRAL, "mouth_w": NEUTRAL["mouth_w"] + 0.1}, 0.5)
    assert base.values["mouth_w"] == pytest.approx(NEUTRAL["mouth_w"] + 0.05)


def test_a_sad_mouth_is_no_bitten_lip():
    """Pressed lips with the chin raised or the upper lip rolled in (a sad face, crying) hide
    the lower lip's red as a bite does; a bite shows the upper teeth instead."""
    bite = {"lower_lip_red": 0.1, "lower_lip_teeth": 0.2, "mouthRollLower": 0.4}
    assert fired(**bite) == {"labio_mordido"}
    assert fired(**bite, mouthShrugLower=0.05 + 0.32) == set()
    assert fired(**bite, mouthRollUpper=0.02 + 0.3) == set()
    assert fired(**bite, mouthShrugLower=0.05 + 0.1, mouthRollUpper=0.02 + 0.1) == {"labio_mordido"}


def test_eyes_squeezed_by_a_laugh_are_not_closed_eyes():
    shut = {"ear_a": 0.05, "ear_b": 0.05, "eyeBlinkLeft": 0.9, "eyeBlinkRight": 0.9}
    assert fired(**shut) == {"ojos_cerrados"}
    # an open mouth singing reads as a smile of 0.55 on a real clip: still closed eyes
    assert fired(**shut, mouthSmileLeft=0.1 + 0.55, mouthSmileRight=0.1 + 0.55) == {"ojos_cerrados"}
    assert fired(**shut, mouthSmileLeft=0.1 + 0.75, mouthSmileRight=0.1 + 0.75) == set()
