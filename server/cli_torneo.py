"""`mus torneo`: the tournament server and its accounts.

    mus torneo servir ...   (another name for `mus servir`, server/cli.py: the one server)
    mus torneo organizador USUARIO [--datos DIR | --url URL]   (asks for the password twice)
    mus torneo crear FICHERO.json --organizador USUARIO [--datos DIR | --url URL]
    mus torneo copia DESTINO [--datos DIR]         (SQLite's online backup, the server may run)
    mus torneo restaurar ORIGEN [--datos DIR] [--forzar]

SQLite in DIR (default: the user's data folder) unless a PostgreSQL URL is given.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from scoring.inputs import InputError, excerpt, read_json
from server.db import motor, sesiones, url_por_defecto
from server.migraciones import EsquemaError
from server.modelos import torneo as db
from server.servicios import auth
from server.servicios import torneos as servicio
from torneo import formato as fm


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="accion", metavar="ACCION", required=True)
    # only listed here: musmesa/cli.py runs `mus torneo servir ...` as `mus servir ...` (server/cli.py)
    sub.add_parser(
        "servir",
        help="sirve el torneo y las mesas a los teléfonos (lo mismo que «mus servir»; "
        "sus opciones: «mus torneo servir --help»)",
        add_help=False,
    )
    org = sub.add_parser("organizador", help="crea una cuenta de organizador (pide la contraseña dos veces)")
    _base(org)
    org.add_argument("usuario")
    org.add_argument(
        "--clave-entorno", metavar="VAR", help="lee la contraseña de esta variable de entorno en vez de preguntarla"
    )
    copia = sub.add_parser(
        "copia",
        help="copia la base SQLite (y su clave) con la API de copia en línea de SQLite, "
        "también con el servidor en marcha",
    )
    _base(copia)
    copia.add_argument("destino", help="fichero de la copia, p. ej. torneo-2026-12-04.sqlite3")
    restaurar = sub.add_parser("restaurar", help="vuelve a una copia hecha con «mus torneo copia» (servidor parado)")
    _base(restaurar)
    restaurar.add_argument("origen")
    restaurar.add_argument("--forzar", action="store_true", help="sustituye una base que ya tiene torneos")
    crear = sub.add_parser("crear", help="crea un torneo desde un JSON (nombre, reglas, formato, parejas, mesas)")
    _base(crear)
    crear.add_argument("fichero")
    crear.add_argument("--organizador", required=True, help="usuario organizador del torneo")


def _base(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--datos", help="carpeta del fichero SQLite (por defecto $MUSMESA_DATA o la del usuario)")
    g.add_argument("--url", help="URL de PostgreSQL, p. ej. postgresql://usuario:clave@host/base")


def url_de(args: argparse.Namespace) -> str:
    return args.url or url_por_defecto(args.datos)


def run(args: argparse.Namespace) -> int:
    if args.accion == "servir":  # reached only when this module is run without musmesa/cli.py
        print("mus torneo: el servidor se arranca con «mus servir»", file=sys.stderr)
        return 2
    try:
        if args.accion == "organizador":
            return _organizador(args)
        if args.accion in ("copia", "restaurar"):
            from server import copias  # only these commands need it

            return (
                copias.copia(url_de(args), args.destino)
                if args.accion == "copia"
                else copias.restaurar(url_de(args), args.origen, args.forzar)
            )
        return _crear(args)
    except (servicio.ServicioError, fm.FormatoError, InputError, EsquemaError, OSError) as exc:
        print(f"mus torneo: {excerpt(str(exc), 280)}", file=sys.stderr)
        return 2
    except SQLAlchemyError as exc:
        print(
            f"mus torneo: no se puede usar la base de datos: {excerpt(str(exc).splitlines()[0], 200)}", file=sys.stderr
        )
        return 2


def _pedir_clave() -> str | None:
    """The password typed twice (nothing shows as it is typed): None when the two differ."""
    clave = getpass.getpass("Contraseña: ")
    if getpass.getpass("Repite la contraseña: ") != clave:
        print("mus torneo: las dos contraseñas no coinciden; no se ha creado la cuenta", file=sys.stderr)
        return None
    return clave


def _organizador(args: argparse.Namespace) -> int:
    clave = os.environ.get(args.clave_entorno, "") if args.clave_entorno else _pedir_clave()
    if clave is None:
        return 2
    with sesiones(motor(url_de(args)))() as s, s.begin():
        auth.crear_cuenta(s, args.usuario, clave, "organizador")
    print(f"Organizador {args.usuario} creado.")
    return 0


def _crear(args: argparse.Namespace) -> int:
    data: Any = read_json(args.fichero)
    if not isinstance(data, dict):
        raise servicio.ServicioError("el torneo debe ser un objeto JSON")
    # the API's model checks the file exactly as it checks a request
    from pydantic import ValidationError

    from server.esquemas import TorneoIn, error_de_validacion

    try:
        body = TorneoIn.model_validate(data)
    except ValidationError as exc:
        raise error_de_validacion(exc) from None
    with sesiones(motor(url_de(args)))() as s, s.begin():
        cuenta = s.scalar(
            select(db.Cuenta).where(db.Cuenta.usuario == args.organizador, db.Cuenta.rol == "organizador")
        )
        if cuenta is None:
            raise servicio.ServicioError("no existe el organizador {usuario}", usuario=args.organizador)
        t = servicio.crear_torneo(
            s,
            cuenta,
            body.nombre,
            body.reglas,
            fm.Formato.from_dict(body.formato.model_dump()),
            [servicio.NuevaPareja(p.nombre, (p.jugadores[0], p.jugadores[1])) for p in body.parejas],
            body.mesas,
        )
        s.flush()
        print(f"Torneo {t.id} creado: {t.nombre}")
    return 0
