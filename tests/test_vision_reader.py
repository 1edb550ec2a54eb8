"""The shipped card reader (models/*.onnx through ONNX Runtime) on generated photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training.cards.decks import DECKS, decks_root
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
EXAMPLE_TRUTH = REPO / "examples" / "mesa.json"

pytestmark = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)


def test_reader_needs_no_torch():
    import subprocess
    import sys

    code = (
        "import sys, vision.reader as r; r.read_cards(sys.argv[1]); "
        "print('torch' in sys.modules, 'ultralytics' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLE)], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.split() == ["False", "False"]


def test_bundled_example_is_read_exactly():
    from vision.reader import read_cards

    truth = json.loads(EXAMPLE_TRUTH.read_text())
    dets = read_cards(str(EXAMPLE))
    assert dets.hands is not None, dets.warnings
    assert [sorted(h) for h in dets.hands] == [sorted(h.split()) for h in truth["manos"]]
    assert len(set(dets.ids)) == 16


def test_sessions_are_loaded_once_and_cached():
    from vision.reader import CardReader, default_reader

    a, b = default_reader(), default_reader()
    assert a is b
    assert CardReader().detector.session is CardReader().detector.session


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_closeups_of_one_hand_give_no_seats():
    """One hand is not a table: four distinct cards, no seats, and a warning that says why.
    (How many of them are right is measured in models/README.md, not asserted here.)"""
    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.reader import read_cards

    for i in range(2):
        scene = render_scene(
            scene_rng(0, "eval", 50_000 + i), backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind="mano"
        )
        dets = read_cards(scene.image)
        assert len(set(dets.ids)) == len(dets)
        assert dets.hands is None
        assert any("se esperan 16" in a for a in dets.warnings)


def test_bundled_closeup_is_read():
    from vision.reader import read_cards

    dets = read_cards(str(REPO / "examples" / "mano.jpg"))
    truth = json.loads(EXAMPLE_TRUTH.read_text())["manos"][0].split()
    assert sorted(dets.ids) == sorted(truth)


def test_no_cards_on_an_empty_table():
    from training.cards.synth import make_background
    from vision.reader import read_cards

    img = make_background(np.random.default_rng(0), "felt", 960, 1280)
    dets = read_cards(img)
    assert len(dets) == 0 and dets.hands is None and dets.warnings


def test_annotation_draws_on_a_copy():
    from vision.draw import annotate
    from vision.images import load_image
    from vision.reader import read_cards

    img = load_image(EXAMPLE)
    dets = read_cards(img)
    out = annotate(img, dets)
    assert out.shape == img.shape and not np.array_equal(out, img)


def test_a_deck_unlike_the_known_ones_flags_every_card(monkeypatch):
    """The bundled table is a known design: no warning. With the bar raised above its mean
    class probability the table reads as an unknown deck: every card flagged, and the user is
    told to register the deck; a close-up of one hand has too few cards to judge."""
    import vision.assemble as assemble_module
    from vision.images import load_image
    from vision.reader import UNFAMILIAR_WARNING, CardReader

    image = load_image(REPO / "examples" / "mesa.jpg")
    dets = CardReader().read(image)
    assert UNFAMILIAR_WARNING not in dets.warnings and not dets.low_confidence.all()
    monkeypatch.setattr(assemble_module, "UNFAMILIAR_DECK", 0.999)
    dets = CardReader().read(image)
    assert UNFAMILIAR_WARNING in dets.warnings and dets.low_confidence.all()
    assert dets.hands is not None  # the seats are still given, to correct card by card
    assert assemble_module.unfamiliar(np.full(16, 0.1))
    assert not assemble_module.unfamiliar(np.full(4, 0.1))  # a close-up of one hand: too few


def _parts(reader, img, obbs):
    return reader.classifier.classify_boxes(img, obbs)


@pytest.mark.skipif(not (models_dir() / "carta_idx.onnx").is_file(), reason="no index reader")
def test_the_corner_index_reads_the_ranks_of_the_bundled_example_and_sharpens_the_truth():
    """On the bundled photo (read exactly, above) the corner-index reader gives the true rank of
    14 of the 16 cards (measured once; about 69 % of Fournier validation cards), and multiplying
    by it raises the mean probability of the true cards (0.92 -> 0.98 measured)."""
    from scoring.cards import CARD_IDS, RANKS
    from vision.images import load_image
    from vision.reader import CardReader

    truth = json.loads(EXAMPLE_TRUTH.read_text())
    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    assert sorted(dets.ids) == sorted(" ".join(truth["manos"]).split())
    parts = _parts(reader, img, dets.obb)
    right = sum(str(RANKS[k]) == c[:-1] for k, c in zip(parts.ranks.argmax(1), dets.card_ids, strict=True))
    assert right >= 12
    look = parts.cards
    true = [CARD_IDS.index(c) for c in dets.card_ids]
    rows = np.arange(len(true))
    assert parts.combined(0.5, 0)[rows, true].mean() > look[rows, true].mean()  # the index alone
    assert np.array_equal(parts.combined(0, 0), look)


@pytest.mark.skipif(not (models_dir() / "carta_palo.onnx").is_file(), reason="no pinta reader")
def test_the_pintas_give_the_suits_of_the_bundled_example_and_sharpen_the_truth():
    """On the bundled photo the pinta reader gives the true suit of every card (measured once:
    16 of 16; about 91 % of validation cards), and multiplying by it raises the mean probability
    of the true cards (0.92 -> 0.97 measured, without the index); switched off (weight 0 in the
    settings), the reader has no pinta reader at all."""
    from dataclasses import replace

    from scoring.cards import CARD_IDS, SUITS
    from vision.images import load_image
    from vision.reader import CardReader

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    parts = _parts(reader, img, dets.obb)
    right = sum(SUITS[k] == c[-1] for k, c in zip(parts.suits.argmax(1), dets.card_ids, strict=True))
    assert right >= 14
    true = [CARD_IDS.index(c) for c in dets.card_ids]
    rows = np.arange(len(true))
    assert parts.combined(0, 0.5)[rows, true].mean() > parts.cards[rows, true].mean()  # the pintas alone
    off = CardReader(settings=replace(reader.settings, pinta_weight=0))
    assert off.classifier.pinta_reader is None
    assert _parts(off, img, dets.obb).suits is None


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="no CPU affinity here")
def test_the_reader_uses_two_threads_only_where_it_may_use_two_cores():
    import subprocess
    import sys

    code = (
        "import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "import vision.models as m, vision.reader as r; "
        "print(m.DEFAULT_THREADS, r.CardReader().settings.threads)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["1", "1"]


def test_the_classifier_reads_each_card_both_ways_up_unless_told_not_to(monkeypatch):
    """Both ways up (the default): the classifier gets each crop and the crop turned half a
    turn, and the reading averages the two; one way: only the crops, their softmax as is."""
    from dataclasses import replace

    from vision.classify import softmax
    from vision.images import load_image
    from vision.reader import CardReader

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    seen: list[np.ndarray] = []
    run = reader.classifier.run_network

    def spy(crops, sess=None):
        seen.append(crops)
        return run(crops, sess)

    monkeypatch.setattr(reader.classifier, "run_network", spy)
    both = _parts(reader, img, dets.obb).cards
    assert len(seen[-1]) == 2 * len(dets)
    assert np.array_equal(seen[-1][len(dets) :], seen[-1][: len(dets)][:, ::-1, ::-1])
    # the generic reader's classifier (the int8 file where the folder has one)
    generic = reader.classifier.generic_network
    up, down = (softmax(run(c, generic)[0]) for c in (seen[-1][: len(dets)], seen[-1][len(dets) :]))
    assert np.allclose(both, (up + down) / 2, atol=1e-6)
    one_way = CardReader(settings=replace(reader.settings, both_ways=False))
    monkeypatch.setattr(one_way.classifier, "run_network", spy)
    one = _parts(one_way, img, dets.obb).cards
    assert len(seen[-1]) == len(dets)
    assert np.allclose(one, up, atol=1e-6) and not np.allclose(one, both, atol=1e-3)


def _with_suits(classifier, monkeypatch, suits):
    """Make ``classifier`` report ``suits`` (one row) for every card, whatever its pinta reader says."""
    from vision.classify import CardProbabilities

    real = classifier.classify

    def fake(cards):
        p = real(cards)
        return CardProbabilities(p.cards, p.ranks, np.tile(suits, (len(p), 1)))

    monkeypatch.setattr(classifier, "classify", fake)


def test_on_an_unfamiliar_deck_the_pintas_weigh_more(monkeypatch):
    """A table of an unfamiliar deck is read again with the pinta reader at
    UNFAMILIAR_PINTA_WEIGHT; a familiar one is not. Driven by a pinta reader that calls every
    card oros and a weight so large that only the pintas count: ten oros at most in a deck."""
    import vision.assemble as assemble_module
    from vision.images import load_image
    from vision.reader import UNFAMILIAR_WARNING, CardReader

    image = load_image(EXAMPLE)
    monkeypatch.setattr(assemble_module, "UNFAMILIAR_PINTA_WEIGHT", 50.0)
    familiar = CardReader()
    _with_suits(familiar.classifier, monkeypatch, [0.97, 0.01, 0.01, 0.01])
    ids = [str(c) for c in familiar.read(image).card_ids]
    assert sum(c.endswith("o") for c in ids) < 10  # weight 0.5: the classifier still counts
    monkeypatch.setattr(assemble_module, "UNFAMILIAR_DECK", 0.999)
    unfamiliar = CardReader()
    _with_suits(unfamiliar.classifier, monkeypatch, [0.97, 0.01, 0.01, 0.01])
    dets = unfamiliar.read(image)
    assert UNFAMILIAR_WARNING in dets.warnings and dets.low_confidence.all()
    assert sum(str(c).endswith("o") for c in dets.card_ids) == 10
    assert len(set(map(str, dets.card_ids))) == len(dets)  # still each card once


def test_the_unfamiliar_deck_check_ignores_the_corner_index(monkeypatch):
    """Whether a table looks like a known deck is the classifier's judgement alone: a rank
    reader that is sure of every rank (with the shipped pinta reader) sharpens the
    probabilities, and must not hide the warning (on validation tables of an unseen design
    it hid it on 30-40 % of the tables)."""
    import vision.assemble as assemble_module
    from scoring.cards import CARD_IDS, RANKS
    from vision.classify import CardProbabilities
    from vision.images import load_image
    from vision.reader import UNFAMILIAR_WARNING, CardReader

    image = load_image(EXAMPLE)
    reader = CardReader()
    boxes = reader.detector.detect(image).boxes
    mean_look = float(_parts(reader, image, boxes).cards.max(1).mean())
    real = reader.classifier.classify

    def sure_of_every_rank(cards):  # the rank of the classifier's first choice, for certain
        p = real(cards)
        out = np.full((len(p), len(RANKS)), 1e-6)
        out[np.arange(len(p)), [RANKS.index(int(CARD_IDS[k][:-1])) for k in p.cards.argmax(1)]] = 1
        return CardProbabilities(p.cards, out / out.sum(1, keepdims=True), p.suits)

    monkeypatch.setattr(reader.classifier, "classify", sure_of_every_rank)
    monkeypatch.setattr(assemble_module, "UNFAMILIAR_DECK", min(0.999, mean_look + 0.01))
    both = _parts(reader, image, boxes).combined(0.5, 0.5)
    assert both.max(1).mean() > mean_look + 0.01  # the index alone would have cleared the bar
    dets = reader.read(image)
    assert UNFAMILIAR_WARNING in dets.warnings and dets.low_confidence.all()


def test_a_photo_turned_a_quarter_is_read_the_same_with_boxes_turned_too():
    """A portrait photo is letterboxed the other way: the boxes come back in the photo's own
    pixels, whichever the orientation, and name the same cards."""
    import cv2

    from vision.images import load_image
    from vision.reader import CardReader

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    turned = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)  # (x, y) -> (h - 1 - y, x)
    a, b = reader.read(img), reader.read(turned)
    assert sorted(a.ids) == sorted(b.ids) and len(a) == 16
    h = img.shape[0]
    for card, box in zip(a.ids, a.obb, strict=True):
        other = b.obb[list(b.ids).index(card)]
        assert np.hypot(other[0] - (h - 1 - box[1]), other[1] - box[0]) < 0.1 * min(box[2:4]), card
