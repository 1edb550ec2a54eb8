"""The generic reader's card checked against two design-free marks: a number card's pips counted
(:mod:`vision.pips`) and the printed corner index's rank (:mod:`vision.corner_index`).

On real photos of a modern Fournier deck (a design the classifier never saw) the generic reader
read the 5 de copas as the 3 or the 7 de copas and swapped the rey and caballo de bastos, while
the marks that tell them apart are the same in every Spanish deck: five cups are five cups, and
the index prints ``11`` on the caballo and ``12`` on the rey. After the assembly, on a table the
classifier takes for a known deck (an unfamiliar one already counts its pips and flags every
card), with no registered deck:

- **pips**: each card given a number card (2-7) or offered one as its runner-up is counted
  (unless its corner index is all but sure of the card's rank, :func:`countable`); a
  card whose count (when the counter is sure, :class:`vision.pips.PipCount`) is not its rank is
  flagged, its alternative the card of the counted rank in its suit. It is moved to that card
  only when the count is *above* its rank (a covered card hides pips, none appear) and the
  runner-up is that card; a moved card stays flagged.
- **corner index**: a card whose corner-index reader gives its rank at most INDEX_AGAINST
  while giving another rank at least INDEX_SURE is flagged, its alternative the card of the
  index's rank in its suit: the classifier and the index disagree (on a court, sota, caballo
  and rey, the index is the telling mark; on a number card it still reads where the pips are
  covered or unsure).

A check never changes a card without a flag. The cards' fields (supervision style) say why:
``data["pips"]`` (N,) the count, 0 where not counted or unsure, and ``data["contradicted"]``
(N,) which cards a mark contradicts.

    >>> labels = np.array([CARD_IDS.index("3c"), CARD_IDS.index("12b")])
    >>> alt = np.array([CARD_IDS.index("5c"), CARD_IDS.index("11b")])
    >>> ranks = np.full((2, 10), 0.01); ranks[1, RANKS.index(11)] = 0.9
    >>> out = cross_check(labels, alt, np.array([5, 0]), ranks)
    >>> [CARD_IDS[i] for i in out.labels], out.contradicted.tolist(), [CARD_IDS[i] for i in out.alt]
    (['5c', '12b'], [True, True], ['3c', '11b'])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.cards import CARD_IDS, RANKS
from vision.arrays import Floats, Ints, Mask

RANK = np.array([int(c[:-1]) for c in CARD_IDS])  # each card class's rank (1-7, 10-12)
RANK_INDEX = np.array([RANKS.index(r) for r in RANK])  # each card class's column of the ranks
NUMBER_RANKS = (2, 3, 4, 5, 6, 7)  # the cards whose pips are counted
COURTS = (10, 11, 12)  # sota, caballo, rey
# The index contradicts the card when it gives the card's rank at most INDEX_AGAINST and another
# rank at least INDEX_SURE: a court's (its index the one mark that tells it) and a number card's
# (the pips tell it too). Chosen on 80 generated validation tables and 80 close-ups of the two
# reference decks (a proxy): with the pips, 13 right cards flagged that were not (4 of them at
# least 70 % in view); a court's at 0.7/0.1 11, at 0.5/0.2 15 (5 in view), but the swapped rey
# and caballo de bastos of training.cards.pips comprobar flagged 20 and 24 of 28 at 0.7/0.1, 22
# and 25 here, 24 and 26 at 0.5/0.2; a number card's at 0.7/0.1, 7 more right cards.
INDEX_SURE = {"court": 0.5, "number": 0.9}
INDEX_AGAINST = {"court": 0.1, "number": 0.03}
# A card whose corner index gives its rank this much is not counted: two design-free readers
# agree. On those generated photos (80 tables and 80 close-ups of each deck, validation and
# evaluation) it spares a third of the counts (11.1 -> 7.4 cards a table) and changes no flag.
INDEX_AGREES = 0.99
_CARD = {(int(c[:-1]), c[-1]): i for i, c in enumerate(CARD_IDS)}


@dataclass(frozen=True)
class CrossCheck:
    """The cards after the check: ``labels`` and ``alt`` (N,) indices into CARD_IDS, which
    cards a mark ``contradicted`` (N,): these are flagged, and the ``pips`` (N,) counted (0
    where not counted or unsure)."""

    labels: Ints
    alt: Ints
    contradicted: Mask
    pips: Ints


def countable(labels: Ints, alt: Ints, ranks: Floats | None = None) -> Mask:
    """The cards a pip count can say something of: given a number card or offered one, unless
    the corner index (``ranks``, as in :func:`cross_check`) gives the card's rank INDEX_AGREES.

    >>> countable(np.array([CARD_IDS.index("5c"), CARD_IDS.index("12b")]),
    ...           np.array([CARD_IDS.index("3c"), CARD_IDS.index("11b")])).tolist()
    [True, False]
    """
    number: Mask = np.isin(RANK[labels], NUMBER_RANKS) | np.isin(RANK[alt], NUMBER_RANKS)
    if ranks is not None:
        number &= ranks[np.arange(len(labels)), RANK_INDEX[labels]] < INDEX_AGREES
    return number


def cross_check(labels: Ints, alt: Ints, pips: Ints, ranks: Floats | None) -> CrossCheck:
    """Check each card (``labels``, runner-up ``alt``) against its ``pips`` (N,) (0 where not
    counted or unsure) and its corner index's rank probabilities ``ranks`` (N, 10) in
    scoring.cards.RANKS order (None without that reader)."""
    labels, alt = np.array(labels, np.int64), np.array(alt, np.int64)
    contradicted = np.zeros(len(labels), bool)
    taken = set(labels.tolist())
    for i in range(len(labels)):
        rank, suit = int(RANK[labels[i]]), CARD_IDS[labels[i]][-1]
        count = int(pips[i])
        if count and count != rank:
            contradicted[i] = True
            counted = _CARD[(count, suit)]
            if count > rank and alt[i] == counted and counted not in taken:
                taken.discard(int(labels[i]))
                taken.add(counted)
                labels[i], alt[i] = counted, labels[i]
            else:
                alt[i] = counted
        elif ranks is not None:
            kind = "court" if rank in COURTS else "number"
            best = int(ranks[i].argmax())
            if (
                RANKS[best] != rank
                and ranks[i, best] >= INDEX_SURE[kind]
                and ranks[i, RANKS.index(rank)] <= INDEX_AGAINST[kind]
            ):
                contradicted[i] = True
                alt[i] = _CARD[(RANKS[best], suit)]
    return CrossCheck(labels, alt, contradicted, np.asarray(pips, np.int64))
