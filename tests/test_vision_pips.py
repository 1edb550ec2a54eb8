"""The pip counter (vision.pips) on the faces of both reference decks and on drawn cards, and its
use by the assembly of a table of an unfamiliar deck (vision.assemble.agree_with_pips). How often
it counts right on generated photos is measured by training/cards/pips.py, not asserted here."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.cards import CARD_IDS
from training.cards.decks import DECKS, decks_root
from vision.assemble import PIP_PENALTY, AssemblySettings, agree_with_pips, assemble, worth_counting
from vision.classify import CardProbabilities
from vision.corner_index import INDEX_CROP
from vision.detect import DetectedBoxes
from vision.geometry import crop_cards
from vision.pips import PipCount, _ink_distance, _lab, pip_count, pip_counts

needs_decks = pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
NUMBER_CARDS = [c for c in CARD_IDS if 2 <= int(c[:-1]) <= 7]
NOT_COUNTED = [c for c in CARD_IDS if not 2 <= int(c[:-1]) <= 7]  # the as and the courts


def _drawn_card(centres: list[tuple[int, int]], radius: int | list[int] = 14) -> np.ndarray:
    """A card at INDEX_CROP on cream paper, with a thin frame line, a corner index and a red
    round sign of ``radius`` (one, or one a sign) at each of ``centres``."""
    w, h = INDEX_CROP
    card = np.full((h, w, 3), (215, 235, 240), np.uint8)
    cv2.rectangle(card, (8, 12), (w - 9, h - 13), (60, 60, 60), 1)
    cv2.putText(card, "5", (10, 26), cv2.FONT_HERSHEY_PLAIN, 0.9, (40, 40, 40), 1)
    radii = radius if isinstance(radius, list) else [radius] * len(centres)
    for (x, y), r in zip(centres, radii, strict=True):
        cv2.circle(card, (x, y), r, (40, 40, 200), -1)
    return card


FIVE = [(40, 45), (88, 45), (64, 96), (40, 147), (88, 147)]


def test_drawn_signs_are_counted_whichever_way_up_and_at_any_size():
    card = _drawn_card(FIVE)
    assert pip_count(card).count == 5
    assert pip_count(np.ascontiguousarray(card[::-1, ::-1])).count == 5
    assert pip_count(cv2.resize(card, (64, 96), interpolation=cv2.INTER_AREA)).count == 5
    assert pip_count(_drawn_card([(64, 45), (64, 147)])).count == 2
    assert pip_count(_drawn_card([(40, 45), (88, 45), (40, 147), (88, 147)])).count == 4
    counted = pip_count(card)
    assert 1 - 1 / 2.5 <= counted.confidence < 1


def test_a_blank_a_blurred_or_a_noisy_crop_is_not_counted():
    w, h = INDEX_CROP
    blank = np.full((h, w, 3), 230, np.uint8)
    assert pip_count(blank) == PipCount(None, 0.0)
    assert pip_count(cv2.GaussianBlur(_drawn_card(FIVE), (0, 0), 6)).count == 5  # soft, still five
    assert pip_count(cv2.GaussianBlur(_drawn_card(FIVE), (0, 0), 20)).count is None  # melted into the paper
    noise = np.random.default_rng(0).integers(0, 256, (h, w, 3), dtype=np.uint8)
    assert pip_count(noise).count is None
    assert pip_count(_drawn_card([(64, 96)], radius=40)).count is None  # one sign: an as or a court


def test_signs_out_of_a_spanish_layout_or_of_unlike_sizes_are_not_counted():
    assert pip_count(_drawn_card([(40, 45), (88, 45), (40, 96)])).count is None  # an L, not a 3
    assert pip_count(_drawn_card([(40, 45), (88, 45), (40, 147), (88, 147)], [9, 9, 20, 9])).count is None


def test_the_cards_under_boxes_of_a_photo_are_counted_zero_where_unsure():
    photo = np.full((480, 640, 3), 90, np.uint8)
    photo[100:292, 100:228] = _drawn_card(FIVE)
    photo[100:292, 400:528] = 230  # a blank card
    boxes = np.float32([[164, 196, 128, 192, 0.0], [464, 196, 128, 192, 0.0]])
    assert pip_counts(photo, boxes).tolist() == [5, 0]
    assert pip_counts(photo, np.zeros((0, 5), np.float32)).tolist() == []
    cut = crop_cards(photo, boxes, INDEX_CROP)  # cards the caller already cut: the same counts
    assert pip_counts(photo, boxes, cut).tolist() == [5, 0]


def _weighted_lab_distance(card: np.ndarray) -> tuple[np.ndarray, float]:
    """The ink distance and level as the counter first computed them (float32 arithmetic on the
    Lab values: the lightness halved, the paper subtracted, squared, summed, the root)."""
    h, w = card.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(card, (3, 3), 0), cv2.COLOR_BGR2Lab)
    my, mx = round(0.15 * h), round(0.15 * w)
    middle = lab[my : h - my : 3, mx : w - mx : 3].reshape(-1, 3)
    light, k = middle[:, 0], int(0.6 * len(middle))
    paper = np.median(middle[light >= np.partition(light, k)[k]], 0)
    weights = np.array([0.5, 1, 1], np.float32)
    d = lab.astype(np.float32) * weights - (weights * paper).astype(np.float32)
    dist = np.sqrt((d * d).sum(2, dtype=np.float32)).astype(np.float32)
    otsu, _ = cv2.threshold(cv2.convertScaleAbs(dist[my : h - my, mx : w - mx], alpha=2), 0, 255, cv2.THRESH_OTSU)
    return dist, max(otsu / 2, 18.0)


def test_the_ink_distance_from_a_lookup_table_is_the_float_arithmetic_exactly():
    """The counter sums 16 x the weighted squares from a per-card table of whole numbers: the
    root is exactly four times the float32 arithmetic's, on any colours."""
    rng = np.random.default_rng(1)
    cards = [_drawn_card(FIVE), rng.integers(0, 256, (192, 128, 3), dtype=np.uint8)]
    cards += [cv2.GaussianBlur(rng.integers(0, 256, (192, 128, 3), dtype=np.uint8), (0, 0), 3) for _ in range(4)]
    # paper of two colours as lightly, half the middle's pixels each: its median falls between
    striped = np.full((192, 128, 3), (193, 215, 225), np.uint8)
    for x in range(21, 128, 6):  # 3 columns in 6, each centred on a column the paper is taken from
        striped[:, x : x + 3] = (188, 215, 228)
    cards += [striped, striped // 2 + _drawn_card(FIVE) // 2]
    for card in cards:
        ref, level = _weighted_lab_distance(card)
        dist, level4 = _ink_distance(_lab(card[None])[0])
        assert level4 == 4 * level
        assert np.array_equal(dist, 4 * ref)


@needs_decks
@pytest.mark.parametrize("deck", DECKS)
def test_the_number_cards_of_both_designs_are_counted_right_or_not_at_all(deck):
    """Printed at table size (96 px high) and at twice that, upright: no wrong count, and at
    least 20 of the 24 number cards counted (the crossed 3 de bastos never is)."""
    from training.cards.decks import load_deck
    from training.cards.pips import printed_face

    faces = load_deck(deck)
    for height in (96, 192):
        counts = {cid: pip_count(printed_face(faces[cid], height)).count for cid in NUMBER_CARDS}
        assert all(k in (None, int(cid[:-1])) for cid, k in counts.items()), counts
        assert sum(k is not None for k in counts.values()) >= 20, counts
        assert counts["5c"] == 5  # five cups, whatever the design
    for cid in NUMBER_CARDS:  # blurred out of shape at table size: never a wrong count
        assert pip_count(printed_face(faces[cid], 96, 6.0)).count in (None, int(cid[:-1])), cid


@needs_decks
@pytest.mark.parametrize("deck", DECKS)
def test_the_as_and_the_courts_are_not_counted(deck):
    from training.cards.decks import load_deck
    from training.cards.pips import printed_face

    faces = load_deck(deck)
    for cid in NOT_COUNTED:
        for height, blur in ((64, 1.0), (192, 0.0)):
            assert pip_count(printed_face(faces[cid], height, blur)).count is None, (cid, height, blur)


@needs_decks
def test_the_cards_of_a_generated_close_up_are_counted_right_or_not_at_all():
    from training.cards.dataset import scene_rng
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.geometry import quad_to_obb

    right = 0
    for deck in DECKS:
        for i in range(3):
            scene = render_scene(
                scene_rng(0, "eval", 40_000 + i),
                decks=(deck,),
                backgrounds=HOLDOUT_BACKGROUNDS,
                kind="mano",
                card_ids=["5c", "7o", "4e", "6b"],
                hand_style="row",
            )
            counts = pip_counts(scene.image, np.stack([quad_to_obb(q) for q in scene.corners]))
            assert all(k in (0, int(c[:-1])) for c, k in zip(scene.card_ids, counts, strict=True)), counts
            right += int((counts > 0).sum())
    assert right >= 12  # of 24


def _table(first: dict[str, float], own: float) -> tuple[DetectedBoxes, CardProbabilities]:
    """16 boxes far apart; the first card's probabilities ``first``, each other card its own
    id (none a 3 or a 5) at ``own``, the rest spread evenly."""
    boxes = np.float32([[100 + 150 * (i % 4), 100 + 200 * (i // 4), 60, 90, 0.0] for i in range(16)])
    others = [c for c in CARD_IDS if int(c[:-1]) not in (3, 5)][:15]
    probs = np.zeros((16, len(CARD_IDS)))
    for cid, p in first.items():
        probs[0, CARD_IDS.index(cid)] = p
    probs[0][probs[0] == 0] = (1 - sum(first.values())) / (len(CARD_IDS) - len(first))
    for i, cid in enumerate(others, start=1):
        probs[i] = (1 - own) / (len(CARD_IDS) - 1)
        probs[i, CARD_IDS.index(cid)] = own
    scores = np.full(16, 0.9, np.float32)
    return DetectedBoxes(boxes, scores, boxes, scores), CardProbabilities(probs, None, None)


def _assemble(detected, parts, counts, registered=False, penalty=PIP_PENALTY):
    asked = []

    def count_pips(boxes):
        asked.append(len(boxes))
        out = np.zeros(len(boxes), np.int64)
        out[0] = counts
        return out

    settings = AssemblySettings(
        0.5, 0.5, registered, False, replace_duplicates=False, drop_taken=False, pip_penalty=penalty
    )
    table = assemble(detected, parts, lambda b: CardProbabilities(np.zeros((0, 40)), None, None), settings, count_pips)
    return CARD_IDS[int(table.labels[0])], table, asked


def test_on_an_unfamiliar_deck_the_counted_pips_pick_the_rank_and_every_card_stays_flagged():
    """The readers lean to the 3 de copas, the pips say five: the 5 de copas is given (the 3
    its runner-up), and the table is still an unfamiliar deck's, every card to confirm. Only
    that card is counted: the others' readers see no other number rank near their first."""
    detected, parts = _table({"3c": 0.3, "5c": 0.2}, own=0.3)
    card, table, asked = _assemble(detected, parts, counts=5)
    assert table.unfamiliar and asked == [1]
    assert card == "5c" and CARD_IDS[int(table.alt[0])] == "3c"
    assert _assemble(detected, parts, counts=0)[0] == "3c"  # no count: as the readers say
    assert _assemble(detected, parts, counts=5, penalty=1.0)[0] == "3c"  # the pips switched off
    # no card of another number rank in sight: not counted (a count could not change the card)
    card, _, asked = _assemble(*_table({"3c": 0.9}, own=0.3), counts=5)
    assert card == "3c" and asked == []


def test_a_familiar_or_registered_deck_does_not_count_pips():
    card, table, asked = _assemble(*_table({"3c": 0.9, "5c": 0.05}, own=0.95), counts=5)
    assert not table.unfamiliar and asked == [] and card == "3c"
    card, table, asked = _assemble(*_table({"3c": 0.3, "5c": 0.2}, own=0.3), counts=5, registered=True)
    assert not table.unfamiliar and asked == [] and card == "3c"


def test_agree_with_pips_leaves_the_uncounted_cards_alone():
    rng = np.random.default_rng(1)
    probs = rng.dirichlet(np.ones(len(CARD_IDS)), 3)
    out = agree_with_pips(probs, np.array([0, 4, 0]))
    assert np.allclose(out[[0, 2]], probs[[0, 2]]) and np.allclose(out.sum(1), 1)
    fours = [k for k, c in enumerate(CARD_IDS) if c[:-1] == "4"]
    assert out[1, fours].sum() > probs[1, fours].sum()
    assert agree_with_pips(probs, np.zeros(3, np.int64)) is probs


def test_only_the_cards_a_count_could_change_are_counted():
    probs = np.full((3, len(CARD_IDS)), 1e-4)
    probs[:, CARD_IDS.index("3c")] = 0.6
    probs[0, CARD_IDS.index("5o")] = 0.25  # another number rank in sight
    probs[1, CARD_IDS.index("3e")] = 0.3  # the same rank in another suit: the count is no help
    probs[2, CARD_IDS.index("12c")] = 0.3  # a court: pips are never counted as one
    assert worth_counting(probs, 0.3).tolist() == [True, False, False]
    assert not worth_counting(probs, 1.0).any()
