"""musmesa's rules engine: pure standard-library Python, importing nothing of the other packages.

>>> import scoring
>>> r = scoring.tantear({"manos": ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]})
>>> r.marcador
(3, 6)
"""

from scoring.cards import CARD_IDS, DECK, Card, Hand, NotationError, parse_hand
from scoring.declaraciones import Correccion
from scoring.jugadas import LANCES, Jugada, Pares, evaluar, ganador, pares, tiene_juego, valor_juego
from scoring.partida import Partida, PartidaError, amarracos
from scoring.rules import PERFILES, PerfilError, Reglas, cargar_perfil, perfil
from scoring.tanteo import Apunte, RegistroError, RegistroMano, ResultadoTanteo, tantear

__all__ = [
    "CARD_IDS",
    "DECK",
    "LANCES",
    "PERFILES",
    "Apunte",
    "Card",
    "Correccion",
    "Hand",
    "Jugada",
    "NotationError",
    "Pares",
    "Partida",
    "PartidaError",
    "PerfilError",
    "RegistroError",
    "RegistroMano",
    "Reglas",
    "ResultadoTanteo",
    "amarracos",
    "cargar_perfil",
    "evaluar",
    "ganador",
    "pares",
    "parse_hand",
    "perfil",
    "tantear",
    "tiene_juego",
    "valor_juego",
]
