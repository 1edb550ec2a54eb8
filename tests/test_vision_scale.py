"""The reader's scale: a hand filling the frame read again zoomed out (vision.scale)."""

from __future__ import annotations

import numpy as np
import pytest

from training.cards.decks import DECKS, decks_root
from vision.detect import DetectedBoxes
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir
from vision.scale import ZOOM_OUT_ABOVE, border_colour, boxes_back, card_scale, zoom_factor, zoomed_out

needs_models = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)
needs_decks = pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")


def test_the_canvas_maps_back_onto_the_photo():
    rng = np.random.default_rng(0)
    photo = np.zeros((960, 1280, 3), np.uint8)
    photo[:] = (30, 90, 40)  # the cloth, whose colour the canvas takes
    photo[300:700, 500:760] = rng.integers(0, 255, (1, 1, 3), dtype=np.uint8)  # a "card"
    canvas, scale, offset = zoomed_out(photo, 0.5, 448)
    assert canvas.shape == (336, 448, 3)
    assert tuple(canvas[2, 2]) == tuple(border_colour(photo)) == (30, 90, 40)
    # the card's centre on the canvas, mapped back, is its centre on the photo
    card = np.argwhere((canvas != (30, 90, 40)).any(-1))
    (y0, x0), (y1, x1) = card.min(0), card.max(0)
    box = np.float32([[(x0 + x1 + 1) / 2, (y0 + y1 + 1) / 2, x1 - x0 + 1, y1 - y0 + 1, 0]])
    back = boxes_back(DetectedBoxes(box, np.float32([0.9]), box, np.float32([0.9])), scale, offset)
    np.testing.assert_allclose(back.boxes[0, :4], [630, 500, 260, 400], atol=8)  # a canvas pixel is 5.7
    np.testing.assert_allclose(back.candidates, back.boxes)


def test_only_cards_larger_than_the_detector_knows_are_zoomed_out():
    size = (1280, 960)
    table_card = np.float32([[0, 0, 110, 170, 0.3]] * 4)  # 0.13 of the photo: a table's card
    near_card = np.float32([[0, 0, 330, 520, 0.3]] * 4)  # 0.41: a hand filling the frame
    assert card_scale(table_card, size) < ZOOM_OUT_ABOVE < card_scale(near_card, size)
    assert zoom_factor(table_card, size) == 1.0
    assert zoom_factor(np.zeros((0, 5), np.float32), size) == 1.0
    assert 0.3 <= zoom_factor(near_card, size) < 0.5


@needs_models
@needs_decks
def test_a_hand_filling_the_frame_reads_exactly_zoomed_out():
    """Generated close-ups whose cards are 0.40-0.43 of the photo (the detector read them with
    a fifth box over part of a card before it learnt near hands): with the zoom-out pass
    engaged, the four cards and no more, each boxed on its card (how many the generic reader
    asks to confirm at this scale is a figure of models/README.md, not a property)."""
    from dataclasses import replace

    from training.cards.dataset import scene_rng
    from training.cards.evaluate import match_boxes
    from training.cards.scale_bands import card_scale as true_scale
    from training.cards.scale_bands import closeup_at_scale
    from vision.geometry import quad_to_obb
    from vision.reader import CardReader

    reader = CardReader()
    before = CardReader(reader.folder, replace(reader.settings, zoom_out=False))
    for index in (9, 15):
        scene = closeup_at_scale(scene_rng(0, "eval", 30_000 + index), DECKS[0], "overlap")
        assert true_scale(scene) > 0.35
        assert zoom_factor(before.read(scene.image).obb, (1280, 960)) < 1.0  # the second pass runs
        dets = reader.read(scene.image)
        assert sorted(dets.ids) == sorted(scene.card_ids), dets.warnings
        truth = np.stack([quad_to_obb(q) for q in scene.corners])
        matched = match_boxes(dets.obb, truth, 0.5)
        assert (matched >= 0).all()
        assert [scene.card_ids[j] for j in matched] == [str(c) for c in dets.card_ids]
        assert dets.image_size == (1280, 960)


@needs_models
@needs_decks
def test_a_table_is_read_once_at_its_own_scale():
    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.reader import CardReader

    reader = CardReader()
    for i in range(2):
        scene = render_scene(
            scene_rng(0, "eval", 30_000 + i),
            decks=(DECKS[0],),
            backgrounds=HOLDOUT_BACKGROUNDS,
            kind="mesa",
            hand_style="fan",
        )
        first = reader.detector.detect(scene.image)
        assert zoom_factor(first.boxes, (1280, 960)) == 1.0


@needs_models
@needs_decks
def test_a_sure_first_pass_is_not_read_again_zoomed_out():
    """A hand filling the frame whose first pass is SURE_ENOUGH is read once (the second pass
    costs a whole detector run), one less sure is read again zoomed out; both read exactly."""
    from training.cards.dataset import scene_rng
    from training.cards.scale_bands import closeup_at_scale
    from vision.reader import CardReader
    from vision.scale import SURE_ENOUGH, sureness

    reader = CardReader()
    calls: list[int] = []
    detect = reader.detector.detect

    def counted(image):
        calls.append(1)
        return detect(image)

    reader.detector.detect = counted
    passes = {}
    for index in (22, 15):  # first passes of 0.92 and 0.77
        scene = closeup_at_scale(scene_rng(0, "eval", 30_000 + index), DECKS[0], "overlap")
        first = detect(scene.image)
        assert zoom_factor(first.boxes, (1280, 960)) < 1.0
        calls.clear()
        dets = reader.read(scene.image)
        passes[sureness(first.scores) >= SURE_ENOUGH] = len(calls)
        assert sorted(dets.ids) == sorted(scene.card_ids), dets.warnings
    assert passes == {True: 1, False: 2}
