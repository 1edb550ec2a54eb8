"""The corner-index patches the rank reader sees (numpy + OpenCV only)."""

from __future__ import annotations

import numpy as np

from scoring.cards import CARD_IDS, RANKS
from vision.corner_index import INDEX_CROP, PATCH_H, PATCH_W, RANK_OF, corner_patches, corners_bgr, standardise


def _card_with_marks() -> np.ndarray:
    """A card rectified at INDEX_CROP with an L mark in the top-left corner and the same mark
    turned half a turn in the bottom-right corner, as a printed index is."""
    w, h = INDEX_CROP
    card = np.full((h, w, 3), 230, np.uint8)
    card[5:25, 8:12] = 0
    card[21:25, 8:20] = 0
    card[::-1, ::-1][5:25, 8:12] = 0
    card[::-1, ::-1][21:25, 8:20] = 0
    return card


def test_both_corners_show_the_index_the_same_way_up():
    tl, br = corners_bgr(_card_with_marks())
    assert tl.shape == br.shape == (PATCH_H, PATCH_W, 3)
    assert np.array_equal(tl, br)
    assert tl.min() == 0  # the mark is inside the patch


def test_a_card_upside_down_gives_the_same_two_patches_swapped():
    card = _card_with_marks()
    card[40:60, 30:50] = (0, 0, 255)  # something that is not symmetric
    a, b = corners_bgr(card), corners_bgr(np.ascontiguousarray(card[::-1, ::-1]))
    assert np.array_equal(a[0], b[1]) and np.array_equal(a[1], b[0])


def test_standardise_removes_paper_colour_and_light():
    card = _card_with_marks()
    patches = corners_bgr(card)[None]
    darker = (patches.astype(np.float32) * 0.6 + 20).astype(np.uint8)
    a, b = standardise(patches), standardise(darker)
    assert a.shape == (1, 2, PATCH_H, PATCH_W) and a.dtype == np.float32
    assert abs(float(a.mean())) < 1e-4
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.99


def test_corner_patches_cut_from_a_photo_under_an_oriented_box():
    img = np.full((480, 640, 3), 90, np.uint8)
    card = _card_with_marks()
    img[100:292, 200:328] = card  # an upright card of 128x192 at (200, 100)
    obb = np.float32([[264, 196, 128, 192, 0.0]])
    p = corner_patches(img, obb)
    assert p.shape == (1, 2, PATCH_H, PATCH_W)
    assert np.allclose(p[0, 0], p[0, 1], atol=0.35)
    assert corner_patches(img, np.zeros((0, 5), np.float32)).shape == (0, 2, PATCH_H, PATCH_W)


def test_rank_of_each_card_class():
    assert len(RANK_OF) == len(CARD_IDS)
    for cid, r in zip(CARD_IDS, RANK_OF, strict=True):
        assert str(RANKS[r]) == cid[:-1]


def test_the_half_hidden_set_is_joined_once_and_rejoined_when_a_part_changes(tmp_path):
    import os

    from training.cards.corner_index import with_hidden

    train = tmp_path / "indice_train.npz"
    np.savez(train, p=np.zeros((2, 3), np.uint8), y=np.array([1, 2]), deck=np.zeros(2, np.int8), decks=np.array(["a"]))
    calls = []

    def write(path):
        calls.append(path)
        np.savez(path, p=np.ones((1, 3), np.uint8), y=np.array([3]), deck=np.zeros(1, np.int8), decks=np.array(["a"]))

    joined = with_hidden(train, 5, write)
    assert np.load(joined)["y"].tolist() == [1, 2, 3] and len(calls) == 1
    stamp = joined.stat().st_mtime_ns
    assert with_hidden(train, 5, write) == joined and joined.stat().st_mtime_ns == stamp
    assert len(calls) == 1  # the half-hidden cards are not rendered again either
    np.savez(train, p=np.zeros((1, 3), np.uint8), y=np.array([7]), deck=np.zeros(1, np.int8), decks=np.array(["a"]))
    os.utime(train, ns=(stamp + 10**9, stamp + 10**9))
    assert np.load(with_hidden(train, 5, write))["y"].tolist() == [7, 3]
    assert with_hidden(train, 0, write) == train


def test_the_cards_of_a_photo_cut_at_once_as_one_by_one():
    rng = np.random.default_rng(0)
    w, h = INDEX_CROP
    cards = rng.integers(0, 256, (5, h, w, 3), np.uint8)
    together = corners_bgr(cards)
    assert together.shape == (5, 2, PATCH_H, PATCH_W, 3)
    assert all(np.array_equal(together[k], corners_bgr(cards[k])) for k in range(5))
