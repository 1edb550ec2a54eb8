"""The partida played from the phones, without HTTP: functions taking a SQLAlchemy Session.

The rules, the messages and the marcador are mesa/'s: each call rebuilds a
:class:`mesa.partida.ControlPartida` over :class:`AlmacenWeb` (this database) by replaying the
stored hands, so any server worker answers alike and a ``kill -9`` loses at most the hand being
entered, which is itself kept as a draft (``borradores``) at every step.

Two phones confirming hand ``n`` at once: the database's UNIQUE(partida_id, n) decides; the
loser is told "esta mano ya la confirmó otro teléfono" with the marcador. The same ``id_mano``
sent again answers what was stored (UNIQUE(partida_id, id_mano)).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field, replace
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Table, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from mesa.i18n import N_, SOURCE, t
from mesa.mano import EntradaMano, row_of
from mesa.partida import ULTIMAS, ControlPartida, VistaMarcador, nombre_pareja, vista_guardada
from mesa.storage import manos_csv
from mesa.torneo_mesa import seguir_respuestas
from scoring.cards import CARD_IDS, NotationError
from scoring.partida import PartidaError
from scoring.rules import PERFILES, PerfilError, datos_toml, perfil
from scoring.tanteo import NOMBRES_LANCE, ResultadoTanteo, tantear
from server.db import ahora
from server.errores import ServidorError
from server.modelos.partidas import Borrador, ManoPartida, PartidaWeb

ID_MANO: Final = r"^[A-Za-z0-9_.:-]{8,64}$"  # the tournament server's own rule for a hand's id
MAX_TOML: Final = 16 * 1024
ORIGENES: Final = ("manual", "camara", "asientos")
PERFIL_PROPIO: Final = "propio"  # the rule-profile choice of a custom TOML


class WebError(ServidorError):
    """A refusal of the partida's services (server.errores: a msgid, its status, its data)."""


def _de_reglas(exc: Exception) -> WebError:
    """scoring/'s and mesa/'s own errors as a WebError (their msgid and fields, when they have them)."""
    return WebError.de(exc)


# -- the draft ----------------------------------------------------------------------------------

Asiento = Annotated[int, Field(ge=0, le=3)]


def _sin_cartas() -> list[str | None]:
    """The four seats' cards of a new draft: none tapped yet."""
    return [None] * 4


class DatosBorrador(BaseModel):
    """The hand being entered, as saved at every step (the one model of it: the photo and the
    tournament parts add their fields here)."""

    model_config = ConfigDict(extra="forbid")

    id_mano: Annotated[str, Field(pattern=ID_MANO)]
    n: Annotated[int, Field(ge=1, le=100_000)]  # the hand it is for (1 + the hands confirmed)
    mano: Asiento | None = None  # who is mano, when a mus corrido hand moves it
    cartas: Annotated[list[Annotated[str, Field(max_length=64)] | None], Field(min_length=4, max_length=4)] = Field(
        default_factory=_sin_cartas
    )
    asiento: Asiento | None = None  # the seat whose cards are being tapped
    lances: dict[str, Any] = Field(default_factory=dict)  # hand-record lance outcomes
    paso: Annotated[str, Field(max_length=16)] = "cartas"  # the page's step: cartas, lances, tanteo
    lectura: dict[str, Any] | None = None  # `mus leer --json` of the photo, as it gave it
    correcciones: Annotated[list[dict[str, Any]], Field(max_length=64)] = Field(default_factory=list)
    fotos_asiento: Annotated[list[dict[str, Any] | None], Field(max_length=4)] = Field(default_factory=list)


def nuevo_id_mano() -> str:
    return secrets.token_urlsafe(12)


def _cartas_borrador(cartas: list[str | None]) -> None:
    """A draft's seats may be partial (tapped one card at a time) but hold only real cards,
    each once."""
    vistas: set[str] = set()
    for texto in cartas:
        for code in (texto or "").split():
            if code.lower() not in CARD_IDS:
                raise WebError(N_("carta desconocida: {carta}"), carta=code[:8])
            if code.lower() in vistas:
                raise WebError(N_("la carta {carta} está dos veces"), carta=code.lower())
            vistas.add(code.lower())
        if len((texto or "").split()) > 4:
            raise WebError(N_("una mano tiene cuatro cartas"))


# -- the store ControlPartida writes through ------------------------------------------------------


class AlmacenWeb:
    """mesa.partida.AlmacenPartidas over this database, inside one Session's transaction."""

    def __init__(self, s: Session, idioma: str = SOURCE) -> None:
        self.s, self.idioma = s, idioma

    def nueva_partida(self, reglas: str | dict, jugadores: list[str], mano: int) -> int:
        p = PartidaWeb(
            clave=secrets.token_urlsafe(16),
            reglas=reglas,
            jugadores=jugadores,
            mano_inicial=mano,
            idioma=self.idioma,
            terminada=False,
        )
        self.s.add(p)
        self.s.flush()
        return p.id

    def partida(self, partida_id: int) -> dict[str, Any] | None:
        p = self.s.get(PartidaWeb, partida_id)
        if p is None:
            return None
        return {
            "id": p.id,
            "clave": p.clave,
            "creada": p.creada,
            "reglas": p.reglas,
            "jugadores": p.jugadores,
            "mano_inicial": p.mano_inicial,
            "terminada": p.terminada,
            "ganador": p.ganador,
            "idioma": p.idioma,
        }

    def partida_abierta(self) -> dict[str, Any] | None:
        return None  # every partida is opened by its link

    def manos(self, partida_id: int) -> list[dict[str, Any]]:
        rows = self.s.scalars(select(ManoPartida).where(ManoPartida.partida_id == partida_id).order_by(ManoPartida.n))
        return [
            {"n": m.n, "registro": m.registro, "tanteo": m.tanteo, "origen": m.origen, "id_mano": m.id_mano}
            for m in rows
        ]

    def guardar_mano(
        self,
        partida_id: int,
        registro: dict,
        tanteo: dict,
        origen: str = "manual",
        terminada: bool = False,
        ganador: int | None = None,
        id_mano: str | None = None,
        n: int | None = None,
    ) -> int:
        if n is None:
            n = (self.s.scalar(select(func.count()).where(ManoPartida.partida_id == partida_id)) or 0) + 1
        row = ManoPartida(
            partida_id=partida_id,
            n=n,
            id_mano=id_mano or nuevo_id_mano(),
            registro=registro,
            tanteo=tanteo,
            origen=origen,
        )
        self.s.add(row)
        p = self.s.get(PartidaWeb, partida_id)
        assert p is not None
        p.terminada, p.ganador = terminada, ganador
        self.s.flush()  # the unique pairs are checked here: IntegrityError for the second phone
        return row.id

    def deshacer_mano(self, partida_id: int, n: int | None = None) -> bool:
        last = self.s.scalar(
            select(ManoPartida)
            .where(ManoPartida.partida_id == partida_id)
            .order_by(ManoPartida.n.desc())
            .limit(1)
            .with_for_update()
        )
        if last is None or (n is not None and last.n != n):
            return False
        self.s.delete(last)
        p = self.s.get(PartidaWeb, partida_id)
        assert p is not None
        p.terminada, p.ganador = False, None
        self.s.flush()
        return True


# -- partidas -----------------------------------------------------------------------------------


def perfiles() -> list[str]:
    """The rule profiles a new partida offers (every built-in one, then a custom TOML)."""
    return [*PERFILES, PERFIL_PROPIO]


def reglas_de(
    nombre: str, toml: str | None = None, juegos: int | None = None, vacas: int | None = None
) -> str | dict[str, Any]:
    """The partida's rules as stored: a profile name, or overrides (a custom TOML's, and the
    juegos and vacas chosen when they differ from the profile's)."""
    if nombre == PERFIL_PROPIO:
        if not toml or not toml.strip():
            raise WebError(N_("pega o sube el fichero TOML de tus reglas"))
        if len(toml) > MAX_TOML:
            raise WebError(N_("el fichero de reglas es demasiado grande (más de {kib} KiB)"), kib=MAX_TOML // 1024)
        try:
            reglas: str | dict[str, Any] = datos_toml(toml, "subido", PERFIL_PROPIO)
        except PerfilError as exc:
            raise _de_reglas(exc) from None
    elif nombre in PERFILES:
        reglas = nombre
    else:
        raise WebError(N_("perfil de reglas desconocido: {perfil}"), perfil=nombre[:40])
    base = perfil(reglas)
    cambios = {
        k: v
        for k, v in (("juegos_por_vaca", juegos), ("vacas_por_partida", vacas))
        if v is not None and v != getattr(base, k)
    }
    if not cambios:
        return reglas
    out = dict(reglas) if isinstance(reglas, dict) else {"base": reglas, "nombre": reglas}
    out |= cambios
    try:
        perfil(out)
    except PerfilError as exc:
        raise _de_reglas(exc) from None
    return out


def crear_partida(
    s: Session, jugadores: list[str], reglas: str | dict[str, Any], mano: int, idioma: str = SOURCE
) -> str:
    """A new partida (validated by mesa's ControlPartida); its clave."""
    ctl = ControlPartida(AlmacenWeb(s, idioma), idioma)
    try:
        ctl.nueva(reglas, jugadores, mano)
    except (ValueError, PartidaError) as exc:
        raise _de_reglas(exc) from None
    return str(ctl.info["clave"])


def _partida(s: Session, clave: str) -> PartidaWeb:
    p = s.scalar(select(PartidaWeb).where(PartidaWeb.clave == clave))
    if p is None:
        raise WebError(N_("no existe esa partida: revisa el enlace"), 404)
    return p


def control(s: Session, clave: str, idioma: str = SOURCE) -> ControlPartida:
    """The partida rebuilt from its stored hands."""
    p = _partida(s, clave)
    ctl = ControlPartida(AlmacenWeb(s, idioma), idioma)
    if not ctl.reanudar(p.id):
        raise WebError(ctl.problema or N_("no existe esa partida: revisa el enlace"), 500)
    if p.torneo and p.torneo.get("correcciones"):  # a tournament table's: it counts as the server does
        seguir_respuestas(ctl, int(p.torneo["primera"]), {int(n): r for n, r in p.torneo["respuestas"].items()})
    return ctl


def marcador(ctl: ControlPartida) -> dict[str, Any]:
    """Everything the marcador page shows, as plain JSON."""
    v = ctl.vista()
    return _marcador(v, ctl.info, ctl.guardadas, ctl.problema, lambda: _siguiente(ctl), ctl.idioma)


def _marcador(
    v: VistaMarcador,
    info: dict[str, Any],
    guardadas: int,
    problema: str,
    siguiente: Callable[[], str | None],
    idioma: str,
) -> dict[str, Any]:
    return {
        "clave": info["clave"],
        "parejas": [asdict(p) for p in v.parejas],
        "jugadores": v.jugadores,
        "mano": v.mano,
        "mano_nombre": v.jugadores[v.mano],
        "reglas": v.reglas,
        "tantos_juego": v.tantos_juego,
        "juegos_por_vaca": v.juegos_por_vaca,
        "vacas_por_partida": v.vacas_por_partida,
        "numero_mano": v.numero_mano,
        "manos": guardadas,
        "ultimas": v.ultimas,
        "terminada": v.terminada,
        "ganador": v.ganador,
        "ganador_nombre": nombre_pareja(v.jugadores, v.ganador, idioma) if v.ganador is not None else None,
        "problema": problema,
        "avisos": v.avisos,
        "siguiente": siguiente() if v.terminada else None,
    }


def ver(s: Session, clave: str, idioma: str = SOURCE) -> dict[str, Any]:
    """The marcador (:func:`marcador`) from the stored hands' tanteos, no hand scored again
    (mesa.partida.vista_guardada); replayed only for a tournament table's partida that follows
    the tournament server's corrections, or when a stored tanteo cannot be read (the replay
    says which hand)."""
    p = _partida(s, clave)
    if p.torneo and p.torneo.get("correcciones"):
        return marcador(control(s, clave, idioma))
    almacen = AlmacenWeb(s, idioma)
    info = almacen.partida(p.id)
    assert info is not None
    manos = _manos_marcador(s, p.id)
    try:
        v = vista_guardada(info, manos, idioma)
    except (KeyError, TypeError, ValueError):
        return marcador(control(s, clave, idioma))
    return _marcador(v, info, len(manos), "", lambda: _siguiente_de(s, p.id), idioma)


def _manos_marcador(s: Session, partida_id: int) -> list[dict[str, Any]]:
    """The partida's hands as mesa.partida.vista_guardada reads them: of each, only what moves
    the marcador (its mano, the tantos it left, the end of a juego), read from its tanteo's
    JSON by the database; the last ULTIMAS whole, for the list of the last hands."""
    tan = ManoPartida.tanteo
    filas = s.execute(
        select(ManoPartida.n, tan["mano"], tan["marcador"], tan["fin"])
        .where(ManoPartida.partida_id == partida_id)
        .order_by(ManoPartida.n)
    ).all()
    enteras = {
        m.n: m
        for m in s.scalars(
            select(ManoPartida)
            .where(ManoPartida.partida_id == partida_id)
            .order_by(ManoPartida.n.desc())
            .limit(ULTIMAS)
        )
    }
    manos: list[dict[str, Any]] = []
    for n, mano, tantos, fin in filas:
        entera = enteras.get(n)
        if entera is not None:
            manos.append({"n": n, "registro": entera.registro, "tanteo": entera.tanteo})
        else:
            manos.append({"n": n, "registro": {"mano": mano}, "tanteo": {"mano": mano, "marcador": tantos, "fin": fin}})
    return manos


def version_marcador(s: Session, clave: str, idioma: str = SOURCE) -> str:
    """The marcador's version, its ETag: it changes whenever what :func:`ver` answers changes
    (a hand confirmed or undone, the next partida started, a tournament's answer, the
    language), read in one query without loading any hand. The last hand's row id, its
    ``id_mano`` and its time tell an undone-and-entered-again hand from the one before (SQLite
    may give the new row the deleted one's id)."""
    p = _partida(s, clave)
    ultima = s.execute(
        select(ManoPartida.id, ManoPartida.id_mano, ManoPartida.creada)
        .where(ManoPartida.partida_id == p.id)
        .order_by(ManoPartida.n.desc())
        .limit(1)
    ).first()
    cuantas = s.scalar(select(func.count()).where(ManoPartida.partida_id == p.id)) or 0
    partes = [str(cuantas), idioma, "t" if p.terminada else "-"]
    if ultima is not None:
        partes += [str(ultima.id), ultima.id_mano, ultima.creada.isoformat() if ultima.creada else ""]
    if p.terminada:  # the draft row of an ended partida holds the next one's clave
        guardado = _borrador_guardado(s, p.id)
        partes.append(str(guardado.version) if guardado is not None else "0")
    if p.torneo:
        partes.append(json.dumps(p.torneo, sort_keys=True, default=str))
    return '"' + hashlib.sha256("|".join(partes).encode()).hexdigest()[:32] + '"'


# -- the draft ----------------------------------------------------------------------------------


def leer_borrador(s: Session, clave: str, idioma: str = SOURCE) -> tuple[DatosBorrador, int]:
    """The hand being entered and its version; a fresh one (version 0) when there is none or
    the stored one is for a hand already confirmed."""
    p = _partida(s, clave)  # the hands counted, not replayed
    b = s.get(Borrador, p.id)
    n = (s.scalar(select(func.count()).where(ManoPartida.partida_id == p.id)) or 0) + 1
    if b is not None:
        try:
            datos = DatosBorrador.model_validate(b.datos)
        except ValidationError:  # saved by a server whose draft had other fields: start the hand afresh
            datos = None
        if datos is not None and datos.n == n:
            return datos, b.version
    return DatosBorrador(id_mano=nuevo_id_mano(), n=n), (b.version if b is not None else 0)


def guardar_borrador(s: Session, clave: str, datos: DatosBorrador, version: int | None = None) -> int:
    """Store the draft; ``version`` (the one the phone read) guards against overwriting another
    phone's newer step: WebError 409 then, with the stored draft. The new version.

    A compare-and-set in one statement (``UPDATE ... WHERE version = :v``, or for the first
    save an INSERT the draft's primary key lets through once), so of several phones or server
    workers saving from the same version exactly one wins, on SQLite and PostgreSQL alike."""
    p = _partida(s, clave)
    _cartas_borrador(datos.cartas)
    nueva = _cas_borrador(s, p.id, datos.model_dump(), version)
    if nueva is None:
        raise _otro_telefono(_borrador_guardado(s, p.id))
    return nueva


def _cas_borrador(s: Session, partida_id: int, datos: dict[str, Any], version: int | None) -> int | None:
    """Write the partida's draft row if it is still at ``version`` (0: none yet; None: whatever
    is there); the new version, or None when another writer got there first."""
    if version is None:
        actual = _borrador_guardado(s, partida_id)
        version = actual.version if actual is not None else 0
    if version == 0:
        return 1 if _insertar_borrador(s, partida_id, datos) else None
    hecho = s.execute(
        update(_BORRADORES)
        .where(_BORRADORES.c.partida_id == partida_id, _BORRADORES.c.version == version)
        .values(datos=datos, version=_BORRADORES.c.version + 1, actualizado=ahora())
        .returning(_BORRADORES.c.version)
    ).first()
    return int(hecho.version) if hecho is not None else None


def _insertar_borrador(s: Session, partida_id: int, datos: dict[str, Any]) -> bool:
    """The partida's first draft, once: the primary key (one draft a partida) refuses a second.
    Written as INSERT ... ON CONFLICT DO NOTHING where the database has it, so the loser's
    transaction goes on (PostgreSQL aborts a transaction on a failed INSERT) to read the winner's."""
    valores = {"partida_id": partida_id, "datos": datos, "version": 1, "actualizado": ahora()}
    dialecto = s.get_bind().dialect.name
    if dialecto in ("sqlite", "postgresql"):
        insertar = sqlite_insert if dialecto == "sqlite" else pg_insert
        hecho = s.execute(
            insertar(_BORRADORES)
            .values(**valores)
            .on_conflict_do_nothing(index_elements=["partida_id"])
            .returning(_BORRADORES.c.version)
        ).first()
        return hecho is not None  # RETURNING, not rowcount: psycopg's is -1 for an INSERT ... ON CONFLICT
    try:
        with s.begin_nested():
            s.execute(insert(_BORRADORES).values(**valores))
    except IntegrityError:
        return False
    return True


# Core statements: what the database answers, no ORM bulk semantics
_BORRADORES: Final[Table] = Borrador.__table__  # type: ignore[assignment]


@dataclass(frozen=True)
class _Guardado:
    datos: dict[str, Any]
    version: int


def _borrador_guardado(s: Session, partida_id: int) -> _Guardado | None:
    """The stored draft as the database holds it now (columns, not the Session's cached object)."""
    fila = s.execute(select(Borrador.datos, Borrador.version).where(Borrador.partida_id == partida_id)).first()
    return _Guardado(dict(fila.datos), int(fila.version)) if fila is not None else None


def _otro_telefono(b: _Guardado | None) -> WebError:
    datos = {"borrador": b.datos, "version": b.version} if b is not None else {}
    return WebError(N_("otro teléfono ha cambiado esta mano: se muestra lo suyo"), 409, datos)


# -- a hand -------------------------------------------------------------------------------------


@dataclass
class ManoNueva:
    """A hand as a phone sends it to be previewed or confirmed."""

    cartas: list[str | None]
    lances: dict[str, Any] = field(default_factory=dict)
    mano: int | None = None
    id_mano: str = ""
    n: int = 0
    origen: str = "manual"


def _entrada(ctl: ControlPartida, mano: ManoNueva, quitar_imposibles: bool = False) -> EntradaMano:
    """The hand as mesa's EntradaMano checks it. ``quitar_imposibles``: a bet on a lance the
    cards leave unplayed (a preview while the cards change) is dropped instead of refused."""
    _cartas_borrador(mano.cartas)
    e = ctl.entrada()
    if mano.mano is not None:
        e.mano = mano.mano
    try:
        for asiento, texto in enumerate(mano.cartas):  # a seat still being tapped counts as empty
            e.poner_mano(asiento, texto if texto and len(texto.split()) == 4 else None)
        lances = mano.lances
        if quitar_imposibles:
            jugados = {row_of(r.lance) for r in e.estado() if r.apostable}
            lances = {k: v for k, v in lances.items() if row_of(k) in jugados}
        e.cargar_lances(lances)
    except (NotationError, ValueError) as exc:
        raise _de_reglas(exc) from None
    return e


def estado_lances(ctl: ControlPartida, mano: ManoNueva) -> list[dict[str, Any]]:
    """The four lance rows: whether each is bet on (and why not), and what was recorded."""
    e = _entrada(ctl, mano, quitar_imposibles=True)
    return [
        {
            "lance": r.lance,
            "fila": row_of(r.lance),
            "nombre": t(NOMBRES_LANCE[r.lance], ctl.idioma),
            "apostable": r.apostable,
            "motivo": t(r.plantilla[0], ctl.idioma).format(*r.plantilla[1:]) if r.plantilla else "",
            "resultado": r.resultado,
        }
        for r in e.estado()
    ]


def _faltan(ctl: ControlPartida, mano: ManoNueva) -> None:
    faltan = [ctl.info["jugadores"][i] for i, c in enumerate(mano.cartas) if not c or len(c.split()) != 4]
    if faltan:
        raise WebError(N_("faltan las cartas de {jugadores}"), jugadores=", ".join(faltan))


def _tanteo(ctl: ControlPartida, res: Any, avisos: list[tuple[str, str]]) -> dict[str, Any]:
    """The tanteo as the pages show it: per lance, the reasons, the end of a juego."""
    doc = res.to_json()
    parejas = [ctl.nombre_pareja(0), ctl.nombre_pareja(1)]
    return {
        "resultado": doc,
        "parejas": parejas,
        "filas": [
            {"lance": lance, "nombre": t(NOMBRES_LANCE[lance], ctl.idioma), "tantos": res.por_lance[lance]}
            for lance in res.orden
        ],
        "total": [sum(v[i] for v in res.por_lance.values()) for i in (0, 1)],
        "razones": [
            {"pareja": a.pareja, "nombre": parejas[a.pareja], "tantos": a.tantos, "razon": res.razon(a, ctl.idioma)}
            for a in res.detalle
        ],
        "avisos": [t(plantilla, ctl.idioma).format(arg) for plantilla, arg in avisos],
    }


def previsualizar(s: Session, clave: str, mano: ManoNueva, idioma: str = SOURCE) -> dict[str, Any]:
    """The lance rows, and once the four hands are in, the tanteo it would give (nothing stored)."""
    ctl = control(s, clave, idioma)
    out: dict[str, Any] = {"lances": estado_lances(ctl, mano), "tanteo": None}
    if all(c and len(c.split()) == 4 for c in mano.cartas):
        try:
            out["tanteo"] = _tanteo(ctl, *ctl.previsualizar(_entrada(ctl, mano, quitar_imposibles=True)))
        except ValueError as exc:  # scoring/'s errors (a partida, a hand record) are ValueErrors
            raise _de_reglas(exc) from None
    return out


Sesiones = Callable[[], AbstractContextManager[Session]]
# what else a confirmed hand is written to, in the confirm's transaction: (session, partida id,
# hand number, id_mano, hand record, the tanteo as scored here) (server.servicios.mesa_torneo.al_confirmar)
AlConfirmar = Callable[[Session, int, int, str, dict[str, Any], ResultadoTanteo], None]


def confirmar_mano(
    sesion: Sesiones, clave: str, mano: ManoNueva, idioma: str = SOURCE, al_confirmar: AlConfirmar | None = None
) -> dict[str, Any]:
    """Score and store the hand once: the same ``id_mano`` again answers the stored result
    (``repetida``); another phone's hand ``n`` stored first answers WebError 409 with the marcador.
    ``al_confirmar``: called with the hand as scored, in the same transaction."""
    if mano.origen not in ORIGENES:
        raise WebError(N_("origen desconocido: {origen}"), origen=mano.origen[:16])
    try:
        with sesion() as s:
            return _confirmar(s, clave, mano, idioma, al_confirmar)
    except IntegrityError:
        pass  # rolled back: another phone's transaction stored hand n (or this id_mano) first
    with sesion() as s:
        ganadora = _ya_guardada(s, clave, mano, idioma)
        if ganadora is not None:
            return ganadora
        raise _confirmada_por_otro(control(s, clave, idioma), mano.n)


def _confirmar(
    s: Session, clave: str, mano: ManoNueva, idioma: str, al_confirmar: AlConfirmar | None = None
) -> dict[str, Any]:
    ya = _ya_guardada(s, clave, mano, idioma)
    if ya is not None:
        return ya
    ctl = control(s, clave, idioma)
    if ctl.partida is not None and ctl.partida.terminada:
        raise WebError(N_("la partida ya terminó"), 409, {"marcador": marcador(ctl)})
    if mano.n != ctl.guardadas + 1:
        raise _confirmada_por_otro(ctl, mano.n)
    _faltan(ctl, mano)
    try:
        res, avisos = ctl.confirmar(_entrada(ctl, mano), _origen(s, ctl.partida_id, mano.origen), id_mano=mano.id_mano)
    except ValueError as exc:  # scoring/'s errors (a partida, a hand record) are ValueErrors
        raise _de_reglas(exc) from None
    s.execute(delete(Borrador).where(Borrador.partida_id == ctl.partida_id))
    if al_confirmar is not None and ctl.partida_id is not None and ctl.ultimo_registro is not None:
        al_confirmar(s, ctl.partida_id, mano.n, mano.id_mano, ctl.ultimo_registro, res)
    return {
        "n": mano.n,
        "id_mano": mano.id_mano,
        "repetida": False,
        "tanteo": _tanteo(ctl, res, avisos),
        "marcador": marcador(ctl),
    }


def _origen(s: Session, partida_id: int | None, origen: str) -> str:
    """How the hand was really entered: a draft read from photos seat by seat is "asientos" (the
    export says so), even where a page sent "camara" for any reading."""
    b = s.get(Borrador, partida_id) if partida_id is not None else None
    if origen == "camara" and b is not None and any((b.datos or {}).get("fotos_asiento") or ()):
        return "asientos"
    return origen


def _ya_guardada(s: Session, clave: str, mano: ManoNueva, idioma: str) -> dict[str, Any] | None:
    p = _partida(s, clave)
    row = s.scalar(select(ManoPartida).where(ManoPartida.partida_id == p.id, ManoPartida.id_mano == mano.id_mano))
    if row is None:
        return None
    ctl = control(s, clave, idioma)
    if not _misma_mano(ctl, row.registro, mano):
        # the id_mano is the shared draft's: another phone confirmed this hand with other cards or
        # lances first (this one was offline); told as a lost hand, never answered as its own
        raise _confirmada_por_otro(ctl, row.n)
    # the stored record scored again: the same tanteo, shown as the first answer showed it
    return {
        "n": row.n,
        "id_mano": row.id_mano,
        "repetida": True,
        "tanteo": _tanteo(ctl, tantear(row.registro), []),
        "marcador": marcador(ctl),
    }


def _misma_mano(ctl: ControlPartida, registro: dict[str, Any], mano: ManoNueva) -> bool:
    """Whether a stored hand record is the hand a phone sends again (its answer lost): the same
    cards, and the same lances once read as the record was (paso left out, juego or punto as the
    cards decide)."""
    guardadas = [sorted(h.split()) for h in registro.get("manos", [])]
    if guardadas != [sorted((c or "").split()) for c in mano.cartas]:
        return False
    if mano.mano is not None and mano.mano != registro.get("mano"):
        return False
    try:
        leida = _entrada(ctl, replace(mano, mano=registro.get("mano")))
    except WebError:
        return False
    return leida.lances() == registro.get("lances", {})


def _confirmada_por_otro(ctl: ControlPartida, n: int) -> WebError:
    """Hand ``n`` is another phone's: the marcador, and that hand as stored (``guardada``) for
    the phone to show beside its own and let the table keep one."""
    datos: dict[str, Any] = {"marcador": marcador(ctl)}
    guardada = next((m for m in ctl.almacen.manos(ctl.partida_id or 0) if m["n"] == n), None)
    if guardada is not None:
        reg, tan = guardada["registro"], guardada["tanteo"]
        datos["guardada"] = {
            "n": n,
            "id_mano": guardada["id_mano"],
            "cartas": reg["manos"],
            "mano": reg["mano"],
            "lances": reg.get("lances", {}),
            "total": [sum(v[i] for v in tan.get("por_lance", {}).values()) for i in (0, 1)],
            "ultima": n == ctl.guardadas,  # only the last hand can be undone to enter another
        }
    return WebError(N_("esta mano ya la confirmó otro teléfono"), 409, datos)


def deshacer(s: Session, clave: str, n: int, idioma: str = SOURCE) -> dict[str, Any]:
    """Undo hand ``n``, which must be the last (two phones undoing at once undo one hand)."""
    ctl = control(s, clave, idioma)
    if _partida(s, clave).torneo:  # the tournament server holds the hand already
        raise WebError(
            N_("En un torneo las manos enviadas no se deshacen: avisa al árbitro"), 409, {"marcador": marcador(ctl)}
        )
    if ctl.guardadas == 0:
        raise WebError(N_("no hay ninguna mano que deshacer"), 409, {"marcador": marcador(ctl)})
    if ctl.vista().terminada and _siguiente(ctl) is not None:  # the table already plays the next one
        raise WebError(
            N_("Esta partida terminó y ya se empezó otra: sus manos no se deshacen"), 409, {"marcador": marcador(ctl)}
        )
    if n != ctl.guardadas or not ctl.deshacer():
        raise WebError(N_("la mano {n} ya no es la última: mira el marcador"), 409, {"marcador": marcador(ctl)}, n=n)
    return marcador(ctl)


# -- another partida -------------------------------------------------------------------------------


def _siguiente(ctl: ControlPartida) -> str | None:
    """The clave of the partida a phone started after this one ended (kept in this partida's
    draft row, which an ended partida does not use), or None."""
    assert isinstance(ctl.almacen, AlmacenWeb)
    return _siguiente_de(ctl.almacen.s, ctl.partida_id or 0)


def _siguiente_de(s: Session, partida_id: int) -> str | None:
    guardado = _borrador_guardado(s, partida_id)
    siguiente = guardado.datos.get("siguiente") if guardado is not None else None
    return siguiente if isinstance(siguiente, str) else None


class _OtraYaCreada(Exception):
    """Another phone started the next partida first: this transaction's goes back."""


def otra_partida(sesion: Sesiones, clave: str, idioma: str = SOURCE) -> str:
    """A new partida with the same players, seats and rules after this one ended; its clave.
    Two phones asking at once get the same one (a compare-and-set on the ended partida's draft)."""
    try:
        with sesion() as s:
            ctl = control(s, clave, idioma)
            if not ctl.vista().terminada:
                raise WebError(N_("la partida aún no ha terminado"), 409, {"marcador": marcador(ctl)})
            ya = _siguiente(ctl)
            if ya is not None:
                return ya
            info = ctl.info
            nueva = crear_partida(s, list(info["jugadores"]), info["reglas"], int(info["mano_inicial"]), idioma)
            guardado = _borrador_guardado(s, ctl.partida_id or 0)
            hecho = _cas_borrador(
                s, ctl.partida_id or 0, {"siguiente": nueva}, guardado.version if guardado is not None else 0
            )
            if hecho is None:
                raise _OtraYaCreada
            return nueva
    except _OtraYaCreada:
        pass
    with sesion() as s:
        siguiente = _siguiente(control(s, clave, idioma))
        if siguiente is None:  # the draft row changed for another reason: the phone asks again
            raise WebError(N_("otro teléfono ha cambiado esta mano: se muestra lo suyo"), 409)
        return siguiente


# -- export -------------------------------------------------------------------------------------


def exportar_json(s: Session, clave: str) -> list[dict[str, Any]]:
    """The hand records, each as `mus tanteo` reads it (the file is a JSON array of them)."""
    p = _partida(s, clave)
    return [m["registro"] for m in AlmacenWeb(s).manos(p.id)]


def exportar_csv(s: Session, clave: str) -> str:
    p = _partida(s, clave)
    return manos_csv(AlmacenWeb(s).manos(p.id))
