"""Read the cards in a photo of the table: ONNX Runtime + numpy + OpenCV, no torch.

Models in ``models/`` (or ``$MUSMESA_MODELS``):

- ``carta_obb.onnx``: one-class oriented-box card detector (a thin YOLO11-OBB; the input size,
  448x448 letterbox as shipped, is read from the file);
- ``carta_cls.onnx``: 40-class classifier on each rectified 64x96 card crop;
- ``carta_idx.onnx`` (optional): a reader of the printed rank in the card's corners
  (:mod:`vision.indice`); its rank probabilities, to the power INDEX_WEIGHT, multiply the
  classifier's (or the registered deck's) probabilities of the cards of that rank;
- ``carta_palo.onnx`` (optional): a reader of the suit from the pintas, the breaks in the
  frame line (:mod:`vision.pintas`); its suit probabilities, to the power PINTA_WEIGHT, multiply
  them too.

With a registered deck (:mod:`vision.baraja`: photos of the user's own 40 cards), each card
is named by the registered card it looks most like (the classifier's features, plus a patch by
patch match of the registered faces, :mod:`vision.plantillas`) instead of by the classifier's
head; that is how a deck design the model never saw is read.

A deck holds each card once, so ids are given by an assignment (greedy on the classifier's
probabilities, best pair first) rather than per-card argmax: two detections never get the same
card. Sessions are created lazily on first use and cached.

    >>> from vision.reader import read_cards            # doctest: +SKIP
    >>> dets = read_cards("examples/mesa.jpg")          # doctest: +SKIP
    >>> dets.asientos                                    # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scoring.cards import CARD_IDS
from vision.detections import CardDetections
from vision.geometry import CROP_H, CROP_W, crop_cards, obb_to_xyxy, rotated_iou
from vision.indice import INDEX_CROP, RANK_OF, corners_bgr, standardise
from vision.pintas import SUIT_OF, strips_bgr
from vision.plantillas import TEMPLATE_H, TEMPLATE_W
from vision.seats import assign_seats, seat_labels

if TYPE_CHECKING:
    from vision.baraja import BarajaRegistrada
    from vision.dudosas import ModeloDudas

REPO = Path(__file__).resolve().parent.parent
DET_FILE = "carta_obb.onnx"
CLS_FILE = "carta_cls.onnx"
INDEX_FILE = "carta_idx.onnx"
INDEX_WEIGHT = 0.5  # chosen on validation tables (models/README.md)
PINTA_FILE = "carta_palo.onnx"
PINTA_WEIGHT = 0.5  # chosen on validation tables (models/README.md)
# Two threads where the process may use two cores: on this 2-core CPU a photo reads in 88 ms with two
# against 110 ms with one, and about as fast with the other core busy (112.7 against 110.0 ms;
# models/README.md, Speed). More were not measured (no machine here has them).
DEFAULT_THREADS = min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
# The classifier also reads each crop turned half a turn and averages the two: one way only is a
# fifth faster and as good on the designs it knows, but reads 1-1.5 points fewer cards of a design
# it never saw (validation tables; models/README.md, Speed).
BOTH_WAYS = True
DET_THRESHOLD = 0.35  # detector score to keep a box
FILL_THRESHOLD = 0.1  # weaker boxes that may complete a table of 16 (see CardReader.detect)
NMS_IOU = 0.6  # boxes of neighbouring cards in a fan overlap by 0.5-0.6 (0.5 dropped true cards)
PRE_NMS_PROBIOU = 0.8
TABLE_CARDS = 16
# A box over three times the median area of the sure boxes spans several cards or a band of
# the cloth (on 120 validation tables true cards reach twice the median, with perspective;
# such ghosts up to 25 times and more). Its score is cut before the NMS, where it would suppress the true
# cards under it; it may still stand in for a missed card when fewer than 16 are found.
OVERSIZED, OVERSIZED_SCORE = 3.0, 0.25
EXTRA_SURE = 0.8  # boxes beyond the 16 best are dropped unless this sure (then the photo shows more)
DROP_TAKEN = True  # a sure box beyond 16 that reads as a card already taken: see _without_taken
SWAP_CANDIDATES = 8  # weaker boxes tried in place of a kept one when 16 do not make four hands
# Two kept boxes that overlap this much (rotated IoU) and read as the same card are one card
# boxed twice: the weaker is swapped for a left-out candidate (CardReader._replace_duplicates).
# Chosen on validation tables (models/README.md (h)): 0.2 and 0.3 the same, 0.4 and 0.5 fewer.
DUPLICATE_IOU = 0.3
DUPLICATE_ROUNDS = 3  # swaps at most per photo
NOT_A_CARD_SCORE, NOT_A_CARD_PROB = 0.5, 0.1  # detector score, probability of its card: see read
# Below this (detector x classifier) a card is flagged for confirmation. 0.6 until the
# seventeenth session, which left 1 % of the known designs' evaluation tables wrong without a
# warning (4 of 400); 0.82, the lowest that flags every wrong card of 480 validation tables,
# leaves none of those 400, at 2.5-2.9 flags a table instead of 0.6-1.1 (models/README.md (b)).
LOW_CONFIDENCE = 0.82
# Read against a registered deck, a design the classifier may never have seen, the similarities
# are sharp even when wrong: flag more (where the folder has no flag model fitted for its models;
# with one, vision.dudosas decides). 0.8 until the thirteenth session; with its surer
# detector 0.8 left 17 % of unseen-design validation tables wrong without a warning, 0.9 none,
# at 10.6 flags a table instead of 5.8 (models/README.md (b)).
LOW_CONFIDENCE_REGISTERED = 0.9
# A deck design the classifier never saw gives low class probabilities across the table: mean
# 0.36-0.73 a table on an unseen design against 0.60-0.95 on the known ones (60 validation
# tables each, fourteenth session's models). Under 0.65 (with 8 cards or more), and with no
# registered deck, every card is flagged and the user is told to register the deck: 56 and 59
# of the 60 unseen-design tables, 0 and 1 of the known designs' (0.6: 43 and 49, 0 and 1; 0.7:
# 59 and 60, 2 and 2; models/README.md (b)).
UNFAMILIAR_DECK, UNFAMILIAR_MIN_CARDS = 0.65, 8
UNFAMILIAR_WARNING = ("las cartas no se parecen a las barajas que conoce el lector: confirma "
                      "cada carta o registra tu baraja (mus baraja registrar)")
# On such a table the classifier is the least reliable part and the pintas (the same convention
# in every Spanish deck) count more: the suit reader's weight 1 instead of PINTA_WEIGHT. With
# every model trained on the other design, 60 validation tables: 81.4 -> 83.5 % of the cards
# (Naipes Libres) and 74.5 -> 75.7 % (Fournier), no table wrong without a warning; the index
# reader's weight 1 instead lost 1.3-1.6 points (models/README.md (b)).
UNFAMILIAR_PINTA_WEIGHT = 1.0


class ImageError(ValueError):
    """The input is not a readable image; the message says why, in Spanish."""


def models_dir() -> Path:
    env = os.environ.get("MUSMESA_MODELS")
    return Path(env) if env else REPO / "models"


@lru_cache(maxsize=8)
def _session(path: str, threads: int):
    import onnxruntime as ort

    if not Path(path).is_file():
        raise FileNotFoundError(f"falta el modelo {path} (¿se instaló musmesa con models/?)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # no busy-waiting between operators: on a shared or busy CPU spinning threads steal the
    # cores they wait for (measured here: 156 ms a photo with spinning, see models/README.md)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


class CardReader:
    """The two models and the reading pipeline; cheap to create, loads models on first read."""

    def __init__(self, folder: str | os.PathLike[str] | None = None, threads: int = DEFAULT_THREADS,
                 det_threshold: float = DET_THRESHOLD, low_confidence: float | None = None,
                 refine: bool = False, baraja: BarajaRegistrada | None = None,
                 dudas: ModeloDudas | bool = True):
        self.folder = Path(folder) if folder else models_dir()
        self.baraja = baraja
        if baraja is not None and (self.folder / CLS_FILE).is_file():
            baraja.check_model(self.folder)
        self.threads = threads
        self.det_threshold = det_threshold
        self.low_confidence = low_confidence
        self.dudas = dudas  # the flag model against a registered deck: True the folder's, False none
        self.refine = refine
        self.index_weight = INDEX_WEIGHT
        self.pinta_weight = PINTA_WEIGHT
        self.both_ways = BOTH_WAYS
        self.replace_duplicates = True  # see _replace_duplicates
        self.drop_taken = DROP_TAKEN  # see _without_taken

    @property
    def flag_threshold(self) -> float:
        """Confidence under which a card is flagged: ``low_confidence`` if given, else
        LOW_CONFIDENCE, or LOW_CONFIDENCE_REGISTERED when reading against a registered deck."""
        if self.low_confidence is not None:
            return self.low_confidence
        return LOW_CONFIDENCE if self.baraja is None else LOW_CONFIDENCE_REGISTERED

    @property
    def flag_model(self) -> ModeloDudas | None:
        """The learned flag model (:mod:`vision.dudosas`) used against a registered deck: the
        one given as ``dudas``, or with ``dudas=True`` the folder's if it was fitted with the
        folder's models; None without a registered deck, with ``dudas=False`` or with an
        explicit ``low_confidence`` (then the product threshold flags)."""
        if self.baraja is None or self.low_confidence is not None or self.dudas is False:
            return None
        if self.dudas is not True:
            return self.dudas
        from vision.dudosas import for_folder

        return for_folder(self.folder)

    @property
    def detector(self):
        return _session(str(self.folder / DET_FILE), self.threads)

    @property
    def classifier(self):
        return _session(str(self.folder / CLS_FILE), self.threads)

    @property
    def index_reader(self):
        """The corner-index rank reader, or None where the folder has none (or the weight is 0)."""
        return self._optional_session(INDEX_FILE, self.index_weight)

    @property
    def pinta_reader(self):
        """The pintas' suit reader, or None where the folder has none (or the weight is 0)."""
        return self._optional_session(PINTA_FILE, self.pinta_weight)

    def _optional_session(self, name: str, weight: float):
        if not weight or not (self.folder / name).is_file():
            return None
        return _session(str(self.folder / name), self.threads)

    def rank_probabilities(self, image: np.ndarray, obbs: np.ndarray,
                           cards: np.ndarray | None = None) -> np.ndarray | None:
        """Probabilities (N, 10) of each card's printed rank (vision.indice.RANKS order), or
        None without an index reader; ``cards``: the boxes already rectified at INDEX_CROP."""
        return _read_marks(self.index_reader, corners_bgr, image, obbs, cards)

    def suit_probabilities(self, image: np.ndarray, obbs: np.ndarray,
                           cards: np.ndarray | None = None) -> np.ndarray | None:
        """Probabilities (N, 4) of each card's suit read from its pintas (vision.pintas.SUITS
        order), or None without a pinta reader."""
        return _read_marks(self.pinta_reader, strips_bgr, image, obbs, cards)

    def load(self) -> CardReader:
        """Create the sessions now (otherwise the first read does)."""
        _ = self.detector, self.classifier, self.index_reader, self.pinta_reader
        return self

    # ---- detector
    def detect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Oriented boxes (N, 5) in image pixels and their scores (N,), after NMS.

        With ``refine`` (off by default), a second pass zooms on each group of cards found;
        on the validation scenes it read fewer cards right (72 % against 85 %), because the
        detector was trained mostly on whole tables, so it stays off."""
        return self._detect_with_candidates(image)[:2]

    def _detect_with_candidates(self, image: np.ndarray
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`detect`'s boxes and scores, and the candidates they were chosen from."""
        boxes, scores = self.candidates(image)
        if not self.refine or len(boxes) == 0:
            return *self._choose_table(boxes, scores), boxes, scores
        h, w = image.shape[:2]
        long_side = float(np.median(np.maximum(boxes[:, 2], boxes[:, 3])))
        groups = _groups(boxes[:, :2], 1.3 * long_side)
        all_b, all_s = [], []
        for g in np.unique(groups):
            corners = obb_to_xyxy(boxes[groups == g])
            x0, y0 = corners[:, :2].min(0)
            x1, y1 = corners[:, 2:].max(0)
            m = 0.5 * long_side
            cx0, cy0 = int(max(0, x0 - m)), int(max(0, y0 - m))
            cx1, cy1 = int(min(w, x1 + m)), int(min(h, y1 + m))
            if (cx1 - cx0) * (cy1 - cy0) > 0.5 * w * h:  # no real zoom: keep the first pass
                keep = groups == g
                all_b.append(boxes[keep])
                all_s.append(scores[keep])
                continue
            zb, zs = self.candidates(image[cy0:cy1, cx0:cx1])
            zb[:, 0] += cx0
            zb[:, 1] += cy0
            core = ((zb[:, 0] >= x0 - 0.2 * long_side) & (zb[:, 0] <= x1 + 0.2 * long_side)
                    & (zb[:, 1] >= y0 - 0.2 * long_side) & (zb[:, 1] <= y1 + 0.2 * long_side))
            all_b.append(zb[core])
            all_s.append(zs[core])
        boxes, scores = np.concatenate(all_b), np.concatenate(all_s)
        order = _rotated_nms(boxes, scores, NMS_IOU)
        boxes, scores = boxes[order], scores[order]
        return *self._choose_table(boxes, scores), boxes, scores

    def _choose_table(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The boxes kept from the candidates (sorted by score): see _fill_table and _cap_table;
        then, when they are 16 that do not lie in four hands, one swap with a weaker box."""
        chosen_b, chosen_s = self._cap_table(*self._fill_table(boxes, scores))
        if len(chosen_b) != TABLE_CARDS or seat_labels(chosen_b) is not None:
            return chosen_b, chosen_s
        # Most often one box is a ghost across two cards of a hand and a half-hidden card of
        # another hand is a weaker box left out. Try swapping one kept box for one of the next
        # candidates, the highest total score first; the first that makes four hands wins (the
        # weak box keeps its score, so the card is flagged for confirmation).
        left_out = _left_out(boxes, scores, chosen_b)
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

    def _fill_table(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # A Mus table shows 16 cards. When fewer than 16 boxes pass the threshold but weaker ones
        # (a card half hidden under another) make up 16, the 16 best are kept; their low
        # detector score flags them for confirmation. Otherwise the weak boxes are dropped.
        strong = scores >= self.det_threshold
        if strong.sum() < TABLE_CARDS <= len(scores):
            return boxes[:TABLE_CARDS], scores[:TABLE_CARDS]  # sorted by score by the NMS
        return boxes[strong], scores[strong]

    def _cap_table(self, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # A Mus table shows 16 cards. Boxes beyond the 16 best are nearly always ghosts (a band
        # of the cloth, two overlapping cards boxed as one) or a card boxed twice, and they score
        # lower than the cards: drop them, unless they are sure, when the photo really shows
        # more cards and the seat step says so. (Suppressing overlapping boxes instead, as the
        # first versions did, removed true cards of overlapping rows and kept lone ghosts.)
        keep = (np.arange(len(boxes)) < TABLE_CARDS) | (scores >= EXTRA_SURE)
        return boxes[keep].astype(np.float32), scores[keep].astype(np.float32)

    def candidates(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All the detector's boxes down to the lower of the two thresholds, after NMS, sorted by
        score: what the table choice (``detect``) starts from."""
        sess = self.detector
        inp = sess.get_inputs()[0]
        size = int(inp.shape[2])
        h, w = image.shape[:2]
        scale = min(size / w, size / h)
        nw, nh = round(w * scale), round(h * scale)
        px, py = (size - nw) / 2, (size - nh) / 2
        canvas = np.full((size, size, 3), 114, np.uint8)
        left, top = round(px - 0.1), round(py - 0.1)
        canvas[top:top + nh, left:left + nw] = cv2.resize(image, (nw, nh),
                                                          interpolation=cv2.INTER_AREA)
        blob = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32)
        blob /= 255
        pred = sess.run(None, {inp.name: blob})[0][0]  # (6, A): cx cy w h score angle
        scores = pred[4]
        keep = scores >= min(self.det_threshold, FILL_THRESHOLD)
        boxes = pred[[0, 1, 2, 3, 5]][:, keep].T.copy()
        scores = scores[keep]
        boxes[:, 0] = (boxes[:, 0] - left) / scale
        boxes[:, 1] = (boxes[:, 1] - top) / scale
        boxes[:, 2:4] /= scale
        scores = _demote_oversized(boxes, scores)
        # near-identical boxes first, vectorised (the raw output holds hundreds), then exact NMS
        pre = _probiou_nms(boxes, scores, PRE_NMS_PROBIOU)
        boxes, scores = boxes[pre], scores[pre]
        order = _rotated_nms(boxes, scores, NMS_IOU)
        return boxes[order], scores[order]

    def detect_n(self, image: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` best boxes when the photo is known to hold ``n`` cards (fewer if not found)."""
        boxes, scores = self.candidates(image)
        return boxes[:n], scores[:n]

    # ---- classifier
    def run_classifier(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Logits (N, 40) and features (N, D) of BGR uint8 crops (N, 96, 64, 3); features are
        None with a classifier exported without them."""
        sess = self.classifier
        blob = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255
        out = sess.run(None, {sess.get_inputs()[0].name: blob})
        return out[0], (out[1] if len(out) > 1 else None)

    def classify(self, image: np.ndarray, obbs: np.ndarray) -> np.ndarray:
        """Class probabilities (N, 40) of the card under each oriented box: the classifier's (or
        the registered deck's), times the corner index's rank probabilities and the pintas' suit
        probabilities where there are those readers."""
        return combine_marks(*self.classify_parts(image, obbs), self.index_weight, self.pinta_weight)

    def classify_parts(self, image: np.ndarray, obbs: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The classifier's (or registered deck's) probabilities (N, 40), the index reader's
        rank probabilities (N, 10) and the pinta reader's suit probabilities (N, 4); either of
        the last two None without its reader."""
        if len(obbs) == 0:
            return np.zeros((0, len(CARD_IDS)), np.float32), None, None
        crops = crop_cards(image, obbs, (CROP_W, CROP_H))
        if self.both_ways:  # and the crop turned half a turn, in one batch
            crops = np.concatenate([crops, crops[:, ::-1, ::-1]])
        logits, feats = self.run_classifier(crops)
        n = len(obbs)
        if self.baraja is not None:
            if feats is None:
                raise ValueError("este clasificador no da rasgos: vuelve a exportarlo para usar "
                                 "una baraja registrada")
            small = (crop_cards(image, obbs, (TEMPLATE_W, TEMPLATE_H))
                     if self.baraja.has_templates else None)
            probs = self.baraja.probabilities(feats[:n], feats[n:] if self.both_ways else None, small)
        else:
            probs = _softmax(logits)
            probs = (probs[:n] + probs[n:]) / 2 if self.both_ways else probs
        marked = self.index_reader is not None or self.pinta_reader is not None
        cards = _rectified(image, obbs) if marked else None
        return (probs, self.rank_probabilities(image, obbs, cards),
                self.suit_probabilities(image, obbs, cards))

    def _replace_duplicates(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                            parts: _Parts, probs: np.ndarray, cand_b: np.ndarray,
                            cand_s: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray, _Parts, np.ndarray]:
        """A table of 16 where two overlapping boxes read as the same card holds one card twice
        (a second box on a card, most often in a fan) and misses another: the weaker box is
        swapped for the best left-out candidate that reads as no kept box's card and keeps the
        table in four hands, the other cards in their seats (see DUPLICATE_IOU). Returns boxes,
        scores, the parts (classifier's, ranks', suits' probabilities) and the combined
        probabilities, sorted by score; as they were when no swap is found."""
        for _ in range(DUPLICATE_ROUNDS):
            if len(boxes) != TABLE_CARDS:
                break
            dup = _duplicate(boxes, scores, probs.argmax(1))
            if dup is None:
                break
            left_out = _left_out(cand_b, cand_s, boxes)
            extra_b = cand_b[left_out][:SWAP_CANDIDATES].astype(np.float32)
            if not len(extra_b):
                break
            extra = self.classify_parts(image, extra_b)
            extra_p = combine_marks(*extra, self.index_weight, self.pinta_weight)
            kept = np.arange(len(boxes)) != dup
            seats = seat_labels(boxes)
            swap = _first_swap(boxes[kept], probs[kept].argmax(1),
                               None if seats is None else seats[kept], extra_b, extra_p.argmax(1))
            if swap is None:
                break
            boxes = np.concatenate([boxes[kept], extra_b[swap:swap + 1]])
            scores = np.concatenate([scores[kept], cand_s[left_out][swap:swap + 1]])
            parts = tuple(None if a is None else np.concatenate([a[kept], b[swap:swap + 1]])
                          for a, b in zip(parts, extra, strict=True))
            probs = np.concatenate([probs[kept], extra_p[swap:swap + 1]])
            order = np.argsort(-scores, kind="stable")
            boxes, scores, probs = boxes[order], scores[order], probs[order]
            parts = _rows(parts, order)
        return boxes, scores.astype(np.float32), parts, probs

    def _unfamiliar(self, cls_conf: np.ndarray) -> bool:
        """Whether the cards look like no deck the classifier knows (see UNFAMILIAR_DECK)."""
        return (self.baraja is None and len(cls_conf) >= UNFAMILIAR_MIN_CARDS
                and float(np.mean(cls_conf)) < UNFAMILIAR_DECK)

    def _read_unfamiliar(self, parts: _Parts, labels: np.ndarray, cls_conf: np.ndarray,
                         alt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ids, probabilities and runners-up of a table of an unfamiliar deck given again
        with the pintas weighing UNFAMILIAR_PINTA_WEIGHT (as they were without a pinta reader,
        or when a weight of 0 switches it off); ``parts``: the final boxes' already."""
        if self.pinta_reader is None or self.pinta_weight == UNFAMILIAR_PINTA_WEIGHT:
            return labels, cls_conf, alt
        return assign_unique(combine_marks(*parts, self.index_weight, UNFAMILIAR_PINTA_WEIGHT))

    def _doubtful(self, det_scores: np.ndarray, cls_conf: np.ndarray,
                  data: dict[str, np.ndarray]) -> np.ndarray:
        """Cards to flag: by the learned flag model against a registered deck where there is
        one and both mark readers (vision.dudosas), else detector x card probability under
        flag_threshold."""
        model = self.flag_model
        if model is not None and {"indice", "pintas"} <= data.keys():
            from vision.dudosas import card_features

            return model.flagged(card_features(det_scores, cls_conf, data["indice"],
                                               data["pintas"]))
        return det_scores * cls_conf < self.flag_threshold

    # ---- everything
    def read(self, image: np.ndarray | str | os.PathLike[str]) -> CardDetections:
        img = load_image(image) if not isinstance(image, np.ndarray) else image
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        elif img.shape[2] == 4:
            img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
        h, w = img.shape[:2]
        boxes, det_scores, cand_b, cand_s = self._detect_with_candidates(img)
        if len(boxes) == 0:
            return CardDetections.empty(["no se ve ninguna carta en la foto"], (w, h))
        if len(boxes) > len(CARD_IDS):  # a deck has 40 cards: keep the 40 best boxes
            boxes, det_scores = boxes[:len(CARD_IDS)], det_scores[:len(CARD_IDS)]
        parts = self.classify_parts(img, boxes)
        probs = combine_marks(*parts, self.index_weight, self.pinta_weight)
        if self.replace_duplicates:
            boxes, det_scores, parts, probs = self._replace_duplicates(
                img, boxes, det_scores, parts, probs, cand_b, cand_s)
        labels, cls_conf, alt = assign_unique(probs)
        # A weak box given an unlikely card is not a card (a phone, a card back, a napkin): it
        # is dropped rather than shown as a guess, unless it completes a table of 16 in four
        # hands, where it most likely stands for a half-hidden card the user will confirm.
        card_like = (det_scores >= NOT_A_CARD_SCORE) | (cls_conf >= NOT_A_CARD_PROB)
        if not card_like.all() and (len(boxes) != TABLE_CARDS or seat_labels(boxes) is None):
            boxes, det_scores, probs = boxes[card_like], det_scores[card_like], probs[card_like]
            parts = _rows(parts, card_like)
            if len(boxes) == 0:
                return CardDetections.empty(["no se ve ninguna carta en la foto"], (w, h))
            labels, cls_conf, alt = assign_unique(probs)
        if self.drop_taken and len(boxes) > TABLE_CARDS:
            keep = _without_taken(boxes, cls_conf)
            if keep is not None:
                boxes, det_scores, probs = boxes[keep], det_scores[keep], probs[keep]
                parts = _rows(parts, keep)
                labels, cls_conf, alt = assign_unique(probs)
        look = parts[0]
        moved = labels != probs.argmax(1)  # the assignment gave the card its second choice
        # whether the cards look like a known deck is the classifier's judgement alone: the
        # printed marks sharpen the probabilities (on validation tables of an unseen design it hid the
        # warning on 30-40 % of the tables)
        unfamiliar = self._unfamiliar(look[np.arange(len(labels)), labels])
        if unfamiliar:
            labels, cls_conf, alt = self._read_unfamiliar(parts, labels, cls_conf, alt)
        conf = det_scores * cls_conf
        data = _mark_data(parts, labels)
        low = np.ones(len(labels), bool) if unfamiliar else (
            self._doubtful(det_scores, cls_conf, data) | moved)
        dets = CardDetections(
            xyxy=obb_to_xyxy(boxes).astype(np.float32), obb=boxes,
            card_ids=np.array([CARD_IDS[i] for i in labels], object),
            confidence=conf.astype(np.float32), det_confidence=det_scores,
            cls_confidence=cls_conf.astype(np.float32),
            alternatives=np.array([CARD_IDS[i] for i in alt], object),
            low_confidence=low, seat=np.full(len(labels), -1, np.int8), avisos=[],
            image_size=(w, h), data=data)
        dets = assign_seats(dets)
        if unfamiliar:
            dets.avisos.append(UNFAMILIAR_WARNING)
        if low.any():
            dudosas = ", ".join(f"{c} (¿o {a}?)" for c, a in
                                zip(dets.card_ids[dets.low_confidence],
                                    dets.alternatives[dets.low_confidence], strict=True))
            dets.avisos.append(f"confirma las cartas dudosas: {dudosas}")
        return dets


_Parts = tuple  # (probs (N, 40), ranks (N, 10) or None, suits (N, 4) or None)


def _rows(parts: _Parts, index: np.ndarray) -> _Parts:
    return tuple(None if a is None else a[index] for a in parts)


def _mark_data(parts: _Parts, labels: np.ndarray) -> dict[str, np.ndarray]:
    """Each mark reader's probability of the read card's rank (suit) and its highest one."""
    out = {}
    for key, probs, of in (("indice", parts[1], RANK_OF), ("pintas", parts[2], SUIT_OF)):
        if probs is not None and len(labels):
            out[key] = np.stack([probs[np.arange(len(labels)), of[labels]], probs.max(1)],
                                1).astype(np.float32)
    return out


def _without_taken(boxes: np.ndarray, cls_conf: np.ndarray) -> np.ndarray | None:
    """More than 16 boxes, because one beyond the 16 best scored EXTRA_SURE: when the extra
    boxes are those whose card (after the assignment) is the least likely, each under
    NOT_A_CARD_PROB (they read as cards other boxes already took: a card boxed twice, a box
    across two cards), and the other 16 lie in four hands, the indices of those 16; else None
    (the photo may really show more cards, and the seat step says so)."""
    extra = len(boxes) - TABLE_CARDS
    drop = np.argsort(cls_conf, kind="stable")[:extra]
    if (cls_conf[drop] >= NOT_A_CARD_PROB).any():
        return None
    keep = np.setdiff1d(np.arange(len(boxes)), drop)
    return keep if seat_labels(boxes[keep]) is not None else None


def _demote_oversized(boxes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The scores, those of boxes over OVERSIZED times the median area of the boxes scoring
    DET_THRESHOLD or more times OVERSIZED_SCORE; as they are where fewer than 4 do."""
    area = boxes[:, 2] * boxes[:, 3]
    sure = scores >= DET_THRESHOLD
    if sure.sum() < 4:
        return scores
    big = area > OVERSIZED * float(np.median(area[sure]))
    return np.where(big, scores * OVERSIZED_SCORE, scores).astype(scores.dtype)


def _left_out(cand_b: np.ndarray, cand_s: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Mask of the candidates (sorted by score) that are not among ``kept`` and score at least
    FILL_THRESHOLD: the boxes a swap may bring into the table."""
    out = ~(np.abs(cand_b[:, None] - kept[None]).max(-1) < 1e-4).any(1)
    return out & (cand_s >= FILL_THRESHOLD)


def _is_duplicate(a: np.ndarray, b: np.ndarray) -> bool:
    return rotated_iou(a, b) >= DUPLICATE_IOU


def _duplicate(boxes: np.ndarray, scores: np.ndarray, top: np.ndarray) -> int | None:
    """The index of the weaker box of the strongest pair that overlaps (rotated IoU >=
    DUPLICATE_IOU) and reads as the same card (``top``: each box's likeliest card), or None."""
    order = np.argsort(-scores, kind="stable")
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if top[a] == top[b] and _is_duplicate(boxes[a], boxes[b]):
                return int(b)
    return None


def _first_swap(kept: np.ndarray, kept_top: np.ndarray, kept_seats: np.ndarray | None,
                extra: np.ndarray, extra_top: np.ndarray) -> int | None:
    """The first of the ``extra`` boxes (by score) that duplicates no ``kept`` box and, added to
    them, makes four hands, leaving the ``kept`` boxes in their seats (``kept_seats``, when the
    table had seats before the swap); None if none does."""
    for c in range(len(extra)):
        if any(kept_top[m] == extra_top[c] and _is_duplicate(kept[m], extra[c])
               for m in range(len(kept))):
            continue
        seats = seat_labels(np.concatenate([kept, extra[c:c + 1]]))
        if seats is not None and (kept_seats is None or (seats[:-1] == kept_seats).all()):
            return c
    return None


def _groups(centres: np.ndarray, dist: float) -> np.ndarray:
    """Connected components of points closer than ``dist``: a label per point."""
    n = len(centres)
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < dist
    labels = np.full(n, -1, np.int64)
    for start in range(n):
        if labels[start] >= 0:
            continue
        labels[start] = start
        stack = [start]
        while stack:
            k = stack.pop()
            for m in np.nonzero(near[k] & (labels < 0))[0]:
                labels[m] = start
                stack.append(int(m))
    return labels


def combine_marks(probs: np.ndarray, ranks: np.ndarray | None, suits: np.ndarray | None,
                  rank_weight: float, suit_weight: float) -> np.ndarray:
    """``probs`` (N, 40) times ``ranks`` (N, 10) to the power ``rank_weight`` at each card's
    rank and ``suits`` (N, 4) to the power ``suit_weight`` at its suit, normalised; a part that
    is None (no such reader) or weighs 0 leaves them as they are.

    >>> p = np.full((1, 40), 1 / 40)
    >>> suits = np.array([[0.97, 0.01, 0.01, 0.01]])
    >>> out = combine_marks(p, None, suits, 0.5, 1.0)
    >>> round(float(out[0, CARD_IDS.index("12o")] / out[0, CARD_IDS.index("12c")]), 6)
    97.0
    """
    if len(probs) == 0:
        return probs
    out = probs
    if ranks is not None and rank_weight:
        out = out * ranks[:, RANK_OF] ** rank_weight
    if suits is not None and suit_weight:
        out = out * suits[:, SUIT_OF] ** suit_weight
    if out is probs:
        return probs
    return out / np.maximum(out.sum(1, keepdims=True), 1e-12)


def _read_marks(sess, cut: Callable[[np.ndarray], np.ndarray], image: np.ndarray, obbs: np.ndarray,
                cards: np.ndarray | None) -> np.ndarray | None:
    """Probabilities from a mark reader (None without one): ``cut`` takes its two views from
    each card rectified at INDEX_CROP (``cards``, or cut here from the photo)."""
    if sess is None or len(obbs) == 0:
        return None
    cards = _rectified(image, obbs) if cards is None else cards
    views = standardise(np.stack([cut(c) for c in cards]))
    return _softmax(sess.run(None, {sess.get_inputs()[0].name: views})[0])


def _rectified(image: np.ndarray, obbs: np.ndarray) -> np.ndarray:
    """Each box's card warped upright at INDEX_CROP (N, 192, 128, 3), for the mark readers."""
    return crop_cards(image, obbs, INDEX_CROP)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _covariance(b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, bb = b[:, 2] ** 2 / 12, b[:, 3] ** 2 / 12
    cos, sin = np.cos(b[:, 4]), np.sin(b[:, 4])
    return a * cos**2 + bb * sin**2, a * sin**2 + bb * cos**2, (a - bb) * cos * sin


def probiou_matrix(b1: np.ndarray, b2: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU of oriented boxes as Gaussians (as Ultralytics' NMS uses), all pairs."""
    a1, bb1, c1 = (v[:, None] for v in _covariance(b1))
    a2, bb2, c2 = (v[None] for v in _covariance(b2))
    dx = b1[:, None, 0] - b2[None, :, 0]
    dy = b1[:, None, 1] - b2[None, :, 1]
    den = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * dy**2 + (bb1 + bb2) * dx**2) / den * 0.25
    t2 = ((c1 + c2) * (-dx) * dy) / den * 0.5
    det = np.clip(a1 * bb1 - c1**2, 0, None) * np.clip(a2 * bb2 - c2**2, 0, None)
    t3 = np.log(den / (4 * np.sqrt(det) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bd) + eps)


def _probiou_nms(boxes: np.ndarray, scores: np.ndarray, thr: float) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    if len(order) == 0:
        return order
    iou = probiou_matrix(boxes[order], boxes[order])
    alive = np.ones(len(order), bool)
    for i in range(len(order)):
        if alive[i]:
            alive[i + 1:] &= iou[i, i + 1:] < thr
    return order[alive]


def _rotated_nms(boxes: np.ndarray, scores: np.ndarray, iou: float,
                 centre_frac: float = 0.2) -> np.ndarray:
    """Greedy NMS on rotated IoU; a box whose centre is within ``centre_frac`` of the short side
    of a kept box is the same card read at another angle, and is dropped too."""
    order = np.argsort(-scores, kind="stable")
    if len(order) == 0:
        return order.astype(np.int64)
    centres, sides = boxes[:, :2], boxes[:, 2:4]
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    short = sides.min(1)
    near = (dist < centre_frac * np.minimum(short[:, None], short[None])).tolist()
    # boxes whose circumscribed circles are apart do not overlap: the exact (costly) rotated IoU
    # only for the others, a few neighbours each (the result is the same)
    radius = np.hypot(sides[:, 0], sides[:, 1]) / 2
    touch = (dist <= 1.001 * (radius[:, None] + radius[None]) + 1).tolist() if iou > 0 else None
    keep: list[int] = []
    for i in order.tolist():
        dup = False
        for j in keep:
            if near[i][j] or ((touch is None or touch[i][j])
                              and rotated_iou(boxes[i], boxes[j]) >= iou):
                dup = True
                break
        if not dup:
            keep.append(i)
    return np.array(keep, np.int64)


def assign_unique(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Give each detection a different card: greedy on probability, best pair first.

    Returns (labels, probability of the given label, runner-up label) per detection.

    >>> p = np.array([[0.9, 0.1, 0.0], [0.8, 0.15, 0.05]])
    >>> assign_unique(p)[0].tolist()
    [0, 1]
    """
    n, k = probs.shape
    labels = np.full(n, -1, np.int64)
    work = probs.astype(np.float64).copy()
    for _ in range(min(n, k)):
        i, j = np.unravel_index(np.argmax(work), work.shape)
        labels[i] = j
        work[i, :] = -1
        work[:, j] = -1
    conf = probs[np.arange(n), labels]
    masked = probs.copy()
    masked[np.arange(n), labels] = -1
    alt = masked.argmax(1)
    return labels, conf, alt


def _quiet_opencv() -> None:
    """OpenCV logs its own decoding errors on stderr; we print one clear line instead."""
    with contextlib.suppress(AttributeError):  # builds without the logging utilities
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an image file as BGR, or raise ImageError with a clear Spanish message."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no existe el fichero")
    if p.is_dir():
        raise ImageError(f"{p}: es una carpeta, no una imagen")
    data = np.fromfile(str(p), np.uint8)
    _quiet_opencv()
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{p}: no es una imagen legible (¿fichero dañado o de otro tipo?)")
    return img


_DEFAULT: CardReader | None = None


def default_reader() -> CardReader:
    global _DEFAULT
    if _DEFAULT is None or _DEFAULT.folder != models_dir():
        _DEFAULT = CardReader()
    return _DEFAULT


@lru_cache(maxsize=4)
def _reader_for_deck_file(path: str, mtime_ns: int) -> CardReader:
    from vision.baraja import BarajaRegistrada

    return CardReader(baraja=BarajaRegistrada.load(path))


def reader_for_deck(path: str | os.PathLike[str] | None) -> CardReader:
    """The shipped reader, or one reading against the deck registered in ``path`` (an .npz of
    :mod:`vision.baraja`); kept while the file is unchanged. Raises BarajaError (a clear
    Spanish message) for a missing, unreadable or foreign registration."""
    if not path:
        return default_reader()
    from vision.baraja import BarajaError

    p = Path(path)
    if not p.is_file():
        raise BarajaError(f"{p}: no existe el fichero de la baraja registrada")
    return _reader_for_deck_file(str(p.resolve()), p.stat().st_mtime_ns)


def read_cards(image: np.ndarray | str | os.PathLike[str]) -> CardDetections:
    """Read the cards in a photo (BGR array or file path) with the shipped models."""
    return default_reader().read(image)
