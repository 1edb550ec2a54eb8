"""Stage 1 of reading a photo: the card detector's oriented boxes, and the boxes of the table.

The detector (``carta_obb.onnx``, a thin YOLO11-OBB) gives candidate boxes with scores; the table
is chosen from them: the sure boxes, completed towards 16 with weaker ones when a Mus table's
16 cards are not all sure, capped at 16 unless more are sure, and, when 16 boxes do not lie in
four hands, one kept box swapped for a weaker candidate that makes them.

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

from vision.geometry import probiou_nms, rotated_nms
from vision.models import DEFAULT_THREADS, session
from vision.seats import seat_labels

DET_THRESHOLD = 0.35  # detector score to keep a box
FILL_THRESHOLD = 0.1  # weaker boxes that may complete a table of 16 (see choose_table)
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

    boxes: np.ndarray
    scores: np.ndarray
    candidates: np.ndarray
    candidate_scores: np.ndarray

    def __len__(self) -> int:
        return len(self.boxes)

    def best(self, n: int) -> DetectedBoxes:
        """The ``n`` best of the table's boxes (they are sorted by score)."""
        return DetectedBoxes(self.boxes[:n], self.scores[:n], self.candidates, self.candidate_scores)


class Detector:
    """The card detector of one ONNX file, loaded on first use."""

    def __init__(self, path: str | os.PathLike[str], threads: int = DEFAULT_THREADS,
                 threshold: float = DET_THRESHOLD):
        self.path = Path(path)
        self.threads = threads
        self.threshold = threshold

    @property
    def session(self):
        return session(str(self.path), self.threads)

    def candidates(self, image: np.ndarray, min_score: float | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """All the boxes scoring ``min_score`` or more (default: the lower of the threshold and
        FILL_THRESHOLD), after NMS, sorted by score: what the table is chosen from."""
        floor = min(self.threshold, FILL_THRESHOLD) if min_score is None else min_score
        boxes, scores = self._raw_boxes(image, floor)
        scores = demote_oversized(boxes, scores)
        # near-identical boxes first, vectorised (the raw output holds hundreds), then exact NMS
        pre = probiou_nms(boxes, scores, PRE_NMS_PROBIOU)
        boxes, scores = boxes[pre], scores[pre]
        order = rotated_nms(boxes, scores, NMS_IOU)
        return boxes[order], scores[order]

    def _raw_boxes(self, image: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
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
        canvas[top:top + nh, left:left + nw] = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        blob = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32)
        blob /= 255
        pred = sess.run(None, {inp.name: blob})[0][0]  # (6, A): cx cy w h score angle
        keep = pred[4] >= floor
        boxes = pred[[0, 1, 2, 3, 5]][:, keep].T.copy()
        boxes[:, 0] = (boxes[:, 0] - left) / scale
        boxes[:, 1] = (boxes[:, 1] - top) / scale
        boxes[:, 2:4] /= scale
        return boxes, pred[4][keep]

    def detect(self, image: np.ndarray) -> DetectedBoxes:
        """The table's boxes and the candidates (see :func:`choose_table`)."""
        boxes, scores = self.candidates(image)
        return DetectedBoxes(*choose_table(boxes, scores, self.threshold), boxes, scores)

    def detect_n(self, image: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` best boxes when the photo is known to hold ``n`` cards (fewer if not found)."""
        boxes, scores = self.candidates(image)
        return boxes[:n], scores[:n]


def demote_oversized(boxes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The scores, those of boxes over OVERSIZED times the median area of the boxes scoring
    DET_THRESHOLD or more times OVERSIZED_SCORE; as they are where fewer than 4 do."""
    area = boxes[:, 2] * boxes[:, 3]
    sure = scores >= DET_THRESHOLD
    if sure.sum() < 4:
        return scores
    big = area > OVERSIZED * float(np.median(area[sure]))
    return np.where(big, scores * OVERSIZED_SCORE, scores).astype(scores.dtype)


def choose_table(boxes: np.ndarray, scores: np.ndarray, threshold: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The boxes kept from the candidates (sorted by score): see fill_table and cap_table;
    then, when they are 16 that do not lie in four hands, one swap with a weaker box."""
    chosen_b, chosen_s = cap_table(*fill_table(boxes, scores, threshold))
    if len(chosen_b) != TABLE_CARDS or seat_labels(chosen_b) is not None:
        return chosen_b, chosen_s
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
            return trial_b[order], trial_s[order]
    return chosen_b, chosen_s


def fill_table(boxes: np.ndarray, scores: np.ndarray, threshold: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """The boxes over ``threshold``; or, when fewer than 16 pass it but weaker ones (a card
    half hidden under another) make up 16, the 16 best, whose low score flags them."""
    strong = scores >= threshold
    if strong.sum() < TABLE_CARDS <= len(scores):
        return boxes[:TABLE_CARDS], scores[:TABLE_CARDS]  # sorted by score by the NMS
    return boxes[strong], scores[strong]


def cap_table(boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 16 best boxes, and those beyond only if they score EXTRA_SURE: the others are nearly
    always ghosts (a band of the cloth, two overlapping cards boxed as one) or a card boxed
    twice, scoring lower than the cards; a sure one means the photo really shows more cards,
    and the seat step says so. (Suppressing overlapping boxes instead removed true cards of
    overlapping rows and kept lone ghosts.)"""
    keep = (np.arange(len(boxes)) < TABLE_CARDS) | (scores >= EXTRA_SURE)
    return boxes[keep].astype(np.float32), scores[keep].astype(np.float32)


def left_out_mask(cand_b: np.ndarray, cand_s: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Mask of the candidates (sorted by score) that are not among ``kept`` and score at least
    FILL_THRESHOLD: the boxes a swap may bring into the table."""
    out = ~(np.abs(cand_b[:, None] - kept[None]).max(-1) < 1e-4).any(1)
    return out & (cand_s >= FILL_THRESHOLD)
