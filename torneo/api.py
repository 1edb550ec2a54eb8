"""The HTTP server: a FastAPI app over one database.

JSON bodies are read through scoring.inputs.parse_json (the limits of `mus tanteo`: depth,
number size, printable text), then checked by pydantic models; a request body larger than its
limit is refused before it is read whole; each token or address has a rate limit. Every error
is one Spanish line in ``{"error": ...}``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Final, TypeVar

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker
from starlette.exceptions import HTTPException as StarletteHTTPException

from scoring.inputs import InputError, excerpt, parse_json
from torneo import auth, correcciones, servicio
from torneo import formato as fm
from torneo.auth import token_de
from torneo.cuerpo import leer_cuerpo
from torneo.db import Cuenta, Torneo, motor
from torneo.i18n import idioma, mensaje
from torneo.paginas import pagina_error, rutas_paginas

LIMITE_CUERPO: Final = 64 * 1024  # a hand record with its declaraciones is a few KiB
LIMITE_INFORME: Final = 4 * 1024 * 1024  # a referee's log of a whole day
ID_MANO: Final = r"^[A-Za-z0-9_.:-]{8,64}$"
HEX64: Final = r"^[0-9a-f]{64}$"
M = TypeVar("M", bound=BaseModel)


class Estricto(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Entrada(Estricto):
    usuario: Annotated[str, Field(min_length=1, max_length=64)]
    clave: Annotated[str, Field(min_length=1, max_length=256)]


class ParejaIn(Estricto):
    nombre: Annotated[str, Field(min_length=1, max_length=120)]
    jugadores: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=2, max_length=2)]


class FormatoIn(Estricto):
    tipo: str = "liga"
    grupos: int = 1
    clasifican: int = 2
    juegos: int | None = None
    vacas: int | None = None
    desempates: list[str] = Field(default_factory=lambda: list(fm.DESEMPATES), max_length=8)
    sorteo: bool = False
    semilla: int | None = None


class TorneoIn(Estricto):
    nombre: Annotated[str, Field(min_length=1, max_length=120)]
    reglas: str | dict[str, Any] = "segovia"
    formato: FormatoIn = Field(default_factory=FormatoIn)
    parejas: Annotated[list[ParejaIn], Field(min_length=2, max_length=fm.MAX_PAREJAS)]
    mesas: Annotated[int, Field(ge=1, le=fm.MAX_MESAS)]
    arbitros_corrigen: bool = False


class Unirse(Estricto):
    codigo: Annotated[str, Field(min_length=4, max_length=16)]


Tanteo = Annotated[list[Annotated[int, Field(ge=0, le=1000)]], Field(min_length=2, max_length=2)]


class ManoIn(Estricto):
    id: Annotated[str, Field(pattern=ID_MANO)]
    numero: Annotated[int, Field(ge=1, le=100_000)]
    registro: dict[str, Any]
    tanteo: Tanteo
    foto: Annotated[str, Field(pattern=HEX64)] | None = None
    anula: Annotated[str, Field(pattern=ID_MANO)] | None = None
    discrepancia: Tanteo | None = None  # the table's own count, sent with the server's as tanteo


class CorreccionIn(Estricto):
    ganador: Annotated[int, Field(ge=0, le=1)]
    juegos: Tanteo
    tantos: Tanteo | None = None
    motivo: Annotated[str, Field(min_length=3, max_length=500)]


class InformeIn(Estricto):
    mesa: Annotated[int, Field(ge=1, le=fm.MAX_MESAS)]
    registro: dict[str, Any]
    clave: Annotated[str, Field(max_length=256)] | None = None
    sello: Annotated[str, Field(min_length=12, max_length=64)] | None = None


class ArbitroIn(Estricto):
    usuario: Annotated[str, Field(min_length=3, max_length=64)]
    clave: Annotated[str, Field(min_length=8, max_length=256)]


def lang_de(request: Request) -> str:
    """``?lang=``, else Accept-Language, else Spanish: the language of the answer's words."""
    return idioma(request.query_params.get("lang"), request.headers.get("accept-language"))


def texto_error(exc: servicio.ServicioError, lang: str) -> str:
    return excerpt(" ".join(mensaje(exc.mensaje, exc.params, lang).split()), 280)


def error(exc: servicio.ServicioError, request: Request) -> JSONResponse:
    """The JSON the clients read: ``error`` (one line in the request's language) and any data."""
    return JSONResponse({"error": texto_error(exc, lang_de(request)), **exc.datos}, status_code=exc.estado)


def responder_error(exc: servicio.ServicioError, request: Request) -> Response:
    """JSON under /api/, a page in the reader's language everywhere else."""
    if request.url.path.startswith("/api/"):
        return error(exc, request)
    return pagina_error(request, texto_error(exc, lang_de(request)), exc.estado)


# pydantic's error type -> (msgid, the ctx key that fills {n})
_VALIDACION: Final[dict[str, tuple[str, str | None]]] = {
    "missing": ("campo {campo}: falta", None),
    "extra_forbidden": ("campo {campo}: no se admite", None),
    "string_too_short": ("campo {campo}: debe tener al menos {n} caracteres", "min_length"),
    "string_too_long": ("campo {campo}: debe tener como mucho {n} caracteres", "max_length"),
    "too_short": ("campo {campo}: debe tener al menos {n} elementos", "min_length"),
    "too_long": ("campo {campo}: debe tener como mucho {n} elementos", "max_length"),
    "string_pattern_mismatch": ("campo {campo}: formato no válido", None),
    "greater_than_equal": ("campo {campo}: debe ser {n} o más", "ge"),
    "less_than_equal": ("campo {campo}: debe ser {n} o menos", "le"),
    "int_type": ("campo {campo}: debe ser un número entero", None),
    "int_parsing": ("campo {campo}: debe ser un número entero", None),
    "int_from_float": ("campo {campo}: debe ser un número entero", None),
    "string_type": ("campo {campo}: debe ser un texto", None),
    "bool_type": ("campo {campo}: debe ser verdadero o falso", None),
    "list_type": ("campo {campo}: debe ser una lista", None),
    "dict_type": ("campo {campo}: debe ser un objeto", None),
    "model_type": ("campo {campo}: debe ser un objeto", None),
    "model_attributes_type": ("campo {campo}: debe ser un objeto", None),
}


def error_de_validacion(exc: ValidationError) -> servicio.ServicioError:
    """The first problem pydantic found, as one translatable line naming the field."""
    e = exc.errors()[0]
    campo = ".".join(str(p) for p in e["loc"]) or "cuerpo"
    plantilla, clave = _VALIDACION.get(e["type"], ("campo {campo}: valor no válido", None))
    extra = {"n": (e.get("ctx") or {}).get(clave, "?")} if clave else {}
    return servicio.ServicioError(plantilla, campo=campo, **extra)


class Servidor:
    """The app's state: the database and the rate limits. ``app`` is the ASGI application."""

    def __init__(self, url: str, limite_mesa: int = 120, limite_entrar: int = 20) -> None:
        self.engine: Engine = motor(url)
        self.sesiones = sessionmaker(self.engine, expire_on_commit=False)
        self.limite_mesa = auth.Limite(limite_mesa, 60.0)  # a table sends a hand every ~30 s
        self.limite_entrar = auth.Limite(limite_entrar, 60.0)  # logins and join codes, per address
        self.limite_general = auth.Limite(600, 60.0)
        self.app = self._app()

    @contextmanager
    def sesion(self) -> Iterator[Session]:
        with self.sesiones() as s, s.begin():
            yield s

    async def leer(self, request: Request, model: type[M], limite: int = LIMITE_CUERPO) -> M:
        """The body as ``model``: size, JSON limits and types checked, or ServicioError."""
        raw = await leer_cuerpo(request, limite)
        try:
            data = parse_json(raw.decode("utf-8"), "cuerpo")
            return model.model_validate(data)
        except UnicodeDecodeError:
            raise servicio.ServicioError("el cuerpo no es texto UTF-8") from None
        except InputError as exc:
            raise servicio.ServicioError(str(exc)) from None
        except ValidationError as exc:
            raise error_de_validacion(exc) from None

    def en_hilo(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn`` in one transaction, off the event loop."""
        def run() -> Any:
            with self.sesion() as s:
                return fn(s)
        return run_in_threadpool(run)

    def cuenta(self, s: Session, request: Request) -> Cuenta:
        return auth.cuenta_del_token(s, token_de(request))

    def _app(self) -> FastAPI:
        app = FastAPI(title="musmesa torneo", docs_url=None, redoc_url=None, openapi_url=None)
        app.state.servidor = self

        @app.exception_handler(servicio.ServicioError)
        async def _servicio(request: Request, exc: servicio.ServicioError) -> Response:
            return responder_error(exc, request)

        @app.exception_handler(fm.FormatoError)
        async def _formato(request: Request, exc: fm.FormatoError) -> Response:
            return responder_error(servicio.ServicioError(str(exc)), request)

        @app.exception_handler(StarletteHTTPException)
        async def _http(request: Request, exc: StarletteHTTPException) -> Response:
            if exc.status_code == 405:
                return responder_error(servicio.ServicioError("método no admitido", 405), request)
            return responder_error(servicio.ServicioError("no existe esa página", exc.status_code), request)

        @app.exception_handler(RequestValidationError)
        async def _validacion(request: Request, exc: RequestValidationError) -> Response:
            # a path that is not a number (/torneos/abc) is a page that does not exist
            if any(e.get("loc", ("",))[0] == "path" for e in exc.errors()):
                return responder_error(servicio.ServicioError("no existe esa página", 404), request)
            return responder_error(servicio.ServicioError("campo {campo}: valor no válido",
                                                          campo=".".join(map(str, exc.errors()[0]["loc"]))), request)

        @app.middleware("http")
        async def _limite(request: Request, call_next: Any) -> Response:
            ip = request.client.host if request.client else "?"
            if not self.limite_general.permitir(f"ip:{ip}:{token_de(request) or ''}"):
                return error(servicio.ServicioError("demasiadas peticiones: espera un momento", 429), request)
            return await call_next(request)

        self._rutas_api(app)
        rutas_paginas(app, self)
        return app

    def _rutas_api(self, app: FastAPI) -> None:
        @app.post("/api/sesion")
        async def entrar(request: Request) -> Any:
            self._limitar(self.limite_entrar, request)
            body = await self.leer(request, Entrada)
            token, caduca = await self.en_hilo(lambda s: auth.entrar(s, body.usuario, body.clave))
            return {"token": token, "caduca": caduca.isoformat() + "Z"}

        @app.post("/api/torneos", status_code=201)
        async def crear(request: Request) -> Any:
            body = await self.leer(request, TorneoIn)
            formato = fm.Formato.from_dict(body.formato.model_dump())

            def run(s: Session) -> Any:
                cuenta = self._organizador(s, request)
                t = servicio.crear_torneo(s, cuenta, body.nombre, body.reglas, formato,
                                          [servicio.NuevaPareja(p.nombre, (p.jugadores[0], p.jugadores[1]))
                                           for p in body.parejas], body.mesas)
                t.arbitros_corrigen = body.arbitros_corrigen
                return {"id": t.id, "nombre": t.nombre}
            return await self.en_hilo(run)

        @app.get("/api/torneos/{torneo_id}")
        async def ver(torneo_id: int, request: Request) -> Any:
            return await self.en_hilo(lambda s: self.resumen(s, self._torneo(s, request, torneo_id)))

        @app.post("/api/torneos/{torneo_id}/rondas", status_code=201)
        async def ronda(torneo_id: int, request: Request) -> Any:
            def run(s: Session) -> Any:
                t = self._torneo(s, request, torneo_id, organizador=True)
                r = servicio.iniciar_ronda(s, t)
                return {"ronda": r.numero, "fase": r.fase}
            return await self.en_hilo(run)

        @app.get("/api/torneos/{torneo_id}/clasificacion")
        async def clasificacion(torneo_id: int, request: Request) -> Any:
            return await self.en_hilo(lambda s: servicio.clasificacion(s, self._torneo(s, request, torneo_id)))

        @app.get("/api/torneos/{torneo_id}/incidencias")
        async def incidencias(torneo_id: int, request: Request) -> Any:
            return await self.en_hilo(lambda s: servicio.incidencias(s, self._torneo(s, request, torneo_id)))

        @app.post("/api/torneos/{torneo_id}/partidas/{partida_id}/correccion", status_code=201)
        async def corregir(torneo_id: int, partida_id: int, request: Request) -> Any:
            body = await self.leer(request, CorreccionIn)

            def run(s: Session) -> Any:
                t = self._torneo(s, request, torneo_id)
                e = correcciones.enfrentamiento_de(s, t, partida_id)
                correcciones.corregir(s, t, self.cuenta(s, request), e, body.ganador, body.juegos, body.motivo,
                                      body.tantos)
                return servicio.estado_partida(s, t, e)
            return await self.en_hilo(run)

        @app.get("/api/torneos/{torneo_id}/correcciones")
        async def auditoria(torneo_id: int, request: Request) -> Any:
            return await self.en_hilo(lambda s: correcciones.correcciones(s, self._torneo(s, request, torneo_id)))

        @app.post("/api/torneos/{torneo_id}/arbitros", status_code=201)
        async def arbitro(torneo_id: int, request: Request) -> Any:
            body = await self.leer(request, ArbitroIn)

            def run(s: Session) -> Any:
                t = self._torneo(s, request, torneo_id, organizador=True)
                c = auth.crear_cuenta(s, body.usuario, body.clave, "arbitro", t)
                return {"usuario": c.usuario}
            return await self.en_hilo(run)

        @app.post("/api/torneos/{torneo_id}/informes", status_code=201)
        async def informe(torneo_id: int, request: Request) -> Any:
            body = await self.leer(request, InformeIn, LIMITE_INFORME)

            def run(s: Session) -> Any:
                t = self._torneo(s, request, torneo_id)
                inf = servicio.subir_informe(s, t, self.cuenta(s, request), body.mesa, body.registro,
                                             body.clave, body.sello)
                return {"id": inf.id, "sello": inf.sello}
            return await self.en_hilo(run)

        @app.get("/api/torneos/{torneo_id}/exportar.json")
        async def exportar_json(torneo_id: int, request: Request) -> Any:
            return await self.en_hilo(lambda s: self.exportar(s, self._torneo(s, request, torneo_id)))

        @app.get("/api/torneos/{torneo_id}/exportar.csv")
        async def exportar_csv(torneo_id: int, request: Request) -> Any:
            data = await self.en_hilo(lambda s: self.exportar(s, self._torneo(s, request, torneo_id)))
            return Response(a_csv(data), media_type="text/csv; charset=utf-8",
                            headers={"Content-Disposition": f'attachment; filename="torneo-{torneo_id}.csv"'})

        @app.post("/api/mesas/unirse")
        async def unirse(request: Request) -> Any:
            self._limitar(self.limite_entrar, request)
            body = await self.leer(request, Unirse)

            def run(s: Session) -> Any:
                token, t, e = servicio.unirse(s, body.codigo)
                return {"token": token, "torneo": {"id": t.id, "nombre": t.nombre},
                        "partida": servicio.estado_partida(s, t, e)}
            return await self.en_hilo(run)

        @app.get("/api/mesa/partida")
        async def partida(request: Request) -> Any:
            def run(s: Session) -> Any:
                t, e = servicio.mesa_del_token(s, self._token_mesa(request))
                return servicio.estado_partida(s, t, e)
            return await self.en_hilo(run)

        @app.post("/api/mesa/manos")
        async def mano(request: Request) -> Any:
            token = self._token_mesa(request)
            body = await self.leer(request, ManoIn)
            discrepancia = (body.discrepancia[0], body.discrepancia[1]) if body.discrepancia else None
            enviada = servicio.ManoEnviada(body.id, body.numero, body.registro, (body.tanteo[0], body.tanteo[1]),
                                           body.foto, body.anula, discrepancia)

            def run() -> Any:
                with self.sesion() as s:
                    t, e = servicio.mesa_del_token(s, token)
                    eid = e.id
                with servicio.cerrojo(eid), self.sesion() as s:
                    t, e = servicio.mesa_del_token(s, token)
                    e = s.get(type(e), e.id, with_for_update=True)
                    return servicio.registrar_mano(s, t, e, enviada)
            estado, respuesta = await run_in_threadpool(run)
            if isinstance(respuesta, servicio.ServicioError):  # refused, with its incident committed
                return error(respuesta, request)
            return JSONResponse(respuesta, status_code=estado)

    # -- helpers ------------------------------------------------------------------------------
    def _limitar(self, limite: auth.Limite, request: Request, clave: str | None = None) -> None:
        ip = request.client.host if request.client else "?"
        if not limite.permitir(clave or ip):
            raise servicio.ServicioError("demasiadas peticiones: espera un momento", 429)

    def _token_mesa(self, request: Request) -> str:
        token = token_de(request)
        if not token:
            raise servicio.ServicioError("falta el token de la mesa", 401)
        self._limitar(self.limite_mesa, request, "mesa:" + servicio.huella(token))
        return token

    def _organizador(self, s: Session, request: Request) -> Cuenta:
        cuenta = self.cuenta(s, request)
        if cuenta.rol != "organizador":
            raise servicio.ServicioError("solo un organizador puede hacer esto", 403)
        return cuenta

    def _torneo(self, s: Session, request: Request, torneo_id: int, organizador: bool = False) -> Torneo:
        cuenta = self._organizador(s, request) if organizador else self.cuenta(s, request)
        return servicio.torneo_de(s, torneo_id, cuenta)

    def resumen(self, s: Session, t: Torneo) -> dict[str, Any]:
        parejas = servicio.parejas_de(s, t)
        rondas = servicio.rondas_de(s, t)
        return {"id": t.id, "nombre": t.nombre, "reglas": t.reglas, "formato": t.formato,
                "arbitros_corrigen": t.arbitros_corrigen, **servicio.estado_torneo(s, t),
                "parejas": [{"id": p.id, "nombre": p.nombre, "jugadores": p.jugadores, "grupo": p.grupo}
                            for p in parejas],
                "mesas": [{"numero": m.numero, "codigo": m.codigo} for m in servicio.mesas_de(s, t)],
                "rondas": [{"numero": r.numero, "fase": r.fase} for r in rondas],
                "partidas": [servicio.estado_partida(s, t, e) | {"ronda": _ronda(rondas, e.ronda_id)}
                             for e in servicio.enfrentamientos_de(s, t)],
                "correcciones": correcciones.correcciones(s, t)}

    def exportar(self, s: Session, t: Torneo) -> dict[str, Any]:
        r = self.resumen(s, t)
        r.pop("mesas")  # the join codes are credentials: never in an export
        return r | {"clasificacion": servicio.clasificacion(s, t)["grupos"],
                    "incidencias": servicio.incidencias(s, t)}


def _ronda(rondas: list[Any], ronda_id: int) -> int:
    return next(r.numero for r in rondas if r.id == ronda_id)


def a_csv(data: dict[str, Any]) -> str:
    """The matches, one row each (ronda, mesa, parejas, juegos, marcador, ganador, the reason of
    a correction); every text cell made safe for a spreadsheet."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["ronda", "mesa", "pareja_0", "pareja_1", "juegos_0", "juegos_1", "tantos_0", "tantos_1",
                "manos", "ganador", "correccion"])
    motivos = {c["partida"]: c["motivo"] for c in data.get("correcciones", [])}
    for p in data["partidas"]:
        juegos = p.get("juegos", ["", ""])
        tantos = p.get("tantos", ["", ""])
        ganador = p["parejas"][p["ganador"]] if p["ganador"] is not None else ""
        w.writerow([celda(v) for v in (p["ronda"], p["mesa"] or "", p["parejas"][0], p["parejas"][1] or "",
                                       juegos[0], juegos[1], tantos[0], tantos[1], p.get("manos", 0), ganador,
                                       motivos.get(p["id"], ""))])
    return out.getvalue()


def celda(valor: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ or a tab or carriage
    return gets a leading apostrophe (OWASP's CSV injection advice); numbers stay numbers."""
    if isinstance(valor, str) and valor[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + valor
    return valor


def crear_app(url: str) -> FastAPI:
    return Servidor(url).app
