"""Following one player with another in view: the stream's one-face tracker and its search.

A real two-person frame (the astronaut and Grace Hopper portraits side by side) run through
the real MediaPipe face landmarker: whichever face the tracker finds first, the followed
person is the one returned, and after one search the tracker alone follows them.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from gestures.models import Landmarkers, face_anchor, same_person, shared_landmarkers

pytest.importorskip("mediapipe")  # needs the gestures extra
cbook = pytest.importorskip("matplotlib.cbook")


@pytest.fixture(scope="module")
def two_people() -> np.ndarray:
    """RGB 640x480: the astronaut on the left, Grace Hopper on the right."""
    frame = np.full((480, 640, 3), 90, np.uint8)
    frame[90:390, 0:300] = cv2.resize(data.astronaut()[:384][0:300, 100:400], (300, 300))
    grace = cv2.imread(str(cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)))
    grace = cv2.resize(grace, (grace.shape[1] * 260 // grace.shape[0], 260))[:, :300, ::-1]
    frame[110:370, 330 : 330 + grace.shape[1]] = grace
    return frame


@pytest.fixture(scope="module")
def anchors(two_people) -> list[tuple[float, float, float]]:
    """Each person's face anchor, left to right, from a still-image search."""
    marks = shared_landmarkers("image", pose=False)
    found = marks._face.detect(
        __import__("mediapipe").Image(image_format=__import__("mediapipe").ImageFormat.SRGB, data=two_people)
    )
    w, h = two_people.shape[1], two_people.shape[0]
    faces = [np.array([(p.x * w, p.y * h, p.z * w) for p in lm], np.float32) for lm in found.face_landmarks]
    assert len(faces) == 2
    return sorted((face_anchor(f) for f in faces), key=lambda a: a[0])


@pytest.mark.parametrize("person", [0, 1])
def test_the_followed_person_is_kept_and_then_tracked_alone(two_people, anchors, person):
    target, other = anchors[person], anchors[1 - person]
    marks = Landmarkers("video", pose=False)
    try:
        searched = []
        for i in range(8):
            obs = marks.detect(two_people, i / 25, near=target)
            assert obs.face is not None
            assert same_person(face_anchor(obs.face), target)
            assert not same_person(face_anchor(obs.face), other)
            searched.append(marks.searching)
    finally:
        marks.close()
    # at most the first frames search (the tracker may start on the other person); then the
    # other face is hidden once and the tracker stays on ours
    assert not any(searched[3:]), searched


def test_no_followed_person_yet_picks_the_largest(two_people, anchors):
    marks = Landmarkers("video", pose=False)
    try:
        obs = marks.detect(two_people, 0.0)
    finally:
        marks.close()
    largest = max(anchors, key=lambda a: a[2])
    assert obs.face is not None and same_person(face_anchor(obs.face), largest)
    assert marks.searching
