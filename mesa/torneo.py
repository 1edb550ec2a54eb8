"""A table's tablet in a tournament: join with the table's code, queue every confirmed hand,
send the queue in order; a lost network loses nothing and counts nothing twice.

Plain standard library (urllib, sqlite3), no window: the screens and the tests drive it. The
queue lives in its own SQLite file in the data folder (``torneo.sqlite3``), written in one
transaction per hand before anything is sent, so a killed app sends it when it comes back.
Each hand carries an id made here once: the server stores the same id once and answers a
resend with its first answer.

A hand the server scores differently (422 with ``tanteo_servidor``) is sent again at once under
a new id (``<id>:s``) with the server's tanteo and the table's own as ``discrepancia``: the
server keeps both for the referee and the queue goes on. The hands behind it are sent without
their ``marcador`` (it may be the table's count before the correction; the server fills its
own). Any other refusal sets the hand aside as ``rechazada`` with the server's words; the hands
behind it stay in the queue, held, because the server counts a match's hands in order: they go
once the refused one is sent again (:meth:`ClienteTorneo.reintentar`, after the referee has
seen it) or the table joins the same match again with its code. Nothing is deleted from the
queue but by leaving the tournament, and the app's own partida keeps every hand in any case.

Messages are Spanish msgids translated by mesa.i18n in the client's ``idioma``; the server is
asked for its own in that language too (Accept-Language).

The contract with the server (the code, the QR code's link, the hand's body and the corrected
hand) is scoring.protocolo's, shared with torneo/.

    >>> TorneoError(N_("el servidor respondió {estado}"), estado=500).texto("en")
    'the server answered 500'
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mesa.i18n import N_, SOURCE, t
from scoring.protocolo import SUFIJO_CORREGIDA, codigo_de, corregida, tanteo_del_servidor

DB_FILE = "torneo.sqlite3"
TIMEOUT = 5.0  # seconds a request may take before the hand waits in the queue
TOKEN_CADUCADO = (401, 403, 404)  # refusals that joining again with the code mends

Transport = Callable[[str, str, dict[str, Any] | None, str | None], tuple[int, dict[str, Any]]]


class MensajeTorneo(RuntimeError):
    """A message for the player: a Spanish msgid and its values, or the server's own words
    (already in the language asked for, never translated here)."""

    def __init__(self, plantilla: str, servidor: bool = False, **datos: Any) -> None:
        self.plantilla, self.servidor, self.datos = plantilla, servidor, datos
        super().__init__(self.texto())

    def texto(self, idioma: str = SOURCE) -> str:
        if self.servidor:
            return self.plantilla
        return t(self.plantilla, idioma).format(**self.datos)


class TorneoError(MensajeTorneo):
    """The server refused something for good (a wrong code, a hand it will never take)."""


class SinRed(MensajeTorneo):
    """The server cannot be reached now: try again later, nothing is lost."""


def leer_qr(frame: Any) -> str | None:
    """The table's code in a camera frame (BGR) showing the organiser's QR code, or None."""
    text = texto_qr(frame)
    return codigo_de(text) if text else None


def texto_qr_cualquiera(frame: Any) -> str:
    """What any QR code in a camera frame (BGR) holds, or "" when none is read.

    OpenCV's classic detector misses about 2 in 100 of the tables' links even when printed
    sharp (measured on 400 random codes: 8 missed, all read by the ArUco-based detector, which
    missed none), so a frame it cannot read goes to the other detector."""
    import cv2  # lazy: only the join screen's camera needs OpenCV

    for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        text, _, _ = detector.detectAndDecode(frame)
        if text:
            return str(text)
    return ""


def texto_qr(frame: Any) -> str | None:
    """What a QR code in a camera frame (BGR) holds when it holds a table's code (the link of
    the table's page names its server too: scoring.protocolo.servidor_de), or None."""
    text = texto_qr_cualquiera(frame)
    return text if text and codigo_de(text) else None


def accept_language(idioma: str) -> str:
    return SOURCE if idioma == SOURCE else f"{idioma}, {SOURCE};q=0.5"


def http(base: str, idioma: str = SOURCE, timeout: float = TIMEOUT) -> Transport:
    """Requests to the server at ``base`` (``http://host:port``) with urllib; the server
    answers its errors in ``idioma``; ``timeout``: the seconds each may take."""

    def send(method: str, path: str, body: dict[str, Any] | None, token: str | None) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        req.add_header("Accept-Language", accept_language(idioma))
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"{}")
            except ValueError:
                return exc.code, {}
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise SinRed(
                N_("no se llega al servidor del torneo ({motivo})"), motivo=getattr(exc, "reason", exc)
            ) from None

    return send


@dataclass(frozen=True)
class MesaUnida:
    """The match this tablet plays: what the server said when it joined."""

    servidor: str
    token: str
    torneo: str
    partida: dict[str, Any]

    @property
    def parejas(self) -> list[str | None]:
        return list(self.partida.get("parejas", []))

    @property
    def primera(self) -> int:
        """The server's number of this tablet's first hand of the match."""
        return int(self.partida.get("primera", self.partida.get("siguiente", 1)))


@dataclass(frozen=True)
class Rechazada:
    """A hand the server refused: its number, the server's words, the HTTP status and how
    many hands wait behind it."""

    numero: int
    motivo: str
    estado: int
    detras: int

    @property
    def unirse_otra_vez(self) -> bool:
        """Whether joining again with the table's code mends it (the token is no longer good)."""
        return self.estado in TOKEN_CADUCADO


@dataclass(frozen=True)
class CorreccionServidor:
    """A hand the server scored differently: the table's tanteo, the server's, its answer."""

    numero: int
    mesa: tuple[int, int]
    servidor: tuple[int, int]
    respuesta: dict[str, Any]


_COLUMNAS = {
    "respuesta": "TEXT",
    "estado_http": "INTEGER",
    "tanteo_mesa": "TEXT",
    "avisada": "INTEGER NOT NULL DEFAULT 0",
}
_NEXT = "SELECT numero, cuerpo FROM cola WHERE estado = 'pendiente' ORDER BY numero LIMIT 1"


class ClienteTorneo:
    """The tablet's side of one tournament, with its queue of hands on disk."""

    def __init__(self, datos: Path, transport: Callable[[str, str], Transport] = http, idioma: str = SOURCE) -> None:
        self._transport = transport
        self.idioma = idioma
        self._db = sqlite3.connect(Path(datos) / DB_FILE, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(
            "CREATE TABLE IF NOT EXISTS mesa (id INTEGER PRIMARY KEY CHECK (id = 1),"
            " servidor TEXT, token TEXT, torneo TEXT, partida TEXT);"
            "CREATE TABLE IF NOT EXISTS cola (numero INTEGER PRIMARY KEY, id TEXT UNIQUE,"
            " cuerpo TEXT NOT NULL, estado TEXT NOT NULL DEFAULT 'pendiente', error TEXT)"
        )
        have = {row[1] for row in self._db.execute("PRAGMA table_info(cola)")}
        for name, kind in _COLUMNAS.items():  # a queue file of an earlier version
            if name not in have:
                self._db.execute(f"ALTER TABLE cola ADD COLUMN {name} {kind}")

    def close(self) -> None:
        self._db.close()

    def _send(self, servidor: str) -> Transport:
        return self._transport(servidor, self.idioma)

    # --- joining --------------------------------------------------------------------------

    def unirse(self, servidor: str, codigo: str) -> MesaUnida:
        """Join the match now played at the table of ``codigo``. Joining the match the queue
        belongs to again keeps the queue (a new token; refused hands go back to be sent); the
        queue of another match must be empty first."""
        code = codigo_de(codigo)
        if code is None:
            raise TorneoError(N_("el código de mesa tiene 10 letras y cifras (sin 0, O, 1 ni I)"))
        status, doc = self._send(servidor)("POST", "/api/mesas/unirse", {"codigo": code}, None)
        if status != 200:
            raise self._refused(status, doc)
        mesa = MesaUnida(servidor, doc["token"], doc["torneo"]["nombre"], dict(doc["partida"]))
        misma = self.misma_partida(mesa)
        vieja = self.mesa()
        # the number of the first hand this tablet plays: its partida's hands map onto them
        mesa.partida["primera"] = (
            vieja.primera if misma and vieja is not None else int(mesa.partida.get("siguiente", 1))
        )
        if not misma and (self.pendientes() or self.rechazadas()):
            raise TorneoError(N_("quedan manos sin enviar de la partida anterior: envíalas antes"))
        with self._db:
            self._db.execute("BEGIN")
            if misma:
                self._db.execute(
                    "UPDATE cola SET estado = 'pendiente', error = NULL, estado_http = NULL WHERE estado = 'rechazada'"
                )
            else:
                self._db.execute("DELETE FROM cola")
            self._db.execute(
                "INSERT OR REPLACE INTO mesa VALUES (1, ?, ?, ?, ?)",
                (servidor, mesa.token, mesa.torneo, json.dumps(mesa.partida)),
            )
            self._db.execute("COMMIT")
        return mesa

    def misma_partida(self, nueva: MesaUnida) -> bool:
        """Whether ``nueva`` is the match this tablet has already joined (same server, same id)."""
        vieja = self.mesa()
        return (
            vieja is not None
            and vieja.servidor == nueva.servidor
            and vieja.partida.get("id") is not None
            and vieja.partida.get("id") == nueva.partida.get("id")
        )

    def mesa(self) -> MesaUnida | None:
        row = self._db.execute("SELECT servidor, token, torneo, partida FROM mesa").fetchone()
        return None if row is None else MesaUnida(row[0], row[1], row[2], json.loads(row[3]))

    def salir(self) -> None:
        """Leave the tournament (its unsent hands go with it: the caller asks first)."""
        self._db.execute("DELETE FROM mesa")
        self._db.execute("DELETE FROM cola")

    def _refused(self, status: int, doc: Mapping[str, Any]) -> TorneoError:
        said = doc.get("error")
        if isinstance(said, str) and said:
            return TorneoError(said, servidor=True)
        return TorneoError(N_("el servidor respondió {estado}"), estado=status)

    # --- the queue ------------------------------------------------------------------------

    def encolar(
        self,
        registro: Mapping[str, Any],
        tanteo: tuple[int, int],
        foto: bytes | None = None,
        id_mano: str | None = None,
    ) -> str:
        """Queue one confirmed hand (the ``mus tanteo`` record and its tanteo); its id.

        ``id_mano``: the hand's own id where its partida already has one (the phone pages'):
        a hand queued under it before, sent or corrected, stays as it is, so queueing a
        partida's stored hands again in order queues only the new ones."""
        mesa = self.mesa()
        if mesa is None:
            raise TorneoError(N_("esta tableta no está unida a ningún torneo"))
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")  # the check and the insert as one: two senders agree
            if id_mano is not None and (
                row := self._db.execute(
                    "SELECT id FROM cola WHERE id IN (?, ?)", (id_mano, id_mano + SUFIJO_CORREGIDA)
                ).fetchone()
            ):
                self._db.execute("COMMIT")
                return str(row[0])
            last = self._db.execute("SELECT MAX(numero) FROM cola").fetchone()[0]
            numero = last + 1 if last else int(mesa.partida.get("siguiente", 1))
            hand_id = id_mano or uuid.uuid4().hex
            body: dict[str, Any] = {
                "id": hand_id,
                "numero": numero,
                "registro": dict(registro),
                "tanteo": [int(tanteo[0]), int(tanteo[1])],
            }
            if foto:
                body["foto"] = hashlib.sha256(foto).hexdigest()
            self._db.execute(
                "INSERT INTO cola (numero, id, cuerpo) VALUES (?, ?, ?)", (numero, hand_id, json.dumps(body))
            )
            self._db.execute("COMMIT")
        return hand_id

    def partida_servidor(self) -> dict[str, Any]:
        """The match as the server counts it now (marcador, juegos, vacas, hands stored)."""
        mesa = self.mesa()
        if mesa is None:
            raise TorneoError(N_("esta tableta no está unida a ningún torneo"))
        status, doc = self._send(mesa.servidor)("GET", "/api/mesa/partida", None, mesa.token)
        if status != 200:
            raise self._refused(status, doc)
        return doc

    def llamar_arbitro(self, motivo: str | None = None) -> dict[str, Any]:
        """Call the referee to this table: the call made (``atendida`` None), or the
        one still open (a table has one at a time, the server answers 409 with it)."""
        return self.llamada(motivo)[1]

    def llamada(self, motivo: str | None = None) -> tuple[bool, dict[str, Any]]:
        """``llamar_arbitro`` saying too whether the call is new (False: the one still open)."""
        mesa = self.mesa()
        if mesa is None:
            raise TorneoError(N_("esta tableta no está unida a ningún torneo"))
        body = {"motivo": motivo} if motivo else {}
        status, doc = self._send(mesa.servidor)("POST", "/api/mesa/llamar", body, mesa.token)
        if status not in (201, 409) or "id" not in doc:
            raise self._refused(status, doc)
        return status == 201, doc

    def reloj(self) -> dict[str, Any]:
        """The round's clock (``fin``: the server's end instant, ``ahora``: its now); {} without one."""
        mesa = self.mesa()
        if mesa is None:
            raise TorneoError(N_("esta tableta no está unida a ningún torneo"))
        status, doc = self._send(mesa.servidor)("GET", "/api/mesa/reloj", None, mesa.token)
        if status != 200:
            raise self._refused(status, doc)
        return doc

    def pendientes(self) -> int:
        """Hands still to be sent, those held behind a refused one included."""
        return self._db.execute("SELECT COUNT(*) FROM cola WHERE estado = 'pendiente'").fetchone()[0]

    def rechazadas(self) -> list[Rechazada]:
        """Hands the server refused, set aside until they are sent again."""
        rows = self._db.execute(
            "SELECT numero, error, COALESCE(estado_http, 0) FROM cola WHERE estado = 'rechazada' ORDER BY numero"
        ).fetchall()
        return [
            Rechazada(
                n,
                why,
                code,
                self._db.execute(
                    "SELECT COUNT(*) FROM cola WHERE estado = 'pendiente' AND numero > ?", (n,)
                ).fetchone()[0],
            )
            for n, why, code in rows
        ]

    def correcciones(self) -> list[CorreccionServidor]:
        """Hands the server stored with its own tanteo, in order."""
        rows = self._db.execute(
            "SELECT numero, cuerpo, tanteo_mesa, respuesta FROM cola WHERE"
            " estado = 'enviada' AND tanteo_mesa IS NOT NULL ORDER BY numero"
        )
        return [_correccion(*row) for row in rows]

    def enviadas(self) -> list[str]:
        """The ids the server stored, in order (a corrected hand's is its new id)."""
        return [r[0] for r in self._db.execute("SELECT id FROM cola WHERE estado = 'enviada' ORDER BY numero")]

    def respuestas(self) -> dict[int, dict[str, Any]]:
        """The server's answer to each hand it stored (its marcador after it), by number."""
        rows = self._db.execute("SELECT numero, respuesta FROM cola WHERE estado = 'enviada' AND respuesta IS NOT NULL")
        return {n: json.loads(r) for n, r in rows}

    def correcciones_nuevas(self) -> list[CorreccionServidor]:
        """The corrections not told to the player yet; from now on they count as told. Only
        those returned are marked: one the sender thread stores meanwhile is told next time."""
        new = [
            c
            for c in self.correcciones()
            if not self._db.execute("SELECT avisada FROM cola WHERE numero = ?", (c.numero,)).fetchone()[0]
        ]
        self._db.executemany("UPDATE cola SET avisada = 1 WHERE numero = ?", [(c.numero,) for c in new])
        return new

    def reintentar(self) -> int:
        """Put the refused hands back in the queue (the referee has seen them); how many."""
        return self._db.execute(
            "UPDATE cola SET estado = 'pendiente', error = NULL, estado_http = NULL WHERE estado = 'rechazada'"
        ).rowcount

    def enviar(self) -> int:
        """Send the pending hands in order until the queue is empty, the network fails or the
        server refuses one; how many were stored. A hand scored differently by the server is
        sent again with the server's tanteo; after any other refusal nothing more is sent
        until :meth:`reintentar` or a new join (see the module's docstring)."""
        mesa = self.mesa()
        if mesa is None or self.rechazadas():
            return 0
        send = self._send(mesa.servidor)
        sent = 0
        while (row := self._db.execute(_NEXT).fetchone()) is not None:
            numero, body = row[0], self._tras_correccion(row[0], json.loads(row[1]))
            try:
                status, doc = send("POST", "/api/mesa/manos", body, mesa.token)
            except SinRed:
                return sent
            if status in (200, 201):
                self._db.execute(
                    "UPDATE cola SET estado = 'enviada', respuesta = ? WHERE numero = ?", (json.dumps(doc), numero)
                )
                sent += 1
            elif status >= 500 or status == 429:
                return sent  # the server is busy or restarting: later
            elif (servidor := tanteo_del_servidor(status, doc)) and "discrepancia" not in body:
                self._corregir(numero, body, servidor)  # and the loop sends it again
            else:
                self._db.execute(
                    "UPDATE cola SET estado = 'rechazada', error = ?, estado_http = ? WHERE numero = ?",
                    (self._refused(status, doc).texto(self.idioma), status, numero),
                )
                return sent
        return sent

    def _corregir(self, numero: int, body: dict[str, Any], servidor: tuple[int, int]) -> None:
        """Queue the hand again with the server's tanteo (written before it is sent)."""
        new = corregida(body, servidor)
        self._db.execute(
            "UPDATE cola SET id = ?, cuerpo = ?, tanteo_mesa = ? WHERE numero = ?",
            (new["id"], json.dumps(new), json.dumps(body["tanteo"]), numero),
        )

    def _tras_correccion(self, numero: int, body: dict[str, Any]) -> dict[str, Any]:
        """A hand behind a corrected one goes without its marcador, which may be the table's
        count before the correction reached the app's marcador: the server fills its own.
        Written before it is sent, so a resend is the same body."""
        if (
            "marcador" not in body["registro"]
            or not self._db.execute(
                "SELECT 1 FROM cola WHERE tanteo_mesa IS NOT NULL AND numero < ?", (numero,)
            ).fetchone()
        ):
            return body
        body["registro"].pop("marcador")
        self._db.execute("UPDATE cola SET cuerpo = ? WHERE numero = ?", (json.dumps(body), numero))
        return body


def _correccion(numero: int, cuerpo: str, tanteo_mesa: str, respuesta: str | None) -> CorreccionServidor:
    mesa, servidor = json.loads(tanteo_mesa), json.loads(cuerpo)["tanteo"]
    return CorreccionServidor(numero, (mesa[0], mesa[1]), (servidor[0], servidor[1]), json.loads(respuesta or "{}"))
