"""The frame strips the pinta (suit) reader sees, and how its suits combine with the rest
(numpy + OpenCV only)."""

from __future__ import annotations

import numpy as np

from scoring.cards import CARD_IDS, SUITS
from vision.classify import combine_marks
from vision.corner_index import INDEX_CROP
from vision.pintas import STRIP_H, STRIP_W, SUIT_OF, pinta_strips, strips_bgr


def _card_with_pintas(breaks: int) -> np.ndarray:
    """A card rectified at INDEX_CROP whose frame line, inset 10 px, is broken ``breaks`` times
    along its top and bottom edges, as a Spanish card's is for its suit."""
    w, h = INDEX_CROP
    card = np.full((h, w, 3), 230, np.uint8)
    for y in (10, h - 11):
        card[y, 10 : w - 10] = 40
        for k in range(breaks):
            x = 10 + (k + 1) * (w - 20) // (breaks + 1)
            card[y, x - 5 : x + 5] = 230
    card[10 : h - 10, 10] = card[10 : h - 10, w - 11] = 40
    return card


def test_both_strips_show_the_frame_line_the_same_way_up():
    top, bottom = strips_bgr(_card_with_pintas(2))
    assert top.shape == bottom.shape == (STRIP_H, STRIP_W, 3)
    assert np.array_equal(top, bottom)
    assert (top[10, :, 0] == 40).sum() == STRIP_W - 20 - 2 * 10  # the line, less two breaks


def test_a_card_upside_down_gives_the_same_two_strips_swapped():
    card = _card_with_pintas(3)
    card[5:20, 30:60] = (0, 0, 255)  # something that is not symmetric
    a, b = strips_bgr(card), strips_bgr(np.ascontiguousarray(card[::-1, ::-1]))
    assert np.array_equal(a[0], b[1]) and np.array_equal(a[1], b[0])


def test_strips_cut_from_a_photo_under_an_oriented_box():
    img = np.full((480, 640, 3), 90, np.uint8)
    img[100:292, 200:328] = _card_with_pintas(1)  # an upright card of 128x192 at (200, 100)
    s = pinta_strips(img, np.float32([[264, 196, 128, 192, 0.0]]))
    assert s.shape == (1, 2, STRIP_H, STRIP_W) and s.dtype == np.float32
    assert np.allclose(s[0, 0], s[0, 1], atol=0.35)
    assert pinta_strips(img, np.zeros((0, 5), np.float32)).shape == (0, 2, STRIP_H, STRIP_W)


def test_suit_of_each_card_class():
    assert len(SUIT_OF) == len(CARD_IDS)
    for cid, k in zip(CARD_IDS, SUIT_OF, strict=True):
        assert SUITS[k] == cid[-1]


def test_combine_marks_weighs_each_reader_and_leaves_probabilities_alone_without_them():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(40), 3)
    ranks, suits = rng.dirichlet(np.ones(10), 3), rng.dirichlet(np.ones(4), 3)
    assert combine_marks(probs, None, None, 0.5, 0.5) is probs
    assert combine_marks(probs, ranks, suits, 0, 0) is probs
    out = combine_marks(probs, ranks, suits, 0.5, 1.0)
    assert np.allclose(out.sum(1), 1)
    from vision.corner_index import RANK_OF

    expected = probs * ranks[:, RANK_OF] ** 0.5 * suits[:, SUIT_OF]
    assert np.allclose(out, expected / expected.sum(1, keepdims=True))
    # suits only: within one suit the ratios between cards stay the classifier's
    only = combine_marks(probs, None, suits, 0.5, 1.0)
    oros = SUIT_OF == 0
    assert np.allclose(
        only[:, oros] / only[:, oros].sum(1, keepdims=True), probs[:, oros] / probs[:, oros].sum(1, keepdims=True)
    )


def test_the_strips_of_a_photo_cut_at_once_as_one_by_one():
    rng = np.random.default_rng(0)
    cards = rng.integers(0, 256, (5, 192, STRIP_W, 3), np.uint8)
    together = strips_bgr(cards)
    assert together.shape == (5, 2, STRIP_H, STRIP_W, 3)
    assert all(np.array_equal(together[k], strips_bgr(cards[k])) for k in range(5))
