"""The contract between the tournament server (torneo/) and its table clients (the tablet's
mesa.torneo and the phone's table page): a table's join code, what the organiser's QR code of a
table holds, and the body of a hand a table sends. Written once here, in the one package both
sides may import; the keys of the hand record itself are scoring.tanteo's ``CLAVES_REGISTRO``.

A table's QR code holds the link of the phone's table page with the code, so a phone's camera
opens the page; the tablet reads the code from the same link (or from the bare prefix that
QR codes printed before held).

    >>> enlace_mesa("http://192.168.1.5:8000/", "AB2C3D4E5F")
    'http://192.168.1.5:8000/mesa?codigo=AB2C3D4E5F'
    >>> codigo_de("http://192.168.1.5:8000/mesa?codigo=AB2C3D4E5F")
    'AB2C3D4E5F'
    >>> codigo_de("musmesa-mesa:ab2c3d4e5f"), codigo_de(" AB2C 3D4E 5F ")
    ('AB2C3D4E5F', 'AB2C3D4E5F')
    >>> codigo_de("hola") is None, codigo_de("AB2C3D4E50") is None
    (True, True)
    >>> servidor_de("http://192.168.1.5:8000/mesa?codigo=AB2C3D4E5F")
    'http://192.168.1.5:8000'
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import parse_qs, urlencode, urlsplit

ALFABETO_CODIGO: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: typed from a screen
LARGO_CODIGO: Final = 10  # 50 bits: a join code cannot be guessed within the rate limit
CODIGO: Final = re.compile(f"[{ALFABETO_CODIGO}]{{{LARGO_CODIGO}}}")
PREFIJO_QR: Final = "musmesa-mesa:"  # what a table's QR code held before it held a link
RUTA_MESA: Final = "/mesa"  # the phone's table page; a table's QR code holds its link
PARAMETRO_CODIGO: Final = "codigo"  # the code's name in that link

# the body of a hand a table sends (POST /api/mesa/manos)
CAMPOS_MANO: Final = ("id", "numero", "registro", "tanteo", "foto", "anula", "discrepancia")
SUFIJO_CORREGIDA: Final = ":s"  # the id of a hand sent again with the server's tanteo
TANTEO_SERVIDOR: Final = "tanteo_servidor"  # in a refusal for a tanteo that differs: the rules' own


def enlace_mesa(base: str, codigo: str) -> str:
    """What a table's QR code holds: the phone's table page on the server at ``base``."""
    return f"{base.rstrip('/')}{RUTA_MESA}?{urlencode({PARAMETRO_CODIGO: codigo})}"


def codigo_de(texto: str) -> str | None:
    """The table's code from what was typed or read from a QR code (a link to the table's page
    or the bare prefix), spaces and dashes ignored; None when it is no code."""
    t = texto.strip()
    if t.lower().startswith(("http://", "https://")):
        t = (parse_qs(urlsplit(t).query).get(PARAMETRO_CODIGO) or [""])[0]
    elif t.lower().startswith(PREFIJO_QR):
        t = t[len(PREFIJO_QR) :]
    t = re.sub(r"[\s-]", "", t).upper()
    return t if CODIGO.fullmatch(t) else None


def servidor_de(texto: str) -> str | None:
    """The server's address (``scheme://host:port``) in a table's link, else None."""
    t = texto.strip()
    if not t.lower().startswith(("http://", "https://")) or codigo_de(t) is None:
        return None
    parts = urlsplit(t)
    return f"{parts.scheme}://{parts.netloc}"


def tanteo_del_servidor(status: int, doc: dict[str, Any]) -> tuple[int, int] | None:
    """The server's tanteo in its refusal of a tanteo that differs (422), else None."""
    got = doc.get(TANTEO_SERVIDOR) if status == 422 else None
    if isinstance(got, list) and len(got) == 2 and all(type(v) is int and 0 <= v <= 1000 for v in got):
        return got[0], got[1]
    return None


def corregida(body: dict[str, Any], servidor: tuple[int, int]) -> dict[str, Any]:
    """The hand again, under a new id, with the server's tanteo and the table's kept aside as
    ``discrepancia`` (the server records it as an incident)."""
    return dict(body) | {
        "id": str(body["id"]) + SUFIJO_CORREGIDA,
        "tanteo": list(servidor),
        "discrepancia": list(body["tanteo"]),
    }
