"""Whose cards are whose: four groups of four around the table, in seat order.

Seat 0 is the group nearest the bottom edge of the photo (the camera side), then
counter-clockwise as seen on the screen: 1 right, 2 top, 3 left. When the cards do not lie in
four separate groups of four, no seats are given and a warning says why.

Two readings, the first that holds wins:

1. **By orientation.** A player lays their cards facing them, so from the camera side the
   bottom and top hands stand upright on the screen and the right and left hands lie sideways.
   The eight most sideways cards split by x (right, left), the other eight by height (bottom,
   top). This is what tells apart two hands that touch at a corner of the table.
2. **By position**, when the orientations do not split eight and eight (a photo from a corner,
   cards thrown anyhow): four runs of four consecutive cards around the centroid, improved by
   swapping cards between groups while that makes the groups tighter.

Either way the groups must then be separate (each pair of groups further apart than the wider
one is spread; by position, also every card nearer to a card of its own group than
to any other), or no seats are given.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from vision.arrays import Floats, Ints
from vision.detections import CardDetections

N_SEATS, HAND = 4, 4
ORIENTATION_MARGIN = 0.15  # the 8th most sideways card must beat the 9th by this (log ratio)


def _sideways_score(obb: Floats) -> Floats:
    """log(screen-horizontal side / the other side) of each card: about log(1.5 / t) for a card
    lying sideways and log(1 / (1.5 t)) for one standing upright, where t <= 1 is how much the
    camera's tilt squashes the table vertically. The two kinds stay a factor 2.25 apart at any
    tilt, while a far upright card can look wider than tall. Cards turned about 45 degrees
    score near 0."""
    w, h, a = obb[:, 2], obb[:, 3], obb[:, 4]
    along_a_is_horizontal = np.abs(np.cos(a)) >= np.abs(np.sin(a))
    side_x = np.where(along_a_is_horizontal, w, h)
    side_y = np.where(along_a_is_horizontal, h, w)
    # a card turned about 45 degrees says nothing about its hand: weight by how square it sits
    return np.log(np.maximum(side_x, 1e-6) / np.maximum(side_y, 1e-6)) * np.abs(np.cos(2 * a))


def _groups_by_orientation(centres: Floats, obb: Floats) -> Ints | None:
    """Labels 0 bottom, 1 right, 2 top, 3 left from orientation, or None when it is ambiguous."""
    score = _sideways_score(obb)
    order = np.argsort(-score, kind="stable")
    if score[order[7]] - score[order[8]] < ORIENTATION_MARGIN:
        return None
    labels = np.empty(len(centres), np.int64)
    sideways, upright = order[:8], order[8:]
    by_y = upright[np.argsort(-centres[upright, 1], kind="stable")]
    labels[by_y[:4]], labels[by_y[4:]] = 0, 2
    by_x = sideways[np.argsort(-centres[sideways, 0], kind="stable")]
    labels[by_x[:4]], labels[by_x[4:]] = 1, 3
    return labels


def _spread_cost(points: Floats, labels: Ints) -> float:
    return float(sum(((points[labels == g] - points[labels == g].mean(0)) ** 2).sum() for g in range(N_SEATS)))


def _groups_by_position(centres: Floats) -> Ints:
    """Four runs of four around the centroid (best offset), then balanced swaps (always 4x4)."""
    c = centres.mean(0)
    order = np.argsort(np.arctan2(centres[:, 1] - c[1], centres[:, 0] - c[0]))
    best, best_cost = None, math.inf
    for offset in range(HAND):
        labels = np.empty(len(centres), np.int64)
        labels[np.roll(order, -offset)] = np.repeat(np.arange(N_SEATS), HAND)
        cost = _spread_cost(centres, labels)
        if cost < best_cost:
            best, best_cost = labels, cost
    assert best is not None
    # The spread of four groups of four is a quarter of the summed squared distances within
    # groups, so the change of every swap comes at once from the card-to-group sums; take the
    # best swap until none makes the groups tighter (terminates: the cost strictly falls).
    d2 = ((centres[:, None] - centres[None]) ** 2).sum(-1)
    cards = np.arange(len(centres))
    while True:
        to_group = d2 @ np.eye(N_SEATS)[best]
        own = to_group[cards, best]
        delta = to_group[:, best] + to_group[:, best].T - 2 * d2 - own[:, None] - own[None, :]
        delta[best[:, None] == best[None, :]] = 0
        i, j = np.unravel_index(int(np.argmin(delta)), delta.shape)
        if delta[i, j] >= -1e-9:
            return best
        best = best.copy()
        best[i], best[j] = best[j], best[i]


def _seat_order(cents: Floats) -> Ints:
    """Seat of each group: 0 the one nearest the bottom edge, then counter-clockwise on screen."""
    centre = cents.mean(0)
    ang = np.arctan2(cents[:, 1] - centre[1], cents[:, 0] - centre[0])  # bottom ~ +pi/2
    bottom = int(np.argmax(cents[:, 1]))
    rel = (ang[bottom] - ang) % (2 * math.pi)  # decreasing angle = counter-clockwise on screen
    seat_of_group = np.empty(N_SEATS, np.int8)
    seat_of_group[np.argsort(rel, kind="stable")] = np.arange(N_SEATS)
    return seat_of_group


def _separate(centres: Floats, labels: Ints, card_size: float) -> bool:
    """Each pair of groups lies further apart than the wider of the two is spread (plus a
    margin): perspective makes the near hand wide and the far one narrow, so pair by pair."""
    cents = np.stack([centres[labels == g].mean(0) for g in range(N_SEATS)])
    spread = [float(np.linalg.norm(centres[labels == g] - cents[g], axis=1).max()) for g in range(N_SEATS)]
    return all(
        float(np.linalg.norm(cents[a] - cents[b])) >= max(spread[a], spread[b]) + card_size
        for a in range(N_SEATS)
        for b in range(a + 1, N_SEATS)
    )


def _each_card_near_its_own(centres: Floats, labels: Ints) -> bool:
    """Every card lies nearer to a card of its own hand than to any card of another hand."""
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(d, np.inf)
    same = labels[:, None] == labels[None]
    return bool((np.where(same, d, np.inf).min(1) < np.where(same, np.inf, d).min(1)).all())


NOT_16 = "se han encontrado {n} cartas, se esperan 16: no se asignan asientos"
NOT_SEPARATE = (
    "las cartas no forman cuatro grupos de cuatro separados (manos demasiado juntas "
    "o mezcladas): no se asignan asientos"
)


def seat_labels(obb: Floats) -> Ints | None:
    """The seat of each of 16 oriented boxes (0 bottom, 1 right, 2 top, 3 left), or None when
    they are not 16 or do not lie in four separate groups of four. The same boxes are grouped
    once: one reading asks for them at each step (the table check, the assembly, the seats) and
    a reading against a learned deck reads the same boxes twice; the last few groupings are
    kept by the boxes' bytes (a new array each time)."""
    if len(obb) != N_SEATS * HAND:
        return None
    obb = np.ascontiguousarray(obb, np.float64)
    labels = _grouped(obb.tobytes())
    return None if labels is None else labels.copy()


@lru_cache(maxsize=16)  # thread-safe; the key is the 16 boxes' float64 bytes (1 KiB)
def _grouped(key: bytes) -> Ints | None:
    return group_seats(np.frombuffer(key, np.float64).reshape(N_SEATS * HAND, -1))


def group_seats(obb: Floats) -> Ints | None:
    """:func:`seat_labels`'s grouping itself, done every time it is called."""
    centres = obb[:, :2]
    card_size = float(np.median(np.maximum(obb[:, 2], obb[:, 3])))
    labels = _groups_by_orientation(centres, obb)
    if labels is not None and _separate(centres, labels, 0.25 * card_size):
        return labels  # already 0 bottom, 1 right, 2 top, 3 left
    labels = _groups_by_position(centres)
    if not (_separate(centres, labels, 0.5 * card_size) and _each_card_near_its_own(centres, labels)):
        return None
    cents = np.stack([centres[labels == g].mean(0) for g in range(N_SEATS)])
    seats: Ints = _seat_order(cents)[labels]
    return seats


def assign_seats(dets: CardDetections) -> CardDetections:
    """Fill ``dets.seat`` (0 bottom, 1 right, 2 top, 3 left) or add a warning saying why not."""
    n = len(dets)
    dets.seat = np.full(n, -1, np.int8)
    labels = seat_labels(dets.obb)
    if labels is not None:
        dets.seat = labels.astype(np.int8)
    else:
        dets.warnings.append(NOT_16.format(n=n) if n != N_SEATS * HAND else NOT_SEPARATE)
    return dets
