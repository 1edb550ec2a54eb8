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

from mesa.i18n import N_, SOURCE, t
from scoring.arbitro import comprobar_senas, senas_permitidas
from scoring.cards import CARD_IDS

NOMBRES_GESTO = {
    "labio_mordido": "labio mordido",
    "lengua_fuera": "lengua fuera",
    "lengua_lado": "lengua a un lado",
    "labios_lado": "labios a un lado",
    "cejas_arriba": "cejas arriba",
    "morro": "morro",
    "guino": "guiño",
    "ojos_cerrados": "ojos cerrados",
    "hombros_arriba": "hombros arriba",
    "hombro_arriba": "un hombro arriba",
}

# What the player can do about each code of gestures.types.PROBLEMAS_CALIBRACION.
PROBLEMAS_CALIBRACION = {
    "cara_pequena": N_("Acerca la cara a la cámara: se ve muy pequeña"),
    "oscuro": N_("Hay poca luz: enciende una luz o ponte de cara a ella"),
    "no_neutra": N_("Pon la cara neutra, sin gestos, y vuelve a calibrar"),
    "pocos_fotogramas": N_("Se vio la cara muy poco rato: mira a la cámara y vuelve a calibrar"),
}
PROBLEMA_DESCONOCIDO = N_("La calibración no es buena: vuelve a calibrar")


def avisos_calibracion(calibracion: Any, idioma: str = SOURCE) -> list[str]:
    """What to do about a poor calibration (a gestures.types.Calibracion, or None), one line
    per problem in the player's language; [] when it is good or there is none yet.

    >>> from types import SimpleNamespace as C
    >>> avisos_calibracion(C(problemas=("oscuro",)), "en")
    ['There is little light: switch a light on or face one']
    >>> avisos_calibracion(None), avisos_calibracion(C(problemas=()))
    ([], [])
    """
    problemas = getattr(calibracion, "problemas", None) or ()
    textos = [t(PROBLEMAS_CALIBRACION.get(p, PROBLEMA_DESCONOCIDO), idioma) for p in problemas]
    return list(dict.fromkeys(textos))  # two unknown codes say it once


def texto_calibracion(calibracion: Any, idioma: str = SOURCE) -> str:
    """The screen's line: 'Calibración pobre: ...' or '' when it is good."""
    avisos = avisos_calibracion(calibracion, idioma)
    return f"{t(N_('Calibración pobre'), idioma)}: {' · '.join(avisos)}" if avisos else ""


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
        return [
            f"{j.sena.significado} ({' + '.join(NOMBRES_GESTO.get(g, g) for g in j.sena.gestos)})" for j in sp.completas
        ]

    def gestos_pedidos(self) -> list[str]:
        """The gestures of every complete seña the dealt hand entitles (what a take asks)."""
        sp = senas_permitidas(self.mano, self.perfil)
        return sorted({g for j in sp.completas for g in j.sena.gestos})

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
        intento = Intento(self.mano, ok, self.que_senar(), [describir_evento(e) for e in eventos], motivo)
        self.intentos += 1
        self.aciertos += int(ok)
        self.historial.append(intento)
        return intento
