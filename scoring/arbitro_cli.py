"""`mus arbitro`: check a player's señas against their cards, or say which señas a hand allows.

    mus arbitro --cartas "12o 12c 3e 1b" [--perfil NAME] [--json]
        the señas the hand entitles, the complete one, and the forbidden ones, with articles
    mus arbitro --senas EVENTS.json --cartas "12o 12c 3e 1b" [--perfil NAME] [--fase F]
                [--primera-mano] [--json]
        the findings about the señas in EVENTS.json (the output of `mus senas --json`, optionally
        with the referee's phase marks "fases": [{"fase": "reparto", "inicio": 0.0}, ...])
    mus arbitro --listar [--perfil NAME | --conjunto NAME]
        the profile's rules, each value with the words of the text it comes from (or marked as
        musmesa's choice) and the order stones are collected in; then its seña set: each seña
        with its gestures and article, the forbidden moments, and where the sources disagree
    mus arbitro --declaraciones HAND.json [--json]
        the faults in a hand record's declaraciones (pares, juego, cards shown, an órdago at
        juego accepted with 33 de postre), each with its article, and what they change in the
        tanteo
    mus arbitro --verificar LOG.json [--sello S] [--clave-archivo F]
        whether a referee log's hash chain is intact (exit 1 if it was altered)

``--cartas-json FILE`` (or ``-``) takes the cards from JSON instead: the output of
`mus leer --json PHOTO` (its ``cartas``, four detections of the watched player's cards, or with
``--asiento N`` the seat's ids from ``asientos``), a hand string or a list of four card ids.
Bad input exits with status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scoring.arbitro import comprobar_senas, senas_permitidas
from scoring.cards import NotationError, parse_hand
from scoring.cli import fail
from scoring.declaraciones import correcciones, faltas
from scoring.inputs import InputError, excerpt, read_json
from scoring.registro import verificar
from scoring.rules import Reglas, cargar_perfil, orden_de_cobro, perfil
from scoring.senas import FASES, ConjuntoSenas, conjunto_senas
from scoring.tanteo import RegistroMano, RegistroManoError
from scoring.textos import Fuente


class _Entrada(ValueError):
    """Bad command-line input (a file that cannot be read, malformed JSON)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--senas", metavar="EVENTS.json", help="eventos de señas (salida de `mus senas --json`), o '-' para stdin"
    )
    cards = parser.add_mutually_exclusive_group()
    cards.add_argument("--cartas", metavar="MANO", help='las cuatro cartas, p. ej. "12o 12c 3e 1b"')
    cards.add_argument(
        "--cartas-json", metavar="FILE", help="las cartas en JSON (texto, lista de 4 o objeto con 'cartas')"
    )
    parser.add_argument(
        "--asiento", type=int, choices=range(4), help="con --cartas-json de una foto de la mesa: el asiento del jugador"
    )
    parser.add_argument(
        "--perfil", default="general", help="perfil de reglas (general, segovia, euskadi...) o archivo .toml"
    )
    parser.add_argument("--conjunto", help="conjunto de señas, si no es el del perfil")
    parser.add_argument("--fase", choices=FASES, help="fase de todas las señas, si el archivo no trae marcas de fase")
    parser.add_argument(
        "--primera-mano", action="store_true", help="primera mano de la partida (sin señas hasta cortar el mus)"
    )
    parser.add_argument("--confianza-min", type=float, default=0.0, help="ignora eventos con menos confianza (0-1)")
    parser.add_argument(
        "--listar", action="store_true", help="muestra el conjunto de señas del perfil y sus desacuerdos"
    )
    parser.add_argument(
        "--declaraciones",
        metavar="HAND.json",
        help="faltas de declaración de un registro de mano (como el de `mus tanteo`)",
    )
    parser.add_argument("--verificar", metavar="LOG.json", help="verifica un registro del árbitro")
    parser.add_argument("--sello", help="sello escrito en el acta, para --verificar")
    parser.add_argument("--clave-archivo", metavar="F", help="clave HMAC del registro, para --verificar")
    parser.add_argument("--json", action="store_true", help="salida en JSON")


def run(args: argparse.Namespace) -> int:
    try:
        if args.verificar:
            return _verificar(args)
        if args.listar:
            return _listar(args)
        if args.declaraciones:
            return _declaraciones(args)
        return _arbitrar(args)
    except (_Entrada, ValueError) as exc:  # NotationError, PerfilError, SenasError included
        return fail(_una_linea(exc), args.json)


def _una_linea(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _arbitrar(args: argparse.Namespace) -> int:
    if not (args.cartas or args.cartas_json):
        raise _Entrada("falta --cartas (o --cartas-json): las cuatro cartas del jugador")
    if not 0.0 <= args.confianza_min <= 1.0:
        raise _Entrada(f"--confianza-min debe estar entre 0 y 1, no {args.confianza_min}")
    reglas = _reglas(args.perfil)
    hand = parse_hand(args.cartas) if args.cartas else _cartas_json(_leer_json(args.cartas_json), args.asiento)
    if not args.senas:
        result: Any = senas_permitidas(hand, reglas, args.conjunto)
    else:
        data = _leer_json(args.senas)
        eventos, fases, primera = _eventos(data, args.senas)
        result = comprobar_senas(
            eventos,
            hand,
            reglas,
            args.fase or fases,
            primera_mano=args.primera_mano or primera,
            conjunto=args.conjunto,
            confianza_min=args.confianza_min,
        )
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2, allow_nan=False))
    else:
        print(result.texto())
    return 0


def _reglas(spec: str) -> Reglas:
    if spec.endswith(".toml"):
        return cargar_perfil(spec)
    return perfil(spec)


def _leer_json(path: str) -> Any:
    try:
        return read_json(path)
    except InputError as exc:
        raise _Entrada(str(exc)) from None


def _eventos(data: Any, path: str) -> tuple[list[Any], Any, bool]:
    """Events, phase marks and the first-hand flag from `mus senas --json` output or a list."""
    if isinstance(data, list):
        return data, None, False
    if not isinstance(data, dict) or not isinstance(data.get("eventos"), list):
        raise _Entrada(f"{excerpt(path)}: se espera un objeto con 'eventos' (salida de `mus senas --json`)")
    primera = data.get("primera_mano", False)
    if not isinstance(primera, bool):
        raise _Entrada(f"{excerpt(path)}: primera_mano debe ser true o false")
    return data["eventos"], data.get("fases"), primera


def _cartas_json(data: Any, asiento: int | None) -> Any:
    """Four cards from `mus leer --json` output (one image), a list of ids or a hand string."""
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]  # `mus leer` on one image inside an array
    if isinstance(data, dict):
        data = _de_foto(data, asiento)
    if isinstance(data, list):
        _avisar_dudosas(data)
        ids = [c.get("carta") if isinstance(c, dict) else c for c in data]
        texts = [c for c in ids if isinstance(c, str)]
        if len(texts) != len(ids):
            raise _Entrada("las cartas deben ser textos como '12o'")
        data = " ".join(texts)
    if not isinstance(data, str):
        raise _Entrada('las cartas deben ser un texto como "12o 12c 3e 1b" o una lista')
    try:
        return parse_hand(data)
    except NotationError as exc:
        raise _Entrada(f"cartas leídas: {exc}") from None


def _avisar_dudosas(cards: list[Any]) -> None:
    """The card reader flags low-confidence cards: the referee should look at them."""
    for c in cards:
        if isinstance(c, dict) and c.get("dudosa"):
            alt = f" (¿o {excerpt(c['alternativa'], 8)}?)" if c.get("alternativa") else ""
            print(
                f"mus arbitro: aviso: la carta {excerpt(c.get('carta'), 8)} se leyó con poca "
                f"confianza{alt}; compruébala",
                file=sys.stderr,
            )


def _de_foto(data: dict[str, Any], asiento: int | None) -> Any:
    if asiento is not None:
        seats = data.get("asientos")
        if not isinstance(seats, list) or len(seats) != 4:
            raise _Entrada("--asiento: la lectura no trae los cuatro asientos ('asientos')")
        return seats[asiento]
    if "cartas" not in data:
        raise _Entrada("el JSON de cartas debe traer un campo 'cartas'")
    cards = data["cartas"]
    if isinstance(cards, list) and len(cards) != 4:
        raise _Entrada(f"la foto tiene {len(cards)} cartas; para una foto de la mesa usa --asiento N")
    return cards


def _listar(args: argparse.Namespace) -> int:
    reglas = None if args.conjunto else _reglas(args.perfil)
    cs = conjunto_senas(reglas.senas if reglas else args.conjunto)
    if args.json:
        data = _conjunto_json(cs)
        if reglas:
            data["perfil"] = _perfil_json(reglas)
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    lines = _perfil_lineas(reglas) if reglas else []
    lines += [f"Señas «{cs.nombre}»: {cs.titulo}", f"Fuente: {cs.fuente}"]
    for s in cs.senas:
        when = f" (sólo en fase {', '.join(s.fases)})" if s.fases else ""
        lines.append(f"  {' + '.join(s.gestos):<28} {s.significado}{when} [{s.articulo}]")
    lines.extend(
        f"Prohibido en {', '.join(p.fases)}{' (primera mano)' if p.solo_primera_mano else ''}: {p.texto} [{p.articulo}]"
        for p in cs.prohibido
    )
    for d in cs.desacuerdos:
        lines.append(
            f"Desacuerdo: {d.tema}\n  elegido: {d.eleccion}\n  otra lectura: {d.alternativa}\n  fuentes: {d.fuentes}"
        )
    print("\n".join(lines))
    return 0


def _perfil_lineas(reglas: Reglas) -> list[str]:
    """Each value of the profile with where it comes from; a choice says so."""
    lines = [f"Reglas del perfil «{reglas.nombre}»: {reglas.fuente or 'sin fuente'}"]
    for campo, valor, fuente in reglas.valores():
        marca = "elección" if fuente.es_eleccion else "texto"
        lines.append(f"  {campo} = {valor} ({marca})")
        lines.extend(f"      {parte}" for parte in _partes(fuente))
    lines.append(f"Orden de cobro: {orden_de_cobro(reglas)}")
    return lines


def _partes(fuente: Fuente) -> list[str]:
    parts = [f"elección de musmesa: {fuente.eleccion}"] if fuente.eleccion else []
    parts += [fuente.nota] if fuente.nota else []
    return parts + [str(c) for c in fuente.citas]


def _perfil_json(reglas: Reglas) -> dict[str, Any]:
    return {
        "nombre": reglas.nombre,
        "fuente": reglas.fuente,
        "orden_de_cobro": orden_de_cobro(reglas),
        "valores": [
            {
                "campo": campo,
                "valor": valor,
                "eleccion": fuente.eleccion,
                "nota": fuente.nota,
                "citas": [{"documento": c.documento, "lugar": c.lugar, "texto": c.texto} for c in fuente.citas],
            }
            for campo, valor, fuente in reglas.valores()
        ],
    }


def _declaraciones(args: argparse.Namespace) -> int:
    data = _leer_json(args.declaraciones)
    if isinstance(data, dict) and "reglas" not in data:
        data = {**data, "reglas": args.perfil}
    try:
        reg = RegistroMano.from_dict(data)
    except RegistroManoError as exc:
        raise _Entrada(f"{excerpt(args.declaraciones)}: {exc}") from None
    decl = reg.declaraciones or {}
    fs = faltas(decl, reg.manos, reg.reglas, reg.mano)
    cs = correcciones(decl, reg.manos, reg.reglas, reg.mano, reg.lances)
    if args.json:
        print(
            json.dumps(
                {
                    "reglas": reg.reglas.nombre,
                    "faltas": [f.to_json() for f in fs],
                    "correcciones": [
                        {
                            "lance": c.lance,
                            "ganador": c.ganador,
                            "negada": c.negada,
                            "anulados": sorted(c.anulados),
                            "envites_validos": c.envites_validos,
                            "razon": c.razon,
                        }
                        for c in cs
                    ],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    lines = [f"Declaraciones de la mano (reglas {reg.reglas.nombre}):"]
    lines += [f"- {f.texto()} [{f.articulo}]" for f in fs] or ["Sin faltas de declaración."]
    lines += [f"  {c.lance}: {c.razon}" for c in cs]
    print("\n".join(lines))
    return 0


def _conjunto_json(cs: ConjuntoSenas) -> dict[str, Any]:
    return {
        "nombre": cs.nombre,
        "titulo": cs.titulo,
        "fuente": cs.fuente,
        "ciego": cs.ciego,
        "senas": [
            {
                "id": s.id,
                "significado": s.significado,
                "gestos": list(s.gestos),
                "lance": s.lance,
                "fases": list(s.fases),
                "articulo": s.articulo,
            }
            for s in cs.senas
        ],
        "prohibido": [
            {"fases": list(p.fases), "solo_primera_mano": p.solo_primera_mano, "articulo": p.articulo, "texto": p.texto}
            for p in cs.prohibido
        ],
        "desacuerdos": [
            {"tema": d.tema, "eleccion": d.eleccion, "alternativa": d.alternativa, "fuentes": d.fuentes}
            for d in cs.desacuerdos
        ],
    }


def _verificar(args: argparse.Namespace) -> int:
    data = _leer_json(args.verificar)
    clave = None
    if args.clave_archivo:
        try:
            clave = Path(args.clave_archivo).read_bytes().strip()
        except OSError as exc:
            raise _Entrada(f"no se puede leer {excerpt(args.clave_archivo)}: {exc.strerror}") from None
    check = verificar(data, clave, args.sello)
    if args.json:
        print(
            json.dumps(
                {"valido": check.valido, "entrada": check.entrada, "motivo": check.motivo, "sello": check.sello},
                ensure_ascii=False,
                allow_nan=False,
            )
        )
    elif check:
        print(f"Registro íntegro: {len(data['entradas'])} entradas, sello {check.sello}")
    else:
        where = "" if check.entrada is None else f" en la entrada {check.entrada}"
        print(f"Registro ALTERADO{where}: {check.motivo}")
    return 0 if check else 1
