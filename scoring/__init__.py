"""musmesa's rules engine: pure standard-library Python, importing nothing of the other packages.

>>> import scoring
>>> r = scoring.tantear({"manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]})
>>> r.marcador
(3, 6)
"""

from scoring.cards import CARD_IDS, DECK, Card, Hand, NotationError, parse_hand
from scoring.declaraciones import CorreccionLance
from scoring.errors import ScoringError
from scoring.jugadas import LANCES, Jugada, Pares, evaluar, ganador, pares, speaking_order, tiene_juego, valor_juego
from scoring.outcomes import PASO, Cierre, FinJuego, Lance, NoQuiero, Ordago, Paso, Quiero, Terminacion, TipoLance
from scoring.partida import Partida, PartidaError, amarracos
from scoring.rules import PERFILES, PerfilError, Reglas, cargar_perfil, perfil
from scoring.tanteo import Apunte, RegistroMano, RegistroManoError, ResultadoTanteo, parse_lance, tantear

__all__ = [
    "CARD_IDS",
    "DECK",
    "LANCES",
    "PASO",
    "PERFILES",
    "Apunte",
    "Card",
    "Cierre",
    "CorreccionLance",
    "FinJuego",
    "Hand",
    "Jugada",
    "Lance",
    "NoQuiero",
    "NotationError",
    "Ordago",
    "Pares",
    "Partida",
    "PartidaError",
    "Paso",
    "PerfilError",
    "Quiero",
    "RegistroMano",
    "RegistroManoError",
    "Reglas",
    "ResultadoTanteo",
    "ScoringError",
    "Terminacion",
    "TipoLance",
    "amarracos",
    "cargar_perfil",
    "evaluar",
    "ganador",
    "pares",
    "parse_hand",
    "parse_lance",
    "perfil",
    "speaking_order",
    "tantear",
    "tiene_juego",
    "valor_juego",
]
