"""Stage 4 of reading a photo: the table, one card per box, each card at most once.

From the detector's boxes and the readers' probabilities:

1. a card boxed twice (two overlapping boxes that read as the same card, most often in a fan)
   gives way to the best left-out candidate that reads as another card and keeps four hands;
2. each box is given a different card (:func:`assign_unique`: greedy, best pair first);
3. a weak box given an unlikely card is not a card (a phone, a card back, a napkin) and is
   dropped, unless it completes a table of 16 in four hands;
4. a sure box beyond 16 that reads as a card another box took is dropped when the other 16
   make four hands;
5. a table whose cards look like no deck the classifier knows (:func:`unfamiliar`) is given
   again with the pintas weighing more and, where a number card's pips are counted for sure
   (:mod:`vision.pips`), the card of that rank preferred (:func:`agree_with_pips`).

Seats are given afterwards (:func:`vision.seats.assign_seats`) and the doubtful cards flagged
(:mod:`vision.flags`).

    >>> assign_unique(np.array([[0.9, 0.1, 0.0], [0.8, 0.15, 0.05]]))[0].tolist()
    [0, 1]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from scoring.cards import CARD_IDS, RANKS
from vision.arrays import Floats, Ints, Mask
from vision.classify import CardProbabilities
from vision.detect import SWAP_CANDIDATES, TABLE_CARDS, DetectedBoxes, left_out_mask
from vision.geometry import rotated_iou
from vision.seats import seat_labels

# Two kept boxes that overlap this much (rotated IoU) and read as the same card are one card
# boxed twice (chosen on validation tables: 0.2 and 0.3 the same, 0.4 and 0.5 fewer).
DUPLICATE_IOU = 0.3
DUPLICATE_ROUNDS = 3  # swaps at most per photo
# Off a table of 16 (a close-up, loose cards) there is no table to say which card a duplicate
# stands for: a box overlapping a better one this much and reading as the same card is that
# card boxed twice (in a fan the detector boxes one card at two angles), and is dropped.
# Neighbours of a fan overlap by 0.5-0.6 but read as different cards.
CLOSE_DUPLICATE_IOU = 0.5
NOT_A_CARD_SCORE, NOT_A_CARD_PROB = 0.5, 0.1  # detector score, probability of its card
# A deck design the classifier never saw gives low class probabilities across the table: mean
# 0.36-0.73 a table on an unseen design against 0.60-0.95 on the known ones (60 validation
# tables each). Under 0.65, with 8 cards or more and no registered deck, every card is flagged
# and the user is told to register the deck: 56 and 59 of 60 unseen-design tables, 0 and 1 of
# the known designs'.
UNFAMILIAR_DECK, UNFAMILIAR_MIN_CARDS = 0.65, 8
# On such a table the pintas (the same convention in every Spanish deck) weigh this instead:
# 81.4 -> 83.5 % and 74.5 -> 75.7 % of the cards on 60 validation tables of each design read by
# models trained on the other, none wrong without a warning.
UNFAMILIAR_PINTA_WEIGHT = 1.0
# And a number card whose pips are counted for sure (vision.pips: the same in every Spanish deck)
# is given a card of that rank where the readers allow one: every other rank's probability is
# multiplied by PIP_PENALTY. Only the cards a count could change are counted (worth_counting:
# 5.4 of 16 a table with the classifier blind, 0.9 with it unsure; about 0.9 ms a card).
# Chosen on 60 validation tables of each design read with the classifier made blind or unsure
# (a proxy of an unfamiliar deck, training/cards/pips.py leer): card F1 0.765 -> 0.805 and
# 0.863 -> 0.880 blind, 0.976 -> 0.977 and 0.971 -> 0.971 unsure; 0.1 as good on average but
# once below no pips, 0.03 and under worse. On 100 evaluation tables: blind 0.778 -> 0.821 and
# 0.867 -> 0.883 (exact 12 -> 16 and 29 -> 28), unsure 0.979 -> 0.979 and 0.964 -> 0.966.
PIP_PENALTY = 0.3

# A photo of anything else (a cup, a portrait, a cat, a drawn face) gives a few boxes of
# detector scores up to 0.8 on no card. A photo with fewer than CARD_EVIDENCE_BOXES boxes shows
# cards only if its most card-like box has a card evidence (card_evidence) of CARD_EVIDENCE, or
# CARD_EVIDENCE_LONE when it is the photo's only box (a lone box is the commonest phantom, and
# one card alone is no Mus photo); the generic classifier's probabilities, even against a
# registered deck, whose similarities are sharp on anything. CARD_EVIDENCE was chosen on the
# tuned part of training/cards/negatives.py (the 22 photos of scikit-image whole and cropped,
# drawn faces: 108 photos) against generated validation photos of both designs (72 close-ups
# each, the generator's and nearer, 20 of loose cards: 162 with fewer than 8 boxes): 0.35 let
# 11 of the 108 read as cards, 0.43-0.47 7 (0.51 and over 6), while the least card-like of the
# 162 keeps 0.61; when only the rank and suit readers count (as on a design the classifier
# never saw) 161 of them keep 0.45 as they keep 0.37. The middle of that plateau is taken; the
# held-out part (52 photos of other packages, other faces) went from 5 read as cards to none.
CARD_EVIDENCE, CARD_EVIDENCE_LONE, CARD_EVIDENCE_BOXES = 0.45, 0.55, 8
# A box of card evidence under BOX_EVIDENCE is not a card (a card back, a phone, a napkin),
# unless the boxes are 16 in four hands. On the sure boxes of generated validation photos of
# close-ups and loose cards (30 of each, two designs) it drops 28 of 60 boxes on no card and 6
# of 343 cards (3 of them read right); on tables 4 of 22 and none of 477.
BOX_EVIDENCE = 0.25
# A table of 16 boxes in four hands skips that check (a real table's cards are often half
# hidden), but a patterned cloth can give one: a generated empty table on polka dots read as 16
# cards, the classifier taking the dots for oros. Such a table, or any photo of
# CARD_EVIDENCE_BOXES boxes or more (the same cloth shrunk another way gave 16 boxes out of
# hands, 12 of them read as cards), shows cards only if MARKS_SHARE of its boxes show a rank and
# a suit to the design-free mark readers (detector score times the geometric mean of their
# highest probabilities at least BOX_EVIDENCE): on 116 generated validation tables of both
# designs the share was at least 0.62 (0.81 and more on most), on that cloth 0. A quarter keeps
# a deck whose marks read far worse than the reference decks'.
MARKS_SHARE = 0.25
RANK = np.array([int(c[:-1]) for c in CARD_IDS])  # each card class's rank (1-7, 10-12)
RANK_COLUMNS = [np.flatnonzero(np.equal(RANK, r)) for r in RANKS]  # the card classes of each rank

ClassifyBoxes = Callable[[Floats], CardProbabilities]  # boxes -> their probabilities
CountPips = Callable[[Floats], Ints]  # boxes -> their cards' pip counts, 0 where unsure (vision.pips)


@dataclass(frozen=True)
class AssemblySettings:
    """The weights the combined probabilities are made with, and the steps switched on."""

    index_weight: float
    pinta_weight: float
    registered: bool = False  # read against a registered deck (never "unfamiliar")
    has_pinta_reader: bool = True
    replace_duplicates: bool = True
    drop_taken: bool = True
    pip_penalty: float = PIP_PENALTY  # see agree_with_pips


@dataclass(frozen=True)
class Table:
    """The assembled cards: ``boxes`` (N, 5), ``det_scores`` (N,), the readers' ``parts``, the
    given ``labels`` (indices into scoring.cards.CARD_IDS), each label's probability
    ``cls_conf``, the runner-up ``alt``, ``moved`` (the assignment gave a card its second choice)
    and whether the deck looked ``unfamiliar``."""

    boxes: Floats
    det_scores: Floats
    parts: CardProbabilities
    labels: Ints
    cls_conf: Floats
    alt: Ints
    moved: Mask
    unfamiliar: bool

    def __len__(self) -> int:
        return len(self.boxes)


def assemble(
    detected: DetectedBoxes,
    parts: CardProbabilities,
    classify_boxes: ClassifyBoxes,
    settings: AssemblySettings,
    count_pips: CountPips | None = None,
) -> Table:
    """The table from the detector's boxes and their probabilities; ``classify_boxes`` reads
    left-out candidates that may replace a duplicate; ``count_pips`` (None: not used) counts the
    pips of the cards of an unfamiliar deck. May be empty (nothing card-like)."""
    boxes, scores = detected.boxes, detected.scores
    probs = parts.combined(settings.index_weight, settings.pinta_weight)
    if settings.replace_duplicates:
        boxes, scores, parts, probs = replace_duplicates(
            boxes, scores, parts, probs, detected, classify_boxes, settings
        )
    if settings.replace_duplicates and len(boxes) != TABLE_CARDS:
        keep = without_duplicates(boxes, scores, probs.argmax(1))
        boxes, scores, probs, parts = boxes[keep], scores[keep], probs[keep], parts.rows(keep)
    labels, cls_conf, alt = assign_unique(probs)
    # A weak box given an unlikely card is not a card: dropped rather than shown as a guess,
    # unless it completes a table of 16 in four hands, where it most likely stands for a
    # half-hidden card the user will confirm.
    card_like = (scores >= NOT_A_CARD_SCORE) | (cls_conf >= NOT_A_CARD_PROB)
    if not card_like.all() and (len(boxes) != TABLE_CARDS or seat_labels(boxes) is None):
        boxes, scores, probs, parts = boxes[card_like], scores[card_like], probs[card_like], parts.rows(card_like)
        labels, cls_conf, alt = assign_unique(probs)
    if settings.drop_taken and len(boxes) > TABLE_CARDS:
        untaken = without_taken(boxes, cls_conf)
        if untaken is not None:
            boxes, scores, probs, parts = boxes[untaken], scores[untaken], probs[untaken], parts.rows(untaken)
            labels, cls_conf, alt = assign_unique(probs)
    moved = labels != probs.argmax(1) if len(probs) else np.zeros(0, bool)
    table = Table(boxes, scores.astype(np.float32), parts, labels, cls_conf, alt, moved, False)
    # whether the cards look like a known deck is the classifier's judgement alone: the printed
    # marks sharpen the probabilities (on an unseen design they hid the warning on 30-40 % of
    # the validation tables)
    if not settings.registered and unfamiliar(parts.cards[np.arange(len(labels)), labels]):
        table = replace(table, unfamiliar=True)
        reweigh = settings.has_pinta_reader and settings.pinta_weight != UNFAMILIAR_PINTA_WEIGHT
        # without a pinta reader its weight changes nothing
        probs = parts.combined(settings.index_weight, UNFAMILIAR_PINTA_WEIGHT) if reweigh else probs
        pips: Ints = np.zeros(len(boxes), np.int64)
        ask = worth_counting(probs, settings.pip_penalty)
        if count_pips is not None and ask.any():
            pips[ask] = count_pips(boxes[ask])
        if reweigh or pips.any():
            labels, cls_conf, alt = assign_unique(agree_with_pips(probs, pips, settings.pip_penalty))
            table = replace(table, labels=labels, cls_conf=cls_conf, alt=alt)
    return table


def worth_counting(probs: Floats, penalty: float) -> Mask:
    """The cards whose pips, once counted, might change the card they are given: those whose
    best card of some number rank (2-7) other than their first choice's has at least ``penalty``
    times its probability (:func:`agree_with_pips`); none when ``penalty`` is 1 or more.

    >>> p = np.full((2, 40), 1e-4); p[:, CARD_IDS.index("3c")] = 0.6
    >>> p[0, CARD_IDS.index("5c")] = 0.3  # the second card has no other rank in sight
    >>> worth_counting(p, 0.3).tolist()
    [True, False]
    """
    if penalty >= 1 or not len(probs):
        return np.zeros(len(probs), bool)
    by_rank = np.stack([probs[:, columns].max(1) for columns in RANK_COLUMNS], 1)  # (N, 10)
    first = by_rank.argmax(1)
    other = by_rank >= penalty * by_rank[np.arange(len(probs)), first][:, None]
    other[np.arange(len(probs)), first] = False
    worth: Mask = other[:, [RANKS.index(r) for r in range(2, 8)]].any(1)
    return worth


def agree_with_pips(probs: Floats, pips: Ints, penalty: float = PIP_PENALTY) -> Floats:
    """``probs`` (N, 40) with each card whose pips were counted (``pips`` (N,), 0 where not)
    leaning to the cards of that rank: the others' probabilities times ``penalty``, normalised.

    >>> p = np.zeros((1, 40)); p[0, CARD_IDS.index("3c")], p[0, CARD_IDS.index("5c")] = 0.6, 0.4
    >>> out = agree_with_pips(p, np.array([5]))
    >>> CARD_IDS[int(out.argmax())], round(float(out.max()), 3)
    ('5c', 0.69)
    """
    counted = pips > 0
    if not counted.any():
        return probs
    weight = np.where(RANK[None, :] == pips[:, None], 1.0, penalty)
    out = np.where(counted[:, None], probs * weight, probs)
    agreed: Floats = out / np.maximum(out.sum(1, keepdims=True), 1e-12)
    return agreed


def card_evidence(det_scores: Floats, generic: CardProbabilities, index_weight: float, pinta_weight: float) -> Floats:
    """How much each box looks like a card: its detector score times the likelier of its best
    card's probability (the generic classifier's, marks multiplied in) and what the marks alone
    say (the geometric mean of the rank reader's and the suit reader's highest probability,
    the same in every Spanish deck, where the classifier may not know the design).

    >>> p = CardProbabilities(np.full((1, 40), 0.025), np.full((1, 10), 0.1), np.eye(1, 4))
    >>> card_evidence(np.float32([0.8]), p, 0.5, 0.5).round(3).tolist()
    [0.253]
    """
    best = generic.combined(index_weight, pinta_weight).max(1)
    marks = marks_confidence(generic)
    if marks is not None:
        best = np.maximum(best, marks)
    evidence: Floats = np.asarray(det_scores, np.float64) * best
    return evidence


def marks_confidence(parts: CardProbabilities) -> Floats | None:
    """What the marks alone say of each card, the same in every Spanish deck: the geometric mean
    of the rank reader's and the suit reader's highest probability (None without both)."""
    if parts.ranks is None or parts.suits is None:
        return None
    sure: Floats = np.sqrt(parts.ranks.max(1) * parts.suits.max(1))
    return sure


def shows_cards(evidence: Floats) -> bool:
    """Whether a photo whose boxes have this card evidence shows cards (see CARD_EVIDENCE)."""
    if len(evidence) >= CARD_EVIDENCE_BOXES:
        return True
    need = CARD_EVIDENCE_LONE if len(evidence) == 1 else CARD_EVIDENCE
    return bool(len(evidence)) and float(evidence.max()) >= need


def marks_show_cards(det_scores: Floats, parts: CardProbabilities) -> bool:
    """Whether many boxes (a table of 16 in four hands, or CARD_EVIDENCE_BOXES or more) are
    cards by their marks (see MARKS_SHARE); True without both mark readers, which cannot tell.

    >>> cards, scores = np.full((16, 40), 0.025), np.full(16, 0.9)
    >>> unsure = CardProbabilities(cards, np.full((16, 10), 0.1), np.full((16, 4), 0.25))
    >>> marks_show_cards(scores, unsure)
    False
    >>> sure = CardProbabilities(cards, np.eye(10)[np.arange(16) % 10], np.eye(4)[np.arange(16) % 4])
    >>> marks_show_cards(scores, sure)
    True
    """
    marks = marks_confidence(parts)
    if marks is None:
        return True
    return bool(np.mean(np.asarray(det_scores, np.float64) * marks >= BOX_EVIDENCE) >= MARKS_SHARE)


def unfamiliar(cls_conf: Floats) -> bool:
    """Whether the classifier's probabilities of the given cards say they look like no deck
    it knows (see UNFAMILIAR_DECK)."""
    return len(cls_conf) >= UNFAMILIAR_MIN_CARDS and float(np.mean(cls_conf)) < UNFAMILIAR_DECK


def replace_duplicates(
    boxes: Floats,
    scores: Floats,
    parts: CardProbabilities,
    probs: Floats,
    detected: DetectedBoxes,
    classify_boxes: ClassifyBoxes,
    settings: AssemblySettings,
) -> tuple[Floats, Floats, CardProbabilities, Floats]:
    """A table of 16 where two overlapping boxes read as the same card holds one card twice
    and misses another: the weaker box is swapped for the best left-out candidate that reads
    as no kept box's card and keeps the table in four hands, the other cards in their seats.
    Returns boxes, scores, parts and combined probabilities, sorted by score; as they were when
    no swap is found."""
    cand_b, cand_s = detected.candidates, detected.candidate_scores
    for _ in range(DUPLICATE_ROUNDS):
        if len(boxes) != TABLE_CARDS:
            break
        dup = _duplicate(boxes, scores, probs.argmax(1))
        if dup is None:
            break
        left_out = left_out_mask(cand_b, cand_s, boxes)
        extra_b = cand_b[left_out][:SWAP_CANDIDATES].astype(np.float32)
        if not len(extra_b):
            break
        extra = classify_boxes(extra_b)
        extra_p = extra.combined(settings.index_weight, settings.pinta_weight)
        kept = np.arange(len(boxes)) != dup
        seats = seat_labels(boxes)
        swap = _first_swap(
            boxes[kept], probs[kept].argmax(1), None if seats is None else seats[kept], extra_b, extra_p.argmax(1)
        )
        if swap is None:
            break
        pick = slice(swap, swap + 1)
        boxes = np.concatenate([boxes[kept], extra_b[pick]])
        scores = np.concatenate([scores[kept], cand_s[left_out][pick]])
        parts = parts.rows(kept).joined(extra.rows(pick))
        probs = np.concatenate([probs[kept], extra_p[pick]])
        order = np.argsort(-scores, kind="stable")
        boxes, scores, probs, parts = boxes[order], scores[order], probs[order], parts.rows(order)
    return boxes, scores.astype(np.float32), parts, probs


def without_duplicates(boxes: Floats, scores: Floats, top: Ints) -> Ints:
    """Indices of the boxes (sorted by score) left when each box overlapping a better kept one
    by CLOSE_DUPLICATE_IOU or more and reading as the same card (``top``) is dropped."""
    kept: list[int] = []
    for i in range(len(boxes)):
        if not any(top[k] == top[i] and rotated_iou(boxes[k], boxes[i]) >= CLOSE_DUPLICATE_IOU for k in kept):
            kept.append(i)
    return np.asarray(kept, np.int64)


def without_taken(boxes: Floats, cls_conf: Floats) -> Ints | None:
    """More than 16 boxes, because one beyond the 16 best was sure: when the extra boxes are
    those whose card (after the assignment) is the least likely, each under NOT_A_CARD_PROB
    (they read as cards other boxes already took: a card boxed twice, a box across two cards),
    and the other 16 lie in four hands, the indices of those 16; else None (the photo may
    really show more cards, and the seat step says so)."""
    extra = len(boxes) - TABLE_CARDS
    drop = np.argsort(cls_conf, kind="stable")[:extra]
    if (cls_conf[drop] >= NOT_A_CARD_PROB).any():
        return None
    keep = np.setdiff1d(np.arange(len(boxes)), drop)
    return keep if seat_labels(boxes[keep]) is not None else None


def _is_duplicate(a: Floats, b: Floats) -> bool:
    return rotated_iou(a, b) >= DUPLICATE_IOU


def _duplicate(boxes: Floats, scores: Floats, top: Ints) -> int | None:
    """The index of the weaker box of the strongest pair that overlaps (rotated IoU >=
    DUPLICATE_IOU) and reads as the same card (``top``: each box's likeliest card), or None."""
    order = np.argsort(-scores, kind="stable")
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if top[a] == top[b] and _is_duplicate(boxes[a], boxes[b]):
                return int(b)
    return None


def _first_swap(kept: Floats, kept_top: Ints, kept_seats: Ints | None, extra: Floats, extra_top: Ints) -> int | None:
    """The first of the ``extra`` boxes (by score) that duplicates no ``kept`` box and, added to
    them, makes four hands, leaving the ``kept`` boxes in their seats (``kept_seats``, when the
    table had seats before the swap); None if none does."""
    for c in range(len(extra)):
        if any(kept_top[m] == extra_top[c] and _is_duplicate(kept[m], extra[c]) for m in range(len(kept))):
            continue
        seats = seat_labels(np.concatenate([kept, extra[c : c + 1]]))
        if seats is not None and (kept_seats is None or (seats[:-1] == kept_seats).all()):
            return c
    return None


def assign_unique(probs: Floats) -> tuple[Ints, Floats, Ints]:
    """Give each detection a different card: greedy on probability, best pair first.

    Returns (labels, probability of the given label, runner-up label) per detection."""
    n, k = probs.shape
    labels = np.full(n, -1, np.int64)
    work = probs.astype(np.float64).copy()
    for _ in range(min(n, k)):
        i, j = np.unravel_index(np.argmax(work), work.shape)
        labels[i] = j
        work[i, :] = -1
        work[:, j] = -1
    conf = probs[np.arange(n), labels]
    masked = probs.copy()
    masked[np.arange(n), labels] = -1
    alt: Ints = masked.argmax(1)
    return labels, conf, alt
