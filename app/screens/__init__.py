"""The app's screens: one class per screen, its layout in app/kv/<name>.kv."""

from __future__ import annotations

from app.screens.ajustes import AjustesScreen
from app.screens.arbitro import ArbitroScreen
from app.screens.baraja import BarajaScreen
from app.screens.cartas import CartasScreen
from app.screens.mano import ManoScreen
from app.screens.marcador import MarcadorScreen
from app.screens.nueva import NuevaScreen
from app.screens.senas import SenasScreen
from app.screens.tanteo import TanteoScreen
from app.screens.torneo import TorneoScreen

CLASSES = {
    "nueva": NuevaScreen,
    "marcador": MarcadorScreen,
    "mano": ManoScreen,
    "cartas": CartasScreen,
    "tanteo": TanteoScreen,
    "senas": SenasScreen,
    "arbitro": ArbitroScreen,
    "ajustes": AjustesScreen,
    "torneo": TorneoScreen,
    "baraja": BarajaScreen,
}
