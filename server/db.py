"""The server's database in SQLAlchemy 2: one ``Base`` (one MetaData) for every table, the
partida pages' and the tournament's, over SQLite (a club's laptop, a file in the data folder)
or PostgreSQL (a federation's server, several hosts).

The tables are the schema as the code reads it; the database gets it from the one Alembic chain
in server/migraciones, which ``motor`` runs on every start (a newer database is refused with a
clear line rather than half read). ``sesiones`` makes the sessions every request uses.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, ClassVar, Final

from sqlalchemy import JSON, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from common.files import default_data_dir
from server.migraciones import actualizar

FICHERO: Final = "torneo.sqlite3"  # the server's SQLite file in the data folder (its name since the first release)


def ahora() -> dt.datetime:
    """Now in UTC, naive (as every DateTime column stores it)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    """The one declarative base: every table of the server is in its MetaData."""

    type_annotation_map: ClassVar = {dict[str, Any]: JSON, list[Any]: JSON}


def url_por_defecto(datos: str | os.PathLike[str] | None = None) -> str:
    """A SQLite file in ``datos`` (default: the data folder, common.files.default_data_dir),
    the folder created if missing, readable by its owner only."""
    folder = Path(datos) if datos is not None else default_data_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return f"sqlite:///{folder / FICHERO}"


def fichero_sqlite(url: str) -> Path | None:
    """The file of a SQLite URL (None for PostgreSQL or an in-memory database)."""
    if not url.startswith("sqlite"):
        return None
    ruta = url.split(":///", 1)[1] if ":///" in url else ""
    return Path(ruta) if ruta and ruta != ":memory:" and not ruta.startswith("file:") else None


def motor(url: str) -> Engine:
    """An engine for ``url`` with the schema upgraded to the newest revision
    (server.migraciones.EsquemaError for a database of a newer server)."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # one file shared by uvicorn's thread pool; WAL lets readers go on while a hand is written
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs |= {"pool_size": 10, "max_overflow": 20, "pool_pre_ping": True}
    fichero = fichero_sqlite(url)
    if fichero is not None:
        _solo_dueno(fichero)
        _wal(fichero)
    engine = create_engine(url, **kwargs)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    actualizar(engine)
    return engine


def sesiones(engine: Engine) -> sessionmaker[Session]:
    """The session factory of ``engine``: objects stay readable after their commit (a route
    answers with what it wrote)."""
    return sessionmaker(engine, expire_on_commit=False)


def _solo_dueno(fichero: Path) -> None:
    """The database and its -wal and -shm readable by the owner only: created so (SQLite gives
    the -wal and -shm the database's mode), and narrowed if they exist."""
    fichero.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(fichero, os.O_CREAT | os.O_RDWR, 0o600))
    for f in (fichero, Path(f"{fichero}-wal"), Path(f"{fichero}-shm")):
        if f.exists():
            f.chmod(0o600)


def _wal(fichero: Path, plazo: float = 30.0) -> None:
    """Put the file in WAL mode (stored in the file: once is enough). Switching the journal
    answers "database is locked" at once, without waiting, while another process opens the same
    file (uvicorn's workers, two hosts starting together): so it is done here, once, retried for
    ``plazo`` seconds, and never on each new connection, where it failed a request under load."""
    hasta = time.monotonic() + plazo
    while True:
        conn = sqlite3.connect(fichero, timeout=plazo)
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() > hasta:
                raise
            time.sleep(0.05)
        finally:
            conn.close()


def _sqlite_pragmas(conn: Any, _record: Any) -> None:
    """Each connection's own settings (the journal mode is the file's: ``_wal``)."""
    cur = conn.cursor()
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a committed hand survives a kill -9
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
