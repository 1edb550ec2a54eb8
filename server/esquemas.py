"""The API's pydantic models: every body it reads (strict: no extra field, no coercion) and
every answer it gives, and the one line a body's first problem is answered with."""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mesa.i18n import N_
from server.modelos.torneo import RolMiembro
from server.servicios.torneos import ServicioError
from torneo import formato as fm

LIMITE_CUERPO: Final = 64 * 1024  # a hand record with its declaraciones is a few KiB
LIMITE_INFORME: Final = 4 * 1024 * 1024  # a referee's log of a whole day
ID_MANO: Final = r"^[A-Za-z0-9_.:-]{8,64}$"
HEX64: Final = r"^[0-9a-f]{64}$"


class Estricto(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Entrada(Estricto):
    usuario: Annotated[str, Field(min_length=1, max_length=64)]
    clave: Annotated[str, Field(min_length=1, max_length=256)]


class ParejaIn(Estricto):
    nombre: Annotated[str, Field(min_length=1, max_length=120)]
    jugadores: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=2, max_length=2)]


class TiempoIn(Estricto):
    """A round's minutes and who wins a match unfinished at the end (server.servicios.reloj.REGLAS)."""

    minutos: Annotated[int, Field(ge=1, le=600)]
    al_acabar: Annotated[str, Field(pattern="^(juegos_tantos|tantos)$")] = "juegos_tantos"


class FormatoIn(Estricto):
    """torneo.formato.Formato: the absent values take its defaults (a Swiss tournament's
    knockout and tie-breaks differ from the others')."""

    tipo: str = "liga"
    grupos: int = 1
    clasifican: int | None = None
    juegos: int | None = None
    vacas: int | None = None
    desempates: list[str] | None = Field(default=None, max_length=8)
    sorteo: bool = False
    semilla: int | None = None
    rondas: int | None = None
    ceros: int = 2
    tiempo: TiempoIn | None = None  # the round clock (server.servicios.reloj)
    confirmacion_rival: bool = False  # the other pareja confirms each hand (server.servicios.confirmacion)


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


class MiembroIn(Estricto):
    """A co-organiser or referee: an existing account, or a new one when ``clave`` is given."""

    usuario: Annotated[str, Field(min_length=3, max_length=64)]
    rol: RolMiembro
    clave: Annotated[str, Field(min_length=8, max_length=256)] | None = None


class ClaveIn(Estricto):
    actual: Annotated[str, Field(min_length=1, max_length=256)]
    nueva: Annotated[str, Field(min_length=1, max_length=256)]


# -- answers ----------------------------------------------------------------------------------
class Respuesta(BaseModel):
    """An answer: the keys the service gave (a key it left out stays out)."""

    model_config = ConfigDict(extra="forbid")


class ErrorOut(Respuesta):
    error: str
    tanteo_servidor: list[int] | None = None


class SesionOut(Respuesta):
    token: str
    caduca: str


class CreadoOut(Respuesta):
    id: int
    nombre: str


class RondaOut(Respuesta):
    ronda: int
    fase: str


class UsuarioOut(Respuesta):
    usuario: str


class MiembroOut(Respuesta):
    cuenta: int
    usuario: str
    rol: str
    creador: bool


class CambioMiembroOut(Respuesta):
    """A line of the members' log: ``usuario`` became ("alta"), changed to ("rol") or stopped
    being ("baja") a member in ``rol``, done by ``por`` ("" from the command line)."""

    usuario: str
    rol: str
    accion: str
    por: str
    cuando: str


class InvitacionOut(Respuesta):
    """A pending invitation as the tournament's organisers see it: by name, whether an account
    has that name or not."""

    usuario: str
    rol: str
    por: str
    cuando: str


class InformeOut(Respuesta):
    id: int
    sello: str


class ResultadoOut(Respuesta):
    ganador: int | None
    juegos: list[int]
    tantos: list[int]
    marcador: list[int]
    corregida: bool
    por_tiempo: bool | None = None  # closed on time (server.servicios.reloj)


class PartidaOut(Respuesta):
    """A match's state (the table's view; a finished match shows what it ended with)."""

    id: int
    mesa: int | None
    parejas: list[str | None]
    ganador: int | None
    ronda: int | None = None
    descansa: bool | None = None
    jugadores: list[str] | None = None
    reglas: Any = None
    tantos: list[int] | None = None
    juegos: list[int] | None = None
    vacas: list[int] | None = None
    mano: int | None = None
    manos: int | None = None
    siguiente: int | None = None
    terminada: bool | None = None
    resultado: ResultadoOut | None = None


class TorneoCorto(Respuesta):
    id: int
    nombre: str


class MiInvitacionOut(Respuesta):
    """An invitation as the invited account sees it (``id``: to accept or decline it)."""

    id: int
    torneo: TorneoCorto
    rol: str
    por: str
    cuando: str


class UnirseOut(Respuesta):
    token: str
    torneo: TorneoCorto
    partida: PartidaOut


class ManoOut(Respuesta):
    id: str
    numero: int
    marcador: list[int]
    tantos: list[int]
    juegos: list[int]
    vacas: list[int]
    terminada: bool
    ganador: int | None


class ParejaOut(Respuesta):
    id: int
    nombre: str
    jugadores: list[str]
    grupo: int | None
    retirada: bool
    entra_en: int = 0  # rounds already paired when it joined (a league's late pareja)


class MesaOut(Respuesta):
    numero: int
    codigo: str | None  # None: a code made before codes were kept hashed (make a new one)


class RondaCorta(Respuesta):
    numero: int
    fase: str


class CorreccionOut(Respuesta):
    partida: int
    ronda: int
    mesa: int | None
    parejas: list[str | None]
    usuario: str
    cuando: str
    motivo: str
    antes: dict[str, Any]
    despues: dict[str, Any]


class IncidenciaOut(Respuesta):
    origen: str
    mesa: int | None
    pareja: str | None
    asiento: int | None
    tipo: str
    gravedad: str
    articulo: str
    razon: str
    mano: int | None = None
    tanteo_mesa: list[int] | None = None
    tanteo_servidor: list[int] | None = None


class FilaOut(Respuesta):
    pareja: int
    nombre: str
    jugadas: int
    ganadas: int
    perdidas: int
    juegos_favor: int
    juegos_contra: int
    tantos_favor: int
    tantos_contra: int
    descansos: int
    buchholz: int  # the sum of the opponents' wins (a Swiss tournament's first tie-break)
    ceros: int  # matches lost (an elimination by ceros puts a pareja out at its limit)
    retirada: bool


class GrupoOut(Respuesta):
    grupo: int
    filas: list[FilaOut]


class ClasificacionOut(Respuesta):
    torneo: int
    nombre: str
    grupos: list[GrupoOut]


class TorneoOut(Respuesta):
    id: int
    nombre: str
    reglas: Any
    formato: dict[str, Any]
    arbitros_corrigen: bool
    terminado: bool
    campeon: str | None
    parejas: list[ParejaOut]
    mesas: list[MesaOut] | None = None
    rondas: list[RondaCorta]
    partidas: list[PartidaOut]
    correcciones: list[CorreccionOut]
    firma: str  # the public page is /publico/{id}/{firma}


class ExportOut(TorneoOut):
    """Everything of a tournament but the join codes; ``manos``: every hand as stored, so the
    tournament can be rebuilt from it; ``miembros``: its organisers and referees by user name
    and role (never a password hash)."""

    clasificacion: list[GrupoOut]
    incidencias: list[IncidenciaOut]
    miembros: list[MiembroOut]
    cambios_miembros: list[CambioMiembroOut]
    manos: list[dict[str, Any]]
    llamadas: list[dict[str, Any]] = []  # calls to the referee (server.servicios.llamadas)
    reloj: list[dict[str, Any]] = []  # the round clocks' log (server.servicios.reloj.registro)


# pydantic's error type -> (msgid, the ctx key that fills {n})
_VALIDACION: Final[dict[str, tuple[str, str | None]]] = {
    "missing": (N_("campo {campo}: falta"), None),
    "extra_forbidden": (N_("campo {campo}: no se admite"), None),
    "string_too_short": (N_("campo {campo}: debe tener al menos {n} caracteres"), "min_length"),
    "string_too_long": (N_("campo {campo}: debe tener como mucho {n} caracteres"), "max_length"),
    "too_short": (N_("campo {campo}: debe tener al menos {n} elementos"), "min_length"),
    "too_long": (N_("campo {campo}: debe tener como mucho {n} elementos"), "max_length"),
    "string_pattern_mismatch": (N_("campo {campo}: formato no válido"), None),
    "greater_than_equal": (N_("campo {campo}: debe ser {n} o más"), "ge"),
    "less_than_equal": (N_("campo {campo}: debe ser {n} o menos"), "le"),
    "int_type": (N_("campo {campo}: debe ser un número entero"), None),
    "int_parsing": (N_("campo {campo}: debe ser un número entero"), None),
    "int_from_float": (N_("campo {campo}: debe ser un número entero"), None),
    "string_type": (N_("campo {campo}: debe ser un texto"), None),
    "bool_type": (N_("campo {campo}: debe ser verdadero o falso"), None),
    "list_type": (N_("campo {campo}: debe ser una lista"), None),
    "dict_type": (N_("campo {campo}: debe ser un objeto"), None),
    "model_type": (N_("campo {campo}: debe ser un objeto"), None),
    "model_attributes_type": (N_("campo {campo}: debe ser un objeto"), None),
}


def error_de_validacion(exc: ValidationError) -> ServicioError:
    """The first problem pydantic found, as one translatable line naming the field."""
    e = exc.errors()[0]
    campo = ".".join(str(p) for p in e["loc"]) or "cuerpo"
    plantilla, clave = _VALIDACION.get(e["type"], (N_("campo {campo}: valor no válido"), None))
    extra = {"n": (e.get("ctx") or {}).get(clave, "?")} if clave else {}
    return ServicioError(plantilla, campo=campo, **extra)
