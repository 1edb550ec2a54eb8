"""A request body read with a ceiling and a time limit: refused by its declared length before
any of it is read, cut off while streaming if it grows past the limit (a chunked body declares
none), and given up when it comes too slowly (a client sending a byte now and then would hold a
connection and its buffer for as long as it liked)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final
from urllib.parse import parse_qs

from starlette.requests import Request

from server.servicios.torneos import ServicioError

# A whole body within this many seconds: a phone's 16 MB photo at 3 Mbit/s (a weak Wi-Fi) takes
# about 45 s; a table's hand or a form, a fraction of a second.
PLAZO_CUERPO_S: Final = 60.0
PAUSA_CUERPO_S: Final = 15.0  # and never this long without a byte of it


class CuerpoGrande(Exception):
    """The body is over its limit."""


class CuerpoLento(Exception):
    """The body did not come within PLAZO_CUERPO_S, or paused for PAUSA_CUERPO_S."""

    @staticmethod
    def error() -> ServicioError:
        return ServicioError("el cuerpo de la petición tarda demasiado en llegar", 408)


async def leer_trozos(trozos: AsyncIterator[bytes], limite: int) -> bytes:
    """The chunks joined, within ``limite`` bytes (CuerpoGrande) and the time limits
    :data:`PLAZO_CUERPO_S` and :data:`PAUSA_CUERPO_S` (CuerpoLento)."""
    plazo, pausa = PLAZO_CUERPO_S, PAUSA_CUERPO_S  # read now: a test shortens them
    loop = asyncio.get_running_loop()
    fin = loop.time() + plazo
    raw = bytearray()
    try:
        async with asyncio.timeout(min(fin, loop.time() + pausa)) as reloj:
            async for trozo in trozos:
                raw += trozo
                if len(raw) > limite:
                    raise CuerpoGrande()
                reloj.reschedule(min(fin, loop.time() + pausa))
    except TimeoutError:
        raise CuerpoLento() from None
    return bytes(raw)


def declarado_excede(request: Request, limite: int) -> bool:
    """Whether the body's declared length is over ``limite`` (refused before reading it)."""
    declared = request.headers.get("content-length", "")
    return declared.isdigit() and int(declared) > limite


async def leer_cuerpo(request: Request, limite: int) -> bytes:
    def demasiado() -> ServicioError:
        return ServicioError("cuerpo demasiado grande (más de {kib} KiB)", 413, kib=limite // 1024)

    if declarado_excede(request, limite):
        raise demasiado()
    try:
        return await leer_trozos(request.stream(), limite)
    except CuerpoGrande:
        raise demasiado() from None
    except CuerpoLento:
        raise CuerpoLento.error() from None


async def leer_formulario(request: Request, limite: int) -> dict[str, str]:
    """An HTML form (urlencoded; the pages post no files): the first value of each field."""
    raw = await leer_cuerpo(request, limite)
    try:
        campos = parse_qs(raw.decode("utf-8"), max_num_fields=64, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise ServicioError("formulario ilegible") from None
    return {k: v[0] for k, v in campos.items()}
