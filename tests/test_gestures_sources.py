"""Frame sources (timestamps, unreadable input) and drawing, without MediaPipe."""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from gestures.draw import draw_landmarks, draw_status
from gestures.sources import FrameListSource, ImageListSource, SourceError, VideoSource
from gestures.types import GESTOS, Evento, FrameResult

CLIP = Path(__file__).parent / "data" / "gestures" / "astronaut_senas.mp4"


def test_video_timestamps_are_seconds_and_increase():
    times = [t for t, _ in VideoSource(CLIP)]
    assert len(times) == 95
    assert times[0] == 0.0
    assert all(b > a for a, b in itertools.pairwise(times))
    assert times[-1] == pytest.approx(9.4, abs=0.05)


def test_video_source_rejects_what_is_not_a_video(tmp_path):
    text = tmp_path / "notas.avi"
    text.write_text("hola")
    with pytest.raises(SourceError, match="no es un vídeo"):
        VideoSource(text)
    with pytest.raises(SourceError, match="no existe"):
        VideoSource(tmp_path / "nada.mp4")


def test_image_list_skips_unreadable_files_and_says_which(tmp_path):
    good = tmp_path / "a.png"
    cv2.imwrite(str(good), np.zeros((8, 8, 3), np.uint8))
    bad = tmp_path / "b.png"
    bad.write_text("no")
    src = ImageListSource([good, bad, good], interval=0.5)
    assert [t for t, _ in src] == [0.0, 1.0]
    assert len(src.errors) == 1 and "b.png" in src.errors[0]


def test_frame_list_source_with_and_without_times():
    frames = [np.zeros((4, 4, 3), np.uint8)] * 3
    assert [t for t, _ in FrameListSource(frames, fps=10)] == [0.0, 0.1, 0.2]
    assert [t for t, _ in FrameListSource([(1.5, frames[0])])] == [1.5]


def test_drawing_marks_the_frame_and_survives_spanish_text():
    frame = np.zeros((240, 320, 3), np.uint8)
    pts = np.random.default_rng(0).uniform(50, 200, (478, 2))
    ev = Evento("guino", "izquierdo", 1.0, 1.4, 0.9, "treinta y una (señal)")
    res = FrameResult(
        t=1.4,
        cara=True,
        landmarks=pts,
        hombros=np.array([[60, 200], [260, 200]]),
        puntuaciones=dict.fromkeys(GESTOS, 0.7),
        activos=(ev,),
    )
    out = draw_status(draw_landmarks(frame.copy(), res), res, last="guino: treinta y una")
    assert out.shape == frame.shape and out.any()
    empty = draw_status(np.zeros_like(frame), FrameResult(t=0.0, cara=False))
    assert empty.any()  # "sin cara" is written
