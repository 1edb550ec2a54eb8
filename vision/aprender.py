"""Learn the players' deck from the hands they confirm, with no registration photos.

A table photo is read, each card is matched to its confirmed identity (the reading's seats to
the confirmed hands, asiento 0 at the bottom; within a seat, a card read as one of that hand's
cards is that card, and the one card left over is the one left over: a correction, the most
valuable example) and the matched cards are added to the deck as examples of their ids
(:func:`vision.refuerzo.strengthen`). A deck learned from some of the 40 cards reads those cards
as a registered deck does and the others as the generic reader does
(:func:`vision.classify.partial_deck`), without calling the whole deck unfamiliar.

``mus baraja aprender`` and the phone pages of ``mus servir`` call :func:`learn`; a hand read
seat by seat on the phones teaches through :func:`learn_hand`, each seat's photo with its hand.

    >>> deck, info = learn(None, CardReader(), photo, ["12o 12c 11e 1b", ...])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scoring.cards import NotationError, check_distinct, parse_hand
from vision.arrays import Floats, Image
from vision.detections import CardDetections
from vision.reader import CardReader
from vision.refuerzo import feature_dim, strengthen
from vision.registered_deck import DeckError, RegisteredDeck, classifier_hash

# A record whose cards the photo reads, seat by seat, less than this share of is refused: it is
# most likely another hand's record, or the photo was taken from another seat.
MIN_AGREEMENT = 0.5


@dataclass(frozen=True)
class Matched:
    """The photo's cards matched to the confirmed hands: their boxes (N, 5), confirmed ids and
    whether the reader had read another card (a correction); ``left_out``: cards read but not
    matched (an ambiguous swap, a seat with a card more)."""

    obbs: Floats
    card_ids: list[str]
    corrected: list[bool]
    left_out: int


def confirmed_hands(manos: Sequence[str]) -> list[list[str]]:
    """The four confirmed hands of a hand record's ``manos`` as lists of card ids; DeckError
    (Spanish) when they are not four distinct hands."""
    if not isinstance(manos, (list, tuple)) or len(manos) != 4:
        raise DeckError("el registro debe tener 'manos': las cuatro manos de la foto, asiento 0 abajo")
    try:
        hands = [parse_hand(m) for m in manos]
        check_distinct(hands)
    except NotationError as exc:
        raise DeckError(f"el registro no vale: {exc}") from None
    return [[str(c) for c in h] for h in hands]


def _match_seat(
    mine: list[int], read: list[str], alts: list[str], hand: Sequence[str]
) -> tuple[list[tuple[int, str, bool]], int]:
    """The cards ``mine`` (indices into the reading) of one seat matched to its confirmed
    ``hand``: (read card, confirmed id, corrected) and how many read as the hand says. A card
    read as one of the hand's cards is that card; the card the reader gave as its alternative,
    or the one card left over for the one card left over, is a correction."""
    left = list(hand)
    pairs: list[tuple[int, str, bool]] = []
    rest = []
    for i in mine:
        if read[i] in left:
            left.remove(read[i])
            pairs.append((i, read[i], False))
        else:
            rest.append(i)
    agree = len(pairs)
    for i in list(rest):
        if alts[i] in left:
            left.remove(alts[i])
            rest.remove(i)
            pairs.append((i, alts[i], True))
    if len(left) == 1 and len(rest) == 1:
        pairs.append((rest[0], left[0], True))
    return pairs, agree


def _matched(dets: CardDetections, pairs: list[tuple[int, str, bool]]) -> Matched:
    idx = [i for i, _, _ in pairs]
    obbs = np.asarray(dets.obb, np.float32)[idx] if idx else np.zeros((0, 5), np.float32)
    return Matched(obbs, [c for _, c, _ in pairs], [f for _, _, f in pairs], len(dets) - len(idx))


def match(dets: CardDetections, hands: Sequence[Sequence[str]]) -> Matched:
    """Each read card of ``dets`` (with seats) matched to its confirmed id in ``hands`` (asiento
    0 at the photo's bottom); DeckError when the photo has no cards, no seats, or its cards do
    not agree with the record."""
    if not len(dets):
        raise DeckError("no se ve ninguna carta en la foto: no hay nada que aprender")
    seats = np.asarray(dets.seat)
    if (seats < 0).all():
        raise DeckError("la foto no muestra las cuatro manos de una mesa: no se sabe de quién es cada carta")
    read = [str(c) for c in dets.card_ids]
    alts = [str(a) for a in dets.alternatives]
    pairs: list[tuple[int, str, bool]] = []  # (read card, confirmed id, corrected)
    agree = 0
    for seat, hand in enumerate(hands):
        mine = [int(i) for i in np.flatnonzero(seats == seat)]
        if len(mine) > len(hand):
            raise DeckError(f"en el asiento {seat} se leen {len(mine)} cartas, más de las {len(hand)} de su mano")
        found, agreed = _match_seat(mine, read, alts, hand)
        pairs += found
        agree += agreed
    seated = int((seats >= 0).sum())
    if agree < MIN_AGREEMENT * seated:
        raise DeckError(
            f"las cartas del registro no casan con la foto ({agree} de {seated} coinciden en su "
            "asiento): ¿es el registro de esta mano, con el asiento 0 abajo?"
        )
    return _matched(dets, pairs)


def match_hand(dets: CardDetections, hand: Sequence[str]) -> Matched:
    """The read cards of a photo of one player's hand (seat by seat) matched to its confirmed
    ``hand``, as one seat of :func:`match`. What the photo shows besides (a coin, a glass the
    player left out of the reading) is left out, not an error; DeckError when no card shows
    or fewer than MIN_AGREEMENT of the hand's cards read as the hand says.

    >>> rows = [("12o", "11o"), ("3c", "5c"), ("7e", "6e"), ("1b", "1c")]
    >>> read = CardDetections.from_json({"cartas": [{"carta": c, "alternativa": a} for c, a in rows]})
    >>> m = match_hand(read, ["12o", "5c", "7e", "1b"])
    >>> m.card_ids, m.corrected, m.left_out
    (['12o', '7e', '1b', '5c'], [False, False, False, True], 0)
    """
    if not len(dets):
        raise DeckError("no se ve ninguna carta en la foto: no hay nada que aprender")
    read = [str(c) for c in dets.card_ids]
    alts = [str(a) for a in dets.alternatives]
    pairs, agree = _match_seat(list(range(len(dets))), read, alts, hand)
    if agree < MIN_AGREEMENT * min(len(hand), len(dets)):
        raise DeckError(
            f"las cartas de la mano no casan con la foto ({agree} de {len(hand)} coinciden): ¿es la foto de esta mano?"
        )
    return _matched(dets, pairs)


def learn(
    deck: RegisteredDeck | None,
    reader: CardReader,
    image: Image,
    manos: Sequence[str],
    name: str = "",
    seats: Callable[[CardDetections], CardDetections] | None = None,
) -> tuple[RegisteredDeck, Matched]:
    """``deck`` (None: a new learned deck) with the confirmed cards of one table photo added.
    ``reader`` reads the photo (it may read against ``deck``); ``manos`` are the record's four
    hands; ``seats`` turns the reading's seats into the record's (a photo taken from another
    seat; None: asiento 0 at the bottom). Returns the deck and what was matched."""
    hands = confirmed_hands(manos)
    dets = reader.read(image)
    found = match(seats(dets) if seats is not None else dets, hands)
    return _added(deck, reader, image, found, name), found


def _added(deck: RegisteredDeck | None, reader: CardReader, image: Image, found: Matched, name: str) -> RegisteredDeck:
    """``deck`` (None: a new learned deck) with the ``found`` cards of ``image`` added."""
    if deck is None:
        deck = RegisteredDeck.learned(classifier_hash(reader.folder), feature_dim(reader), name)
    if not len(found.card_ids):
        return deck
    # only the cards seen whole: a partly covered card's crop carries pieces of its neighbours,
    # and such examples made the reading worse here too (generated tables, docs/measurements.md)
    return strengthen(deck, reader, image, found.obbs, found.card_ids, found.corrected)


def learn_hand(
    deck: RegisteredDeck | None, reader: CardReader, image: Image, mano: str, name: str = ""
) -> tuple[RegisteredDeck, Matched]:
    """:func:`learn` from a photo of one player's cards (seat by seat) and that seat's confirmed
    hand ``mano`` (notation, ``"12o 3c 11e 1b"``)."""
    try:
        hand = [str(c) for c in parse_hand(mano)]
    except NotationError as exc:
        raise DeckError(f"la mano no vale: {exc}") from None
    found = match_hand(reader.read(image), hand)
    return _added(deck, reader, image, found, name), found
