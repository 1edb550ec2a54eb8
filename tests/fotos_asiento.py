"""The example table as four photos, one hand each, for the seat-by-seat tests (the command
line's and the phones'): made once from the generated example, never stored in the repo."""

from __future__ import annotations

from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"


def fotos_por_asiento(folder: Path) -> list[Path]:
    """Four photos of the example table, one hand each (the other cards painted over with the
    cloth's colour), in seat order, written into ``folder``."""
    import cv2  # the vision extra: only the tests that read photos call this

    from vision.geometry import obb_to_corners
    from vision.images import load_image
    from vision.reader import CardReader

    img = load_image(EXAMPLE)
    dets = CardReader(settings=None).read(img)
    assert dets.hands is not None
    cloth = np.median(img.reshape(-1, 3), 0).astype(int).tolist()
    out = []
    for seat in range(4):
        hand = img.copy()
        for k in np.nonzero(dets.seat != seat)[0]:
            box = dets.obb[k].copy()
            box[2:4] *= 1.2
            cv2.fillPoly(hand, [obb_to_corners(box[None])[0].astype(np.int32)], cloth)
        path = folder / f"asiento{seat}.jpg"
        cv2.imwrite(str(path), hand)
        out.append(path)
    return out
