"""The synthetic data generator: deterministic, labels that match the picture, all backgrounds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.cards import CARD_IDS
from training.cards.dataset import (
    FAN_FIRST_INDEX,
    FAN_SEED_OFFSET,
    HIDDEN_MAX_VISIBLE,
    MIN_VISIBLE,
    half_hidden_tables,
    join_sets,
    scene_rng,
    write_crop_set,
    write_detector_set,
    write_fan_table_set,
    write_hidden_crop_set,
)
from training.cards.decks import DECKS, decks_root, load_deck
from training.cards.synth import (
    ALL_BACKGROUNDS,
    HOLDOUT_BACKGROUNDS,
    TRAIN_BACKGROUNDS,
    make_background,
    render_scene,
    visible_fraction,
)
from vision.detect import Detector
from vision.geometry import CROP_H, CROP_W
from vision.models import DETECTOR_FILE, models_dir

pytestmark = pytest.mark.skipif(
    not (decks_root() / DECKS[0]).is_dir(), reason="the deck images in ../shared/decks are not here"
)


@pytest.mark.parametrize("deck", DECKS)
def test_each_deck_has_the_40_cards(deck):
    faces = load_deck(deck)
    assert sorted(faces) == sorted(CARD_IDS)
    for face in faces.values():
        assert face.shape[2] == 4 and face.shape[0] == 512
        assert face[0, 0, 3] == 0 and face[256, face.shape[1] // 2, 3] == 255  # rounded corners


def test_holdout_backgrounds_are_never_training_backgrounds():
    assert not set(TRAIN_BACKGROUNDS) & set(HOLDOUT_BACKGROUNDS)


@pytest.mark.parametrize("kind", ALL_BACKGROUNDS)
def test_every_background_renders(kind):
    img = make_background(np.random.default_rng(1), kind, 60, 80)
    assert img.shape == (60, 80, 3) and img.dtype == np.uint8
    assert img.std() > 0


def test_a_detector_set_never_trains_on_a_held_out_background(tmp_path):
    with pytest.raises(ValueError, match="reservados"):
        write_detector_set(tmp_path / "det", n_train=1, n_val=0, backgrounds=("felt", "stripes"))
    assert not (tmp_path / "det").exists()  # refused before anything is written


def test_scene_is_a_pure_function_of_its_seed():
    a = render_scene(np.random.default_rng(7), size=(320, 240), kind="mesa")
    b = render_scene(np.random.default_rng(7), size=(320, 240), kind="mesa")
    assert a.card_ids == b.card_ids
    assert np.array_equal(a.image, b.image)


def test_table_scene_has_four_hands_of_four_distinct_cards():
    scene = render_scene(np.random.default_rng(3), size=(640, 480), kind="mesa")
    assert scene.image.shape == (480, 640, 3)
    assert len(scene.card_ids) == 16 == len(set(scene.card_ids))
    assert sorted(scene.seats) == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert scene.corners.shape == (16, 4, 2)
    centres = scene.corners.mean(1)
    # seat 0 is the hand nearest the camera (bottom of the photo), seat 2 the farthest
    by_seat = [centres[np.array(scene.seats) == s].mean(0) for s in range(4)]
    assert by_seat[0][1] > by_seat[2][1]
    assert by_seat[1][0] > by_seat[3][0]  # seat 1 on the right, seat 3 on the left


def test_labels_sit_on_the_cards():
    """The pixels inside a labelled card differ from the empty table around the layout."""
    scene = render_scene(np.random.default_rng(11), size=(640, 480), kind="mano")
    assert len(scene.card_ids) == 4
    vis = visible_fraction(scene)
    assert (vis > 0).all() and vis[-1] == 1.0  # the last card drawn is fully visible
    w = scene.image.shape[1]
    assert (scene.corners[..., 0] > -0.05 * w).all() and (scene.corners[..., 0] < 1.05 * w).all()


def test_detector_and_crop_sets_are_written(tmp_path):
    yaml = write_detector_set(
        tmp_path / "det", n_train=2, n_val=1, det_size=(320, 240), render_size=(320, 240), workers=1
    )
    text = yaml.read_text()
    assert "names:" in text and str(tmp_path) in text
    labels = sorted((tmp_path / "det" / "labels" / "train").glob("*.txt"))
    assert len(labels) == 2
    for lab in labels:
        for line in lab.read_text().splitlines():
            parts = line.split()
            assert parts[0] == "0" and len(parts) == 9
            assert all(0 <= float(v) <= 1 for v in parts[1:])
    npz = write_crop_set(tmp_path / "crops.npz", n_scenes=2, render_size=(640, 480), workers=1)
    data = np.load(npz)
    assert data["x"].shape[1:] == (CROP_H, CROP_W, 3)
    assert len(data["x"]) == len(data["y"]) > 0
    assert data["y"].max() < 40


def test_half_hidden_tables_give_only_half_hidden_cards():
    """The extra training tables for covered cards: fans and overlapping rows, reproducible,
    and the cards they hand out show between MIN_VISIBLE and HIDDEN_MAX_VISIBLE of their face
    (most covered cards of a fan do)."""
    tables = list(half_hidden_tables(3))
    again = list(half_hidden_tables(3))
    assert [s.card_ids for _, s, _ in tables] == [s.card_ids for _, s, _ in again]
    assert sum(len(h) for *_, h in tables) >= 6
    for _, scene, hidden in tables:
        assert scene.kind == "mesa" and len(scene.card_ids) == 16
        vis = visible_fraction(scene)
        assert ((vis[hidden] >= MIN_VISIBLE) & (vis[hidden] < HIDDEN_MAX_VISIBLE)).all()
        others = np.setdiff1d(np.arange(16), hidden)
        assert ((vis[others] < MIN_VISIBLE) | (vis[others] >= HIDDEN_MAX_VISIBLE)).all()


def test_hidden_crop_set_holds_the_half_hidden_cards(tmp_path):
    """Two jittered crops of each half-hidden card and one under each detector box over one."""
    detector = Detector(models_dir() / DETECTOR_FILE, threads=1)
    data = np.load(write_hidden_crop_set(tmp_path / "t.npz", detector, n_scenes=2))
    expected = [CARD_IDS.index(s.card_ids[j]) for _, s, hidden in half_hidden_tables(2) for j in hidden]
    assert data["x"].shape[1:] == (CROP_H, CROP_W, 3)
    # two crops of each true box, and at most one more under a detector box
    assert 2 * len(expected) <= len(data["y"]) <= 3 * len(expected)
    assert set(data["y"].tolist()) == set(expected)


def test_join_sets_keeps_designs_in_order(tmp_path):
    a, b, c = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    np.savez(a, p=np.zeros((2, 3)), y=np.array([1, 2]), deck=np.array([0, 1]), decks=np.array(DECKS))
    np.savez(b, p=np.ones((1, 3)), y=np.array([3]), deck=np.array([1]), decks=np.array(DECKS))
    np.savez(c, p=np.ones((1, 3)), y=np.array([3]), deck=np.array([0]), decks=np.array(DECKS[::-1]))
    joined = np.load(join_sets(tmp_path / "ab.npz", [a, b], ("p", "y", "deck")))
    assert joined["y"].tolist() == [1, 2, 3] and joined["p"].shape == (3, 3)
    assert [str(d) for d in joined["decks"]] == list(DECKS)
    with pytest.raises(ValueError, match="barajas"):
        join_sets(tmp_path / "ac.npz", [a, c], ("p", "y", "deck"))


def test_the_fanned_table_set_fans_two_tables_in_three(tmp_path):
    """The detector's fine-tuning set: whole tables from their own scene indices, one deck design
    each in turn, every hand fanned in two tables of three (the others laid any way)."""

    write_fan_table_set(tmp_path, n_train=3, n_val=1, workers=1)
    meta = [m for m in json.loads((tmp_path / "scenes.json").read_text()) if m["split"] == "train"]
    assert [m["deck"] for m in meta] == [DECKS[0], DECKS[1], DECKS[0]]
    assert [m["name"] for m in meta] == [f"train_{FAN_FIRST_INDEX + i:06d}" for i in range(3)]
    for i, m in enumerate(meta):
        labels = (tmp_path / "labels" / "train" / f"{m['name']}.txt").read_text().splitlines()
        assert m["kind"] == "mesa" and len(labels) == 16
        rng = scene_rng(FAN_SEED_OFFSET, "train", FAN_FIRST_INDEX + i)
        fanned = render_scene(rng, decks=(DECKS[i % 2],), backgrounds=TRAIN_BACKGROUNDS, kind="mesa", hand_style="fan")
        # the label's first corner is the fanned scene's own (scaled to the image) iff it is fanned
        first = np.float32(labels[0].split()[1:3])
        assert np.allclose(first, np.clip(fanned.corners[0][0] / [1280, 960], 0, 1), atol=1e-4) == bool(i % 3)


def test_a_second_fanned_table_set_starts_where_the_first_ends(tmp_path):
    """``first`` offsets the scene indices (a second round of tables shares none with the
    first) and keeps each table's deck and layout those of its own index."""

    write_fan_table_set(tmp_path / "a", n_train=4, n_val=0, workers=1)
    write_fan_table_set(tmp_path / "b", n_train=2, n_val=0, workers=1, first=2)
    names = [[m["name"] for m in json.loads((tmp_path / d / "scenes.json").read_text())] for d in ("a", "b")]
    assert names[1] == [f"train_{FAN_FIRST_INDEX + i:06d}" for i in (2, 3)] == names[0][2:]
    for name in names[1]:
        assert (tmp_path / "a" / "images" / "train" / f"{name}.jpg").read_bytes() == (
            tmp_path / "b" / "images" / "train" / f"{name}.jpg"
        ).read_bytes()


def test_an_empty_table_has_no_card_face_and_a_closeup_takes_a_hand_style():
    for seed in range(3):
        empty = render_scene(np.random.default_rng(seed), size=(320, 240), kind="vacia")
        assert empty.card_ids == [] and empty.corners.shape == (0, 4, 2)
    fan = render_scene(np.random.default_rng(5), size=(640, 480), kind="mano", hand_style="fan")
    row = render_scene(np.random.default_rng(5), size=(640, 480), kind="mano", hand_style="row")
    assert len(fan.card_ids) == len(row.card_ids) == 4

    # in a fan the cards turn from one to the next; in a row they lie nearly parallel
    def turn(scene):
        edges = scene.corners[:, 1] - scene.corners[:, 0]
        angles = np.unwrap(np.arctan2(edges[:, 1], edges[:, 0]))
        return float(np.ptp(angles))

    assert turn(fan) > 0.4 > turn(row)
