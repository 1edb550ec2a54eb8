"""What every router takes by Depends: the database session, the player's language and a
request body read within limits; and the errors in the player's language."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated, Any, Final, TypeVar

from fastapi import Depends, Request
from pydantic import BaseModel
from sqlalchemy.orm import Session, sessionmaker

from torneo.i18n import idioma
from web.servicio import WebError

COOKIE_IDIOMA: Final = "lang"  # the language switch, remembered by the browser
M = TypeVar("M", bound=BaseModel)


def lang(request: Request) -> str:
    """``?lang=``, else the switch's cookie, else Accept-Language, else Spanish."""
    elegido = request.query_params.get("lang") or request.cookies.get(COOKIE_IDIOMA)
    return idioma(elegido, request.headers.get("accept-language"))


def _sesiones(request: Request) -> sessionmaker[Session]:
    return request.app.state.web_sesiones


def sesion(request: Request) -> Iterator[Session]:
    """One transaction for the request: committed when it answers, rolled back on an error."""
    with _sesiones(request)() as s, s.begin():
        yield s


# what a route takes: the transaction commits before the answer leaves ("function" scope; by
# default FastAPI would end it after the answer, so a phone could be told of a hand a kill -9 loses,
# or read its own last step back stale)
Sesion = Annotated[Session, Depends(sesion, scope="function")]


def sesiones(request: Request) -> Callable[[], AbstractContextManager[Session]]:
    """For a service that needs more than one transaction (a confirm that lost a race)."""
    fabrica = _sesiones(request)

    @contextmanager
    def abrir() -> Iterator[Session]:
        with fabrica() as s, s.begin():
            yield s

    return abrir


def cuerpo(model: type[M], limite: int = 64 * 1024) -> Callable[[Request], Any]:
    """A JSON body as ``model``, read as the tournament server reads its own: a size ceiling,
    `mus tanteo`'s JSON limits, then the model's checks (a clear line naming the field)."""

    async def leer(request: Request) -> M:
        return await request.app.state.servidor.leer(request, model, limite)

    return leer


def texto_error(exc: WebError, request: Request) -> str:
    return " ".join(exc.texto(lang(request)).split())[:280]


__all__ = ["COOKIE_IDIOMA", "Sesion", "WebError", "cuerpo", "lang", "sesion", "sesiones", "texto_error"]
