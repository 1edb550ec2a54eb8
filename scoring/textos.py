"""The rules texts' own words, quoted once here and cited by the profiles, the tanteo and the checks.

Every quote is the exact text of the document it names (fragments of one passage are joined by
``[…]``), so a reason can show the article a value or a penalty comes from::

    >>> POSTRE_33_PROHIBIDO.lugar, POSTRE_33_PROHIBIDO.texto[:48]
    ('Título V, art. 7', 'Queda expresamente prohibido querer un órdago a ')
    >>> str(SEG_SIN_DEJE)
    'Normas generales de mus para la provincia de Segovia, normas básicas: «Se juega sin deje»'
    >>> Fuente(eleccion="el texto no lo dice").es_eleccion
    True

The documents are named by the titles they give themselves; the texts are in the project's
shared folder (``../shared/seeds/``), never copied here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

ENCICLOPEDIA: Final = "Enciclopedia, artículo «Mus»"
NORMAS_SEGOVIA: Final = "Normas generales de mus para la provincia de Segovia"
REGLAMENTO: Final = "Reglamento Campeonatos de Mus (Segovia)"
TXAPELKETA: Final = "Euskadiko Kooperatiben arteko III. Mus Txapelketa"
LUDOTEKA: Final = "Ludoteka, «Reglas del Mus»"
DOCUMENTOS: Final = (ENCICLOPEDIA, NORMAS_SEGOVIA, REGLAMENTO, TXAPELKETA, LUDOTEKA)
SEPARADOR: Final = " […] "  # between fragments of one passage


@dataclass(frozen=True, slots=True)
class Cita:
    """A document's exact words: its title, where in it, and the text."""

    documento: str
    lugar: str
    texto: str

    def __post_init__(self) -> None:
        if self.documento not in DOCUMENTOS or not self.lugar or not self.texto:
            raise ValueError(f"cita sin documento conocido, lugar o texto: {self.documento!r}")

    def __str__(self) -> str:
        return f"{self.documento}, {self.lugar}: «{self.texto}»"

    @property
    def fragmentos(self) -> tuple[str, ...]:
        return tuple(self.texto.split(SEPARADOR))


@dataclass(frozen=True, slots=True)
class Fuente:
    """Where one value of a rule profile comes from.

    citas: the words that fix the value (or, for a choice, the words that bear on it).
    eleccion: empty when the texts fix the value; otherwise musmesa chose it, and this says why.
    nota: a remark that is not a choice (e.g. the profile's own regulation is silent and another
        text says it for that region).
    """

    citas: tuple[Cita, ...] = ()
    eleccion: str = ""
    nota: str = ""

    def __post_init__(self) -> None:
        if not self.citas and not self.eleccion:
            raise ValueError("una fuente cita un texto o dice que el valor es una elección")

    @property
    def es_eleccion(self) -> bool:
        return bool(self.eleccion)

    def texto(self) -> str:
        """One line: the choice (if it is one), the remark, then the quotes."""
        parts = [f"elección de musmesa: {self.eleccion}"] if self.eleccion else []
        parts += [self.nota] if self.nota else []
        parts += [str(c) for c in self.citas]
        return "; ".join(parts)


def _enc(lugar: str, texto: str) -> Cita:
    return Cita(ENCICLOPEDIA, lugar, texto)


def _reg(lugar: str, texto: str) -> Cita:
    return Cita(REGLAMENTO, lugar, texto)


def _seg(lugar: str, texto: str) -> Cita:
    return Cita(NORMAS_SEGOVIA, lugar, texto)


def _eus(texto: str, lugar: str = "«Araudia»") -> Cita:
    return Cita(TXAPELKETA, lugar, texto)


def _lud(lugar: str, texto: str) -> Cita:
    return Cita(LUDOTEKA, lugar, texto)


# -- Enciclopedia, artículo «Mus» --------------------------------------------------------------
ENC_OCHO_REYES: Final = _enc(
    "«Cartas»", "Se juega con ocho reyes (conocidos como barbas) y ocho ases (también llamados pitos)."
)
ENC_PAIS_VASCO: Final = _enc(
    "«Cartas»",
    "En el País Vasco, en otras zonas del norte de España"
    + SEPARADOR
    + "se juega solamente con cuatro reyes y cuatro ases.",
)
ENC_CUATRO_JUEGOS: Final = _enc(
    "«Envites y tanteo»",
    "Normalmente la pareja que consigue antes cuatro juegos de cuarenta tantos cada juego es la que gana la partida.",
)
ENC_REAL: Final = _enc(
    "«Vocabulario»",
    "Treinta y una real. Una jugada con tres sietes y una figura. Suma, "
    "pues, 31 puntos, y en algunas reglas gana a cualquier otro jugada de 31 puntos, "
    "aunque no sea mano.",
)
ENC_DEJE: Final = _enc(
    "«Vocabulario»",
    "Deje. Es la piedra que se lleva al final una pareja cuando los "
    "contrarios no aceptan un envite inicial. El deje no siempre es considerado "
    "reglamentario; y en caso de que haya, sólo será en los pares y en el juego.",
)
ENC_NO_ACEPTADO: Final = _enc(
    "«Envites a grande»",
    "Si se envida y no se acepta, se apuntan los tantos que corresponden por no ser aceptados los envites.",
)

# -- Normas generales de mus para la provincia de Segovia (and Cuéllar) ------------------------
SEG_VARIANTES: Final = _seg("introducción", "A cuatro u 8 reyes, a 4 u 8 ases")
SEG_JUEGOS: Final = _seg("normas básicas", "Se juega a 4 juegos de 40 tantos siempre")
SEG_SIN_DEJE: Final = _seg("normas básicas", "Se juega sin deje")
SEG_NO_REAL: Final = _seg("normas básicas", "No vale la real")
CUELLAR_REAL: Final = _seg("especialidades de Cuéllar", "VALE LA 31 REAL (con tres sietes y cualquier figura)")
CUELLAR_TANTOS: Final = _seg("especialidades de Cuéllar", "juegan a 30 tantos en lugar de a 40. Siempre a 4 juegos.")

# -- Reglamento Campeonatos de Mus (Segovia) ---------------------------------------------------
REG_MUS_CORRIDO: Final = _reg(
    "Título II, art. 16", "La primera jugada de una partida es corrida y sin señas hasta que se corte el mus."
)
REG_POSTRE_ACEPTA: Final = _reg(
    "Título V, art. 6",
    "Un jugador podrá aceptar cualquier envite del más "
    "diverso número de tantos, aunque sea postre y lleve (dos ases a pares o "
    "treinta y tres a juego)",
)
POSTRE_33_PROHIBIDO: Final = _reg(
    "Título V, art. 7", "Queda expresamente prohibido querer un órdago a juego con treinta y tres de postre."
)
POSTRE_33_PENA: Final = _reg(
    "Título V, art. 8",
    "El jugador que por error o «de broma» acepta un órdago a "
    "juego y resulta que tiene treinta y tres de postre, será penalizado con dos "
    "tantos más el de negada, tres en total.",
)
POSTRE_33_VALIDA: Final = _reg(
    "Título V, art. 9",
    "Si un jugador canta pares sí o juego sí y su compañero, "
    "postre del lance, acepta un órdago a pares o juego con dos ases o treinta y "
    "tres, la jugada será válida.",
)
REG_ORDEN: Final = _reg(
    "Título VI, art. 1",
    "Para tantearse, lo mismo que para hablar se hará en el mismo "
    "orden que los lances: Grande, Chica, Pares, Juego o Punto. En cada lance se apuntará "
    "la negada o los tantos de envites revocados y no aceptados. Los envites aceptados, "
    "los lances en paso, así como el valor de las jugadas se anotaran al término de la "
    "mano por su orden.",
)
REG_PUNTO_FALTA: Final = _reg(
    "Título VI, art. 1",
    "En el envite a punto y a falta de un tanto, no se "
    "apuntará más que el tanto de negada y el de punto cuando le corresponda.",
)
REG_SENAS: Final = _reg(
    "Título VII, art. 1", "En este reglamento solamente se admitirán las señas que se relacionan a continuación."
)

# -- Euskadiko Kooperatiben arteko III. Mus Txapelketa («Araudia», «Keinuak») -------------------
EUS_40: Final = _eus("8 hamarreko edo 40 harri biltzen dituen lehen bikoteak irabaziko du.")
EUS_JOKO_PARTZIALA: Final = _eus("Joko partzial baten amaieran bikoteetako batek 35 harri baino gehiago baditu")
EUS_UTZIA: Final = _eus(
    "Aurkariek jokotik ala puntutik dagozkien harriak hartuko dituzte, bai eta “utzia” ere, hala baldin badagokie."
)
EUS_LEHEN_HARRIAK: Final = _eus(
    "gogoan izan behar da jasotzen diren lehen harriak “Ez” esateagatik edo "
    "“Paso” egiteagatik kobratzen direnak direla."
)
EUS_ORDENA: Final = _eus(
    "Bi bikoteak badira amaitzeko gertu daudenak, jokaldi bakoitzeko harriak ordena "
    "jakinean kobratzen direnez, 8 hamarreko edo 40 harri biltzen dituen lehen "
    "bikoteak irabaziko du."
)
EUS_MUS_JARRAIA: Final = _eus(
    'Nolanahi ere, “mus jarraia" jokatzeko aukera ere egongo da, eta musa mozten duena izango da “eskua”.'
)
EUS_33: Final = _eus(
    "33rekin jokoan egindako apustuari “eduki” erantzuten badiogu, apustua onartuko dugu, "
    "“baietz eduki eta galdu ez!” esan arren edo atzeskuak bagara ere."
)
EUS_KEINUAK: Final = _eus("Musaren Araudi Orokorrean jasotako Keinuak baino ezin dira erabili", "«Keinuak»")

# -- Ludoteka, «Reglas del Mus» -----------------------------------------------------------------
LUD_VACAS: Final = _lud(
    "«Objetivo del juego»",
    "Las partidas de mus se suelen jugar a ganar 2 ó 3 juegos (también denominados vacas, chicos...)",
)
LUD_MUS_CORRIDO: Final = _lud(
    "«Reparto y Descartes»", "Durante la primera mano de la partida se dice que hay mus corrido"
)
LUD_INMEDIATA: Final = _lud(
    "«Puntuación»",
    "Cuando un jugador lanza una apuesta y la pareja rival la rechaza, se contabiliza de manera inmediata",
)
LUD_ORDEN: Final = _lud(
    "«Puntuación»", "Los premios se asignan en el mismo orden de los lances: grande, pequeña, pares y juego (o punto)."
)
LUD_ORDAGO: Final = _lud(
    "«Puntuación»",
    "En caso de aceptar un órdago, se resuelve de manera inmediata, "
    "ignorando el marcador y las apuestas realizadas en la misma mano.",
)
LUD_APUESTA: Final = _lud("«Puntuación»", "Si se aceptó una apuesta, la pareja ganadora suma el valor de la apuesta.")
LUD_8_REYES: Final = _lud(
    "«Mus a 4 Reyes y Mus a 8 Reyes»",
    "Actualmente es más frecuente jugar a 8 reyes. La "
    "costumbre de jugar a 4 reyes se mantiene en Guipuzcoa, Navarra y la Rioja.",
)
LUD_REGLAS_8: Final = _lud(
    "«Mus a 4 Reyes y Mus a 8 Reyes»", "La diferencia es que al jugar a 8 reyes se aplican estas dos reglas adicionales"
)
LUD_DOSES: Final = _lud(
    "«Mus a 4 Reyes y Mus a 8 Reyes»",
    "Los doses son ases: a todos los efectos los cuatro doses de la baraja se tendrán por ases.",
)
LUD_MODO_4: Final = _lud("«Modalidades en Ludoteka»", "Mus a 4 Reyes")
LUD_JUEGOS_4: Final = _lud(
    "«Modalidades en Ludoteka»",
    "Se juega por parejas. Los juegos se disputan a 30 puntos, y vence la pareja que logra 2 juegos.",
)
LUD_MODO_8: Final = _lud("«Modalidades en Ludoteka»", "Mus a 8 Reyes Por Parejas")
LUD_JUEGOS_8: Final = _lud(
    "«Modalidades en Ludoteka»", "Los juegos se disputan a 40 puntos, y vence la pareja que logra 2 juegos."
)


def citas() -> tuple[Cita, ...]:
    """Every quote of this module (the tests check each against the texts)."""
    return tuple(v for v in globals().values() if isinstance(v, Cita))
