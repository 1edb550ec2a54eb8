"""Result types of seña recognition: gesture ids, events and per-frame results."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final

import numpy as np

# The contract with scoring/ (scoring.senas.GESTOS lists the same ids).
GESTOS: Final[tuple[str, ...]] = (
    "labio_mordido",
    "lengua_fuera",
    "lengua_lado",
    "labios_lado",
    "cejas_arriba",
    "morro",
    "guino",
    "ojos_cerrados",
    "hombros_arriba",
    "hombro_arriba",
)
CON_LADO: Final = frozenset({"lengua_lado", "labios_lado", "guino", "hombro_arriba"})
LADOS: Final = ("izquierdo", "derecho")


def lado_jugador(image_side: str | None, mirrored: bool) -> str | None:
    """The player's own side from an image side ("a" = image left, "b" = image right).

    A camera facing the player sees the player's right on the image's left; a mirrored
    (selfie-preview) image shows it on the right.

    >>> lado_jugador("a", mirrored=False), lado_jugador("a", mirrored=True)
    ('derecho', 'izquierdo')
    """
    if image_side is None:
        return None
    left_in_image = "izquierdo" if mirrored else "derecho"
    right_in_image = "derecho" if mirrored else "izquierdo"
    return left_in_image if image_side == "a" else right_in_image


@dataclass(frozen=True)
class Evento:
    """One recognised gesture: what, which side of the player, when (s), how sure, meaning.

    ``sena`` is the meaning under the seña set of the chosen rule profile (None if the
    gesture means nothing there, or no profile was given).
    """

    gesto: str
    lado: str | None
    inicio: float
    fin: float
    confianza: float
    sena: str | None = None

    @property
    def duracion(self) -> float:
        return self.fin - self.inicio

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["inicio"], d["fin"] = round(self.inicio, 2), round(self.fin, 2)
        d["confianza"] = round(self.confianza, 2)
        return d


# Why a calibration is poor (the app words each one for the player; gestures/ never does).
PROBLEMAS_CALIBRACION: Final = ("cara_pequena", "oscuro", "no_neutra", "pocos_fotogramas")


@dataclass(frozen=True)
class Calibracion:
    """How well the neutral face was measured.

    ``fotogramas``: frames kept as neutral; ``descartados``: frames with a face rejected as not
    neutral (a gesture, a blink, the head turned); ``problemas``: codes of
    :data:`PROBLEMAS_CALIBRACION`, empty when the calibration is good.
    """

    fotogramas: int
    descartados: int = 0
    problemas: tuple[str, ...] = ()

    @property
    def buena(self) -> bool:
        return not self.problemas

    def to_dict(self) -> dict[str, Any]:
        return {
            "fotogramas": self.fotogramas,
            "descartados": self.descartados,
            "problemas": list(self.problemas),
            "buena": self.buena,
        }


@dataclass(frozen=True)
class FrameResult:
    """What one frame gave: face landmarks to draw (pixels), scores, events.

    ``activos``: gestures confirmed and still held (``fin`` = this frame's time).
    ``eventos``: gestures that ended at this frame (final ``fin``).
    ``calibrando``: the neutral face is still being measured; nothing fires meanwhile.
    ``calibracion``: the quality of the neutral face in use (None until there is one).
    """

    t: float
    cara: bool
    landmarks: np.ndarray | None = None
    hombros: np.ndarray | None = None
    puntuaciones: dict[str, float] = field(default_factory=dict)
    lados: dict[str, str] = field(default_factory=dict)
    activos: tuple[Evento, ...] = ()
    eventos: tuple[Evento, ...] = ()
    calibrando: bool = False
    calibracion: Calibracion | None = None
