"""The flag rules of the reader (vision.flags): the learned flag model against a registered
deck, its file, and which rule a reader uses."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vision import flags
from vision.assemble import AssemblySettings, replace_duplicates
from vision.classify import CardProbabilities
from vision.detect import DetectedBoxes
from vision.flags import FEATURES, LOW_CONFIDENCE_REGISTERED, FlagModel, card_features
from vision.images import load_image
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, FLAG_MODEL_FILE, REPO, models_dir, models_hashes
from vision.reader import CardReader, ReaderSettings
from vision.registered_deck import RegisteredDeck, classifier_hash
from vision.registration import register

HAVE_MODELS = (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")


def _model(threshold=0.5, weights=(0, 1, 0, 0, 0, 0), models=None, bias=0.0):
    return FlagModel(np.zeros(6), np.ones(6), np.array(weights, float), bias, threshold, models)


def _registration():
    return RegisteredDeck(np.eye(40, 8, dtype=np.float32), np.arange(40))


def test_features_grow_with_doubt():
    """Each feature is larger for the doubtful card of a pair: a weaker box, a less sure card,
    marks less sure of it or preferring another rank or suit."""
    sure = card_features([0.9], [0.999], [[0.95, 0.95]], [[0.99, 0.99]])[0]
    weak = card_features([0.4], [0.6], [[0.2, 0.7]], [[0.3, 0.6]])[0]
    assert sure.shape == (len(FEATURES),)
    assert weak[0] < sure[0] and weak[1] > sure[1]  # log det, log(1 - p)
    assert weak[2] < sure[2] and weak[3] < sure[3]  # the marks' probability of the card
    assert weak[4] > sure[4] == 0 and weak[5] > sure[5] == 0  # another rank / suit preferred
    assert np.isfinite(card_features([0.0], [1.0], [[0.0, 1.0]], [[0.0, 1.0]])).all()


def test_a_model_round_trips_and_bad_files_are_clear_errors(tmp_path):
    m = _model(0.3, models={"carta_cls.onnx": "abc"})
    path = m.save(tmp_path / "d.json")
    back = flags.load(path)
    assert back.threshold == 0.3 and back.models == {"carta_cls.onnx": "abc"}
    X = np.random.default_rng(2).normal(0, 1, (20, 6))
    assert (back.probability(X) == m.probability(X)).all()
    assert not list(tmp_path.glob(".dudas-*"))
    bad = json.loads(path.read_text())
    bad["rasgos"] = ["otro"]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "junk.json").write_text("{")
    for name in ("bad.json", "junk.json", "none.json"):
        with pytest.raises(ValueError, match="modelo de dudas"):
            flags.load(tmp_path / name)


def test_a_model_fitted_with_other_model_files_is_not_used(tmp_path):
    (tmp_path / CLASSIFIER_FILE).write_bytes(b"classifier one")
    _model(models=models_hashes(tmp_path)).save(tmp_path / FLAG_MODEL_FILE)
    assert flags.for_folder(tmp_path) is not None
    (tmp_path / CLASSIFIER_FILE).write_bytes(b"classifier two, retrained")
    assert flags.for_folder(tmp_path) is None  # the product threshold, safe with any models
    (tmp_path / FLAG_MODEL_FILE).write_text("not json")
    assert flags.for_folder(tmp_path) is None


def test_the_reader_flags_by_the_model_only_against_a_registered_deck(tmp_path):
    model = _model(threshold=0.5, bias=np.log(10))  # flags the cards under 0.9, whatever the box
    det = np.float32([0.5, 0.95, 0.99])
    cls = np.float32([0.99999, 0.85, 0.95])
    data = {"corner_index": np.ones((3, 2), np.float32), "pintas": np.ones((3, 2), np.float32)}
    rule = CardReader(tmp_path, deck=_registration(), flag_model=model).flags
    assert rule.model is model
    assert rule.flagged(det, cls, data).tolist() == [False, True, False]
    # without the marks' probabilities the product rule: det x card under 0.9
    product = [True, True, False]
    assert LOW_CONFIDENCE_REGISTERED == 0.9 and rule.flagged(det, cls, {}).tolist() == product
    # the folder's own model, unless switched off, or a threshold is given, or no deck registered
    model.save(tmp_path / FLAG_MODEL_FILE)
    folders = CardReader(tmp_path, deck=_registration()).flags
    assert folders.model is not None and folders.flagged(det, cls, data).tolist() == [False, True, False]
    off = CardReader(tmp_path, ReaderSettings(flag_model=False), deck=_registration()).flags
    assert off.model is None and off.flagged(det, cls, data).tolist() == product
    fixed = CardReader(tmp_path, ReaderSettings(low_confidence=0.9), deck=_registration(), flag_model=model).flags
    assert fixed.model is None and fixed.threshold == 0.9
    assert CardReader(tmp_path, flag_model=model).flags.model is None  # not registered


def _table_obb() -> np.ndarray:
    """16 oriented boxes in four hands of four (bottom, right, top, left), in seat order."""
    centres = {0: (640, 800), 1: (1100, 480), 2: (640, 150), 3: (180, 480)}
    rows = []
    for seat, (gx, gy) in centres.items():
        for j in range(4):
            off = (j - 1.5) * 75
            rows.append((gx + off, gy, 60, 90, 0.0) if seat in (0, 2) else (gx, gy + off, 90, 60, 0.0))
    return np.array(rows, np.float32)


def test_a_swapped_duplicate_brings_its_marks_along():
    """When a box read twice gives way to a left-out one, the rank and suit probabilities of
    the kept boxes follow them (they feed the flag model)."""
    table = _table_obb()

    def classify_boxes(obbs: np.ndarray) -> CardProbabilities:
        # each box reads as the card of the nearest true box, its marks' "probabilities" tied
        # to where the box is
        near = np.linalg.norm(obbs[:, None, :2] - table[None, :, :2], axis=2).argmin(1)
        probs = np.full((len(obbs), 40), 0.01 / 39, np.float32)
        probs[np.arange(len(obbs)), near] = 0.99
        return CardProbabilities(probs, np.repeat(obbs[:, :1] / 1000, 10, 1), np.repeat(obbs[:, 1:2] / 1000, 4, 1))

    twice = table[1] + np.float32([6, 4, 0, 0, 0.05])  # a second box on card 1
    boxes = np.concatenate([table[[0, 1]], twice[None], table[3:]])  # card 2 left out
    scores = np.float32([0.9, 0.9, 0.5] + [0.9] * 13)
    detected = DetectedBoxes(
        boxes, scores, np.concatenate([boxes, table[2:3]]), np.concatenate([scores, np.float32([0.3])])
    )
    parts = classify_boxes(boxes)
    new_b, _, new_parts, _ = replace_duplicates(
        boxes, scores, parts, parts.combined(0.5, 0.5), detected, classify_boxes, AssemblySettings(0.5, 0.5)
    )
    assert any(np.allclose(b, table[2]) for b in new_b)  # the left-out card came in
    assert not any(np.allclose(b, twice) for b in new_b)
    assert np.allclose(new_parts.ranks[:, 0], new_b[:, 0] / 1000)
    assert np.allclose(new_parts.suits[:, 0], new_b[:, 1] / 1000)


@needs_models
def test_the_shipped_flag_model_belongs_to_the_shipped_models():
    """models/carta_dudas.json was fitted with the models in models/: retraining them without
    fitting it again (python -m training.cards.flag_model ajustar) would silently switch it off."""
    model = flags.for_folder(models_dir())
    assert model is not None and 0 < model.threshold < 1
    registration = replace(_registration(), model=classifier_hash(models_dir()))
    assert CardReader(deck=registration).flags.model is model


@needs_models
def test_the_example_table_read_against_its_registration_flags_by_the_model():
    photos = [REPO / "examples" / "baraja" / f"{s}.jpg" for s in ("oros", "copas", "espadas", "bastos")]
    deck, _ = register(CardReader(), photos)
    dets = CardReader(deck=deck).read(load_image(REPO / "examples" / "mesa.jpg"))
    assert set(dets.data) == {"corner_index", "pintas"} and dets.data["corner_index"].shape == (16, 2)
    X = card_features(dets.det_confidence, dets.cls_confidence, dets.data["corner_index"], dets.data["pintas"])
    model = flags.for_folder(models_dir())
    assert (dets.low_confidence >= model.flagged(X)).all()
    assert dets[dets.low_confidence].data["corner_index"].shape == (int(dets.low_confidence.sum()), 2)
