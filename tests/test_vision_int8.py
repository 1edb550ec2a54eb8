"""The int8 classifier (models/carta_cls_int8.onnx): the generic reader classifies with it, while
everything a registered or learned deck is tied to (its features, the classifier's hash) stays
the fp32 file's."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, FAST_CLASSIFIER_FILE, file_hash, models_dir, session

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = (REPO / "examples" / "mesa.jpg", REPO / "examples" / "mano.jpg")

pytestmark = pytest.mark.skipif(
    not all((models_dir() / f).is_file() for f in (DETECTOR_FILE, CLASSIFIER_FILE, FAST_CLASSIFIER_FILE)),
    reason="the trained models are not in models/",
)


def test_generic_reader_classifies_with_the_int8_file():
    from vision.classify import Classifier

    c = Classifier(models_dir())
    assert c.generic_network is session(str(models_dir() / FAST_CLASSIFIER_FILE), c.threads)
    assert c.network is session(str(models_dir() / CLASSIFIER_FILE), c.threads)
    assert Classifier(models_dir(), fast=False).generic_network is c.network


def test_a_deck_reads_with_the_fp32_file_and_keeps_its_hash():
    from vision.classify import Classifier
    from vision.registered_deck import classifier_hash

    deck = _a_deck()
    c = Classifier(models_dir(), deck=deck)
    assert c.generic_network is c.network
    assert classifier_hash(models_dir()) == file_hash(models_dir() / CLASSIFIER_FILE)
    assert classifier_hash(models_dir()) != file_hash(models_dir() / FAST_CLASSIFIER_FILE)


def test_features_come_from_the_fp32_file():
    """What registers, learns and strengthens a deck (run_network) is the fp32 classifier's."""
    from vision.reader import CardReader

    reader = CardReader().load()
    crops = np.random.default_rng(0).integers(0, 256, (3, 96, 64, 3), np.uint8)
    logits, feats = reader.classifier.run_network(crops)
    sess = session(str(models_dir() / CLASSIFIER_FILE), reader.classifier.threads)
    want = sess.run(None, {sess.get_inputs()[0].name: crops.transpose(0, 3, 1, 2).astype(np.float32) / 255})
    np.testing.assert_array_equal(logits, want[0])
    np.testing.assert_array_equal(feats, want[1])


def test_a_folder_without_it_reads_with_the_fp32_file(tmp_path):
    from vision.classify import Classifier

    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        shutil.copy(models_dir() / name, tmp_path / name)
    c = Classifier(tmp_path)
    assert c.generic_network is c.network


@pytest.mark.parametrize("photo", EXAMPLES, ids=lambda p: p.stem)
def test_int8_and_fp32_read_the_examples_alike(photo):
    """The same cards, seats and flags; the confidences within a few hundredths."""
    from vision.reader import CardReader, ReaderSettings

    fast = CardReader().read(photo)
    slow = CardReader(settings=ReaderSettings(int8_classifier=False)).read(photo)
    assert len(fast) > 0
    assert fast.card_ids.tolist() == slow.card_ids.tolist()
    assert fast.seat.tolist() == slow.seat.tolist()
    assert fast.low_confidence.tolist() == slow.low_confidence.tolist()
    np.testing.assert_allclose(fast.cls_confidence, slow.cls_confidence, atol=0.05)


def _a_deck():
    """A registered deck of made-up features (only its presence matters here)."""
    from vision.registered_deck import RegisteredDeck

    rng = np.random.default_rng(0)
    feats = rng.standard_normal((40, 960)).astype(np.float32)
    feats /= np.linalg.norm(feats, axis=1, keepdims=True)
    return RegisteredDeck(features=feats, labels=np.arange(40), model="")
