"""Register the players' own deck: its 40 cards photographed face up, in order, through the
reader's own detector and classifier.

The user lays the cards in the order of :data:`scoring.cards.CARD_IDS`, either all 40 in four
rows of ten (oros, copas, espadas, bastos; each row 1 2 3 4 5 6 7 10 11 12) for one photo, or
one suit per photo (a row of ten or two rows of five; four photos). Each card is cut out as the
reader would cut it (its box and a few jittered ones); the classifier's features of those crops
are kept, and the crops themselves, small, as templates (:class:`vision.registered_deck.RegisteredDeck`).

    >>> reader = CardReader()                                     # doctest: +SKIP
    >>> deck, warnings = register(reader, ["oros.jpg", "copas.jpg", "espadas.jpg", "bastos.jpg"])  # doctest: +SKIP
    >>> deck.save("mi_baraja.npz")                                # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from vision.arrays import Floats, Image, Ints
from vision.geometry import CROP_H, CROP_W, crop_card
from vision.images import load_for_reading
from vision.reader import CardReader
from vision.registered_deck import (
    PER_ROW,
    ROWS,
    SUIT_NAMES,
    TAU,
    VIEWS,
    DeckError,
    RegisteredDeck,
    classifier_hash,
)
from vision.templates import TEMPLATE_H, TEMPLATE_W

# A registration photo whose cards are shorter than this (median long side, pixels) gets a
# warning: 5 registrations of each kind, read against 60 validation tables of an unseen design,
# gave 89.4 % of the cards with cards of 160 px or less and 92.4 % with 200 px or more (92.2 %
# and 93.9 % on the other design).
MIN_CARD_PX = 160
LAYOUT_HELP = (
    "pon las cartas boca arriba y sin que se toquen, en filas del 1 al 12: las 40 en "
    "cuatro filas (oros, copas, espadas, bastos) o un palo por foto, en una fila de "
    "diez o dos de cinco"
)


def grid_order(obbs: Floats, layouts: tuple[tuple[int, int], ...] = ((4, 10),)) -> Ints:
    """Indices of oriented boxes in reading order: rows top to bottom, each left to right.

    ``layouts`` are the accepted (rows, cards per row). Rows run across the cards' long axis
    (cards stand upright or upside down in the grid), so a tilted photo is fine as long as the
    rows stay apart. Raises DeckError when the boxes make none of the layouts.

    >>> boxes = np.array([[x, y, 60, 90, 0] for y in (100, 220) for x in (300, 100, 200)], float)
    >>> grid_order(boxes, ((2, 3),)).tolist()
    [1, 2, 0, 4, 5, 3]
    """
    obbs = np.asarray(obbs, np.float64)
    wanted = " o ".join(f"{r * c}" for r, c in layouts)
    if len(obbs) not in {r * c for r, c in layouts}:
        raise DeckError(f"se han encontrado {len(obbs)} cartas, se esperan {wanted}: {LAYOUT_HELP}")
    w, h, a = obbs[:, 2], obbs[:, 3], obbs[:, 4]
    long_axis = np.where(w >= h, a, a + math.pi / 2)
    # mean axis direction (mod pi); rows run perpendicular to it
    axis = 0.5 * math.atan2(np.sin(2 * long_axis).mean(), np.cos(2 * long_axis).mean())
    row_dir = np.array([math.cos(axis + math.pi / 2), math.sin(axis + math.pi / 2)])
    if row_dir[0] < 0:
        row_dir = -row_dir  # rows read left to right
    down = np.array([-row_dir[1], row_dir[0]])
    if down[1] < 0:
        down = -down  # screen y grows downwards
    across, along = obbs[:, :2] @ down, obbs[:, :2] @ row_dir
    order = np.argsort(across, kind="stable")
    card, short = float(np.median(np.maximum(w, h))), float(np.median(np.minimum(w, h)))
    cuts = np.nonzero(np.diff(across[order]) > 0.5 * card)[0] + 1
    rows = np.split(order, cuts)
    if (len(rows), len(rows[0])) not in layouts or len({len(r) for r in rows}) != 1:
        counts = "+".join(str(len(r)) for r in rows)
        raise DeckError(f"las cartas forman filas de {counts}, no {wanted} en filas iguales y separadas: {LAYOUT_HELP}")
    rows = [row[np.argsort(along[row], kind="stable")] for row in rows]
    for r, row in enumerate(rows):
        steps = np.diff(along[row])
        if len(row) > 1 and steps.min() < 0.5 * short:
            raise DeckError(
                f"en la fila {r + 1} hay dos cartas encima una de otra o una carta leída dos veces: {LAYOUT_HELP}"
            )
        if len(row) > 2 and steps.max() > 1.6 * np.median(steps):  # a hole: a card missed
            raise DeckError(f"en la fila {r + 1} falta una carta o hay un hueco: {LAYOUT_HELP}")
    sizes = np.sqrt(w * h)
    if np.abs(sizes / np.median(sizes) - 1).max() > 0.35:  # a box on something else
        raise DeckError(f"alguna caja no tiene el tamaño de una carta: {LAYOUT_HELP}")
    return np.concatenate(rows)


def locate_grid(reader: CardReader, img: Image, n: int, layouts: tuple[tuple[int, int], ...]) -> Floats:
    """The ``n`` card boxes of a registration photo in reading order, or DeckError. Every box
    must be a confident detection: a registration must not be built on a guess."""
    boxes, scores = reader.detector.detect_n(img, n)
    weak = int((scores < reader.detector.threshold).sum())
    if len(boxes) == n and weak:
        raise DeckError(f"{weak} cartas se ven mal (reflejos, sombra o desenfoque): repite la foto con luz uniforme")
    return boxes[grid_order(boxes, layouts)]


def _jittered(obb: Floats, rng: np.random.Generator) -> Floats:
    o = np.asarray(obb, np.float32).copy()
    o[:2] += rng.normal(0, 0.04, 2) * min(o[2], o[3])
    o[2:4] *= rng.uniform(0.95, 1.06, 2)
    o[4] += rng.normal(0, 0.03)
    jittered: Floats = o
    return jittered


def register(
    reader: CardReader, photos: Sequence[Image | str | os.PathLike[str]], name: str = ""
) -> tuple[RegisteredDeck, list[str]]:
    """Register the deck from one photo of its 40 cards (four rows of ten) or four photos of
    one suit each (oros, copas, espadas, bastos, in that order; a row of ten or two rows of
    five). Returns the registration and warnings (rows whose suit the classifier doubts)."""
    if len(photos) not in (1, 4):
        raise DeckError(
            f"se dan {len(photos)} fotos: hace falta una foto de las 40 cartas o "
            "cuatro, una por palo (oros, copas, espadas, bastos)"
        )
    per_photo, layouts = (40, ((4, 10),)) if len(photos) == 1 else (10, ((1, 10), (2, 5)))
    rng = np.random.default_rng(0)
    crops, small, labels, size_warnings = [], [], [], []
    for p, photo in enumerate(photos):
        img = load_for_reading(photo)[0] if not isinstance(photo, np.ndarray) else photo
        if img.ndim != 3 or img.shape[2] != 3:
            raise DeckError("la foto de la baraja debe ser una imagen en color")
        try:
            boxes = locate_grid(reader, img, per_photo, layouts)
        except DeckError as exc:
            where = "" if len(photos) == 1 else f"foto de {SUIT_NAMES[p]}: "
            raise DeckError(where + str(exc)) from None
        small_warning = _size_warning(boxes, p if len(photos) == 4 else None)
        if small_warning:
            size_warnings.append(small_warning)
        for k, box0 in enumerate(boxes):
            for v in range(VIEWS):
                box = box0 if v == 0 else _jittered(box0, rng)
                crops.append(crop_card(img, box, (CROP_W, CROP_H)))
                small.append(crop_card(img, box, (TEMPLATE_W, TEMPLATE_H)))
                labels.append(p * per_photo + k)
    crops_arr = np.stack(crops)
    logits, up = reader.classifier.run_network(crops_arr)
    _, down = reader.classifier.run_network(np.ascontiguousarray(crops_arr[:, ::-1, ::-1]))
    if up is None or down is None:
        raise DeckError(
            "este clasificador no da rasgos: vuelve a exportarlo (python -m training.cards.classifier --exportar ...)"
        )
    y = np.asarray(labels, np.int64)
    deck = RegisteredDeck(
        np.concatenate([up, down]).astype(np.float32),
        np.concatenate([y, y]),
        name,
        classifier_hash(reader.folder),
        TAU,
        np.stack(small),
        y,
    )
    return deck, _suit_warnings(logits, y) + size_warnings


def _size_warning(boxes: Floats, suit: int | None) -> str:
    """A warning when the photo's cards are small (a registration from them reads worse)."""
    length = float(np.median(np.maximum(boxes[:, 2], boxes[:, 3])))
    if length >= MIN_CARD_PX:
        return ""
    where = "la foto de las 40 cartas" if suit is None else f"la foto de {SUIT_NAMES[suit]}"
    fix = "haz una foto por palo" if suit is None else "acerca la cámara o pon las cartas en dos filas de cinco"
    return (
        f"en {where}, las cartas salen pequeñas ({length:.0f} píxeles de largo; mejor "
        f"{MIN_CARD_PX} o más): {fix}, y la baraja se leerá mejor"
    )


def _suit_warnings(logits: Floats, labels: Ints) -> list[str]:
    """Rows whose cards the general classifier mostly puts in another suit: likely misplaced."""
    e = np.exp(logits - logits.max(1, keepdims=True))
    probs = e / e.sum(1, keepdims=True)
    suit_p = probs.reshape(len(probs), ROWS, PER_ROW).sum(2)  # CARD_IDS runs suit by suit
    warnings = []
    for r in range(ROWS):
        seen = int(np.argmax(suit_p[labels // PER_ROW == r].mean(0)))
        if seen != r:
            warnings.append(
                f"la fila {r + 1} debería ser de {SUIT_NAMES[r]} pero parece de "
                f"{SUIT_NAMES[seen]}: comprueba el orden de las filas"
            )
    return warnings
