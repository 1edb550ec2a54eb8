"""The referee's log of a partida: an append-only list of entries chained by hashes.

Each entry stores the hash of the entry before it, and its own hash covers its content and
that link, so changing, removing, inserting or reordering any entry breaks every hash after
it. The last hash, the ``sello``, is what a referee writes on the acta (or reads out): a log
that still ends in the same sello has not been edited. With a ``clave`` (a secret only the
referee holds) the hashes are HMAC-SHA256, so nobody without it can even rebuild a
consistent chain. Pure standard library (hashlib, hmac, json)::

    >>> log = RegistroArbitro.nuevo({"reglas": "segovia", "jugadores": ["Ana", "Luis", "Eva", "Juan"]})
    >>> _ = log.anotar("fase", {"fase": "reparto"}, t=0.0)
    >>> _ = log.anotar("sena", {"jugador": 1, "gesto": "guino", "sena": "treinta y una"}, t=12.5)
    >>> data = log.to_json()
    >>> verificar(data).valido
    True
    >>> data["entradas"][2]["datos"]["gesto"] = "morro"   # someone edits the report
    >>> v = verificar(data)
    >>> v.valido, v.entrada
    (False, 2)
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from scoring.errors import ScoringError
from scoring.inputs import excerpt

FORMATO: Final = "musmesa-arbitro/1"
GENESIS: Final = "0" * 64
TIPOS: Final = ("inicio", "vigilar", "mano", "fase", "sena", "cartas", "informe", "declaraciones", "nota", "cierre")


class RegistroArbitroError(ScoringError):
    """A log that cannot be read, or an entry that cannot be recorded."""


def _canonico(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, UTF-8. NaN/inf are refused (not JSON)."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RegistroArbitroError(f"datos no representables en JSON: {exc}") from None
    return text.encode("utf-8")


def calcular_hash(contenido: Mapping[str, Any], clave: bytes | None = None) -> str:
    """SHA-256 (or HMAC-SHA256 with ``clave``) of an entry's content, as hex."""
    data = _canonico(contenido)
    if clave is None:
        return hashlib.sha256(data).hexdigest()
    return hmac.new(clave, data, hashlib.sha256).hexdigest()


def huella_archivo(path: str | Path) -> str:
    """SHA-256 of a file (a seña thumbnail, a photo of the cards) to record in an entry."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class EntradaRegistro:
    """One entry of the log. ``t``: seconds on the referee's clock (None if not timed)."""

    indice: int
    tipo: str
    datos: Mapping[str, Any]
    t: float | None
    anterior: str
    hash: str

    def contenido(self) -> dict[str, Any]:
        return {"indice": self.indice, "tipo": self.tipo, "datos": self.datos, "t": self.t, "anterior": self.anterior}

    def to_json(self) -> dict[str, Any]:
        return {**self.contenido(), "hash": self.hash}


@dataclass(frozen=True, slots=True)
class Verificacion:
    """Result of checking a log: ``entrada`` is the first entry that fails (None if valid)."""

    valido: bool
    entrada: int | None = None
    motivo: str = ""
    sello: str = ""

    def __bool__(self) -> bool:
        return self.valido


class RegistroArbitro:
    """An append-only referee log. Entries are immutable; only ``anotar`` adds to the log.

    Entry types (TIPOS) and the ``datos`` the app is expected to put in them:
    ``inicio`` (the partida: reglas, jugadores), ``vigilar`` (asiento, jugador watched),
    ``mano`` (numero, mano), ``fase`` (fase; ``t`` is the tap time), ``sena`` (the event as
    `mus senas` writes it plus jugador, and miniatura with ``huella_archivo`` of the
    thumbnail), ``cartas`` (jugador, cartas), ``informe`` (jugador and ``Informe.to_json()``),
    ``declaraciones``, ``nota`` (texto) and ``cierre`` (written by ``cerrar``).
    """

    def __init__(self, clave: bytes | None = None) -> None:
        self._clave = clave
        self._entradas: list[EntradaRegistro] = []

    @classmethod
    def nuevo(cls, partida: Mapping[str, Any], clave: bytes | None = None) -> RegistroArbitro:
        """A log whose first entry (``inicio``) describes the partida."""
        log = cls(clave)
        log.anotar("inicio", partida)
        return log

    @property
    def entradas(self) -> tuple[EntradaRegistro, ...]:
        return tuple(self._entradas)

    @property
    def sello(self) -> str:
        """Hash of the last entry: the value to write on the acta."""
        return self._entradas[-1].hash if self._entradas else GENESIS

    @property
    def sello_corto(self) -> str:
        """The first 16 hex digits of the sello, short enough to copy onto a paper acta."""
        return self.sello[:16]

    @property
    def cerrado(self) -> bool:
        return bool(self._entradas) and self._entradas[-1].tipo == "cierre"

    def anotar(self, tipo: str, datos: Mapping[str, Any], t: float | None = None) -> EntradaRegistro:
        """Append an entry and return it."""
        if tipo not in TIPOS:
            raise RegistroArbitroError(f"tipo de entrada desconocido {tipo!r} ({', '.join(TIPOS)})")
        if self.cerrado:
            raise RegistroArbitroError("el registro está cerrado: no admite más entradas")
        if not isinstance(datos, Mapping):
            raise RegistroArbitroError("datos debe ser un objeto")
        if t is not None and (not isinstance(t, int | float) or isinstance(t, bool)):
            raise RegistroArbitroError(f"t debe ser un número de segundos, no {t!r}")
        datos = json.loads(_canonico(dict(datos)))  # a private JSON copy: later edits cannot leak in
        indice, segundos = len(self._entradas), None if t is None else float(t)
        contenido = {"indice": indice, "tipo": tipo, "datos": datos, "t": segundos, "anterior": self.sello}
        entrada = EntradaRegistro(indice, tipo, datos, segundos, self.sello, calcular_hash(contenido, self._clave))
        self._entradas.append(entrada)
        return entrada

    def cerrar(self, t: float | None = None) -> str:
        """Close the log (no entry may follow) and return the sello."""
        self.anotar("cierre", {"entradas": len(self._entradas)}, t)
        return self.sello

    def to_json(self) -> dict[str, Any]:
        return {
            "formato": FORMATO,
            "algoritmo": "hmac-sha256" if self._clave else "sha256",
            "entradas": [e.to_json() for e in self._entradas],
            "sello": self.sello,
        }

    def guardar(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any, clave: bytes | None = None) -> RegistroArbitro:
        """Rebuild a log from its JSON, refusing one whose chain does not verify."""
        check = verificar(data, clave)
        if not check:
            raise RegistroArbitroError(f"registro alterado o dañado en la entrada {check.entrada}: {check.motivo}")
        log = cls(clave)
        for e in data["entradas"]:
            log._entradas.append(EntradaRegistro(e["indice"], e["tipo"], e["datos"], e["t"], e["anterior"], e["hash"]))
        return log

    @classmethod
    def cargar(cls, path: str | Path, clave: bytes | None = None) -> RegistroArbitro:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise RegistroArbitroError(f"no se puede leer {path}: {exc.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RegistroArbitroError(f"{path} no es un registro JSON: {exc}") from None
        return cls.from_json(data, clave)


_CAMPOS: Final = frozenset({"indice", "tipo", "datos", "t", "anterior", "hash"})


def verificar(data: Any, clave: bytes | None = None, sello: str | None = None) -> Verificacion:
    """Check a log's JSON: every link, every hash and the final sello.

    ``sello``: the value written on the acta; if given, the log must end with it (this is what
    catches a forger who rebuilt the whole chain without a clave).
    """
    if not isinstance(data, Mapping) or data.get("formato") != FORMATO:
        return Verificacion(False, None, f"no es un registro {FORMATO}")
    algoritmo = "hmac-sha256" if clave else "sha256"
    if data.get("algoritmo") != algoritmo:
        return Verificacion(
            False,
            None,
            f"algoritmo {excerpt(repr(data.get('algoritmo')))}; se esperaba {algoritmo!r} (¿falta o sobra la clave?)",
        )
    entradas = data.get("entradas")
    if not isinstance(entradas, list):
        return Verificacion(False, None, "falta la lista de entradas")
    anterior = GENESIS
    for i, e in enumerate(entradas):
        motivo = _motivo(e, i, anterior, clave)
        if motivo:
            return Verificacion(False, i, motivo)
        anterior = e["hash"]
    if data.get("sello") != anterior:
        return Verificacion(False, len(entradas), "el sello no coincide con la última entrada")
    if sello is not None and not _mismo_sello(sello, anterior):
        return Verificacion(False, len(entradas), "el sello no coincide con el del acta")
    return Verificacion(True, None, "", anterior)


def _mismo_sello(escrito: str, sello: str) -> bool:
    """The acta may carry the sello shortened to its first 16 hex digits (at least 12)."""
    escrito = escrito.strip().lower()
    return len(escrito) >= 12 and sello.startswith(escrito)


def _motivo(e: Any, i: int, anterior: str, clave: bytes | None) -> str:
    if not isinstance(e, Mapping) or set(e) != _CAMPOS:
        return "entrada mal formada"
    if e["indice"] != i:
        return f"índice {excerpt(e['indice'])} fuera de orden"
    if e["tipo"] not in TIPOS:
        return f"tipo desconocido {excerpt(repr(e['tipo']))}"
    if e["anterior"] != anterior:
        return "no enlaza con la entrada anterior (borrada, insertada o reordenada)"
    contenido = {k: e[k] for k in ("indice", "tipo", "datos", "t", "anterior")}
    try:
        expected = calcular_hash(contenido, clave)
    except RegistroArbitroError as exc:
        return str(exc)
    # compare_digest takes ASCII text only; a hash with any other character is wrong anyway
    if not isinstance(e["hash"], str) or not e["hash"].isascii() or not hmac.compare_digest(expected, e["hash"]):
        return "el contenido no coincide con su hash (entrada modificada)"
    return ""
