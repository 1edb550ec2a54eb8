"""Regenerate the synthetic test clip (run from the repo root):

    PYTHONPATH=. .venv/bin/python tests/data/gestures/make_clips.py

``astronaut_senas.mp4``: scikit-image's astronaut portrait (a real photo, public domain, NASA),
cropped to 4:3 and scaled to 640x480, 10 fps. Synthetic señas made by landmark-guided warping
(training.senas.synthetic_faces), at these times (s), with the image side (a = image left):

    0.0-2.5  neutral (calibration)
    2.6-3.4  guino, image-right eye (the player's left)
    4.2-5.0  cejas_arriba
    5.8-6.6  lengua_fuera
    7.4-8.2  labios_lado towards the image left (the player's right)
    8.2-9.5  neutral

``astronaut_senas.json`` lists them; tests compare the recognised events with it.

``astronaut_marks.npz``: what MediaPipe saw on the neutral frame (face landmarks in pixels,
blendshapes, transformation matrix, pose), so recognizer tests can run without MediaPipe.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from skimage import data

from gestures.models import Landmarkers
from training.senas import synthetic_faces as S

HERE = Path(__file__).parent
FPS = 10
PLAN = [  # (recipe, start, end, gesto, player's side)
    ("guino_b", 2.6, 3.4, "guino", "izquierdo"),
    ("cejas_arriba", 4.2, 5.0, "cejas_arriba", None),
    ("lengua_fuera", 5.8, 6.6, "lengua_fuera", None),
    ("labios_lado_a", 7.4, 8.2, "labios_lado", "derecho"),
]
END = 9.5


def neutral_frame() -> np.ndarray:
    return cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()


def main() -> None:
    img = neutral_frame()
    marks = Landmarkers(mode="image", pose=True)
    obs = marks.detect(img[:, :, ::-1].copy())
    recipes = S.recipes(img, obs.face, obs.pose)
    out = cv2.VideoWriter(str(HERE / "astronaut_senas.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (640, 480))
    for i in range(int(END * FPS)):
        t = i / FPS
        frame = img
        for name, start, end, _, _ in PLAN:
            if start <= t < end:
                # 0.1 s ramps at both ends, as a person would do it
                alpha = min(1.0, (t - start) / 0.1 + 0.5, (end - t) / 0.1)
                frame = recipes[name](img, float(np.clip(alpha, 0, 1)))
        out.write(frame)
    out.release()
    names = sorted(obs.blendshapes)
    np.savez_compressed(
        HERE / "astronaut_marks.npz",
        face=obs.face,
        pose=obs.pose,
        matrix=obs.matrix,
        blend_names=np.array(names),
        blend_values=np.array([obs.blendshapes[n] for n in names], np.float32),
    )
    truth = [{"gesto": g, "lado": lado, "inicio": s, "fin": e} for _, s, e, g, lado in PLAN]
    (HERE / "astronaut_senas.json").write_text(json.dumps(truth, indent=2) + "\n")
    marks.close()


if __name__ == "__main__":
    main()
