"""The one server, `mus servir`: the tournament server (its pages and the tables' API, URLs
unchanged) with the phone pages of a partida and their JSON API beside it, over one database.

Nothing that matters lives in the process: every request reads the database, so several
uvicorn workers (or servers behind a proxy) answer alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles

from server.handlers import instalar
from server.rutas import baraja, leer, mesa_dia, mesa_torneo, paginas, paginas_torneo, partidas
from server.servidor import Servidor

ESTATICOS: Final = Path(__file__).resolve().parent / "static"
# the tournament's pages (the organiser's, the public one): their errors are the tournament's
# page; every other page's, the phone pages' one
PAGINAS_TORNEO: Final = ("/torneos", "/entrar", "/salir", "/cuenta", "/invitaciones", "/publico", "/estilos")


def pagina_error(request: Request, texto: str, estado: int) -> Response:
    """An error's page in the reader's language (server.handlers answers every error)."""
    if request.url.path.startswith(PAGINAS_TORNEO):
        return paginas_torneo.pagina_error(request, texto, estado)
    return paginas.render(request, "error.html", estado, error=texto)


def crear_app(url: str, datos: Path | None = None, limite_entradas: int = 20) -> FastAPI:
    """The app over the database at ``url`` (migrated first, by the tournament server's
    ``server.db.motor``: one chain for every table); ``datos``: the data folder, when
    the database is a file in it; ``limite_entradas``: logins and join codes a minute per address."""
    app = Servidor(url, limite_entrar=limite_entradas).app
    app.state.web_sesiones = app.state.servidor.sesiones
    app.state.datos = datos
    app.include_router(partidas.router)
    app.include_router(leer.router)  # POST /api/leer: the cards of a photo
    app.include_router(baraja.router)  # the players' deck
    app.include_router(mesa_torneo.router)  # a tournament table from a phone
    app.include_router(mesa_dia.router)  # the table calls the referee, reads the round clock
    antes = len(app.router.routes)
    app.include_router(paginas.router)
    _primero(app, antes)  # the phone pages' home "/" before the tournament's redirect to /torneos
    app.mount("/static", StaticFiles(directory=ESTATICOS), name="static")
    instalar(app, pagina_error)
    return app


def _primero(app: FastAPI, desde: int) -> None:
    """Move the routes registered from index ``desde`` on (one included router's, whatever
    form FastAPI keeps them in) before all the others: the first match answers."""
    rutas: list[Any] = app.router.routes
    nuevas = rutas[desde:]
    del rutas[desde:]
    rutas[:0] = nuevas
