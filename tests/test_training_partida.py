"""The partida measurement (training.cards.partida) on generated photos, with the shipped models."""

from __future__ import annotations

import pytest

from training.cards.decks import DECKS, decks_root
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

pytestmark = [
    pytest.mark.skipif(
        not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
        reason="the trained models are not in models/",
    ),
    pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images"),
]


def test_a_photo_is_counted_card_by_card_right_flagged_in_view_or_covered_and_wrong():
    from training.cards.dataset import scene_rng
    from training.cards.partida import photo_counts, summary
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.reader import CardReader

    scene = render_scene(scene_rng(0, "eval", 70_010), decks=(DECKS[0],), backgrounds=HOLDOUT_BACKGROUNDS, kind="mesa")
    counts = photo_counts(CardReader(), scene)
    assert counts["fotos"] == 1 and counts["cartas"] == 16
    assert counts["bien_dudosas"] == counts["bien_dudosas_a_la_vista"] + counts["bien_dudosas_tapadas"]
    assert counts["bien"] + counts["mal_sin_aviso"] + counts["mal_con_aviso"] >= 15  # every read card is one of them
    assert counts["mal_sin_aviso"] == 0
    out = summary(counts)
    assert out["fotos"] == 1 and out["bien_dudosas_por_foto"] == counts["bien_dudosas"]


def test_a_photo_read_reduced_is_scored_in_the_photos_own_pixels():
    """training.cards.telefono: a JPEG decoded at half its size is read and its boxes taken
    back to the photo's pixels, where its truth is: its cards count as right, not as missed."""
    import cv2

    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from training.cards.telefono import scored
    from vision.reader import CardReader

    scene = render_scene(
        scene_rng(0, "eval", 10_000), decks=(DECKS[0],), backgrounds=HOLDOUT_BACKGROUNDS, size=(2560, 1920), kind="mesa"
    )
    ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    reader = CardReader()
    whole, half = (scored(reader, scene, jpg.tobytes(), f) for f in (1, 2))
    assert half["cartas"] == whole["cartas"] == 16
    assert half["bien"] >= 15 and half["bien"] >= whole["bien"] - 1
    assert half["mal_sin_aviso"] == 0 and half["ms"] > 0
