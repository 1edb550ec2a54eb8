"""The tanteo's reasons in the player's language, rendered from what each apunte records.

An apunte keeps its :class:`Motivo` (the kind of win, the seat whose jugada won, the bet), and
the reason is written from it with the templates of :data:`PLANTILLAS`, one line per language:
Spanish (the source, and what ``mus tanteo`` prints), Basque and English. Nothing translates a
finished Spanish sentence. Words of the game stay the game's (grande, pares, envite, órdago,
medias, duples, reyes; in Basque the Basque Mus words: handia, pareak, enbidoa, hordagoa); the
rules texts' quotes are not a hand's reasons (they are in ``mus arbitro --listar``)::

    >>> from scoring.cards import parse_hand
    >>> from scoring.jugadas import evaluar
    >>> from scoring.rules import perfil
    >>> manos = ("12o 12c 12e 1b", "3o 4c 5e 7b", "1o 2c 4e 5b", "6o 7c 6e 7b")
    >>> jugadas = [evaluar(parse_hand(h), perfil()) for h in manos]
    >>> nombres = ("Ana", "Iñaki", "Bea", "Josu")
    >>> jugada = Motivo(TipoApunte.JUGADA, seat=0)
    >>> [razon(jugada, "pares", 2, jugadas, nombres, idioma) for idioma in IDIOMAS]
    ['Pares: medias de reyes de Ana (2)', 'Pareak: errege mediak, Ana (2)', 'Pares: medias of reyes, Ana (2)']
    >>> no_quiero = Motivo(TipoApunte.NO_QUERIDO, pareja=1)
    >>> razon(no_quiero, "grande", 3, jugadas, nombres, "eu")
    'Handia: Ana eta Bea bikoteak ez du enbidoa onartu; 3 Iñaki eta Josu bikotearentzat'

The Basque lance names are the ones the app's catalogues give (``tests/test_i18n.py`` checks
that they agree). Standard library only, like the rest of scoring/.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from scoring.cards import RANK_PLURALS
from scoring.jugadas import Jugada, Pares

IDIOMAS: Final = ("es", "eu", "en")
SOURCE: Final = "es"


class TipoApunte(StrEnum):
    """Why a pareja takes tantos: the kind of win, each with its own sentence."""

    PASO = "paso"  # grande, chica or punto en paso: 1 to the winner
    QUERIDO = "querido"  # an envite accepted: its tantos to the lance's winner
    NO_QUERIDO = "no_querido"  # the last bet refused: its tantos at once to who made it
    DEJE = "deje"  # the refused opening envite at pares or juego, taken at once (utzia)
    DEJE_AL_FINAL = "deje_al_final"  # the same, taken at the count
    ORDAGO = "ordago"  # an accepted órdago: the lance's winner takes the juego
    JUGADA = "jugada"  # pares or juego: what a player's jugada is worth
    PUNTO_NO_QUERIDO = "punto_no_querido"  # 1 for the punto to whom the envite was refused
    PUNTO_MAS = "punto_mas"  # 1 more for winning the punto after an accepted envite
    PUNTO_FALTA_NEGADA = "punto_falta_negada"  # one tanto short: only the tanto of negada
    PUNTO_FALTA_QUERIDO = "punto_falta_querido"  # one tanto short: only the punto, not the envite
    CORRECCION = "correccion"  # a false declaration's penalty (scoring.declaraciones)


@dataclass(frozen=True, slots=True)
class Motivo:
    """What a reason is written from.

    seat: the player whose jugada wins the lance (or holds the pares or juego counted);
    pareja: the pareja whose bet was refused, where the reason names the one who refused it;
    envite: the tantos of the bet (an accepted envite, a refused one);
    nota: a referee's correction, in Spanish as scoring.declaraciones words it.
    """

    tipo: TipoApunte
    seat: int | None = None
    pareja: int | None = None
    envite: int = 0
    nota: str = ""


# One template per language. Fields: {lance} (its name), {n} (the tantos), {envite}, {quien}
# (a player and their jugada), {nombre}, {jugada}, {gana} / {rechaza} (a pareja), {nota}.
PLANTILLAS: Final[Mapping[str, Mapping[str, str]]] = {
    "paso": {
        "es": "{lance} en paso: gana {quien} ({n})",
        "eu": "{lance} pasoan: irabazlea {quien} ({n})",
        "en": "{lance} passed: {quien} wins ({n})",
    },
    "querido": {
        "es": "{lance}: envite de {envite} querido, gana {quien} ({n})",
        "eu": "{lance}: {envite_ko} enbidoa onartuta, irabazlea {quien} ({n})",
        "en": "{lance}: envite of {envite} accepted, {quien} wins ({n})",
    },
    "no_querido": {
        "es": "{lance}: envite no querido por {rechaza}, {n} para {gana}",
        "eu": "{lance}: {rechaza} bikoteak ez du enbidoa onartu; {n} {gana} bikotearentzat",
        "en": "{lance}: envite refused by {rechaza}, {n} to {gana}",
    },
    "deje": {
        "es": "{lance}: utzia (deje), envite no querido por {rechaza}, {n} para {gana}",
        "eu": "{lance}: utzia, {rechaza} bikoteak ez du enbidoa onartu; {n} {gana} bikotearentzat",
        "en": "{lance}: deje, envite refused by {rechaza}, {n} to {gana}",
    },
    "deje_al_final": {
        "es": "{lance}: deje, envite no querido por {rechaza} ({n})",
        "eu": "{lance}: utzia, {rechaza} bikoteak ez du enbidoa onartu ({n})",
        "en": "{lance}: deje, envite refused by {rechaza} ({n})",
    },
    "ordago": {
        "es": "{lance}: órdago querido, gana {quien} y con él el juego",
        "eu": "{lance}: hordagoa onartuta, irabazlea {quien}, eta harekin jokoa",
        "en": "{lance}: órdago accepted, {quien} wins it and the juego with it",
    },
    "jugada": {
        "es": "{lance}: {jugada} de {nombre} ({n})",
        "eu": "{lance}: {jugada}, {nombre} ({n})",
        "en": "{lance}: {jugada}, {nombre} ({n})",
    },
    "punto_no_querido": {
        "es": "{lance}: {n} por el punto para {gana}, que envidó y no se lo quisieron",
        "eu": "{lance}: {n} puntuagatik {gana} bikotearentzat, enbidatu eta ez baitiote onartu",
        "en": "{lance}: {n} for the punto to {gana}, whose envite was refused",
    },
    "punto_mas": {
        "es": "{lance}: {n} más por ganar el punto, {quien}",
        "eu": "{lance}: {n} gehiago puntua irabazteagatik, {quien}",
        "en": "{lance}: {n} more for winning the punto, {quien}",
    },
    "punto_falta_negada": {
        "es": "{lance}: envite no querido por {rechaza} a falta de un tanto, sólo el tanto de negada para {gana}",
        "eu": "{lance}: tanto bat falta zela, {rechaza} bikoteak ez du enbidoa onartu; "
        "ukatzearen tantoa bakarrik {gana} bikotearentzat",
        "en": "{lance}: envite refused by {rechaza} with a pareja one tanto from the juego, "
        "only the tanto for the refusal to {gana}",
    },
    "punto_falta_querido": {
        "es": "{lance}: {n} por ganar el punto, {quien}; a falta de un tanto el envite de {envite} no se apunta",
        "eu": "{lance}: {n} puntua irabazteagatik, {quien}; tanto bat falta zela, {envite_ko} enbidoa ez da idazten",
        "en": "{lance}: {n} for winning the punto, {quien}; with a pareja one tanto from the juego "
        "the envite of {envite} is not counted",
    },
    "correccion": {
        "es": "{lance}: {nota} ({n})",
        "eu": "{lance}: adierazpen faltsu baten zigorra, {n} {gana} bikotearentzat",
        "en": "{lance}: penalty for a false declaration, {n} to {gana}",
    },
    # the players and parejas
    "quien": {"es": "{nombre} ({jugada})", "eu": "{nombre} ({jugada})", "en": "{nombre} ({jugada})"},
    "pareja_de": {"es": "{a} y {b}", "eu": "{a} eta {b}", "en": "{a} and {b}"},
    # a pareja without names; inside a Basque sentence the template adds "bikoteak" or its case
    "pareja_n": {"es": "pareja {p}", "eu": "{p}.", "en": "pair {p}"},
    "pareja_sola": {"es": "pareja {p}", "eu": "{p}. bikotea", "en": "pair {p}"},
    "asiento_n": {"es": "asiento {s}", "eu": "{s}. eserlekua", "en": "seat {s}"},
    # the jugadas
    "pareja": {"es": "pareja de {r}", "eu": "{r} parea", "en": "pareja of {r}"},
    "medias": {"es": "medias de {r}", "eu": "{r} mediak", "en": "medias of {r}"},
    "duples": {"es": "duples de {r} y {r2}", "eu": "{r} eta {r2} dupleak", "en": "duples of {r} and {r2}"},
    "duples_cuatro": {
        "es": "duples de {r} (cuatro {r})",
        "eu": "{r} dupleak (lau {r})",
        "en": "duples of {r} (four {r})",
    },
    "sin_pares": {"es": "sin pares", "eu": "parerik gabe", "en": "no pares"},
    "real": {"es": "31 real", "eu": "31 erreala", "en": "31 real"},
    "sin_juego": {"es": "sin juego", "eu": "jokorik gabe", "en": "no juego"},
    "al_punto": {"es": "{v} al punto", "eu": "{v} puntura", "en": "{v} at punto"},
    # the tanteo as a text (ResultadoTanteo.texto)
    "cabecera": {
        "es": "Reglas: {reglas} ({reyes} reyes, {tantos} tantos). Mano: {mano}.",
        "eu": "Arauak: {reglas} ({reyes} errege, {tantos} tanto). Eskua: {mano}.",
        "en": "Rules: {reglas} ({reyes} reyes, {tantos} tantos). Mano: {mano}.",
    },
    "asiento": {
        "es": "  {nombre} (pareja {p}): {mano}",
        "eu": "  {nombre} ({p}. bikotea): {mano}",
        "en": "  {nombre} (pair {p}): {mano}",
    },
    "nada": {"es": "{lance}: nada", "eu": "{lance}: ezer ez", "en": "{lance}: nothing"},
    "nota": {"es": "Nota: {nota}", "eu": "Oharra: {nota}", "en": "Note: {nota}"},
    "marcador": {
        "es": "Marcador: {p0} {a}, {p1} {b}",
        "eu": "Markagailua: {p0} {a}, {p1} {b}",
        "en": "Scoreboard: {p0} {a}, {p1} {b}",
    },
    "fin_ordago": {
        "es": "Fin del juego: gana {gana} (por órdago)",
        "eu": "Jokoaren amaiera: {gana} bikoteak irabazi du (hordagoz)",
        "en": "End of the juego: won by {gana}, with an órdago",
    },
    "fin_tantos": {
        "es": "Fin del juego: gana {gana} (a los tantos)",
        "eu": "Jokoaren amaiera: {gana} bikoteak irabazi du (tantoetara)",
        "en": "End of the juego: won by {gana}, on tantos",
    },
    "nota_declaracion": {
        "es": "{lance}: nota del árbitro sobre las declaraciones",
        "eu": "{lance}: arbitroaren oharra adierazpenei buruz (mus arbitro --declaraciones)",
        "en": "{lance}: the referee's note on the declarations (mus arbitro --declaraciones)",
    },
    "ordago_sin_efecto": {
        "es": "{lance}: órdago sin efecto, nadie tiene {lance_min}",
        "eu": "{lance}: hordagoak ez du ondoriorik, inork ez du {lance_min}",
        "en": "{lance}: órdago with no effect, nobody holds {lance_min}",
    },
}

NOMBRES_LANCE: Final[Mapping[str, Mapping[str, str]]] = {
    "es": {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"},
    # the Basque Mus words, as the app's catalogues name the lances
    "eu": {"grande": "Handia", "chica": "Txikia", "pares": "Pareak", "juego": "Jokoa", "punto": "Puntua"},
    "en": {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"},
}
# A lance's name inside a sentence ("nadie tiene pares").
LANCE_MINUSCULA: Final[Mapping[str, Mapping[str, str]]] = {
    "es": {"grande": "grande", "chica": "chica", "pares": "pares", "juego": "juego", "punto": "punto"},
    "eu": {"grande": "handirik", "chica": "txikirik", "pares": "parerik", "juego": "jokorik", "punto": "punturik"},
    "en": {"grande": "grande", "chica": "chica", "pares": "pares", "juego": "juego", "punto": "punto"},
}
# The ranks as a jugada names them (plural in Spanish and English; Basque uses the modifier).
RANGOS: Final[Mapping[str, Mapping[int, str]]] = {
    "es": RANK_PLURALS,
    "eu": {
        1: "bateko",
        2: "biko",
        3: "hiruko",
        4: "lauko",
        5: "bosteko",
        6: "seiko",
        7: "zazpiko",
        10: "sota",
        11: "zaldun",
        12: "errege",
    },
    "en": {
        1: "ases",
        2: "twos",
        3: "threes",
        4: "fours",
        5: "fives",
        6: "sixes",
        7: "sevens",
        10: "sotas",
        11: "caballos",
        12: "reyes",
    },
}


def idioma_de(idioma: str | None) -> str:
    """A language these templates have, Spanish for any other.

    >>> idioma_de("eu"), idioma_de("fr"), idioma_de(None)
    ('eu', 'es', 'es')
    """
    return idioma if idioma in IDIOMAS else SOURCE


def plantilla(clave: str, idioma: str = SOURCE) -> str:
    return PLANTILLAS[clave][idioma_de(idioma)]


def nombre_lance(lance: str, idioma: str = SOURCE) -> str:
    """A lance's name in ``idioma``: the Basque Mus words in Basque, the Spanish ones otherwise.

    >>> nombre_lance("grande", "eu"), nombre_lance("grande", "en")
    ('Handia', 'Grande')
    """
    return NOMBRES_LANCE[idioma_de(idioma)][lance]


def nombre_rango(rango: int, idioma: str = SOURCE) -> str:
    """A rank as pares name it: 'reyes', in Basque 'errege' (as in 'errege parea')."""
    return RANGOS[idioma_de(idioma)][rango]


def describir_pares(pares: Pares | None, idioma: str = SOURCE) -> str:
    """A pares jugada in ``idioma``.

    >>> describir_pares(Pares("duples", (12, 11)), "en"), describir_pares(Pares("pareja", (4,)), "eu")
    ('duples of reyes and caballos', 'lauko parea')
    """
    if pares is None:
        return plantilla("sin_pares", idioma)
    high = nombre_rango(pares.rangos[0], idioma)
    if pares.tipo == "duples":
        if pares.rangos[0] == pares.rangos[1]:
            return plantilla("duples_cuatro", idioma).format(r=high)
        return plantilla("duples", idioma).format(r=high, r2=nombre_rango(pares.rangos[1], idioma))
    return plantilla(pares.tipo, idioma).format(r=high)


def describir(jugada: Jugada, lance: str, idioma: str = SOURCE) -> str:
    """A jugada as a reason shows it: the cards at grande and chica, the pares, the juego, the punto."""
    if lance in ("grande", "chica"):
        return str(jugada.hand)
    if lance == "pares":
        return describir_pares(jugada.pares, idioma)
    if lance == "juego":
        if not jugada.juego:
            return plantilla("sin_juego", idioma)
        return plantilla("real", idioma) if jugada.real else str(jugada.valor)
    return plantilla("al_punto", idioma).format(v=jugada.valor)


def nombre(seat: int, nombres: Sequence[str] | None, idioma: str = SOURCE) -> str:
    return nombres[seat] if nombres else plantilla("asiento_n", idioma).format(s=seat)


def nombre_pareja(pareja: int, nombres: Sequence[str] | None, idioma: str = SOURCE, sola: bool = False) -> str:
    """A pareja's two names; without names its number, standing ``sola`` or inside a sentence.

    >>> nombre_pareja(1, ("Ana", "Iñaki", "Bea", "Josu"), "eu"), nombre_pareja(1, None, "eu", sola=True)
    ('Iñaki eta Josu', '1. bikotea')
    """
    if nombres:
        return plantilla("pareja_de", idioma).format(a=nombres[pareja], b=nombres[pareja + 2])
    return plantilla("pareja_sola" if sola else "pareja_n", idioma).format(p=pareja)


def con_ko(n: int) -> str:
    """A number with Basque's "-ko" (of): "2ko", but "5eko", "10eko", "21eko" after a consonant.

    >>> [con_ko(n) for n in (2, 5, 10, 15, 20, 21, 30, 40)]
    ['2ko', '5eko', '10eko', '15eko', '20ko', '21eko', '30eko', '40ko']
    """
    # bost (5), hamar (10) and bat (1) end in a consonant; 11 is hamaika
    return f"{n}{'eko' if n % 10 == 5 or n % 20 in (1, 10) else 'ko'}"


def razon(
    motivo: Motivo,
    lance: str,
    tantos: int,
    jugadas: Sequence[Jugada],
    nombres: Sequence[str] | None,
    idioma: str = SOURCE,
    pareja: int | None = None,
) -> str:
    """One apunte's reason: ``tantos`` in ``lance`` for ``motivo``, in ``idioma``.

    ``pareja`` is the pareja that takes the tantos; by default the winner's (``motivo.seat``)
    or the one whose bet was refused (``motivo.pareja``).
    """
    gana = pareja if pareja is not None else (motivo.seat % 2 if motivo.seat is not None else motivo.pareja)
    campos: dict[str, object] = {
        "lance": nombre_lance(lance, idioma),
        "n": tantos,
        "envite": motivo.envite,
        "envite_ko": con_ko(motivo.envite),
        "nota": motivo.nota,
    }
    if gana is not None:
        campos["gana"] = nombre_pareja(gana, nombres, idioma)
        campos["rechaza"] = nombre_pareja(1 - gana, nombres, idioma)
    if motivo.seat is not None:
        campos["nombre"] = nombre(motivo.seat, nombres, idioma)
        campos["jugada"] = describir(jugadas[motivo.seat], lance, idioma)
        campos["quien"] = plantilla("quien", idioma).format(**campos)
    return plantilla(motivo.tipo.value, idioma).format(**campos)
