"""Rebuild app/assets/senas_demo.mp4: the señas demo clip (synthetic, honestly labelled).

A real public-domain portrait (scikit-image's ``astronaut``: NASA, "no known copyright
restrictions, released into the public domain") warped by training.senas.synthetic_faces: 2 s
neutral (calibration), a wink (guiño, "treinta y una" in the Segovia set), then a bitten lower
lip ("dos reyes"). Needs the test extra (scikit-image) and the gestures extra; run from the repo
root: ``python -m training.senas.demo_video``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
from skimage import data

from gestures.models import shared_landmarkers
from training.senas import synthetic_faces as s

# The app loads the clip from its own assets folder.
OUT = Path(__file__).resolve().parents[2] / "app" / "assets" / "senas_demo.mp4"
FPS = 10


def main() -> None:
    # Head and shoulders as a 640x480 webcam frame (the framing gestures/ is tuned for).
    img = cv2.resize(data.astronaut()[:384], (640, 480))[:, :, ::-1].copy()
    face = shared_landmarkers("image", False).detect(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)).face
    if face is None:
        raise SystemExit("no face found in the portrait")
    recipes = s.recipes(img, face, None)
    frames = [f for _, f in s.sequence(img, recipes["guino_a"], FPS, before=2.0, ramp=0.1, hold=0.7, after=1.0)]
    frames += [f for _, f in s.sequence(img, recipes["labio_mordido"], FPS, before=0.0, ramp=0.1, hold=0.8, after=1.0)]
    writer = cv2.VideoWriter(str(OUT), cv2.VideoWriter.fourcc(*"mp4v"), FPS, (img.shape[1], img.shape[0]))
    for f in frames:
        writer.write(f)
    writer.release()
    print(f"{OUT}: {len(frames)} frames")


if __name__ == "__main__":
    main()
