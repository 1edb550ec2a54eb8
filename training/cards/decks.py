"""Card-face images of the two reference decks in ``../shared/decks/``.

The images are never copied into the repository: they are read from the deck folder, which is
``$MUSMESA_DECKS`` when set, else ``../shared/decks`` next to the repository root. Each deck is
returned as ``{card_id: BGRA image}`` with card ids in scoring's notation (``"12o"``), normalised
to a height of :data:`FACE_HEIGHT` pixels, with an alpha channel that rounds the corners.

- ``fournier1878-pd``: Heraclio Fournier 1878, public domain (the only design used for the
  example photos that ship in ``examples/``).
- ``naipes-libres-basquetteur``: "Naipes Libres" by Basquetteur, CC BY-SA 3.0 (training only;
  its 8s and 9s are ignored).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scoring.cards import CARD_IDS, SUIT_NAMES

FACE_HEIGHT = 512
DECKS = ("fournier1878-pd", "naipes-libres-basquetteur")
PUBLIC_DOMAIN_DECK = "fournier1878-pd"
_REPO = Path(__file__).resolve().parents[2]


def decks_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The folder that holds the deck folders (argument, then $MUSMESA_DECKS, then ../shared/decks)."""
    if root is not None:
        return Path(root)
    env = os.environ.get("MUSMESA_DECKS")
    if env:
        return Path(env)
    return _REPO.parent / "shared" / "decks"


def _file_for(deck: str, card_id: str) -> str:
    rank, suit = int(card_id[:-1]), card_id[-1]
    if deck == "fournier1878-pd":
        return f"{rank}_{SUIT_NAMES[suit][:-1]}.webp"  # "12_oro.webp", "3_copa.webp"
    if deck == "naipes-libres-basquetteur":
        return f"{rank:02d}-{SUIT_NAMES[suit]}.png"  # "12-oros.png"
    raise ValueError(f"baraja desconocida: {deck!r} (conocidas: {', '.join(DECKS)})")


def _back_file(deck: str) -> str:
    return {"fournier1878-pd": "dorso.webp", "naipes-libres-basquetteur": "reverso.png"}[deck]


def _rounded_alpha(h: int, w: int, radius: float) -> np.ndarray:
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, round(radius))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return alpha


def _load_face(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(f"no se puede leer la carta {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    scale = FACE_HEIGHT / h
    size = (round(w * scale), FACE_HEIGHT)
    img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    h, w = img.shape[:2]
    rounded = _rounded_alpha(h, w, 0.06 * w)
    if img.shape[2] == 4:
        alpha = np.minimum(img[:, :, 3], rounded)
        bgr = img[:, :, :3]
    else:
        alpha, bgr = rounded, img
    return np.dstack([bgr, alpha])


@lru_cache(maxsize=8)
def load_deck(deck: str, root: str | None = None) -> dict[str, np.ndarray]:
    """All 40 faces of ``deck`` as BGRA images of height FACE_HEIGHT, keyed by card id."""
    folder = decks_root(root) / deck
    if not folder.is_dir():
        raise FileNotFoundError(f"no encuentro la baraja {deck!r} en {folder} (define MUSMESA_DECKS o pasa la carpeta)")
    return {cid: _load_face(folder / _file_for(deck, cid)) for cid in CARD_IDS}


@lru_cache(maxsize=8)
def load_back(deck: str, root: str | None = None) -> np.ndarray:
    """The card back of ``deck`` (BGRA), used as a distractor in synthetic scenes."""
    return _load_face(decks_root(root) / deck / _back_file(deck))
