"""`mus servir`: the one server, the table on every phone and the tournament.

    mus servir [--datos DIR | --url postgresql://...] [--host H] [--puerto N] [--trabajadores N]
               [--proxy IP] [--limite-entradas N] [--limite-uniones N] [--limite-peticiones N]
               [--torneo-remoto URL]...

SQLite in DIR (default: the user's data folder) unless a PostgreSQL URL is given. At start it
prints the addresses a phone on the same network can open and a QR code of the first one.
`mus torneo servir` is another name for it.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy.exc import SQLAlchemyError

from scoring.inputs import excerpt
from server.db import url_por_defecto
from server.estado import ENTORNO_PETICIONES, ENTORNO_PROXY, ENTORNO_UNIONES
from server.migraciones import EsquemaError

if TYPE_CHECKING:  # the web stack is loaded only by the server itself (see crear)
    from fastapi import FastAPI

ENV_URL: Final = "MUSMESA_SERVIR_URL"  # how the workers learn the database (uvicorn starts them by name)
ENV_DATOS: Final = "MUSMESA_SERVIR_DATOS"
ENV_LAN: Final = "MUSMESA_SERVIR_LAN"  # the address the partida links and QR codes use
ENV_LIMITE: Final = "MUSMESA_SERVIR_LIMITE"
ENV_REMOTOS: Final = "MUSMESA_SERVIR_TORNEOS_REMOTOS"  # the --torneo-remoto servers, one per line


def configure(parser: argparse.ArgumentParser) -> None:
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--datos", help="carpeta del fichero SQLite (por defecto $MUSMESA_DATA o la del usuario)")
    g.add_argument("--url", help="URL de PostgreSQL, p. ej. postgresql://usuario:clave@host/base")
    parser.add_argument("--host", default="0.0.0.0", help="dirección en la que escucha (0.0.0.0: toda la red local)")
    parser.add_argument("--puerto", type=int, default=8000, help="puerto (8000)")
    parser.add_argument(
        "--trabajadores",
        type=int,
        default=1,
        metavar="N",
        help="procesos de uvicorn (1); con PostgreSQL, uno o dos por núcleo",
    )
    parser.add_argument(
        "--limite-entradas",
        type=int,
        default=10,
        metavar="N",
        help="intentos de entrar (usuario y contraseña) por minuto y dirección (10)",
    )
    parser.add_argument(
        "--limite-uniones",
        type=int,
        default=None,
        metavar="N",
        help="códigos de mesa por minuto y dirección (120), contados aparte de las entradas",
    )
    parser.add_argument(
        "--limite-peticiones",
        type=int,
        default=None,
        metavar="N",
        help="peticiones de todo tipo por minuto y dirección (3000)",
    )
    parser.add_argument(
        "--torneo-remoto",
        action="append",
        default=[],
        metavar="URL",
        help="servidor de torneo de otra máquina al que las mesas de los teléfonos pueden enviar "
        "sus manos; repetible. Sin él, solo al torneo de este mismo servidor",
    )
    parser.add_argument(
        "--proxy",
        action="append",
        default=[],
        metavar="IP",
        help="dirección del proxy inverso (Caddy, nginx) cuyo X-Forwarded-For y "
        "X-Forwarded-Proto se creen; repetible. Sin él, esas cabeceras no se leen",
    )


def direcciones_lan() -> list[str]:
    """This machine's IPv4 addresses other than the loopback, found without sending anything:
    the host name's addresses, and the one a UDP socket would leave by (connect() on UDP only
    picks the route)."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.254.254.254", 9))
        found.append(str(s.getsockname()[0]))
    out: list[str] = []
    for ip in found:
        addr = ipaddress.ip_address(ip)
        if not (addr.is_loopback or addr.is_unspecified or addr.is_link_local) and ip not in out:
            out.append(ip)
    return sorted(out, key=lambda ip: not ipaddress.ip_address(ip).is_private)  # the LAN's first


def direcciones(host: str, puerto: int) -> list[str]:
    """The URLs to print: every LAN address when listening on all, else the one given."""
    ips = (direcciones_lan() or ["127.0.0.1"]) if host in ("0.0.0.0", "") else [host]
    return [f"http://{ip}:{puerto}/" for ip in ips]


def run(args: argparse.Namespace) -> int:
    nombre = getattr(args, "como", "mus servir")  # `mus torneo servir` keeps its own name in messages
    try:
        url = args.url or url_por_defecto(args.datos)
    except OSError as exc:
        print(f"{nombre}: no se puede usar la carpeta de datos {args.datos or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    datos = None if args.url else Path(args.datos) if args.datos else Path(url.removeprefix("sqlite:///")).parent
    if args.trabajadores < 1:
        print(f"{nombre}: --trabajadores debe ser 1 o más", file=sys.stderr)
        return 2
    urls = direcciones(args.host, args.puerto)
    os.environ[ENV_URL], os.environ[ENV_DATOS] = url, str(datos or "")
    os.environ[ENV_LAN] = urls[0]
    os.environ[ENV_LIMITE] = str(args.limite_entradas)
    remotos = _remotos(args.torneo_remoto)
    if remotos is None:
        print(
            f"{nombre}: --torneo-remoto es una dirección http:// o https:// (p. ej. http://host:8000)", file=sys.stderr
        )
        return 2
    os.environ[ENV_REMOTOS] = "\n".join(remotos)
    # the tournament server reads these itself, in this process and in every worker (an option
    # given wins over the environment; without either, the server's defaults)
    for name, value in (
        (ENTORNO_UNIONES, args.limite_uniones),
        (ENTORNO_PETICIONES, args.limite_peticiones),
        (ENTORNO_PROXY, ",".join(args.proxy) or None),
    ):
        if value is not None:
            os.environ[name] = str(value)
    try:
        app = crear(args.limite_entradas)  # migrates and checks the database before serving anything
    except (EsquemaError, SQLAlchemyError, OSError) as exc:
        texto = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        prefijo = "" if isinstance(exc, EsquemaError) else "no se puede usar la base de datos: "
        print(f"{nombre}: {prefijo}{excerpt(texto, 240)}", file=sys.stderr)
        return 2
    _anunciar(urls, args.host)
    if not os.environ.get(ENTORNO_PROXY) and not (args.host.startswith("127.") or args.host in ("::1", "localhost")):
        print(
            f"{nombre}: HTTP sin cifrar en la red local: fuera de una red de confianza, sírvelo tras un "
            "proxy HTTPS (docs/torneo.md)",
            file=sys.stderr,
        )
    import uvicorn  # the server only: the other `mus` commands never load it

    from server.conexiones import KEEP_ALIVE_S, MAX_CABECERAS, ProtocoloH11  # uvicorn's protocol: the same

    # slow headers: a time limit of our own (server.conexiones), and uvicorn's keep-alive and header size
    limites: dict[str, Any] = {
        "http": ProtocoloH11,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "h11_max_incomplete_event_size": MAX_CABECERAS,
    }
    if args.trabajadores == 1:
        uvicorn.run(app, host=args.host, port=args.puerto, log_level="warning", proxy_headers=False, **limites)
    else:  # each worker builds its own app from the environment; the database holds everything
        app.state.servidor.engine.dispose()
        uvicorn.run(
            "server.cli:app_de_trabajador",
            factory=True,
            host=args.host,
            port=args.puerto,
            workers=args.trabajadores,
            log_level="warning",
            proxy_headers=False,
            **limites,
        )
    return 0


def crear(limite_entradas: int = 10) -> FastAPI:
    # the web stack is loaded only by the server itself
    from server.main import crear_app

    datos = os.environ.get(ENV_DATOS) or None
    app = crear_app(os.environ[ENV_URL], Path(datos) if datos else None, limite_entradas=limite_entradas)
    app.state.direccion_lan = os.environ.get(ENV_LAN)
    # the only servers a phone's table may send to besides this one (server.servicios.mesa_torneo.destino)
    app.state.torneos_remotos = tuple(u for u in os.environ.get(ENV_REMOTOS, "").splitlines() if u)
    return app


def _remotos(urls: list[str]) -> list[str] | None:
    """The --torneo-remoto addresses in one spelling, or None when one is no server address."""
    from server.servicios.mesa_torneo import normalizar  # the web stack is loaded only by the server itself

    out = [normalizar(u) for u in urls]
    return None if None in out else [u for u in out if u]


def app_de_trabajador() -> FastAPI:
    """uvicorn's factory for each worker process (``--trabajadores``)."""
    return crear(int(os.environ.get(ENV_LIMITE, "10")))


def _anunciar(urls: list[str], host: str) -> None:
    print("musmesa: la mesa en cada teléfono. Ábrelo en un teléfono de la misma red:", flush=True)
    for u in urls:
        print(f"  {u}", flush=True)
    if host.startswith("127.") or host == "localhost":
        print("  (solo esta máquina: usa --host 0.0.0.0 para los teléfonos)", flush=True)
    try:
        import segno  # the QR code only: optional in a headless install

        segno.make(urls[0], error="m").terminal(out=sys.stdout, compact=True)
    except (ImportError, OSError, UnicodeError):
        pass
    sys.stdout.flush()
