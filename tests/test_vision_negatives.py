"""Photos with no card read as none (vision.assemble.CARD_EVIDENCE, training/cards/negatives.py)."""

from __future__ import annotations

import numpy as np
import pytest

from training.cards.decks import DECKS, decks_root
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

needs_models = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)
needs_decks = pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")


def test_the_two_parts_share_no_photo():
    from training.cards.negatives import photos

    tuned = dict(photos("ajuste"))
    held_out = dict(photos("reservada"))
    assert not set(tuned) & set(held_out)
    assert all(img.shape == (960, 1280, 3) for img in held_out.values())
    assert sum(name.startswith("cara") for name in held_out) == 20
    # the same photos every time: the held-out figures can be compared across readers
    again = dict(photos("reservada"))
    assert all(np.array_equal(held_out[k], again[k]) for k in ("cara1008", "lfw_faces"))


@needs_models
def test_held_out_faces_and_a_street_read_as_no_card():
    """Held-out photos the reader once read as one or two cards (drawn faces, a crop of a
    street with a bus): none now, with the message that says so."""
    from training.cards.negatives import photos
    from vision.reader import NO_CARDS, CardReader

    held_out = dict(photos("reservada"))
    reader = CardReader()
    for name in ("cara1008", "cara1012", "bus/recorte1"):
        dets = reader.read(held_out[name])
        assert len(dets) == 0, (name, dets.ids)
        assert dets.warnings == [NO_CARDS]


@needs_models
@needs_decks
def test_a_patterned_cloth_is_no_table_of_sixteen():
    """A generated empty table on a polka-dot cloth gives 16 boxes (once in four hands, with the
    photo shrunk in one step; now out of hands), which the classifier alone reads as cards
    (oros): the mark readers see no rank or suit on them, so the photo holds no card, in or out
    of hands; the bundled table, whose marks read, is still a table of 16."""
    from pathlib import Path

    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.assemble import CARD_EVIDENCE_BOXES
    from vision.detect import TABLE_CARDS
    from vision.reader import CardReader

    reader = CardReader()
    scene = render_scene(
        scene_rng(0, "eval", 10_008),
        decks=("fournier1878-pd",),
        backgrounds=HOLDOUT_BACKGROUNDS,
        size=(1280, 960),
        kind="vacia",
    )
    detected = reader._detect(scene.image)
    assert len(detected) >= CARD_EVIDENCE_BOXES  # the cloth does fool the detector
    assert len(reader.read(scene.image)) == 0
    table = reader.read(Path(__file__).resolve().parents[1] / "examples" / "mesa.jpg")
    assert len(table) == TABLE_CARDS
