"""The server's one chain of Alembic migrations, run by the server itself on every start, with
one version table (``alembic_version``) for every table: the tournament's and the partida
pages'.

Alembic is configured here in code (no alembic.ini), so an installed package migrates its
database as a checkout does. ``actualizar`` takes an engine's database to the newest revision
in one transaction (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: transactional DDL under an
advisory lock), so two servers starting at once, or a kill midway, leave nothing half done.

What earlier servers left is taken in place: a database made before these migrations
(``create_all`` and a one-row ``esquema`` table at version 1) is stamped with revision 0001 and
upgraded from there; the partida pages' tables, which had a chain of their own (version table
``alembic_version_web`` at its revision 0001), join this one at revision 0009, rows kept. A
database of a newer server is refused with a clear line rather than half read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine


class EsquemaError(RuntimeError):
    """A database this version of the server cannot use."""


CARPETA: Final = Path(__file__).resolve().parent
ESQUEMA_ANTIGUO: Final = 1  # the esquema table's version that revision 0001 reproduces
REVISION_ANTIGUA: Final = "0001"
# the partida pages' own chain before revision 0009 joined it to this one: its table, and the
# one revision it ever had (what 0009 takes over)
TABLA_WEB: Final = "alembic_version_web"
REVISION_WEB: Final = "0001"
_CERROJO_PG: Final = 0x6D75736D  # advisory lock id ("musm"): one migrating server at a time


def configuracion(conexion: Connection | None = None) -> Config:
    """Alembic configured in code for the migrations in this folder."""
    cfg = Config()
    cfg.set_main_option("script_location", str(CARPETA))
    cfg.attributes["connection"] = conexion
    return cfg


def ultima() -> str:
    """The newest revision this server knows."""
    head = ScriptDirectory.from_config(configuracion()).get_current_head()
    assert head is not None
    return head


def revision_de(conexion: Connection, tabla: str = "alembic_version") -> str | None:
    """The database's revision in version table ``tabla`` (None for an empty or pre-Alembic
    database)."""
    heads = MigrationContext.configure(conexion, opts={"version_table": tabla}).get_current_heads()
    return heads[0] if heads else None


def actualizar(engine: Engine, destino: str = "head") -> None:
    """Upgrade the database of ``engine`` to ``destino`` (the newest revision by default)."""
    with transaccion(engine) as conn:
        cfg = configuracion(conn)
        _reconocer(conn, cfg)
        command.upgrade(cfg, destino)


@contextmanager
def transaccion(engine: Engine) -> Iterator[Connection]:
    """One transaction that takes the write lock at once. SQLite's driver opens none before
    DDL by itself, so a separate engine issues ``BEGIN IMMEDIATE`` (and keeps foreign keys
    off, as a batch copy of a table needs)."""
    if engine.dialect.name != "sqlite":
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _CERROJO_PG})
            yield conn
        return
    if engine.url.database in (None, "", ":memory:"):  # a database only that engine's pool sees
        with engine.begin() as conn:
            yield conn
        return
    propio = create_engine(engine.url, connect_args={"isolation_level": None, "timeout": 30})
    event.listen(propio, "begin", lambda c: c.exec_driver_sql("BEGIN IMMEDIATE"))
    try:
        with propio.begin() as conn:
            yield conn
    finally:
        propio.dispose()


def _conocida(cfg: Config, actual: str) -> None:
    """Refuse a database at a revision these migrations do not know: a newer server wrote it."""
    try:
        ScriptDirectory.from_config(cfg).get_revision(actual)
    except CommandError:
        raise EsquemaError(
            f"la base de datos es de un servidor más nuevo (revisión {actual} del esquema; "
            f"este llega a la {ultima()}): actualiza musmesa"
        ) from None


def _reconocer(conn: Connection, cfg: Config) -> None:
    """Stamp a pre-Alembic database; refuse a newer or an unknown one."""
    tablas = set(inspect(conn).get_table_names())
    if TABLA_WEB in tablas and (web := revision_de(conn, TABLA_WEB)) not in (None, REVISION_WEB):
        raise EsquemaError(
            f"la base de datos es de un servidor más nuevo (revisión {web} de las partidas; "
            f"este llega a la {ultima()}): actualiza musmesa"
        )
    actual = revision_de(conn)
    if actual is not None:
        _conocida(cfg, actual)
        return
    if "esquema" in tablas:
        version = conn.execute(text("SELECT max(version) FROM esquema")).scalar() or ESQUEMA_ANTIGUO
        if version != ESQUEMA_ANTIGUO:
            raise EsquemaError(
                f"la base de datos tiene el esquema {version}, que este servidor no conoce "
                f"(conoce el {ESQUEMA_ANTIGUO}): actualiza musmesa"
            )
        command.stamp(cfg, REVISION_ANTIGUA)
    elif tablas & {"torneo", "mano", "cuenta"}:
        raise EsquemaError(
            "la base de datos tiene tablas de un torneo pero ninguna versión del esquema: "
            "no es de musmesa o está dañada"
        )
