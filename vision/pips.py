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
(:mod:`vision.crosscheck`): counting costs about 0.9 ms a card on this project's 2-core CPU
(``python -m training.cards.pips tiempo``), about 7 cards of a table of 16.

    >>> card = np.full((192, 128, 3), 235, np.uint8)
    >>> for x, y in ((40, 45), (88, 45), (64, 96), (40, 147), (88, 147)):
    ...     _ = cv2.circle(card, (x, y), 14, (40, 40, 200), -1)
    >>> pip_count(card)
    PipCount(count=5, confidence=0.883)
    >>> pip_count(np.full((192, 128, 3), 235, np.uint8)).count is None
    True
"""

from __future__ import annotations

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
ROOT_WEIGHTS = np.sqrt(np.array([LIGHTNESS, 1, 1], np.float32))  # of the Lab differences
SUM = np.ones((1, 3), np.float32)


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
    dist, level = _ink_distance(card)
    labels, parts = _parts(dist > level)
    if parts is None:
        return UNSURE
    index, area, centres, elongation, fill = parts
    k, confidence = _count(area, h * w)
    if k is None:
        return UNSURE
    big_centre = k == 5 and _distance(centres[:1], CARD_CENTRE)[0] < CENTRED
    sizes = area[1:k] if big_centre else area[:k]
    median = float(np.median(sizes)) if k > 2 else float(sizes.max())  # a pair: the larger
    shapes = elongation[1:k] if big_centre else elongation[:k]
    if (
        sizes.min() < SAME_SIZE * median
        or sizes.max() > median / SAME_SIZE
        or (big_centre and area[0] > BIG_CENTRE * median)
        or shapes.max() > SAME_SHAPE * shapes.min()
        or fill[:k].min() < MIN_FILL
        or not _laid_out(centres[:k])
        or _clutter(dist > level / 2, _of(labels, index[:k])) > MAX_CLUTTER
    ):
        return UNSURE
    return PipCount(k, confidence)


def pip_counts(image: Image, obbs: Floats) -> Ints:
    """The pip count of the card under each oriented box (N, 5) of a BGR photo: (N,) int, 0 where
    unsure."""
    cards = crop_cards(image, obbs, INDEX_CROP)
    return np.array([pip_count(c).count or 0 for c in cards], np.int64)


def _ink_distance(card: Image) -> tuple[Floats, float]:
    """Each pixel's distance from the paper's colour (H, W), and the level from which it is ink."""
    h, w = card.shape[:2]
    # OpenCV's 8-bit Lab: L scaled to 0-255, a and b offset by 128
    lab = cv2.cvtColor(cv2.GaussianBlur(card, (3, 3), 0), cv2.COLOR_BGR2Lab)
    my, mx = round(MIDDLE * h), round(MIDDLE * w)
    middle = lab[my : h - my : 3, mx : w - mx : 3].reshape(-1, 3)  # one pixel in nine is enough
    light, k = middle[:, 0], int(0.6 * len(middle))
    paper = np.median(middle[light >= np.partition(light, k)[k]], 0)
    # the weighted differences in one affine transform, squared and summed in another
    shift = np.hstack([np.diag(ROOT_WEIGHTS), (-ROOT_WEIGHTS * paper)[:, None]]).astype(np.float32)
    d = cv2.transform(lab.astype(np.float32), shift)
    dist = np.asarray(cv2.sqrt(cv2.transform(cv2.multiply(d, d), SUM)), np.float32)
    otsu, _ = cv2.threshold(cv2.convertScaleAbs(dist[my : h - my, mx : w - mx], alpha=2), 0, 255, cv2.THRESH_OTSU)
    return dist, max(otsu / 2, MIN_INK)


def _parts(ink: Mask) -> tuple[Ints, tuple[Ints, Floats, Floats, Floats, Floats] | None]:
    """The connected parts of the ``ink`` (H, W) once opened: their labels (H, W) and, for the
    largest MAX_PIPS + 1 that do not touch the crop's edge, largest first, their labels,
    areas, bounding-box centres (M, 2) as shares of the card's width and height, elongations
    and the share of the bounding box each fills (None when there is none)."""
    h, w = ink.shape
    opened = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _, found, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    labels = np.asarray(found, np.int32)
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    inside = np.flatnonzero((x > 0) & (y > 0) & (x + bw < w) & (y + bh < h))  # label 0 is the paper
    if not len(inside):
        return labels, None
    keep = inside[np.argsort(-area[inside], kind="stable")][: MAX_PIPS + 1]
    elongation = np.empty(len(keep))
    for j, i in enumerate(keep):  # from the second moments of each part
        m = cv2.moments((labels[y[i] : y[i] + bh[i], x[i] : x[i] + bw[i]] == i).astype(np.uint8), True)
        a, b, c = m["mu20"], m["mu02"], m["mu11"]
        root = np.sqrt(((a - b) / 2) ** 2 + c * c)
        elongation[j] = np.sqrt(max((a + b) / 2 + root, 1e-3) / max((a + b) / 2 - root, 1e-3))
    k = keep
    centres = np.stack([(x[k] + bw[k] / 2) / w, (y[k] + bh[k] / 2) / h], 1)
    return labels, (k, area[k].astype(np.float64), centres, elongation, area[k] / (bw[k] * bh[k]))


def _of(labels: Ints, chosen: Ints) -> Mask:
    """Where ``labels`` (H, W) is one of ``chosen``."""
    lookup = np.zeros(int(labels.max()) + 1, bool)
    lookup[chosen] = True
    mask: Mask = lookup[labels]
    return mask


def _clutter(faint: Mask, signs: Mask) -> float:
    """The share of the card's inner field (INNER) in faint ink (half the level) away from the
    signs: a court's figure, split in two parts that pass for two signs, leaves much of it."""
    h, w = int(faint.shape[0]), int(faint.shape[1])
    iy, ix = round(INNER[1] * h), round(INNER[0] * w)
    near = cv2.dilate(signs.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    return int(np.count_nonzero((faint & ~near)[iy : h - iy, ix : w - ix])) / (h * w)


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
