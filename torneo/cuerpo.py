"""A request body read with a ceiling: refused by its declared length before any of it is
read, and cut off while streaming if it grows past the limit (a chunked body declares none)."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request

from torneo.servicio import ServicioError


async def leer_cuerpo(request: Request, limite: int) -> bytes:
    def demasiado() -> ServicioError:
        return ServicioError("cuerpo demasiado grande (más de {kib} KiB)", 413, kib=limite // 1024)

    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limite:
        raise demasiado()
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limite:
            raise demasiado()
    return bytes(raw)


async def leer_formulario(request: Request, limite: int) -> dict[str, str]:
    """An HTML form (urlencoded; the pages post no files): the first value of each field."""
    raw = await leer_cuerpo(request, limite)
    try:
        campos = parse_qs(raw.decode("utf-8"), max_num_fields=64, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise ServicioError("formulario ilegible") from None
    return {k: v[0] for k, v in campos.items()}
