"""Draw read cards on a photo (oriented boxes, ids, seats; doubtful cards in orange)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.arrays import Image
from vision.detections import SEAT_NAMES, CardDetections
from vision.geometry import obb_to_corners

SEAT_COLOURS = ((60, 200, 60), (220, 120, 40), (60, 60, 230), (200, 60, 200))  # BGR
NO_SEAT = (230, 230, 230)
DOUBTFUL = (0, 165, 255)


def annotate(image: Image, dets: CardDetections) -> Image:
    """A copy of ``image`` with each card's box, id and confidence drawn."""
    out = image.copy()
    h, w = out.shape[:2]
    scale = max(0.5, min(w, h) / 900)
    thick = max(1, round(2 * scale))
    for i in range(len(dets)):
        seat = int(dets.seat[i])
        colour = SEAT_COLOURS[seat] if seat >= 0 else NO_SEAT
        corners = obb_to_corners(dets.obb[i]).round().astype(np.int32)
        cv2.polylines(out, [corners], True, colour, thick, cv2.LINE_AA)
        label = f"{dets.card_ids[i]} {dets.confidence[i]:.2f}"
        if dets.low_confidence[i]:
            label += "?"
        x, y = int(dets.xyxy[i, 0]), int(dets.xyxy[i, 1])
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, thick)
        y = max(y, th + base + 2)
        bg = DOUBTFUL if dets.low_confidence[i] else colour
        cv2.rectangle(out, (x, y - th - base - 2), (x + tw + 4, y), bg, -1)
        cv2.putText(out, label, (x + 2, y - base), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 0, 0), thick, cv2.LINE_AA)
    if dets.hands:
        for s, hand in enumerate(dets.hands):
            text = f"{s} {SEAT_NAMES[s]}: {' '.join(hand)}"
            y = int(28 * scale * (s + 1))
            cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
            cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, SEAT_COLOURS[s], thick, cv2.LINE_AA)
    return out
