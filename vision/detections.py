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
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.cards import Card, NotationError
from vision.flags import LOW_CONFIDENCE

SEAT_NAMES = ("abajo", "derecha", "arriba", "izquierda")  # seats 0..3, counter-clockwise


@dataclass(frozen=True)
class CardBox:
    """One read card where it lies in the photo (a row of :class:`CardDetections`): the card
    itself is scoring's :class:`~scoring.cards.Card`."""

    card: Card
    confidence: float
    xyxy: tuple[float, float, float, float]
    seat: int
    low_confidence: bool

    @property
    def card_id(self) -> str:
        """The card in scoring's notation (``"12o"``), as in ``CardDetections.card_ids``."""
        return str(self.card)


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
    - ``unfamiliar``: the cards look like none of the decks the reader knows (every card is then
      doubtful and a warning says so): the screens offer to register the players' deck on it;
    - ``data``: more per-card arrays, indexed with the rows (as supervision's ``Detections.data``):
      the reader puts ``"corner_index"`` and ``"pintas"`` (N, 2) there, each mark reader's
      probability of the card's rank (suit) and its highest probability of any, where it has
      those readers; a correction (:meth:`correct`) puts ``"corrected_from"`` there, the id
      the reader gave each corrected card (None for the others).

    The corrections a player makes change the rows in place, so every screen showing one reading
    shows the same cards.
    """

    xyxy: NDArray[np.float32]
    obb: NDArray[np.float32]
    card_ids: NDArray[np.object_]
    confidence: NDArray[np.float32]
    det_confidence: NDArray[np.float32]
    cls_confidence: NDArray[np.float32]
    alternatives: NDArray[np.object_]
    low_confidence: NDArray[np.bool_]
    seat: NDArray[np.int8]
    warnings: list[str] = field(default_factory=list)
    image_size: tuple[int, int] = (0, 0)  # (width, height)
    data: dict[str, NDArray[Any]] = field(default_factory=dict)
    unfamiliar: bool = False

    @classmethod
    def empty(cls, warnings: list[str] | None = None, image_size: tuple[int, int] = (0, 0)) -> CardDetections:
        f = np.zeros(0, np.float32)
        return cls(
            np.zeros((0, 4), np.float32),
            np.zeros((0, 5), np.float32),
            np.zeros(0, object),
            f,
            f.copy(),
            f.copy(),
            np.zeros(0, object),
            np.zeros(0, bool),
            np.zeros(0, np.int8),
            list(warnings or []),
            image_size,
        )

    def __len__(self) -> int:
        return len(self.card_ids)

    def __getitem__(self, index: int | np.integer[Any] | slice | NDArray[Any] | list[int]) -> CardDetections:
        """Rows by index, slice or boolean mask; always returns CardDetections."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return replace(
            self,
            xyxy=self.xyxy[index],
            obb=self.obb[index],
            card_ids=self.card_ids[index],
            confidence=self.confidence[index],
            det_confidence=self.det_confidence[index],
            cls_confidence=self.cls_confidence[index],
            alternatives=self.alternatives[index],
            low_confidence=self.low_confidence[index],
            seat=self.seat[index],
            warnings=list(self.warnings),
            data={k: v[index] for k, v in self.data.items()},
        )

    def __iter__(self) -> Iterator[CardBox]:
        for i in range(len(self)):
            x1, y1, x2, y2 = (float(v) for v in self.xyxy[i])
            yield CardBox(
                Card.parse(str(self.card_ids[i])),
                float(self.confidence[i]),
                (x1, y1, x2, y2),
                int(self.seat[i]),
                bool(self.low_confidence[i]),
            )

    # ---- filters (each returns a new CardDetections)
    def confident(self) -> CardDetections:
        return self[~self.low_confidence]

    def doubtful(self) -> CardDetections:
        return self[self.low_confidence]

    def in_seat(self, seat: int) -> CardDetections:
        return self[self.seat == seat]

    def sorted_by_x(self) -> CardDetections:
        return self[np.argsort((self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, kind="stable")]

    def scaled(self, factor: float) -> CardDetections:
        """The same reading with its boxes and image size ``factor`` times bigger: a photo read
        reduced (vision.images.load_for_reading) answered in the photo's own pixels.

        >>> d = CardDetections.from_json({"cartas": [{"carta": "5c", "caja": [10, 20, 30, 60]}]})
        >>> d = replace(d, image_size=(100, 80))
        >>> e = d.scaled(2)
        >>> e.xyxy.tolist(), e.obb[0, :4].tolist(), e.image_size
        ([[20.0, 40.0, 60.0, 120.0]], [40.0, 80.0, 40.0, 80.0], (200, 160))
        """
        if factor == 1:
            return self
        obb = self.obb.copy()
        obb[:, :4] *= factor  # centre and size; the angle stays
        w, h = self.image_size
        size = (round(w * factor), round(h * factor))
        return replace(self, xyxy=(self.xyxy * factor).astype(self.xyxy.dtype), obb=obb, image_size=size)

    def without_seats(self) -> CardDetections:
        """The same cards with no seat given (one player's hand, seat by seat)."""
        return replace(self[np.arange(len(self))], seat=np.full(len(self), -1, np.int8))

    @classmethod
    def concat(
        cls, parts: list[CardDetections], seats: list[int] | None = None, warnings: list[str] | None = None
    ) -> CardDetections:
        """The rows of ``parts`` one after another (part k's cards in seat ``seats[k]`` when
        given); ``data`` keeps the arrays every part has, and the corrections of any."""
        if not parts:
            return cls.empty(warnings)
        seat = (
            [np.full(len(p), s, np.int8) for p, s in zip(parts, seats, strict=True)]
            if seats
            else [p.seat for p in parts]
        )
        keys = set.intersection(*(set(p.data) for p in parts)) - {CORRECTED}
        data = {k: np.concatenate([p.data[k] for p in parts]) for k in keys}
        if any(CORRECTED in p.data for p in parts):
            data[CORRECTED] = np.concatenate([p.corrected_from for p in parts])
        joined = {name: np.concatenate([getattr(p, name) for p in parts]) for name in _ROWS}
        return cls(
            **joined,
            seat=np.concatenate(seat),
            data=data,
            warnings=list(warnings if warnings is not None else [w for p in parts for w in p.warnings]),
            image_size=parts[0].image_size,
            unfamiliar=any(p.unfamiliar for p in parts),
        )

    # ---- corrections
    @property
    def corrected_from(self) -> NDArray[np.object_]:
        """(N,) object: the id the reader gave each card the player corrected, else None."""
        return self.data.get(CORRECTED, np.full(len(self), None, object))

    @property
    def corrected(self) -> NDArray[np.bool_]:
        """(N,) bool: the cards the player corrected."""
        return np.array([c is not None for c in self.corrected_from], bool)

    def correct(self, index: int, card: str | Card) -> list[tuple[int, str, str]]:
        """Set card ``index`` to ``card`` (confirmed by the player: no longer doubtful). A deck
        holds each card once, so if another row had that card the two swap ids (a typical
        confusion) and that one is flagged for a look. In place; the changes as (row, before,
        after), ids in scoring's notation. NotationError (a ValueError) for a card not of the
        deck."""
        if not 0 <= index < len(self):
            raise IndexError(f"no card {index} in a reading of {len(self)}")
        card_id = str(card if isinstance(card, Card) else Card.parse(card))
        before = str(self.card_ids[index])
        if CORRECTED not in self.data:
            self.data[CORRECTED] = np.full(len(self), None, object)
        changes = [(index, before, card_id)]
        for j in np.flatnonzero(self.card_ids == card_id):
            if j != index:
                self._set(int(j), before, doubtful=True)
                changes.append((int(j), card_id, before))
        self._set(index, card_id, doubtful=False)
        self.confidence[index] = 1.0
        return changes

    def _set(self, row: int, card_id: str, doubtful: bool) -> None:
        if self.data[CORRECTED][row] is None:
            self.data[CORRECTED][row] = str(self.card_ids[row])
        self.card_ids[row] = card_id
        self.low_confidence[row] = doubtful

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

    def to_json(self, imagen: str | None = None) -> dict[str, Any]:
        """The ``mus leer --json`` object for this photo."""
        cartas = []
        for i in range(len(self)):
            entry: dict[str, Any] = {
                "carta": str(self.card_ids[i]),
                "confianza": round(float(self.confidence[i]), 3),
                "caja": [round(float(v), 1) for v in self.xyxy[i]],
            }
            if self.seat[i] >= 0:
                entry["asiento"] = int(self.seat[i])
            # always said, so that no reader of the JSON guesses it from the confidence: the
            # reader's flag rules (vision.flags) are not one threshold
            entry["dudosa"] = bool(self.low_confidence[i])
            if self.low_confidence[i]:
                entry["alternativa"] = str(self.alternatives[i])
            cartas.append(entry)
        out: dict[str, Any] = {"imagen": imagen} if imagen is not None else {}
        out.update(
            {
                "cartas": cartas,
                "asientos": self.hands,
                "avisos": list(self.warnings),
                "baraja_desconocida": self.unfamiliar,
            }
        )
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CardDetections:
        """A reading from its :meth:`to_json` object (one image), as the web page sends it back
        or as written by ``mus leer --json``. The JSON keeps no oriented box (upright ones from
        ``caja`` stand in) and one confidence (taken for both factors). ValueError for a card
        that is not a card of the deck."""
        rows = data.get("cartas") or []
        try:
            ids = [str(Card.parse(str(c["carta"]))) for c in rows]
            alts = [str(Card.parse(str(c.get("alternativa") or c["carta"]))) for c in rows]
        except (KeyError, TypeError, NotationError) as exc:
            raise ValueError(f"lectura con una carta que no es de la baraja: {exc}") from None
        n = len(rows)
        conf = np.array([float(c.get("confianza", 1.0)) for c in rows], np.float32)
        xyxy = np.array([[float(v) for v in c.get("caja", (0, 0, 0, 0))] for c in rows], np.float32).reshape(n, 4)
        # a JSON that does not say which cards are doubtful (written by hand): the reader's
        # generic threshold
        low = np.array([bool(c.get("dudosa", conf[i] < LOW_CONFIDENCE)) for i, c in enumerate(rows)], bool).reshape(n)
        seat = np.array([int(c.get("asiento", -1)) for c in rows], np.int8).reshape(n)
        obb = (
            np.column_stack(
                [
                    (xyxy[:, 0] + xyxy[:, 2]) / 2,
                    (xyxy[:, 1] + xyxy[:, 3]) / 2,
                    xyxy[:, 2] - xyxy[:, 0],
                    xyxy[:, 3] - xyxy[:, 1],
                    np.zeros(n, np.float32),
                ]
            )
            .astype(np.float32)
            .reshape(n, 5)
        )
        return cls(
            xyxy,
            obb,
            np.array(ids, object).reshape(n),
            conf,
            conf.copy(),
            np.ones(n, np.float32),
            np.array(alts, object).reshape(n),
            low,
            seat,
            [str(w) for w in data.get("avisos") or []],
            unfamiliar=bool(data.get("baraja_desconocida", False)),
        )


CORRECTED = "corrected_from"  # the data key of the corrections
_ROWS = ("xyxy", "obb", "card_ids", "confidence", "det_confidence", "cls_confidence", "alternatives", "low_confidence")
