"""Synthetic photos of a Mus table: the training and validation data of the card reader.

No labelled photo set of the Spanish deck exists, so every image is composed here: card faces
(:mod:`training.cards.decks`) laid on a table plane (four hands of four in front of the four seats, a
close-up of one hand, or loose cards), seen through the perspective of a tablet held at the
table's edge, on felt, wood, cloth, patterned tablecloths or real textures, with uneven warm
light, shadows, glare, blur, noise and JPEG. Card faces are re-printed on every use (paper
colour, ink saturation and hue, white balance, border, sharpness) because the users' decks
differ from both reference designs.

Everything is a pure function of a seed: ``render_scene(np.random.default_rng(seed), ...)``.
Backgrounds are split in two families: :data:`TRAIN_BACKGROUNDS` and
:data:`HOLDOUT_BACKGROUNDS` (never used in training, for validation).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from scoring.cards import CARD_IDS
from training.cards.decks import load_back, load_deck

TRAIN_BACKGROUNDS = (
    "felt",
    "wood",
    "cloth",
    "check",
    "grass",
    "gravel",
    "noise",
    "photo",
    "camo",
    "clutter",
    "scribble",
)
HOLDOUT_BACKGROUNDS = ("stripes", "dots", "brick", "marble")
ALL_BACKGROUNDS = TRAIN_BACKGROUNDS + HOLDOUT_BACKGROUNDS

CARD_W_CM, CARD_H_CM = 6.1, 9.5  # a standard Spanish card


@dataclass
class Scene:
    """One synthetic photo and its labels.

    ``corners[i]`` holds the four image corners of card i (top-left, top-right, bottom-right,
    bottom-left of the card face, as printed), ``card_ids[i]`` its id, ``seats[i]`` its seat
    (0 bottom, 1 right, 2 top, 3 left) or -1 for loose cards.
    """

    image: np.ndarray
    corners: np.ndarray  # (N, 4, 2) float32
    card_ids: list[str]
    seats: list[int]
    kind: str
    background: str
    deck: str
    meta: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- backgrounds


def _smooth_noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Value noise in [0, 1] with features of about ``scale`` pixels."""
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    small = rng.random((sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, 0, 1)


def _fractal(rng: np.random.Generator, h: int, w: int, base: float) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    scale = base
    for _ in range(4):
        out += amp * _smooth_noise(rng, h, w, max(scale, 2))
        total += amp
        amp *= 0.5
        scale /= 2
    return out / total


def _broad_shade(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A gentle light falloff over a cloth (h, w, 1): 0.85 to 1.05 in broad patches."""
    return (0.85 + 0.2 * _fractal(rng, h, w, 150))[..., None]


def _random_colour(rng: np.random.Generator, kind: str) -> np.ndarray:
    """A plausible table colour (BGR, float 0-255)."""
    if kind == "felt":
        hue = rng.choice([60, 65, 55, 110, 0, 170, 15, 100])  # greens, blues, reds, browns
        sat = rng.uniform(90, 230)
        val = rng.uniform(50, 170)
    elif kind == "wood":
        hue, sat, val = rng.uniform(8, 22), rng.uniform(90, 200), rng.uniform(70, 200)
    else:
        hue, sat, val = rng.uniform(0, 180), rng.uniform(0, 200), rng.uniform(60, 240)
    hsv = np.array([[[hue, sat, val]]], np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


@functools.cache
def _skimage_texture(name: str) -> np.ndarray:
    from skimage import data  # scikit-image: the test and train extras only, imported when used

    img = getattr(data, name)()
    if img.ndim == 2:
        img = np.dstack([img] * 3)
    img = cv2.cvtColor(img.astype(np.uint8)[:, :, :3], cv2.COLOR_RGB2BGR)
    img.setflags(write=False)  # cached and shared: callers copy before changing it
    return img


# Photos shipped inside scikit-image (no download): natural scenes, print and microscopy, used
# as "anything at all" backgrounds so that the detector learns cards, not the tables it saw.
# ``brick`` is a held-out background and is not among them.
PHOTO_TEXTURES = (
    "astronaut",
    "camera",
    "coffee",
    "chelsea",
    "coins",
    "moon",
    "page",
    "text",
    "rocket",
    "hubble_deep_field",
    "immunohistochemistry",
    "clock",
    "retina",
    "cell",
)


def _photo(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    tex = _skimage_texture(str(rng.choice(PHOTO_TEXTURES))).astype(np.float32)
    th, tw = tex.shape[:2]
    zoom = rng.uniform(1.0, 3.0)  # a random part of the photo, enlarged to the table
    ch, cw = max(8, int(th / zoom)), max(8, int(tw / zoom))
    y0, x0 = int(rng.integers(0, th - ch + 1)), int(rng.integers(0, tw - cw + 1))
    img = cv2.resize(tex[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        img = img * (_random_colour(rng, "cloth") / 128.0)
    return img


def _camo(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Blotches of 2-4 colours (thresholded noise), like a printed cloth or a stained top."""
    n = int(rng.integers(2, 5))
    field_ = _fractal(rng, h, w, rng.uniform(15, 150))
    edges = np.quantile(field_, np.linspace(0, 1, n + 1)[1:-1])
    idx = np.digitize(field_, edges)
    colours = np.stack([_random_colour(rng, "cloth") for _ in range(n)])
    return colours[idx]


def _plain(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    img = np.empty((h, w, 3), np.float32)
    img[:] = _random_colour(rng, "cloth")
    return img


def _clutter(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Random polygons, ellipses and blank pale rectangles (paper, napkins: card-like but no
    card) over a plain base."""
    img = _plain(rng, h, w)
    scale = min(h, w)
    for _ in range(int(rng.integers(8, 40))):
        colour = tuple(
            float(v)
            for v in (_random_colour(rng, "cloth") if rng.random() < 0.7 else rng.uniform(200, 250) * np.ones(3))
        )
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        size = rng.uniform(0.03, 0.3) * scale
        shape = rng.random()
        if shape < 0.4:
            box = cv2.boxPoints(((cx, cy), (size, size * rng.uniform(0.3, 1.8)), float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [box.astype(np.int32)], colour, lineType=cv2.LINE_AA)
        elif shape < 0.7:
            cv2.ellipse(
                img,
                ((cx, cy), (size, size * rng.uniform(0.3, 1.0)), float(rng.uniform(0, 180))),
                colour,
                -1,
                lineType=cv2.LINE_AA,
            )
        else:
            pts = rng.normal(0, size / 2, (int(rng.integers(3, 7)), 2)) + np.array([cx, cy])
            cv2.fillPoly(img, [pts.astype(np.int32)], colour, lineType=cv2.LINE_AA)
    return img * _broad_shade(rng, h, w)


def _scribble(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Random line segments and arcs of random widths (scratches, seams, a drawn-on top)."""
    img = _plain(rng, h, w)
    scale = min(h, w)
    for _ in range(int(rng.integers(10, 60))):
        colour = tuple(float(v) for v in _random_colour(rng, "cloth"))
        width = int(rng.integers(1, max(2, int(0.03 * scale))))
        if rng.random() < 0.6:
            p0 = rng.uniform(0, 1, 2) * (w, h)
            p1 = p0 + rng.normal(0, 0.3 * scale, 2)
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), colour, width, lineType=cv2.LINE_AA)
        else:
            centre = tuple(int(v) for v in rng.uniform(0, 1, 2) * (w, h))
            axes = tuple(int(v) for v in rng.uniform(0.05, 0.4, 2) * scale)
            start = float(rng.uniform(0, 360))
            cv2.ellipse(
                img,
                centre,
                axes,
                float(rng.uniform(0, 180)),
                start,
                start + float(rng.uniform(30, 200)),
                colour,
                width,
                lineType=cv2.LINE_AA,
            )
    return img * _broad_shade(rng, h, w)


def make_background(rng: np.random.Generator, kind: str, h: int, w: int) -> np.ndarray:
    """A table-top texture of ``kind`` (see ALL_BACKGROUNDS), BGR uint8, ``h`` x ``w``."""
    if kind == "felt":
        base = _random_colour(rng, "felt")
        n = _fractal(rng, h, w, rng.uniform(20, 120))
        grain = rng.normal(0, 1, (h, w)).astype(np.float32)
        shade = 0.85 + 0.3 * n[..., None] + 0.04 * grain[..., None]
        img = base * shade
    elif kind == "wood":
        base = _random_colour(rng, "wood")
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        warp = _fractal(rng, h, w, rng.uniform(80, 300)) * rng.uniform(20, 80)
        freq = rng.uniform(0.03, 0.12)
        angle = rng.uniform(0, math.pi)
        coord = xx * math.cos(angle) + yy * math.sin(angle)
        rings = 0.5 + 0.5 * np.sin(freq * (coord + warp))
        fine = _smooth_noise(rng, h, w, 3)
        shade = 0.7 + 0.35 * rings + 0.1 * fine
        img = base * shade[..., None]
        if rng.random() < 0.6:  # planks
            plank = rng.uniform(120, 400)
            across = -xx * math.sin(angle) + yy * math.cos(angle)
            seams = (across % plank) < 2.5
            img[seams] *= 0.45
    elif kind == "cloth":
        base = _random_colour(rng, "cloth")
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = rng.uniform(2.5, 6)
        weave = 0.5 + 0.25 * (np.sin(xx * 2 * math.pi / period) + np.sin(yy * 2 * math.pi / period))
        folds = _fractal(rng, h, w, rng.uniform(100, 300))
        img = base * (0.75 + 0.15 * weave + 0.3 * folds)[..., None]
    elif kind == "check":  # gingham / chequered tablecloth
        c1, c2 = _random_colour(rng, "cloth"), np.array([235, 235, 235], np.float32) * rng.uniform(0.8, 1)
        period = rng.uniform(20, 90)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = ((xx // period) % 2).astype(np.float32)
        b = ((yy // period) % 2).astype(np.float32)
        mix = (a + b) / 2
        img = c2 * (1 - mix[..., None]) + c1 * mix[..., None]
        img *= _broad_shade(rng, h, w)
    elif kind == "stripes":
        c1, c2 = _random_colour(rng, "cloth"), _random_colour(rng, "cloth")
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = rng.uniform(0, math.pi)
        coord = xx * math.cos(angle) + yy * math.sin(angle)
        period = rng.uniform(15, 80)
        mix = (np.sin(coord * 2 * math.pi / period) > rng.uniform(-0.5, 0.5)).astype(np.float32)
        mix = cv2.GaussianBlur(mix, (0, 0), 1.0)
        img = c1 * (1 - mix[..., None]) + c2 * mix[..., None]
        img *= _broad_shade(rng, h, w)
    elif kind == "dots":
        c1, c2 = _random_colour(rng, "cloth"), _random_colour(rng, "cloth")
        img = np.empty((h, w, 3), np.float32)
        img[:] = c1
        period = int(rng.uniform(25, 70))
        radius = int(period * rng.uniform(0.15, 0.35))
        colour = tuple(float(v) for v in c2)
        for y in range(0, h + period, period):
            off = period // 2 if (y // period) % 2 else 0
            for x in range(-period, w + period, period):
                cv2.circle(img, (x + off, y), radius, colour, -1, lineType=cv2.LINE_AA)
        img *= _broad_shade(rng, h, w)
    elif kind == "noise":
        c1, c2 = _random_colour(rng, "cloth"), _random_colour(rng, "cloth")
        mix = _fractal(rng, h, w, rng.uniform(10, 200))
        img = c1 * (1 - mix[..., None]) + c2 * mix[..., None]
    elif kind == "marble":
        c1 = _random_colour(rng, "cloth") * 0.3 + 170
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        turb = _fractal(rng, h, w, rng.uniform(60, 200)) * rng.uniform(6, 14)
        veins = np.abs(np.sin(xx * 0.01 + yy * 0.006 + turb)) ** 0.3
        img = c1 * (0.55 + 0.45 * veins)[..., None]
    elif kind == "photo":
        img = _photo(rng, h, w)
    elif kind == "camo":
        img = _camo(rng, h, w)
    elif kind == "clutter":
        img = _clutter(rng, h, w)
    elif kind == "scribble":
        img = _scribble(rng, h, w)
    elif kind in ("grass", "gravel", "brick"):
        tex = _skimage_texture(kind).astype(np.float32)
        th, tw = tex.shape[:2]
        reps = (math.ceil(h / th) + 1, math.ceil(w / tw) + 1, 1)
        tiled = np.tile(tex, reps)
        y0, x0 = rng.integers(0, th), rng.integers(0, tw)
        img = tiled[y0 : y0 + h, x0 : x0 + w].copy()
        if rng.random() < 0.7:  # recolour, as if a printed tablecloth
            tint = _random_colour(rng, "cloth") / 128.0
            img = img * tint
    else:
        raise ValueError(f"fondo desconocido: {kind!r}")
    return np.clip(img, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- card printing


def reprint_face(rng: np.random.Generator, face: np.ndarray, strength: float = 1.0) -> np.ndarray:
    """A randomly re-printed copy of a BGRA face: paper, ink, hue, border, sharpness."""
    bgr: np.ndarray = face[:, :, :3].astype(np.float32)
    alpha = face[:, :, 3]
    if rng.random() < 0.5 * strength:  # white-balance the paper (a modern, white card)
        paper = np.percentile(bgr[alpha > 0].reshape(-1, 3), 97, axis=0)
        bgr = bgr * (245.0 / np.maximum(paper, 1))
    if rng.random() < 0.6 * strength:  # hue / saturation of the ink
        hsv = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[:, :, 0] = (hsv[:, :, 0] + rng.uniform(-8, 8) * strength) % 180
        hsv[:, :, 1] *= rng.uniform(0.55, 1.35)
        bgr = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    # paper tint and contrast
    tint = np.array([rng.uniform(0.82, 1.0), rng.uniform(0.9, 1.0), 1.0], np.float32)
    if rng.random() < 0.5:
        tint = np.array([1, 1, 1], np.float32) - (1 - tint) * 0.3
    contrast = rng.uniform(0.8, 1.15)
    bgr = (bgr - 128) * contrast + 128
    bgr = bgr * tint
    gamma = rng.uniform(0.8, 1.25)
    bgr = 255 * (np.clip(bgr, 0, 255) / 255) ** gamma
    h, w = bgr.shape[:2]
    if rng.random() < 0.4 * strength:  # a white (or cream) margin around the print
        m = int(rng.uniform(0.02, 0.07) * w)
        paper = np.array([rng.uniform(215, 250)] * 3, np.float32) * tint
        canvas = np.empty((h + 2 * m, w + 2 * m, 3), np.float32)
        canvas[:] = paper
        canvas[m : m + h, m : m + w] = bgr
        bgr = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.3 * strength:  # soft print / low-resolution scan
        k = rng.uniform(0.8, 2.2)
        bgr = cv2.GaussianBlur(bgr, (0, 0), k)
    elif rng.random() < 0.2 * strength:  # over-sharpened
        blur = cv2.GaussianBlur(bgr, (0, 0), 2)
        bgr = cv2.addWeighted(bgr, 1.6, blur, -0.6, 0)
    if rng.random() < 0.3 * strength:  # paper texture
        bgr = bgr * (0.95 + 0.1 * _smooth_noise(rng, h, w, rng.uniform(2, 20)))[..., None]
    out = np.dstack([np.clip(bgr, 0, 255).astype(np.uint8), alpha])
    if rng.random() < 0.5:
        out = out[::-1, ::-1].copy()  # cards lie either way up
    return out


# --------------------------------------------------------------------------- layout


def _card_quad(cx: float, cy: float, angle: float, w: float, h: float) -> np.ndarray:
    """Corners (tl, tr, br, bl) of a card centred at (cx, cy) rotated by ``angle`` radians."""
    c, s = math.cos(angle), math.sin(angle)
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    rot = np.array([[c, -s], [s, c]], np.float32)
    return pts @ rot.T + np.array([cx, cy], np.float32)


def _hand_layout(
    rng: np.random.Generator, w: float, h: float, style: str | None = None
) -> list[tuple[float, float, float]]:
    """Four cards of one hand in the player's frame: (x, y, angle); y grows towards the player."""
    if style is None:
        style = str(rng.choice(["row", "overlap", "fan"], p=[0.4, 0.35, 0.25]))
    out = []
    if style == "row":
        gap = rng.uniform(0.05, 0.45) * w
        step = w + gap
        for i in range(4):
            out.append(((i - 1.5) * step + rng.normal(0, 0.04 * w), rng.normal(0, 0.06 * h), rng.normal(0, 0.06)))
    elif style == "overlap":
        step = rng.uniform(0.55, 0.9) * w
        for i in range(4):
            out.append(((i - 1.5) * step + rng.normal(0, 0.03 * w), rng.normal(0, 0.04 * h), rng.normal(0, 0.05)))
    else:  # fan around a pivot below the cards
        spread = rng.uniform(0.2, 0.35)
        radius = h * rng.uniform(1.0, 1.5)
        for i in range(4):
            a = (i - 1.5) * spread
            out.append((radius * math.sin(a), radius * (1 - math.cos(a)), a))
    return out


@dataclass
class _Placed:
    quad: np.ndarray  # table-plane corners (4, 2)
    card_id: str | None  # None for a distractor (back of a card)
    seat: int


def _layout_table(rng: np.random.Generator, ids: list[str], unit: float, style: str | None = None) -> list[_Placed]:
    """Four hands of four around the centre of the table plane (origin)."""
    w, h = CARD_W_CM * unit, CARD_H_CM * unit
    radius = rng.uniform(1.4, 2.3) * h
    placed = []
    for seat in range(4):
        # seat 0 at the bottom (camera side), then counter-clockwise as seen from above.
        theta = math.pi / 2 - seat * math.pi / 2 + rng.normal(0, 0.08)
        gx, gy = radius * math.cos(theta), radius * math.sin(theta)
        along = (-math.sin(theta), math.cos(theta))  # player's left-right axis
        towards_player = (math.cos(theta), math.sin(theta))
        hand_rot = theta - math.pi / 2 + rng.normal(0, 0.12)
        for j, (x, y, a) in enumerate(_hand_layout(rng, w, h, style)):
            cx = gx + x * along[0] + y * towards_player[0]
            cy = gy + x * along[1] + y * towards_player[1]
            placed.append(_Placed(_card_quad(cx, cy, hand_rot + a, w, h), ids[seat * 4 + j], seat))
    return placed


def _layout_closeup(rng: np.random.Generator, ids: list[str], unit: float, style: str | None = None) -> list[_Placed]:
    """One player's four cards (a row, an overlapping row or a fan), turned any way."""
    w, h = CARD_W_CM * unit, CARD_H_CM * unit
    rot = rng.uniform(-0.5, 0.5) + (math.pi if rng.random() < 0.2 else 0)
    placed = []
    c, s = math.cos(rot), math.sin(rot)
    for j, (x, y, a) in enumerate(_hand_layout(rng, w, h, style)):
        placed.append(_Placed(_card_quad(c * x - s * y, s * x + c * y, rot + a, w, h), ids[j], 0))
    return placed


def _layout_loose(rng: np.random.Generator, ids: list[str], unit: float) -> list[_Placed]:
    w, h = CARD_W_CM * unit, CARD_H_CM * unit
    placed: list[_Placed] = []
    centres: list[tuple[float, float]] = []
    span = 3.2 * h
    for cid in ids:
        for _ in range(30):
            cx, cy = rng.uniform(-span, span), rng.uniform(-span * 0.8, span * 0.8)
            if all((cx - px) ** 2 + (cy - py) ** 2 > (0.8 * w) ** 2 for px, py in centres):
                break
        centres.append((cx, cy))
        placed.append(_Placed(_card_quad(cx, cy, rng.uniform(0, 2 * math.pi), w, h), cid, -1))
    return placed


def _layout_grid(rng: np.random.Generator, ids: list[str], unit: float) -> list[_Placed]:
    """Cards laid out to register a deck, in reading order: the whole deck as four rows
    (oros, copas, espadas, bastos) of ten, or one suit as a row of ten or two rows of five."""
    w, h = CARD_W_CM * unit, CARD_H_CM * unit
    per_row = 10 if len(ids) == 40 or rng.random() < 0.5 else 5
    n_rows = math.ceil(len(ids) / per_row)
    gap_x, gap_y = rng.uniform(0.08, 0.35) * w, rng.uniform(0.08, 0.3) * h
    rot = rng.normal(0, 0.04)
    c, s = math.cos(rot), math.sin(rot)
    placed = []
    for k, cid in enumerate(ids):
        row, col = divmod(k, per_row)
        x = (col - (per_row - 1) / 2) * (w + gap_x) + rng.normal(0, 0.03 * w)
        y = (row - (n_rows - 1) / 2) * (h + gap_y) + rng.normal(0, 0.03 * h)
        a = rot + rng.normal(0, 0.04) + (math.pi if rng.random() < 0.5 else 0)
        placed.append(_Placed(_card_quad(c * x - s * y, s * x + c * y, a, w, h), cid, -1))
    return placed


# --------------------------------------------------------------------------- camera and light


def _camera(
    rng: np.random.Generator, quads: np.ndarray, out_w: int, out_h: int, fill: float, tilt: float
) -> np.ndarray:
    """Homography from the table plane to the photo: a tablet at the table's edge."""
    pts = quads.reshape(-1, 2)
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    # Far edge of the table (small y) looks narrower: a trapezoid in the image.
    src = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    bw, bh = x1 - x0, y1 - y0
    # Fit the layout into the frame with the requested fill.
    box_w = out_w * fill
    box_h = box_w * (bh / bw) * rng.uniform(0.65, 0.9)  # foreshortening
    if box_h > out_h * fill:
        scale = out_h * fill / box_h
        box_w, box_h = box_w * scale, box_h * scale
    top_w = box_w * tilt
    cx = out_w / 2 + rng.uniform(-1, 1) * (out_w - box_w) / 2 * 0.8
    cy = out_h / 2 + rng.uniform(-1, 1) * (out_h - box_h) / 2 * 0.8
    dst = np.array(
        [
            [cx - top_w / 2, cy - box_h / 2],
            [cx + top_w / 2, cy - box_h / 2],
            [cx + box_w / 2, cy + box_h / 2],
            [cx - box_w / 2, cy + box_h / 2],
        ],
        np.float32,
    )
    dst += rng.normal(0, 0.01 * out_w, dst.shape).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def _project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), hom).reshape(-1, 2)


def _paste(canvas: np.ndarray, face: np.ndarray, quad: np.ndarray, shadow: float) -> None:
    """Warp a BGRA face onto the float canvas at image corners ``quad`` (tl, tr, br, bl)."""
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 8
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 8
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    fh, fw = face.shape[:2]
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    hom = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(
        face, hom, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )
    a = warped[:, :, 3:4].astype(np.float32) / 255
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:  # soft contact shadow, offset slightly
        sh = cv2.GaussianBlur(a[:, :, 0], (0, 0), 2 + 2 * shadow)
        sh = np.roll(sh, (2, 2), (0, 1))[..., None]
        roi *= 1 - shadow * 0.5 * sh
    roi[:] = roi * (1 - a) + warped[:, :, :3].astype(np.float32) * a


def _lighting(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # uneven light: a broad gradient plus low-frequency noise
    gx, gy = rng.normal(0, 1, 2)
    grad = (xx / w - 0.5) * gx + (yy / h - 0.5) * gy
    light = 1 + 0.35 * grad * rng.uniform(0.3, 1) + 0.25 * (_smooth_noise(rng, h, w, 300) - 0.5)
    light *= rng.uniform(0.55, 1.25)
    # warm (tungsten) or cool light
    warm = rng.uniform(-0.12, 0.22)
    colour = np.array([1 - warm, 1.0, 1 + warm * 0.6], np.float32)
    img = img * light[..., None] * colour
    if rng.random() < 0.5:  # a cast shadow: a soft dark polygon (a hand, the phone, a glass)
        mask: np.ndarray = np.zeros((h, w), np.float32)
        n = rng.integers(3, 7)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.1, 0.4) * w
        pts = np.array(
            [
                [cx + r * math.cos(t) * rng.uniform(0.5, 1.5), cy + r * math.sin(t) * rng.uniform(0.5, 1.5)]
                for t in np.sort(rng.uniform(0, 2 * math.pi, n))
            ],
            np.int32,
        )
        cv2.fillPoly(mask, [pts], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(8, 40))
        img = img * (1 - rng.uniform(0.2, 0.55) * mask[..., None])
    if rng.random() < 0.35:  # glare: a bright soft spot
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.03, 0.15) * w
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
        img = img + rng.uniform(60, 200) * blob[..., None]
    return img


def _camera_effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.8))
    elif rng.random() < 0.15:  # motion blur
        k = int(rng.integers(3, 9))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        turned = cv2.warpAffine(kernel, rot, (k, k))
        img = cv2.filter2D(img, -1, turned / max(turned.sum(), 1e-6))
    sigma = rng.uniform(0, 9)
    img = img + rng.normal(0, sigma, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.uniform(35, 95))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return out if decoded is None else decoded


def _distractors(rng: np.random.Generator, canvas: np.ndarray, avoid: list[np.ndarray]) -> None:
    """Things that are not cards: coins, a phone, a glass, a pen."""
    h, w = canvas.shape[:2]
    for _ in range(int(rng.integers(0, 4))):
        colour = tuple(float(v) for v in rng.uniform(0, 255, 3))
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        kind = rng.choice(["coin", "phone", "pen", "glass"])
        if kind == "coin":
            r = int(rng.uniform(0.01, 0.03) * w)
            cv2.circle(canvas, (int(cx), int(cy)), r, colour, -1, lineType=cv2.LINE_AA)
        elif kind == "glass":
            r = int(rng.uniform(0.03, 0.07) * w)
            cv2.circle(canvas, (int(cx), int(cy)), r, colour, max(2, r // 6), lineType=cv2.LINE_AA)
        else:
            size = (
                (rng.uniform(0.08, 0.2) * w, rng.uniform(0.04, 0.1) * w)
                if kind == "phone"
                else (rng.uniform(0.1, 0.25) * w, rng.uniform(0.006, 0.015) * w)
            )
            box = cv2.boxPoints(((cx, cy), size, float(rng.uniform(0, 180)))).astype(np.int32)
            shade = (20.0, 20.0, 25.0) if kind == "phone" and rng.random() < 0.7 else colour
            cv2.fillPoly(canvas, [box], shade, lineType=cv2.LINE_AA)
    del avoid


# --------------------------------------------------------------------------- scenes


def render_scene(
    rng: np.random.Generator,
    *,
    decks: tuple[str, ...] = ("fournier1878-pd",),
    backgrounds: tuple[str, ...] = TRAIN_BACKGROUNDS,
    size: tuple[int, int] = (1280, 960),
    kind: str | None = None,
    deck_root: str | None = None,
    card_ids: list[str] | None = None,
    hand_style: str | None = None,
    face_edit: Callable[[str, str, np.ndarray], np.ndarray] | None = None,
) -> Scene:
    """One synthetic photo of ``size`` (width, height).

    ``kind``: "mesa" (16 cards, four hands), "mano" (close-up of one hand of four), "sueltas"
    (1-15 loose cards) or "vacia" (no card face: the table, its distractors, maybe card
    backs); chosen at random when None. "baraja" and "palo"
    (never chosen at random) lay out cards to register a deck: the whole deck in four rows of
    ten in ``CARD_IDS`` order, or the ten cards of one suit (``card_ids``, or a random suit) in
    a row of ten or two rows of five. ``hand_style`` fixes how each hand (of a table or a
    close-up) lies ("row", "overlap" or "fan"; random when None). ``face_edit(deck, card_id,
    face)`` may change each face before it is printed (the rank reader's training redraws the
    corner indices in other fonts with it); it draws on its own random numbers, not ``rng``.
    """
    out_w, out_h = size
    if kind is None:
        kind = str(rng.choice(["mesa", "mano", "sueltas", "vacia"], p=[0.66, 0.14, 0.16, 0.04]))
    deck = str(rng.choice(list(decks)))
    faces = load_deck(deck, deck_root)
    n = {"mesa": 16, "mano": 4, "vacia": 0, "baraja": 40}.get(kind)
    if n is None:  # loose cards (0 is "vacia": an empty table, never loose cards)
        n = int(rng.integers(1, 16))
    if card_ids is not None:
        ids = list(card_ids)
    elif kind in ("baraja", "palo"):
        suit = int(rng.integers(4)) if kind == "palo" else 0
        ids = list(CARD_IDS) if kind == "baraja" else list(CARD_IDS[10 * suit : 10 * suit + 10])
    else:
        ids = [str(c) for c in rng.choice(list(CARD_IDS), size=n, replace=False)]
    unit = 10.0
    if kind == "mesa":
        placed = _layout_table(rng, ids, unit, hand_style)
        fill, tilt = rng.uniform(0.7, 0.98), rng.uniform(0.6, 0.95)
    elif kind in ("baraja", "palo"):
        placed = _layout_grid(rng, ids, unit)
        fill, tilt = rng.uniform(0.85, 0.97), rng.uniform(0.85, 1.0)
    elif kind == "mano":
        placed = _layout_closeup(rng, ids, unit, hand_style)
        fill, tilt = rng.uniform(0.45, 0.9), rng.uniform(0.7, 1.0)
    else:
        placed = _layout_loose(rng, ids, unit)
        fill, tilt = rng.uniform(0.5, 0.95), rng.uniform(0.55, 1.0)
    # card backs as distractors (face-down cards are not read)
    n_backs = int(rng.integers(1, 3)) if rng.random() < 0.15 else 0
    if kind in ("baraja", "palo"):  # a deck laid out to be registered: nothing on top of it
        n_backs = 0
    w, h = CARD_W_CM * unit, CARD_H_CM * unit
    for _ in range(n_backs):
        span = 3.5 * h
        placed.append(
            _Placed(
                _card_quad(rng.uniform(-span, span), rng.uniform(-span, span), rng.uniform(0, 2 * math.pi), w, h),
                None,
                -1,
            )
        )
    if not placed:  # an empty table: still pick a camera
        placed_quads = np.array([[[-300, -300], [300, -300], [300, 300], [-300, 300]]], np.float32)
    else:
        placed_quads = np.stack([p.quad for p in placed])
    hom = _camera(rng, placed_quads, out_w, out_h, fill, tilt)
    background = str(rng.choice(list(backgrounds)))
    canvas = make_background(rng, background, out_h, out_w).astype(np.float32)
    _distractors(rng, canvas, [])
    order = list(range(len(placed)))
    if kind == "sueltas":
        rng.shuffle(order)
    corners, out_ids, seats = [], [], []
    for i in order:
        p = placed[i]
        quad = _project(hom, p.quad)
        face = load_back(deck, deck_root) if p.card_id is None else faces[p.card_id]
        if face_edit is not None and p.card_id is not None:
            face = face_edit(deck, p.card_id, face)
        side = float(np.linalg.norm(quad - np.roll(quad, 1, 0), axis=1).max())
        target = max(48, int(1.4 * side))
        if target < face.shape[0]:  # print at about the size it will be seen: much faster
            face = cv2.resize(
                face, (round(face.shape[1] * target / face.shape[0]), target), interpolation=cv2.INTER_AREA
            )
        face = reprint_face(rng, face)
        _paste(canvas, face, quad, shadow=rng.uniform(0, 1))
        if p.card_id is not None:
            corners.append(quad)
            out_ids.append(p.card_id)
            seats.append(p.seat)
    img = _lighting(rng, canvas)
    img = _camera_effects(rng, img)
    corners_arr = np.stack(corners).astype(np.float32) if corners else np.zeros((0, 4, 2), np.float32)
    return Scene(img, corners_arr, out_ids, seats, kind, background, deck)


def visible_fraction(scene: Scene, size_hint: int = 256) -> np.ndarray:
    """Share of each card's area not covered by cards drawn after it (by paint order)."""
    h, w = scene.image.shape[:2]
    s = size_hint / max(h, w)
    shape = (int(h * s) + 1, int(w * s) + 1)
    masks = []
    for quad in scene.corners:
        m = np.zeros(shape, np.uint8)
        cv2.fillPoly(m, [np.round(quad * s).astype(np.int32)], 1)
        masks.append(m)
    out = np.ones(len(masks), np.float32)
    covered = np.zeros(shape, np.uint8)
    for i in range(len(masks) - 1, -1, -1):
        area = masks[i].sum()
        if area:
            out[i] = 1 - (masks[i] & covered).sum() / area
        covered |= masks[i]
    return out


HAND_STYLES = ("row", "overlap", "fan")
HAND_FILL = (0.7, 0.98)  # share of the frame's width or height a near hand's outline fills


def closeup_at_scale(
    rng: np.random.Generator,
    deck: str,
    style: str,
    size: tuple[int, int] = (1280, 960),
    backgrounds: tuple[str, ...] = HOLDOUT_BACKGROUNDS,
    deck_root: str | None = None,
) -> Scene:
    """A close-up of one hand (``style``: row, overlap, fan) whose outline fills HAND_FILL of
    the frame: rendered at twice ``size``, cropped around the hand, shrunk to ``size`` (no photo
    is enlarged, so the cards keep their detail). Evaluation draws its table from the held-out
    ``backgrounds``; the detector's training (kind "cerca" of :mod:`training.cards.dataset`) from
    the training ones."""
    out_w, out_h = size
    big = render_scene(
        rng,
        decks=(deck,),
        backgrounds=backgrounds,
        size=(2 * out_w, 2 * out_h),
        kind="mano",
        hand_style=style,
        deck_root=deck_root,
    )
    pts = big.corners.reshape(-1, 2)
    (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
    fill = rng.uniform(*HAND_FILL)
    win_w = min(max((x1 - x0) / fill, (y1 - y0) / fill * out_w / out_h), 2 * out_w)
    win_h = win_w * out_h / out_w
    cx = (x0 + x1) / 2 + rng.uniform(-0.5, 0.5) * max(win_w - (x1 - x0), 0)
    cy = (y0 + y1) / 2 + rng.uniform(-0.5, 0.5) * max(win_h - (y1 - y0), 0)
    left = float(np.clip(cx - win_w / 2, 0, 2 * out_w - win_w))
    top = float(np.clip(cy - win_h / 2, 0, 2 * out_h - win_h))
    k = out_w / win_w
    warp = np.array([[k, 0, -left * k], [0, k, -top * k]], np.float32)
    # bilinear: OpenCV's warps treat INTER_AREA as INTER_LINEAR (k is 0.5 or more here)
    img = cv2.warpAffine(big.image, warp, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    corners = ((big.corners - np.array([left, top], np.float32)) * k).astype(np.float32)
    return replace(big, image=img, corners=corners)
