"""What the server keeps while it runs: the database, the rate limits (counted in the database,
server.limites, so that every host over it shares them) and the trusted proxies.
The routes reach it through server.deps (``request.app.state.servidor``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ValidationError
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from starlette.requests import Request

from scoring.inputs import InputError, parse_json
from server.cuerpo import leer_cuerpo
from server.db import motor, sesiones
from server.esquemas import LIMITE_CUERPO, error_de_validacion
from server.limites import Contadores, Intentos, Limite
from server.servicios import auth
from server.servicios.torneos import ServicioError

M = TypeVar("M", bound=BaseModel)
LIMITE_GENERAL = 3000  # requests a minute from one address: 64 tables behind one router send ~1300
LIMITE_UNIONES = 120  # join codes a minute from one address: every table of a club at a round's start
ENTORNO_PROXY = "MUSMESA_TORNEO_PROXY"  # the trusted reverse proxies' addresses, comma-separated
ENTORNO_UNIONES = "MUSMESA_TORNEO_LIMITE_UNIONES"
ENTORNO_PETICIONES = "MUSMESA_TORNEO_LIMITE_PETICIONES"


def _entero(nombre: str, defecto: int) -> int:
    valor = os.environ.get(nombre, "").strip()
    return int(valor) if valor.isdigit() and int(valor) > 0 else defecto


class Estado:
    """The database and the limits. Every limit counts per client address (``direccion``),
    except the tables' own, which counts per table token. ``proxies``: the reverse proxies whose
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed (``mus torneo servir --proxy``)."""

    def __init__(
        self,
        url: str,
        limite_mesa: int = 120,
        limite_entrar: int = 10,
        limite_unirse: int | None = None,
        limite_general: int | None = None,
        proxies: Collection[str] = (),
    ) -> None:
        self.engine: Engine = motor(url)
        self.sesiones = sesiones(self.engine)
        # what no argument gives comes from the environment, so any front end that builds this
        # server (`mus torneo servir`, `mus servir`) takes the same settings
        self.proxies = frozenset(proxies) or frozenset(
            p.strip() for p in os.environ.get(ENTORNO_PROXY, "").split(",") if p.strip()
        )
        self.contadores = Contadores(self.engine)
        self.limite_mesa = Limite("mesa", limite_mesa, 60.0)  # a table sends a hand every ~30 s
        self.limite_entrar = Limite("entrar", limite_entrar, 60.0)  # logins, per address
        self.intentos = Intentos(self.engine)  # logins, per account: a growing wait after wrong passwords
        self.limite_unirse = Limite("unirse", limite_unirse or _entero(ENTORNO_UNIONES, LIMITE_UNIONES), 60.0)
        self.limite_general = Limite("general", limite_general or _entero(ENTORNO_PETICIONES, LIMITE_GENERAL), 60.0)

    @contextmanager
    def sesion(self) -> Iterator[Session]:
        with self.sesiones() as s, s.begin():
            yield s

    def en_hilo(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn`` in one transaction, off the event loop."""

        def run() -> Any:
            with self.sesion() as s:
                return fn(s)

        return run_in_threadpool(run)

    def direccion(self, request: Request) -> str:
        return auth.direccion(request, self.proxies)

    def por_https(self, request: Request) -> bool:
        return auth.por_https(request, self.proxies)

    def limitar(self, limite: Limite, request: Request, clave: str | None = None) -> None:
        """Count the request against ``limite`` (per client address, or per ``clave``); 429 over it.
        A query to the database: called off the event loop."""
        if not self.contadores.permitir(limite, clave or self.direccion(request)):
            raise ServicioError("demasiadas peticiones: espera un momento", 429)

    async def leer(self, request: Request, model: type[M], limite: int = LIMITE_CUERPO) -> M:
        """The body as ``model``: its type (only ``application/json``: a form or a text/plain
        body, which another site's page can post, is refused), size, JSON limits and types
        checked, or ServicioError."""
        tipo = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if tipo != "application/json":
            raise ServicioError("el cuerpo debe ser JSON (Content-Type: application/json)", 415)
        raw = await leer_cuerpo(request, limite)
        try:
            data = parse_json(raw.decode("utf-8"), "cuerpo")
            return model.model_validate(data)
        except UnicodeDecodeError:
            raise ServicioError("el cuerpo no es texto UTF-8") from None
        except InputError as exc:
            raise ServicioError.de(exc) from None
        except ValidationError as exc:
            raise error_de_validacion(exc) from None
