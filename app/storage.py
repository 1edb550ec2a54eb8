"""SQLite storage: partidas, hand records, tanteos, corrections and referee logs.

One file ``musmesa.sqlite3`` in the data folder, WAL journal, one transaction per hand, so a
kill at any moment loses at most the hand being entered. The partida state is rebuilt by
replaying its stored hands through scoring/ (the hand records are the source of truth).

    >>> import tempfile
    >>> s = Almacen.abrir(tempfile.mkdtemp())
    >>> pid = s.nueva_partida("general", ["Ana", "Bea", "Carlos", "Dani"], mano=0)
    >>> s.partida_abierta()["id"] == pid
    True
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

DB_NAME: Final = "musmesa.sqlite3"
ENV_VAR: Final = "MUSMESA_DATA"

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS partidas (
    id INTEGER PRIMARY KEY,
    creada REAL NOT NULL,
    reglas TEXT NOT NULL,
    jugadores TEXT NOT NULL,
    mano_inicial INTEGER NOT NULL,
    terminada INTEGER NOT NULL DEFAULT 0,
    ganador INTEGER
);
CREATE TABLE IF NOT EXISTS manos (
    id INTEGER PRIMARY KEY,
    partida_id INTEGER NOT NULL REFERENCES partidas(id),
    n INTEGER NOT NULL,
    registro TEXT NOT NULL,
    tanteo TEXT NOT NULL,
    origen TEXT NOT NULL DEFAULT 'manual',
    deshecha INTEGER NOT NULL DEFAULT 0,
    creada REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS correcciones (
    id INTEGER PRIMARY KEY,
    partida_id INTEGER,
    asiento INTEGER,
    antes TEXT,
    despues TEXT NOT NULL,
    confianza REAL,
    creada REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS arbitraje (
    id INTEGER PRIMARY KEY,
    partida_id INTEGER,
    entrada TEXT NOT NULL,
    creada REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ajustes (
    clave TEXT PRIMARY KEY,
    valor TEXT NOT NULL
);
"""


class StorageError(RuntimeError):
    """The data folder cannot be used (read-only, full, corrupt); the message says what to do."""


def default_data_dir() -> Path:
    """MUSMESA_DATA, else the platform's per-user data folder."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "musmesa"


def _explain(exc: BaseException, where: Path) -> StorageError:
    text = str(exc).lower()
    if "readonly" in text or "read-only" in text or isinstance(exc, PermissionError):
        why = "la carpeta de datos es de solo lectura"
    elif "full" in text or "no space" in text:
        why = "el disco está lleno"
    elif "not a database" in text or "malformed" in text:
        why = "el fichero de datos está dañado"
    else:
        why = str(exc)
    return StorageError(f"No se puede guardar en {where}: {why}. Lo ya guardado no se pierde.")


class Almacen:
    """All reads and writes of the app's data. Every public write is one transaction."""

    def __init__(self, conn: sqlite3.Connection, carpeta: Path) -> None:
        self.conn = conn
        self.carpeta = carpeta

    @classmethod
    def abrir(cls, carpeta: str | Path | None = None) -> Almacen:
        folder = Path(carpeta) if carpeta else default_data_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(folder / DB_NAME, timeout=5, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable on app kill
            conn.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise _explain(exc, folder) from None
        return cls(conn, folder)

    def cerrar(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            yield self.conn
            self.conn.execute("COMMIT")
        except (OSError, sqlite3.Error) as exc:
            self._rollback()
            raise _explain(exc, self.carpeta) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        # SQLite may already have rolled back by itself (SQLITE_FULL does).
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    # -- partidas -------------------------------------------------------------------------
    def nueva_partida(self, reglas: str | dict, jugadores: list[str], mano: int) -> int:
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO partidas (creada, reglas, jugadores, mano_inicial) VALUES (?,?,?,?)",
                (time.time(), json.dumps(reglas), json.dumps(jugadores), mano),
            )
            return int(cur.lastrowid or 0)

    def _partida_dict(self, row: sqlite3.Row) -> dict[str, Any]:
        return {
            "id": row["id"], "creada": row["creada"], "reglas": json.loads(row["reglas"]),
            "jugadores": json.loads(row["jugadores"]), "mano_inicial": row["mano_inicial"],
            "terminada": bool(row["terminada"]), "ganador": row["ganador"],
        }

    def partida(self, partida_id: int) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT * FROM partidas WHERE id=?", (partida_id,)).fetchone()
        return self._partida_dict(row) if row else None

    def partida_abierta(self) -> dict[str, Any] | None:
        """The most recent unfinished partida, to resume on start."""
        row = self.conn.execute(
            "SELECT * FROM partidas WHERE terminada=0 ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return self._partida_dict(row) if row else None

    def partidas(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT * FROM partidas ORDER BY id DESC").fetchall()
        return [self._partida_dict(r) for r in rows]

    def cerrar_partida(self, partida_id: int, ganador: int | None, terminada: bool) -> None:
        with self._tx() as db:
            db.execute("UPDATE partidas SET terminada=?, ganador=? WHERE id=?",
                       (int(terminada), ganador, partida_id))

    # -- manos ----------------------------------------------------------------------------
    def guardar_mano(self, partida_id: int, registro: dict, tanteo: dict, origen: str = "manual",
                     terminada: bool = False, ganador: int | None = None) -> int:
        """Store one confirmed hand (and the partida's end if it ended) in one transaction."""
        with self._tx() as db:
            n = db.execute("SELECT COUNT(*) FROM manos WHERE partida_id=? AND deshecha=0",
                           (partida_id,)).fetchone()[0]
            cur = db.execute(
                "INSERT INTO manos (partida_id, n, registro, tanteo, origen, creada)"
                " VALUES (?,?,?,?,?,?)",
                (partida_id, n + 1, json.dumps(registro), json.dumps(tanteo), origen, time.time()),
            )
            db.execute("UPDATE partidas SET terminada=?, ganador=? WHERE id=?",
                       (int(terminada), ganador, partida_id))
            return int(cur.lastrowid or 0)

    def deshacer_mano(self, partida_id: int) -> bool:
        """Mark the last hand as undone (kept for the record); False when there is none."""
        with self._tx() as db:
            row = db.execute("SELECT id FROM manos WHERE partida_id=? AND deshecha=0"
                             " ORDER BY n DESC LIMIT 1", (partida_id,)).fetchone()
            if row is None:
                return False
            db.execute("UPDATE manos SET deshecha=1 WHERE id=?", (row["id"],))
            db.execute("UPDATE partidas SET terminada=0, ganador=NULL WHERE id=?", (partida_id,))
            return True

    def manos(self, partida_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT * FROM manos WHERE partida_id=? AND deshecha=0 ORDER BY n", (partida_id,)
        ).fetchall()
        return [{"n": r["n"], "registro": json.loads(r["registro"]),
                 "tanteo": json.loads(r["tanteo"]), "origen": r["origen"]} for r in rows]

    # -- corrections and referee ----------------------------------------------------------
    def guardar_correccion(self, partida_id: int | None, asiento: int | None, antes: str | None,
                           despues: str, confianza: float | None = None) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO correcciones (partida_id, asiento, antes, despues, confianza,"
                       " creada) VALUES (?,?,?,?,?,?)",
                       (partida_id, asiento, antes, despues, confianza, time.time()))

    def correcciones(self, partida_id: int | None) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT * FROM correcciones WHERE partida_id IS ? ORDER BY id",
                                 (partida_id,)).fetchall()
        return [dict(r) for r in rows]

    def guardar_arbitraje(self, partida_id: int | None, entrada: dict) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO arbitraje (partida_id, entrada, creada) VALUES (?,?,?)",
                       (partida_id, json.dumps(entrada, ensure_ascii=False), time.time()))

    def arbitraje(self, partida_id: int | None) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT entrada FROM arbitraje WHERE partida_id IS ? ORDER BY id",
                                 (partida_id,)).fetchall()
        return [json.loads(r["entrada"]) for r in rows]

    # -- settings -------------------------------------------------------------------------
    def ajuste(self, clave: str, defecto: str = "") -> str:
        row = self.conn.execute("SELECT valor FROM ajustes WHERE clave=?", (clave,)).fetchone()
        return row["valor"] if row else defecto

    def guardar_ajuste(self, clave: str, valor: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO ajustes (clave, valor) VALUES (?,?) ON CONFLICT(clave)"
                       " DO UPDATE SET valor=excluded.valor", (clave, valor))

    # -- export ---------------------------------------------------------------------------
    def exportar_json(self, partida_id: int) -> list[dict]:
        """The partida's hand records, each in `mus tanteo`'s input format."""
        return [m["registro"] for m in self.manos(partida_id)]

    def exportar_csv(self, partida_id: int) -> str:
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["mano", "mano_asiento", "manos", "lances", "tantos_p0", "tantos_p1",
                    "marcador_p0", "marcador_p1", "origen"])
        for m in self.manos(partida_id):
            reg, tan = m["registro"], m["tanteo"]
            pts = [sum(v[i] for v in tan.get("por_lance", {}).values()) for i in (0, 1)]
            marc = tan.get("marcador", [None, None])
            w.writerow([m["n"], reg.get("mano"), " | ".join(reg.get("manos", [])),
                        json.dumps(reg.get("lances", {}), ensure_ascii=False),
                        pts[0], pts[1], marc[0], marc[1], m["origen"]])
        return out.getvalue()

    def escribir_export(self, partida_id: int, destino: Path | None = None) -> tuple[Path, Path]:
        """Write partida_<id>.json and .csv into destino (default: <data>/export)."""
        folder = destino or self.carpeta / "export"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            pj = folder / f"partida_{partida_id}.json"
            pc = folder / f"partida_{partida_id}.csv"
            pj.write_text(json.dumps(self.exportar_json(partida_id), ensure_ascii=False,
                                     indent=1), encoding="utf-8")
            pc.write_text(self.exportar_csv(partida_id), encoding="utf-8")
        except OSError as exc:
            raise _explain(exc, folder) from None
        return pj, pc


def abrir_o_memoria(carpeta: str | Path | None) -> tuple[Almacen, str]:
    """Open the data folder; if impossible, an in-memory store and the message to show."""
    try:
        return Almacen.abrir(carpeta), ""
    except StorageError as exc:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.executescript(_SCHEMA)
        folder = Path(carpeta) if carpeta else default_data_dir()
        return Almacen(conn, folder), f"{exc} Esta partida no se guardará: cambia la carpeta " \
                                      "de datos en Ajustes."
