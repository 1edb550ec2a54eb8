"""The players' own deck, registered from photos of its 40 cards; tables are read against it.

The classifier learnt two deck designs; a deck it never saw (a modern Fournier, a bar's
advertising deck) it reads far worse. Registering the deck once makes up for much of that: the
user lays the cards face up in the order of :data:`scoring.cards.CARD_IDS`, either all 40 in
four rows of ten (oros, copas, espadas, bastos; each row 1 2 3 4 5 6 7 10 11 12) for one photo,
or one suit per photo (a row of ten or two rows of five; four photos). Each
card is cut out as the reader would cut it (a few jittered boxes, both ways up), and the
classifier's features of those crops are kept, and the crops themselves, small, as templates.
A card on the table is then named by the registered card whose features are the most alike
(cosine similarity) plus, with weight TEMPLATE_WEIGHT, whose face matches it best patch by patch
(:mod:`vision.templates`), so the classifier's features must be general, but its 40-way head is
not used at all. More photos of the same deck, under another light or on another cloth, can be
added to a registration (:meth:`RegisteredDeck.combined`, ``mus baraja registrar
--añadir``): a card is then matched against every photo of it, and one poor photo no longer
misleads the whole deck. Registering is :mod:`vision.registration`; the cards of tables the
player confirmed are added as more examples, a few a card (:mod:`vision.refuerzo`).

    >>> deck = RegisteredDeck.load("mi_baraja.npz")             # doctest: +SKIP
    >>> reader = CardReader(deck=deck)                           # doctest: +SKIP

The registration is tied to the classifier it was made with (its hash is stored): features of
another classifier are not comparable, and loading it with another one is an error.

``mus baraja registrar`` stores it in the user's data folder (:func:`default_deck_path`, the
folder the app keeps its partidas in: :func:`common.files.default_data_dir`), where ``mus leer`` and ``mus
mano`` find it by default.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from common.files import default_data_dir, write_atomic
from scoring.cards import CARD_IDS
from vision.arrays import Floats, Image, Ints, Mask
from vision.models import CLASSIFIER_FILE, file_hash
from vision.templates import (
    TEMPLATE_H,
    TEMPLATE_W,
    best_per_class,
    stacked,
    template_patches,
    template_similarity,
)

DECK_SIZE, ROWS, PER_ROW = 40, 4, 10
SUIT_NAMES = ("oros", "copas", "espadas", "bastos")
TAU = 0.04  # softmax temperature on cosine similarities (lowest NLL on validation crops)
VIEWS = 6  # crops per registered card: its box and five jittered ones
# Weight of the template match (vision.templates) added to the features' cosine similarity.
# On the detector's boxes of 60 validation tables of each design, read by a classifier trained
# on the other design, weights 0 / 0.2 / 0.3 / 0.5 / 1 gave 88.2 / 90.7 / 90.9 / 90.5 / 90.9 %
# of the cards right (Naipes Libres) and 92.1 / 93.3 / 93.8 / 94.0 / 91.3 % (Fournier); tables
# all right 13 / 18 / 18 / 15 / 15 and 24 / 25 / 27 / 27 / 19.
TEMPLATE_WEIGHT = 0.3
FORMAT = 2  # 2: with templates; files of format 1 (features only) still load
# Sets of photos one registration may hold: each adds about 1.5 MB and a millisecond a read.
MAX_SERIES = 4
# Examples added from tables the user confirmed (vision.refuerzo): at most this many per card
# (the oldest uncorrected one dropped first), each cut EXTRA_VIEWS ways, so the added crops
# never outnumber one registration's (40 x 3 x 2 = 240 = 40 x VIEWS).
MAX_EXTRA_PER_CARD = 3
EXTRA_VIEWS = 2
DECK_FILE = "baraja.npz"  # the registered deck in the data folder


def default_deck_path() -> Path:
    """Where ``mus baraja registrar`` stores the deck and the readers look for it by default.

    >>> default_deck_path() == default_data_dir() / "baraja.npz"
    True
    """
    return default_data_dir() / DECK_FILE


class DeckError(ValueError):
    """The registration photo or file cannot be used; the message says why, in Spanish."""


def classifier_hash(folder: Path) -> str:
    """Short hash of the classifier ONNX file that features come from."""
    return file_hash(Path(folder) / CLASSIFIER_FILE)


@dataclass(frozen=True)
class RegisteredDeck:
    """Features of the registered crops (M, D), L2-normalised, and their card index (M,);
    optionally the crops as templates (K, TEMPLATE_H, TEMPLATE_W, 3) uint8, upright (they are
    matched either way up), and their card index (K,) (registrations of format 1 have none and
    are read by the features alone)."""

    features: Floats
    labels: Ints
    name: str = ""
    model: str = ""  # the hash of the classifier the features come from
    tau: float = TAU
    templates: Image | None = None
    template_labels: Ints | None = None
    series: int = 1  # sets of photos (one of 40 cards, or four of one suit each) merged in
    # examples from confirmed tables, oldest first (vision.refuerzo): features (E, 2 x
    # EXTRA_VIEWS, D) (each view upright, then upside down), templates (E, EXTRA_VIEWS, H, W, 3)
    # or None, card index (E,), and whether the user corrected the reader on it (E,)
    extra_features: Floats | None = None
    extra_templates: Image | None = None
    extra_labels: Ints | None = None
    extra_corrected: Mask | None = None

    def __post_init__(self) -> None:
        f, y = self.features, self.labels
        if f.ndim != 2 or y.shape != (len(f),):
            raise DeckError("baraja registrada incoherente: rasgos y etiquetas no casan")
        # a deck learned from confirmed hands only (series 0) has no registration photos
        if not 0 <= self.series <= MAX_SERIES or bool(len(f)) != bool(self.series):
            raise DeckError(f"baraja registrada incoherente: {self.series} series de fotos")
        missing = sorted(set(range(DECK_SIZE)) - {int(v) for v in y}) if self.series else []
        if missing:
            names = " ".join(CARD_IDS[i] for i in missing)
            raise DeckError(f"a la baraja registrada le faltan cartas: {names}")
        if (self.templates is None) != (self.template_labels is None):
            raise DeckError("baraja registrada incoherente: plantillas sin etiquetas")
        if self.templates is not None and self.template_labels is not None:
            t, ty = self.templates, self.template_labels
            if t.shape[1:] != (TEMPLATE_H, TEMPLATE_W, 3) or ty.shape != (len(t),) or bool(len(t)) != bool(self.series):
                raise DeckError("baraja registrada incoherente: plantillas y etiquetas no casan")
            if self.series and set(range(DECK_SIZE)) - {int(v) for v in ty}:
                raise DeckError("a las plantillas de la baraja registrada les faltan cartas")
        self._check_extra()

    def _check_extra(self) -> None:
        f, t, y, c = (self.extra_features, self.extra_templates, self.extra_labels, self.extra_corrected)
        if f is None:
            if t is not None or y is not None or c is not None:
                raise DeckError("baraja registrada incoherente: refuerzos sin rasgos")
            return
        e = len(f)
        if (
            f.ndim != 3
            or f.shape[2] != self.features.shape[1]
            or y is None
            or c is None
            or y.shape != (e,)
            or c.shape != (e,)
            or (y.size and not 0 <= y.min() <= y.max() < DECK_SIZE)
        ):
            raise DeckError("baraja registrada incoherente: refuerzos y etiquetas no casan")
        if (t is not None) != self.has_templates or (
            t is not None and (t.shape[0] != e or t.shape[2:] != (TEMPLATE_H, TEMPLATE_W, 3))
        ):
            raise DeckError("baraja registrada incoherente: plantillas de refuerzo no casan")

    @classmethod
    def learned(cls, model: str, dim: int, name: str = "") -> RegisteredDeck:
        """An empty deck to be learned from confirmed hands (:mod:`vision.aprender`), with no
        registration photos (series 0): it knows no card until examples are added.

        >>> d = RegisteredDeck.learned("m1", 8)
        >>> (d.series, int(d.known.sum()), d.partial)
        (0, 0, True)
        """
        return cls(
            np.zeros((0, dim), np.float32),
            np.zeros(0, np.int64),
            name,
            model,
            TAU,
            np.zeros((0, TEMPLATE_H, TEMPLATE_W, 3), np.uint8),
            np.zeros(0, np.int64),
            0,
        )

    @cached_property
    def known(self) -> Mask:
        """(40,): the cards with at least one example (registration photo or confirmed hand).
        A registered deck knows all 40; a deck learned from some hands, only their cards."""
        out = np.zeros(DECK_SIZE, bool)
        out[self.labels] = True
        if self.extra_labels is not None:
            out[self.extra_labels] = True
        return out

    @property
    def partial(self) -> bool:
        """Whether some cards have no example: those are read by the generic classifier."""
        return not bool(self.known.all())

    @property
    def extra_count(self) -> int:
        """Examples from confirmed tables held."""
        return 0 if self.extra_labels is None else len(self.extra_labels)

    def _all_features(self) -> tuple[Floats, Ints]:
        f, y = self.extra_features, self.extra_labels
        if f is None or y is None:
            return self.features, self.labels
        return (
            np.concatenate([self.features, f.reshape(-1, f.shape[2])]),
            np.concatenate([self.labels, np.repeat(y, f.shape[1])]),
        )

    def _all_templates(self) -> tuple[Image, Ints]:
        """The templates of the registration and of the confirmed tables (the deck has some)."""
        t, y = self.templates, self.template_labels
        if t is None or y is None:
            raise DeckError("la baraja registrada no tiene plantillas")
        if self.extra_templates is None or self.extra_labels is None:
            return t, y
        e = self.extra_templates
        return (
            np.concatenate([t, e.reshape(-1, *e.shape[2:])]),
            np.concatenate([y, np.repeat(self.extra_labels, e.shape[1])]),
        )

    def combined(self, other: RegisteredDeck) -> RegisteredDeck:
        """This registration with the photos of ``other`` (the same deck photographed again)
        added: each card is matched against all its photos. Both must come from the same
        classifier; the templates are kept only when both have them.

        >>> a = RegisteredDeck(np.eye(40, 8, dtype=np.float32), np.arange(40), "bar", "m1")
        >>> b = a.combined(a)
        >>> (b.series, len(b.labels), b.name)
        (2, 80, 'bar')
        """
        if self.model and other.model and self.model != other.model:
            raise DeckError(
                "las fotos nuevas se leyeron con otro clasificador: registra la baraja de nuevo, desde el principio"
            )
        if self.features.shape[1] != other.features.shape[1]:
            raise DeckError("baraja registrada incoherente: rasgos de distinto tamaño")
        self.check_room(other.series)
        both = self.has_templates and other.has_templates
        # the examples of confirmed tables stay only when both sides keep templates alike
        extra = self if both or not (self.has_templates or other.has_templates) else None
        return RegisteredDeck(
            np.concatenate([self.features, other.features]),
            np.concatenate([self.labels, other.labels]),
            self.name or other.name,
            self.model or other.model,
            self.tau,
            np.concatenate([self.templates, other.templates]) if both else None,
            np.concatenate([self.template_labels, other.template_labels]) if both else None,
            self.series + other.series,
            *(
                (extra.extra_features, extra.extra_templates, extra.extra_labels, extra.extra_corrected)
                if extra is not None
                else ()
            ),
        )

    def check_room(self, added: int = 1) -> None:
        """DeckError when ``added`` more sets of photos would pass MAX_SERIES."""
        if self.series + added > MAX_SERIES:
            raise DeckError(
                f"la baraja ya tiene {self.series} series de fotos (como mucho "
                f"{MAX_SERIES}): regístrala de nuevo con las mejores"
            )

    @cached_property
    def _templates_both_ways(self) -> tuple[Floats, Ints]:
        t, labels = self._all_templates()
        both = np.concatenate([t, t[:, ::-1, ::-1]])
        return stacked(template_patches(both)), np.tile(labels, 2)

    @property
    def has_templates(self) -> bool:
        return self.templates is not None

    def class_similarity(self, feats: Floats) -> Floats:
        """(N, 40): for each crop, its best cosine similarity with each registered card."""
        features, labels = self._all_features()
        sim = np.asarray(feats, np.float32) @ features.astype(np.float32).T
        return best_per_class(sim, labels, DECK_SIZE)

    def probabilities(self, upright: Floats, upside_down: Floats | None = None, crops: Image | None = None) -> Floats:
        """(N, 40) from the features of each crop, read both ways up when ``upside_down`` is
        given (the better way counts); the registered crops are stored both ways up, so one
        way finds a card lying either way. ``crops``: the cards cut at the template size
        (N, TEMPLATE_H, TEMPLATE_W, 3), matched against the templates where there are some."""
        s = self.class_similarity(upright)
        if upside_down is not None:
            s = np.maximum(s, self.class_similarity(upside_down))
        if crops is not None and self.has_templates:
            templates, labels = self._templates_both_ways
            s = s + TEMPLATE_WEIGHT * template_similarity(template_patches(crops), templates, labels, DECK_SIZE)
        z = (s - s.max(1, keepdims=True)) / self.tau
        e = np.exp(z)
        probs: Floats = e / e.sum(1, keepdims=True)
        return probs

    def check_model(self, folder: Path) -> None:
        if self.model and self.model != classifier_hash(folder):
            raise DeckError(
                "esta baraja se registró con otro clasificador: regístrala de nuevo con las fotos de sus cartas"
            )

    # ---- files
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a temporary file renamed over the target): a kill loses nothing."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # a description of a deck's faces, no player's data: a normal file, to copy to another device
        write_atomic(path, self.to_bytes())
        return path

    def to_bytes(self) -> bytes:
        """The .npz file's bytes (as :meth:`save` writes it), to keep in a database."""
        buf = io.BytesIO()
        self._write(buf)
        return buf.getvalue()

    def _write(self, fh: BinaryIO) -> None:
        extra: dict[str, NDArray[Any]] = {}
        if self.templates is not None and self.template_labels is not None:
            extra["plantillas"] = self.templates.astype(np.uint8)
            extra["etiquetas_plantillas"] = self.template_labels.astype(np.int16)
        extra.update(self._extra_arrays())
        arrays: dict[str, Any] = {
            "features": self.features.astype(np.float16),
            "labels": self.labels.astype(np.int16),
            "nombre": self.name,
            "modelo": self.model,
            "tau": self.tau,
            "formato": FORMAT,
            "series": self.series,
            **extra,
        }
        # numpy's stubs read **arrays as its keyword `allow_pickle`; every value is an array
        np.savez_compressed(fh, **arrays)

    def _extra_arrays(self) -> dict[str, NDArray[Any]]:
        f, y, c = self.extra_features, self.extra_labels, self.extra_corrected
        if f is None or y is None or c is None:
            return {}
        out: dict[str, NDArray[Any]] = {
            "refuerzo_rasgos": f.astype(np.float16),
            "refuerzo_cartas": y.astype(np.int16),
            "refuerzo_corregidas": c.astype(bool),
        }
        if self.extra_templates is not None:
            out["refuerzo_plantillas"] = self.extra_templates.astype(np.uint8)
        return out

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> RegisteredDeck:
        p = Path(path)
        if not p.is_file():
            raise DeckError(f"{p}: no existe el fichero de la baraja registrada")
        return cls._read(p, str(p))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "baraja") -> RegisteredDeck:
        """The deck in an .npz file's bytes (:meth:`to_bytes`); DeckError naming ``name``."""
        return cls._read(io.BytesIO(data), name)

    @classmethod
    def _read(cls, source: Path | BinaryIO, p: str) -> RegisteredDeck:
        try:
            with np.load(source, allow_pickle=False) as d:
                if int(d["formato"]) not in (1, FORMAT):
                    raise DeckError(f"{p}: formato de baraja {int(d['formato'])} desconocido")
                templates = "plantillas" in d.files  # format 1 has none; format 2 may
                extra = "refuerzo_rasgos" in d.files
                return cls(
                    d["features"].astype(np.float32),
                    d["labels"].astype(np.int64),
                    str(d["nombre"]),
                    str(d["modelo"]),
                    float(d["tau"]),
                    d["plantillas"].astype(np.uint8) if templates else None,
                    d["etiquetas_plantillas"].astype(np.int64) if templates else None,
                    int(d["series"]) if "series" in d.files else 1,
                    d["refuerzo_rasgos"].astype(np.float32) if extra else None,
                    d["refuerzo_plantillas"].astype(np.uint8) if extra and "refuerzo_plantillas" in d.files else None,
                    d["refuerzo_cartas"].astype(np.int64) if extra else None,
                    d["refuerzo_corregidas"].astype(bool) if extra else None,
                )
        except DeckError:
            raise
        except Exception as exc:  # not an npz, a truncated file, missing arrays
            raise DeckError(f"{p}: no es una baraja registrada legible ({exc})") from exc

    def describe(self) -> dict[str, Any]:
        return {
            "nombre": self.name,
            "cartas": DECK_SIZE,
            "recortes": len(self.labels),
            "rasgos": int(self.features.shape[1]),
            "modelo": self.model,
            "plantillas": 0 if self.templates is None else len(self.templates),
            "series": self.series,
            "refuerzos": self.extra_count,
            "conocidas": int(self.known.sum()),
        }
