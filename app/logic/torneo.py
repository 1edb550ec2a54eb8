"""A table's tablet in a tournament: join with the table's code, queue every confirmed hand,
send the queue in order; a lost network loses nothing and counts nothing twice.

Plain standard library (urllib, sqlite3), no window: the screens and the tests drive it. The
queue lives in its own SQLite file in the data folder (``torneo.sqlite3``), written in one
transaction per hand before anything is sent, so a killed app sends it when it comes back.
Each hand carries an id made here once: the server stores the same id once and answers a
resend with its first answer.

    >>> codigo_de("musmesa-mesa:ab2c3d4e5f"), codigo_de(" AB2C 3D4E 5F ")
    ('AB2C3D4E5F', 'AB2C3D4E5F')
    >>> codigo_de("hola") is None
    True
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QR_PREFIX = "musmesa-mesa:"  # what the organiser's page puts in each table's QR code
CODE = re.compile(r"[A-HJ-NP-Z2-9]{10}")  # 10 characters, no 0/O/1/I
DB_FILE = "torneo.sqlite3"
TIMEOUT = 5.0  # seconds a request may take before the hand waits in the queue

Transport = Callable[[str, str, dict[str, Any] | None, str | None], tuple[int, dict[str, Any]]]


class TorneoError(RuntimeError):
    """The server refused something for good (a wrong code, a hand it will never take); the
    message is the server's or ours, in Spanish."""


class SinRed(RuntimeError):
    """The server cannot be reached now: try again later, nothing is lost."""


def codigo_de(texto: str) -> str | None:
    """The table's code from what was typed or read from the QR code, or None."""
    t = texto.strip()
    if t.lower().startswith(QR_PREFIX):
        t = t[len(QR_PREFIX):]
    t = re.sub(r"[\s-]", "", t).upper()
    return t if CODE.fullmatch(t) else None


def leer_qr(frame: Any) -> str | None:
    """The table's code in a camera frame (BGR) showing the organiser's QR code, or None."""
    import cv2  # lazy: only the join screen's camera needs OpenCV

    text, _, _ = cv2.QRCodeDetector().detectAndDecode(frame)
    return codigo_de(text) if text else None


def http(base: str) -> Transport:
    """Requests to the server at ``base`` (``http://host:port``) with urllib."""
    def send(method: str, path: str, body: dict[str, Any] | None,
             token: str | None) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"{}")
            except ValueError:
                return exc.code, {}
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise SinRed(f"no se llega al servidor del torneo ({exc})") from None
    return send


@dataclass(frozen=True)
class Mesa:
    """The match this tablet plays: what the server said when it joined."""

    servidor: str
    token: str
    torneo: str
    partida: dict[str, Any]

    @property
    def parejas(self) -> list[str | None]:
        return list(self.partida.get("parejas", []))


class ClienteTorneo:
    """The tablet's side of one tournament, with its queue of hands on disk."""

    def __init__(self, datos: Path, transport: Callable[[str], Transport] = http) -> None:
        self._transport = transport
        self._db = sqlite3.connect(Path(datos) / DB_FILE, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(
            "CREATE TABLE IF NOT EXISTS mesa (id INTEGER PRIMARY KEY CHECK (id = 1),"
            " servidor TEXT, token TEXT, torneo TEXT, partida TEXT);"
            "CREATE TABLE IF NOT EXISTS cola (numero INTEGER PRIMARY KEY, id TEXT UNIQUE,"
            " cuerpo TEXT NOT NULL, estado TEXT NOT NULL DEFAULT 'pendiente', error TEXT)")

    def close(self) -> None:
        self._db.close()

    # --- joining --------------------------------------------------------------------------

    def unirse(self, servidor: str, codigo: str) -> Mesa:
        """Join the match now played at the table of ``codigo``; the queue of an earlier
        match is kept only while it still has hands to send."""
        code = codigo_de(codigo)
        if code is None:
            raise TorneoError("el código de mesa tiene 10 letras y cifras (sin 0, O, 1 ni I)")
        if self.pendientes():
            raise TorneoError("quedan manos sin enviar de la partida anterior: envíalas antes")
        status, doc = self._transport(servidor)("POST", "/api/mesas/unirse", {"codigo": code}, None)
        if status != 200:
            raise TorneoError(doc.get("error") or f"el servidor respondió {status}")
        mesa = Mesa(servidor, doc["token"], doc["torneo"]["nombre"], doc["partida"])
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM cola")
            self._db.execute("INSERT OR REPLACE INTO mesa VALUES (1, ?, ?, ?, ?)",
                             (servidor, mesa.token, mesa.torneo, json.dumps(mesa.partida)))
            self._db.execute("COMMIT")
        return mesa

    def mesa(self) -> Mesa | None:
        row = self._db.execute("SELECT servidor, token, torneo, partida FROM mesa").fetchone()
        return None if row is None else Mesa(row[0], row[1], row[2], json.loads(row[3]))

    def salir(self) -> None:
        """Leave the tournament (its unsent hands go with it: the caller asks first)."""
        self._db.execute("DELETE FROM mesa")
        self._db.execute("DELETE FROM cola")

    # --- the queue ------------------------------------------------------------------------

    def encolar(self, registro: Mapping[str, Any], tanteo: tuple[int, int],
                foto: bytes | None = None) -> str:
        """Queue one confirmed hand (the ``mus tanteo`` record and its tanteo); its id."""
        mesa = self.mesa()
        if mesa is None:
            raise TorneoError("esta tableta no está unida a ningún torneo")
        last = self._db.execute("SELECT MAX(numero) FROM cola").fetchone()[0]
        numero = (last or mesa.partida.get("siguiente", 1) - 1) + 1
        body = {"id": uuid.uuid4().hex, "numero": numero, "registro": dict(registro),
                "tanteo": [int(tanteo[0]), int(tanteo[1])]}
        if foto:
            body["foto"] = hashlib.sha256(foto).hexdigest()
        self._db.execute("INSERT INTO cola (numero, id, cuerpo) VALUES (?, ?, ?)",
                         (numero, body["id"], json.dumps(body)))
        return body["id"]

    def pendientes(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM cola WHERE estado = 'pendiente'").fetchone()[0]

    def rechazadas(self) -> list[tuple[int, str]]:
        """Hands the server refused for good: (numero, its message)."""
        return self._db.execute(
            "SELECT numero, error FROM cola WHERE estado = 'rechazada' ORDER BY numero").fetchall()

    def enviar(self) -> int:
        """Send the pending hands in order until the queue is empty, the network fails or the
        server refuses one (then the rest wait behind it: a hand count must not skip); how
        many were stored."""
        mesa = self.mesa()
        if mesa is None:
            return 0
        send = self._transport(mesa.servidor)
        sent = 0
        rows = self._db.execute(
            "SELECT numero, cuerpo FROM cola WHERE estado = 'pendiente' ORDER BY numero").fetchall()
        for numero, cuerpo in rows:
            try:
                status, doc = send("POST", "/api/mesa/manos", json.loads(cuerpo), mesa.token)
            except SinRed:
                return sent
            if status in (200, 201):
                self._db.execute("UPDATE cola SET estado = 'enviada' WHERE numero = ?", (numero,))
                sent += 1
                continue
            if status >= 500 or status == 429:
                return sent  # the server is busy or restarting: later
            self._db.execute("UPDATE cola SET estado = 'rechazada', error = ? WHERE numero = ?",
                             (doc.get("error") or f"el servidor respondió {status}", numero))
            return sent
        return sent
