"""Synthetic señas made from a real face by landmark-guided warping (for tests and benchmarks).

Everything here is honestly synthetic: a real photo (e.g. ``skimage.data.astronaut()``) is
deformed around its detected landmarks to close an eye, raise the brows, push the lips, draw a
tongue or lift a shoulder. It is test tooling, never used to recognise anything.

Sides here are *image* sides (``"a"`` = image left, ``"b"`` = image right). For an unmirrored
camera the image-left eye is the player's right eye.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from gestures import landmarks as L

Frame = np.ndarray


@dataclass(frozen=True)
class Warp:
    """A smooth displacement field through control points (normalised Gaussian weights).

    ``apply(image, alpha)`` moves each ``src`` point towards ``src + alpha * (dst - src)``;
    ``anchors`` stay still, and far from every point nothing moves. A weighted mean never
    overshoots, unlike exact RBF interpolation. Linear in alpha: one field per animation.
    """

    centers: np.ndarray  # (n, 2) destination points
    disp: np.ndarray  # (n, 2)
    sigma: float
    _cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def through(src: np.ndarray, dst: np.ndarray, anchors: np.ndarray, sigma: float) -> Warp:
        centers = np.vstack([dst, anchors]).astype(np.float64)
        disp = np.vstack([dst - src, np.zeros_like(anchors)]).astype(np.float64)
        return Warp(centers, disp, sigma)

    def apply(self, image: Frame, alpha: float = 1.0) -> Frame:
        if alpha == 0:
            return image.copy()
        (x0, y0, x1, y1), xs, ys, disp = self._field(image.shape[:2])
        map_x = (xs - disp[..., 0] * alpha).astype(np.float32)
        map_y = (ys - disp[..., 1] * alpha).astype(np.float32)
        out = image.copy()
        out[y0:y1, x0:x1] = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return out

    def _field(self, shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray, np.ndarray]:
        """Displacement at alpha 1 over the affected box, computed once per image size."""
        key = (int(shape[0]), int(shape[1]))
        if key not in self._cache:
            h, w = key
            x0, y0 = np.maximum(self.centers.min(0) - 4 * self.sigma, 0).astype(int)
            x1, y1 = np.minimum(self.centers.max(0) + 4 * self.sigma, [w, h]).astype(int)
            ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            grid = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float64)
            d2 = ((grid[:, None, :] - self.centers[None, :, :]) ** 2).sum(-1)
            weights = np.exp(-d2 / (2 * self.sigma**2))
            # the constant is a "still" background weight: the field fades out far away
            disp = (weights @ self.disp) / (weights.sum(1, keepdims=True) + 0.05)
            self._cache[key] = ((int(x0), int(y0), int(x1), int(y1)), xs, ys, disp.reshape(*xs.shape, 2))
        return self._cache[key]


def _iod(face: np.ndarray) -> float:
    return float(np.linalg.norm(face[L.EYE_OUTER_B, :2] - face[L.EYE_OUTER_A, :2]))


def _ring(face: np.ndarray, idx: tuple[int, ...], scale: float) -> np.ndarray:
    """Points around a landmark group, ``scale`` times farther from its centre (anchors)."""
    pts = face[list(idx), :2]
    c = pts.mean(0)
    return c + (pts - c) * scale


def close_eye(image: Frame, face: np.ndarray, side: str, alpha: float = 1.0) -> Frame:
    """Close the image-``side`` eye: lid skin painted over the opening, lashes drawn.

    The lid colour is the person's own skin just above the eye; ``alpha`` < 1 lowers the
    upper lid only part of the way.
    """
    if alpha <= 0:
        return image.copy()
    upper, lower = (L.UPPER_LID_A, L.LOWER_LID_A) if side == "a" else (L.UPPER_LID_B, L.LOWER_LID_B)
    iod = _iod(face)
    up = face[list(upper), :2]
    low_all = face[list(lower), :2]
    low = np.array([low_all[np.argmin(np.abs(low_all[:, 0] - p[0]))] for p in up])
    lid = up + (low - up) * min(alpha, 1.0) * 0.92  # where the upper lid edge ends up
    corners = face[[L.EYE_OUTER_A, L.EYE_INNER_A] if side == "a" else [L.EYE_OUTER_B, L.EYE_INNER_B], :2]
    covered = np.vstack([corners[:1], up, corners[1:], lid[::-1]])
    shape = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(shape, [np.round(covered).astype(np.int32)], 255)
    grow = max(3, round(iod * 0.05) | 1)
    mask = np.asarray(cv2.dilate(shape, np.ones((grow, grow), np.uint8)), np.uint8)
    # lid skin: a band between the eye and the brow
    above = up - [0, 0.12 * iod]
    h, w = image.shape[:2]
    samples = [image[int(np.clip(y, 0, h - 1)), int(np.clip(x, 0, w - 1))] for x, y in above]
    skin = np.median(np.array(samples, np.float64), 0)
    eye_pixels = image[mask > 0].reshape(-1, 3).astype(np.float64)
    dark = np.percentile(eye_pixels, 5, axis=0) if len(eye_pixels) else np.array([40.0, 30, 30])
    painted = image.astype(np.float64).copy()
    painted[mask > 0] = skin
    # feather the edge and keep a little of the original texture (shading)
    soft = cv2.GaussianBlur(mask.astype(np.float64) / 255, (0, 0), max(1.0, iod * 0.015))[..., None]
    texture = cv2.GaussianBlur(image, (0, 0), max(1.0, iod * 0.03)).astype(np.float64)
    lid_img = 0.8 * painted + 0.2 * texture
    out = (image * (1 - soft) + lid_img * soft).clip(0, 255).astype(np.uint8)
    lashes = np.vstack([corners[:1], lid, corners[1:]])
    order = np.argsort(lashes[:, 0])
    cv2.polylines(
        out,
        [np.round(lashes[order]).astype(np.int32)],
        False,
        tuple(float(v) for v in dark),
        max(1, round(iod * 0.02)),
        cv2.LINE_AA,
    )
    return out


def raise_brows(face: np.ndarray, amount: float = 0.16) -> Warp:
    brows = L.BROW_A + L.BROW_B
    src = face[list(brows), :2]
    dst = src - [0, amount * _iod(face)]
    eyes = L.UPPER_LID_A + L.LOWER_LID_A + L.UPPER_LID_B + L.LOWER_LID_B
    anchors = np.vstack([face[list(eyes), :2], _ring(face, brows, 1.6)])
    return Warp.through(src, dst, anchors, sigma=_iod(face) * 0.12)


def _mouth_anchors(face: np.ndarray, scale: float = 1.9) -> np.ndarray:
    return np.vstack([_ring(face, L.LIPS_OUTER, scale), face[[L.NOSE_TIP], :2]])


def pucker(face: np.ndarray, amount: float = 0.22) -> Warp:
    """Lips pushed out: corners inward, lips a bit fuller (2-D proxy of a 3-D pout)."""
    src = face[list(L.LIPS_OUTER), :2]
    c = src.mean(0)
    dst = c + (src - c) * [1 - amount, 1 + amount * 0.5]
    return Warp.through(src, dst, _mouth_anchors(face), sigma=_iod(face) * 0.12)


def shift_lips(face: np.ndarray, side: str, amount: float = 0.2) -> Warp:
    """Closed lips moved towards the image ``side``, as far as a lips-aside seña moves them (on
    the astronaut the mesh's lip centre moves 0.07-0.09 IOD and mouthLeft/Right rise by about
    0.5; a real one measured 0.12 and 0.83)."""
    idx = tuple(sorted(set(L.LIPS_OUTER + L.LIPS_INNER)))
    src = face[list(idx), :2]
    sign = -1.0 if side == "a" else 1.0
    dst = src + np.array([sign * amount * _iod(face), 0])
    return Warp.through(src, dst, _mouth_anchors(face, 2.2), sigma=_iod(face) * 0.12)


def open_jaw(face: np.ndarray, amount: float = 0.12) -> Warp:
    """Lower lip and chin down, as when speaking."""
    lower = tuple(sorted(set(L.LOWER_LIP_OUTER + L.LOWER_LIP_INNER)))
    src = face[[*list(lower), L.CHIN], :2]
    dst = src + np.array([0, amount * _iod(face)])
    anchors = np.vstack([face[list(L.UPPER_LIP_OUTER), :2], face[[L.NOSE_TIP], :2], _ring(face, L.LIPS_OUTER, 2.4)])
    return Warp.through(src, dst, anchors, sigma=_iod(face) * 0.12)


def bite_lower_lip(image: Frame, face: np.ndarray, alpha: float = 1.0) -> Frame:
    """Lower lip drawn in under the upper teeth.

    The lower lip is squeezed up to a sliver (the skin below follows), and the top of what is
    left becomes teeth, coloured like the brightest part of the person's own mouth opening
    (a light ivory if the lips are closed). ``alpha`` 0..1 is how far the bite goes.
    """
    if alpha <= 0:
        return image.copy()
    inner = face[list(L.LOWER_LIP_INNER[1:-1]), :2]
    outer = face[list(L.LOWER_LIP_OUTER[1:-1]), :2]
    target = inner + (outer - inner) * (1 - 0.7 * min(alpha, 1.0))
    iod = _iod(face)
    below = outer + np.array([0, 0.12 * iod])
    src = np.vstack([outer, below])
    dst = np.vstack([target, below + (target - outer) * 0.6])
    anchors = np.vstack([face[list(L.UPPER_LIP_OUTER + L.UPPER_LIP_INNER), :2], _ring(face, L.LIPS_OUTER, 2.4)])
    out = Warp.through(src, dst, anchors, sigma=iod * 0.05).apply(image)
    edge = inner + (target - inner) * 0.45
    band = np.vstack([face[[L.LOWER_LIP_INNER[0]], :2], inner, face[[L.LOWER_LIP_INNER[-1]], :2], edge[::-1]])
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(band).astype(np.int32)], 255)
    mouth = np.zeros_like(mask)
    cv2.fillPoly(mouth, [np.round(face[list(L.LIPS_INNER), :2]).astype(np.int32)], 255)
    pix = image[mouth > 0].reshape(-1, 3).astype(np.float64)
    bright = pix[pix.sum(1) >= np.percentile(pix.sum(1), 75)] if len(pix) > 10 else None
    teeth = np.median(bright, 0) if bright is not None else np.array([200.0, 215, 225])
    out[mask > 0] = teeth
    blur = cv2.GaussianBlur(out, (0, 0), max(0.8, iod * 0.01))
    kernel = np.ones((3, 3), np.uint8)
    ring = (np.asarray(cv2.dilate(mask, kernel)) > 0) & ~(np.asarray(cv2.erode(mask, kernel)) > 0)
    out[ring > 0] = blur[ring > 0]
    return out


def draw_tongue(image: Frame, face: np.ndarray, direction: str = "centro", alpha: float = 1.0) -> Frame:
    """Paint a tongue coming out of the mouth (straight, or to image side ``a``/``b``).

    Its colour is taken from the person's own lips, lighter and pinker, with shading, so the
    detector cannot key on a fixed colour.
    """
    if alpha <= 0:
        return image.copy()
    out = image.copy()
    iod = _iod(face)
    lips = _lip_pixels(image, face)
    base = np.median(lips, 0) if len(lips) else np.array([150, 80, 90.0])
    colour = np.clip(base * [1.12, 0.95, 1.05] + [18, 0, 10], 0, 255)
    a, b = face[L.MOUTH_CORNER_A, :2], face[L.MOUTH_CORNER_B, :2]
    top, low = face[L.LIP_INNER_TOP, :2], face[L.LIP_INNER_BOTTOM, :2]
    mouth = (a + b) / 2
    length = alpha * 0.42 * iod
    if direction == "centro":
        root, axis = (top + low) / 2, np.array([0.0, 1.0])
    else:
        corner = a if direction == "a" else b
        root = corner * 0.7 + mouth * 0.3
        axis = np.array([-0.85 if direction == "a" else 0.85, 0.5])
    axis = axis / np.linalg.norm(axis)
    tip = root + axis * length
    centre = (root + tip) / 2
    angle = float(np.degrees(np.arctan2(axis[1], axis[0])))
    half = (max(length / 2, 1.0), 0.17 * iod)
    cv2.ellipse(out, _pt(centre), _pt(half), angle, 0, 360, colour.tolist(), -1, cv2.LINE_AA)
    # darker median groove and a shade along the edge, as on a real tongue
    cv2.line(
        out, _pt(root), _pt(root + axis * length * 0.7), (colour * 0.8).tolist(), max(1, int(iod * 0.015)), cv2.LINE_AA
    )
    cv2.ellipse(
        out, _pt(centre), _pt(half), angle, 0, 360, (colour * 0.85).tolist(), max(1, int(iod * 0.02)), cv2.LINE_AA
    )
    # the lips stay parted around the tongue's root: redraw the upper lip over it
    upper = face[list(L.UPPER_LIP_OUTER + L.UPPER_LIP_INNER[::-1]), :2]
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(upper).astype(np.int32)], 255)
    out[mask > 0] = image[mask > 0]
    return out


def _pt(p: np.ndarray | tuple[float, float]) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _lip_pixels(image: Frame, face: np.ndarray) -> np.ndarray:
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(face[list(L.LIPS_OUTER), :2]).astype(np.int32)], 255)
    cv2.fillPoly(mask, [np.round(face[list(L.LIPS_INNER), :2]).astype(np.int32)], 0)
    return image[mask > 0].astype(np.float64)


def raise_shoulder(pose: np.ndarray, side: str, width_fraction: float = 0.14) -> Warp:
    """Lift the image-``side`` shoulder (``"ab"`` for both) by a fraction of shoulder width."""
    ia, ib = L.shoulders_by_image_side(pose)
    a, b = pose[ia, :2], pose[ib, :2]
    width = float(np.linalg.norm(b - a))
    lift = np.array([0, -width_fraction * width])
    moving = [p for s, p in (("a", a), ("b", b)) if s in side]
    src = np.array(moving)
    # a patch of the shoulder moves as a block, the head stays put
    offsets = np.array([[0, 0], [0.12, 0], [-0.12, 0], [0, 0.12]]) * width
    src = np.vstack([p + offsets for p in src])
    dst = src + lift
    head = (a + b) / 2 - [0, 0.55 * width]
    side_step = np.array([0.2 * width, 0])
    anchors = np.array([head, head + side_step, head - side_step])
    return Warp.through(src, dst, anchors, sigma=width * 0.16)


Recipe = Callable[[Frame, float], Frame]


def sequence(
    neutral: Frame, recipe: Recipe, fps: float, before: float, ramp: float, hold: float, after: float
) -> Iterator[tuple[float, Frame]]:
    """Frames of a gesture: neutral, ramp up, hold, ramp down, neutral (timestamps in s)."""
    n = round((before + 2 * ramp + hold + after) * fps)
    for i in range(n):
        t = i / fps
        if t < before:
            alpha = 0.0
        elif t < before + ramp:
            alpha = (t - before) / ramp
        elif t < before + ramp + hold:
            alpha = 1.0
        elif t < before + 2 * ramp + hold:
            alpha = 1 - (t - before - ramp - hold) / ramp
        else:
            alpha = 0.0
        yield t, (recipe(neutral, alpha) if alpha > 0 else neutral)


def recipes(image: Frame, face: np.ndarray, pose: np.ndarray | None) -> dict[str, Recipe]:
    """One animation per gesture (key: gesture id plus image side where it has one)."""
    warps: dict[str, Warp] = {
        "cejas_arriba": raise_brows(face),
        "morro": pucker(face),
        "labios_lado_a": shift_lips(face, "a"),
        "labios_lado_b": shift_lips(face, "b"),
        "hablar": open_jaw(face),
    }
    if pose is not None:
        warps.update(
            {
                "hombros_arriba": raise_shoulder(pose, "ab", 0.2),
                "hombro_arriba_a": raise_shoulder(pose, "a", 0.2),
                "hombro_arriba_b": raise_shoulder(pose, "b", 0.2),
            }
        )
    out: dict[str, Recipe] = {k: w.apply for k, w in warps.items()}
    out.update(
        {
            "guino_a": lambda im, a: close_eye(im, face, "a", a),
            "guino_b": lambda im, a: close_eye(im, face, "b", a),
            "ojos_cerrados": lambda im, a: close_eye(close_eye(im, face, "a", a), face, "b", a),
            "labio_mordido": lambda im, a: bite_lower_lip(im, face, a),
        }
    )
    # a tongue comes out between parted lips: the jaw drops a little with it
    jaw = open_jaw(face, 0.035)

    def tongue(direction: str) -> Callable[[np.ndarray, float], np.ndarray]:
        return lambda im, a: draw_tongue(jaw.apply(im, a), face, direction, a)

    for key, direction in (("lengua_fuera", "centro"), ("lengua_lado_a", "a"), ("lengua_lado_b", "b")):
        out[key] = tongue(direction)
    return out


def talking(
    image: Frame, face: np.ndarray, fps: float, seconds: float, syllables_per_s: float = 4.0, seed: int = 0
) -> list[tuple[float, Frame]]:
    """Speech-like movement: the jaw opens and closes at syllable rate with varying depth;
    one syllable in four is a rounded vowel (lips pushed, as in "o", "u"); now and then the
    brows flash up for a stressed word and both eyes blink (0.15 s)."""
    rng = np.random.default_rng(seed)
    jaw, lips, brows = open_jaw(face), pucker(face), raise_brows(face)
    n = round(seconds * fps)
    n_syl = int(seconds * syllables_per_s) + 2
    depths = rng.uniform(0.3, 1.0, size=n_syl)
    rounded = rng.random(n_syl) < 0.25
    flashes = set(rng.choice(np.arange(n_syl), size=max(1, n_syl // 6), replace=False))
    blinks = set(rng.choice(np.arange(n // 4, n), size=max(1, int(seconds / 3)), replace=False))
    frames = []
    for i in range(n):
        t = i / fps
        k = int(t * syllables_per_s)
        phase = abs(np.sin(np.pi * t * syllables_per_s))
        frame = jaw.apply(image, float(depths[k] * phase * (0.4 if rounded[k] else 1.0)))
        if rounded[k]:
            frame = lips.apply(frame, float(0.8 * phase))
        if k in flashes:
            frame = brows.apply(frame, float(0.7 * phase))
        if any(0 <= i - b < max(1, round(0.15 * fps)) for b in blinks):
            frame = close_eye(close_eye(frame, face, "a"), face, "b")
        frames.append((t, frame))
    return frames


def blinking(
    image: Frame, face: np.ndarray, fps: float, seconds: float, every: float = 1.0, length: float = 0.2
) -> list[tuple[float, Frame]]:
    """Ordinary blinks: both eyes shut for ``length`` s every ``every`` s."""
    frames = []
    for i in range(round(seconds * fps)):
        t = i / fps
        shut = (t % every) >= every - length
        frames.append((t, close_eye(close_eye(image, face, "a"), face, "b") if shut else image))
    return frames
