"""SQLite storage: partidas, hand records, tanteos, corrections and referee logs.

One file ``musmesa.sqlite3`` in the data folder, WAL journal, one transaction per hand, so a
kill at any moment loses at most the hand being entered. The partida state is rebuilt by
replaying its stored hands through scoring/ (the hand records are the source of truth).

The file is checked on opening (``PRAGMA quick_check``). A damaged one is moved aside (renamed
with the time, never deleted) and rebuilt from the rows it still gives, read row by row, plus
those of the backup ``musmesa.copia.sqlite3`` (SQLite's online backup, written at the end of
every partida and every COPIA_CADA_MANOS hands). A folder that cannot be written gives an
in-memory store holding what the folder's database has (opened read-only).

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
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from common.files import PRIVATE_MODE, default_data_dir, write_atomic
from mesa.i18n import N_, SOURCE, Nn_, t, tn
from vision.registered_deck import DECK_FILE

DB_NAME: Final = "musmesa.sqlite3"
COPIA_NAME: Final = "musmesa.copia.sqlite3"  # the latest backup, beside the database
COPIA_CADA_MANOS: Final = 5  # a backup every this many hands of a partida (and at its end)
COPIA_MAX_EDAD_S: Final = 24 * 3600  # and one at start when the last is older than a day
_TABLAS: Final = ("partidas", "manos", "correcciones", "arbitraje", "ajustes")
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_MAX_ROWID_SIN_INDICE: Final = 100_000  # how far a scan seeks when max(rowid) is unreadable

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
    """The data folder cannot be used (read-only, full, corrupt); the message says what to do.

    ``aviso`` keeps the message untranslated; ``str()`` is it in the store's language."""

    def __init__(self, aviso: Aviso, idioma: str = SOURCE) -> None:
        super().__init__(aviso.texto(idioma))
        self.aviso = aviso


@dataclass(frozen=True)
class Aviso:
    """A message for the player: a Spanish template, a reason (translated too) and values.

    A template with a count has its plural too (``plural``, chosen by ``cuenta`` through gettext's
    ngettext). A value that is itself worded in the player's language (another Aviso, such as
    a count of its own, or a card's name, mesa.cartas.Nombres) is anything with ``texto(idioma)``.

        >>> Aviso("{n} mano", datos={"n": 1}, plural="{n} manos", cuenta=1).texto("en")
        '1 hand'
    """

    plantilla: str
    motivo: str = ""
    datos: dict[str, Any] = field(default_factory=dict)
    plural: str = ""
    cuenta: int = 1

    def texto(self, idioma: str = SOURCE) -> str:
        motivo = t(self.motivo, idioma) if self.motivo else ""  # gettext("") is the header
        plantilla = tn(self.plantilla, self.plural, self.cuenta, idioma) if self.plural else t(self.plantilla, idioma)
        datos = {k: v.texto(idioma) if callable(getattr(v, "texto", None)) else v for k, v in self.datos.items()}
        return plantilla.format(motivo=motivo, **datos)


# a recovered file's message: its two counts are worded apart, each with its plural
RECUPERADO: Final = N_(
    "El fichero de datos estaba dañado. Se ha guardado aparte como {fichero} y se han recuperado {manos} de {partidas}."
)
RECUPERADO_COPIA: Final = N_(
    "El fichero de datos estaba dañado. Se ha guardado aparte como {fichero} "
    "y se han recuperado {manos} de {partidas} (también de la copia de seguridad)."
)
MANOS_N: Final = Nn_("{n} mano", "{n} manos")
PARTIDAS_N: Final = Nn_("{n} partida", "{n} partidas")


def baraja_registrada(carpeta: str | Path) -> Path:
    """Where a data folder's registered deck lives (vision.registered_deck.default_deck_path()
    for the default folder): the app, `mus leer` and `mus mano` share it."""
    return Path(carpeta) / DECK_FILE


class _Danado(Exception):
    """The database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB or quick_check failed)."""


def _danado(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def _motivo(exc: BaseException, where: Path) -> str:
    """Why the folder cannot be used, in plain words (a Spanish msgid)."""
    text = str(exc).lower()
    if _danado(exc) or "malformed" in text or "not a database" in text:
        return N_("el fichero de datos está dañado")
    solo_lectura = where.is_dir() and not os.access(where, os.W_OK)  # also a read-only mount
    if "readonly" in text or "read-only" in text or isinstance(exc, PermissionError) or solo_lectura:
        return N_("la carpeta de datos es de solo lectura")
    if "full" in text or "no space" in text:
        return N_("el disco está lleno")
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        return N_("esa ruta no es una carpeta")
    if "unable to open" in text or isinstance(exc, OSError):
        return N_("no se puede abrir ni crear el fichero de datos en esa carpeta")
    return str(exc)


def _explain(exc: BaseException, where: Path, idioma: str = SOURCE) -> StorageError:
    return StorageError(
        Aviso(
            N_("No se puede guardar en {carpeta}: {motivo}. Lo ya guardado no se pierde."),
            _motivo(exc, where),
            {"carpeta": str(where)},
        ),
        idioma,
    )


def _conectar(path: Path) -> sqlite3.Connection:
    """Open the database for writing, checked; _Danado when its pages are damaged."""
    if not path.exists():  # a new database: the owner's only (SQLite gives its WAL the same mode)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, PRIVATE_MODE))
    conn = sqlite3.connect(path, timeout=5, isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable on app kill
        check = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if check != ["ok"]:
            raise _Danado("; ".join(check[:3]))
        conn.executescript(_SCHEMA)
        _probar_escritura(conn)
    except sqlite3.Error as exc:
        conn.close()
        if _danado(exc):
            raise _Danado(str(exc)) from None
        raise
    except _Danado:
        conn.close()
        raise
    return conn


def _probar_escritura(conn: sqlite3.Connection) -> None:
    """Raise SQLITE_READONLY now, not at the first hand: SQLite opens a file it cannot write
    (a read-only mount, a read-only file) for reading without a word. The write is the
    header's own value, rolled back."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"PRAGMA user_version={version}")
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")


# -- recovery: read what a damaged file still holds, row by row ------------------------------


def _filas(conn: sqlite3.Connection, tabla: str) -> dict[Any, tuple]:
    """Every row of ``tabla`` that can still be read, by rowid. A damaged page makes the
    cursor raise; the scan then seeks on past it, one rowid at a time."""
    rows: dict[Any, tuple] = {}
    try:
        hi = conn.execute(f"SELECT max(rowid) FROM {tabla}").fetchone()[0] or 0
    except sqlite3.Error:
        hi = _MAX_ROWID_SIN_INDICE
    last = -1
    while last < hi:
        try:
            cur = conn.execute(f"SELECT rowid, * FROM {tabla} WHERE rowid > ? ORDER BY rowid", (last,))
            for row in cur:
                rows[row[0]] = tuple(row[1:])
                last = row[0]
            break
        except sqlite3.Error:
            last += 1  # the row after the last good one is on the damaged page: skip it
    return rows


def _leer_todo(path: Path, uri: str | None = None) -> dict[str, dict[Any, tuple]]:
    """What a (maybe damaged) database holds, table by table; {} if it cannot be read."""
    try:
        conn = sqlite3.connect(uri or str(path), uri=uri is not None)
    except sqlite3.Error:
        return {}
    try:
        hay = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error:  # no readable schema (a damaged header): nothing to find
        conn.close()
        return {}
    try:
        return {tabla: _filas(conn, tabla) for tabla in _TABLAS if tabla in hay}
    finally:
        conn.close()


def _unir(*fuentes: dict[str, dict[Any, tuple]]) -> dict[str, dict[Any, tuple]]:
    """Rows of every source by table and key; a later source wins (the newer copy). The
    settings go by their key, the rest by id: nothing is ever deleted, so a union loses nothing."""
    out: dict[str, dict[Any, tuple]] = {tabla: {} for tabla in _TABLAS}
    for fuente in fuentes:
        for tabla, rows in fuente.items():
            for rowid, row in rows.items():
                out[tabla][row[0] if tabla == "ajustes" else rowid] = row
    return out


def _volcar(conn: sqlite3.Connection, filas: dict[str, dict[Any, tuple]]) -> None:
    """Write recovered rows into a fresh database (with the schema) in one transaction."""
    conn.executescript(_SCHEMA)
    conn.execute("BEGIN")
    for tabla, rows in filas.items():
        for row in rows.values():
            marks = ",".join("?" * len(row))
            with contextlib.suppress(sqlite3.Error):  # a row with damaged values: left out
                conn.execute(f"INSERT OR REPLACE INTO {tabla} VALUES ({marks})", row)
    conn.execute("COMMIT")


def _aparte(path: Path) -> Path:
    """Move the damaged file (and its WAL) aside, renamed with the time; never deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.stem}.danado-{stamp}{path.suffix}")
    k = 1
    while dest.exists():
        k += 1
        dest = path.with_name(f"{path.stem}.danado-{stamp}-{k}{path.suffix}")
    for extra in ("-wal", "-shm"):
        side = Path(f"{path}{extra}")
        if side.exists():
            os.replace(side, f"{dest}{extra}")
    os.replace(path, dest)
    return dest


def _rescatar(folder: Path) -> Aviso:
    """Recover a damaged database: its readable rows plus the backup's, into a new file.

    The damaged file is read first (with its WAL: the latest hands), then moved aside."""
    path, copia = folder / DB_NAME, folder / COPIA_NAME
    leido = _leer_todo(path)
    respaldo = _leer_todo(copia) if copia.is_file() else {}
    filas = _unir(respaldo, leido)
    aparte = _aparte(path)
    mem = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _volcar(mem, filas)
        write_atomic(path, mem.serialize(), private=True)
    finally:
        mem.close()
    manos = sum(1 for r in filas["manos"].values() if not r[6])  # r[6]: deshecha
    plantilla = RECUPERADO_COPIA if respaldo else RECUPERADO
    n_partidas = len(filas["partidas"])
    return Aviso(
        plantilla,
        datos={
            "fichero": aparte.name,
            "manos": Aviso(MANOS_N[0], datos={"n": manos}, plural=MANOS_N[1], cuenta=manos),
            "partidas": Aviso(PARTIDAS_N[0], datos={"n": n_partidas}, plural=PARTIDAS_N[1], cuenta=n_partidas),
        },
    )


def _en_memoria(path: Path) -> sqlite3.Connection:
    """An in-memory store holding what ``path`` has (opened read-only), to show and keep
    playing while the folder cannot be written."""
    mem = sqlite3.connect(":memory:", isolation_level=None)
    mem.row_factory = sqlite3.Row
    if path.is_file():
        uri = path.resolve().as_uri()
        # immutable=1: a WAL database whose -shm cannot be created in a read-only folder
        for extra in ("?mode=ro", "?mode=ro&immutable=1"):
            filas = _leer_todo(path, uri + extra)
            if any(filas.values()):
                _volcar(mem, filas)
                break
    mem.executescript(_SCHEMA)
    return mem


class Almacen:
    """All reads and writes of the app's data. Every public write is one transaction.

    ``aviso``: what happened on opening (a damaged file recovered), to tell once.
    ``problema``: set while nothing reaches the folder (kept in memory), to show throughout.
    ``idioma``: the language of the errors it raises; the app keeps it equal to its own.
    """

    def __init__(self, conn: sqlite3.Connection, carpeta: Path) -> None:
        self.conn = conn
        self.carpeta = carpeta
        self.aviso: Aviso | None = None
        self.problema: Aviso | None = None
        self.idioma = SOURCE

    @classmethod
    def abrir(cls, carpeta: str | Path | None = None) -> Almacen:
        """Open (or create) the folder's database, checked; a damaged one is recovered."""
        folder = Path(carpeta) if carpeta else default_data_dir()
        aviso = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                conn = _conectar(folder / DB_NAME)
            except _Danado:
                aviso = _rescatar(folder)
                conn = _conectar(folder / DB_NAME)
        except (OSError, sqlite3.Error, _Danado) as exc:
            raise _explain(exc, folder) from None
        store = cls(conn, folder)
        store.aviso = aviso
        store._copia_si_antigua()
        return store

    @property
    def guarda(self) -> bool:
        """False while the data stay in memory (the folder cannot be written)."""
        return self.problema is None

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
            raise _explain(exc, self.carpeta, self.idioma) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        # SQLite may already have rolled back by itself (SQLITE_FULL does).
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    # -- backup ---------------------------------------------------------------------------
    def copiar(self) -> bool:
        """Copy the database to COPIA_NAME: SQLite's online backup into memory, written
        atomically (the last good copy survives a kill), the owner's only. False when it cannot."""
        if not self.guarda:
            return False
        mem = sqlite3.connect(":memory:")
        try:
            self.conn.backup(mem)
            write_atomic(self.carpeta / COPIA_NAME, mem.serialize(), private=True)
        except (OSError, sqlite3.Error):
            return False  # the hand is stored; only the copy is missing
        finally:
            mem.close()
        return True

    def _copia_si_antigua(self) -> None:
        copia = self.carpeta / COPIA_NAME
        try:
            old = time.time() - copia.stat().st_mtime > COPIA_MAX_EDAD_S
        except OSError:
            old = True
        if old:
            self.copiar()

    def _tras_mano(self, n: int, terminada: bool) -> None:
        """After a confirmed hand: checkpoint the WAL into the file, and back up when due."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        if terminada or n % COPIA_CADA_MANOS == 0:
            self.copiar()

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
            "id": row["id"],
            "creada": row["creada"],
            "reglas": json.loads(row["reglas"]),
            "jugadores": json.loads(row["jugadores"]),
            "mano_inicial": row["mano_inicial"],
            "terminada": bool(row["terminada"]),
            "ganador": row["ganador"],
        }

    def partida(self, partida_id: int) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT * FROM partidas WHERE id=?", (partida_id,)).fetchone()
        return self._partida_dict(row) if row else None

    def partida_abierta(self) -> dict[str, Any] | None:
        """The most recent unfinished partida, to resume on start."""
        row = self.conn.execute("SELECT * FROM partidas WHERE terminada=0 ORDER BY id DESC LIMIT 1").fetchone()
        return self._partida_dict(row) if row else None

    def partidas(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT * FROM partidas ORDER BY id DESC").fetchall()
        return [self._partida_dict(r) for r in rows]

    # -- manos ----------------------------------------------------------------------------
    def guardar_mano(
        self,
        partida_id: int,
        registro: dict,
        tanteo: dict,
        origen: str = "manual",
        terminada: bool = False,
        ganador: int | None = None,
        id_mano: str | None = None,
        n: int | None = None,
    ) -> int:
        """Store one confirmed hand (and the partida's end if it ended) in one transaction.
        ``id_mano`` and ``n`` are not needed: one tablet enters its hands one at a time."""
        with self._tx() as db:
            n = db.execute("SELECT COUNT(*) FROM manos WHERE partida_id=? AND deshecha=0", (partida_id,)).fetchone()[0]
            cur = db.execute(
                "INSERT INTO manos (partida_id, n, registro, tanteo, origen, creada) VALUES (?,?,?,?,?,?)",
                (partida_id, n + 1, json.dumps(registro), json.dumps(tanteo), origen, time.time()),
            )
            db.execute("UPDATE partidas SET terminada=?, ganador=? WHERE id=?", (int(terminada), ganador, partida_id))
            rowid = int(cur.lastrowid or 0)
        self._tras_mano(n + 1, terminada)
        return rowid

    def deshacer_mano(self, partida_id: int, n: int | None = None) -> bool:
        """Mark the last hand (hand ``n`` if given) as undone (kept for the record); False when
        there is none or ``n`` is not the last."""
        with self._tx() as db:
            row = db.execute(
                "SELECT id, n FROM manos WHERE partida_id=? AND deshecha=0 ORDER BY n DESC LIMIT 1", (partida_id,)
            ).fetchone()
            if row is None or (n is not None and row["n"] != n):
                return False
            db.execute("UPDATE manos SET deshecha=1 WHERE id=?", (row["id"],))
            db.execute("UPDATE partidas SET terminada=0, ganador=NULL WHERE id=?", (partida_id,))
            return True

    def manos(self, partida_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT * FROM manos WHERE partida_id=? AND deshecha=0 ORDER BY n", (partida_id,)
        ).fetchall()
        return [
            {
                "n": r["n"],
                "registro": json.loads(r["registro"]),
                "tanteo": json.loads(r["tanteo"]),
                "origen": r["origen"],
            }
            for r in rows
        ]

    # -- corrections and referee ----------------------------------------------------------
    def guardar_correccion(
        self,
        partida_id: int | None,
        asiento: int | None,
        antes: str | None,
        despues: str,
        confianza: float | None = None,
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO correcciones (partida_id, asiento, antes, despues, confianza,"
                " creada) VALUES (?,?,?,?,?,?)",
                (partida_id, asiento, antes, despues, confianza, time.time()),
            )

    def correcciones(self, partida_id: int | None) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT * FROM correcciones WHERE partida_id IS ? ORDER BY id", (partida_id,)
        ).fetchall()
        return [dict(r) for r in rows]

    def guardar_arbitraje(self, partida_id: int | None, entrada: dict) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO arbitraje (partida_id, entrada, creada) VALUES (?,?,?)",
                (partida_id, json.dumps(entrada, ensure_ascii=False), time.time()),
            )

    def arbitraje(self, partida_id: int | None) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT entrada FROM arbitraje WHERE partida_id IS ? ORDER BY id", (partida_id,)
        ).fetchall()
        return [json.loads(r["entrada"]) for r in rows]

    # -- settings -------------------------------------------------------------------------
    def ajuste(self, clave: str, defecto: str = "") -> str:
        row = self.conn.execute("SELECT valor FROM ajustes WHERE clave=?", (clave,)).fetchone()
        return row["valor"] if row else defecto

    def guardar_ajuste(self, clave: str, valor: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO ajustes (clave, valor) VALUES (?,?) ON CONFLICT(clave) DO UPDATE SET valor=excluded.valor",
                (clave, valor),
            )

    # -- export ---------------------------------------------------------------------------
    def exportar_json(self, partida_id: int) -> list[dict]:
        """The partida's hand records, each in `mus tanteo`'s input format."""
        return [m["registro"] for m in self.manos(partida_id)]

    def exportar_csv(self, partida_id: int) -> str:
        return manos_csv(self.manos(partida_id))

    def escribir_export(self, partida_id: int, destino: Path | None = None) -> tuple[Path, Path]:
        """Write partida_<id>.json and .csv into destino (default: <data>/export)."""
        folder = destino or self.carpeta / "export"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            pj = folder / f"partida_{partida_id}.json"
            pc = folder / f"partida_{partida_id}.csv"
            write_atomic(pj, json.dumps(self.exportar_json(partida_id), ensure_ascii=False, indent=1), private=True)
            write_atomic(pc, self.exportar_csv(partida_id), private=True)
        except OSError as exc:
            raise _explain(exc, folder, self.idioma) from None
        return pj, pc


def manos_csv(manos: list[dict[str, Any]]) -> str:
    """A partida's hands as CSV, one row each (the tablet's export and the phone pages' alike)."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(
        ["mano", "mano_asiento", "manos", "lances", "tantos_p0", "tantos_p1", "marcador_p0", "marcador_p1", "origen"]
    )
    for m in manos:
        reg, tan = m["registro"], m["tanteo"]
        pts = [sum(v[i] for v in tan.get("por_lance", {}).values()) for i in (0, 1)]
        marc = tan.get("marcador", [None, None])
        w.writerow(
            [
                m["n"],
                reg.get("mano"),
                " | ".join(reg.get("manos", [])),
                json.dumps(reg.get("lances", {}), ensure_ascii=False),
                pts[0],
                pts[1],
                marc[0],
                marc[1],
                m["origen"],
            ]
        )
    return out.getvalue()


def abrir_o_memoria(carpeta: str | Path | None) -> Almacen:
    """Open the data folder; if it cannot be written, an in-memory store holding what the
    folder's database has (read-only), with ``problema`` saying why nothing is saved."""
    try:
        return Almacen.abrir(carpeta)
    except StorageError as exc:
        folder = Path(carpeta) if carpeta else default_data_dir()
        store = Almacen(_en_memoria(folder / DB_NAME), folder)
        store.problema = Aviso(
            N_(
                "No se guarda nada: {motivo} ({carpeta}). Se ven las partidas "
                "guardadas, pero lo que se juegue ahora se pierde al cerrar."
            ),
            exc.aviso.motivo,
            {"carpeta": str(folder)},
        )
        return store
