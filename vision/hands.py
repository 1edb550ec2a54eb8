"""Seat by seat: the four hands from four photos, one player's four cards each, in seat order.

Where the whole table does not fit the camera, or reads poorly, each player's cards are
photographed in turn: photo k holds the hand of seat k (0 the player nearest the camera at the
table, then counter-clockwise, as :mod:`vision.seats` numbers them; which seat is mano is said
apart). The detections of each photo are that seat's hand: a photo with other than four cards,
or a card already read in another photo, is refused with a message naming the photo and the
cards.

    >>> import numpy as np
    >>> def photo(ids):
    ...     n = len(ids)
    ...     one = np.ones(n, np.float32)
    ...     return CardDetections(np.zeros((n, 4), np.float32), np.zeros((n, 5), np.float32),
    ...                           np.array(ids, object), one, one, one, np.array(ids, object),
    ...                           np.zeros(n, bool), np.full(n, -1, np.int8))
    >>> hands = seat_hands([("a.jpg", photo(["1o", "2o", "3o", "4o"])),
    ...                     ("b.jpg", photo(["1c", "2c", "3c", "4c"])),
    ...                     ("c.jpg", photo(["1e", "2e", "3e", "4e"])),
    ...                     ("d.jpg", photo(["1b", "2b", "3b", "4b"]))])
    >>> hands.hands[3]
    ['1b', '2b', '3b', '4b']
    >>> try:
    ...     seat_hands([("a.jpg", photo(["1o", "2o", "3o"]))] * 4)
    ... except HandsError as exc:
    ...     print(exc)
    a.jpg (asiento 0): se ven 3 cartas (1o 2o 3o), una mano son 4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vision.detections import CardDetections
from vision.seats import HAND, N_SEATS, NOT_16


class HandsError(ValueError):
    """The photos do not make four hands; the message names the photo and the cards."""


@dataclass(frozen=True)
class SeatHands:
    """The four hands in seat order, and the warnings of the photos (each naming its photo)."""

    hands: list[list[str]]
    warnings: list[str] = field(default_factory=list)


def seat_hands(readings: Sequence[tuple[str, CardDetections]]) -> SeatHands:
    """The four hands from four readings (photo name, its detections), in seat order; raises
    HandsError for other than four photos, a photo with other than four cards, or a card read
    in two photos."""
    if len(readings) != N_SEATS:
        raise HandsError(f"se esperan {N_SEATS} fotos, una por asiento (0 a 3), no {len(readings)}")
    seen: dict[str, tuple[int, str]] = {}  # card -> (seat, photo) where it was read first
    hands, warnings = [], []
    for seat, (name, dets) in enumerate(readings):
        ids = [str(c) for c in dets.card_ids]
        where = f"{name} (asiento {seat})"
        if len(ids) != HAND:
            shown = f" ({' '.join(ids)})" if ids else ""
            raise HandsError(f"{where}: se ven {len(ids)} cartas{shown}, una mano son {HAND}")
        for card in ids:
            if card in seen:
                other_seat, other = seen[card]
                raise HandsError(
                    f"{where}: la carta {card} ya se ha leído en {other} (asiento "
                    f"{other_seat}): repite la foto o corrige la carta"
                )
            seen[card] = (seat, name)
        hands.append(ids)
        warnings += [f"{where}: {w}" for w in photo_warnings(dets)]
    return SeatHands(hands, warnings)


def photo_warnings(dets: CardDetections) -> list[str]:
    """A hand photo's warnings, less the seat step's (one hand is never four groups of four)."""
    seats_warning = NOT_16.format(n=len(dets))
    return [w for w in dets.warnings if w != seats_warning]
