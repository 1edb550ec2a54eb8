"""Seat by seat: one photo of each player's four cards, in seat order, into the four hands.

Where the whole table does not fit the camera, or reads poorly, the cards screen asks for each
seat in turn. Each photo's cards are that seat's hand (vision.hands.seat_hands builds the four);
a photo with other than four cards, or with a card already in another seat, is refused with a
message naming the player, and that seat is asked for again. Nothing already read is lost: a
refused photo changes nothing, a seat can be photographed again at any time, and the
corrections made on the four hands go back to their seat (:meth:`AsientoPorAsiento.tomar`).

Each seat's reading is vision's CardDetections (vision/ is an optional extra: a reading exists
only where it is installed).

    >>> from vision.detections import CardDetections
    >>> from mesa.lectura import manos
    >>> def foto(ids):
    ...     return CardDetections.from_json({"cartas": [{"carta": c, "confianza": 0.9,
    ...                                                  "caja": [0, 0, 1, 1]} for c in ids]})
    >>> sesion = AsientoPorAsiento(["Ana", "Bea", "Carlos", "Dani"])
    >>> sesion.pedir().texto()
    'Fotografía las cuatro cartas de Ana (asiento 1)'
    >>> try:
    ...     sesion.poner(foto(["1o", "2o", "3o"]))
    ... except AsientoError as exc:
    ...     print(exc.aviso.texto("en"))
    Ana (seat 1): 3 cards are seen (ace of coins, two of coins, three of coins); a hand is 4. ...
    >>> for ids in (["1o", "2o", "3o", "4o"], ["1c", "2c", "3c", "4c"], ["1e", "2e", "3e", "4e"],
    ...             ["1b", "2b", "3b", "4b"]):
    ...     sesion.poner(foto(ids))
    >>> manos(sesion.lectura())[3]
    '1b 2b 3b 4b'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

import numpy as np

from mesa.cartas import Nombres
from mesa.i18n import N_, SOURCE, Nn_
from mesa.lectura import LecturaError
from mesa.storage import Aviso

if TYPE_CHECKING:  # vision/ is an optional extra (see mesa.lectura)
    from vision.detections import CardDetections

N_ASIENTOS: Final = 4
CARTAS_MANO: Final = 4

PIDE_JUGADOR: Final = N_("Fotografía las cuatro cartas de {jugador} (asiento {n})")
PIDE_ASIENTO: Final = N_("Fotografía las cuatro cartas del asiento {n}")
NO_SON_CUATRO: Final = Nn_(
    "{jugador} (asiento {n}): se ve {k} carta{cuales}; una mano son 4. Repite la foto de este asiento.",
    "{jugador} (asiento {n}): se ven {k} cartas{cuales}; una mano son 4. Repite la foto de este asiento.",
)
REPETIDA: Final = N_(
    "{jugador} (asiento {n}): la carta {carta} ya está en la mano de {otro} "
    "(asiento {m}). Repite la foto de este asiento o corrige la carta."
)
ASIENTO: Final = N_("Asiento")


@dataclass(frozen=True)
class Parentesis:
    """A message's value worded in the player's language, between brackets after a space."""

    dentro: Nombres

    def texto(self, idioma: str = SOURCE) -> str:
        return f" ({self.dentro.texto(idioma)})"


class AsientoError(LecturaError):
    """A seat's photo cannot be that seat's hand; ``aviso`` holds the untranslated message."""

    def __init__(self, aviso: Aviso, idioma: str = SOURCE) -> None:
        super().__init__(aviso.texto(idioma))
        self.aviso = aviso


@dataclass
class FotoAsiento:
    """One seat's photo as read: its cards (a reading without seats) and the photo itself."""

    lectura: CardDetections
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
            return Aviso(PIDE_JUGADOR, datos={"jugador": self.jugadores[self.turno], "n": self.turno + 1})
        return Aviso(PIDE_ASIENTO, datos={"n": self.turno + 1})

    @property
    def completas(self) -> bool:
        return all(f is not None for f in self.fotos)

    def leidas(self) -> int:
        return sum(f is not None for f in self.fotos)

    def poner(self, lectura: CardDetections, foto: object = None, asiento: int | None = None) -> None:
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

    def _comprobar(self, seat: int, lectura: CardDetections) -> None:
        ids = lectura.ids
        datos = {"jugador": self.nombre(seat), "n": seat + 1}
        if len(ids) != CARTAS_MANO:
            cuales = Parentesis(Nombres(tuple(ids))) if ids else ""
            singular, plural = NO_SON_CUATRO
            raise AsientoError(
                Aviso(singular, datos={**datos, "k": len(ids), "cuales": cuales}, plural=plural, cuenta=len(ids))
            )
        for other, f in enumerate(self.fotos):
            if other == seat or f is None:
                continue
            for carta in ids:
                if carta in f.lectura.ids:
                    raise AsientoError(
                        Aviso(
                            REPETIDA,
                            datos={**datos, "carta": Nombres((carta,)), "otro": self.nombre(other), "m": other + 1},
                        )
                    )

    def lectura(self) -> CardDetections:
        """The four hands as one reading with seats (corrections go on as after a whole-table
        photo, and go back to the seats with :meth:`tomar`). Checked by vision.hands.seat_hands
        (the contract of `mus mano`) on the cards as they are now."""
        from vision.detections import CardDetections  # optional extra (see mesa.lectura)
        from vision.hands import HandsError, seat_hands

        fotos = [f for f in self.fotos if f is not None]
        if len(fotos) != N_ASIENTOS:
            raise ValueError("not all four seats are read")
        try:
            seat_hands([(f"{s + 1}", f.lectura) for s, f in enumerate(fotos)])
        except HandsError as exc:  # only if corrections made a seat's hand impossible
            raise LecturaError(str(exc)) from None
        avisos = [f"{self.nombre(s)}: {a}" for s, f in enumerate(fotos) for a in f.lectura.warnings]
        return CardDetections.concat([f.lectura for f in fotos], seats=list(range(N_ASIENTOS)), warnings=avisos)

    def tomar(self, lectura: CardDetections) -> None:
        """The four hands' reading (from :meth:`lectura`) as corrected: each seat's photo takes
        its cards back, so that a seat photographed again keeps the others' corrections."""
        for s, f in enumerate(self.fotos):
            if f is not None:
                mine = lectura.in_seat(s)
                f.lectura = replace(
                    mine,
                    seat=np.full(len(mine), -1, np.int8),
                    warnings=f.lectura.warnings,
                    unfamiliar=f.lectura.unfamiliar,
                )


def turn_seats(lectura: CardDetections, abajo: int) -> CardDetections:
    """``lectura``'s seats counted from the photo (0 bottom, 1 right, 2 top, 3 left) turned into
    the partida's seats, where ``abajo`` is the partida's seat whose cards lie at the photo's
    bottom edge (the photographer's own): the photo's seat s is the partida's (s + abajo) % 4,
    since the partida's order runs counter-clockwise round the table as the photo's does. A card
    without a seat keeps none. In place; returns ``lectura``.

        >>> from vision.detections import CardDetections
        >>> lec = CardDetections.from_json({"cartas": [
        ...     {"carta": c, "caja": [0, 0, 1, 1], "asiento": s} for s, c in enumerate(["1o", "2o", "3o", "4o"])]})
        >>> turn_seats(lec, 2).seat.tolist()
        [2, 3, 0, 1]
    """
    if abajo not in range(N_ASIENTOS):
        raise ValueError(f"abajo: a seat from 0 to {N_ASIENTOS - 1}, not {abajo!r}")
    seat = lectura.seat.astype(np.int16)
    lectura.seat = np.where(seat >= 0, (seat + abajo) % N_ASIENTOS, -1).astype(np.int8)
    return lectura


def fotos_por_asiento(foto: np.ndarray, lectura: CardDetections, falta: int | None = None) -> list[np.ndarray]:
    """Four photos of one player's cards each, cut at run time from a read table photo (the
    demo and the tests have no close-ups of their own): each seat's cards on the table's
    colour, the rest painted over. ``falta``: that seat's photo leaves its last card out."""
    h, w = foto.shape[:2]
    borde = np.concatenate([foto[:5].reshape(-1, 3), foto[-5:].reshape(-1, 3)])
    fondo = np.median(borde, 0).astype(np.uint8)
    fotos = []
    for s in range(N_ASIENTOS):
        cajas = lectura.in_seat(s).xyxy.astype(int)
        if s == falta:
            cajas = cajas[:-1]
        mask = np.zeros((h, w), bool)
        for x1, y1, x2, y2 in cajas:
            mask[y1:y2, x1:x2] = True
        solo = np.where(mask[..., None], foto, fondo)
        (x1, y1), (x2, y2), m = cajas[:, :2].min(0), cajas[:, 2:].max(0), 40
        fotos.append(np.ascontiguousarray(solo[max(0, y1 - m) : y2 + m, max(0, x1 - m) : x2 + m]))
    return fotos
