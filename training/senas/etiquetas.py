"""How labels.json names what a clip shows, beyond the gesture ids of gestures/ (the format is
in ../shared/realdata/senas/labels.json's ``_format``): read by the evaluation and by the fit of
the learned decision."""

from __future__ import annotations

from typing import Final

AMBIGUAS: Final = frozenset({"morro_abierto"})
MORRO_ABIERTO_DE: Final = "morro"  # the gesture an open "O" may pass for
PARPADEO: Final = "parpadeo"
# viewer's side of a wink -> the recognizer's (player's) side on an unmirrored image
GUINO_LADO: Final = {"guino_izquierdo": "derecho", "guino_derecho": "izquierdo"}
GUINO_ETIQUETA: Final = {lado: label for label, lado in GUINO_LADO.items()}

# Clips that may show the same person, whatever folder they are in: held out together, never
# one fitted on while the other is scored. senas-lp's README says two of its clips may show the
# same man (it does not say which); by eye, senas-lp d5 may be senas d18, and senas-lp d2 may be
# senas-lp d8: each pair is one person here (merging two people only makes the folds fewer).
MISMA_PERSONA: Final = {"d5.mp4": "d18.mp4", "d2.mp4": "d8.mp4"}


def persona(clip: str) -> str:
    """Who a clip shows, as the held-out folds group them (the clip's name by default).

    >>> persona("d5.mp4"), persona("d3.mp4")
    ('d18.mp4', 'd3.mp4')
    """
    return MISMA_PERSONA.get(clip, clip)
