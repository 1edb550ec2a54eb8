"""The frame line of a card face redrawn in another style: training data for the pinta (suit)
reader (:mod:`vision.pinta_train`), numpy and OpenCV only.

Every Spanish deck tells the suit by breaks in the frame line along the top and bottom edges
(:mod:`vision.pintas`), but each printer draws that line its own way: its inset, thickness and
ink, where the breaks fall and how wide they are. A reader trained on one design's line reads
another's worse (models/README.md (d)), so on a share of the training faces the line is
inpainted away and drawn again at random, with the breaks the card's suit asks for: the way the
corner index's training redraws the index in other fonts (:mod:`vision.index_train`).

    >>> import numpy as np
    >>> face = np.full((512, 330, 3), 235, np.uint8)
    >>> drawn = draw_frame(face, "e", np.random.default_rng(0), (0.06, 0.04))
    >>> count_segments(drawn[round(0.04 * 512)])
    3
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.pintas import SUITS

# where each design prints its frame line, as fractions of the face (top y, bottom y, left x,
# right x), measured; each face's own line is searched for within FRAME_SEARCH of these
FRAME_LINES = {"fournier1878-pd": (0.066, 0.935, 0.102, 0.904),
               "naipes-libres-basquetteur": (0.046, 0.952, 0.075, 0.934)}
FRAME_SEARCH = 0.015


def _line_rows(profile: np.ndarray, centre: int, reach: int) -> tuple[int, int]:
    """The run of rows (or columns) around the darkest one within ``reach`` of ``centre``."""
    lo = max(0, centre - reach)
    seg = profile[lo:centre + reach + 1]
    r = int(np.argmax(seg))
    a = b = r
    while a > 0 and seg[a - 1] >= 0.5 * seg[r]:
        a -= 1
    while b < len(seg) - 1 and seg[b + 1] >= 0.5 * seg[r]:
        b += 1
    return lo + a, lo + b


def erase_frame(face: np.ndarray, deck: str) -> np.ndarray:
    """``face`` with its frame line (and so its pintas) inpainted away: the dark pixels of the
    four lines found near where ``deck`` prints them (FRAME_LINES)."""
    h, w = face.shape[:2]
    grey = face[..., :3].astype(np.float32).mean(2)
    paper = np.percentile(grey[int(0.15 * h):int(0.85 * h), int(0.15 * w):int(0.85 * w)], 80)
    dark = grey < paper - 45
    rows = dark[:, int(0.2 * w):int(0.8 * w)].mean(1)
    cols = dark[int(0.2 * h):int(0.8 * h)].mean(0)
    ty, by, lx, rx = FRAME_LINES[deck]
    top, bottom = (_line_rows(rows, round(f * h), round(FRAME_SEARCH * h)) for f in (ty, by))
    left, right = (_line_rows(cols, round(f * w), round(FRAME_SEARCH * w)) for f in (lx, rx))
    mask = np.zeros((h, w), np.uint8)
    x0, x1, y0, y1 = left[0] - 2, right[1] + 3, top[0] - 2, bottom[1] + 3
    for a, b in (top, bottom):
        mask[a - 1:b + 2, x0:x1] = 1
    for a, b in (left, right):
        mask[y0:y1, a - 1:b + 2] = 1
    mask = cv2.dilate(mask & dark, np.ones((3, 3), np.uint8))
    out = face.copy()
    out[..., :3] = cv2.inpaint(np.ascontiguousarray(face[..., :3]), mask * 255, 3, cv2.INPAINT_TELEA)
    return out


def draw_frame(face: np.ndarray, suit: str, rng: np.random.Generator, inset: tuple[float, float]) -> np.ndarray:
    """A frame line drawn on ``face`` in a random style (ink, thickness, a second thin line),
    ``inset`` (x, y fractions) from the edges, broken along the top and bottom edges as
    ``suit`` asks (:data:`vision.pintas.SUITS`: none, one, two, three breaks), the breaks of
    random width near evenly spaced, the bottom edge the top turned half a turn."""
    h, w = face.shape[:2]
    out = np.ascontiguousarray(face[..., :3].copy())
    x0, y0 = round(inset[0] * w), round(inset[1] * h)
    x1, y1 = w - 1 - x0, h - 1 - y0
    ink = tuple(int(v) for v in rng.integers(0, 90, 3))
    thick = int(rng.integers(1, 5))
    breaks = SUITS.index(suit)
    span = x1 - x0
    gaps = []
    for i in range(breaks):
        centre = x0 + span * ((i + 1) / (breaks + 1) + rng.uniform(-0.05, 0.05))
        half = span * rng.uniform(0.03, 0.07)
        gaps.append((centre - half, centre + half))
    edges = [x0, *[v for gap in gaps for v in gap], x1]
    segments = [(edges[k], edges[k + 1]) for k in range(0, len(edges), 2)]
    lines = [(0, thick)]
    if rng.random() < 0.2:  # a thin second line inside the first
        lines.append((thick + int(rng.integers(2, 5)), 1))
    for offset, t in lines:
        cv2.line(out, (x0 + offset, y0 + offset), (x0 + offset, y1 - offset), ink, t, cv2.LINE_AA)
        cv2.line(out, (x1 - offset, y0 + offset), (x1 - offset, y1 - offset), ink, t, cv2.LINE_AA)
        for a, b in segments:
            a, b = round(max(a, x0 + offset)), round(min(b, x1 - offset))
            cv2.line(out, (a, y0 + offset), (b, y0 + offset), ink, t, cv2.LINE_AA)
            cv2.line(out, (w - 1 - b, y1 - offset), (w - 1 - a, y1 - offset), ink, t, cv2.LINE_AA)
    if face.shape[2] == 4:
        out = np.dstack([out, face[..., 3]])
    return out


class FrameRedraw:
    """A ``face_edit`` for :func:`vision.synth.render_scene`: on a share of the faces the frame
    line is inpainted away and drawn again in another style and inset, with the breaks the
    card's suit asks for, so that the reader learns the count of breaks rather than one
    printer's line (the way the corner index's training redraws the index in other fonts)."""

    def __init__(self, share: float, seed: int,
                 max_inset: dict[str, tuple[float, float]] | None = None) -> None:
        self.share = share
        self.rng = np.random.default_rng([seed, 13])
        # the line goes nearer the edge than the design's own (never over its index), at most
        # this far in (x, y); by default about where the design's own line is
        self.max_inset = max_inset or {deck: (lx + 0.01, ty + 0.005)
                                        for deck, (ty, _, lx, _) in FRAME_LINES.items()}

    def __call__(self, deck: str, card_id: str, face: np.ndarray) -> np.ndarray:
        if deck not in FRAME_LINES or self.rng.random() >= self.share:
            return face
        mx, my = self.max_inset[deck]
        inset = (self.rng.uniform(0.03, mx), self.rng.uniform(0.025, my))
        return draw_frame(erase_frame(face, deck), card_id[-1], self.rng, inset)


def count_segments(row: np.ndarray, ink_below: int = 160) -> int:
    """Runs of ink longer than 3 px along one row of a face (a frame line's pieces)."""
    dark = np.concatenate([[False], row.reshape(len(row), -1)[:, :3].mean(1) < ink_below, [False]])
    starts, ends = np.flatnonzero(dark[1:] & ~dark[:-1]), np.flatnonzero(~dark[1:] & dark[:-1])
    return int(((ends - starts) > 3).sum())
