"""Card reading: the revealed Spanish-deck cards in a photo of the table, and whose they are.

    >>> from vision import read_cards                    # doctest: +SKIP
    >>> dets = read_cards("examples/mesa.jpg")           # doctest: +SKIP
    >>> dets.hands                                       # doctest: +SKIP

The heavy imports (OpenCV, ONNX Runtime) wait until a name is first used, so importing the
package stays cheap for the parts of musmesa that do not read cards.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CardDetections", "CardReader", "read_cards"]


def __getattr__(name: str) -> Any:
    # lazy: OpenCV and ONNX Runtime load on first use, not when the package is imported
    if name == "CardDetections":
        from vision.detections import CardDetections

        return CardDetections
    if name in ("read_cards", "CardReader"):
        from vision import reader  # lazy, as above

        return getattr(reader, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
