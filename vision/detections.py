"""The result of reading a photo: cards as parallel numpy arrays (in the style of supervision's
``Detections``), with composable filters.

    >>> import numpy as np
    >>> d = CardDetections.empty()
    >>> len(d), d.hands
    (0, None)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np

SEAT_NAMES = ("abajo", "derecha", "arriba", "izquierda")  # seats 0..3, counter-clockwise


@dataclass(frozen=True)
class Card:
    """One read card (a row of :class:`CardDetections`)."""

    card_id: str
    confidence: float
    xyxy: tuple[float, float, float, float]
    seat: int
    low_confidence: bool


@dataclass
class CardDetections:
    """Cards found in one photo.

    - ``xyxy`` (N, 4) float32: axis-aligned box in image pixels (x1, y1, x2, y2);
    - ``obb`` (N, 5) float32: oriented box (cx, cy, w, h, angle in radians);
    - ``card_ids`` (N,) object: ids in scoring's notation (``"12o"``), each at most once;
    - ``confidence`` (N,) float32: detector score times classifier probability;
    - ``det_confidence``, ``cls_confidence`` (N,) float32: the two factors;
    - ``alternatives`` (N,) object: the runner-up id of the classifier, for the app to offer;
    - ``low_confidence`` (N,) bool: ask the user to confirm these;
    - ``seat`` (N,) int8: 0 bottom, 1 right, 2 top, 3 left (counter-clockwise from the camera
      side), -1 when no seats could be given;
    - ``warnings``: in Spanish, for the player (why there are no seats, which cards are doubtful);
    - ``data``: more per-card arrays, indexed with the rows (as supervision's ``Detections.data``):
      the reader puts ``"corner_index"`` and ``"pintas"`` (N, 2) there, each mark reader's
      probability of the card's rank (suit) and its highest probability of any, where it has
      those readers.
    """

    xyxy: np.ndarray
    obb: np.ndarray
    card_ids: np.ndarray
    confidence: np.ndarray
    det_confidence: np.ndarray
    cls_confidence: np.ndarray
    alternatives: np.ndarray
    low_confidence: np.ndarray
    seat: np.ndarray
    warnings: list[str] = field(default_factory=list)
    image_size: tuple[int, int] = (0, 0)  # (width, height)
    data: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls, warnings: list[str] | None = None,
              image_size: tuple[int, int] = (0, 0)) -> CardDetections:
        f = np.zeros(0, np.float32)
        return cls(np.zeros((0, 4), np.float32), np.zeros((0, 5), np.float32),
                   np.zeros(0, object), f, f.copy(), f.copy(), np.zeros(0, object),
                   np.zeros(0, bool), np.zeros(0, np.int8), list(warnings or []), image_size)

    def __len__(self) -> int:
        return len(self.card_ids)

    def __getitem__(self, index: int | slice | np.ndarray | list) -> CardDetections:
        """Rows by index, slice or boolean mask; always returns CardDetections."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return replace(self, xyxy=self.xyxy[index], obb=self.obb[index],
                       card_ids=self.card_ids[index], confidence=self.confidence[index],
                       det_confidence=self.det_confidence[index],
                       cls_confidence=self.cls_confidence[index],
                       alternatives=self.alternatives[index],
                       low_confidence=self.low_confidence[index], seat=self.seat[index],
                       warnings=list(self.warnings),
                       data={k: v[index] for k, v in self.data.items()})

    def __iter__(self) -> Iterator[Card]:
        for i in range(len(self)):
            yield Card(str(self.card_ids[i]), float(self.confidence[i]),
                       tuple(float(v) for v in self.xyxy[i]), int(self.seat[i]),
                       bool(self.low_confidence[i]))

    # ---- filters (each returns a new CardDetections)
    def confident(self) -> CardDetections:
        return self[~self.low_confidence]

    def doubtful(self) -> CardDetections:
        return self[self.low_confidence]

    def in_seat(self, seat: int) -> CardDetections:
        return self[self.seat == seat]

    def sorted_by_x(self) -> CardDetections:
        return self[np.argsort((self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, kind="stable")]

    # ---- views
    @property
    def ids(self) -> list[str]:
        return [str(c) for c in self.card_ids]

    @property
    def hands(self) -> list[list[str]] | None:
        """The four hands in seat order (0 bottom, 1 right, 2 top, 3 left), or None."""
        if len(self) == 0 or (self.seat < 0).any():
            return None
        hands = []
        for s in range(4):
            hand = self.in_seat(s).sorted_by_x()
            if len(hand) != 4:
                return None
            hands.append(hand.ids)
        return hands

    def to_json(self, imagen: str | None = None) -> dict:
        """The ``mus leer --json`` object for this photo."""
        cartas = []
        for i in range(len(self)):
            entry = {"carta": str(self.card_ids[i]),
                     "confianza": round(float(self.confidence[i]), 3),
                     "caja": [round(float(v), 1) for v in self.xyxy[i]]}
            if self.seat[i] >= 0:
                entry["asiento"] = int(self.seat[i])
            # always said, so that no reader of the JSON guesses it from the confidence: the
            # reader's flag rules (vision.flags) are not one threshold
            entry["dudosa"] = bool(self.low_confidence[i])
            if self.low_confidence[i]:
                entry["alternativa"] = str(self.alternatives[i])
            cartas.append(entry)
        out: dict = {"imagen": imagen} if imagen is not None else {}
        out.update({"cartas": cartas, "asientos": self.hands, "avisos": list(self.warnings)})
        return out
