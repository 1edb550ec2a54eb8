"""Whose cards are whose: four groups of four around the table, in seat order.

Seat 0 is the group nearest the bottom edge of the photo (the camera side), then
counter-clockwise as seen on the screen: 1 right, 2 top, 3 left. When the cards do not lie in
four separate groups of four, no seats are given and a warning says why.
"""

from __future__ import annotations

import math

import numpy as np

from vision.detections import CardDetections

N_SEATS, HAND = 4, 4


def _groups_by_angle(centres: np.ndarray) -> np.ndarray:
    """Split 16 points into 4 runs of 4 consecutive points around their centroid (best spread)."""
    c = centres.mean(0)
    ang = np.arctan2(centres[:, 1] - c[1], centres[:, 0] - c[0])
    order = np.argsort(ang)
    best, best_cost = None, math.inf
    for offset in range(HAND):
        rolled = np.roll(order, -offset)
        labels = np.empty(len(centres), np.int64)
        cost = 0.0
        for g in range(N_SEATS):
            idx = rolled[g * HAND:(g + 1) * HAND]
            labels[idx] = g
            cost += float(np.linalg.norm(centres[idx] - centres[idx].mean(0), axis=1).sum())
        if cost < best_cost:
            best, best_cost = labels, cost
    assert best is not None
    return best


def _kmeans(points: np.ndarray, labels: np.ndarray, iters: int = 20) -> np.ndarray:
    for _ in range(iters):
        cents = np.stack([points[labels == g].mean(0) if (labels == g).any() else
                          np.full(2, np.inf) for g in range(N_SEATS)])
        d = np.linalg.norm(points[:, None] - cents[None], axis=2)
        new = d.argmin(1)
        if (new == labels).all():
            break
        labels = new
    return labels


def assign_seats(dets: CardDetections) -> CardDetections:
    """Fill ``dets.seat`` (0 bottom, 1 right, 2 top, 3 left) or add a warning saying why not."""
    n = len(dets)
    dets.seat = np.full(n, -1, np.int8)
    if n != N_SEATS * HAND:
        dets.avisos.append(f"se han encontrado {n} cartas, se esperan 16: no se asignan asientos")
        return dets
    centres = np.stack([(dets.xyxy[:, 0] + dets.xyxy[:, 2]) / 2,
                        (dets.xyxy[:, 1] + dets.xyxy[:, 3]) / 2], 1).astype(np.float64)
    labels = _kmeans(centres, _groups_by_angle(centres))
    sizes = np.bincount(labels, minlength=N_SEATS)
    if not (sizes == HAND).all():
        big = int(sizes.max())
        dets.avisos.append(
            f"las cartas no forman cuatro grupos de cuatro (hay un grupo de {big}): "
            "no se asignan asientos")
        return dets
    cents = np.stack([centres[labels == g].mean(0) for g in range(N_SEATS)])
    # groups must be separate: each group's spread well under the distance to the nearest other
    card_size = float(np.median(np.maximum(dets.xyxy[:, 2] - dets.xyxy[:, 0],
                                           dets.xyxy[:, 3] - dets.xyxy[:, 1])))
    gap = min(float(np.linalg.norm(cents[a] - cents[b]))
              for a in range(N_SEATS) for b in range(a + 1, N_SEATS))
    spread = max(float(np.linalg.norm(centres[labels == g] - cents[g], axis=1).max())
                 for g in range(N_SEATS))
    if gap < spread + 0.5 * card_size:
        dets.avisos.append("los cuatro grupos de cartas están demasiado juntos para saber de quién "
                           "es cada uno: no se asignan asientos")
        return dets
    # seat 0: the group nearest the bottom edge; then counter-clockwise on screen
    centre = cents.mean(0)
    ang = np.arctan2(cents[:, 1] - centre[1], cents[:, 0] - centre[0])  # bottom ~ +pi/2
    bottom = int(np.argmax(cents[:, 1]))
    rel = (ang[bottom] - ang) % (2 * math.pi)  # decreasing angle = counter-clockwise on screen
    order = np.argsort(rel, kind="stable")
    seat_of_group = np.empty(N_SEATS, np.int8)
    seat_of_group[order] = np.arange(N_SEATS)
    dets.seat = seat_of_group[labels].astype(np.int8)
    return dets
