"""Rate limits and the logins' per-account waits, kept in the database (table ``contador``) so
that every process and every host over one database counts together: two `mus servir` behind a
proxy give a client the same limit one would.

A limit (``Limite``) allows ``n`` requests per ``ventana`` seconds for each key, as a generic
cell rate algorithm: one row per key holds the time its allowance is used up to (``marca``);
a request is allowed when that time, moved one request on, is within the window from now. A
burst of ``n`` passes at once, then one request each ``ventana / n`` seconds. Each check is one
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` (SQLite 3.35+ and PostgreSQL), atomic
whatever the number of processes; a big limit is taken in lots (``Contadores``), so that a
busy address costs a query every few dozen requests. A row whose time has passed means nothing:
the rows are pruned a minute apart by each process. Times are the wall clock (``time.time``),
which the hosts share.

The key of a limit's rows carries its size and window: hosts must run the same limits (the same
options or environment) to share them.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Float, Integer, case, delete, literal, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from server.modelos.torneo import Contador

PODA: Final = 60.0  # seconds between two prunings of the expired rows by one process
_TABLA: Final = Contador.__table__
_HOLGURA: Final = 1e-6  # n requests at the same instant fill the window exactly: float rounding


@dataclass(frozen=True)
class Limite:
    """At most ``n`` requests per ``ventana`` seconds for each key (an address, a table's token)."""

    nombre: str
    n: int
    ventana: float

    @property
    def clase(self) -> str:
        return f"limite:{self.nombre}/{self.n}/{self.ventana:g}"


def _clave(texto: str, largo: int = 128) -> str:
    """``texto`` as a key column holds it: a long one by its SHA-256."""
    return texto if len(texto) <= largo else hashlib.sha256(texto.encode()).hexdigest()


def _insertar(conn: Connection, valores: dict[str, Any], cambios: dict[str, Any]) -> Any:
    """Insert the row ``valores`` or, when its key is there, apply ``cambios`` to it (whose
    expressions read the row as it was); the row as it is afterwards."""
    dialecto = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialecto.insert(_TABLA).values(**valores)
    stmt = stmt.on_conflict_do_update(index_elements=["clase", "clave", "detalle"], set_=cambios)
    return conn.execute(stmt.returning(_TABLA.c.cuenta, _TABLA.c.marca)).one()


def _num(valor: float) -> Any:
    return literal(valor, Float)


class Contadores:
    """The limits over one database. A big limit (``n`` of ``LOTE`` or more) is taken from the
    database in lots of ``n // LOTE`` requests that this process then spends without a query, for
    as long as the lot stands for (``ventana / n`` each): the limits still hold across processes
    (whatever is spent was counted), at most one lot short per process, and the general limit
    (3000 a minute) costs a query every few dozen requests of a busy address, not every one."""

    LOTE: Final = 100
    MAX_LOTES: Final = 100_000  # addresses with a lot in hand: a flood cannot grow this without end

    def __init__(self, engine: Engine, reloj: Callable[[], float] = time.time) -> None:
        self.engine, self.reloj = engine, reloj
        self._podada = 0.0
        self._lotes: dict[tuple[str, str], tuple[int, float]] = {}  # key -> (requests left, until)
        self._lock = threading.Lock()

    def espera(self, limite: Limite, clave: str) -> float:
        """Count a request of ``clave`` against ``limite``: 0 when it is allowed, otherwise the
        seconds before the next one would be (the refused one is not counted)."""
        ahora = self.reloj()
        clave = _clave(clave)
        lote = max(1, limite.n // self.LOTE)
        if lote > 1 and self._gastar((limite.clase, clave), ahora):
            return 0.0
        paso = limite.ventana / limite.n
        c = _TABLA.c
        desde = case((c.marca > _num(ahora), c.marca), else_=_num(ahora))  # an old row starts afresh
        hueco = _num(limite.ventana + _HOLGURA + ahora)

        def cabe(k: int) -> Any:
            return desde + _num(k * paso) <= hueco

        # a whole lot when it fits, else one request, else none
        hasta = case((cabe(lote), desde + _num(lote * paso)), (cabe(1), desde + _num(paso)), else_=c.marca)
        cuantas = case((cabe(lote), literal(lote, Integer)), (cabe(1), literal(1, Integer)), else_=literal(0, Integer))
        with self.engine.begin() as conn:
            nueva = {"clase": limite.clase, "clave": clave, "detalle": ""}
            cuenta, marca = _insertar(
                conn,
                nueva | {"cuenta": lote, "marca": ahora + lote * paso, "caduca": ahora + lote * paso},
                {"marca": hasta, "caduca": hasta, "cuenta": cuantas},
            )
            if ahora - self._podada > PODA:
                self._podada = ahora
                conn.execute(delete(Contador).where(Contador.clase.startswith("limite:"), Contador.caduca < ahora))
        if cuenta > 1:
            with self._lock:
                if len(self._lotes) >= self.MAX_LOTES:
                    self._lotes = {k: v for k, v in self._lotes.items() if v[1] > ahora}
                self._lotes[(limite.clase, clave)] = (cuenta - 1, ahora + cuenta * paso)
        return 0.0 if cuenta else max(_HOLGURA, marca + paso - ahora - limite.ventana)

    def _gastar(self, clave: tuple[str, str], ahora: float) -> bool:
        """Spend one request of the lot in hand for ``clave``, if one is left and still stands."""
        with self._lock:
            quedan, hasta = self._lotes.get(clave, (0, 0.0))
            if quedan < 1 or hasta <= ahora:
                self._lotes.pop(clave, None)
                return False
            self._lotes[clave] = (quedan - 1, hasta)
            return True

    def permitir(self, limite: Limite, clave: str) -> bool:
        return self.espera(limite, clave) == 0.0


FALLOS_LIBRES: Final = 5  # wrong passwords an account takes before it must wait: typos
RETRASO_MAXIMO: Final = 300.0  # seconds: one guess every 5 min, under 300 a day, for an account under attack
OLVIDO: Final = 24 * 3600.0  # failures this old are forgotten
OLVIDO_DIRECCION: Final = 90 * 24 * 3600.0  # an address the account has not logged in from for this long
_FALLOS: Final = "fallos"
_CONOCIDA: Final = "conocida"


class Intentos:
    """Wrong passwords per account name, in the database. The name is counted as typed
    (casefolded), whether an account has it or not, so the answers tell no names apart.

    After ``FALLOS_LIBRES`` failures each further one makes the name wait 2, 4, 8 ... seconds
    (at most ``RETRASO_MAXIMO``) before its next try is checked; tries during the wait are
    answered 429 without checking. A right password after the wait works and clears the count:
    a wait, never a lock. An address the account logged in from before (one of its last
    ``MAX_DIRECCIONES``) does not wait, so an attacker elsewhere cannot keep the organiser out of
    her own laptop (the per-address limit still counts there). Each method runs in a
    transaction of its own, apart from the login's (a refused login rolls back, its failure
    stays counted)."""

    MAX_DIRECCIONES: Final = 16  # addresses remembered per account

    def __init__(self, engine: Engine, reloj: Callable[[], float] = time.time) -> None:
        self.engine, self.reloj = engine, reloj

    def espera(self, usuario: str, direccion: str) -> float:
        """Seconds ``usuario`` must still wait before a try from ``direccion`` is checked (0: none)."""
        clave = _clave(usuario.strip().casefold())
        with self.engine.connect() as conn:
            conocida = conn.scalar(
                select(Contador.marca).where(
                    Contador.clase == _CONOCIDA, Contador.clave == clave, Contador.detalle == _clave(direccion, 64)
                )
            )
            fila = conn.execute(
                select(Contador.cuenta, Contador.marca).where(Contador.clase == _FALLOS, Contador.clave == clave)
            ).one_or_none()
        if conocida is not None or fila is None:
            return 0.0
        n, ultimo = fila
        if n < FALLOS_LIBRES or self.reloj() - ultimo > OLVIDO:
            return 0.0
        return max(0.0, ultimo + min(2.0 ** (n - FALLOS_LIBRES + 1), RETRASO_MAXIMO) - self.reloj())

    def fallo(self, usuario: str) -> None:
        clave, t = _clave(usuario.strip().casefold()), self.reloj()
        c = _TABLA.c
        with self.engine.begin() as conn:
            _insertar(
                conn,
                {"clase": _FALLOS, "clave": clave, "detalle": "", "marca": t, "cuenta": 1, "caduca": t + OLVIDO},
                {
                    "cuenta": case((_num(t) - c.marca > _num(OLVIDO), literal(1, Integer)), else_=c.cuenta + 1),
                    "marca": _num(t),
                    "caduca": _num(t + OLVIDO),
                },
            )
            conn.execute(delete(Contador).where(Contador.clase.in_((_FALLOS, _CONOCIDA)), Contador.caduca < t))

    def acierto(self, usuario: str, direccion: str) -> None:
        clave, t = _clave(usuario.strip().casefold()), self.reloj()
        with self.engine.begin() as conn:
            conn.execute(delete(Contador).where(Contador.clase == _FALLOS, Contador.clave == clave))
            _insertar(
                conn,
                {
                    "clase": _CONOCIDA,
                    "clave": clave,
                    "detalle": _clave(direccion, 64),
                    "marca": t,
                    "cuenta": 1,
                    "caduca": t + OLVIDO_DIRECCION,
                },
                {"marca": _num(t), "caduca": _num(t + OLVIDO_DIRECCION)},
            )
            viejas = conn.scalars(
                select(Contador.detalle)
                .where(Contador.clase == _CONOCIDA, Contador.clave == clave)
                .order_by(Contador.marca.desc())
                .offset(self.MAX_DIRECCIONES)
            ).all()
            if viejas:
                conn.execute(
                    delete(Contador).where(
                        Contador.clase == _CONOCIDA, Contador.clave == clave, Contador.detalle.in_(viejas)
                    )
                )
