"""Accounts, login tokens and the limits of logins.

Passwords are hashed with argon2id (argon2-cffi, the reference implementation's binding).
A login token is 32 random bytes shown once; the database keeps only its SHA-256 and when it
expires, so a copy of the database opens no session.

Logins are limited per client address (``Limite``, in server.estado) and per account
(``Intentos``: a growing wait after repeated wrong passwords, never a lock), both kept in the
database by server.limites so that every host counts together, and at most
``HASHES_A_LA_VEZ`` password checks run at once in a process (argon2id takes 64 MiB each).
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import itertools
import math
import secrets
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session
from starlette.requests import Request

from server.db import ahora
from server.limites import Intentos
from server.modelos.torneo import Cuenta, Miembro, Sesion, Torneo
from server.servicios.torneos import ServicioError, fila, huella

DURACION: Final = dt.timedelta(hours=12)  # a tournament day
ROLES: Final = ("organizador", "arbitro")
_HASHER = PasswordHasher()
# a hash to check against when the user does not exist, so both cases take as long
_FALSO = _HASHER.hash("musmesa")


def comprobar_usuario(usuario: str) -> str:
    usuario = usuario.strip()
    if not 3 <= len(usuario) <= 64 or not all(c.isalnum() or c in "._-@" for c in usuario):
        raise ServicioError("el usuario debe tener de 3 a 64 letras, cifras o . _ - @")
    return usuario


@functools.cache
def claves_comunes() -> frozenset[str]:
    """The common passwords shipped with the package (claves_comunes.txt), in lower case."""
    texto = (Path(__file__).parent / "claves_comunes.txt").read_text(encoding="utf-8")
    return frozenset(
        line.strip().casefold() for line in texto.splitlines() if line.strip() and not line.startswith("#")
    )


def comprobar_clave(clave: str, usuario: str = "") -> None:
    """Refuse a password that is short, common, the user's name, one character or one short
    unit repeated (aaaaaaaa, abababab) or a run of consecutive characters (12345678, abcdefgh)."""
    if not 8 <= len(clave) <= 256:
        raise ServicioError("la contraseña debe tener de 8 a 256 caracteres")
    bajo = clave.casefold()
    pasos = {ord(b) - ord(a) for a, b in itertools.pairwise(bajo)}
    repetida = any(len(bajo) % n == 0 and bajo == bajo[:n] * (len(bajo) // n) for n in range(1, len(bajo) // 2 + 1))
    if bajo in claves_comunes() or (usuario and usuario.casefold() in bajo) or repetida or pasos in ({1}, {-1}):
        raise ServicioError("esa contraseña es demasiado fácil de adivinar: elige otra más larga y menos común")


def crear_cuenta(s: Session, usuario: str, clave: str, rol: str, torneo: Torneo | None = None) -> Cuenta:
    usuario = comprobar_usuario(usuario)
    if rol not in ROLES:
        raise ServicioError("rol desconocido {rol}", rol=repr(rol))
    comprobar_clave(clave, usuario)
    if s.scalar(select(Cuenta).where(Cuenta.usuario == usuario)) is not None:
        raise ServicioError("ya existe el usuario {usuario}", 409, usuario=usuario)
    cuenta = Cuenta(usuario=usuario, clave_hash=_HASHER.hash(clave), rol=rol, torneo_id=torneo.id if torneo else None)
    s.add(cuenta)
    s.flush()
    if torneo is not None:  # an account made for a tournament is a member of it in its role
        s.add(Miembro(torneo_id=torneo.id, cuenta_id=cuenta.id, rol=rol))
        s.flush()
    return cuenta


HASHES_A_LA_VEZ: Final = 2  # password checks at once: 40 logins together took 925 MiB and 14 s
REINTENTO_OCUPADO: Final = 1  # the Retry-After, in seconds, of a login refused while the checks are busy
_HASHES = threading.BoundedSemaphore(HASHES_A_LA_VEZ)


class Espera(ServicioError):
    """A refusal that says how many seconds to wait before trying again (``Retry-After``)."""

    def __init__(self, msgid: str, estado: int, reintento: int, **params: Any) -> None:
        super().__init__(msgid, estado, **params)
        self.reintento = reintento


@contextmanager
def hash_libre() -> Iterator[None]:
    """Room to check a password now, or 503 at once: a burst of logins is refused, not queued
    holding 64 MiB each."""
    if not _HASHES.acquire(blocking=False):
        raise Espera(
            "el servidor está comprobando otras contraseñas: vuelve a intentarlo en un momento",
            503,
            REINTENTO_OCUPADO,
        )
    try:
        yield
    finally:
        _HASHES.release()


def entrar(
    s: Session, usuario: str, clave: str, intentos: Intentos | None = None, direccion: str = ""
) -> tuple[str, dt.datetime]:
    """A new login token for a right password; the same refusal for a wrong user or password.
    With ``intentos``, a name that must wait is refused (``Espera``, 429) before any check, and
    the outcome is counted for it; a check finds no room (``Espera``, 503) when
    ``HASHES_A_LA_VEZ`` are running."""
    if intentos is not None and (espera := intentos.espera(usuario, direccion)) > 0:
        segundos = math.ceil(espera)
        raise Espera(
            "demasiados intentos fallidos con esta cuenta: espera {segundos} s y vuelve a intentarlo",
            429,
            segundos,
            segundos=segundos,
        )
    cuenta = s.scalar(select(Cuenta).where(Cuenta.usuario == usuario.strip()))
    with hash_libre():
        try:
            _HASHER.verify(cuenta.clave_hash if cuenta else _FALSO, clave)
        except (VerificationError, InvalidHashError):
            cuenta = None
    if cuenta is None:
        if intentos is not None:
            intentos.fallo(usuario)
        raise ServicioError("usuario o contraseña incorrectos", 401)
    if intentos is not None:
        intentos.acierto(usuario, direccion)
    token = secrets.token_urlsafe(32)
    caduca = ahora() + DURACION
    s.execute(delete(Sesion).where(Sesion.cuenta_id == cuenta.id, Sesion.caduca < ahora()))
    s.add(Sesion(huella=huella(token), cuenta_id=cuenta.id, caduca=caduca))
    return token, caduca


def cambiar_clave(s: Session, cuenta_id: int, actual: str, nueva: str, token_actual: str) -> None:
    """A new password for an account that knows its current one; its other logins end."""
    cuenta = fila(s, Cuenta, cuenta_id)
    with hash_libre():
        try:
            _HASHER.verify(cuenta.clave_hash, actual)
        except (VerificationError, InvalidHashError):
            raise ServicioError("la contraseña actual no es correcta", 403) from None
    comprobar_clave(nueva, cuenta.usuario)
    with hash_libre():
        cuenta.clave_hash = _HASHER.hash(nueva)
    s.execute(delete(Sesion).where(Sesion.cuenta_id == cuenta.id, Sesion.huella != huella(token_actual)))


def cuenta_del_token(s: Session, token: str | None) -> Cuenta:
    if not token:
        raise ServicioError("hay que iniciar sesión", 401)
    sesion = s.scalar(select(Sesion).where(Sesion.huella == huella(token)))
    if sesion is None or sesion.caduca < ahora():
        raise ServicioError("la sesión no es válida o ha caducado: vuelve a entrar", 401)
    return fila(s, Cuenta, sesion.cuenta_id)


def salir(s: Session, token: str) -> None:
    s.execute(delete(Sesion).where(Sesion.huella == huella(token)))


COOKIE: Final = "musmesa_sesion"


def direccion(request: Request, proxies: Collection[str] = ()) -> str:
    """The client's address the rate limits count. ``X-Forwarded-For`` is read only when the
    request comes from one of ``proxies`` (the reverse proxy named with ``--proxy``): then the
    client is the rightmost address in it that is not a proxy (what the proxy saw; anything a
    client wrote further left is not trusted)."""
    host = request.client.host if request.client else "?"
    if host not in proxies:
        return host
    saltos = [h.strip() for h in request.headers.get("x-forwarded-for", "").split(",") if h.strip()]
    for salto in reversed(saltos):
        if salto not in proxies:
            return _normal(salto)
    return host


def _normal(texto: str) -> str:
    try:
        return str(ipaddress.ip_address(texto))
    except ValueError:
        return texto[:64]  # not an address: still a key of its own, bounded


def por_https(request: Request, proxies: Collection[str] = ()) -> bool:
    """Whether the client reached us over HTTPS (directly, or through a trusted proxy that says so)."""
    if request.url.scheme == "https":
        return True
    host = request.client.host if request.client else "?"
    return host in proxies and request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower() == "https"


def token_de(request: Request) -> str | None:
    """A bearer token from the Authorization header, or the organiser pages' cookie."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.cookies.get(COOKIE)
