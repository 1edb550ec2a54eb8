"""The organiser pages' words: Spanish first, Basque and English. A small catalogue kept here
(the pages have few words); tests/test_torneo_paginas.py fails if a language lacks one.

The language comes from ``?lang=`` or the browser's Accept-Language, Spanish by default.
"""

from __future__ import annotations

from typing import Final

IDIOMAS: Final = ("es", "eu", "en")

# Spanish text -> (Basque, English)
CATALOGO: Final[dict[str, tuple[str, str]]] = {
    "Torneo de mus": ("Mus txapelketa", "Mus tournament"),
    "Entrar": ("Sartu", "Log in"),
    "Salir": ("Irten", "Log out"),
    "Usuario": ("Erabiltzailea", "User"),
    "Contraseña": ("Pasahitza", "Password"),
    "Mis torneos": ("Nire txapelketak", "My tournaments"),
    "Crear torneo": ("Txapelketa sortu", "Create tournament"),
    "Nombre": ("Izena", "Name"),
    "Jugadores": ("Jokalariak", "Players"),
    "Reglas": ("Arauak", "Rules"),
    "Formato": ("Formatua", "Format"),
    "Liga": ("Liga", "League"),
    "Grupos y eliminatoria": ("Multzoak eta kanporaketa", "Groups then knockout"),
    "Grupos": ("Multzoak", "Groups"),
    "Clasifican por grupo": ("Multzoko sailkatuak", "Qualify per group"),
    "Partida a juegos": ("Partida jokotara", "Match to juegos"),
    "Sortear el orden": ("Ordena zozketatu", "Draw the order"),
    "Semilla del sorteo": ("Zozketaren hazia", "Draw seed"),
    "Mesas": ("Mahaiak", "Tables"),
    "Mesa": ("Mahaia", "Table"),
    "Parejas": ("Bikoteak", "Pairs"),
    "Pareja": ("Bikotea", "Pair"),
    "Una pareja por línea: Nombre: Jugador, Jugador": (
        "Bikote bat lerro bakoitzean: Izena: Jokalaria, Jokalaria",
        "One pair per line: Name: Player, Player"),
    "Código": ("Kodea", "Code"),
    "Rondas": ("Txandak", "Rounds"),
    "Ronda": ("Txanda", "Round"),
    "Empezar la siguiente ronda": ("Hurrengo txanda hasi", "Start the next round"),
    "Clasificación": ("Sailkapena", "Standings"),
    "Partidas": ("Partidak", "Matches"),
    "En juego": ("Jokoan", "Being played"),
    "Terminadas": ("Amaituak", "Finished"),
    "Descansa": ("Atseden", "Bye"),
    "Incidencias": ("Gorabeherak", "Incidents"),
    "Artículo": ("Artikulua", "Article"),
    "Motivo": ("Arrazoia", "Reason"),
    "Gravedad": ("Larritasuna", "Severity"),
    "Sin incidencias": ("Gorabeherarik ez", "No incidents"),
    "Ganadas": ("Irabaziak", "Won"),
    "Perdidas": ("Galduak", "Lost"),
    "Juegos": ("Jokoak", "Juegos"),
    "Tantos": ("Harriak", "Tantos"),
    "Manos": ("Eskuak", "Hands"),
    "Marcador": ("Markagailua", "Score"),
    "Ganador": ("Irabazlea", "Winner"),
    "Exportar": ("Esportatu", "Export"),
    "Se actualiza sola cada 10 segundos": ("Bere kabuz eguneratzen da 10 segundoro",
                                           "Refreshes itself every 10 seconds"),
    "Aún no hay rondas": ("Oraindik ez dago txandarik", "No rounds yet"),
    "Aún no hay torneos": ("Oraindik ez dago txapelketarik", "No tournaments yet"),
    "Códigos de mesa": ("Mahaien kodeak", "Table codes"),
    "La tableta de cada mesa se une con su código o leyendo el QR": (
        "Mahai bakoitzeko tabletak bere kodearekin edo QRa irakurriz bat egiten du",
        "Each table's tablet joins with its code or by reading the QR code"),
    "Volver": ("Itzuli", "Back"),
}


def idioma(lang: str | None, accept: str | None) -> str:
    """``?lang=`` if it is one we have, else the first of Accept-Language we have, else es."""
    if lang in IDIOMAS:
        return lang
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in IDIOMAS:
            return code
    return "es"


def traducir(texto: str, lang: str) -> str:
    if lang == "es" or texto not in CATALOGO:
        return texto
    return CATALOGO[texto][IDIOMAS.index(lang) - 1]
