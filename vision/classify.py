"""Stage 3 of reading a photo: which card each cut-out is, as probabilities over the 40 cards.

Three readers, each optional but the first:

- the card classifier (``carta_cls.onnx``) reads each crop, and the crop turned half a turn
  (BOTH_WAYS), and averages the two; against a registered deck its 40-way head is not used:
  each card is named by the registered card it looks most like (its features, and the
  registered faces matched patch by patch, :mod:`vision.registered_deck`);
- the corner-index reader (``carta_idx.onnx``) gives the printed rank's probabilities;
- the pinta reader (``carta_palo.onnx``) gives the suit's, from the breaks in the frame line.

:func:`combine_marks` multiplies the card probabilities by the rank's and the suit's, each to
the power of its weight (chosen on validation tables).

    >>> p = np.full((1, 40), 1 / 40)
    >>> out = CardProbabilities(p, None, np.array([[0.97, 0.01, 0.01, 0.01]])).combined(0.5, 1.0)
    >>> round(float(out[0, CARD_IDS.index("12o")] / out[0, CARD_IDS.index("12c")]), 6)
    97.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS
from vision.arrays import Floats, Image, Ints, Mask
from vision.corner_index import RANK_OF, corners_bgr, standardise
from vision.cutout import Cutouts, cut_out
from vision.models import (
    CLASSIFIER_FILE,
    CORNER_INDEX_FILE,
    DEFAULT_THREADS,
    FAST_CLASSIFIER_FILE,
    PINTAS_FILE,
    OnnxSession,
    optional_session,
    session,
)
from vision.pintas import SUIT_OF, strips_bgr
from vision.registered_deck import RegisteredDeck

INDEX_WEIGHT = 0.5  # the corner index's weight, chosen on validation tables (models/README.md)
PINTA_WEIGHT = 0.5  # the pintas' weight, chosen on validation tables (models/README.md)
# Reading each crop both ways and averaging: one way only is a fifth faster and as good on the
# designs the classifier knows, but reads 1-1.5 points fewer cards of a design it never saw
# (validation tables).
BOTH_WAYS = True


@dataclass(frozen=True)
class CardProbabilities:
    """What the readers say of N cards: ``cards`` (N, 40), the classifier's (or the registered
    deck's) probabilities; ``ranks`` (N, 10) in scoring.cards.RANKS order and ``suits`` (N, 4)
    in scoring.cards.SUITS order, or None without that reader."""

    cards: Floats
    ranks: Floats | None
    suits: Floats | None

    def __len__(self) -> int:
        return len(self.cards)

    def combined(self, rank_weight: float, suit_weight: float) -> Floats:
        """The card probabilities with the marks' multiplied in (:func:`combine_marks`)."""
        return combine_marks(self.cards, self.ranks, self.suits, rank_weight, suit_weight)

    def rows(self, index: Ints | Mask | slice) -> CardProbabilities:
        """These rows only (an index array, a boolean mask or a slice)."""

        def part(a: Floats | None) -> Floats | None:
            return None if a is None else a[index]

        return CardProbabilities(self.cards[index], part(self.ranks), part(self.suits))

    def joined(self, other: CardProbabilities) -> CardProbabilities:
        """These rows followed by ``other``'s (both from the same readers)."""

        def part(a: Floats | None, b: Floats | None) -> Floats | None:
            return None if a is None or b is None else np.concatenate([a, b])

        return CardProbabilities(
            np.concatenate([self.cards, other.cards]), part(self.ranks, other.ranks), part(self.suits, other.suits)
        )

    def mark_data(self, labels: Ints) -> dict[str, Floats]:
        """For the cards given ``labels``: each mark reader's probability of the card's rank
        (suit) and its highest of any, as ``CardDetections.data`` keeps them."""
        out: dict[str, Floats] = {}
        for key, probs, of in (("corner_index", self.ranks, RANK_OF), ("pintas", self.suits, SUIT_OF)):
            if probs is not None and len(labels):
                out[key] = np.stack([probs[np.arange(len(labels)), of[labels]], probs.max(1)], 1).astype(np.float32)
        return out


class Classifier:
    """The card classifier and the two mark readers of a folder (the marks optional), or the
    classifier's features against a registered deck. Sessions load on first use.

    Without a deck and with ``fast`` the card probabilities come from the folder's int8
    classifier (FAST_CLASSIFIER_FILE) where it has one; :meth:`run_network` (the features a deck
    is registered, learned and read with) is always the fp32 file's."""

    def __init__(
        self,
        folder: str | Path,
        threads: int = DEFAULT_THREADS,
        deck: RegisteredDeck | None = None,
        index_weight: float = INDEX_WEIGHT,
        pinta_weight: float = PINTA_WEIGHT,
        both_ways: bool = BOTH_WAYS,
        fast: bool = True,
    ):
        self.folder = Path(folder)
        self.threads = threads
        self.deck = deck
        self.index_weight = index_weight
        self.pinta_weight = pinta_weight
        self.both_ways = both_ways
        self.fast = fast
        # the optional sessions, looked up once (not a file check on every read)
        self._optional: dict[str, OnnxSession | None] = {}

    @property
    def network_file(self) -> Path:
        return self.folder / CLASSIFIER_FILE

    @property
    def network(self) -> OnnxSession:
        return session(str(self.network_file), self.threads)

    @property
    def generic_network(self) -> OnnxSession:
        """What the card probabilities come from without a deck: the int8 classifier where the
        folder has one and ``fast``, else the fp32 one."""
        if self.fast and self.deck is None:
            fast = self._optional_session(FAST_CLASSIFIER_FILE)
            if fast is not None:
                return fast
        return self.network

    @property
    def index_reader(self) -> OnnxSession | None:
        """The corner-index rank reader, or None where the folder has none (or its weight is 0)."""
        return self._optional_session(CORNER_INDEX_FILE) if self.index_weight else None

    @property
    def pinta_reader(self) -> OnnxSession | None:
        """The pintas' suit reader, or None where the folder has none (or its weight is 0)."""
        return self._optional_session(PINTAS_FILE) if self.pinta_weight else None

    def _optional_session(self, name: str) -> OnnxSession | None:
        if name not in self._optional:
            self._optional[name] = optional_session(self.folder, name, self.threads)
        return self._optional[name]

    @property
    def has_marks(self) -> bool:
        return self.index_reader is not None or self.pinta_reader is not None

    def load(self) -> Classifier:
        """Load the ONNX models now (otherwise the first read does)."""
        _ = self.network, self.generic_network, self.index_reader, self.pinta_reader
        return self

    def run_network(self, crops: Image, sess: OnnxSession | None = None) -> tuple[Floats, Floats | None]:
        """Logits (N, 40) and features (N, D) of BGR uint8 crops (N, 96, 64, 3); features are
        None with a classifier exported without them. ``sess``: another classifier of the same
        inputs and outputs (default the fp32 one, whose features a deck is tied to)."""
        sess = sess or self.network
        blob = crops.transpose(0, 3, 1, 2).astype(np.float32)
        blob /= 255
        out = sess.run(None, {sess.get_inputs()[0].name: blob})
        logits: Floats = out[0]
        feats: Floats | None = out[1] if len(out) > 1 else None
        return logits, feats

    def cut_out(self, image: Image, obbs: Floats) -> Cutouts:
        """Stage 2 for this classifier: the sizes its readers take."""
        small = self.deck is not None and self.deck.has_templates
        return cut_out(image, obbs, small=small, rectified=self.has_marks)

    def classify(self, cards: Cutouts) -> CardProbabilities:
        """Each cut-out card's probabilities (see :class:`CardProbabilities`)."""
        if len(cards) == 0:
            return CardProbabilities(np.zeros((0, len(CARD_IDS)), np.float32), None, None)
        crops = cards.crops
        if self.both_ways:  # and the crop turned half a turn, in one batch
            crops = np.concatenate([crops, crops[:, ::-1, ::-1]])
        logits, feats = self.run_network(crops, self.generic_network)
        n = len(cards)
        generic = softmax(logits)
        generic = (generic[:n] + generic[n:]) / 2 if self.both_ways else generic
        if self.deck is not None and self.deck.known.any():
            if feats is None:
                raise ValueError("este clasificador no da rasgos: vuelve a exportarlo para usar una baraja registrada")
            probs = self.deck.probabilities(feats[:n], feats[n:] if self.both_ways else None, cards.small)
            if self.deck.partial:
                probs = partial_deck(generic, probs, self.deck.known)
        else:
            probs = generic
        return CardProbabilities(
            probs, _read_marks(self.index_reader, corners_bgr, cards), _read_marks(self.pinta_reader, strips_bgr, cards)
        )

    def classify_boxes(self, image: Image, obbs: Floats) -> CardProbabilities:
        """Stages 2 and 3 at once: the cards under ``obbs`` cut out and classified."""
        if len(obbs) == 0:
            return self.classify(Cutouts(np.zeros((0, 96, 64, 3), np.uint8), None, None))
        return self.classify(self.cut_out(image, obbs))


def _read_marks(sess: OnnxSession | None, cut: Callable[[Image], Image], cards: Cutouts) -> Floats | None:
    """Probabilities from a mark reader (None without one): ``cut`` takes the two views of
    every card rectified at INDEX_CROP, all at once."""
    if sess is None or cards.rectified is None:
        return None
    views = standardise(cut(cards.rectified))
    return softmax(sess.run(None, {sess.get_inputs()[0].name: views})[0])


def combine_marks(
    probs: Floats, ranks: Floats | None, suits: Floats | None, rank_weight: float, suit_weight: float
) -> Floats:
    """``probs`` (N, 40) times ``ranks`` (N, 10) to the power ``rank_weight`` at each card's
    rank and ``suits`` (N, 4) to the power ``suit_weight`` at its suit, normalised; a part that
    is None (no such reader) or weighs 0 leaves them as they are."""
    if len(probs) == 0:
        return probs
    out = probs
    if ranks is not None and rank_weight:
        out = out * ranks[:, RANK_OF] ** rank_weight
    if suits is not None and suit_weight:
        out = out * suits[:, SUIT_OF] ** suit_weight
    if out is probs:
        return probs
    combined: Floats = out / np.maximum(out.sum(1, keepdims=True), 1e-12)
    return combined


def partial_deck(generic: Floats, deck: Floats, known: Mask) -> Floats:
    """The probabilities against a deck that knows only some cards (learned from a few
    confirmed hands): the generic classifier says how likely the crop is one of the known
    cards, the deck which of them; the other cards keep the generic classifier's
    probabilities. With all 40 known it is the deck's alone.

    >>> g = np.array([[0.5, 0.3, 0.2]]); d = np.array([[0.1, 0.8, 0.1]])
    >>> [round(float(v), 3) for v in partial_deck(g, d, np.array([True, True, False]))[0]]
    [0.089, 0.711, 0.2]
    """
    out = np.array(generic, np.float32, copy=True)
    k = np.asarray(known, bool)
    mass = generic[:, k].sum(1, keepdims=True)
    among = deck[:, k] / np.maximum(deck[:, k].sum(1, keepdims=True), 1e-12)
    out[:, k] = mass * among
    return out


def softmax(x: Floats) -> Floats:
    e = np.exp(x - x.max(1, keepdims=True))
    probs: Floats = e / e.sum(1, keepdims=True)
    return probs
