"""The señas trainer: deal a random hand, say what it entitles, judge what the camera saw.

Pure logic over scoring.arbitro; the events come from gestures/ (or a test) as dicts in the
`mus senas` format: {gesto, lado, inicio, fin, confianza, sena}.

    >>> e = Entrenador("segovia", semilla=3)
    >>> mano = e.repartir()
    >>> len(mano.split())
    4
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scoring.arbitro import comprobar_senas, senas_permitidas
from scoring.cards import CARD_IDS

NOMBRES_GESTO = {
    "labio_mordido": "labio mordido", "lengua_fuera": "lengua fuera",
    "lengua_lado": "lengua a un lado", "labios_lado": "labios a un lado",
    "cejas_arriba": "cejas arriba", "morro": "morro", "guino": "guiño",
    "ojos_cerrados": "ojos cerrados", "hombros_arriba": "hombros arriba",
    "hombro_arriba": "un hombro arriba",
}


def describir_evento(ev: dict[str, Any]) -> str:
    """'3.4 s  guiño (izquierdo): treinta y una'."""
    name = NOMBRES_GESTO.get(ev["gesto"], ev["gesto"])
    lado = f" ({ev['lado']})" if ev.get("lado") else ""
    sena = ev.get("sena") or "sin significado"
    return f"{ev.get('inicio', 0):.1f} s  {name}{lado}: {sena}"


@dataclass
class Intento:
    mano: str
    correcto: bool
    debia: list[str]  # the complete señas to pass, described
    visto: list[str]
    hallazgos: list[str]


@dataclass
class Entrenador:
    perfil: str = "general"
    semilla: int | None = None
    mano: str = ""
    aciertos: int = 0
    intentos: int = 0
    historial: list[Intento] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.semilla)

    def repartir(self) -> str:
        self.mano = " ".join(self._rng.sample(CARD_IDS, 4))
        return self.mano

    def poner_mano(self, texto: str) -> None:
        senas_permitidas(texto, self.perfil)  # validates the hand
        self.mano = texto

    def que_senar(self) -> list[str]:
        """The complete señas for the dealt hand, as 'dos reyes (labio mordido)'."""
        sp = senas_permitidas(self.mano, self.perfil)
        return [f"{j.sena.significado} ({' + '.join(NOMBRES_GESTO.get(g, g) for g in j.sena.gestos)})"
                for j in sp.completas]

    def explicacion(self) -> str:
        return senas_permitidas(self.mano, self.perfil).texto()

    def comprobar(self, eventos: list[dict[str, Any]]) -> Intento:
        """Judge the señas made for the current hand, and keep the score."""
        if not self.mano:
            raise ValueError("primero reparte una mano")
        informe = comprobar_senas(eventos, self.mano, self.perfil, "lances")
        completas = {j.sena.id for j in informe.permitidas.completas}
        hechas = {v.sena.id for v in informe.vistas if v.sena}
        pasa_completa = not completas or bool(completas & hechas)
        ok = informe.correcto and pasa_completa
        if completas and not hechas:
            motivo = ["no se vio ninguna seña"]
        else:
            motivo = [f"{h.razon} [{h.articulo}]" for h in informe.hallazgos]
        intento = Intento(self.mano, ok, self.que_senar(),
                          [describir_evento(e) for e in eventos], motivo)
        self.intentos += 1
        self.aciertos += int(ok)
        self.historial.append(intento)
        return intento
