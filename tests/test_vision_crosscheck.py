"""The generic reader's cross-check of its cards against their pips and their corner index
(vision.crosscheck): the rules on given numbers, and the whole reader on close-ups rendered from
the reference decks with the classifier made to read the 5 de copas as the 3 or the 7, or the
rey and caballo de bastos as each other (only its card probabilities are changed: the detector,
the mark readers and the pip counter run as shipped). How often it flags a right card on
generated photos is measured (training/cards/pips.py comprobar, training.cards.evaluate
--sin-comprobar), not asserted here."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.cards import CARD_IDS, RANKS
from training.cards.decks import DECKS, decks_root
from vision.classify import CardProbabilities, Classifier
from vision.crosscheck import INDEX_AGAINST, INDEX_AGREES, INDEX_SURE, countable, cross_check
from vision.cutout import Cutouts
from vision.models import CLASSIFIER_FILE, CORNER_INDEX_FILE, DETECTOR_FILE, models_dir

needs_decks = pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
needs_models = pytest.mark.skipif(
    not all((models_dir() / f).is_file() for f in (DETECTOR_FILE, CLASSIFIER_FILE, CORNER_INDEX_FILE)),
    reason="the trained models are not in models/",
)


def ids(*cards: str) -> np.ndarray:
    return np.array([CARD_IDS.index(c) for c in cards])


def names(labels: np.ndarray) -> list[str]:
    return [CARD_IDS[i] for i in labels]


def index_saying(rank: int, p: float, n: int = 1) -> np.ndarray:
    """Corner-index probabilities (n, 10): ``rank`` at ``p``, the rest spread evenly."""
    ranks = np.full((n, len(RANKS)), (1 - p) / (len(RANKS) - 1))
    ranks[:, RANKS.index(rank)] = p
    return ranks


def test_a_count_above_the_rank_moves_the_card_to_its_runner_up_and_flags_it():
    check = cross_check(ids("3c"), ids("5c"), np.array([5]), None)
    assert names(check.labels) == ["5c"] and names(check.alt) == ["3c"]
    assert check.contradicted.tolist() == [True]


def test_a_count_below_the_rank_only_flags_since_a_covered_card_hides_pips():
    check = cross_check(ids("7c"), ids("5c"), np.array([5]), None)
    assert names(check.labels) == ["7c"] and names(check.alt) == ["5c"]
    assert check.contradicted.tolist() == [True]


def test_a_count_the_runner_up_does_not_share_or_a_taken_card_only_flags():
    check = cross_check(ids("3c"), ids("4c"), np.array([5]), None)  # the runner-up is not the 5
    assert names(check.labels) == ["3c"] and names(check.alt) == ["5c"] and check.contradicted.all()
    check = cross_check(ids("3c", "5c"), ids("5c", "6c"), np.array([5, 0]), None)  # the 5 is on the table
    assert names(check.labels) == ["3c", "5c"] and check.contradicted.tolist() == [True, False]


def test_an_agreeing_or_unsure_count_changes_nothing():
    check = cross_check(ids("5c", "3o", "12b"), ids("3c", "5o", "11b"), np.array([5, 0, 0]), None)
    assert names(check.labels) == ["5c", "3o", "12b"] and names(check.alt) == ["3c", "5o", "11b"]
    assert not check.contradicted.any()
    assert check.pips.tolist() == [5, 0, 0]


def test_the_cards_a_count_can_speak_of():
    given, offered = ids("5c", "12b", "1o", "10e"), ids("12c", "11b", "4o", "1e")
    assert countable(given, offered).tolist() == [True, False, True, False]
    # not a card whose corner index is all but sure of its rank: two design-free readers agree
    ranks = np.vstack([index_saying(5, INDEX_AGREES), index_saying(5, 0.9), index_saying(3, 0.999)])
    assert countable(ids("5c", "5o", "5e"), ids("3c", "3o", "3e"), ranks).tolist() == [False, True, True]


def test_a_court_whose_corner_index_reads_another_rank_is_flagged():
    sure, against = INDEX_SURE["court"], INDEX_AGAINST["court"]
    ranks = np.vstack([index_saying(11, sure), index_saying(11, sure - 0.1), index_saying(12, 0.95)])
    check = cross_check(ids("12b", "12b", "12b"), ids("10b", "11b", "11b"), np.zeros(3, np.int64), ranks)
    # the index sure of the caballo: flagged, the caballo offered; unsure, or agreeing: nothing
    assert check.contradicted.tolist() == [True, False, False]
    assert names(check.alt) == ["11b", "11b", "11b"]
    assert names(check.labels) == ["12b", "12b", "12b"]  # the index never moves a card
    assert ranks[0, RANKS.index(12)] <= against


def test_a_number_card_needs_a_surer_index_than_a_court():
    sure = INDEX_SURE["number"]
    ranks = np.vstack([index_saying(5, INDEX_SURE["court"]), index_saying(5, sure)])
    check = cross_check(ids("3c", "3o"), ids("4c", "4o"), np.zeros(2, np.int64), ranks)
    assert check.contradicted.tolist() == [False, True]
    assert names(check.alt)[1] == "5o"


@needs_decks
@pytest.mark.parametrize("deck", DECKS)
def test_a_crop_of_the_five_de_copas_printed_small_or_blurred_contradicts_a_three_or_a_seven(deck):
    """The 5 de copas of each reference design, printed at table size or smaller, sharp or
    blurred, cut out as the reader cuts it: its pips count five, so read as the 3 (the 5 its
    runner-up) it moves to the 5, read as the 7 it stays, both flagged; a 3 or 7 read right is
    not flagged."""
    from training.cards.decks import load_deck
    from training.cards.pips import printed_face
    from vision.pips import pip_count

    faces = load_deck(deck)
    for height, blur in ((96, 0.0), (96, 2.0), (64, 0.0), (144, 1.5)):
        count = pip_count(printed_face(faces["5c"], height, blur)).count
        assert count == 5, (height, blur)
        as_three = cross_check(ids("3c"), ids("5c"), np.array([count]), None)
        assert names(as_three.labels) == ["5c"] and as_three.contradicted.all()
        as_seven = cross_check(ids("7c"), ids("5c"), np.array([count]), None)
        assert names(as_seven.labels) == ["7c"] and names(as_seven.alt) == ["5c"] and as_seven.contradicted.all()
        for right in ("3c", "7c"):
            own = pip_count(printed_face(faces[right], height, blur)).count or 0
            assert not cross_check(ids(right), ids("5c"), np.array([own]), None).contradicted.any(), right


class ForcedClassifier(Classifier):
    """The folder's classifier, but a crop it reads as ``truth`` it reads as ``read``, almost
    surely, with ``truth`` its runner-up: only the card probabilities change, never the marks'."""

    def __init__(self, base: Classifier, truth: str, read: str):
        super().__init__(base.folder, base.threads, base.deck, base.index_weight, base.pinta_weight, base.both_ways)
        self.truth, self.read = CARD_IDS.index(truth), CARD_IDS.index(read)

    def classify(self, cards: Cutouts) -> CardProbabilities:
        p = super().classify(cards)
        probs = p.cards.copy()
        hit = probs.argmax(1) == self.truth
        probs[hit] = 1e-9
        probs[hit, self.truth] = 1e-4
        probs[hit, self.read] = 1 - probs[hit].sum(1) + probs[hit, self.read]
        return CardProbabilities(probs, p.ranks, p.suits)


def _read_closeup(deck: str, cards: list[str], truth: str, read: str, check: bool):
    from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
    from vision.reader import CardReader, ReaderSettings

    reader = CardReader(settings=ReaderSettings(cross_check=check))
    reader.classifier = ForcedClassifier(reader.classifier, truth, read)
    scene = render_scene(
        np.random.default_rng(2),
        decks=(deck,),
        backgrounds=HOLDOUT_BACKGROUNDS,
        kind="mano",
        card_ids=cards,
        hand_style="row",
    )
    return reader.read(scene.image)


@needs_models
@needs_decks
@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("read", ["3c", "7c"])
def test_a_five_de_copas_read_as_the_three_or_the_seven_is_flagged(deck, read):
    """A close-up of the 5 de copas (and three cards of other suits) the classifier reads as
    the 3 or the 7 de copas: without the check the reader says so with no flag; with it the
    counted five cups flag the card, and move a 3 to the 5 (its runner-up), never a 7."""
    cards = ["5c", "1o", "12e", "4b"]
    unchecked = _read_closeup(deck, cards, "5c", read, check=False)
    assert read in unchecked.ids and "5c" not in unchecked.ids
    assert not unchecked.low_confidence[unchecked.ids.index(read)]  # the failure the check is for
    dets = _read_closeup(deck, cards, "5c", read, check=True)
    assert sorted(dets.ids) == sorted(cards if read == "3c" else ["7c", *cards[1:]])
    row = dets.ids.index("5c" if read == "3c" else "7c")
    assert dets.low_confidence[row] and dets.data["contradicted"][row]
    assert dets.data["pips"][row] == 5
    assert dets.alternatives[row] == ("3c" if read == "3c" else "5c")
    assert not dets.low_confidence[[i for i in range(len(dets)) if i != row]].any()  # the others as read


@needs_models
@needs_decks
@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize(("truth", "read"), [("12b", "11b"), ("11b", "12b")])
def test_a_rey_and_caballo_de_bastos_swapped_are_flagged_by_their_corner_index(deck, truth, read):
    cards = ["5c", "1o", truth, "4e"]
    unchecked = _read_closeup(deck, cards, truth, read, check=False)
    assert read in unchecked.ids and not unchecked.low_confidence[unchecked.ids.index(read)]
    dets = _read_closeup(deck, cards, truth, read, check=True)
    row = dets.ids.index(read)  # still the classifier's card, flagged, the index's offered
    assert dets.low_confidence[row] and dets.data["contradicted"][row]
    assert dets.alternatives[row] == truth
    assert "confirma las cartas dudosas" in dets.warnings[-1] and f"{read} (¿o {truth}?)" in dets.warnings[-1]
