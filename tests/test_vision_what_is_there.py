"""Read what is there: no table of 16 hunted for on a close-up, loose cards or a photo of
anything else; a table completed only where the sure cards nearly make one (vision.detect,
vision.assemble, vision.reader)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import DET_THRESHOLD, FILL_MIN_SURE, choose_table, part_of_larger
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

needs_models = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)


def _table_obb() -> np.ndarray:
    """16 boxes in four hands (seat order), as tests/test_vision_seats.py lays them."""
    centres = {0: (640, 800), 1: (1100, 480), 2: (640, 150), 3: (180, 480)}
    rows = []
    for seat, (gx, gy) in centres.items():
        for j in range(4):
            off = (j - 1.5) * 75
            rows.append((gx + off, gy, 60, 90, 0.0) if seat in (0, 2) else (gx, gy + off, 90, 60, 0.0))
    return np.array(rows, np.float32)


def _closeup() -> np.ndarray:
    """One hand of four filling the photo: big boxes in a row."""
    return np.array([(250 + 260 * k, 480, 240, 370, 0.0) for k in range(4)], np.float32)


def test_a_closeup_is_not_filled_towards_a_table():
    weak = np.array([(600, 100, 80, 120, 0.3), (100, 850, 90, 60, 0.0)] * 7, np.float32)
    weak[:, 0] += np.arange(14) * 30
    boxes = np.concatenate([_closeup(), weak])
    scores = np.float32([0.9, 0.85, 0.8, 0.7, *np.linspace(0.3, 0.11, 14).tolist()])
    chosen, chosen_scores = choose_table(boxes, scores, DET_THRESHOLD)
    assert np.array_equal(chosen, _closeup()) and (chosen_scores >= DET_THRESHOLD).all()


def test_a_table_with_a_gap_where_a_card_must_be_is_completed():
    """15 sure cards in four hands, one hand short, and the weak box of the half-hidden card
    where the gap is: 16 cards, the weak one keeping its low score (it will be flagged)."""
    table = _table_obb()
    phantom = np.float32([[640, 480, 60, 90, 0.0]])  # a weak box in the middle of the cloth
    boxes = np.concatenate([table[:15], table[15:], phantom])
    scores = np.float32([0.9] * 15 + [0.2, 0.15])
    chosen, chosen_scores = choose_table(boxes, scores, DET_THRESHOLD)
    assert len(chosen) == 16 and (np.abs(chosen - table[15]).max(1) < 1e-3).any()
    assert chosen_scores.min() == np.float32(0.2)
    # the same weak boxes when the sure cards are too few for a table: only the sure ones
    few = FILL_MIN_SURE - 1
    boxes = np.concatenate([table[:few], table[few:], phantom])
    scores = np.float32([0.9] * few + [0.2] * (16 - few) + [0.15])
    chosen, _ = choose_table(boxes, scores, DET_THRESHOLD)
    assert len(chosen) == few


def test_weak_boxes_that_do_not_make_four_hands_are_not_added():
    """15 sure cards and weak boxes on the cloth where no card is missing from a hand."""
    table = _table_obb()
    phantoms = np.float32([[640, 480, 60, 90, 0.0], [900, 300, 60, 90, 0.0]])
    boxes = np.concatenate([table[:15], phantoms])
    chosen, _ = choose_table(boxes, np.float32([0.9] * 15 + [0.2, 0.15]), DET_THRESHOLD)
    assert len(chosen) == 15


def test_a_box_over_part_of_a_larger_better_box_is_not_a_card():
    big = _closeup()
    corner = np.float32([[big[1, 0] - 50, big[1, 1] - 80, 120, 185, 0.05]])  # a quarter of card 1
    neighbour = big[2:3].copy()
    neighbour[0, 0] -= 120  # overlapping card 2 by about half: a card of an overlapping row
    boxes = np.concatenate([big[:2], corner, neighbour])
    assert part_of_larger(boxes, np.float32([0.9, 0.85, 0.5, 0.4])).tolist() == [False, False, True, False]
    # a better small box is never part of a worse larger one
    assert not part_of_larger(boxes, np.float32([0.3, 0.2, 0.9, 0.1])).any()


class _FixedClassifier:
    """Stands in for vision.classify.Classifier: the given probabilities, no mark readers."""

    pinta_reader = None

    def __init__(self, probs):
        self.probs = probs

    def cut_out(self, image, obbs):
        from vision.cutout import Cutouts

        return Cutouts(obbs, None, None)  # the boxes stand for their crops: nothing is cut

    def classify(self, obbs):
        from vision.classify import CardProbabilities

        return CardProbabilities(self.probs[: len(obbs)], None, None)

    def classify_boxes(self, image, obbs):
        return self.classify(obbs)


def _reader_seeing(boxes, scores, probs):
    from vision.detect import DetectedBoxes
    from vision.reader import CardReader, ReaderSettings

    # the boxes are read as given, at the photo's own scale (the zoom-out: test_vision_scale.py)
    reader = CardReader(folder="/nonexistent", settings=ReaderSettings(zoom_out=False))
    reader.detector.detect = lambda img: DetectedBoxes(boxes, scores, boxes, scores)
    reader.classifier = _FixedClassifier(probs)
    return reader


def _probs(confidences) -> np.ndarray:
    probs = np.full((len(confidences), 40), 0.0, np.float32)
    for k, c in enumerate(confidences):
        probs[k] = (1 - c) / 39
        probs[k, k] = c
    return probs


def test_boxes_that_look_like_no_card_are_no_cards():
    """Four boxes the detector half believes and the classifier does not: a photo of something
    else, read as none with the usual message; the same boxes read as cards are four cards."""
    from vision.reader import NO_CARDS

    image = np.zeros((960, 1280, 3), np.uint8)
    scores = np.float32([0.7, 0.6, 0.5, 0.45])
    dets = _reader_seeing(_closeup(), scores, _probs([0.3, 0.25, 0.4, 0.2])).read(image)
    assert len(dets) == 0 and dets.warnings == [NO_CARDS]
    dets = _reader_seeing(_closeup(), scores, _probs([0.95, 0.9, 0.97, 0.9])).read(image)
    assert len(dets) == 4
    # a lone box needs more: one card alone is the commonest phantom
    lone = _reader_seeing(_closeup()[:1], scores[:1], _probs([0.6]))
    assert len(lone.read(image)) == 0
    assert len(_reader_seeing(_closeup()[:1], np.float32([0.9]), _probs([0.9])).read(image)) == 1


def test_a_box_that_looks_like_no_card_among_cards_is_dropped():
    from vision.assemble import BOX_EVIDENCE

    boxes = np.concatenate([_closeup(), np.float32([[640, 900, 90, 60, 0.0]])])
    scores = np.float32([0.9, 0.9, 0.9, 0.9, 0.6])
    low = (BOX_EVIDENCE - 0.05) / 0.6
    dets = _reader_seeing(boxes, scores, _probs([0.95, 0.95, 0.95, 0.95, low])).read(np.zeros((960, 1280, 3), np.uint8))
    assert len(dets) == 4 and 0.6 not in dets.det_confidence.tolist()


def test_more_than_16_cards_are_all_read_and_said():
    table = _table_obb()
    extra = np.float32([[900, 700, 60, 90, 0.0], [400, 300, 60, 90, 0.0]])
    boxes = np.concatenate([table, extra])
    dets = _reader_seeing(boxes, np.full(18, 0.95, np.float32), _probs([0.95] * 18)).read(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(dets) == 18 and dets.hands is None
    assert "se ven 18 cartas, más de las 16 de una mesa" in dets.warnings[0]


@needs_models
@pytest.mark.parametrize("name", ["coffee", "chelsea", "astronaut", "coins", "text", "rocket"])
def test_real_photos_with_no_card_read_as_none(name):
    pytest.importorskip("skimage")
    from training.cards.evaluate import negative_photo
    from vision.reader import NO_CARDS, read_cards

    dets = read_cards(negative_photo(name))
    assert len(dets) == 0 and dets.warnings == [NO_CARDS]


@needs_models
def test_the_example_table_still_reads_exactly():
    import json
    from pathlib import Path

    from vision.reader import read_cards

    repo = Path(__file__).resolve().parent.parent
    truth = [sorted(h.split()) for h in json.loads((repo / "examples" / "mesa.json").read_text())["manos"]]
    dets = read_cards(str(repo / "examples" / "mesa.jpg"))
    assert dets.hands is not None and [sorted(h) for h in dets.hands] == truth
