"""False declarations of pares and juego, and the penalties the regulations give for them.

A hand record may carry what each player declared, one value per seat (``true`` = "sí",
``false`` = "no", ``null`` = not recorded)::

    "declaraciones": {"pares": [true, false, true, null], "juego": [false, false, true, false],
                      "ensenadas": [{"asiento": 1, "lance": "pares"}]}

``ensenadas`` records a player who showed cards before the end of the juego or punto lance.
``ordago_querido`` (optional) is who said «quiero» to the hand's órdago,
``{"asiento": 3, "lance": "juego"}``: with it the 33 de postre is checked (``Reglas.ordago_33_postre``).

The penalties come from the regulation of the profile's seña set (``ConjuntoSenas.declaraciones``):

- ``segovia``: Reglamento Campeonatos de Mus (Segovia), Títulos VIII (pares), IX (juego),
  X (punto) and, for shown cards, Título V art. 11 / Título VI art. 9.
- ``euskadi``: Euskadiko Kooperatiben arteko III. Mus Txapelketa, «Araudia» (the paragraphs on
  «Pareak bai / Jokoa bai»).

Each penalty becomes a ``CorreccionLance`` for the lance it changes, at most one per lance, which
``scoring.tanteo.tantear`` applies::

    >>> from scoring.rules import perfil
    >>> manos = ["12o 12c 5e 4b", "1o 1c 6e 7b", "4o 5c 6c 7e", "10o 11c 2e 6o"]
    >>> pares, punto = correcciones({"pares": [True, True, True, None]}, manos,
    ...                             perfil("segovia"), 0)  # seat 2 said "sí" with no pares
    >>> pares.lance, pares.ganador, pares.anulados, pares.envites_validos
    ('pares', None, frozenset({2}), False)
    >>> punto.lance, punto.ganador, punto.negada, punto.razon[-20:]
    ('punto', 1, 1, 'Título VIII, art. 4)')

Where a regulation leaves a case open musmesa's reading is written in ``razon`` and here:

- "Mano del lance" / "mano del oponente" with 31 (VIII.4, IX.2) and "treinta de mano" (X.1): a
  seat of the pareja holds 31 (30) and speaks before both opponents, counting from the mano.
- VIII.1 sends to art. 4 («ver Punto 4»): hiding pares also loses the juego or punto, except
  when the pareja is mano with four kings (VIII.1's own exception covers both).
- Título III art. 3 («pérdida de todos los tantos que pudieran corresponder en la jugada»)
  is the general rule; the specific articles of Títulos VIII-X are applied instead.
- Both parejas erring in the same lance: no pareja is punished, false jugadas are annulled.
- Basque «eta enbidoa jotzen badu» (and he bets): the record does not say who bet, so any
  envite on the lance counts. The «utzia» the Basque text gives the opponents is not modelled.
- Penalties that depend on accepted envites read ``lances``; without it every lance is en paso.
- 33 de postre (Reglamento, Título V, arts. 7-9): «de postre» is read as «postre del lance»
  (art. 9's words): no other player with juego speaks after him, so his 33 loses to any juego
  of the other pareja. Art. 9 makes the acceptance valid when his partner sang «juego sí» (the
  recorded declaration, or the partner's cards when it is not recorded). The órdago does not
  stand; the other pareja takes the three tantos when the órdago is accepted (it is resolved
  then, with the cards shown), and the count goes on as after a refused envite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from scoring import textos
from scoring.cards import Hand, parse_hand
from scoring.inputs import excerpt
from scoring.jugadas import Jugada, cuarto_lance, evaluar, speaking_order
from scoring.outcomes import PASO, Ordago, Quiero
from scoring.rules import Reglas, perfil
from scoring.senas import conjunto_senas

LANCES_DECLARADOS: Final = ("pares", "juego")
_CLAVES: Final = frozenset({"pares", "juego", "ensenadas", "ordago_querido"})
_SI: Final = {True: True, False: False, "si": True, "sí": True, "no": False, None: None}
_LANCES_ENSENAR: Final = ("grande", "chica", "pares", "juego", "punto")


@dataclass(frozen=True, slots=True)
class CorreccionLance:
    """A change a penalty (a false declaration, a card shown too early) makes to one lance.

    ganador: pareja that wins the lance by the penalty (None: decided by the cards).
    anulados: seats whose jugada does not count in that lance (no bonus, not compared).
    negada: tantos "de negada" given to ``ganador`` as their own apunte.
    envites_validos: False voids the accepted envites of that lance (it is scored en paso).
    razon: plain Spanish, with the article.
    al_momento: the negada is taken during the betting, in lance order (when the fault is seen
        as the órdago is resolved), not in the count at the end of the hand.
    """

    lance: str
    ganador: int | None = None
    anulados: frozenset[int] = frozenset()
    negada: int = 0
    envites_validos: bool = True
    razon: str = ""
    al_momento: bool = False


@dataclass(frozen=True, slots=True)
class Falta:
    """One false declaration (or cards shown too early) and the article that judges it.

    tipo: ``oculta`` (said "no" and holds it), ``falsa`` (said "sí" and does not hold it),
    ``ensenada`` (showed cards during the lances) or ``postre_33`` (accepted an órdago at juego
    with 33 de postre, where the profile forbids it).
    """

    asiento: int
    lance: str
    tipo: str
    declarado: bool | None
    real: bool
    articulo: str

    @property
    def pareja(self) -> int:
        return self.asiento % 2

    def texto(self) -> str:
        if self.tipo == "ensenada":
            return f"asiento {self.asiento} enseñó las cartas en el lance de {self.lance}"
        if self.tipo == "postre_33":
            return f"asiento {self.asiento} quiso el órdago a juego con treinta y tres de postre"
        if self.tipo == "oculta":
            return f"asiento {self.asiento} dijo «{self.lance} no» y tiene {self.lance}"
        return (
            f"asiento {self.asiento} cantó {self.lance} sin tenerlos"
            if self.lance == "pares"
            else f"asiento {self.asiento} cantó juego sin tenerlo"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "asiento": self.asiento,
            "lance": self.lance,
            "tipo": self.tipo,
            "declarado": self.declarado,
            "real": self.real,
            "articulo": self.articulo,
            "texto": self.texto(),
        }


# -- input --------------------------------------------------------------------------------------


def leer_declaraciones(declaraciones: Any) -> dict[str, Any]:
    """Validate and normalise the record's ``declaraciones`` (raises ValueError, one line)."""
    if not isinstance(declaraciones, Mapping):
        raise ValueError("declaraciones debe ser un objeto {pares: [...], juego: [...]}")
    unknown = sorted(set(declaraciones) - _CLAVES)
    if unknown:
        raise ValueError(f"clave desconocida en declaraciones: {excerpt(', '.join(unknown))}")
    out: dict[str, Any] = {}
    for lance in LANCES_DECLARADOS:
        value = declaraciones.get(lance, [None] * 4)
        if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 4:
            raise ValueError(f"declaraciones.{lance} debe ser una lista de 4 valores, uno por asiento")
        out[lance] = tuple(_si_no(lance, seat, v) for seat, v in enumerate(value))
    ensenadas = declaraciones.get("ensenadas", [])
    if isinstance(ensenadas, str) or not isinstance(ensenadas, Sequence):
        raise ValueError('declaraciones.ensenadas debe ser una lista de {"asiento", "lance"}')
    out["ensenadas"] = tuple(_ensenada(e) for e in ensenadas)
    querido = declaraciones.get("ordago_querido")
    out["ordago_querido"] = None if querido is None else _ensenada(querido, "ordago_querido")
    return out


def _si_no(lance: str, seat: int, value: Any) -> bool | None:
    # 0, 1 and 1.0 equal False and True as dict keys, but they are not a declaration
    key = value.strip().lower() if isinstance(value, str) else value
    if (value is None or isinstance(value, bool | str)) and key in _SI:
        return _SI[key]
    raise ValueError(f'declaraciones.{lance}[{seat}]: se espera true, false, "si", "no" o null; no {excerpt(value)}')


def _ensenada(value: Any, clave: str = "ensenadas") -> tuple[int, str]:
    """A seat and a lance: an entry of ``ensenadas``, or ``ordago_querido``."""
    if not isinstance(value, Mapping) or set(value) != {"asiento", "lance"}:
        que = "cada entrada de ensenadas" if clave == "ensenadas" else clave
        raise ValueError(f'{que} es {{"asiento": 0-3, "lance": ...}}')
    seat, lance = value["asiento"], value["lance"]
    if type(seat) is not int or seat not in (0, 1, 2, 3):  # true and 1.0 are not seats
        raise ValueError(f"{clave}: asiento {excerpt(seat)} (0-3)")
    if not isinstance(lance, str) or lance not in _LANCES_ENSENAR:
        raise ValueError(f"{clave}: lance {excerpt(lance)} ({', '.join(_LANCES_ENSENAR)})")
    return seat, lance


# -- the faults ----------------------------------------------------------------------------------

# The documents cited, by the names they give themselves.
_REGLAMENTO: Final = "Reglamento Campeonatos de Mus (Segovia)"
_TXAPELKETA: Final = "Euskadiko Kooperatiben arteko III. Mus Txapelketa"
_ART_SEG: Final = {
    ("pares", "oculta"): f"{_REGLAMENTO}, Título VIII, art. 1",
    ("pares", "falsa"): f"{_REGLAMENTO}, Título VIII, arts. 2 y 3",
    ("juego", "oculta"): f"{_REGLAMENTO}, Título IX, art. 1",
    ("juego", "falsa"): f"{_REGLAMENTO}, Título IX, art. 2",
    ("punto", "oculta"): f"{_REGLAMENTO}, Título X, art. 2",
    ("punto", "falsa"): f"{_REGLAMENTO}, Título X, art. 1",
}
_ART_SEG_TODOS: Final = f"{_REGLAMENTO}, Títulos VIII-X"
_ART_EUS: Final = f"{_TXAPELKETA}, «Araudia» («Pareak bai / Jokoa bai»)"
_ART_ENSENAR: Final = f"{_REGLAMENTO}, Título V, art. 11 y Título VI, art. 9"
_ART_ENSENAR_EUS: Final = (
    f"{_TXAPELKETA}, «Araudia» («Kartak ezin dira erakutsi jokoa amaitu arte»; el texto no da sanción)"
)
_ART_33: Final = f"{_REGLAMENTO}, Título V, arts. 7 y 8"


def faltas(
    declaraciones: Any,
    manos: Sequence[Hand | str],
    reglas: Reglas | str | Mapping[str, Any],
    mano: int | None = None,
) -> list[Falta]:
    """Every false declaration and shown card of the hand, with its article; with the ``mano``,
    also an órdago at juego accepted with 33 de postre where the profile forbids it.

    >>> faltas({"juego": [False, True, None, None]}, ["12o 12c 5e 4b", "1o 1c 6e 7b",
    ...         "4o 5c 6c 7e", "10o 11c 1e 2o"], "segovia")[0].texto()
    'asiento 1 cantó juego sin tenerlo'

    «Queda expresamente prohibido querer un órdago a juego con treinta y tres de postre»
    (Reglamento, Título V, art. 7): seat 3, the last to speak, holds 33 and his partner none.

    >>> postre = ["12o 11c 10e 1b", "4o 5c 6e 7b", "4c 5e 6c 7e", "12c 11e 6o 7o"]
    >>> [f.texto() for f in faltas({"ordago_querido": {"asiento": 3, "lance": "juego"}}, postre,
    ...                            "segovia", mano=0)]
    ['asiento 3 quiso el órdago a juego con treinta y tres de postre']
    >>> faltas({"ordago_querido": {"asiento": 3, "lance": "juego"}}, postre, "euskadi", mano=0)
    []
    """
    decl = leer_declaraciones(declaraciones)
    reglas = perfil(reglas)
    jugadas = _jugadas(manos, reglas)
    regimen = _regimen(reglas)
    cuarto = cuarto_lance(jugadas)
    out = []
    for lance in LANCES_DECLARADOS:
        for seat, said in enumerate(decl[lance]):
            real = jugadas[seat].pares is not None if lance == "pares" else jugadas[seat].juego
            if said is None or said == real:
                continue
            tipo = "oculta" if real else "falsa"
            judged = lance if lance == "pares" else cuarto
            art = _ART_EUS if regimen == "euskadi" else _ART_SEG[judged, tipo]
            out.append(Falta(seat, lance, tipo, said, real, art))
    for seat, lance in decl["ensenadas"]:
        art = _ART_ENSENAR_EUS if regimen == "euskadi" else _ART_ENSENAR
        out.append(Falta(seat, lance, "ensenada", None, True, art))
    if mano is not None and reglas.ordago_33_postre == "penalizado":
        postre = postre_33(jugadas, _mano_valida(mano), decl)
        if postre is not None:
            out.append(Falta(postre, "juego", "postre_33", None, True, _ART_33))
    return out


def postre_33(jugadas: Sequence[Jugada], mano: int, decl: Mapping[str, Any]) -> int | None:
    """The seat that said «quiero» to an órdago at juego holding 33 de postre, unless its partner
    sang «juego sí» (Reglamento, Título V, art. 9); None otherwise. ``decl`` as read by
    ``leer_declaraciones``. «De postre» is «postre del lance»: nobody with juego speaks after him.
    """
    querido = decl.get("ordago_querido")
    if querido is None or querido[1] != "juego":
        return None
    seat = querido[0]
    if not jugadas[seat].juego or jugadas[seat].valor != 33:
        return None
    order = speaking_order(mano)
    if any(jugadas[s].juego for s in order[order.index(seat) + 1 :]):
        return None  # somebody with juego speaks after him: he is not postre del lance
    partner = (seat + 2) % 4
    said = decl["juego"][partner]
    return None if (jugadas[partner].juego if said is None else said) else seat


def _mano_valida(mano: Any) -> int:
    if type(mano) is not int or mano not in (0, 1, 2, 3):
        raise ValueError(f"mano debe ser un asiento de 0 a 3, no {excerpt(mano)}")
    return mano


def _jugadas(manos: Sequence[Hand | str], reglas: Reglas) -> list[Jugada]:
    if isinstance(manos, str) or len(manos) != 4:
        raise ValueError("se esperan las 4 manos, una por asiento")
    return [evaluar(m if isinstance(m, Hand) else parse_hand(m), reglas) for m in manos]


def _regimen(reglas: Reglas) -> str:
    regimen = conjunto_senas(reglas.senas).declaraciones
    if regimen not in ("segovia", "euskadi"):
        raise ValueError(f"reglamento de declaraciones desconocido {regimen!r}")
    return regimen


# -- the penalties -------------------------------------------------------------------------------


def correcciones(
    declaraciones: Any,
    manos: Sequence[Hand | str],
    reglas: Reglas | str | Mapping[str, Any],
    mano: int,
    lances: Mapping[str, Any] | None = None,
) -> list[CorreccionLance]:
    """The corrections the declarations make to the tanteo: at most one per lance.

    ``lances`` is the record's ``lances`` (values as in the JSON, or scoring.outcomes.Lance);
    None or a missing lance means it was played en paso. Penalties that depend on accepted
    envites (Segovia VIII.2, IX.2; the Basque "eta enbidoa jotzen badu") need it.
    """
    reglas = perfil(reglas)
    mano = _mano_valida(mano)
    jugadas = _jugadas(manos, reglas)
    fs = faltas(declaraciones, manos, reglas)
    ctx = _Contexto(jugadas, mano, lances or {}, cuarto_lance(jugadas), leer_declaraciones(declaraciones))
    juez = _euskadi if _regimen(reglas) == "euskadi" else _segovia
    return _fusionar(juez(fs, ctx) + _ordago_33(reglas, ctx))


def _ordago_33(reglas: Reglas, ctx: _Contexto) -> list[CorreccionLance]:
    """The 33 de postre: the profile's rule, penalty or a note that the bet stands.

    With the Reglamento the órdago does not stand and the other pareja takes «dos tantos más el
    de negada, tres en total» when it is accepted; the Basque «Araudia» keeps the bet.
    """
    querido = ctx.decl["ordago_querido"]
    if querido is None:
        return []
    if not ctx.ordago(querido[1]):
        raise ValueError(f"ordago_querido: no hay un órdago querido a {querido[1]} en los lances")
    seat = postre_33(ctx.jugadas, ctx.mano, ctx.decl)
    if seat is None:
        return []
    quien = f"{_quien({seat})} quiso el órdago a juego con treinta y tres de postre"
    if reglas.ordago_33_postre == "penalizado":
        otra = 1 - seat % 2
        return [
            CorreccionLance(
                "juego",
                otra,
                frozenset(),
                3,
                False,
                f"{quien}: no vale, y la pareja {otra} se apunta dos tantos más el de negada "
                f"({textos.POSTRE_33_PROHIBIDO}; {textos.POSTRE_33_PENA})",
                al_momento=True,
            )
        ]
    return [
        CorreccionLance("juego", razon=f"{quien}: la apuesta vale ({reglas.fuente_de('ordago_33_postre').texto()})")
    ]


@dataclass(frozen=True)
class _Contexto:
    jugadas: Sequence[Jugada]
    mano: int
    lances: Mapping[str, Any]
    cuarto: str  # "juego" or "punto": the fourth lance the cards decide
    decl: Mapping[str, Any]

    def negaron(self, pareja: int, lance: str) -> bool:
        """Both players of the pareja said "no" to the lance."""
        return all(self.decl[lance][s] is False for s in range(4) if s % 2 == pareja)

    def orden(self, seat: int) -> int:
        """The seat's turn to speak: 0 for the mano."""
        return speaking_order(self.mano).index(seat)

    def ordago(self, lance: str) -> bool:
        """An órdago was accepted on this lance."""
        value = self._lance(lance)
        return isinstance(value, Ordago) or (isinstance(value, Mapping) and "ordago" in value)

    def aceptado(self, lance: str) -> bool:
        """An envite (or órdago) was accepted on this lance."""
        value = self._lance(lance)
        if isinstance(value, Quiero | Ordago):
            return True
        return isinstance(value, Mapping) and ("quiero" in value or "ordago" in value)

    def envidado(self, lance: str) -> bool:
        """Any envite was made on this lance, accepted or not."""
        return self._lance(lance) not in (None, "paso", PASO)

    def _lance(self, lance: str) -> object:
        """The lance's value: a scoring.outcomes.Lance, or its JSON."""
        if lance in ("juego", "punto"):
            return self.lances.get("juego", self.lances.get("punto"))
        return self.lances.get(lance)

    def ganador(self, lance: str, sin: frozenset[int] = frozenset()) -> int | None:
        """Pareja that wins the lance on the cards, leaving out the seats in ``sin``."""
        best_seat, best_key = None, None
        for seat in speaking_order(self.mano):
            key = None if seat in sin else self.jugadas[seat].clave(lance)
            if key is not None and (best_key is None or key > best_key):
                best_seat, best_key = seat, key
        return None if best_seat is None else best_seat % 2

    def delante_con(self, pareja: int, valor: int) -> bool:
        """A seat of ``pareja`` holds ``valor`` (31, 30) and speaks before both opponents."""
        rivals = [s for s in range(4) if s % 2 != pareja]
        return any(
            self.jugadas[s].valor == valor and all(self.orden(s) < self.orden(r) for r in rivals)
            for s in range(4)
            if s % 2 == pareja
        )

    def mano_con(self, pareja: int, test: Any) -> bool:
        return self.mano % 2 == pareja and test(self.jugadas[self.mano])


def _cuatro(jugada: Jugada, rango: int) -> bool:
    return jugada.rangos.count(rango) == 4


def _segovia(fs: Sequence[Falta], ctx: _Contexto) -> list[CorreccionLance]:
    out: list[CorreccionLance] = []
    dichas = [f for f in fs if f.tipo != "ensenada"]
    pares = [f for f in dichas if f.lance == "pares"]
    for pareja in _parejas(pares, out, "pares", _ART_SEG_TODOS):
        mias = [f for f in pares if f.pareja == pareja]
        out.extend(_seg_pares(mias, pareja, ctx))
        out.extend(_seg_pares_en_juego(mias, pareja, ctx))
    juego = [f for f in dichas if f.lance == "juego"]
    for pareja in _parejas(juego, out, ctx.cuarto, _ART_SEG_TODOS):
        mias = [f for f in juego if f.pareja == pareja]
        out.extend(_seg_juego(mias, pareja, ctx) if ctx.cuarto == "juego" else _seg_punto(mias, pareja, ctx))
    out.extend(_ensenadas([f for f in fs if f.tipo == "ensenada"], ctx))
    return out


def _parejas(fs: Sequence[Falta], out: list[CorreccionLance], lance: str, articulo: str) -> list[int]:
    """Parejas to judge; when both erred in the same lance the penalties cancel and only
    the false jugadas are annulled (musmesa's reading: the texts only foresee one culprit)."""
    parejas = sorted({f.pareja for f in fs})
    if len(parejas) < 2:
        return parejas
    seats = frozenset(f.asiento for f in fs if f.tipo == "oculta")
    out.append(
        CorreccionLance(
            lance,
            None,
            seats,
            0,
            True,
            f"errores de declaración de las dos parejas en {lance}: no hay "
            f"sanción, sólo se anulan las jugadas ocultadas ({articulo} sólo prevé "
            "un infractor; lectura de musmesa)",
        )
    )
    return []


def _seg_pares(fs: Sequence[Falta], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    otra = 1 - pareja
    ocultas = frozenset(f.asiento for f in fs if f.tipo == "oculta")
    liars = frozenset(f.asiento for f in fs if f.tipo == "falsa")
    if ocultas:
        if ctx.mano_con(pareja, lambda j: _cuatro(j, 12)):
            return [
                CorreccionLance(
                    "pares",
                    None,
                    frozenset(),
                    0,
                    True,
                    "la pareja que ocultó pares es mano con cuatro reyes: "
                    f"no hay sanción ({_REGLAMENTO}, Título VIII, art. 1)",
                )
            ]
        return [
            CorreccionLance(
                "pares",
                otra,
                ocultas | liars,
                1,
                True,
                f"{_quien(ocultas)} no cantó pares teniéndolos; los pares "
                f"son de la pareja {otra} más un tanto de negada "
                f"({_REGLAMENTO}, Título VIII, art. 1)",
            )
        ]
    wins = ctx.ganador("pares", liars)
    accepted = ctx.aceptado("pares")
    if wins == pareja:  # voiding is a no-op en paso, so it does not depend on ``lances``
        return [
            CorreccionLance(
                "pares",
                None,
                liars,
                0,
                False,
                f"{_quien(liars)} cantó pares sin tenerlos; gana su compañero, "
                "pero sólo el valor de sus pares, en paso "
                f"({_REGLAMENTO}, Título VIII, arts. 2 y 3)",
            )
        ]
    return [
        CorreccionLance(
            "pares",
            otra,
            liars,
            0 if accepted else 1,
            True,
            f"{_quien(liars)} cantó pares sin tenerlos; la pareja {otra} no "
            "pierde: gana "
            + ("los envites" if accepted else "los pares más la negada")
            + f" ({_REGLAMENTO}, Título VIII, arts. 2 y 3)",
        )
    ]


def _seg_pares_en_juego(fs: Sequence[Falta], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    """Título VIII art. 4: an error at pares also loses the juego (or punto)."""
    lance, otra = ctx.cuarto, 1 - pareja
    if ctx.mano_con(pareja, lambda j: _cuatro(j, 12)) and all(f.tipo == "oculta" for f in fs):
        return []
    if lance == "juego" and ctx.delante_con(pareja, 31):
        return [
            CorreccionLance(
                lance,
                pareja,
                frozenset(),
                0,
                False,
                f"error a pares de la pareja {pareja}, que es mano con 31 "
                f"y gana el juego en paso ({_REGLAMENTO}, Título VIII, art. 4)",
            )
        ]
    valid = ctx.ganador(lance) == otra
    void = ctx.aceptado(lance) and not valid
    return [
        CorreccionLance(
            lance,
            otra,
            frozenset(),
            1,
            valid,
            f"error a pares de la pareja {pareja}: la pareja {otra} "
            "gana el "
            + lance
            + " con un tanto de negada"
            + ("; los envites son nulos porque los perdía" if void else "")
            + f" ({_REGLAMENTO}, Título VIII, art. 4)",
        )
    ]


def _seg_juego(fs: Sequence[Falta], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    otra = 1 - pareja
    ocultas = frozenset(f.asiento for f in fs if f.tipo == "oculta")
    liars = frozenset(f.asiento for f in fs if f.tipo == "falsa")
    out = []
    if ocultas:
        if ctx.ganador("juego", ocultas) is None:
            return _todos_no_juego(ocultas)
        out.append(
            CorreccionLance(
                "juego",
                None,
                ocultas,
                0,
                True,
                f"{_quien(ocultas)} no cantó su juego; su jugada es nula "
                f"aunque su compañero gane ({_REGLAMENTO}, Título IX, art. 1)",
            )
        )
    if liars:
        if ctx.delante_con(pareja, 31):
            out.append(
                CorreccionLance(
                    "juego",
                    pareja,
                    liars,
                    0,
                    False,
                    f"{_quien(liars)} cantó juego sin tenerlo; su compañero "
                    "es mano del lance con 31 y lo gana en paso "
                    f"({_REGLAMENTO}, Título IX, art. 2)",
                )
            )
        else:
            accepted = ctx.aceptado("juego")
            valid = ctx.ganador("juego", liars) != pareja
            out.append(
                CorreccionLance(
                    "juego",
                    otra,
                    liars,
                    0 if accepted else 1,
                    valid,
                    f"{_quien(liars)} cantó juego sin tenerlo; su pareja no "
                    f"puede ganarlo, lo gana la pareja {otra}"
                    + ("" if accepted else " con un tanto de negada")
                    + (", con sus envites" if accepted and valid else "")
                    + (", sin envites" if accepted and not valid else "")
                    + f" ({_REGLAMENTO}, Título IX, art. 2)",
                )
            )
    return out


def _todos_no_juego(ocultas: frozenset[int]) -> list[CorreccionLance]:
    """Título X art. 2: nobody (else) declared juego; the hidden juego does not count and the
    lance is played as punto, in which the hidden jugada does not count either."""
    razon = (
        f"{_quien(ocultas)} dijo «juego no» teniéndolo: su jugada no es válida y se "
        f"juega el punto ({_REGLAMENTO}, Título X, art. 2)"
    )
    return [
        CorreccionLance("juego", None, ocultas, 0, True, razon),
        CorreccionLance("punto", None, ocultas, 0, True, razon),
    ]


def _seg_punto(fs: Sequence[Falta], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    """Título X art. 1: juego declared, nobody holds juego, the punto is played."""
    liars = frozenset(f.asiento for f in fs if f.tipo == "falsa")
    if not liars:
        return []
    otra = 1 - pareja
    if ctx.delante_con(pareja, 30):
        return [
            CorreccionLance(
                "punto",
                pareja,
                frozenset(),
                0,
                False,
                f"{_quien(liars)} cantó juego sin tenerlo; su pareja tiene "
                "treinta de mano y gana el punto en paso "
                f"({_REGLAMENTO}, Título X, art. 1)",
            )
        ]
    return [
        CorreccionLance(
            "punto",
            otra,
            liars,
            1,
            True,
            f"{_quien(liars)} cantó juego sin tenerlo y no rectificó; la "
            f"pareja {otra} gana el punto con un tanto de negada "
            f"({_REGLAMENTO}, Título X, art. 1)",
        )
    ]


def _ensenadas(fs: Sequence[Falta], ctx: _Contexto) -> list[CorreccionLance]:
    """Cards shown during the lances, Segovia: with no accepted envite on that lance the other
    pareja wins it with a tanto de negada, unless the culprits are mano with four kings, four
    aces, 31 or 30 (then they win it in paso). Título V art. 11 and Título VI art. 9 agree on
    that; they disagree on whether the partner is bound to the same (the record's lances
    already say what was accepted) and V.11 also gives the lance with negada when envites were
    accepted, where VI.9 says nothing: musmesa follows VI.9 and lets the cards decide."""
    out = []
    for f in fs:
        lance = ctx.cuarto if f.lance in ("juego", "punto") else f.lance
        fuerte = ctx.mano_con(f.pareja, lambda j: _cuatro(j, 12) or _cuatro(j, 1) or j.valor in (30, 31))
        if fuerte:
            out.append(
                CorreccionLance(
                    lance,
                    f.pareja,
                    frozenset(),
                    0,
                    False,
                    f"{_quien({f.asiento})} enseñó las "
                    "cartas; su pareja es mano con cuatro reyes, cuatro ases, 31 o "
                    f"30 y gana en paso ({_ART_ENSENAR})",
                )
            )
            continue
        if ctx.aceptado(lance):
            continue  # VI.9 only rules «si no hubiera envites queridos»: the cards decide
        out.append(
            CorreccionLance(
                lance,
                1 - f.pareja,
                frozenset(),
                1,
                True,
                f"{_quien({f.asiento})} enseñó las cartas; la pareja "
                f"{1 - f.pareja} gana el lance con un tanto de negada "
                f"({_ART_ENSENAR})",
            )
        )
    return out


def _euskadi(fs: Sequence[Falta], ctx: _Contexto) -> list[CorreccionLance]:
    out: list[CorreccionLance] = []
    for lance in LANCES_DECLARADOS:
        mine = [f for f in fs if f.lance == lance and f.tipo != "ensenada"]
        judged = lance if lance == "pares" else ctx.cuarto
        for pareja in _parejas(mine, out, judged, _ART_EUS):
            out.extend(_eus(lance, judged, [f for f in mine if f.pareja == pareja], pareja, ctx))
    # «Kartak ezin dira erakutsi jokoa amaitu arte»: forbidden, but with no penalty given.
    return out


def _eus(lance: str, judged: str, fs: Sequence[Falta], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    otra = 1 - pareja
    ocultas = frozenset(f.asiento for f in fs if f.tipo == "oculta")
    liars = frozenset(f.asiento for f in fs if f.tipo == "falsa")
    out = []
    if ocultas:
        denied_all = ctx.negaron(pareja, lance)
        out.append(
            CorreccionLance(
                judged,
                otra if denied_all else None,
                ocultas,
                1 if denied_all else 0,
                True,
                f"{_quien(ocultas)} dijo que no tenía "
                f"{lance} y lo tiene: su jugada no cuenta"
                + (f"; la pareja {otra} cobra un tanto por negarlo" if denied_all else "")
                + f" ({_ART_EUS})",
            )
        )
    if liars:
        out.extend(_eus_falsa(lance, judged, liars, pareja, ctx))
    return out


def _eus_falsa(lance: str, judged: str, liars: frozenset[int], pareja: int, ctx: _Contexto) -> list[CorreccionLance]:
    otra = 1 - pareja
    both = frozenset(s for s in range(4) if s % 2 == pareja)
    if lance == "pares" and not any(ctx.jugadas[s].pares for s in range(4) if s % 2 == otra):
        razon = (
            f"{_quien(liars)} dijo tener pares sin tenerlos y la pareja {otra} no tiene "
            "pares: pares y el lance siguiente no valen para su pareja; los contrarios "
            f"cobran el juego o el punto ({_ART_EUS}; la «utzia» no se modela)"
        )
        return [
            CorreccionLance("pares", None, both, 0, True, razon),
            CorreccionLance(ctx.cuarto, otra, both, 0, True, razon),
        ]
    if ctx.envidado(judged):
        return [
            CorreccionLance(
                judged,
                otra,
                liars,
                0,
                True,
                f"{_quien(liars)} dijo tener {lance} sin "
                f"tenerlo y hubo envite: gana la pareja {otra} aunque el compañero "
                f"tenga mejor jugada ({_ART_EUS}; musmesa supone que envidó su pareja)",
            )
        ]
    return [
        CorreccionLance(
            judged,
            None,
            liars,
            0,
            True,
            f"{_quien(liars)} dijo tener {lance} sin tenerlo; sin envite el texto no da más sanción ({_ART_EUS})",
        )
    ]


def _quien(seats: Any) -> str:
    seats = sorted(seats)
    return ("asiento " if len(seats) == 1 else "asientos ") + " y ".join(map(str, seats))


def _fusionar(cs: Sequence[CorreccionLance]) -> list[CorreccionLance]:
    """One correction per lance: annulments add up, one negada at most, envites void if any
    penalty voids them; two penalties that give the lance to different parejas cancel out."""
    out: dict[str, CorreccionLance] = {}
    for c in cs:
        prev = out.get(c.lance)
        if prev is None:
            out[c.lance] = c
            continue
        ganador = prev.ganador if c.ganador is None else c.ganador
        conflict = None not in (prev.ganador, c.ganador) and prev.ganador != c.ganador
        out[c.lance] = replace(
            prev,
            ganador=None if conflict else ganador,
            anulados=prev.anulados | c.anulados,
            negada=0 if conflict else max(prev.negada, c.negada),
            envites_validos=prev.envites_validos and c.envites_validos,
            al_momento=prev.al_momento or c.al_momento,
            razon=f"{prev.razon}; {c.razon}" + (" (sanciones opuestas: se anulan)" if conflict else ""),
        )
    order = {"grande": 0, "chica": 1, "pares": 2, "juego": 3, "punto": 4}
    return sorted(out.values(), key=lambda c: order[c.lance])


def parejas_declaradas(
    declaraciones: Any,
    manos: Sequence[Hand | str],
    reglas: Reglas | str | Mapping[str, Any],
    lance: str,
) -> tuple[bool, bool]:
    """Whether each pareja held the lance's jugada *as declared at the table* (a recorded
    declaration wins over the cards). A lance could be bet when both are True, even if the
    cards later show one of them lied.

    >>> parejas_declaradas({"pares": [True, None, None, None]},
    ...     ["12o 5c 6e 7b", "1o 1c 6c 7e", "4o 5o 10c 11e", "2e 3c 4e 6b"], "ludoteka-4", "pares")
    (True, True)
    """
    if lance not in LANCES_DECLARADOS:
        raise ValueError(f"lance {lance!r}: sólo se declaran pares y juego")
    decl = leer_declaraciones(declaraciones)[lance]
    reglas = perfil(reglas)
    jugadas = _jugadas(manos, reglas)
    real = [(j.pares is not None) if lance == "pares" else j.juego for j in jugadas]
    held = [real[s] if decl[s] is None else decl[s] for s in range(4)]
    return (held[0] or held[2], held[1] or held[3])


__all__ = ["Falta", "correcciones", "faltas", "leer_declaraciones", "parejas_declaradas"]
