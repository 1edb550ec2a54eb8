"""Register the players' own deck from photos of its 40 cards; then tables are read against it.

The classifier learnt two deck designs; a deck it never saw (a modern Fournier, a bar's
advertising deck) it reads far worse. Registering the deck once makes up for much of that: the
user lays the cards face up in the order of :data:`scoring.cards.CARD_IDS`, either all 40 in
four rows of ten (oros, copas, espadas, bastos; each row 1 2 3 4 5 6 7 10 11 12) for one photo,
or one suit per photo (a row of ten or two rows of five; four photos). Each
card is cut out as the reader would cut it (a few jittered boxes, both ways up), and the
classifier's features of those crops are kept, and the crops themselves, small, as templates.
A card on the table is then named by the registered card whose features are the most alike
(cosine similarity) plus, with weight TEMPLATE_WEIGHT, whose face matches it best patch by patch
(:mod:`vision.plantillas`), so the classifier's features must be general, but its 40-way head is
not used at all. More photos of the same deck, under another light or on another cloth, can be
added to a registration (:meth:`BarajaRegistrada.combinada`, ``mus baraja registrar
--añadir``): a card is then matched against every photo of it, and one poor photo no longer
misleads the whole deck (measured in models/README.md (b)).

    >>> reader = CardReader()                                     # doctest: +SKIP
    >>> baraja, avisos = registrar(reader, ["oros.jpg", "copas.jpg", "espadas.jpg", "bastos.jpg"])  # doctest: +SKIP
    >>> baraja.save("mi_baraja.npz")                              # doctest: +SKIP
    >>> reader = CardReader(baraja=BarajaRegistrada.load("mi_baraja.npz"))  # doctest: +SKIP

The registration is tied to the classifier it was made with (its hash is stored): features of
another classifier are not comparable, and loading it with another one is an error.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scoring.cards import CARD_IDS
from vision.plantillas import (
    TEMPLATE_H,
    TEMPLATE_W,
    best_per_class,
    stacked,
    template_patches,
    template_similarity,
)

if TYPE_CHECKING:
    from vision.reader import CardReader

DECK_SIZE, ROWS, PER_ROW = 40, 4, 10
SUIT_NAMES = ("oros", "copas", "espadas", "bastos")
TAU = 0.04  # softmax temperature on cosine similarities (lowest NLL on validation crops)
VIEWS = 6  # crops per registered card: its box and five jittered ones
# Weight of the template match (vision.plantillas) added to the features' cosine similarity.
# On the detector's boxes of 60 validation tables of each design, read by a classifier trained
# on the other design, weights 0 / 0.2 / 0.3 / 0.5 / 1 gave 88.2 / 90.7 / 90.9 / 90.5 / 90.9 %
# of the cards right (Naipes Libres) and 92.1 / 93.3 / 93.8 / 94.0 / 91.3 % (Fournier); tables
# all right 13 / 18 / 18 / 15 / 15 and 24 / 25 / 27 / 27 / 19 (models/README.md (b)).
TEMPLATE_WEIGHT = 0.3
FORMAT = 2  # 2: with templates; files of format 1 (features only) still load
# Sets of photos one registration may hold: each adds about 1.5 MB and a millisecond a read.
MAX_SERIES = 4
# A registration photo whose cards are shorter than this (median long side, pixels) gets a
# warning: 5 registrations of each kind, read against 60 validation tables of an unseen design,
# gave 89.4 % of the cards with cards of 160 px or less and 92.4 % with 200 px or more (92.2 %
# and 93.9 % on the other design; models/README.md (b)).
MIN_CARD_PX = 160
LAYOUT_HELP = ("pon las cartas boca arriba y sin que se toquen, en filas del 1 al 12: las 40 en "
               "cuatro filas (oros, copas, espadas, bastos) o un palo por foto, en una fila de "
               "diez o dos de cinco")


class BarajaError(ValueError):
    """The registration photo or file cannot be used; the message says why, in Spanish."""


def classifier_hash(folder: Path) -> str:
    """Short hash of the classifier ONNX file that features come from."""
    from vision.reader import CLS_FILE

    return hashlib.sha256((Path(folder) / CLS_FILE).read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class BarajaRegistrada:
    """Features of the registered crops (M, D), L2-normalised, and their card index (M,);
    optionally the crops as templates (K, TEMPLATE_H, TEMPLATE_W, 3) uint8, upright (they are
    matched either way up), and their card index (K,) (registrations of format 1 have none and
    are read by the features alone)."""

    features: np.ndarray
    labels: np.ndarray
    nombre: str = ""
    modelo: str = ""
    tau: float = TAU
    plantillas: np.ndarray | None = None
    etiquetas_plantillas: np.ndarray | None = None
    series: int = 1  # sets of photos (one of 40 cards, or four of one suit each) merged in

    def __post_init__(self) -> None:
        f, y = self.features, self.labels
        if f.ndim != 2 or y.shape != (len(f),) or not len(f):
            raise BarajaError("baraja registrada incoherente: rasgos y etiquetas no casan")
        missing = sorted(set(range(DECK_SIZE)) - {int(v) for v in y})
        if missing:
            names = " ".join(CARD_IDS[i] for i in missing)
            raise BarajaError(f"a la baraja registrada le faltan cartas: {names}")
        if (self.plantillas is None) != (self.etiquetas_plantillas is None):
            raise BarajaError("baraja registrada incoherente: plantillas sin etiquetas")
        if self.plantillas is not None:
            t, ty = self.plantillas, self.etiquetas_plantillas
            if t.shape[1:] != (TEMPLATE_H, TEMPLATE_W, 3) or ty.shape != (len(t),) or not len(t):
                raise BarajaError("baraja registrada incoherente: plantillas y etiquetas no casan")
            if set(range(DECK_SIZE)) - {int(v) for v in ty}:
                raise BarajaError("a las plantillas de la baraja registrada les faltan cartas")
        if not 1 <= self.series <= MAX_SERIES:
            raise BarajaError(f"baraja registrada incoherente: {self.series} series de fotos")

    def combinada(self, other: BarajaRegistrada) -> BarajaRegistrada:
        """This registration with the photos of ``other`` (the same deck photographed again)
        added: each card is matched against all its photos. Both must come from the same
        classifier; the templates are kept only when both have them.

        >>> a = BarajaRegistrada(np.eye(40, 8, dtype=np.float32), np.arange(40), "bar", "m1")
        >>> b = a.combinada(a)
        >>> (b.series, len(b.labels), b.nombre)
        (2, 80, 'bar')
        """
        if self.modelo and other.modelo and self.modelo != other.modelo:
            raise BarajaError("las fotos nuevas se leyeron con otro clasificador: registra la "
                              "baraja de nuevo, desde el principio")
        if self.features.shape[1] != other.features.shape[1]:
            raise BarajaError("baraja registrada incoherente: rasgos de distinto tamaño")
        self.check_room(other.series)
        both = self.has_templates and other.has_templates
        return BarajaRegistrada(
            np.concatenate([self.features, other.features]),
            np.concatenate([self.labels, other.labels]),
            self.nombre or other.nombre, self.modelo or other.modelo, self.tau,
            np.concatenate([self.plantillas, other.plantillas]) if both else None,
            np.concatenate([self.etiquetas_plantillas, other.etiquetas_plantillas]) if both
            else None,
            self.series + other.series)

    def check_room(self, added: int = 1) -> None:
        """BarajaError when ``added`` more sets of photos would pass MAX_SERIES."""
        if self.series + added > MAX_SERIES:
            raise BarajaError(f"la baraja ya tiene {self.series} series de fotos (como mucho "
                              f"{MAX_SERIES}): regístrala de nuevo con las mejores")

    @cached_property
    def _templates_both_ways(self) -> tuple[np.ndarray, np.ndarray]:
        t = self.plantillas
        both = np.concatenate([t, t[:, ::-1, ::-1]])
        return stacked(template_patches(both)), np.tile(self.etiquetas_plantillas, 2)

    @property
    def has_templates(self) -> bool:
        return self.plantillas is not None

    def class_similarity(self, feats: np.ndarray) -> np.ndarray:
        """(N, 40): for each crop, its best cosine similarity with each registered card."""
        sim = np.asarray(feats, np.float32) @ self.features.astype(np.float32).T
        return best_per_class(sim, self.labels, DECK_SIZE)

    def probabilities(self, upright: np.ndarray, upside_down: np.ndarray | None = None,
                      crops: np.ndarray | None = None) -> np.ndarray:
        """(N, 40) from the features of each crop, read both ways up when ``upside_down`` is
        given (the better way counts); the registered crops are stored both ways up, so one
        way finds a card lying either way. ``crops``: the cards cut at the template size
        (N, TEMPLATE_H, TEMPLATE_W, 3), matched against the templates where there are some."""
        s = self.class_similarity(upright)
        if upside_down is not None:
            s = np.maximum(s, self.class_similarity(upside_down))
        if crops is not None and self.has_templates:
            templates, labels = self._templates_both_ways
            s = s + TEMPLATE_WEIGHT * template_similarity(template_patches(crops), templates, labels,
                                                          DECK_SIZE)
        z = (s - s.max(1, keepdims=True)) / self.tau
        e = np.exp(z)
        return e / e.sum(1, keepdims=True)

    def check_model(self, folder: Path) -> None:
        if self.modelo and self.modelo != classifier_hash(folder):
            raise BarajaError("esta baraja se registró con otro clasificador: regístrala de nuevo "
                              "con las fotos de sus cartas")

    # ---- files
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a temporary file renamed over the target): a kill loses nothing."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".baraja-", suffix=".npz", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                extra = {} if not self.has_templates else {
                    "plantillas": self.plantillas.astype(np.uint8),
                    "etiquetas_plantillas": self.etiquetas_plantillas.astype(np.int16)}
                np.savez_compressed(fh, features=self.features.astype(np.float16),
                                    labels=self.labels.astype(np.int16), nombre=self.nombre,
                                    modelo=self.modelo, tau=self.tau, formato=FORMAT,
                                    series=self.series, **extra)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a normal file instead
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BarajaRegistrada:
        p = Path(path)
        if not p.is_file():
            raise BarajaError(f"{p}: no existe el fichero de la baraja registrada")
        try:
            with np.load(p, allow_pickle=False) as d:
                if int(d["formato"]) not in (1, FORMAT):
                    raise BarajaError(f"{p}: formato de baraja {int(d['formato'])} desconocido")
                templates = "plantillas" in d.files  # format 1 has none; format 2 may
                return cls(d["features"].astype(np.float32), d["labels"].astype(np.int64),
                           str(d["nombre"]), str(d["modelo"]), float(d["tau"]),
                           d["plantillas"].astype(np.uint8) if templates else None,
                           d["etiquetas_plantillas"].astype(np.int64) if templates else None,
                           int(d["series"]) if "series" in d.files else 1)
        except BarajaError:
            raise
        except Exception as exc:  # not an npz, a truncated file, missing arrays
            raise BarajaError(f"{p}: no es una baraja registrada legible ({exc})") from exc

    def describe(self) -> dict:
        return {"nombre": self.nombre, "cartas": DECK_SIZE, "recortes": len(self.labels),
                "rasgos": int(self.features.shape[1]), "modelo": self.modelo,
                "plantillas": 0 if self.plantillas is None else len(self.plantillas),
                "series": self.series}


# --------------------------------------------------------------------------- registering


def grid_order(obbs: np.ndarray, layouts: tuple[tuple[int, int], ...] = ((4, 10),)) -> np.ndarray:
    """Indices of oriented boxes in reading order: rows top to bottom, each left to right.

    ``layouts`` are the accepted (rows, cards per row). Rows run across the cards' long axis
    (cards stand upright or upside down in the grid), so a tilted photo is fine as long as the
    rows stay apart. Raises BarajaError when the boxes make none of the layouts.

    >>> boxes = np.array([[x, y, 60, 90, 0] for y in (100, 220) for x in (300, 100, 200)], float)
    >>> grid_order(boxes, ((2, 3),)).tolist()
    [1, 2, 0, 4, 5, 3]
    """
    obbs = np.asarray(obbs, np.float64)
    wanted = " o ".join(f"{r * c}" for r, c in layouts)
    if len(obbs) not in {r * c for r, c in layouts}:
        raise BarajaError(f"se han encontrado {len(obbs)} cartas, se esperan {wanted}: "
                          f"{LAYOUT_HELP}")
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
        sizes = "+".join(str(len(r)) for r in rows)
        raise BarajaError(f"las cartas forman filas de {sizes}, no {wanted} en filas iguales "
                          f"y separadas: {LAYOUT_HELP}")
    rows = [row[np.argsort(along[row], kind="stable")] for row in rows]
    for r, row in enumerate(rows):
        steps = np.diff(along[row])
        if len(row) > 1 and steps.min() < 0.5 * short:
            raise BarajaError(f"en la fila {r + 1} hay dos cartas encima una de otra o una carta "
                              f"leída dos veces: {LAYOUT_HELP}")
        if len(row) > 2 and steps.max() > 1.6 * np.median(steps):  # a hole: a card missed
            raise BarajaError(f"en la fila {r + 1} falta una carta o hay un hueco: {LAYOUT_HELP}")
    sizes = np.sqrt(w * h)
    if np.abs(sizes / np.median(sizes) - 1).max() > 0.35:  # a box on something else
        raise BarajaError(f"alguna caja no tiene el tamaño de una carta: {LAYOUT_HELP}")
    return np.concatenate(rows)


def locate_grid(reader: CardReader, img: np.ndarray, n: int,
                layouts: tuple[tuple[int, int], ...]) -> np.ndarray:
    """The ``n`` card boxes of a registration photo in reading order, or BarajaError. Every box
    must be a confident detection: a registration must not be built on a guess."""
    boxes, scores = reader.detect_n(img, n)
    weak = int((scores < reader.det_threshold).sum())
    if len(boxes) == n and weak:
        raise BarajaError(f"{weak} cartas se ven mal (reflejos, sombra o desenfoque): repite la "
                          "foto con luz uniforme")
    return boxes[grid_order(boxes, layouts)]


def _jittered(obb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    o = np.asarray(obb, np.float32).copy()
    o[:2] += rng.normal(0, 0.04, 2) * min(o[2], o[3])
    o[2:4] *= rng.uniform(0.95, 1.06, 2)
    o[4] += rng.normal(0, 0.03)
    return o


def registrar(reader: CardReader, fotos: Sequence[np.ndarray | str | os.PathLike[str]],
              nombre: str = "") -> tuple[BarajaRegistrada, list[str]]:
    """Register the deck from one photo of its 40 cards (four rows of ten) or four photos of
    one suit each (oros, copas, espadas, bastos, in that order; a row of ten or two rows of
    five). Returns the registration and warnings (rows whose suit the classifier doubts)."""
    from vision.geometry import CROP_H, CROP_W, crop_card
    from vision.reader import load_image

    if len(fotos) not in (1, 4):
        raise BarajaError(f"se dan {len(fotos)} fotos: hace falta una foto de las 40 cartas o "
                          "cuatro, una por palo (oros, copas, espadas, bastos)")
    per_photo, layouts = (40, ((4, 10),)) if len(fotos) == 1 else (10, ((1, 10), (2, 5)))
    rng = np.random.default_rng(0)
    crops, small, labels, size_warnings = [], [], [], []
    for p, foto in enumerate(fotos):
        img = load_image(foto) if not isinstance(foto, np.ndarray) else foto
        if img.ndim != 3 or img.shape[2] != 3:
            raise BarajaError("la foto de la baraja debe ser una imagen en color")
        try:
            boxes = locate_grid(reader, img, per_photo, layouts)
        except BarajaError as exc:
            where = "" if len(fotos) == 1 else f"foto de {SUIT_NAMES[p]}: "
            raise BarajaError(where + str(exc)) from None
        small_warning = _size_warning(boxes, p if len(fotos) == 4 else None)
        if small_warning:
            size_warnings.append(small_warning)
        for k, box0 in enumerate(boxes):
            for v in range(VIEWS):
                box = box0 if v == 0 else _jittered(box0, rng)
                crops.append(crop_card(img, box, (CROP_W, CROP_H)))
                small.append(crop_card(img, box, (TEMPLATE_W, TEMPLATE_H)))
                labels.append(p * per_photo + k)
    crops_arr = np.stack(crops)
    logits, up = reader.run_classifier(crops_arr)
    _, down = reader.run_classifier(np.ascontiguousarray(crops_arr[:, ::-1, ::-1]))
    if up is None or down is None:
        raise BarajaError("este clasificador no da rasgos: vuelve a exportarlo "
                          "(python -m vision.classifier_train --exportar ...)")
    y = np.asarray(labels, np.int64)
    baraja = BarajaRegistrada(np.concatenate([up, down]).astype(np.float32), np.concatenate([y, y]),
                              nombre, classifier_hash(reader.folder), TAU, np.stack(small), y)
    return baraja, _suit_warnings(logits, y) + size_warnings


def _size_warning(boxes: np.ndarray, suit: int | None) -> str:
    """A warning when the photo's cards are small (a registration from them reads worse)."""
    length = float(np.median(np.maximum(boxes[:, 2], boxes[:, 3])))
    if length >= MIN_CARD_PX:
        return ""
    where = "la foto de las 40 cartas" if suit is None else f"la foto de {SUIT_NAMES[suit]}"
    fix = ("haz una foto por palo" if suit is None
           else "acerca la cámara o pon las cartas en dos filas de cinco")
    return (f"en {where}, las cartas salen pequeñas ({length:.0f} píxeles de largo; mejor "
            f"{MIN_CARD_PX} o más): {fix}, y la baraja se leerá mejor")


def _suit_warnings(logits: np.ndarray, labels: np.ndarray) -> list[str]:
    """Rows whose cards the general classifier mostly puts in another suit: likely misplaced."""
    e = np.exp(logits - logits.max(1, keepdims=True))
    probs = e / e.sum(1, keepdims=True)
    suit_p = probs.reshape(len(probs), ROWS, PER_ROW).sum(2)  # CARD_IDS runs suit by suit
    avisos = []
    for r in range(ROWS):
        seen = int(np.argmax(suit_p[labels // PER_ROW == r].mean(0)))
        if seen != r:
            avisos.append(f"la fila {r + 1} debería ser de {SUIT_NAMES[r]} pero parece de "
                          f"{SUIT_NAMES[seen]}: comprueba el orden de las filas")
    return avisos
