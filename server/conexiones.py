"""uvicorn's HTTP/1.1 protocol (h11) with a time limit on a request's headers.

uvicorn closes an idle kept-alive connection after ``timeout_keep_alive`` seconds, but any byte
cancels that timer, and a new connection has none: a client sending its headers a byte at a
time holds the connection for as long as it likes (40 s and more in a probe). Here a
request's line and headers must be complete within :data:`PLAZO_CABECERAS_S` of the connection's
start or of the previous answer's end, or the connection is closed. The body's own time limit is
server.cuerpo's, where a route reads it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

PLAZO_CABECERAS_S: Final = 10.0  # a phone on a weak Wi-Fi sends its headers in well under a second
MAX_CABECERAS: Final = 16 * 1024  # bytes of a request's line and headers (uvicorn's h11 default, said here)
KEEP_ALIVE_S: Final = 5  # an idle kept-alive connection is closed after this (uvicorn's default, said here)


class ProtocoloH11(H11Protocol):
    """H11Protocol closing a connection whose request headers do not come in time."""

    plazo_cabeceras: float = PLAZO_CABECERAS_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reloj: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._esperar_cabeceras()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are in: the route's limits apply
            self._parar()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._esperar_cabeceras()

    def connection_lost(self, exc: Exception | None) -> None:
        self._parar()
        super().connection_lost(exc)

    def _esperar_cabeceras(self) -> None:
        self._parar()
        self._reloj = self.loop.call_later(self.plazo_cabeceras, self._sin_cabeceras)

    def _parar(self) -> None:
        if self._reloj is not None:
            self._reloj.cancel()
            self._reloj = None

    def _sin_cabeceras(self) -> None:
        self._reloj = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
