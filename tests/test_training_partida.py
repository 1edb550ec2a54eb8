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
