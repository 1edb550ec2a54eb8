"""Read the cards in a photo of the table: ONNX Runtime + numpy + OpenCV, no torch.

A photo goes through five stages, each in its own module, each taking the previous stage's
result and handing its own on; :class:`CardReader` only composes them:

1. detect (:mod:`vision.detect`): the detector's candidate boxes and the table's boxes;
2. cut out (:mod:`vision.cutout`): each box's card warped upright, at the readers' sizes;
3. classify (:mod:`vision.classify`): the card probabilities of the classifier (or of the
   registered deck, :mod:`vision.registered_deck`), the corner index's rank and the pintas' suit;
4. assemble (:mod:`vision.assemble`): one card per box, each card once, duplicates and taken
   cards resolved; then the seats (:mod:`vision.seats`);
5. flag (:mod:`vision.flags`): the doubtful cards the user confirms; without a registered
   deck, also the cards their counted pips or their corner index contradict
   (:mod:`vision.crosscheck`).

The model files and their loading are :mod:`vision.models`. Settings are one frozen
:class:`ReaderSettings` given at construction.

    >>> from vision.reader import read_cards            # doctest: +SKIP
    >>> dets = read_cards("examples/mesa.jpg")          # doctest: +SKIP
    >>> dets.hands                                       # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS
from vision.arrays import Floats, Image, Ints, Mask
from vision.assemble import (
    BOX_EVIDENCE,
    CARD_EVIDENCE_BOXES,
    PIP_PENALTY,
    UNFAMILIAR_DECK,
    AssemblySettings,
    Table,
    assemble,
    card_evidence,
    marks_show_cards,
    shows_cards,
)
from vision.classify import BOTH_WAYS, INDEX_WEIGHT, PINTA_WEIGHT, CardProbabilities, Classifier, combine_marks
from vision.crosscheck import CrossCheck, countable, cross_check
from vision.cutout import Cutouts, rectified_under
from vision.detect import DET_THRESHOLD, TABLE_CARDS, DetectedBoxes, Detector
from vision.detections import CardDetections
from vision.flags import LOW_CONFIDENCE, FlagModel, FlagRule, flag_rule
from vision.geometry import obb_to_xyxy
from vision.images import ImageError, as_bgr, load_for_reading, load_image
from vision.models import DEFAULT_THREADS, DETECTOR_FILE, models_dir
from vision.pips import pip_counts
from vision.registered_deck import DeckError, RegisteredDeck
from vision.scale import SURE_ENOUGH, boxes_back, sureness, zoom_factor, zoomed_out
from vision.seats import assign_seats, seat_labels

__all__ = [
    "CardReader",
    "ImageError",
    "ReaderSettings",
    "default_reader",
    "load_image",
    "read_cards",
    "reader_for_deck",
    "reader_for_deck_bytes",
]

# The flag model's threshold against a deck learned from confirmed hands, as a share of the one
# fitted on registered decks: at the full threshold a half-hidden 7 de oros read as the 6 passed
# unflagged (flag probability 0.035 against 0.0377) on one of 30 generated Naipes Libres tables
# of a partida (training.cards.partida); a learned deck holds fewer examples of each card.
LEARNED_MARGIN = 0.75

NO_CARDS = "no se ve ninguna carta en la foto"
MORE_THAN_A_TABLE = "se ven {n} cartas, más de las 16 de una mesa: ¿hay cartas de otra mano en la foto?"
UNFAMILIAR_WARNING = (
    "las cartas no se parecen a las barajas que conoce el lector: confirma "
    "cada carta o registra tu baraja (mus baraja registrar)"
)


@dataclass(frozen=True)
class ReaderSettings:
    """How a reader reads. ``low_confidence``: flag under this detector x card probability
    instead of the default rules (:mod:`vision.flags`); ``flag_model``: use the folder's learned
    flag model against a registered deck; the others switch steps of the stages."""

    threads: int = DEFAULT_THREADS
    det_threshold: float = DET_THRESHOLD
    low_confidence: float | None = None
    flag_model: bool = True
    index_weight: float = INDEX_WEIGHT
    pinta_weight: float = PINTA_WEIGHT
    both_ways: bool = BOTH_WAYS
    replace_duplicates: bool = True
    drop_taken: bool = True
    zoom_out: bool = True  # read a hand filling the frame again zoomed out (vision.scale)
    # on an unfamiliar deck, every rank but a number card's counted pips (vision.pips) weighs this
    # (1: the pips are not counted)
    pip_penalty: float = PIP_PENALTY
    # without a deck, classify with the folder's int8 classifier where it has one (vision.models)
    int8_classifier: bool = True
    # the generic reader's cards checked against their counted pips and their corner index
    # (vision.crosscheck): a card they contradict is flagged
    cross_check: bool = True


class CardReader:
    """The reading pipeline of one folder of models, with fixed settings and optionally a
    registered deck; cheap to create, it loads the models on first read. ``flag_model``: a
    learned flag model to use instead of the folder's (against a registered deck)."""

    def __init__(
        self,
        folder: str | os.PathLike[str] | None = None,
        settings: ReaderSettings | None = None,
        deck: RegisteredDeck | None = None,
        flag_model: FlagModel | None = None,
    ):
        self.folder = Path(folder) if folder else models_dir()
        self.settings = settings or ReaderSettings()
        self.deck = deck
        s = self.settings
        self.detector = Detector(self.folder / DETECTOR_FILE, s.threads, s.det_threshold)
        self.classifier = Classifier(
            self.folder, s.threads, deck, s.index_weight, s.pinta_weight, s.both_ways, s.int8_classifier
        )
        # whether a photo shows cards at all is the generic classifier's judgement, even
        # against a registered deck (see vision.assemble.CARD_EVIDENCE)
        self._generic: Classifier | None = None
        if deck is not None and self.classifier.network_file.is_file():
            deck.check_model(self.folder)
        self._flag_model = flag_model

    @property
    def flags(self) -> FlagRule:
        """The rule that flags doubtful cards (see :func:`vision.flags.flag_rule`)."""
        use = self._flag_model if self._flag_model is not None else self.settings.flag_model
        return flag_rule(self.folder, self.deck is not None, self.settings.low_confidence, use)

    def load(self) -> CardReader:
        """Load the ONNX models now (otherwise the first read does)."""
        _ = self.detector.session
        self.classifier.load()
        return self

    def read(self, image: Image | str | os.PathLike[str]) -> CardDetections:
        """The cards in a photo (a BGR array or a file path), with seats and flags. A file is
        read as ``mus leer`` reads it: a big JPEG decoded reduced
        (:func:`vision.images.load_for_reading`), the boxes in the photo's own pixels."""
        if isinstance(image, np.ndarray):
            return self._read(as_bgr(image))
        img, factor = load_for_reading(image)
        return self._read(img).scaled(factor)

    def _read(self, img: Image) -> CardDetections:
        """:meth:`read` of a BGR image."""
        h, w = img.shape[:2]
        detected = self._detect(img)
        if len(detected) == 0:
            return CardDetections.empty([NO_CARDS], (w, h))
        if len(detected) > len(CARD_IDS):  # a deck has 40 cards: keep the 40 best boxes
            detected = detected.best(len(CARD_IDS))
        cut, cutouts = detected.boxes, self.classifier.cut_out(img, detected.boxes)
        parts = self.classifier.classify(cutouts)
        if len(detected) != TABLE_CARDS or seat_labels(detected.boxes) is None:
            # not a table of 16 in four hands: only what looks like cards is cards
            evidence = self._card_evidence(detected.scores, cutouts, parts)
            keep = evidence >= BOX_EVIDENCE
            if not shows_cards(evidence) or not keep.any():
                return CardDetections.empty([NO_CARDS], (w, h))
            if len(detected) >= CARD_EVIDENCE_BOXES and not marks_show_cards(detected.scores, parts):
                return CardDetections.empty([NO_CARDS], (w, h))  # a patterned cloth: no rank, no suit
            detected, parts = detected.rows(keep), parts.rows(keep)
        elif not marks_show_cards(detected.scores, parts):  # a patterned cloth, not a table
            return CardDetections.empty([NO_CARDS], (w, h))

        def count_pips(boxes: Floats) -> Ints:
            return pip_counts(img, boxes, rectified_under(img, boxes, cut, cutouts.rectified))

        table = assemble(
            detected,
            parts,
            lambda boxes: self.classifier.classify_boxes(img, boxes),
            self._assembly_settings(),
            count_pips if self.settings.pip_penalty < 1 else None,
        )
        if len(table) == 0:
            return CardDetections.empty([NO_CARDS], (w, h))
        check = None
        if self.settings.cross_check and self.deck is None and not table.unfamiliar:
            table, check = self._cross_check(img, table, cut, cutouts.rectified)
        return self._detections(table, (w, h), check)

    def _cross_check(self, img: Image, table: Table, cut: Floats, rectified: Image | None) -> tuple[Table, CrossCheck]:
        """The generic reader's cards checked against their pips and corner index
        (:mod:`vision.crosscheck`): the table with any card moved to its counted rank, and the
        check. ``rectified``: the cards already cut at INDEX_CROP under the boxes ``cut`` (or
        None), reused where a card's box is one of them."""
        pips = np.zeros(len(table), np.int64)
        ask = countable(table.labels, table.alt, table.parts.ranks)
        if ask.any():
            boxes = table.boxes[ask]
            pips[ask] = pip_counts(img, boxes, rectified_under(img, boxes, cut, rectified))
        check = cross_check(table.labels, table.alt, pips, table.parts.ranks)
        changed = check.labels != table.labels
        if changed.any():
            s = self.settings
            probs = table.parts.combined(s.index_weight, s.pinta_weight)
            conf = np.where(changed, probs[np.arange(len(table)), check.labels], table.cls_conf)
            table = replace(table, labels=check.labels, cls_conf=conf.astype(table.cls_conf.dtype))
        return replace(table, alt=check.alt), check

    def _detect(self, img: Image) -> DetectedBoxes:
        """Stage 1 at the scale the detector knows: when the first pass's cards are larger
        than that (a hand filling the frame), a second pass on the photo zoomed out, its boxes
        mapped back onto the photo, kept if the detector is at least as sure of them
        (:mod:`vision.scale`)."""
        detected = self.detector.detect(img)
        factor = zoom_factor(detected.boxes, (img.shape[1], img.shape[0]))
        if not self.settings.zoom_out or factor == 1.0 or sureness(detected.scores) >= SURE_ENOUGH:
            return detected
        side = int(self.detector.session.get_inputs()[0].shape[2])
        canvas, scale, offset = zoomed_out(img, factor, side)
        zoomed = self.detector.detect(canvas)
        if len(zoomed) == 0 or sureness(zoomed.scores) < sureness(detected.scores):
            return detected
        return boxes_back(zoomed, scale, offset)

    def _card_evidence(self, scores: Floats, cutouts: Cutouts, parts: CardProbabilities) -> Floats:
        """How much each box looks like a card (:func:`vision.assemble.card_evidence`): by the
        generic classifier, which reads the cards again against a registered deck."""
        if self.deck is None:
            generic = parts
        else:
            if self._generic is None:
                s = self.settings
                # the fp32 classifier: nothing read against a deck depends on the int8 one
                self._generic = Classifier(
                    self.folder, s.threads, None, s.index_weight, s.pinta_weight, s.both_ways, fast=False
                )
            generic = self._generic.classify(cutouts)
        return card_evidence(scores, generic, self.settings.index_weight, self.settings.pinta_weight)

    def _partial_flags(self, table: Table, data: dict[str, Floats]) -> Mask:
        """Against a deck learned from some cards only, each card flagged as the reader of its
        kind flags it (:func:`vision.classify.partial_deck` split back into its two sources):

        - a card the deck knows, as a registered deck does, on the deck's own probability among
          the cards it knows (the flag model at LEARNED_MARGIN of its threshold, or its product
          rule, weighing the detector's score as they do), and on the generic classifier's
          belief that the card is one of those it knows at all (that share under
          LOW_CONFIDENCE): a card the deck never saw taken for one it knows stays flagged;
        - a card it does not know, as the generic reader does (the product rule), every one of
          them when they look like no deck the classifier knows (:func:`vision.assemble.unfamiliar`,
          judged on those cards alone); the whole table is never called unfamiliar for them.

        (Judging the generic reader's softer probabilities with the flag model fitted on
        registered decks flagged twice the right cards the generic reader does: docs/experiments.md.)"""
        assert self.deck is not None
        known = self.deck.known
        n = len(table)
        rows = np.arange(n)
        mine = known[table.labels]
        out = np.zeros(n, bool)
        if mine.any():
            mass = table.parts.cards[:, known].sum(1)  # the generic share of the cards it knows
            own = np.where(known[None, :], table.parts.cards / np.maximum(mass, 1e-12)[:, None], 0.0)
            s = self.settings
            own = combine_marks(own, table.parts.ranks, table.parts.suits, s.index_weight, s.pinta_weight)
            conf = own[rows, table.labels]
            part = {k: v[mine] for k, v in data.items()}
            rule = self.flags
            if rule.model is not None:  # fitted on registered decks: a margin for a deck of few examples
                rule = FlagRule(rule.threshold, replace(rule.model, threshold=rule.model.threshold * LEARNED_MARGIN))
            out[mine] = rule.flagged(table.det_scores[mine], conf[mine], part) | (mass[mine] < LOW_CONFIDENCE)
        unknown = ~mine
        if unknown.any():
            generic_conf = table.parts.cards[rows, table.labels][unknown]
            if float(np.mean(generic_conf)) < UNFAMILIAR_DECK:
                out[unknown] = True
            else:
                rule = flag_rule(self.folder, False, self.settings.low_confidence, False)
                part = {k: v[unknown] for k, v in data.items()}
                out[unknown] = rule.flagged(table.det_scores[unknown], table.cls_conf[unknown], part)
        return out | table.moved

    def _assembly_settings(self) -> AssemblySettings:
        s = self.settings
        return AssemblySettings(
            s.index_weight,
            s.pinta_weight,
            self.deck is not None,
            self.classifier.pinta_reader is not None,
            s.replace_duplicates,
            s.drop_taken,
            s.pip_penalty,
        )

    def _detections(self, table: Table, image_size: tuple[int, int], check: CrossCheck | None = None) -> CardDetections:
        """Stage 5 and the result: the flags, the seats and the warnings; ``check``: the
        cross-check of the generic reader's cards (:mod:`vision.crosscheck`), which adds its
        flags."""
        data = table.parts.mark_data(table.labels)
        if table.unfamiliar:
            low = np.ones(len(table), bool)
        elif self.deck is not None and self.deck.partial and len(table):
            low = self._partial_flags(table, data)
        else:
            low = self.flags.flagged(table.det_scores, table.cls_conf, data) | table.moved
        fields: dict[str, np.ndarray] = dict(data)
        if check is not None:  # why a card is flagged, where the check ran
            low = low | check.contradicted
            fields.update(pips=check.pips.astype(np.int8), contradicted=check.contradicted)
        dets = CardDetections(
            xyxy=obb_to_xyxy(table.boxes).astype(np.float32),
            obb=table.boxes,
            card_ids=np.array([CARD_IDS[i] for i in table.labels], object),
            confidence=(table.det_scores * table.cls_conf).astype(np.float32),
            det_confidence=table.det_scores,
            cls_confidence=table.cls_conf.astype(np.float32),
            alternatives=np.array([CARD_IDS[i] for i in table.alt], object),
            low_confidence=low,
            seat=np.full(len(table), -1, np.int8),
            warnings=[],
            image_size=image_size,
            data=fields,
            unfamiliar=table.unfamiliar,
        )
        dets = assign_seats(dets)
        if len(dets) > TABLE_CARDS:
            dets.warnings.insert(0, MORE_THAN_A_TABLE.format(n=len(dets)))
        if dets.unfamiliar:  # the field is for the screens, the sentence for the player
            dets.warnings.append(UNFAMILIAR_WARNING)
        if low.any():
            doubtful = ", ".join(
                f"{c} (¿o {a}?)"
                for c, a in zip(dets.card_ids[dets.low_confidence], dets.alternatives[dets.low_confidence], strict=True)
            )
            dets.warnings.append(f"confirma las cartas dudosas: {doubtful}")
        return dets


_DEFAULT: CardReader | None = None


def default_reader() -> CardReader:
    """The shipped models' reader, kept for the process (a new one if $MUSMESA_MODELS changes)."""
    global _DEFAULT
    if _DEFAULT is None or _DEFAULT.folder != models_dir():
        _DEFAULT = CardReader()
    return _DEFAULT


@lru_cache(maxsize=4)
def _reader_for_deck_file(path: str, mtime_ns: int) -> CardReader:
    return CardReader(deck=RegisteredDeck.load(path))


def reader_for_deck(path: str | os.PathLike[str] | None) -> CardReader:
    """The shipped reader, or one reading against the deck registered in ``path`` (an .npz of
    :mod:`vision.registered_deck`); kept while the file is unchanged. Raises DeckError (a clear
    Spanish message) for a missing, unreadable or foreign registration."""
    if not path:
        return default_reader()
    p = Path(path)
    if not p.is_file():
        raise DeckError(f"{p}: no existe el fichero de la baraja registrada")
    return _reader_for_deck_file(str(p.resolve()), p.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _reader_for_deck_bytes(digest: str, data: bytes) -> CardReader:
    return CardReader(deck=RegisteredDeck.from_bytes(data))


def reader_for_deck_bytes(data: bytes | None) -> CardReader:
    """As :func:`reader_for_deck`, for a registration kept as the .npz file's bytes (a
    partida's deck in the server's database); kept while the same bytes come back."""
    if not data:
        return default_reader()
    return _reader_for_deck_bytes(hashlib.sha256(data).hexdigest(), data)


def read_cards(image: Image | str | os.PathLike[str]) -> CardDetections:
    """Read the cards in a photo (BGR array or file path) with the shipped models."""
    return default_reader().read(image)
