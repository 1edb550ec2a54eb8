"""The pips of a number card, counted (numpy + OpenCV, no model): a check that needs no deck
design, since a 5 de copas has five cups in every Spanish deck.

On the card rectified at :data:`vision.corner_index.INDEX_CROP` (its corner indices and frame
line are thin and small, the signs are not):

1. the paper's colour is the median of the brightest 40 % of the card's middle; each pixel's
   distance from it (OpenCV's 8-bit Lab, lightness squared weighing a quarter, so that light
   and shade matter less than ink) is thresholded at Otsu's level of the middle (at least
   :data:`MIN_INK`), and opened (3x3: the frame line, the index's strokes and fine ornaments go);
2. connected parts that touch the crop's edge are the table showing past the card (a box a little
   off) and are dropped; the rest, largest first, are candidate signs;
3. the count k (2-7) is where the sizes fall off most: the k-th part at least :data:`GAP` times
   the next one (or than a speck); and it is kept only if those k look like one layout of one
   sign: sizes within :data:`SAME_SIZE` of their median (the centre coin of a 5 may be larger,
   as on the 5 de oros), shapes as elongated as one another, solid enough, and laid out as a
   Spanish number card lays them: centred on the card, each sign facing another through the
   centre (2, 4, 5, 6; the 7 of oros and copas leaves one over, the 3 runs top, middle, bottom);
   and little faint ink left about them (:data:`MAX_CLUTTER`).

Everything else is unsure (``count`` None): the as and the courts (one large figure or sign:
the crossed 3 de bastos looks the same, so one sign is never counted; a court's figure split in
two leaves too much faint ink about), a blurred or blank crop, signs that merge or split. A
sign lost to the paper can leave a valid layout of one fewer (the middle sword of a blurred 5,
the pale middle club of a 7 de bastos): most wrong counts are those.

Measured on generated photos, a proxy (``python -m training.cards.pips contar``, eval split, 40
tables, close-ups and loose-card photos of each design, each card cut under its true box moved
as a detector's would be): 326 of 430 number cards of the Fournier 1878 counted right, 1 wrong;
374 of 430 of the Naipes Libres, 2 wrong; none of the 262 aces and courts of each counted. The
thresholds were chosen on the validation split's crops of both designs: no design was kept out.

The reader counts on a table it takes for an unfamiliar deck the cards whose readers hesitate
between number ranks (:func:`vision.assemble.worth_counting`), and on the others, without a
registered deck, every card given a number card or offered one, to check it
(:mod:`vision.crosscheck`), about 7 cards of a table of 16: the cards the reader already cut
at INDEX_CROP, converted to Lab in one call, each pixel's distance from a per-card table of
whole numbers (exactly the float arithmetic's), shapes and masks only for counts that pass the
size checks. Counting costs about 0.7 ms a card on this project's 2-core CPU at load 4, 0.85
cutting it out (1.0 before those, interleaved; docs/measurements.md).

    >>> card = np.full((192, 128, 3), 235, np.uint8)
    >>> for x, y in ((40, 45), (88, 45), (64, 96), (40, 147), (88, 147)):
    ...     _ = cv2.circle(card, (x, y), 14, (40, 40, 200), -1)
    >>> pip_count(card)
    PipCount(count=5, confidence=0.883)
    >>> pip_count(np.full((192, 128, 3), 235, np.uint8)).count is None
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.arrays import Floats, Image, Ints, Mask
from vision.corner_index import INDEX_CROP
from vision.geometry import crop_cards

MIN_INK = 18.0  # the least Lab distance from the paper that is ink
LIGHTNESS = 0.25  # how much lightness counts in that distance (squared weight), against colour
MIDDLE = 0.15  # the card's middle, where the paper and the threshold are measured: this inset
MIN_SIGN = 0.006  # the smallest sign counted, as a share of the card's area
SPECK = 0.003  # a part smaller than this share of the card's area is a speck
GAP = 2.5  # the last sign counted is at least this many times the next part
SAME_SIZE = 0.6  # each sign's area within this factor of the signs' median
BIG_CENTRE = 3.5  # the centre sign of a 5 may be up to this many times the others' median
SAME_SHAPE = 2.2  # the most elongated sign at most this many times the least
MIN_FILL = 0.2  # a sign fills at least this share of its bounding box
CENTRED = 0.12  # the signs' centre off the card's, at most (in card widths)
FACING = 0.1  # a sign's mirror through that centre within this of another sign (card widths)
# Faint ink (over half the level) away from the signs in the card's inner field (INNER: the insets
# of its width and height), at most this share of the card: on generated photos 99 % of the
# right counts leave under 0.17, courts taken for a 2 0.22 and more
MAX_CLUTTER, INNER = 0.2, (0.1, 0.08)
MIN_PIPS, MAX_PIPS = 2, 7
CARD_CENTRE = np.array([0.5, 0.5])
SQUARE_WEIGHTS = 4 * np.array([LIGHTNESS, 1, 1])  # 16 x the squared weights of the Lab differences
VALUES = np.arange(256.0)
SUM = np.ones((1, 3), np.float32)
OPENING, NEAR = np.ones((3, 3), np.uint8), np.ones((5, 5), np.uint8)


@dataclass(frozen=True)
class PipCount:
    """The pips of one card: ``count`` (2-7) or None when unsure; ``confidence`` in [0, 1), how
    far the signs stand out from the next part (1 - next part / smallest sign; at least
    1 - 1 / GAP when counted, 0 when unsure)."""

    count: int | None
    confidence: float


UNSURE = PipCount(None, 0.0)


def pip_count(card: Image) -> PipCount:
    """The pips of one card rectified upright (either way up), best at INDEX_CROP (BGR)."""
    w, h = INDEX_CROP
    if card.shape[:2] != (h, w):
        card = np.asarray(cv2.resize(card, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
    return _count_pips(_lab(card[None])[0])


def _count_pips(lab: Image) -> PipCount:
    """:func:`pip_count` of a card at INDEX_CROP once blurred and in Lab (:func:`_lab`)."""
    w, h = INDEX_CROP
    dist, level = _ink_distance(lab)
    labels, stats = _parts(dist > level)
    keep = _candidates(stats, w, h)
    if not len(keep):
        return UNSURE
    area = stats[keep, cv2.CC_STAT_AREA].astype(np.float64)
    k, confidence = _count(area, h * w)
    if k is None:
        return UNSURE
    chosen = keep[:k]
    x, y, bw, bh = (stats[chosen, i] for i in range(4))
    centres = np.stack([(x + bw / 2) / w, (y + bh / 2) / h], 1)
    big_centre = k == 5 and _distance(centres[:1], CARD_CENTRE)[0] < CENTRED
    sizes = area[1:k] if big_centre else area[:k]
    median = float(np.median(sizes)) if k > 2 else float(sizes.max())  # a pair: the larger
    if (
        sizes.min() < SAME_SIZE * median
        or sizes.max() > median / SAME_SIZE
        or (big_centre and area[0] > BIG_CENTRE * median)
    ):
        return UNSURE
    elongation = _elongation(labels, stats, chosen[1:] if big_centre else chosen)
    if (
        elongation.max() > SAME_SHAPE * elongation.min()
        or (area[:k] / (bw * bh)).min() < MIN_FILL
        or not _laid_out(centres)
        or _clutter(dist > level / 2, _of(labels, stats, chosen)) > MAX_CLUTTER
    ):
        return UNSURE
    return PipCount(k, confidence)


def pip_counts(image: Image, obbs: Floats, cards: Image | None = None) -> Ints:
    """The pip count of the card under each oriented box (N, 5) of a BGR photo: (N,) int, 0 where
    unsure. ``cards``: those cards already rectified at INDEX_CROP (N, 192, 128, 3) under the same
    boxes (:func:`vision.geometry.crop_cards`), when the caller has them."""
    if cards is None:
        cards = crop_cards(image, obbs, INDEX_CROP)
    if len(cards) == 0:
        return np.zeros(0, np.int64)
    if cards.shape[1:3] != INDEX_CROP[::-1]:
        return np.array([pip_count(c).count or 0 for c in cards], np.int64)
    return np.array([_count_pips(lab).count or 0 for lab in _lab(cards)], np.int64)


def _lab(cards: Image) -> Image:
    """Cards (N, H, W, 3) BGR, each blurred (3x3 Gaussian), in OpenCV's 8-bit Lab (L scaled to
    0-255, a and b offset by 128): one conversion for all (a pixel's Lab is its own)."""
    n, h, w = cards.shape[:3]
    blurred = np.empty((n, h, w, 3), np.uint8)
    for card, out in zip(cards, blurred, strict=True):
        cv2.GaussianBlur(card, (3, 3), 0, dst=out)
    lab = np.asarray(cv2.cvtColor(blurred.reshape(n * h, w, 3), cv2.COLOR_BGR2Lab), np.uint8)
    return lab.reshape(n, h, w, 3)


def _ink_distance(lab: Image) -> tuple[Floats, float]:
    """Each pixel's distance from the paper's colour (H, W) of a card in Lab (:func:`_lab`), and
    the level from which it is ink, both four times over (so that the distance squared is a
    whole number: exact in float32)."""
    h, w = lab.shape[:2]
    my, mx = round(MIDDLE * h), round(MIDDLE * w)
    middle = lab[my : h - my : 3, mx : w - mx : 3].reshape(-1, 3)  # one pixel in nine is enough
    light, k = middle[:, 0], int(0.6 * len(middle))
    paper = _median(middle[light >= np.partition(light, k)[k]])  # whole or halves
    # 16 x the weighted difference squared of each channel's 256 values (LIGHTNESS = 1/4):
    # whole numbers, summed exactly in float32, so that the root is the one the float
    # arithmetic (a, b - paper; L / 2 - paper / 2; squared, summed, root) gave
    twice = np.rint(2 * paper)
    squares = (2 * VALUES[:, None] - twice[None, :]) ** 2 * SQUARE_WEIGHTS
    lut = squares.astype(np.float32).reshape(256, 1, 3)
    dist = np.asarray(cv2.sqrt(cv2.transform(cv2.LUT(lab, lut), SUM)), np.float32)
    otsu, _ = cv2.threshold(cv2.convertScaleAbs(dist[my : h - my, mx : w - mx], alpha=0.5), 0, 255, cv2.THRESH_OTSU)
    return dist, 4 * max(otsu / 2, MIN_INK)


def _median(values: Image) -> Floats:
    """Each column's median of (M, 3) uint8 values (M > 0), as numpy's: the middle value, or the
    mean of the two middle ones."""
    m = len(values)
    lo, hi = (m - 1) // 2, m // 2
    ordered = np.partition(values.T, sorted({lo, hi}), axis=1)  # those two places as sorted
    median: Floats = (ordered[:, lo].astype(np.float64) + ordered[:, hi]) / 2
    return median


def _parts(ink: Mask) -> tuple[Ints, Ints]:
    """The connected parts of the ``ink`` (H, W) once opened: their labels (H, W) and stats
    (M, 5) as OpenCV gives them (label 0 the paper)."""
    opened = cv2.morphologyEx(ink.view(np.uint8), cv2.MORPH_OPEN, OPENING)
    # 16-bit labels (a crop has fewer parts than that): the same labels, half the memory
    _, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8, ltype=cv2.CV_16U)
    return np.asarray(labels, np.uint16), np.asarray(stats, np.int32)


def _candidates(stats: Ints, w: int, h: int) -> Ints:
    """The largest MAX_PIPS + 1 parts that do not touch the crop's edge (a box a little off shows
    the table), largest first (stable)."""
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    inside = np.flatnonzero((x > 0) & (y > 0) & (x + bw < w) & (y + bh < h))  # label 0 is the paper
    keep: Ints = inside[np.argsort(-area[inside], kind="stable")][: MAX_PIPS + 1]
    return keep


def _elongation(labels: Ints, stats: Ints, chosen: Ints) -> Floats:
    """How elongated each of the ``chosen`` parts is, from its second moments."""
    out = np.empty(len(chosen))
    for j, i in enumerate(chosen.tolist()):
        x, y, bw, bh = stats[i, :4].tolist()
        m = cv2.moments((labels[y : y + bh, x : x + bw] == i).view(np.uint8), True)
        a, b, c = m["mu20"], m["mu02"], m["mu11"]
        root = math.sqrt(((a - b) / 2) ** 2 + c * c)
        out[j] = math.sqrt(max((a + b) / 2 + root, 1e-3) / max((a + b) / 2 - root, 1e-3))
    return out


def _of(labels: Ints, stats: Ints, chosen: Ints) -> Mask:
    """Where ``labels`` (H, W) is one of ``chosen`` (each looked for within its bounding box)."""
    mask = np.zeros(labels.shape, bool)
    for i in chosen.tolist():
        x, y, bw, bh = stats[i, :4].tolist()
        mask[y : y + bh, x : x + bw] |= labels[y : y + bh, x : x + bw] == i
    return mask


def _clutter(faint: Mask, signs: Mask) -> float:
    """The share of the card's inner field (INNER) in faint ink (half the level) away from the
    signs: a court's figure, split in two parts that pass for two signs, leaves much of it."""
    h, w = int(faint.shape[0]), int(faint.shape[1])
    iy, ix = round(INNER[1] * h), round(INNER[0] * w)
    near = cv2.dilate(signs.view(np.uint8), NEAR)
    return int(np.count_nonzero(faint[iy : h - iy, ix : w - ix] > near[iy : h - iy, ix : w - ix])) / (h * w)


def _count(area: Floats, card_area: int) -> tuple[int | None, float]:
    """Where the sorted ``area`` falls off most, among 2-7 parts at least MIN_SIGN of the card,
    and that fall's confidence; (None, 0) when no fall reaches GAP."""
    best, gap = None, 0.0
    for k in range(MIN_PIPS, MAX_PIPS + 1):
        if len(area) < k or area[k - 1] < MIN_SIGN * card_area:
            break
        following = area[k] if len(area) > k else 0.0
        g = float(area[k - 1] / max(following, SPECK * card_area))
        if g > gap:
            best, gap = k, g
    if best is None or gap < GAP:
        return None, 0.0
    return best, round(1 - 1 / gap, 3)


def _distance(points: Floats, centre: Floats) -> Floats:
    """Distances in card widths (a card is 1.5 widths tall) from points given as shares of the
    card's width and height."""
    d: Floats = np.hypot(points[:, 0] - centre[0], (points[:, 1] - centre[1]) * 1.5)
    return d


def _laid_out(centres: Floats) -> bool:
    """Whether k signs lie as a Spanish number card lays them: their bounding box centred on the
    card; each facing another through that centre (a centre sign faces itself), but for one on
    a 7; a 3 top, middle and bottom (in a column, a diagonal or bent), or in a row."""
    centre = (centres.min(0) + centres.max(0)) / 2
    if _distance(centre[None], CARD_CENTRE)[0] > CENTRED:
        return False
    k = len(centres)
    if k == 3:
        y = np.sort(centres[:, 1])
        return bool(abs(y[0] + y[2] - 2 * centre[1]) * 1.5 < FACING and abs(y[1] - centre[1]) * 1.5 < FACING)
    mirrored = 2 * centre - centres
    apart = np.hypot(
        mirrored[:, None, 0] - centres[None, :, 0], (mirrored[:, None, 1] - centres[None, :, 1]) * 1.5
    ).min(1)
    lone = int((apart > FACING).sum())
    return lone <= (1 if k == MAX_PIPS else 0)
