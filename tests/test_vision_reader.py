"""The shipped card reader (models/*.onnx through ONNX Runtime) on generated photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.decks import DECKS, decks_root
from vision.reader import CLS_FILE, DET_FILE, models_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
EXAMPLE_TRUTH = REPO / "examples" / "mesa.json"

pytestmark = pytest.mark.skipif(
    not ((models_dir() / DET_FILE).is_file() and (models_dir() / CLS_FILE).is_file()),
    reason="the trained models are not in models/")


def test_reader_needs_no_torch():
    import subprocess
    import sys

    code = ("import sys, vision.reader as r; r.read_cards(r.load_image(sys.argv[1])); "
            "print('torch' in sys.modules, 'ultralytics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(EXAMPLE)], capture_output=True,
                         text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["False", "False"]


def test_bundled_example_is_read_exactly():
    from vision.reader import read_cards

    truth = json.loads(EXAMPLE_TRUTH.read_text())
    dets = read_cards(str(EXAMPLE))
    assert dets.asientos is not None, dets.avisos
    assert [sorted(h) for h in dets.asientos] == [sorted(h.split()) for h in truth["manos"]]
    assert len(set(dets.ids)) == 16


def test_sessions_are_loaded_once_and_cached():
    from vision.reader import CardReader, default_reader

    a, b = default_reader(), default_reader()
    assert a is b
    assert CardReader().detector is CardReader().detector


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_closeups_of_one_hand_give_no_seats():
    """One hand is not a table: four distinct cards, no seats, and a warning that says why.
    (How many of them are right is measured in models/README.md, not asserted here.)"""
    from vision.dataset import scene_rng
    from vision.reader import read_cards
    from vision.synth import HOLDOUT_BACKGROUNDS, render_scene

    for i in range(2):
        scene = render_scene(scene_rng(0, "eval", 50_000 + i), backgrounds=HOLDOUT_BACKGROUNDS,
                             size=(1280, 960), kind="mano")
        dets = read_cards(scene.image)
        assert len(set(dets.ids)) == len(dets)
        assert dets.asientos is None
        assert any("se esperan 16" in a for a in dets.avisos)


def test_bundled_closeup_is_read():
    from vision.reader import read_cards

    dets = read_cards(str(REPO / "examples" / "mano.jpg"))
    truth = json.loads(EXAMPLE_TRUTH.read_text())["manos"][0].split()
    assert sorted(dets.ids) == sorted(truth)


def test_no_cards_on_an_empty_table():
    from vision.reader import read_cards
    from vision.synth import make_background

    img = make_background(np.random.default_rng(0), "felt", 960, 1280)
    dets = read_cards(img)
    assert len(dets) == 0 and dets.asientos is None and dets.avisos


def test_annotation_draws_on_a_copy():
    from vision.draw import annotate
    from vision.reader import load_image, read_cards

    img = load_image(EXAMPLE)
    dets = read_cards(img)
    out = annotate(img, dets)
    assert out.shape == img.shape and not np.array_equal(out, img)
