"""The organiser pages' forms as pydantic models, read by ``formulario`` (a FastAPI dependency):
the body within its size limit, an empty field as a missing one (its default applies), numbers
and check boxes converted from the form's text. The first problem is one translatable line
(server.esquemas.error_de_validacion), answered as a page in the reader's language."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Final, TypeVar

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from server.cuerpo import leer_formulario
from server.esquemas import error_de_validacion
from server.modelos.torneo import RolMiembro
from torneo import formato as fm

LIMITE_FORMULARIO: Final = 256 * 1024  # the creation form's list of up to 256 parejas
F = TypeVar("F", bound="Formulario")


class Formulario(BaseModel):
    """A posted HTML form: unknown fields ignored (a browser may add some), text converted."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _sin_vacios(cls, data: Any) -> Any:
        # an empty box means "not given": the field's default, or "falta" when it has none
        return {k: v for k, v in data.items() if str(v).strip()} if isinstance(data, dict) else data


def formulario(model: type[F], limite: int = LIMITE_FORMULARIO) -> Callable[[Request], Awaitable[F]]:
    """A dependency that reads the request's form as ``model`` (ServicioError, 413 or 422)."""

    async def leer(request: Request) -> F:
        campos = await leer_formulario(request, limite)
        try:
            return model.model_validate(campos)
        except ValidationError as exc:
            raise error_de_validacion(exc) from None

    return leer


Usuario = Annotated[str, Field(max_length=64)]
Clave = Annotated[str, Field(max_length=256)]


class EntrarForm(Formulario):
    usuario: Usuario
    clave: Clave


class TorneoForm(Formulario):
    nombre: Annotated[str, Field(max_length=120)] = "Torneo"
    reglas: Annotated[str, Field(max_length=40)] = "segovia"
    tipo: Annotated[str, Field(max_length=20)] = "liga"
    grupos: Annotated[int, Field(ge=1, le=32)] = 1
    # a Swiss tournament's knockout after its rounds: 0 for none
    clasifican: Annotated[int, Field(ge=0, le=16)] = 2
    rondas: Annotated[int, Field(ge=1, le=20)] | None = None  # a Swiss tournament's rounds
    ceros: Annotated[int, Field(ge=1, le=3)] = 2  # an elimination by ceros: out at this many lost matches
    juegos: Annotated[int, Field(ge=1, le=20)] | None = None
    sorteo: bool = False
    semilla: Annotated[int, Field(ge=0, le=2**31)] | None = None
    parejas: Annotated[str, Field(max_length=LIMITE_FORMULARIO)] = ""
    mesas: Annotated[int, Field(ge=1, le=fm.MAX_MESAS)] = 1
    arbitros_corrigen: bool = False

    def formato(self) -> fm.Formato:
        return fm.Formato.from_dict(
            {
                "tipo": self.tipo,
                "grupos": self.grupos,
                "clasifican": self.clasifican,
                "rondas": self.rondas,
                "ceros": self.ceros,
                "juegos": self.juegos,
                "sorteo": self.sorteo,
                "semilla": self.semilla,
            }
        )


Juegos = Annotated[int, Field(ge=0, le=1000)]


class CorreccionForm(Formulario):
    ganador: Annotated[int, Field(ge=0, le=1)] = 0
    juegos0: Juegos = 0
    juegos1: Juegos = 0
    motivo: Annotated[str, Field(max_length=500)] = ""


class ParejaForm(Formulario):
    pareja: Annotated[str, Field(max_length=250)]  # "Nombre: Jugador, Jugador"


class ArbitroForm(Formulario):
    usuario: Usuario
    clave: Clave


class MiembroForm(Formulario):
    """A co-organiser or referee: an existing account by its name, or a new one with ``clave``."""

    usuario: Usuario
    rol: RolMiembro = "arbitro"
    clave: Clave = ""


class ClaveForm(Formulario):
    actual: Clave
    nueva: Clave
    repetida: Clave
