"""Strengthen a registered deck with the cards of tables the user confirmed.

When the player confirms a table read against the registered deck (every card's id known,
after their corrections), each card's crop is added to the registration as one more example of
its id: the classifier's features of the card's box and of one jittered box, both ways up, and
the crops, small, as templates, cut as :mod:`vision.registration` cuts them. Only cards seen
whole count (:func:`clear_view`): a card partly under another is cut with pieces of its
neighbours, and such examples made the reading worse. The table's light,
cloth and angle are the player's own, which the four registration photos may not have been.

Only confirmed cards are added: an unconfirmed reading would teach the deck its own mistakes.
Each card keeps at most :data:`vision.registered_deck.MAX_EXTRA_PER_CARD` examples; a new one
drops the oldest the user did not correct (a card the reader got wrong and the user fixed is the
most useful example, and goes last). The file is rewritten atomically and stays tied to the
classifier it was registered with.

    >>> deck = RegisteredDeck.load("baraja.npz")                           # doctest: +SKIP
    >>> deck = strengthen(deck, reader, photo, dets.obb, ids, corrected)   # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS, Card, NotationError
from vision.arrays import Floats, Image, Ints, Mask
from vision.geometry import CROP_H, CROP_W, crop_card, obb_to_xyxy, rotated_iou
from vision.reader import CardReader
from vision.registered_deck import (
    EXTRA_VIEWS,
    MAX_EXTRA_PER_CARD,
    DeckError,
    RegisteredDeck,
    classifier_hash,
)
from vision.registration import _jittered
from vision.templates import TEMPLATE_H, TEMPLATE_W

# Whether the app strengthens the registered deck with each confirmed table. Measured on
# generated tables (models/README.md): as many cards right, fewer flagged, none wrong unflagged.
ENABLED = True


def card_indices(card_ids: Sequence[str]) -> Ints:
    """Indices into CARD_IDS of confirmed ids; DeckError on an unknown or repeated card."""
    try:
        out = np.array([CARD_IDS.index(str(Card.parse(c))) for c in card_ids], np.int64)
    except (NotationError, ValueError) as exc:
        raise DeckError(f"carta confirmada desconocida: {exc}") from None
    if len(set(out.tolist())) != len(out):
        raise DeckError("una carta confirmada aparece dos veces")
    return out


def examples(
    reader: CardReader, image: Image, obbs: Floats, rng: np.random.Generator, templates: bool = True
) -> tuple[Floats, Image | None]:
    """Features (E, 2 x EXTRA_VIEWS, D) and templates (E, EXTRA_VIEWS, H, W, 3) of the cards
    in ``obbs``: each box and EXTRA_VIEWS - 1 jittered ones, features upright then upside down."""
    boxes = [[o if v == 0 else _jittered(o, rng) for v in range(EXTRA_VIEWS)] for o in np.asarray(obbs, np.float32)]
    crops = np.stack([crop_card(image, b, (CROP_W, CROP_H)) for row in boxes for b in row])
    _, up = reader.classifier.run_network(crops)
    _, down = reader.classifier.run_network(np.ascontiguousarray(crops[:, ::-1, ::-1]))
    if up is None or down is None:
        raise DeckError("este clasificador no da rasgos: no puede reforzar la baraja")
    e = len(boxes)
    feats = np.concatenate([up.reshape(e, EXTRA_VIEWS, -1), down.reshape(e, EXTRA_VIEWS, -1)], 1)
    small = None
    if templates:
        small = np.stack([crop_card(image, b, (TEMPLATE_W, TEMPLATE_H)) for row in boxes for b in row]).reshape(
            e, EXTRA_VIEWS, TEMPLATE_H, TEMPLATE_W, 3
        )
    return feats.astype(np.float32), small


def feature_dim(reader: CardReader) -> int:
    """The length of the classifier's features (a deck's examples)."""
    _, feats = reader.classifier.run_network(np.zeros((1, CROP_H, CROP_W, 3), np.uint8))
    if feats is None:
        raise DeckError("este clasificador no da rasgos: no puede aprender la baraja")
    return int(feats.shape[1])


# A card whose box overlaps another's by more than this IoU is partly covered: its crop shows
# pieces of other cards, unlike the registration's, and is not added (see models/README.md).
MAX_OVERLAP = 0.02


def clear_view(obbs: Floats) -> Mask:
    """Which boxes overlap no other box (IoU at most MAX_OVERLAP): cards seen whole.

    >>> clear_view(np.float32([[100, 100, 60, 90, 0], [130, 100, 60, 90, 0], [400, 100, 60, 90, 0]])
    ...            ).tolist()
    [False, False, True]
    """
    n = len(obbs)
    clear = np.ones(n, bool)
    for i in range(n):
        for j in range(i + 1, n):
            if rotated_iou(obbs[i], obbs[j]) > MAX_OVERLAP:
                clear[i] = clear[j] = False
    return clear


def bounded(labels: Ints, corrected: Mask, per_card: int = MAX_EXTRA_PER_CARD) -> Mask:
    """Which examples (oldest first) to keep: at most ``per_card`` of each card, dropping the
    oldest uncorrected ones first, then the oldest corrected ones.

    >>> bounded(np.array([5, 5, 5, 5, 7]), np.array([1, 0, 0, 0, 0], bool), 3).tolist()
    [True, False, True, True, True]
    """
    keep = np.ones(len(labels), bool)
    for card in np.unique(labels):
        idx = np.nonzero(labels == card)[0]
        excess = len(idx) - per_card
        if excess <= 0:
            continue
        order = np.concatenate([idx[~corrected[idx]], idx[corrected[idx]]])  # oldest first
        keep[order[:excess]] = False
    return keep


def strengthen(
    deck: RegisteredDeck,
    reader: CardReader,
    image: Image,
    obbs: Floats,
    card_ids: Sequence[str],
    corrected: Sequence[bool],
) -> RegisteredDeck:
    """``deck`` with the confirmed cards of one photo added (``obbs`` (N, 5) their boxes,
    ``card_ids`` their ids as the user confirmed them, ``corrected`` whether the user changed
    the reader's id), bounded; only the cards seen whole (:func:`clear_view`). DeckError when
    the deck comes from another classifier."""
    if deck.model and deck.model != classifier_hash(reader.folder):
        raise DeckError("esta baraja se registró con otro clasificador: no se puede reforzar")
    obbs = np.asarray(obbs, np.float32).reshape(-1, 5)
    labels = card_indices(card_ids)
    fixed = np.asarray(corrected, bool)
    if not len(labels) == len(obbs) == len(fixed):
        raise DeckError("cajas, cartas y correcciones no casan")
    whole = clear_view(obbs)
    obbs, labels, fixed = obbs[whole], labels[whole], fixed[whole]
    if not len(labels):
        return deck
    rng = np.random.default_rng(deck.extra_count)
    feats, small = examples(reader, image, obbs, rng, deck.has_templates)
    if deck.extra_count:
        feats = np.concatenate([deck.extra_features, feats])
        small = None if small is None else np.concatenate([deck.extra_templates, small])
        labels = np.concatenate([deck.extra_labels, labels])
        fixed = np.concatenate([deck.extra_corrected, fixed])
    keep = bounded(labels, fixed)
    return RegisteredDeck(
        deck.features,
        deck.labels,
        deck.name,
        deck.model,
        deck.tau,
        deck.templates,
        deck.template_labels,
        deck.series,
        feats[keep],
        None if small is None else small[keep],
        labels[keep],
        fixed[keep],
    )


def boxes_for(reader: CardReader, image: Image, xyxy: Floats) -> Floats:
    """The detector's oriented box for each axis-aligned box (x1, y1, x2, y2) of a reading
    (what the app keeps), by best overlap; NaN rows where no box overlaps by half."""
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
    found = reader.detector.detect(image)
    out = np.full((len(xyxy), 5), np.nan, np.float32)
    if not len(found):
        return out
    boxes = found.boxes
    det = obb_to_xyxy(boxes)
    for i, b in enumerate(xyxy):
        iw = np.clip(np.minimum(det[:, 2], b[2]) - np.maximum(det[:, 0], b[0]), 0, None)
        ih = np.clip(np.minimum(det[:, 3], b[3]) - np.maximum(det[:, 1], b[1]), 0, None)
        inter = iw * ih
        union = (det[:, 2] - det[:, 0]) * (det[:, 3] - det[:, 1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        iou = inter / np.maximum(union, 1e-6)
        j = int(np.argmax(iou))
        if iou[j] >= 0.5:
            out[i] = boxes[j]
    return out


def strengthen_file(
    path: str | os.PathLike[str],
    reader: CardReader,
    image: Image,
    xyxy: Floats,
    card_ids: Sequence[str],
    corrected: Sequence[bool],
) -> RegisteredDeck:
    """Strengthen the deck registered in ``path`` with a confirmed photo read by the app (its
    cards' axis-aligned boxes, confirmed ids, corrections) and save it atomically; cards whose
    box the detector no longer finds are left out. With no file yet, the deck is learned from
    this photo alone (:meth:`RegisteredDeck.learned`, as ``mus baraja aprender`` does). Returns
    the deck saved."""
    if Path(path).exists():
        deck = RegisteredDeck.load(path)
    else:
        deck = RegisteredDeck.learned(classifier_hash(reader.folder), feature_dim(reader))
    obbs = boxes_for(reader, image, xyxy)
    found = np.asarray(~np.isnan(obbs).any(1), bool)
    ids = [c for c, f in zip(card_ids, found, strict=True) if f]
    fixed = [c for c, f in zip(corrected, found, strict=True) if f]
    new = strengthen(deck, reader, image, obbs[found], ids, fixed)
    new.save(path)
    return new
