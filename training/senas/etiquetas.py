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
