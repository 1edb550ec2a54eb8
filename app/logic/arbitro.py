"""Referee mode: watch one player, mark the phases, log the señas, check them against the
cards at the end of the hand, and keep a tamper-evident (hash-chained) log.

    >>> s = SesionArbitro("segovia", ["Ana", "Bea", "Carlos", "Dani"], asiento=1)
    >>> s.marcar("reparto", 0.0); s.marcar("lances", 5.0)
    >>> s.anotar({"gesto": "guino", "lado": "izquierdo", "inicio": 6.0, "fin": 6.4,
    ...           "confianza": 0.9, "sena": "treinta y una"})
    >>> s.comprobar("7o 4c 10e 11b").correcto  # 31 with no pares: the wink is complete
    True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from scoring.arbitro import Informe, comprobar_senas
from scoring.senas import FASES

FASES_BOTON = ("reparto", "mus", "descarte", "lances")
GENESIS = "0" * 64


def _canon(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def encadenar(prev_hash: str, entrada: dict[str, Any]) -> dict[str, Any]:
    """The entry with ``prev`` and ``hash`` = sha256(prev + canonical JSON of the entry)."""
    body = {k: v for k, v in entrada.items() if k not in ("prev", "hash")}
    digest = hashlib.sha256(prev_hash.encode() + _canon(body)).hexdigest()
    return {**body, "prev": prev_hash, "hash": digest}


def verificar(entradas: list[dict[str, Any]]) -> int | None:
    """Index of the first entry that breaks the chain, or None if the log is intact."""
    prev = GENESIS
    for i, e in enumerate(entradas):
        if e.get("prev") != prev or encadenar(prev, e)["hash"] != e.get("hash"):
            return i
        prev = e["hash"]
    return None


@dataclass
class SesionArbitro:
    perfil: str
    jugadores: list[str]
    asiento: int = 0
    primera_mano: bool = False
    marcas: list[dict[str, Any]] = field(default_factory=list)
    eventos: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    def _registrar(self, entrada: dict[str, Any]) -> dict[str, Any]:
        prev = self.log[-1]["hash"] if self.log else GENESIS
        e = encadenar(prev, entrada)
        self.log.append(e)
        return e

    def vigilar(self, asiento: int) -> dict[str, Any]:
        if asiento not in range(4):
            raise ValueError(f"asiento {asiento} no existe (0-3)")
        self.asiento = asiento
        return self._registrar({"tipo": "vigilar", "asiento": asiento,
                                "jugador": self.jugadores[asiento]})

    def marcar(self, fase: str, t: float) -> None:
        if fase not in FASES:
            raise ValueError(f"fase desconocida {fase!r}")
        self.marcas.append({"fase": fase, "inicio": round(float(t), 2)})
        self._registrar({"tipo": "fase", "fase": fase, "t": round(float(t), 2)})

    def anotar(self, evento: dict[str, Any], miniatura: str | None = None,
               miniatura_sha256: str | None = None) -> None:
        self.eventos.append(dict(evento))
        entry = {"tipo": "sena", "evento": dict(evento)}
        if miniatura:
            entry["miniatura"], entry["miniatura_sha256"] = miniatura, miniatura_sha256
        self._registrar(entry)

    def comprobar(self, cartas: str) -> Informe:
        """Check the watched player's señas against their revealed cards; logged too."""
        informe = comprobar_senas(self.eventos, cartas, self.perfil, self.marcas or None,
                                  primera_mano=self.primera_mano)
        self._registrar({"tipo": "informe", "asiento": self.asiento, "cartas": cartas,
                         "informe": informe.to_json()})
        return informe

    def nueva_mano(self) -> None:
        self.marcas, self.eventos = [], []
        self._registrar({"tipo": "nueva_mano"})

    def exportar(self) -> dict[str, Any]:
        return {"formato": "musmesa-arbitro", "perfil": self.perfil,
                "jugadores": list(self.jugadores), "entradas": list(self.log),
                "ultimo_hash": self.log[-1]["hash"] if self.log else GENESIS}
