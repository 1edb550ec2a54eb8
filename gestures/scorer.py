"""Per-frame gesture scores (0..1) from features, relative to the person's neutral baseline.

Plain Python, no MediaPipe: feed it :mod:`gestures.features` dicts. Each gesture combines a
blendshape cue (what MediaPipe's model was trained to see) with a geometric cue from the
landmarks (what survives when blendshapes are weak), both as *changes from the neutral face*,
so a person's resting squint, thin lips or smile do not count. ``score = max(cues) * gates``;
gates stop a cue in a context where it means something else (open mouth, head turned...).

Every threshold lives in :class:`Umbrales`; docs/senas.md explains each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace

import numpy as np

from gestures.features import Features
from gestures.types import GESTOS
from scoring.inputs import excerpt

# sided features: image-left (_a) and image-right (_b); MediaPipe names blendshapes after the
# person's own side, which in an unmirrored image is the opposite image side.
BLINK = {"a": "eyeBlinkRight", "b": "eyeBlinkLeft"}


def ramp(x: float, lo: float, hi: float) -> float:
    """0 at ``lo``, 1 at ``hi``, linear between (either order)."""
    if hi == lo:
        return float(x >= hi)
    # plain floats: numpy's clip on a scalar costs ten times more, forty times a frame
    return min(max((float(x) - lo) / (hi - lo), 0.0), 1.0)


@dataclass(frozen=True)
class Umbrales:
    """Thresholds of the per-frame scores: each cue maps (lo, hi) of its change to 0..1."""

    eye_closed_geom: tuple[float, float] = (0.25, 0.5)  # 1 - EAR/neutral EAR (wink)
    eye_closed_blend: tuple[float, float] = (0.15, 0.45)  # eyeBlink increase (wink)
    # both eyes: stricter, since looking down at the cards lowers both lids part of the way
    eyes_closed_geom: tuple[float, float] = (0.4, 0.62)
    eyes_closed_blend: tuple[float, float] = (0.45, 0.7)
    other_eye_open: tuple[float, float] = (0.6, 0.35)  # closure of the eye that stays open
    wink_asymmetry: tuple[float, float] = (0.15, 0.3)  # closure difference between the eyes
    brow_geom: tuple[float, float] = (0.025, 0.065)  # brow height increase, IOD
    brow_blend: tuple[float, float] = (0.12, 0.35)  # browInnerUp/browOuterUp increase
    pucker_geom: tuple[float, float] = (0.955, 0.90)  # mouth width / neutral width
    pucker_blend: tuple[float, float] = (0.15, 0.45)  # mouthPucker/mouthFunnel increase
    smile_drop: tuple[float, float] = (0.2, 0.45)  # a smile fading also narrows the mouth
    lips_side_geom: tuple[float, float] = (0.02, 0.045)  # lip centre shift, IOD
    lips_side_blend: tuple[float, float] = (0.1, 0.3)  # mouthLeft/mouthRight increase
    lips_open: tuple[float, float] = (0.12, 0.06)  # lip gap increase, IOD: closed-lips gate
    bite_geom: tuple[float, float] = (0.7, 0.45)  # lower lip height / neutral
    bite_blend: tuple[float, float] = (0.15, 0.45)  # mouthRollLower increase...
    bite_thinner: tuple[float, float] = (0.95, 0.8)  # ...with the lower lip thinner (/ neutral)
    bite_colour: tuple[float, float] = (0.6, 0.3)  # red part of the lower lip / neutral
    bite_teeth: tuple[float, float] = (0.03, 0.10)  # teeth-coloured part of the lower lip, rise
    min_lip_red: float = 0.25  # neutral lower lip this red at least, or no colour cue
    tongue_area: tuple[float, float] = (0.015, 0.05)  # tongue-coloured area outside the lips
    tongue_red: tuple[float, float] = (0.03, 0.07)  # all tongue-coloured area near the mouth
    tongue_fill: tuple[float, float] = (0.3, 0.5)  # share of the mouth opening that is tongue
    # ...with the lips this far apart (lip gap rise, IOD), the red inside a flared "O" (lips,
    # gums) fills half the opening too: then a tongue must fill more of it (senas-lp d8 8.33 s:
    # 0.44-0.52 at 0.10-0.16 apart; set looking at that clip)
    tongue_lips_apart: tuple[float, float] = (0.06, 0.1)
    tongue_fill_apart: tuple[float, float] = (0.5, 0.6)
    tongue_side: tuple[float, float] = (0.6, 1.0)  # |tongue offset| in mouth half-widths
    # what real faces do that is not a seña (tuned on real clips: docs/senas.md)
    lip_push: tuple[float, float] = (0.008, 0.016)  # lips out in front of the corners, IOD
    lips_rolled_in: tuple[float, float] = (0.18, 0.1)  # both lips' mouthRoll rise: pressed
    upper_lip_rolled: tuple[float, float] = (0.25, 0.15)  # mouthRollUpper rise: no bite
    chin_raised: tuple[float, float] = (0.3, 0.15)  # mouthShrugLower rise: a sad mouth, no bite
    grin: tuple[float, float] = (0.3, 0.15)  # smile rise: a grin or a laugh, not a seña
    laugh_eyes: tuple[float, float] = (0.7, 0.55)  # smile rise: eyes squeezed by a laugh
    jaw_drop: tuple[float, float] = (0.3, 0.15)  # jawOpen rise: surprise, a shout, an "ah"
    grimace: tuple[float, float] = (0.35, 0.2)  # noseSneer or mouthStretch rise
    eyes_wide: tuple[float, float] = (0.5, 0.3)  # eyeWide rise: surprise, not cejas_arriba
    tongue_jaw: tuple[float, float] = (0.3, 0.45)  # jaw this open: only a tongue past the lips
    tongue_gap: tuple[float, float] = (0.0, 0.012)  # lip gap rise, IOD: lips apart for a tongue
    tongue_open_jaw: tuple[float, float] = (0.04, 0.1)  # ...or a jaw this much more open
    shoulder: tuple[float, float] = (0.045, 0.09)  # shoulder rise, shoulder widths
    # a shrug lifts the shoulders on a still torso and head: the torso turning or leaning
    # changes the shoulder width, and the pose model drags the shoulders along with the head
    # shoulder width / neutral - 1: gate. Wider: leaning towards the camera; much narrower:
    # turning away (a shrug narrows them a little, 11 % in the synthetic lifts)
    shoulder_wider: tuple[float, float] = (0.15, 0.08)
    shoulder_narrower: tuple[float, float] = (0.25, 0.15)
    shoulder_head: tuple[float, float] = (12.0, 6.0)  # head yaw/roll change, degrees: gate
    # a pout pushed to one side is still a pout: pushed-out lips need a larger shift to be
    # lips aside (labios al lado are pulled, not pushed out)
    lips_side_pushed_geom: tuple[float, float] = (0.025, 0.05)
    lips_side_pushed_blend: tuple[float, float] = (0.15, 0.35)
    # a lips-aside seña is made on purpose: at some frame of it the lips are clearly aside (lip
    # centre shift in IOD, or mouthLeft/Right rise), past what a pressed, sad or worried mouth's
    # slight asymmetry reaches (13 real faces, frames scoring 0.35 or more that are no seña:
    # 0.058 and 0.42 at most; the real señas 0.12 and 0.83)
    lips_side_clear: tuple[float, float] = (0.08, 0.45)
    # ...and then, with the lips shut (lip gap rise, IOD), no grin or stretch gate: lips pulled
    # aside read as a smile and a stretch on that side
    lips_aside_shut: tuple[float, float] = (0.06, 0.04)
    head_turn: tuple[float, float] = (25.0, 15.0)  # yaw/pitch change, degrees: gate
    # closed eyes with the head tilted up or down, degrees: a player looking down at the cards
    # lowers both lids (real closed eyes on the shared clips: within 6.5 degrees of neutral)
    eyes_pitch: tuple[float, float] = (14.0, 8.0)
    # ...and with the head level, the gaze: looking down at the cards in hand lowers both lids
    # as it goes, and the eyes may then read shut (the mesh and the blendshapes cannot tell lids
    # lowered over a downcast eye from shut ones: on the real clips both read the iris as low
    # and eyeLookDown as high). What tells them apart is the gaze just before, with the eyes
    # still open: looking down, both eyeLookDown blendshapes up by ``gaze_down_blend`` (mean of
    # both) and the irises by ``gaze_down_iris`` IOD below the eye corners, from neutral, with
    # neither eye closed by more than ``gaze_open`` (1 - EAR / neutral EAR). The watch over
    # time is gestures.context.GazeWatch; docs/senas.md gives the figures
    gaze_down_blend: float = 0.2
    gaze_down_iris: float = 0.008
    gaze_open: float = 0.45
    min_face_px: float = 30.0  # below this IOD the tongue colour test is not trusted
    noise_k: float = 4.0  # a cue starts no lower than this many calibration std devs


@dataclass
class Baseline:
    """Neutral reference of one person: median of each feature over the calibration frames.

    ``frames == 0``: not calibrated (typical values stand in; colour cues are off then).
    """

    values: dict[str, float] = field(default_factory=dict)
    frames: int = 0
    spread: dict[str, float] = field(default_factory=dict)  # robust std dev per feature

    @staticmethod
    def from_frames(feats: Iterable[Features]) -> Baseline:
        rows = [f for f in feats if f]
        keys = set().union(*rows) if rows else set()
        values, spread = {}, {}
        for k in keys:
            col = np.array([r[k] for r in rows if k in r], np.float64)
            values[k] = float(np.median(col))
            spread[k] = float(1.4826 * np.median(np.abs(col - values[k])))
        return Baseline(values, len(rows), spread)

    def get(self, key: str, default: float = 0.0) -> float:
        return self.values.get(key, DEFAULT_NEUTRAL.get(key, default))

    def blend(self, new: Features, weight: float) -> None:
        """Drift towards ``new`` (slow re-calibration while the face is at rest). Only what
        the calibration measured drifts: a measurement it lacked (shoulders out of view in a
        neutral photo) is not made up from one frame."""
        for k, v in new.items():
            old = self.values.get(k)
            if old is not None:
                self.values[k] = old + weight * (v - old)


# Typical neutral values, used only when a person was never calibrated (single images).
DEFAULT_NEUTRAL: dict[str, float] = {
    "ear_a": 0.30,
    "ear_b": 0.30,
    "brow_h": 0.23,
    "mouth_w": 0.62,
    "lip_gap": 0.02,
    "lower_lip": 0.10,
    "upper_lip": 0.08,
    "corner_a_x": -0.31,
    "corner_b_x": 0.31,
    "lips_x": 0.0,
    "tongue_area": 0.0,
    "red_total": 0.01,
    "lower_lip_red": 0.6,
    "lower_lip_teeth": 0.02,
    "eyeBlinkLeft": 0.05,
    "eyeBlinkRight": 0.05,
    "browInnerUp": 0.05,
    "browOuterUpLeft": 0.05,
    "browOuterUpRight": 0.05,
    "mouthPucker": 0.02,
    "mouthFunnel": 0.01,
    "mouthRollLower": 0.02,
    "mouthLeft": 0.01,
    "mouthRight": 0.01,
    "mouthSmileLeft": 0.1,
    "mouthSmileRight": 0.1,
    "jawOpen": 0.02,
    "yaw": 0.0,
    "pitch": 0.0,
    "lip_push": 0.0,
    "mouthRollUpper": 0.02,
    "lip_gap_max": 0.03,
    "mouthShrugLower": 0.05,
    "tongue_out": 0.0,
}


@dataclass(frozen=True)
class Scores:
    """Scores of one frame: gesture -> 0..1, gesture -> image side ("a"/"b") if sided, and the
    gestures shown clearly at this frame (of those whose events need a clear frame:
    ``gestures.events.Tiempos.claro``)."""

    valores: dict[str, float]
    lados: dict[str, str]
    claros: frozenset[str] = frozenset()

    @staticmethod
    def zero() -> Scores:
        return Scores(dict.fromkeys(GESTOS, 0.0), {})


def widen(t: tuple[float, float], noise: float) -> tuple[float, float]:
    """Shift a cue's (lo, hi) so that it starts above ``noise``. Descending pairs are ratios
    to neutral (1.0), whose noise is on the drop ``1 - ratio``.

    >>> widen((0.02, 0.05), 0.03), widen((0.9, 0.6), 0.2)
    ((0.03, 0.06), (0.8, 0.5))
    """
    lo, hi = t
    if lo <= hi:
        shift = max(0.0, noise - lo)
        return lo + shift, hi + shift
    shift = max(0.0, noise - (1.0 - lo))
    return round(lo - shift, 12), round(hi - shift, 12)


class Scorer:
    """Features + baseline -> :class:`Scores`.

    Each cue's thresholds are widened when the person's calibration was noisy (a poor
    camera, dim light, a far face): a cue starts no lower than ``noise_k`` robust standard
    deviations of its measurement over the calibration frames.
    """

    def __init__(self, umbrales: Umbrales | None = None) -> None:
        self.u = umbrales or Umbrales()

    def _t(self, t: tuple[float, float], base: Baseline, *keys: str, scale: float = 1.0) -> tuple[float, float]:
        """Thresholds ``t`` widened by the calibration noise of ``keys`` (divided by scale)."""
        noise = max((base.spread.get(k, 0.0) for k in keys), default=0.0)
        return widen(t, self.u.noise_k * noise / max(scale, 1e-6))

    def score(self, f: Features, base: Baseline) -> Scores:
        if not f:
            return Scores.zero()
        vals: dict[str, float] = {}
        lados: dict[str, str] = {}
        head = self._head_gate(f, base)
        self._eyes(f, base, vals, lados)
        # a grin, a laugh or a dropped jaw is another expression: its brows and lips are no seña
        smile = max(f.get(k, 0.0) - base.get(k) for k in ("mouthSmileLeft", "mouthSmileRight"))
        # ...and so is a grimace: the nose wrinkled or the mouth stretched sideways
        grimace = max(
            f.get(k, 0.0) - base.get(k)
            for k in ("noseSneerLeft", "noseSneerRight", "mouthStretchLeft", "mouthStretchRight")
        )
        # a laugh squeezes both eyes shut: no closed-eyes seña behind a broad grin (a wink
        # may come with one: a real one here did, with a grimace)
        vals["ojos_cerrados"] *= ramp(smile, *self.u.laugh_eyes)
        vals["ojos_cerrados"] *= ramp(abs(f["pitch"] - base.get("pitch")), *self.u.eyes_pitch)
        calm = (
            ramp(smile, *self.u.grin)
            * ramp(grimace, *self.u.grimace)
            * ramp(f["jawOpen"] - base.get("jawOpen"), *self.u.jaw_drop)
        )
        # surprise opens the eyes wide with the brows; a brow raise alone barely does
        wide = max(f.get(k, 0.0) - base.get(k) for k in ("eyeWideLeft", "eyeWideRight"))
        vals["cejas_arriba"] = self._brows(f, base) * calm * ramp(wide, *self.u.eyes_wide)
        closed = ramp(f["lip_gap"] - base.get("lip_gap"), *self.u.lips_open)
        tongue, side = self._tongue(f, base)
        vals["lengua_lado"] = tongue * ramp(abs(side), *self.u.tongue_side)
        vals["lengua_fuera"] = tongue - vals["lengua_lado"]
        if side:
            lados["lengua_lado"] = "a" if side < 0 else "b"
        no_tongue = 1.0 - tongue
        pushed = ramp(f.get("lip_push", 0.0) - base.get("lip_push"), *self.u.lip_push)
        # both lips rolled in are pressed together (a sad or tight mouth), not pushed out
        rolled = min(f.get(k, 0.0) - base.get(k) for k in ("mouthRollLower", "mouthRollUpper"))
        pushed *= ramp(rolled, *self.u.lips_rolled_in)
        vals["morro"] = self._pucker(f, base) * closed * no_tongue * pushed * calm
        lips, lside, lips_clear = self._lips_side(f, base, pushed)
        # lips pulled clearly aside, and shut, read to the blendshapes as a smile and a stretch on
        # the side they go to: what a grin does not do is move the mouth off its centre that far
        # with the lips together (a smirk or a bite shows the teeth: lips apart). senas-lp d8
        # 5.87 s against its bite at 5.03 s (lip gap rise 0.01-0.035 against 0.064-0.12 IOD);
        # set looking at that clip
        shut = ramp(f["lip_gap"] - base.get("lip_gap"), *self.u.lips_aside_shut) if lips_clear else 0.0
        no_grin = ramp(
            max(f.get(k, 0.0) - base.get(k) for k in ("noseSneerLeft", "noseSneerRight")), *self.u.grimace
        ) * ramp(f["jawOpen"] - base.get("jawOpen"), *self.u.jaw_drop)
        sideways = calm + shut * (no_grin - calm)
        # a wink lifts its cheek and drags that corner of the mouth along
        vals["labios_lado"] = (
            lips * closed * no_tongue * sideways * (1.0 - vals["guino"]) * ramp(rolled, *self.u.lips_rolled_in)
        )
        if lside:
            lados["labios_lado"] = lside
        # teeth rest on a bitten lip: the mouth is shut (a tongue out parts the lips wide and
        # hides the lower lip just as well)
        # a sad or crying mouth presses the lips, rolls the upper one in and raises the chin:
        # a bitten lip shows the upper teeth over it instead
        sad = ramp(f.get("mouthRollUpper", 0.0) - base.get("mouthRollUpper"), *self.u.upper_lip_rolled) * ramp(
            f.get("mouthShrugLower", 0.0) - base.get("mouthShrugLower"), *self.u.chin_raised
        )
        vals["labio_mordido"] = self._bite(f, base) * no_tongue * calm * closed * sad
        for g in list(vals):
            vals[g] *= head
        _one_mouth_sena(vals)
        self._shoulders(f, base, vals, lados)
        lados = {g: side for g, side in lados.items() if vals.get(g, 0.0) > 0}
        claros = frozenset({"labios_lado"} if lips_clear and vals["labios_lado"] > 0 else ())
        return Scores({g: round(vals.get(g, 0.0), 4) for g in GESTOS}, lados, claros)

    # --- cues ---------------------------------------------------------------------------

    def _head_gate(self, f: Features, base: Baseline) -> float:
        turn = max(abs(f["yaw"] - base.get("yaw")), abs(f["pitch"] - base.get("pitch")))
        return ramp(turn, *self.u.head_turn)

    def _closure(self, f: Features, base: Baseline, side: str, both: bool = False) -> float:
        ear0 = max(base.get(f"ear_{side}"), 1e-3)
        geom_t, blend_t = (
            (self.u.eyes_closed_geom, self.u.eyes_closed_blend)
            if both
            else (self.u.eye_closed_geom, self.u.eye_closed_blend)
        )
        geom = ramp(1.0 - f[f"ear_{side}"] / ear0, *self._t(geom_t, base, f"ear_{side}", scale=ear0))
        key = BLINK[side]
        return max(geom, ramp(f[key] - base.get(key), *self._t(blend_t, base, key)))

    def closures(self, f: Features, base: Baseline) -> tuple[float, float]:
        """Each eye's closure score (the wink's cue, 0..1), image-left then image-right; 0
        without a face or a baseline."""
        if not f or "ear_a" not in f:
            return 0.0, 0.0
        return self._closure(f, base, "a"), self._closure(f, base, "b")

    def gaze_down(self, f: Features, base: Baseline | None) -> float | None:
        """How far down the open eyes look: the lesser of the two cues' changes from neutral
        over their thresholds (``gaze_down_*``; 1 or more: looking down, 0 or less: level or
        up); None when it cannot be read: no face or baseline, or an eye closed by more than
        ``gaze_open`` (a lid coming down moves both cues by itself)."""
        if not f or base is None or "ear_a" not in f:
            return None
        closed = max(1.0 - f[f"ear_{s}"] / max(base.get(f"ear_{s}"), 1e-3) for s in "ab")
        if closed > self.u.gaze_open:
            return None
        keys = ("eyeLookDownLeft", "eyeLookDownRight")
        look = sum(f.get(k, 0.0) - base.get(k) for k in keys) / 2
        blend = self._t((self.u.gaze_down_blend, self.u.gaze_down_blend), base, *keys)[0]
        iris = self._t((self.u.gaze_down_iris, self.u.gaze_down_iris), base, "iris_y")[0]
        return min(look / max(blend, 1e-6), (f.get("iris_y", 0.0) - base.get("iris_y")) / max(iris, 1e-6))

    def _eyes(self, f: Features, base: Baseline, vals: dict[str, float], lados: dict[str, str]) -> None:
        ca, cb = self._closure(f, base, "a"), self._closure(f, base, "b")
        vals["ojos_cerrados"] = min(self._closure(f, base, "a", True), self._closure(f, base, "b", True))
        # the open eye's raw closure, not its 0..1 score: a half-closed eye is not open
        raw = {s: 1.0 - f[f"ear_{s}"] / max(base.get(f"ear_{s}"), 1e-3) for s in "ab"}
        shut, other = ("a", "b") if ca >= cb else ("b", "a")
        # a real wink often narrows the other eye too (the cheek rises): allow it, as long as
        # the eyes clearly differ; blinks and looking down are symmetric
        rise = {k: f[BLINK[k]] - base.get(BLINK[k]) for k in "ab"}
        asymmetry = max(
            ramp(raw[shut] - raw[other], *self.u.wink_asymmetry), ramp(rise[shut] - rise[other], *self.u.wink_asymmetry)
        )
        vals["guino"] = min(max(ca, cb), ramp(raw[other], *self.u.other_eye_open), asymmetry)
        lados["guino"] = shut

    def _brows(self, f: Features, base: Baseline) -> float:
        geom = ramp(f["brow_h"] - base.get("brow_h"), *self._t(self.u.brow_geom, base, "brow_h"))
        keys = ("browInnerUp", "browOuterUpLeft", "browOuterUpRight")
        rise = np.mean([f[k] - base.get(k) for k in keys])
        return max(geom, ramp(float(rise), *self._t(self.u.brow_blend, base, *keys)))

    def _pucker(self, f: Features, base: Baseline) -> float:
        width0 = max(base.get("mouth_w"), 1e-3)
        geom = ramp(f["mouth_w"] / width0, *self._t(self.u.pucker_geom, base, "mouth_w", scale=width0))
        smile_drop = (
            base.get("mouthSmileLeft") + base.get("mouthSmileRight") - (f["mouthSmileLeft"] + f["mouthSmileRight"])
        )
        geom *= 1.0 - ramp(smile_drop / 2, *self.u.smile_drop)
        keys = ("mouthPucker", "mouthFunnel")
        rise = max(f[k] - base.get(k) for k in keys)
        return max(geom, ramp(rise, *self._t(self.u.pucker_blend, base, *keys)))

    def _lips_side(self, f: Features, base: Baseline, pushed: float = 0.0) -> tuple[float, str | None, bool]:
        """The lips-aside cue (0..1), its image side, and whether the lips are clearly aside
        (``lips_side_clear``: what a seña reaches at some frame, a slight asymmetry never)."""
        shift = f["lips_x"] - base.get("lips_x")
        corners = (f["corner_a_x"] - base.get("corner_a_x"), f["corner_b_x"] - base.get("corner_b_x"))
        # both corners must go the same way: a one-sided smile moves only one
        if np.sign(corners[0]) != np.sign(corners[1]) and min(map(abs, corners)) > 0.01:
            shift = 0.0
        geom_t = _mix(self.u.lips_side_geom, self.u.lips_side_pushed_geom, pushed)
        geom = ramp(abs(shift), *self._t(geom_t, base, "lips_x"))
        # mouthRight = towards the person's right = image left (unmirrored)
        to_a = f["mouthRight"] - base.get("mouthRight")
        to_b = f["mouthLeft"] - base.get("mouthLeft")
        blend_t = _mix(self.u.lips_side_blend, self.u.lips_side_pushed_blend, pushed)
        blend = ramp(max(to_a, to_b), *self._t(blend_t, base, "mouthRight", "mouthLeft"))
        if max(geom, blend) == 0:
            return 0.0, None, False
        side = ("a" if shift < 0 else "b") if geom >= blend else ("a" if to_a > to_b else "b")
        clear_geom, clear_blend = self.u.lips_side_clear
        clear = (
            abs(shift) >= self._t((clear_geom, clear_geom), base, "lips_x")[0]
            or max(to_a, to_b) >= self._t((clear_blend, clear_blend), base, "mouthRight", "mouthLeft")[0]
        )
        return max(geom, blend), side, clear

    def _bite(self, f: Features, base: Baseline) -> float:
        lip0 = max(base.get("lower_lip"), 1e-3)
        geom = ramp(f["lower_lip"] / lip0, *self._t(self.u.bite_geom, base, "lower_lip", scale=lip0))
        # a lip that thins because the mouth opens wide is stretched, not bitten
        geom *= ramp(f["lip_gap"] - base.get("lip_gap"), *self.u.lips_open)
        # lips pressed together also roll in: a bitten lip is hidden under the teeth, thinner
        blend = ramp(
            f["mouthRollLower"] - base.get("mouthRollLower"), *self._t(self.u.bite_blend, base, "mouthRollLower")
        ) * ramp(f["lower_lip"] / lip0, *self.u.bite_thinner)
        colour = 0.0
        red0 = base.get("lower_lip_red")
        if "lower_lip_red" in f and base.frames and red0 >= self.u.min_lip_red:
            # the lip's red gives way to teeth resting on it
            teeth = ramp(f["lower_lip_teeth"] - base.get("lower_lip_teeth"), *self.u.bite_teeth)
            colour_t = self._t(self.u.bite_colour, base, "lower_lip_red", scale=red0)
            colour = ramp(f["lower_lip_red"] / red0, *colour_t) * (0.6 + 0.4 * teeth)
        return max(geom, blend, colour)

    def _tongue(self, f: Features, base: Baseline) -> tuple[float, float]:
        # colour depends on the person's lips and skin: no neutral face of theirs, no cue
        if "tongue_area" not in f or not base.frames or f.get("scale_px", 0.0) < self.u.min_face_px:
            return 0.0, 0.0
        # a dropped jaw shows the tongue lying in the mouth: then only what is past the lips counts
        wide = ramp(f["jawOpen"] - base.get("jawOpen"), *self.u.tongue_jaw)
        area = (1.0 - wide) * f["tongue_area"] + wide * f.get("tongue_out", f["tongue_area"])
        outside = ramp(area - base.get("tongue_area"), *self._t(self.u.tongue_area, base, "tongue_area"))
        # more red near the mouth counts only if it reaches past the lips or fills the
        # opening: a tongue lying in a talking mouth shares it with teeth and shadow
        flared = ramp(f["lip_gap"] - base.get("lip_gap"), *self.u.tongue_lips_apart)
        reach = max(
            ramp(f["tongue_area"] - base.get("tongue_area"), 0.005, 0.015),
            ramp(f.get("tongue_fill", 0.0), *_mix(self.u.tongue_fill, self.u.tongue_fill_apart, flared)),
        )
        red = (
            ramp(f["red_total"] - base.get("red_total"), *self._t(self.u.tongue_red, base, "red_total"))
            * reach
            * (1.0 - wide)
        )
        # no tongue comes out between closed lips: red below them is the chin's shadow or skin
        gap = max(f["lip_gap"] - base.get("lip_gap"), f.get("lip_gap_max", 0.0) - base.get("lip_gap_max"))
        apart = max(ramp(gap, *self.u.tongue_gap), ramp(f["jawOpen"] - base.get("jawOpen"), *self.u.tongue_open_jaw))
        score = max(outside, red) * apart
        return score, (f["tongue_dx"] if score > 0 else 0.0)

    def _shoulders(self, f: Features, base: Baseline, vals: dict[str, float], lados: dict[str, str]) -> None:
        vals["hombros_arriba"] = vals["hombro_arriba"] = 0.0
        if "sh_y_a" not in f or "sh_y_a" not in base.values:
            return
        width0 = max(base.get("sh_width_px"), 1.0)
        up = {}
        for s in "ab":
            # rise in the image and rise against the mouth must agree: nodding the head moves
            # only the mouth, leaning or the camera moving moves both together
            image_rise = (base.get(f"sh_y_{s}") - f[f"sh_y_{s}"]) / width0
            rel0 = (base.get(f"sh_y_{s}") - base.get("mouth_y_px")) / width0
            rel = (f[f"sh_y_{s}"] - f["mouth_y_px"]) / max(f["sh_width_px"], 1.0)
            up[s] = ramp(min(image_rise, rel0 - rel), *self._t(self.u.shoulder, base, f"sh_y_{s}", scale=width0))
        width = f["sh_width_px"] / width0 - 1.0
        head = max(abs(f.get(k, 0.0) - base.get(k)) for k in ("yaw", "roll"))
        still = (
            ramp(width, *self.u.shoulder_wider)
            * ramp(-width, *self.u.shoulder_narrower)
            * ramp(head, *self.u.shoulder_head)
        )
        up = {s: v * still for s, v in up.items()}
        low, high = min(up.values()), max(up.values())
        vals["hombros_arriba"] = low
        vals["hombro_arriba"] = high * (1.0 - low)
        lados["hombro_arriba"] = "a" if up["a"] >= up["b"] else "b"


def _mix(a: tuple[float, float], b: tuple[float, float], w: float) -> tuple[float, float]:
    """Thresholds ``a`` moved towards ``b`` by ``w`` (0..1)."""
    return a[0] + w * (b[0] - a[0]), a[1] + w * (b[1] - a[1])


MOUTH = ("labio_mordido", "lengua_fuera", "lengua_lado", "labios_lado", "morro")


def _one_mouth_sena(vals: dict[str, float], cap: float = 0.5) -> None:
    """The mouth makes one seña at a time: lips pushed aside also pucker a little, a bitten
    lip narrows the mouth. Below the strongest, the others are capped under the entry
    threshold (still above the exit one, so a seña already held is not cut)."""
    best = max(MOUTH, key=lambda g: vals.get(g, 0.0))
    for g in MOUTH:
        if g != best and vals.get(g, 0.0) > cap:
            vals[g] = cap


# Largest value a threshold may take: a ratio or share is at most a few units; these are not.
MAX_UMBRAL = 10.0
MAX_UMBRAL_POR_NOMBRE = {"head_turn": 180.0, "min_face_px": 10_000.0, "noise_k": 100.0}


def with_overrides(u: Umbrales, overrides: Mapping[str, object]) -> Umbrales:
    """Copy of ``u`` with some thresholds changed, each checked: a pair of numbers where the
    default is a pair, one number otherwise, finite, from 0 to its maximum. Unknown names raise
    KeyError; a wrong type or value raises ValueError (one Spanish line)."""
    kinds = {f.name: isinstance(getattr(u, f.name), tuple) for f in fields(u)}
    unknown = set(overrides) - set(kinds)
    if unknown:
        raise KeyError(f"umbrales desconocidos: {excerpt(', '.join(map(repr, sorted(map(str, unknown)))))}")
    changes = {name: _umbral(name, value, kinds[name]) for name, value in overrides.items()}
    return replace(u, **changes)  # type: ignore[arg-type]


def _umbral(name: str, value: object, pair: bool) -> tuple[float, float] | float:
    """``value`` as a threshold of ``name``; ValueError saying what is wrong."""
    if pair:
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise ValueError(f"umbral {name}: se esperan dos números [desde, hasta]")
        lo, hi = (_number(name, v) for v in value)
        return (lo, hi)
    return _number(name, value)


def _number(name: str, value: object) -> float:
    top = MAX_UMBRAL_POR_NOMBRE.get(name, MAX_UMBRAL)
    # bool is an int in Python, but `true` is not a threshold
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"umbral {name}: se espera un número")
    if not (0.0 <= value <= top):  # also false for NaN
        raise ValueError(f"umbral {name}: fuera de rango (de 0 a {top:g})")
    return float(value)
