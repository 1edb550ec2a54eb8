"""Seat by seat: one photo of each player's four cards, in seat order, into the four hands.

Where the whole table does not fit the camera, or reads poorly, the cards screen asks for each
seat in turn. Each photo's cards are that seat's hand (vision.hands.seat_hands builds the four);
a photo with other than four cards, or with a card already in another seat, is refused with a
message naming the player, and that seat is asked for again. Nothing already read is lost: a
refused photo changes nothing, a seat can be photographed again at any time, and the
corrections made on the four hands stay with their seat (the cards are the same objects).

    >>> from mesa.lectura import CartaLeida
    >>> def foto(ids):
    ...     return Lectura([CartaLeida(c, 0.9, (0, 0, 1, 1)) for c in ids], None)
    >>> sesion = AsientoPorAsiento(["Ana", "Bea", "Carlos", "Dani"])
    >>> sesion.pedir().texto()
    'Fotografía las cuatro cartas de Ana (asiento 1)'
    >>> try:
    ...     sesion.poner(foto(["1o", "2o", "3o"]))
    ... except AsientoError as exc:
    ...     print(exc)
    Ana (asiento 1): se ven 3 cartas (1o 2o 3o); una mano son 4. Repite la foto de este asiento.
    >>> for ids in (["1o", "2o", "3o", "4o"], ["1c", "2c", "3c", "4c"], ["1e", "2e", "3e", "4e"],
    ...             ["1b", "2b", "3b", "4b"]):
    ...     sesion.poner(foto(ids))
    >>> sesion.lectura().manos()[3]
    '1b 2b 3b 4b'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from mesa.i18n import N_, SOURCE
from mesa.lectura import Lectura, LecturaError, _indices
from mesa.storage import Aviso

N_ASIENTOS: Final = 4
CARTAS_MANO: Final = 4

PIDE_JUGADOR: Final = N_("Fotografía las cuatro cartas de {jugador} (asiento {n})")
PIDE_ASIENTO: Final = N_("Fotografía las cuatro cartas del asiento {n}")
NO_SON_CUATRO: Final = N_("{jugador} (asiento {n}): se ven {k} cartas{cuales}; una mano son 4. "
                          "Repite la foto de este asiento.")
REPETIDA: Final = N_("{jugador} (asiento {n}): la carta {carta} ya está en la mano de {otro} "
                     "(asiento {m}). Repite la foto de este asiento o corrige la carta.")
ASIENTO: Final = N_("Asiento")


class AsientoError(LecturaError):
    """A seat's photo cannot be that seat's hand; ``aviso`` holds the untranslated message."""

    def __init__(self, aviso: Aviso, idioma: str = SOURCE) -> None:
        super().__init__(aviso.texto(idioma))
        self.aviso = aviso


@dataclass
class FotoAsiento:
    """One seat's photo as read: its cards (a Lectura without seats) and the photo itself."""

    lectura: Lectura
    foto: object = None  # the image, to show it again when the seat is looked at


class AsientoPorAsiento:
    """The four seats' photos as they come. ``jugadores``: the players' names in seat order
    (None without a partida: the seats are then named by number)."""

    def __init__(self, jugadores: list[str] | None = None) -> None:
        self.jugadores = list(jugadores) if jugadores else None
        self.fotos: list[FotoAsiento | None] = [None] * N_ASIENTOS
        self.turno: int | None = 0  # the seat asked for now; None when all four are there

    def nombre(self, asiento: int, t=lambda s: s) -> str:
        """The player of ``asiento`` (``t`` translates the generic name)."""
        if self.jugadores:
            return self.jugadores[asiento]
        return f"{t(ASIENTO)} {asiento + 1}"

    def pedir(self) -> Aviso | None:
        """What the screen says: whose four cards to photograph now (None: all are there)."""
        if self.turno is None:
            return None
        if self.jugadores:
            return Aviso(PIDE_JUGADOR, datos={"jugador": self.jugadores[self.turno],
                                              "n": self.turno + 1})
        return Aviso(PIDE_ASIENTO, datos={"n": self.turno + 1})

    @property
    def completas(self) -> bool:
        return all(f is not None for f in self.fotos)

    def leidas(self) -> int:
        return sum(f is not None for f in self.fotos)

    def poner(self, lectura: Lectura, foto: object = None, asiento: int | None = None) -> None:
        """Take ``lectura`` (one photo) as the hand of ``asiento`` (default: the one asked for);
        AsientoError, changing nothing, when it is not four cards or repeats another seat's."""
        seat = self.turno if asiento is None else asiento
        if seat is None:
            raise ValueError("all four seats are read: choose one to photograph again")
        self._comprobar(seat, lectura)
        self.fotos[seat] = FotoAsiento(lectura, foto)
        self.turno = self._siguiente()

    def repetir(self, asiento: int) -> None:
        """Ask for ``asiento`` again; its photo is kept until the new one is good."""
        self.turno = asiento

    def _siguiente(self) -> int | None:
        faltan = [s for s, f in enumerate(self.fotos) if f is None]
        return faltan[0] if faltan else None

    def _comprobar(self, seat: int, lectura: Lectura) -> None:
        ids = [c.carta for c in lectura.cartas]
        datos = {"jugador": self.nombre(seat), "n": seat + 1}
        if len(ids) != CARTAS_MANO:
            cuales = f" ({' '.join(ids)})" if ids else ""
            raise AsientoError(Aviso(NO_SON_CUATRO, datos={**datos, "k": len(ids),
                                                           "cuales": cuales}))
        for other, f in enumerate(self.fotos):
            if other == seat or f is None:
                continue
            for carta in ids:
                if carta in {c.carta for c in f.lectura.cartas}:
                    raise AsientoError(Aviso(REPETIDA, datos={
                        **datos, "carta": carta, "otro": self.nombre(other), "m": other + 1}))

    def lectura(self) -> Lectura:
        """The four hands as one Lectura with seats (corrections go on as after a whole-table
        photo). Built by vision.hands.seat_hands from the cards as they are now."""
        if not self.completas:
            raise ValueError("not all four seats are read")
        cartas = [c for f in self.fotos for c in f.lectura.cartas]
        manos = _manos(self.fotos)
        avisos = [f"{self.nombre(s)}: {a}" for s, f in enumerate(self.fotos)
                  for a in f.lectura.avisos]
        return Lectura(cartas, _indices(cartas, manos), avisos)


def _manos(fotos: list[FotoAsiento]) -> list[list[str]]:
    """The four hands by vision.hands.seat_hands (its checks are the contract of `mus mano`)."""
    # vision/ is an optional extra (see mesa.lectura._lector): a Lectura exists only when
    # it is installed, and the reader's CardDetections type comes with it
    from vision.detections import CardDetections
    from vision.hands import HandsError, seat_hands

    readings = []
    for s, f in enumerate(fotos):
        ids = [c.carta for c in f.lectura.cartas]
        n = len(ids)
        one = np.ones(n, np.float32)
        det = CardDetections(np.array([c.caja for c in f.lectura.cartas], np.float32).reshape(n, 4),
                             np.zeros((n, 5), np.float32), np.array(ids, object), one, one, one,
                             np.array(ids, object), np.zeros(n, bool), np.full(n, -1, np.int8))
        readings.append((f"{s + 1}", det))
    try:
        return seat_hands(readings).hands
    except HandsError as exc:  # only if corrections made a seat's hand impossible
        raise LecturaError(str(exc)) from None


def fotos_por_asiento(foto: np.ndarray, lectura: Lectura, falta: int | None = None) -> list[np.ndarray]:
    """Four photos of one player's cards each, cut at run time from a read table photo (the
    demo and the tests have no close-ups of their own): each seat's cards on the table's
    colour, the rest painted over. ``falta``: that seat's photo leaves its last card out."""
    h, w = foto.shape[:2]
    borde = np.concatenate([foto[:5].reshape(-1, 3), foto[-5:].reshape(-1, 3)])
    fondo = np.median(borde, 0).astype(np.uint8)
    fotos = []
    for s, idxs in enumerate(lectura.asientos):
        cajas = np.array([lectura.cartas[i].caja for i in idxs]).astype(int)
        if s == falta:
            cajas = cajas[:-1]
        mask = np.zeros((h, w), bool)
        for x1, y1, x2, y2 in cajas:
            mask[y1:y2, x1:x2] = True
        solo = np.where(mask[..., None], foto, fondo)
        (x1, y1), (x2, y2), m = cajas[:, :2].min(0), cajas[:, 2:].max(0), 40
        fotos.append(np.ascontiguousarray(solo[max(0, y1 - m):y2 + m, max(0, x1 - m):x2 + m]))
    return fotos
