"""Drawing of a FrameResult on a frame (kept apart from detection, as in supervision)."""

from __future__ import annotations

import cv2
import numpy as np

from gestures import landmarks as L
from gestures.types import FrameResult

GREEN, YELLOW, WHITE, BLACK = (80, 220, 80), (0, 215, 255), (255, 255, 255), (0, 0, 0)


def draw_landmarks(frame: np.ndarray, res: FrameResult) -> np.ndarray:
    """Eye, brow and lip contours and the shoulders, in place; returns the frame."""
    if res.landmarks is not None:
        for loop in L.DRAW_LOOPS:
            pts = np.round(res.landmarks[list(loop)]).astype(np.int32)
            cv2.polylines(frame, [pts], loop[0] != loop[-1] and len(loop) > 6, GREEN, 1, cv2.LINE_AA)
    if res.hombros is not None:
        for x, y in res.hombros:
            cv2.circle(frame, (int(x), int(y)), 6, YELLOW, 2, cv2.LINE_AA)
    return frame


def _text(
    frame: np.ndarray, text: str, org: tuple[int, int], scale: float = 0.6, colour: tuple[int, int, int] = WHITE
) -> None:
    cv2.putText(frame, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, 3, cv2.LINE_AA)
    cv2.putText(frame, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def _ascii(text: str) -> str:
    """Hershey fonts have no accents or ñ."""
    table = str.maketrans("áéíóúñÁÉÍÓÚÑü", "aeiounAEIOUNu")
    return text.translate(table)


def draw_status(frame: np.ndarray, res: FrameResult, last: str | None = None) -> np.ndarray:
    """Score bars, the gestures held now and the last recognised seña, in place."""
    h = frame.shape[0]
    if not res.cara:
        _text(frame, "sin cara", (10, 30), 0.8, YELLOW)
    elif res.calibrando:
        _text(frame, "calibrando: cara neutra...", (10, 30), 0.8, YELLOW)
    y = 60
    for g, s in sorted(res.puntuaciones.items()):
        cv2.rectangle(frame, (10, y - 10), (10 + int(100 * s), y), GREEN if s >= 0.6 else WHITE, -1)
        _text(frame, g, (115, y), 0.45)
        y += 18
    for i, ev in enumerate(res.activos):
        label = ev.gesto + (f" ({ev.lado})" if ev.lado else "") + (f": {ev.sena}" if ev.sena else "")
        _text(frame, _ascii(label), (10, h - 50 - 28 * i), 0.8, GREEN)
    if last:
        _text(frame, _ascii(last), (10, h - 15), 0.7, YELLOW)
    return frame
