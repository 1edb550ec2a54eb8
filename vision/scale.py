"""The scale a photo is read at: a hand filling the frame is read again zoomed out.

The detector was trained on generated photos whose cards' long side is 0.09-0.16 of the photo's
longer side on tables and up to about 0.3 (a few fans 0.42) on close-ups of one hand. Nearer
than that it boxes a large card in parts or off its outline. When the first pass finds cards
that large, the detector reads the photo again shrunk in the middle of a canvas of the photo's
own border colour (as if the camera had stepped back), and its boxes are mapped back onto the
photo, where the cards are cut out at full resolution. The reading the detector is surer of is
kept (:func:`sureness`).

    >>> round(zoom_factor(np.float32([[0, 0, 300, 450, 0]]), (1280, 960)), 2)  # 0.35 of the photo
    0.43
    >>> zoom_factor(np.float32([[0, 0, 100, 150, 0]]), (1280, 960))   # a table's card
    1.0
"""

from __future__ import annotations

import numpy as np

from vision.arrays import Floats, Image
from vision.detect import DetectedBoxes
from vision.geometry import shrink

# Cards whose median long side over the photo's longer side (the sure boxes of the first pass)
# is above ZOOM_OUT_ABOVE are read again shrunk to ZOOM_OUT_TARGET, by a factor kept within
# ZOOM_OUT_RANGE. Generated tables lie at 0.09-0.16 (median 0.13) and generated close-ups of one
# hand at 0.09-0.42 (median 0.21; 30 photos of each hand style): what the detector learnt. The
# team's real close-ups shrunk to half read 18 of 20 exactly instead of 15. The values were
# chosen on generated validation photos (training/cards/scale_bands.py --particion val: 12 of
# each hand style and deck, the generator's close-ups and nearer ones, 144 in all): shrinking
# to 0.15 read 121 exactly, a fixed half 114 (0.4: 115), none 105; on the first deck above 0.25
# read as many as above 0.22, with fewer second passes, and one more than above 0.3. The range
# keeps a misjudged scale from shrinking the photo too far. Tables never reach it.
ZOOM_OUT_ABOVE = 0.25
ZOOM_OUT_TARGET = 0.15
ZOOM_OUT_RANGE = (0.3, 0.6)
# The zoomed-out reading is kept when the detector is at least as sure of it: the mean score of
# its SURE_BOXES best boxes (a hand's cards; missing boxes count 0). A few phantom boxes can make
# a table-sized hand look large, and then the zoomed-out pass is the less sure one.
SURE_BOXES = 4
# A first pass this sure (sureness) is kept without the zoomed-out one: on generated validation
# close-ups whose cards were large enough for a second pass (12 of each hand style a deck, 50
# photos), a first pass of 0.9 or more skipped 11 second passes and read as many photos exactly
# (42 against 41 of 50) with as many flags (47) and no wrong card unflagged; 0.88 skipped 19
# with one flag more, 0.8 read 38 exactly.
SURE_ENOUGH = 0.9
BORDER = 4  # pixels of the photo's edge whose median colour fills the canvas


def card_scale(boxes: Floats, image_size: tuple[int, int]) -> float:
    """The median long side of ``boxes`` (N, 5) over the photo's longer side (0 if none)."""
    if len(boxes) == 0:
        return 0.0
    return float(np.median(np.maximum(boxes[:, 2], boxes[:, 3]))) / max(image_size)


def zoom_factor(boxes: Floats, image_size: tuple[int, int]) -> float:
    """The factor that shrinks the first pass's sure ``boxes`` to ZOOM_OUT_TARGET when they are
    larger than the detector knows (ZOOM_OUT_ABOVE), else 1 (the photo read at its own scale)."""
    scale = card_scale(boxes, image_size)
    if scale <= ZOOM_OUT_ABOVE:
        return 1.0
    return float(np.clip(ZOOM_OUT_TARGET / scale, *ZOOM_OUT_RANGE))


def sureness(scores: Floats) -> float:
    """The mean of the SURE_BOXES best ``scores`` (missing ones count 0).

    >>> sureness(np.float32([0.9, 0.9, 0.9, 0.9, 0.1])) > sureness(np.float32([0.95, 0.95]))
    True
    """
    best = np.sort(np.asarray(scores, np.float32))[::-1][:SURE_BOXES]
    return float(best.sum()) / SURE_BOXES


def border_colour(image: Image) -> Image:
    """The median colour of the photo's outer BORDER pixels (uint8, one value a channel)."""
    edge = np.concatenate(
        [
            image[:BORDER].reshape(-1, 3),
            image[-BORDER:].reshape(-1, 3),
            image[:, :BORDER].reshape(-1, 3),
            image[:, -BORDER:].reshape(-1, 3),
        ]
    )
    colour: Image = np.median(edge, axis=0).astype(np.uint8)
    return colour


def zoomed_out(image: Image, factor: float, side: int) -> tuple[Image, float, Floats]:
    """The photo shrunk to ``factor`` of a canvas whose longer side is ``side`` (the detector's
    input, so it is not resized again), centred on its border colour; with the scale and the
    offset that map the canvas back: photo = (canvas - offset) / scale."""
    h, w = image.shape[:2]
    fit = side / max(w, h)
    cw, ch = round(w * fit), round(h * fit)
    scale = fit * factor
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = border_colour(image)
    left, top = (cw - nw) // 2, (ch - nh) // 2
    canvas[top : top + nh, left : left + nw] = shrink(image, (nw, nh))
    return canvas, scale, np.array([left, top], np.float32)


def boxes_back(detected: DetectedBoxes, scale: float, offset: Floats) -> DetectedBoxes:
    """The boxes (and candidates) found on the zoomed-out canvas, in the photo's pixels."""

    def back(boxes: Floats) -> Floats:
        out = boxes.astype(np.float32).copy()
        out[:, :2] = (out[:, :2] - offset) / scale
        out[:, 2:4] /= scale
        return out

    return DetectedBoxes(back(detected.boxes), detected.scores, back(detected.candidates), detected.candidate_scores)
