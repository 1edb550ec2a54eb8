"""`mus torneo copia` and `mus torneo restaurar`: a SQLite database copied with SQLite's online
backup API (a consistent copy while the server writes), with the server key beside it (the
tables' codes are made from it). PostgreSQL is copied with its own tools (pg_dump, pg_restore)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

from server.db import fichero_sqlite, motor
from server.servicios.torneos import ServicioError


def _fichero(url: str) -> Path:
    fichero = fichero_sqlite(url)
    if fichero is None:
        raise ServicioError("con PostgreSQL, copia y restaura con pg_dump y pg_restore (docs/torneo.md)")
    return fichero


def _copiar(origen: Path, destino: Path) -> None:
    """SQLite's online backup from ``origen`` into ``destino`` (made owner-only first)."""
    destino.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(destino, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(destino, 0o600)
    with sqlite3.connect(f"file:{origen}?mode=ro", uri=True) as src, sqlite3.connect(destino) as dst:
        src.backup(dst)
    dst.close()
    src.close()


def _clave(origen: Path, destino: Path) -> None:
    clave = Path(f"{origen}.clave")
    if clave.exists():
        shutil.copyfile(clave, f"{destino}.clave")
        os.chmod(f"{destino}.clave", 0o600)


def copia(url: str, destino: str) -> int:
    origen = _fichero(url)
    if not origen.exists():
        raise ServicioError("no hay base de datos que copiar en {ruta}", ruta=str(origen))
    dest = Path(destino)
    if dest.exists():
        raise ServicioError("ya existe {ruta}: elige otro nombre", ruta=str(dest))
    _copiar(origen, dest)
    _clave(origen, dest)
    print(f"Copia hecha: {dest}")
    return 0


def restaurar(url: str, origen: str, forzar: bool) -> int:
    destino = _fichero(url)
    src = Path(origen)
    if not src.is_file():
        raise ServicioError("no existe la copia {ruta}", ruta=origen)
    with sqlite3.connect(f"file:{src}?mode=ro", uri=True) as conn:
        try:
            conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.DatabaseError:
            raise ServicioError("{ruta} no es una copia de una base de mus torneo", ruta=origen) from None
    conn.close()
    if destino.exists() and not forzar:
        with sqlite3.connect(destino) as conn:
            try:
                hay = conn.execute("SELECT count(*) FROM torneo").fetchone()[0]
            except sqlite3.DatabaseError:
                hay = 0
        conn.close()
        if hay:
            raise ServicioError("la base actual tiene {n} torneos: añade --forzar para sustituirla", n=hay)
    _copiar(src, destino)
    _clave(src, destino)
    motor(f"sqlite:///{destino}").dispose()  # an older copy is migrated now, not at the next start
    print(f"Restaurada {src} en {destino}", file=sys.stdout)
    return 0
