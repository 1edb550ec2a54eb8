"""Referee mode: watch one player, mark the phases, log the señas, check them against the
cards at the end of the hand; every step goes into scoring.registro's hash-chained log.

    >>> s = SesionArbitro("segovia", ["Ana", "Bea", "Carlos", "Dani"])
    >>> s.vigilar(1); s.marcar("reparto", 0.0); s.marcar("lances", 5.0)
    >>> s.anotar({"gesto": "guino", "lado": "izquierdo", "inicio": 6.0, "fin": 6.4,
    ...           "confianza": 0.9, "sena": "treinta y una"})
    >>> s.comprobar("7o 4c 10e 11b").correcto  # 31 with no pares: the wink is complete
    True
    >>> verificar(s.exportar()).valido
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring.arbitro import InformeSenas, comprobar_senas
from scoring.registro import FORMATO, RegistroArbitro, verificar
from scoring.senas import FASES

FASES_BOTON = ("reparto", "mus", "descarte", "lances")
__all__ = ["FASES_BOTON", "SesionArbitro", "verificar"]


@dataclass
class SesionArbitro:
    """One referee session over a partida. ``entradas``: a stored log to continue (resume)."""

    perfil: str
    jugadores: list[str]
    asiento: int = 0
    primera_mano: bool = False
    entradas: list[dict[str, Any]] | None = None
    marcas: list[dict[str, Any]] = field(default_factory=list)
    eventos: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.entradas:
            self.log = RegistroArbitro.from_json(
                {
                    "formato": FORMATO,
                    "algoritmo": "sha256",
                    "entradas": self.entradas,
                    "sello": self.entradas[-1]["hash"],
                }
            )
            self._continuar()
        else:
            self.log = RegistroArbitro.nuevo({"reglas": self.perfil, "jugadores": list(self.jugadores)})

    def _continuar(self) -> None:
        """Pick up the watched seat and the current hand's marks and señas from the log."""
        for e in self.log.entradas:
            if e.tipo == "vigilar":
                self.asiento = int(e.datos["asiento"])
            elif e.tipo == "mano":
                self.marcas, self.eventos = [], []
            elif e.tipo == "fase":
                self.marcas.append({"fase": e.datos["fase"], "inicio": e.t or 0.0})
            elif e.tipo == "sena":
                self.eventos.append({k: v for k, v in e.datos.items() if k not in ("jugador", "miniatura", "huella")})

    @property
    def ultima(self) -> dict[str, Any]:
        """The last entry as JSON (what the app stores in SQLite)."""
        return self.log.entradas[-1].to_json()

    def vigilar(self, asiento: int) -> None:
        if asiento not in range(4):
            raise ValueError(f"asiento {asiento} no existe (0-3)")
        self.asiento = asiento
        self.log.anotar("vigilar", {"asiento": asiento, "jugador": self.jugadores[asiento]})

    def marcar(self, fase: str, t: float) -> None:
        if fase not in FASES:
            raise ValueError(f"fase desconocida {fase!r}")
        self.marcas.append({"fase": fase, "inicio": round(float(t), 2)})
        self.log.anotar("fase", {"fase": fase}, t=round(float(t), 2))

    def anotar(self, evento: dict[str, Any], miniatura: str | None = None, huella: str | None = None) -> None:
        self.eventos.append(dict(evento))
        datos = {**evento, "jugador": self.asiento}
        if miniatura:
            datos["miniatura"], datos["huella"] = miniatura, huella
        self.log.anotar("sena", datos, t=evento.get("inicio"))

    def comprobar(self, cartas: str) -> InformeSenas:
        """Check the watched player's señas against their revealed cards; logged too."""
        informe = comprobar_senas(
            self.eventos, cartas, self.perfil, self.marcas or None, primera_mano=self.primera_mano
        )
        self.log.anotar("cartas", {"jugador": self.asiento, "cartas": cartas})
        self.log.anotar("informe", {"jugador": self.asiento, "informe": informe.to_json()})
        return informe

    def nueva_mano(self, numero: int | None = None) -> None:
        self.marcas, self.eventos = [], []
        self.log.anotar("mano", {"numero": numero})

    def exportar(self) -> dict[str, Any]:
        return self.log.to_json()
