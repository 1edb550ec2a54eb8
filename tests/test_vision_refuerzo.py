"""Strengthening a registered deck with confirmed tables (vision.refuerzo)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir
from vision.refuerzo import bounded
from vision.registered_deck import (
    EXTRA_VIEWS,
    MAX_EXTRA_PER_CARD,
    DeckError,
    RegisteredDeck,
)
from vision.templates import TEMPLATE_H, TEMPLATE_W

REPO = Path(__file__).resolve().parent.parent
HAVE_MODELS = (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")
DECK = "fournier1878-pd"


def _synthetic(extra: int = 5, dim: int = 8, seed: int = 0) -> RegisteredDeck:
    """A registration with templates and ``extra`` examples of confirmed tables."""
    rng = np.random.default_rng(seed)
    f = rng.normal(size=(80, dim)).astype(np.float32)
    f /= np.linalg.norm(f, axis=1, keepdims=True)
    faces = rng.integers(0, 255, (40, TEMPLATE_H, TEMPLATE_W, 3), dtype=np.uint8)
    ef = rng.normal(size=(extra, 2 * EXTRA_VIEWS, dim)).astype(np.float32)
    et = rng.integers(0, 255, (extra, EXTRA_VIEWS, TEMPLATE_H, TEMPLATE_W, 3), dtype=np.uint8)
    return RegisteredDeck(
        f,
        np.tile(np.arange(40), 2),
        "prueba",
        "abc",
        templates=faces,
        template_labels=np.arange(40),
        extra_features=ef,
        extra_templates=et,
        extra_labels=np.arange(extra) % 40,
        extra_corrected=np.arange(extra) % 2 == 0,
    )


def test_examples_of_confirmed_tables_round_trip_and_are_checked(tmp_path):
    deck = _synthetic()
    back = RegisteredDeck.load(deck.save(tmp_path / "b.npz"))
    assert back.extra_count == 5 and back.describe()["refuerzos"] == 5
    assert np.array_equal(back.extra_templates, deck.extra_templates)
    assert back.extra_corrected.tolist() == deck.extra_corrected.tolist()
    # the extra examples take part in matching: an extra feature names its card
    probe = back.extra_features[3, :1] / np.linalg.norm(back.extra_features[3, :1])
    assert back.probabilities(probe).argmax(1).tolist() == [3]
    with pytest.raises(DeckError, match="refuerzos"):
        RegisteredDeck(
            deck.features,
            deck.labels,
            extra_features=deck.extra_features[:, :, :4],
            extra_labels=deck.extra_labels,
            extra_corrected=deck.extra_corrected,
        )


def test_bounded_keeps_the_newest_and_corrected_examples_of_each_card():
    labels = np.array([1, 1, 1, 1, 1, 2])
    corrected = np.array([True, False, False, False, False, False])
    keep = bounded(labels, corrected, 3)
    assert keep.tolist() == [True, False, False, True, True, True]
    assert bounded(labels, np.ones(6, bool), 3).tolist() == [False, False, True, True, True, True]


def test_a_process_killed_mid_save_leaves_the_old_file_intact(tmp_path):
    path = _synthetic(extra=2).save(tmp_path / "baraja.npz")
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, signal, sys
        import numpy as np
        sys.path.insert(0, {str(REPO)!r}); sys.path.insert(0, {str(REPO / "tests")!r})
        from test_vision_refuerzo import _synthetic
        real = np.savez_compressed
        def half_then_killed(fh, **arrays):
            fh.write(b"PK\\x03\\x04 half a file")
            fh.flush()
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup runs, as with a power cut
        np.savez_compressed = half_then_killed
        _synthetic(extra=9, seed=1).save({str(path)!r})
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True)
    assert run.returncode == -9, run.stderr.decode()
    assert path.read_bytes() == before
    assert RegisteredDeck.load(path).extra_count == 2


@pytest.fixture(scope="module")
def registered():
    """A reader and the deck registered from generated suit photos (the evaluation's path)."""
    if not HAVE_MODELS:
        pytest.skip("the trained models are not in models/")
    from training.cards.evaluate import register_from_generated_photos
    from vision.reader import CardReader

    reader = CardReader()
    deck, _, _ = register_from_generated_photos(reader, DECK)
    return reader, deck


def _table(k: int):
    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.geometry import quad_to_obb

    scene = render_scene(
        scene_rng(0, "eval", 70_000 + k), decks=(DECK,), backgrounds=HOLDOUT_BACKGROUNDS, kind="mesa", hand_style="row"
    )
    return scene, np.stack([quad_to_obb(q) for q in scene.corners])


@needs_models
def test_strengthening_adds_examples_and_stays_bounded(registered):
    from vision.refuerzo import clear_view, strengthen

    reader, deck = registered
    scene, obbs = _table(0)
    whole = int(clear_view(obbs).sum())
    assert whole > 0
    once = strengthen(deck, reader, scene.image, obbs, scene.card_ids, [False] * len(obbs))
    assert once.extra_count == whole
    assert once.extra_features.shape[1:] == (2 * EXTRA_VIEWS, deck.features.shape[1])
    assert np.array_equal(once.features, deck.features)  # the registration itself untouched
    grown = once
    for _ in range(MAX_EXTRA_PER_CARD + 1):
        grown = strengthen(grown, reader, scene.image, obbs, scene.card_ids, [False] * len(obbs))
    counts = np.bincount(grown.extra_labels, minlength=40)
    assert counts.max() == MAX_EXTRA_PER_CARD and grown.extra_count == MAX_EXTRA_PER_CARD * whole
    rows = len(grown.labels) + grown.extra_features.shape[0] * grown.extra_features.shape[1]
    assert rows <= 2 * len(deck.labels)  # never more than twice the registration
    assert len(grown.extra_templates) * EXTRA_VIEWS <= len(deck.templates)


@needs_models
def test_a_deck_of_another_classifier_is_refused_and_its_file_kept(registered, tmp_path):
    from dataclasses import replace

    from vision.refuerzo import strengthen, strengthen_file

    reader, deck = registered
    scene, obbs = _table(1)
    other = replace(deck, model="0123456789ab")
    with pytest.raises(DeckError, match="otro clasificador"):
        strengthen(other, reader, scene.image, obbs, scene.card_ids, [False] * len(obbs))
    path = other.save(tmp_path / "baraja.npz")
    before = path.read_bytes()
    xyxy = np.stack([np.r_[q.min(0), q.max(0)] for q in scene.corners])
    with pytest.raises(DeckError):
        strengthen_file(path, reader, scene.image, xyxy, scene.card_ids, [False] * len(obbs))
    assert path.read_bytes() == before


@needs_models
def test_reading_held_out_tables_after_strengthening_is_not_worse(registered):
    """Six confirmed tables in, six other tables read: no fewer cards right, nothing wrong
    without a flag."""
    from training.cards.evaluate import evaluate, strengthen_from_generated_tables
    from vision.reader import CardReader

    _, deck = registered
    before = evaluate(CardReader(deck=deck), DECK, 6)
    strong = CardReader(deck=deck)
    info = strengthen_from_generated_tables(strong, DECK, 6)
    assert info["refuerzos_guardados"] > 0 and strong.deck.extra_count > 0
    after = evaluate(strong, DECK, 6)
    assert after["cartas_bien"] >= before["cartas_bien"]
    assert after["mesas_mal_sin_aviso"] == 0


@needs_models
def test_the_app_strengthens_the_deck_with_a_confirmed_reading(registered, tmp_path):
    from mesa.lectura import reforzar_baraja

    reader, deck = registered
    path = str(deck.save(tmp_path / "baraja.npz"))
    scene, _ = _table(2)
    lec = reader.read(scene.image)
    lec.correct(0, "1o" if lec.card_ids[0] != "1o" else "2o")  # the player fixes one
    added = reforzar_baraja(lec, scene.image, path)
    saved = RegisteredDeck.load(path)
    assert added > 0 and saved.extra_count == added
    assert saved.extra_corrected.any()
    assert reforzar_baraja(lec, None, path) == 0 and reforzar_baraja(lec, scene.image, None) == 0


def test_the_evaluation_strengthens_only_a_registered_deck(capsys):
    from training.cards.evaluate import main

    with pytest.raises(SystemExit) as exit_:
        main(["--refuerzo", "3"])
    assert exit_.value.code == 2 and "--registrar" in capsys.readouterr().err
