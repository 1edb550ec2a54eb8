"""Stage 1 of reading a photo: the card detector's oriented boxes, and the boxes of the table.

The detector (``carta_obb.onnx``, a thin YOLO11-OBB) gives candidate boxes with scores; a box
lying mostly over part of a larger, better one (a corner of one big card in a close-up) is not
a card of its own. The cards are chosen from the rest: the sure boxes, whatever their number (a
close-up, loose cards, none at all); only when they nearly make a Mus table (FILL_MIN_SURE of
16) are they completed to 16 with weaker boxes, and only if the 16 then lie in four hands (a
half-hidden card where a hand is short). More than 16 are capped unless sure; and when 16 boxes
do not lie in four hands, one kept box is swapped for a weaker candidate that makes them.

    >>> det = Detector(models_dir() / DETECTOR_FILE)              # doctest: +SKIP
    >>> boxes = det.detect(image)                                  # doctest: +SKIP
    >>> boxes.boxes.shape, boxes.candidates.shape                  # doctest: +SKIP
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.arrays import Floats, Image, Ints, Mask
from vision.geometry import probiou_nms, rotated_nms, shrink
from vision.models import DEFAULT_THREADS, OnnxSession, session
from vision.seats import seat_labels

DET_THRESHOLD = 0.35  # detector score to keep a box
FILL_THRESHOLD = 0.1  # weaker boxes that may complete a table of 16 (see choose_table)
# Sure boxes there must be before weaker ones may complete a table of 16: with fewer the photo
# is a close-up, loose cards or no cards at all, where the weak boxes are phantoms (on real
# close-ups: one to four of them, of scores 0.07-0.16, in 14 of 20 photos).
FILL_MIN_SURE = 14
# A box with this share of its area inside a box of PART_AREA times its area or more, and of a
# higher score, is part of that card (its corner or its half, in a close-up), not a card.
# Overlapping cards of a row or a fan are boxes of the same size and cover each other by half.
PART_OF_LARGER, PART_AREA = 0.7, 1.5
NMS_IOU = 0.6  # boxes of neighbouring cards in a fan overlap by 0.5-0.6 (0.5 dropped true cards)
PRE_NMS_PROBIOU = 0.8
TABLE_CARDS = 16
# A box over three times the median area of the sure boxes spans several cards or a band of
# the cloth (on validation tables true cards reach twice the median, with perspective; such
# ghosts up to 25 times and more). Its score is cut before the NMS, where it would suppress the
# true cards under it; it may still stand in for a missed card when fewer than 16 are found.
OVERSIZED, OVERSIZED_SCORE = 3.0, 0.25
EXTRA_SURE = 0.8  # boxes beyond the 16 best are dropped unless this sure (then the photo shows more)
SWAP_CANDIDATES = 8  # weaker boxes tried in place of a kept one when 16 do not make four hands


@dataclass(frozen=True)
class DetectedBoxes:
    """The table's boxes (N, 5) and scores (N,), best first, and all the candidates they were
    chosen from (sorted by score): later stages may bring a left-out candidate in."""

    boxes: Floats
    scores: Floats
    candidates: Floats
    candidate_scores: Floats

    def __len__(self) -> int:
        return len(self.boxes)

    def best(self, n: int) -> DetectedBoxes:
        """The ``n`` best of the table's boxes (they are sorted by score)."""
        return DetectedBoxes(self.boxes[:n], self.scores[:n], self.candidates, self.candidate_scores)

    def rows(self, keep: Ints | Mask) -> DetectedBoxes:
        """These of the table's boxes only (a mask or indices, in order); the same candidates."""
        return DetectedBoxes(self.boxes[keep], self.scores[keep], self.candidates, self.candidate_scores)


class Detector:
    """The card detector of one ONNX file, loaded on first use."""

    def __init__(self, path: str | os.PathLike[str], threads: int = DEFAULT_THREADS, threshold: float = DET_THRESHOLD):
        self.path = Path(path)
        self.threads = threads
        self.threshold = threshold

    @property
    def session(self) -> OnnxSession:
        return session(str(self.path), self.threads)

    def candidates(self, image: Image, min_score: float | None = None) -> tuple[Floats, Floats]:
        """All the boxes scoring ``min_score`` or more (default: the lower of the threshold and
        FILL_THRESHOLD), after NMS, sorted by score: what the table is chosen from."""
        floor = min(self.threshold, FILL_THRESHOLD) if min_score is None else min_score
        boxes, scores = self._raw_boxes(image, floor)
        scores = demote_oversized(boxes, scores)
        # near-identical boxes first, vectorised (the raw output holds hundreds), then exact NMS
        pre = probiou_nms(boxes, scores, PRE_NMS_PROBIOU)
        boxes, scores = boxes[pre], scores[pre]
        order = rotated_nms(boxes, scores, NMS_IOU)
        boxes, scores = boxes[order], scores[order]
        whole = ~part_of_larger(boxes, scores)
        return boxes[whole], scores[whole]

    def _raw_boxes(self, image: Image, floor: float) -> tuple[Floats, Floats]:
        """The network's boxes in image pixels scoring ``floor`` or more, before any NMS."""
        sess = self.session
        inp = sess.get_inputs()[0]
        size = int(inp.shape[2])
        h, w = image.shape[:2]
        scale = min(size / w, size / h)
        nw, nh = round(w * scale), round(h * scale)
        px, py = (size - nw) / 2, (size - nh) / 2
        canvas = np.full((size, size, 3), 114, np.uint8)  # letterbox, as Ultralytics trains
        left, top = round(px - 0.1), round(py - 0.1)
        canvas[top : top + nh, left : left + nw] = shrink(image, (nw, nh))
        # RGB planes in [0, 1]: each copied from OpenCV's split, the same values a strided view's
        # astype gives, in a fifth of its time (3.7 -> 0.8 ms a pass on this CPU)
        blob = np.empty((1, 3, size, size), np.float32)
        for i, plane in enumerate(reversed(cv2.split(canvas))):
            blob[0, i] = plane
        blob /= 255
        pred = sess.run(None, {inp.name: blob})[0][0]  # (6, A): cx cy w h score angle
        keep = pred[4] >= floor
        boxes = pred[[0, 1, 2, 3, 5]][:, keep].T.copy()
        boxes[:, 0] = (boxes[:, 0] - left) / scale
        boxes[:, 1] = (boxes[:, 1] - top) / scale
        boxes[:, 2:4] /= scale
        return boxes, pred[4][keep]

    def detect(self, image: Image) -> DetectedBoxes:
        """The table's boxes and the candidates (see :func:`choose_table`)."""
        boxes, scores = self.candidates(image)
        return DetectedBoxes(*choose_table(boxes, scores, self.threshold), boxes, scores)

    def detect_n(self, image: Image, n: int) -> tuple[Floats, Floats]:
        """The ``n`` best boxes when the photo is known to hold ``n`` cards (fewer if not found)."""
        boxes, scores = self.candidates(image)
        return boxes[:n], scores[:n]


def demote_oversized(boxes: Floats, scores: Floats) -> Floats:
    """The scores, those of boxes over OVERSIZED times the median area of the boxes scoring
    DET_THRESHOLD or more times OVERSIZED_SCORE; as they are where fewer than 4 do."""
    area = boxes[:, 2] * boxes[:, 3]
    sure = scores >= DET_THRESHOLD
    if sure.sum() < 4:
        return scores
    big = area > OVERSIZED * float(np.median(area[sure]))
    return np.where(big, scores * OVERSIZED_SCORE, scores).astype(scores.dtype)


def part_of_larger(boxes: Floats, scores: Floats) -> Mask:
    """Mask of the boxes (sorted by score) lying mostly over part of a larger, better box
    (PART_OF_LARGER, PART_AREA).

    >>> big, corner = [100, 100, 120, 180, 0], [75, 60, 60, 90, 0]
    >>> part_of_larger(np.float32([big, corner]), np.float32([0.9, 0.5])).tolist()
    [False, True]
    >>> part_of_larger(np.float32([corner, big]), np.float32([0.9, 0.5])).tolist()
    [False, False]
    """
    n = len(boxes)
    out = np.zeros(n, bool)
    if n < 2:
        return out
    area = boxes[:, 2] * boxes[:, 3]
    reach = np.hypot(boxes[:, 2], boxes[:, 3]) / 2
    dist = np.hypot(boxes[:, None, 0] - boxes[None, :, 0], boxes[:, None, 1] - boxes[None, :, 1])
    # (small i, large j): j better, PART_AREA times larger, i's centre within j's reach
    pairs = (scores[None, :] > scores[:, None]) & (area[None, :] >= PART_AREA * area[:, None]) & (dist < reach[None, :])
    for i, j in zip(*np.nonzero(pairs), strict=True):
        if not out[i] and intersection_area(boxes[i], boxes[j]) >= PART_OF_LARGER * area[i]:
            out[i] = True
    return out


def intersection_area(a: Floats, b: Floats) -> float:
    """The area two oriented boxes (cx, cy, w, h, angle) share."""
    ra = ((float(a[0]), float(a[1])), (float(a[2]), float(a[3])), float(np.rad2deg(a[4])))
    rb = ((float(b[0]), float(b[1])), (float(b[2]), float(b[3])), float(np.rad2deg(b[4])))
    kind, pts = cv2.rotatedRectangleIntersection(ra, rb)
    if kind == cv2.INTERSECT_NONE or pts is None or len(pts) < 3:
        return 0.0
    return float(cv2.contourArea(cv2.convexHull(pts)))


def choose_table(boxes: Floats, scores: Floats, threshold: float) -> tuple[Floats, Floats]:
    """The boxes kept from the candidates (sorted by score): the sure ones (capped, see
    cap_table), or a table of 16 completed with weaker ones (see fill_table); when they are 16
    that do not lie in four hands, one swap with a weaker box."""
    filled = fill_table(boxes, scores, threshold)
    if filled is not None:
        return filled
    chosen_b, chosen_s = cap_table(boxes[scores >= threshold], scores[scores >= threshold])
    if len(chosen_b) != TABLE_CARDS or seat_labels(chosen_b) is not None:
        return chosen_b, chosen_s
    return swap_for_four_hands(boxes, scores, chosen_b, chosen_s) or (chosen_b, chosen_s)


def swap_for_four_hands(
    boxes: Floats, scores: Floats, chosen_b: Floats, chosen_s: Floats
) -> tuple[Floats, Floats] | None:
    """16 chosen boxes that do not lie in four hands, with one swapped for a weaker candidate
    so that they do (sorted by score); None when no swap makes four hands."""
    # Most often one box is a ghost across two cards of a hand and a half-hidden card of
    # another hand is a weaker box left out. Try swapping one kept box for one of the next
    # candidates, the highest total score first; the first that makes four hands wins (the
    # weak box keeps its score, so the card is flagged for confirmation).
    left_out = left_out_mask(boxes, scores, chosen_b)
    extra_b, extra_s = boxes[left_out][:SWAP_CANDIDATES], scores[left_out][:SWAP_CANDIDATES]
    gain = extra_s[None, :] - chosen_s[:, None]  # (kept box out, candidate in)
    for flat in np.argsort(-gain, axis=None, kind="stable"):
        out, inn = np.unravel_index(int(flat), gain.shape)
        trial_b = chosen_b.copy()
        trial_b[out] = extra_b[inn]
        if seat_labels(trial_b) is not None:
            trial_s = chosen_s.copy()
            trial_s[out] = extra_s[inn]
            order = np.argsort(-trial_s, kind="stable")
            return trial_b[order].astype(np.float32), trial_s[order].astype(np.float32)
    return None


def fill_table(boxes: Floats, scores: Floats, threshold: float) -> tuple[Floats, Floats] | None:
    """When FILL_MIN_SURE to 15 boxes pass ``threshold`` and the 16 best candidates (weaker
    ones make up the count: a card half hidden under another) lie in four hands, perhaps after
    one swap, those 16, whose low scores flag them; else None (the sure boxes are the cards)."""
    sure = int((scores >= threshold).sum())
    if not FILL_MIN_SURE <= sure < TABLE_CARDS <= len(scores):
        return None
    table_b = boxes[:TABLE_CARDS].astype(np.float32)  # sorted by score by the NMS
    table_s = scores[:TABLE_CARDS].astype(np.float32)
    if seat_labels(table_b) is not None:
        return table_b, table_s
    return swap_for_four_hands(boxes, scores, table_b, table_s)


def cap_table(boxes: Floats, scores: Floats) -> tuple[Floats, Floats]:
    """The 16 best boxes, and those beyond only if they score EXTRA_SURE: the others are nearly
    always ghosts (a band of the cloth, two overlapping cards boxed as one) or a card boxed
    twice, scoring lower than the cards; a sure one means the photo really shows more cards,
    and the seat step says so. (Suppressing overlapping boxes instead removed true cards of
    overlapping rows and kept lone ghosts.)"""
    keep = (np.arange(len(boxes)) < TABLE_CARDS) | (scores >= EXTRA_SURE)
    return boxes[keep].astype(np.float32), scores[keep].astype(np.float32)


def left_out_mask(cand_b: Floats, cand_s: Floats, kept: Floats) -> Mask:
    """Mask of the candidates (sorted by score) that are not among ``kept`` and score at least
    FILL_THRESHOLD: the boxes a swap may bring into the table."""
    out: Mask = ~(np.abs(cand_b[:, None] - kept[None]).max(-1) < 1e-4).any(1) & (cand_s >= FILL_THRESHOLD)
    return out
