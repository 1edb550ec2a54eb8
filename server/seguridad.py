"""Requests from another site refused: a token on every HTML form and an Origin check on every
state-changing request a browser's cookie may authenticate (cross-site request forgery).

One ASGI middleware, :class:`Seguridad`, in front of the whole server (the organiser's pages,
the tournament API and, in `mus servir`, the phone pages), so no route can forget it:

- **The form's token** (double submit): every page with a form carries a hidden field
  :data:`CAMPO` equal to the browser's cookie :data:`COOKIE_CSRF` (random, HttpOnly,
  SameSite=Strict, set by the first page that shows a form, :func:`token_csrf`). A posted form
  (``application/x-www-form-urlencoded``, what the pages' forms send) whose field does not match
  the cookie is refused (403) before any route sees it. Another site can make a browser post a
  form, but it can neither read the cookie nor set it for this site's address.
- **The origin**: a state-changing request (any method but GET, HEAD, OPTIONS) that carries the
  login cookie and no ``Authorization: Bearer`` header must say where it comes from: its
  ``Origin`` (or, without one, its ``Referer``) must be this server, as the request's ``Host``
  names it (the scheme as the client used it: :meth:`server.estado.Estado.por_https`). Absent
  both, it is refused too. SameSite=Strict alone lets another port of the same host or a
  sibling subdomain through; this does not. An ``Origin`` of another site on any other
  state-changing request from a browser (a form, a text/plain body) is refused as well.
- A client with a bearer token (the tablet, a script) sends no cookie the browser adds by itself:
  nothing here applies to it.

JSON bodies are read only as ``application/json`` (server.estado.Estado.leer, 415 otherwise), so
a form posing as JSON (``text/plain``, which a cross-site form may send) never reaches a route.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

from markupsafe import Markup
from starlette.requests import Request

from server.cuerpo import CuerpoGrande, CuerpoLento, leer_trozos
from server.formularios import LIMITE_FORMULARIO
from server.servicios import auth
from server.servicios.torneos import ServicioError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE_CSRF: Final = "musmesa_csrf"  # the browser's form token (double submit)
DURACION_CSRF_S: Final = 30 * 24 * 3600  # it outlives a login (12 h): an open page's form stays good
CAMPO: Final = "csrf"  # the forms' hidden field holding it
SEGUROS: Final = frozenset({"GET", "HEAD", "OPTIONS"})  # methods that change nothing
FORMULARIO: Final = "application/x-www-form-urlencoded"  # what the pages' forms post
_CLAVE: Final = "musmesa.csrf"  # where the request's token waits in the ASGI scope
_FORMA: Final = re.compile(r"[A-Za-z0-9_-]{32,64}")  # secrets.token_urlsafe(32): 43 characters
_PUERTOS: Final = {"http": "80", "https": "443"}


def token_csrf(request: Request) -> str:
    """The token a page puts in its forms' hidden field :data:`CAMPO` (the browser's cookie,
    or a new one that :class:`Seguridad` sets with the page)."""
    estado = request.scope.get(_CLAVE)
    if estado is None:  # an app without the middleware (a test's bare router): a fresh token
        return secrets.token_urlsafe(32)
    estado["usado"] = True
    return str(estado["token"])


def campo_csrf(request: Request) -> Markup:
    """The hidden field every form of a page carries (``{{ csrf() }}`` in the templates)."""
    return Markup(f'<input type="hidden" name="{CAMPO}" value="{token_csrf(request)}">')


def _origen(url: str) -> str | None:
    """``scheme://host:port`` of a URL, lowercase, its default port written; None if it has none."""
    try:
        partes = urlsplit(url.strip())
        puerto = partes.port
    except ValueError:
        return None
    if not partes.scheme or not partes.hostname:
        return None
    esquema = partes.scheme.lower()
    return f"{esquema}://{partes.hostname.lower()}:{puerto or _PUERTOS.get(esquema, '')}"


class Seguridad:
    """The middleware (see the module's text). ``app``: the ASGI app behind it; the server's
    state (``app.state.servidor``, a server.estado.Estado) says which proxies are trusted;
    ``responder``: the server's error answer (a page, or JSON under /api/) for a refusal."""

    def __init__(self, app: ASGIApp, responder: Callable[[ServicioError, Request], Any]) -> None:
        self.app, self.responder = app, responder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        cookie = request.cookies.get(COOKIE_CSRF, "")
        valido = bool(_FORMA.fullmatch(cookie))
        estado = scope[_CLAVE] = {"token": cookie if valido else secrets.token_urlsafe(32), "usado": False}

        async def enviar(message: Message) -> None:
            # a page that showed a form (a refusal's page too) gives the browser the token its
            # hidden field holds
            if message["type"] == "http.response.start" and estado["usado"] and not valido:
                message["headers"] = [
                    *message.get("headers", []),
                    (b"set-cookie", self._cookie(request, estado["token"])),
                ]
            await send(message)

        if scope["method"] not in SEGUROS:
            try:
                receive = await self._comprobar(request, receive, cookie if valido else None)
            except ServicioError as exc:
                await self.responder(exc, request)(scope, receive, enviar)
                return
        await self.app(scope, receive, enviar)

    def _cookie(self, request: Request, token: str) -> bytes:
        seguro = "; Secure" if self._https(request) else ""
        atributos = f"Path=/; Max-Age={DURACION_CSRF_S}; HttpOnly; SameSite=Strict{seguro}"
        return f"{COOKIE_CSRF}={token}; {atributos}".encode("latin-1")

    def _https(self, request: Request) -> bool:
        srv = getattr(request.app.state, "servidor", None)
        return bool(srv.por_https(request)) if srv is not None else request.url.scheme == "https"

    async def _comprobar(self, request: Request, receive: Receive, cookie: str | None) -> Receive:
        """The checks of a state-changing request; its body's messages, to be read again by the
        route when a form's token had to be read from them."""
        if request.headers.get("authorization", "").lower().startswith("bearer "):
            return receive  # not authenticated by anything the browser adds by itself
        origen = request.headers.get("origin") or request.headers.get("referer")
        if origen is not None and _origen(origen) != self._este(request):
            raise ServicioError("petición rechazada: no viene de una página de este servidor", 403)
        if origen is None and auth.COOKIE in request.cookies:
            raise ServicioError("petición rechazada: no viene de una página de este servidor", 403)
        tipo = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if tipo != FORMULARIO:
            return receive
        mensajes, cuerpo = await _leer(receive, LIMITE_FORMULARIO)
        if cookie is None or not hmac.compare_digest(_campo(cuerpo).encode(), cookie.encode()):
            raise ServicioError(
                "el formulario ha caducado o no viene de esta página: vuelve a cargarla e inténtalo de nuevo", 403
            )
        return _repetir(mensajes, receive)

    def _este(self, request: Request) -> str | None:
        """This server's origin as the client reached it: its ``Host`` and the scheme it used."""
        host = request.headers.get("host")
        if not host:
            return None
        return _origen(("https" if self._https(request) else "http") + "://" + host)


def _campo(cuerpo: bytes) -> str:
    """The token field of a posted form ('' when it has none or is unreadable)."""
    try:
        campos = parse_qs(cuerpo.decode("utf-8"), max_num_fields=64)
    except (UnicodeDecodeError, ValueError):
        return ""
    return campos.get(CAMPO, [""])[0]


async def _leer(receive: Receive, limite: int) -> tuple[list[Message], bytes]:
    """The body's messages as they came, and the body, within ``limite`` bytes and the time
    limits of server.cuerpo (ServicioError 413 or 408 beyond)."""
    mensajes: list[Message] = []

    async def trozos() -> AsyncIterator[bytes]:
        while True:
            m = await receive()
            mensajes.append(m)
            if m["type"] != "http.request":
                return
            yield m.get("body", b"")
            if not m.get("more_body", False):
                return

    try:
        cuerpo = await leer_trozos(trozos(), limite)
    except CuerpoGrande:
        raise ServicioError("cuerpo demasiado grande (más de {kib} KiB)", 413, kib=limite // 1024) from None
    except CuerpoLento:
        raise CuerpoLento.error() from None
    return mensajes, cuerpo


def _repetir(mensajes: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives the messages already read, then goes on with the client's."""
    pendientes = list(mensajes)

    async def otra_vez() -> Message:
        return pendientes.pop(0) if pendientes else await receive()

    return otra_vez
