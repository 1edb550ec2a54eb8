"""Rebuild app/assets/senas_demo.mp4: the señas demo clip (synthetic, honestly labelled).

A real public-domain portrait (scikit-image's ``astronaut``: NASA, "no known copyright
restrictions, released into the public domain") warped by gestures.synthetic: 2 s neutral
(calibration), a wink (guiño, "treinta y una" in the Segovia set), then a bitten lower lip
("dos reyes"). Needs the test extra (scikit-image) and the gestures extra; run from the repo
root: ``python -m app.assets.make_senas_demo``.
"""

from __future__ import annotations

from pathlib import Path

import cv2

OUT = Path(__file__).with_name("senas_demo.mp4")
FPS = 10


def main() -> None:
    from skimage import data

    from gestures import synthetic as s
    from gestures.models import shared_landmarkers

    img = cv2.resize(cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR), (352, 352),
                     interpolation=cv2.INTER_AREA)
    face = shared_landmarkers("image", False).detect(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)).face
    if face is None:
        raise SystemExit("no face found in the portrait")
    frames = [f for _, f in s.sequence(img, lambda im, a: s.close_eye(im, face, "a", a), FPS,
                                       before=2.0, ramp=0.1, hold=0.7, after=1.0)]
    frames += [f for _, f in s.sequence(img, lambda im, a: s.bite_lower_lip(im, face, a), FPS,
                                        before=0.0, ramp=0.1, hold=0.8, after=1.0)]
    writer = cv2.VideoWriter(str(OUT), cv2.VideoWriter_fourcc(*"mp4v"), FPS,
                             (img.shape[1], img.shape[0]))
    for f in frames:
        writer.write(f)
    writer.release()
    print(f"{OUT}: {len(frames)} frames")


if __name__ == "__main__":
    main()
