"""Landmark indices of the MediaPipe face mesh (478 points) and pose model (33 points).

Suffix ``_A`` = the feature on the image's left, ``_B`` = on the image's right. MediaPipe
assigns indices by appearance, so in an unmirrored camera image ``_A`` is the player's right.
"""

from __future__ import annotations

import numpy as np

EYE_OUTER_A, EYE_INNER_A = 33, 133
EYE_OUTER_B, EYE_INNER_B = 263, 362
UPPER_LID_A = (246, 161, 160, 159, 158, 157, 173)
LOWER_LID_A = (7, 163, 144, 145, 153, 154, 155)
UPPER_LID_B = (466, 388, 387, 386, 385, 384, 398)
LOWER_LID_B = (249, 390, 373, 374, 380, 381, 382)
# vertical lid pairs for the eye aspect ratio
LID_PAIRS_A = ((160, 144), (159, 145), (158, 153))
LID_PAIRS_B = ((387, 373), (386, 374), (385, 380))
# iris centres (the refined mesh's last ten points are the irises, five each)
IRIS_A, IRIS_B = 468, 473
BROW_A = (70, 63, 105, 66, 107, 46, 53, 52, 65, 55)
BROW_B = (300, 293, 334, 296, 336, 276, 283, 282, 295, 285)

UPPER_LIP_OUTER = (61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291)
LOWER_LIP_OUTER = (61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291)
UPPER_LIP_INNER = (78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308)
LOWER_LIP_INNER = (78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308)
LIPS_OUTER = UPPER_LIP_OUTER + LOWER_LIP_OUTER[-2:0:-1]  # closed polygon
LIPS_INNER = UPPER_LIP_INNER + LOWER_LIP_INNER[-2:0:-1]
MOUTH_CORNER_A, MOUTH_CORNER_B = 61, 291
LIP_OUTER_TOP, LIP_INNER_TOP, LIP_INNER_BOTTOM, LIP_OUTER_BOTTOM = 0, 13, 14, 17
# upper and lower inner-lip points facing each other, from the image-left corner to the right
INNER_LIP_PAIRS = ((80, 88), (81, 178), (82, 87), (13, 14), (312, 317), (311, 402), (310, 318))
NOSE_TIP, NOSE_BASE, CHIN = 1, 2, 152
# between the eyes, on the bone: neither the eyelids nor the brows move it
NOSE_BRIDGE = 168
CHEEK_A, CHEEK_B = 205, 425

POSE_SHOULDERS = (11, 12)
POSE_MOUTH = (9, 10)

# a light subset of the mesh for drawing (contours), as index pairs
DRAW_LOOPS = (
    UPPER_LID_A + LOWER_LID_A[::-1],
    UPPER_LID_B + LOWER_LID_B[::-1],
    BROW_A[:5],
    BROW_B[:5],
    LIPS_OUTER,
    LIPS_INNER,
)


def shoulders_by_image_side(pose: np.ndarray) -> tuple[int, int]:
    """Indices of the (image-left, image-right) shoulders."""
    a, b = POSE_SHOULDERS
    return (a, b) if pose[a, 0] <= pose[b, 0] else (b, a)
