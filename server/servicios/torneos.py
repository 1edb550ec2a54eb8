"""What the server does, without HTTP: create a tournament, start rounds, take a table's hands
(recomputed with scoring/, or taken as this process scored them, and stored once), take a
referee's report, add up the standings.

Every function takes a SQLAlchemy session and the tournament it acts on, so nothing reads
outside that tournament. Errors are ``ServicioError`` (server.errores): a msgid of mesa.i18n's
catalogues and its parameters, translated when answered, and an HTTP status.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from scoring.inputs import excerpt
from scoring.partida import Partida, PartidaError
from scoring.protocolo import ALFABETO_CODIGO, LARGO_CODIGO, TANTEO_SERVIDOR
from scoring.registro import verificar
from scoring.rules import PerfilError, perfil
from scoring.tanteo import CLAVES_REGISTRO, RegistroManoError, ResultadoTanteo
from server.errores import ServidorError
from server.modelos.torneo import (
    Base,
    Correccion,
    Cuenta,
    Enfrentamiento,
    Incidencia,
    Informe,
    Mano,
    Mesa,
    Miembro,
    Pareja,
    Ronda,
    TokenMesa,
    Torneo,
    clave_servidor,
)
from torneo import emparejar as em
from torneo import formato as fm


class ServicioError(ServidorError):
    """A refusal of the tournament's services (server.errores: a msgid, its status, its data)."""


R = TypeVar("R", bound=Base)


def fila(s: Session, modelo: type[R], ident: int | None) -> R:
    """The row ``ident`` of ``modelo``: one a foreign key guarantees, or the id a request named
    (a missing one is a 404, never a None passed on)."""
    row = s.get(modelo, ident) if ident is not None and id_valido(ident) else None
    if row is None:
        raise ServicioError("no existe ese dato", 404)
    return row


def huella(texto: str | bytes) -> str:
    return hashlib.sha256(texto.encode() if isinstance(texto, str) else texto).hexdigest()


def canonico(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def clave_de(s: Session) -> bytes:
    """The server key of the session's database (server.modelos.torneo.clave_servidor)."""
    return clave_servidor(s.get_bind().engine.url.render_as_string(hide_password=False))


def codigo_mesa(s: Session, mesa: Mesa) -> str | None:
    """A table's join code: an HMAC of the server key over the table and its code's version
    (None for a code made before codes were kept hashed: it cannot be shown again)."""
    if mesa.version == 0:
        return None
    mac = hmac.new(clave_de(s), f"mesa:{mesa.torneo_id}:{mesa.numero}:{mesa.version}".encode(), "sha256").digest()
    return "".join(ALFABETO_CODIGO[b % len(ALFABETO_CODIGO)] for b in mac[:LARGO_CODIGO])


def firma_publica(s: Session, torneo: Torneo) -> str:
    """What the public page's link carries besides the id: without the server key nobody can
    make it, so one tournament's page does not lead to another's."""
    return hmac.new(clave_de(s), f"publico:{torneo.id}".encode(), "sha256").hexdigest()[:20]


def torneo_publico(s: Session, torneo_id: int, firma: str) -> Torneo:
    torneo = s.get(Torneo, torneo_id) if id_valido(torneo_id) else None
    if torneo is None or not hmac.compare_digest(firma_publica(s, torneo), firma[:40]):
        raise ServicioError("no existe ese torneo", 404)
    return torneo


def _poner_codigo(s: Session, mesa: Mesa, version: int) -> None:
    mesa.version = version
    mesa.huella = huella(codigo_mesa(s, mesa) or "")


# -- tournaments ------------------------------------------------------------------------------
@dataclass(frozen=True)
class NuevaPareja:
    nombre: str
    jugadores: tuple[str, str]


# characters no name may hold: controls (NUL, newlines, tabs), format characters (bidirectional
# overrides and isolates that make a name display reversed, zero-width ones), surrogates, private use
_CATEGORIAS_PROHIBIDAS: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def limpiar_nombre(texto: str, donde: str) -> str:
    """A name as stored: trimmed, each run of spaces made one; refused when it is empty or holds
    a control or bidirectional character."""
    if any(unicodedata.category(c) in _CATEGORIAS_PROHIBIDAS for c in texto):
        raise ServicioError(
            "{donde}: el nombre tiene caracteres de control o de dirección del texto; escríbelo sin ellos", donde=donde
        )
    limpio = " ".join(texto.split())
    if not limpio:
        raise ServicioError("{donde}: falta el nombre", donde=donde)
    return limpio


def limpiar_parejas(parejas: Sequence[NuevaPareja]) -> list[NuevaPareja]:
    """Every name trimmed and checked; two parejas may not share a name (players may: a player
    is their seat, not their name)."""
    out = []
    for i, p in enumerate(parejas, start=1):
        jugadores = tuple(limpiar_nombre(j, f"pareja {i}, jugador {k}") for k, j in enumerate(p.jugadores, start=1))
        out.append(NuevaPareja(limpiar_nombre(p.nombre, f"pareja {i}"), (jugadores[0], jugadores[1])))
    return out


def crear_torneo(
    s: Session,
    organizador: Cuenta,
    nombre: str,
    reglas: Any,
    formato: fm.Formato,
    parejas: Sequence[NuevaPareja],
    mesas: int,
) -> Torneo:
    if not 2 <= len(parejas) <= fm.MAX_PAREJAS:
        raise ServicioError("un torneo necesita de 2 a {maximo} parejas", maximo=fm.MAX_PAREJAS)
    nombre = limpiar_nombre(nombre, "torneo")
    parejas = limpiar_parejas(parejas)
    if len({p.nombre.casefold() for p in parejas}) != len(parejas):
        raise ServicioError("dos parejas tienen el mismo nombre")
    if not 1 <= mesas <= fm.MAX_MESAS:
        raise ServicioError("el número de mesas debe ir de 1 a {maximo}", maximo=fm.MAX_MESAS)
    if formato.tipo == "grupos" and formato.grupos * 2 > len(parejas):
        raise ServicioError("hay más grupos que parejas para llenarlos (dos por grupo como poco)")
    torneo = Torneo(
        nombre=nombre,
        organizador_id=organizador.id,
        reglas=fm.reglas_de_partida(reglas, formato),
        formato=formato.to_dict(),
    )
    s.add(torneo)
    s.flush()
    s.add(Miembro(torneo_id=torneo.id, cuenta_id=organizador.id, rol="organizador"))
    ids = []
    for i, p in enumerate(parejas, start=1):
        row = Pareja(torneo_id=torneo.id, nombre=p.nombre, jugadores=list(p.jugadores), semilla=i)
        s.add(row)
        ids.append(row)
    for n in range(1, mesas + 1):
        mesa = Mesa(torneo_id=torneo.id, numero=n)
        _poner_codigo(s, mesa, 1)
        s.add(mesa)
    s.flush()
    if formato.tipo == "grupos":
        order = fm.orden([p.id for p in ids], formato)
        by_id = {p.id: p for p in ids}
        for g, members in enumerate(fm.repartir_grupos(order, formato.grupos), start=1):
            for pid in members:
                by_id[pid].grupo = g
    return torneo


ID_MAXIMO: Final = 2**31 - 1  # an INTEGER key; a larger number is no row (and overflows SQLite's bind)


def id_valido(n: int) -> bool:
    return 1 <= n <= ID_MAXIMO


def rol_en(s: Session, torneo_id: int, cuenta: Cuenta) -> str:
    """``cuenta``'s role in the tournament ("organizador" or "arbitro"); 404 when it has none,
    the same answer whether the tournament exists or not."""
    rol = (
        s.scalar(select(Miembro.rol).where(Miembro.torneo_id == torneo_id, Miembro.cuenta_id == cuenta.id))
        if id_valido(torneo_id)
        else None
    )
    if rol is None:
        raise ServicioError("no existe ese torneo", 404)
    return rol


def torneo_de(s: Session, torneo_id: int, cuenta: Cuenta) -> Torneo:
    """The tournament if ``cuenta`` may see it (one of its organisers or referees)."""
    rol_en(s, torneo_id, cuenta)
    torneo = s.get(Torneo, torneo_id)
    if torneo is None:  # a member row always has its tournament (foreign key); kept for the type
        raise ServicioError("no existe ese torneo", 404)
    return torneo


def parejas_de(s: Session, torneo: Torneo) -> list[Pareja]:
    return list(s.scalars(select(Pareja).where(Pareja.torneo_id == torneo.id).order_by(Pareja.semilla)))


def mesas_de(s: Session, torneo: Torneo) -> list[Mesa]:
    return list(s.scalars(select(Mesa).where(Mesa.torneo_id == torneo.id).order_by(Mesa.numero)))


def rondas_de(s: Session, torneo: Torneo) -> list[Ronda]:
    return list(s.scalars(select(Ronda).where(Ronda.torneo_id == torneo.id).order_by(Ronda.numero)))


def enfrentamientos_de(s: Session, torneo: Torneo, ronda: Ronda | None = None) -> list[Enfrentamiento]:
    q = select(Enfrentamiento).where(Enfrentamiento.torneo_id == torneo.id)
    if ronda is not None:
        q = q.where(Enfrentamiento.ronda_id == ronda.id)
    return list(s.scalars(q.order_by(Enfrentamiento.ronda_id, Enfrentamiento.id)))


# -- rounds -----------------------------------------------------------------------------------
def iniciar_ronda(s: Session, torneo: Torneo) -> Ronda:
    """Pair the next round and seat its matches at the tables; byes are won at once."""
    formato = fm.Formato.from_dict(torneo.formato)
    rondas = rondas_de(s, torneo)
    if rondas and any(e.ganador is None for e in enfrentamientos_de(s, torneo, rondas[-1])):
        raise ServicioError("la ronda en juego no ha terminado: faltan partidas", 409)
    fase, pares = _siguientes_pares(s, torneo, formato, rondas)
    if not pares:
        raise ServicioError("el torneo ha terminado: no quedan rondas", 409)
    jugables = [p for p in pares if p[0] is not None and p[1] is not None]
    mesas = mesas_de(s, torneo)
    if len(jugables) > len(mesas):
        raise ServicioError(
            "la ronda necesita {necesita} mesas y el torneo tiene {tiene}",
            409,
            necesita=len(jugables),
            tiene=len(mesas),
        )
    ronda = Ronda(torneo_id=torneo.id, numero=len(rondas) + 1, fase=fase, semilla=formato.semilla)
    s.add(ronda)
    s.flush()
    libres = iter(mesas)
    for a, b in pares:
        if a is None and b is None:
            continue
        if a is None or b is None:
            s.add(Enfrentamiento(torneo_id=torneo.id, ronda_id=ronda.id, pareja0_id=a or b, ganador=0))
        else:
            s.add(
                Enfrentamiento(
                    torneo_id=torneo.id, ronda_id=ronda.id, mesa_id=next(libres).id, pareja0_id=a, pareja1_id=b
                )
            )
    s.flush()
    return ronda


def estado_torneo(s: Session, torneo: Torneo) -> dict[str, Any]:
    """Whether the tournament is over (its last round finished and no round left) and its
    champion: the final's winner, or the league's first."""
    rondas = rondas_de(s, torneo)
    if not rondas or any(e.ganador is None for e in enfrentamientos_de(s, torneo, rondas[-1])):
        return {"terminado": False, "campeon": None}
    _fase, pares = _siguientes_pares(s, torneo, fm.Formato.from_dict(torneo.formato), rondas)
    if pares:
        return {"terminado": False, "campeon": None}
    if rondas[-1].fase == "eliminatoria":
        final = enfrentamientos_de(s, torneo, rondas[-1])[0]
        campeon = final.pareja1_id if final.ganador == 1 else final.pareja0_id
    elif rondas[-1].fase == "ceros":
        formato = fm.Formato.from_dict(torneo.formato)
        en_juego = [p.id for p in parejas_de(s, torneo) if not p.retirada]
        ultima = em.campeon_ceros(en_juego, _ceros(enfrentamientos_de(s, torneo)), formato.ceros)
        if ultima is None:
            return {"terminado": True, "campeon": None}  # every pareja left withdrew
        campeon = ultima
    else:
        campeon = clasificacion(s, torneo)["grupos"][0]["filas"][0]["pareja"]
    return {"terminado": True, "campeon": fila(s, Pareja, campeon).nombre}


def _siguientes_pares(s: Session, torneo: Torneo, formato: fm.Formato, rondas: list[Ronda]) -> tuple[str, list[fm.Par]]:
    """The next round's pairs; a withdrawn pareja's opponent gets a bye instead."""
    fase, pares = _pares_del_formato(s, torneo, formato, rondas)
    fuera = {p.id for p in parejas_de(s, torneo) if p.retirada}
    return fase, [(None if a in fuera else a, None if b in fuera else b) for a, b in pares]


def _pares_del_formato(
    s: Session, torneo: Torneo, formato: fm.Formato, rondas: list[Ronda]
) -> tuple[str, list[fm.Par]]:
    parejas = parejas_de(s, torneo)
    if formato.tipo in ("suizo", "ceros"):
        return _pares_por_resultados(s, torneo, formato, rondas, parejas)
    if formato.tipo == "liga" and any(p.entra_en for p in parejas):  # a pareja joined after round 1
        jugados = [(e.pareja0_id, e.pareja1_id) for e in enfrentamientos_de(s, torneo) if e.pareja1_id is not None]
        return "liga", fm.ronda_pendiente([p.id for p in parejas], jugados)
    if formato.tipo == "liga":
        rr = fm.round_robin(fm.orden([p.id for p in parejas], formato))
        return "liga", (rr[len(rondas)] if len(rondas) < len(rr) else [])
    grupos: dict[int, list[int]] = {}
    for p in sorted(parejas, key=lambda p: p.semilla):
        grupos.setdefault(p.grupo or 1, []).append(p.id)
    por_grupo = [fm.round_robin(g) for _, g in sorted(grupos.items())]
    n_grupo = max(len(r) for r in por_grupo)
    if len(rondas) < n_grupo:
        return "grupos", [par for r in por_grupo if len(rondas) < len(r) for par in r[len(rondas)]]
    ko = [r for r in rondas if r.fase == "eliminatoria"]
    if not ko:
        tablas = clasificacion(s, torneo)["grupos"]
        # a withdrawn pareja does not qualify: the next of its group does
        clasif = [[f["pareja"] for f in g["filas"] if not f["retirada"]] for g in tablas]
        return "eliminatoria", fm.cuadro_grupos(clasif, formato.clasifican)
    return _siguiente_eliminatoria(s, torneo, ko[-1])


def _siguiente_eliminatoria(s: Session, torneo: Torneo, ultima: Ronda) -> tuple[str, list[fm.Par]]:
    ganadores = [e.pareja0_id if e.ganador == 0 else e.pareja1_id for e in enfrentamientos_de(s, torneo, ultima)]
    if len(ganadores) < 2:
        return "eliminatoria", []
    return "eliminatoria", fm.siguiente_cuadro([g for g in ganadores if g is not None])


def _pares_por_resultados(
    s: Session, torneo: Torneo, formato: fm.Formato, rondas: list[Ronda], parejas: Sequence[Pareja]
) -> tuple[str, list[fm.Par]]:
    """The next round of an elimination by ceros or of a Swiss phase (then its knockout), paired
    from the results so far; a withdrawn pareja is paired no more."""
    partidos = enfrentamientos_de(s, torneo)
    en_juego = sorted((p for p in parejas if not p.retirada), key=lambda p: p.semilla)
    jugados = [(e.pareja0_id, e.pareja1_id) for e in partidos if e.pareja1_id is not None]
    descansaron = [e.pareja0_id for e in partidos if e.pareja1_id is None]
    # the draw among equals: reproducible from the format's seed (else the tournament's id)
    semilla = (torneo.id if formato.semilla is None else formato.semilla) * 1009 + len(rondas)
    if formato.tipo == "ceros":
        ceros = _ceros(partidos)
        ronda = em.ronda_ceros([p.id for p in en_juego], ceros, formato.ceros, jugados, descansaron, semilla)
        return "ceros", _pares_de(ronda)
    if sum(r.fase == "suizo" for r in rondas) < (formato.rondas or 0):
        filas = fm.clasificacion(
            {p.id: p.semilla for p in en_juego}, resultados(s, torneo, "suizo"), formato.desempates
        )
        victorias = {f.pareja: f.ganadas for f in filas}
        ronda = em.ronda_suiza([f.pareja for f in filas], victorias, jugados, descansaron, semilla)
        return "suizo", _pares_de(ronda)
    ko = [r for r in rondas if r.fase == "eliminatoria"]
    if ko:
        return _siguiente_eliminatoria(s, torneo, ko[-1])
    if formato.clasifican < 2:
        return "suizo", []
    tabla = clasificacion(s, torneo)["grupos"][0]["filas"]
    return "eliminatoria", fm.cuadro([f["pareja"] for f in tabla if not f["retirada"]][: formato.clasifican])


def _ceros(partidos: Sequence[Enfrentamiento]) -> dict[int, int]:
    """Each pareja's ceros: its matches lost (a rest is neither a win nor a cero)."""
    ceros: dict[int, int] = {}
    for e in partidos:
        if e.pareja1_id is not None and e.ganador is not None:
            perdedor = e.pareja1_id if e.ganador == 0 else e.pareja0_id
            ceros[perdedor] = ceros.get(perdedor, 0) + 1
    return ceros


def _pares_de(ronda: em.Emparejamiento) -> list[fm.Par]:
    pares: list[fm.Par] = list(ronda.pares)
    return [*pares, (ronda.descansa, None)] if ronda.descansa is not None else pares


# -- the match of a table ---------------------------------------------------------------------
# (database, match id) -> ((hands, last hand's row id), Partida): a hand is not a replay of the
# whole match. Keyed by the database too: one process may serve (or test) several.
_PARTIDAS: dict[tuple[str, int], tuple[tuple[int, int], Partida]] = {}


def _clave_cache(s: Session, e: Enfrentamiento) -> tuple[str, int]:
    return str(s.get_bind().engine.url), e.id


_CERROJOS: dict[int, threading.Lock] = {}
_CERROJO_GLOBAL = threading.Lock()


def cerrojo(enfrentamiento_id: int) -> threading.Lock:
    """One writer per match in this process (the database's row lock covers other processes)."""
    with _CERROJO_GLOBAL:
        return _CERROJOS.setdefault(enfrentamiento_id, threading.Lock())


def jugadores_de(p0: Pareja, p1: Pareja) -> list[str]:
    """Seats 0 and 2 for pareja 0, 1 and 3 for pareja 1; names made distinct if two players share
    one: with their pareja's name, and with their seat when they are in the same pareja (a father
    and son both called Juan)."""
    names = [p0.jugadores[0], p1.jugadores[0], p0.jugadores[1], p1.jugadores[1]]
    if len({n.strip() for n in names}) < 4:
        names = [f"{n} ({p.nombre})" for n, p in zip(names, (p0, p1, p0, p1), strict=True)]
    if len({n.strip() for n in names}) < 4:
        names = [f"{n} {asiento + 1}" for asiento, n in enumerate(names)]
    return names


def _vigentes(e: Enfrentamiento) -> Any:
    return select(Mano).where(Mano.enfrentamiento_id == e.id, Mano.anulada.is_(False))


def partida_de(s: Session, torneo: Torneo, e: Enfrentamiento) -> tuple[Partida, int]:
    """The match replayed from its stored hands (voided ones left out), and how many there are.
    Only a count and an id are read when the cached replay is still the database's."""
    n, last = s.execute(
        select(func.count(Mano.id), func.max(Mano.id)).where(Mano.enfrentamiento_id == e.id, Mano.anulada.is_(False))
    ).one()
    clave = (n, last or 0)
    cached = _PARTIDAS.get(_clave_cache(s, e))
    if cached and cached[0] == clave:
        return cached[1], n
    p0, p1 = fila(s, Pareja, e.pareja0_id), fila(s, Pareja, e.pareja1_id)
    partida = Partida(torneo.reglas, jugadores_de(p0, p1))
    for m in s.scalars(_vigentes(e).order_by(Mano.numero)):
        r = m.registro
        partida.registrar(r["manos"], r.get("lances"), r.get("mano"), r.get("declaraciones"))
    _PARTIDAS[_clave_cache(s, e)] = (clave, partida)
    return partida, n


def estado_partida(s: Session, torneo: Torneo, e: Enfrentamiento) -> dict[str, Any]:
    p0 = fila(s, Pareja, e.pareja0_id)
    p1 = fila(s, Pareja, e.pareja1_id) if e.pareja1_id else None
    mesa = s.get(Mesa, e.mesa_id) if e.mesa_id else None
    out: dict[str, Any] = {
        "id": e.id,
        "mesa": mesa.numero if mesa else None,
        "parejas": [p0.nombre, p1.nombre if p1 else None],
        "ganador": e.ganador,
    }
    if p1 is None:
        return out | {"descansa": True}
    partida, n = partida_de(s, torneo, e)
    ultimo = s.scalar(select(func.max(Mano.numero)).where(Mano.enfrentamiento_id == e.id)) or 0
    out |= {
        "jugadores": list(partida.jugadores),
        "reglas": torneo.reglas,
        "tantos": list(partida.tantos),
        "juegos": list(partida.juegos),
        "vacas": list(partida.vacas),
        "mano": partida.mano,
        "manos": n,
        "siguiente": ultimo + 1,
        "terminada": partida.terminada or e.ganador is not None,
    }
    if out["terminada"]:
        # a finished Partida has started its next juego at 0-0: show what the match ended with
        r = resultado(s, torneo, e)
        out |= {"juegos": r["juegos"], "tantos": r["marcador"], "resultado": r}
    return out


def unirse(s: Session, codigo: str) -> tuple[str, Torneo, Enfrentamiento]:
    """A table's code -> a new token bound to the match now played at that table."""
    mesa = s.scalar(select(Mesa).where(Mesa.huella == huella("".join(codigo.split()).upper())))
    if mesa is None:
        raise ServicioError("código de mesa desconocido", 404)
    torneo = fila(s, Torneo, mesa.torneo_id)
    e = s.scalar(select(Enfrentamiento).where(Enfrentamiento.mesa_id == mesa.id).order_by(Enfrentamiento.id.desc()))
    if e is None:
        raise ServicioError("esta mesa aún no tiene partida: espera a que empiece la ronda", 409)
    token = secrets.token_urlsafe(32)
    s.add(TokenMesa(huella=huella(token), torneo_id=torneo.id, enfrentamiento_id=e.id))
    return token, torneo, e


def nuevo_codigo(s: Session, torneo: Torneo, numero: int) -> Mesa:
    """A new join code for table ``numero`` (a lost or leaked one): the old code stops joining
    and every token joined with it stops writing."""
    mesa = (
        s.scalar(select(Mesa).where(Mesa.torneo_id == torneo.id, Mesa.numero == numero)) if id_valido(numero) else None
    )
    if mesa is None:
        raise ServicioError("el torneo no tiene mesa {mesa}", 404, mesa=numero)
    _poner_codigo(s, mesa, mesa.version + 1)
    partidas = select(Enfrentamiento.id).where(Enfrentamiento.mesa_id == mesa.id)
    s.execute(delete(TokenMesa).where(TokenMesa.enfrentamiento_id.in_(partidas)))
    s.flush()
    return mesa


def mesa_del_token(s: Session, token: str) -> tuple[Torneo, Enfrentamiento]:
    row = s.scalar(select(TokenMesa).where(TokenMesa.huella == huella(token)))
    if row is None:
        raise ServicioError("token de mesa no válido", 401)
    return fila(s, Torneo, row.torneo_id), fila(s, Enfrentamiento, row.enfrentamiento_id)


@dataclass(frozen=True)
class ManoEnviada:
    id: str
    numero: int
    registro: Mapping[str, Any]
    tanteo: tuple[int, int]
    foto: str | None = None
    anula: str | None = None
    discrepancia: tuple[int, int] | None = None  # the table's own tanteo, when it took the server's
    # the hand as this process already scored it (a phone's hand of this server's own tournament,
    # scored by its partida at the same point of the match): stored as it is, not scored again
    puntuada: ResultadoTanteo | None = field(default=None, compare=False)

    def huella(self) -> str:
        """SHA-256 of the canonical body (``discrepancia`` only when sent, so hands stored
        before it existed answer their resends alike)."""
        body: dict[str, Any] = {
            "id": self.id,
            "numero": self.numero,
            "registro": self.registro,
            "tanteo": list(self.tanteo),
            "foto": self.foto,
            "anula": self.anula,
        }
        if self.discrepancia is not None:
            body["discrepancia"] = list(self.discrepancia)
        return huella(canonico(body))


def registrar_mano(
    s: Session, torneo: Torneo, e: Enfrentamiento, mano: ManoEnviada
) -> tuple[int, dict[str, Any] | ServicioError]:
    """Store one hand of the table's match once; (HTTP status, answer). A resend of the same
    body gets the first answer; another body under the same id is refused. A hand sent with
    ``discrepancia`` (the table's count, its ``tanteo`` being the server's) is stored with the
    server's tanteo and recorded as an incident of its table and parejas. A hand sent
    ``puntuada`` (scored in this process by a partida at the same point of the match: a phone's
    hand of this server's own tournament) is stored as it was scored, not scored again.

    A match with a winner, or of a round that is over, is closed to its table: the post is
    refused, and one that voids a hand (``anula``) is recorded as an incident. That refusal is
    returned, not raised, so the incident is committed with the transaction."""
    cuerpo = mano.huella()
    previa = s.scalar(select(Mano).where(Mano.enfrentamiento_id == e.id, Mano.cliente_id == mano.id))
    if previa is not None:
        if previa.huella_cuerpo != cuerpo:
            raise ServicioError("la mano {id} ya se recibió con otro contenido", 409, id=excerpt(mano.id))
        return 200, previa.respuesta
    cerrada = partida_cerrada(s, e)
    if cerrada is not None:
        if mano.anula is not None:
            _anotar_intento(s, e, mano)
        return cerrada.estado, cerrada
    if e.pareja1_id is None:
        raise ServicioError("esta pareja descansa en la ronda: no hay manos que enviar", 409)
    ultimo = s.scalar(select(func.max(Mano.numero)).where(Mano.enfrentamiento_id == e.id)) or 0
    if mano.numero != ultimo + 1:
        raise ServicioError(
            "se esperaba la mano {esperada}, no la {numero}", 409, esperada=ultimo + 1, numero=mano.numero
        )
    partida, n = partida_de(s, torneo, e)
    if mano.anula is not None:
        partida, n = _anular(s, torneo, e, mano.anula)
    _PARTIDAS.pop(_clave_cache(s, e), None)  # registrar changes the Partida: it is cached again only once stored
    result = _tantear(partida, mano.registro, mano.tanteo) if mano.puntuada is None else _anotar(partida, mano.puntuada)
    antes = result.registro.marcador
    ganados = [result.marcador[0] - antes[0], result.marcador[1] - antes[1]]
    respuesta = {
        "id": mano.id,
        "numero": mano.numero,
        "marcador": list(result.marcador),
        "tantos": list(partida.tantos),
        "juegos": list(partida.juegos),
        "vacas": list(partida.vacas),
        "terminada": partida.terminada,
        "ganador": partida.ganador,
    }
    row = Mano(
        torneo_id=torneo.id,
        enfrentamiento_id=e.id,
        cliente_id=mano.id,
        numero=mano.numero,
        huella_cuerpo=cuerpo,
        registro=result.registro.to_dict(),
        marcador=list(result.marcador),
        ganados=ganados,
        juego=result.fin.ganador if result.fin else None,
        foto=mano.foto,
        respuesta=respuesta,
        discrepancia=list(mano.discrepancia) if mano.discrepancia else None,
    )
    s.add(row)
    if partida.terminada:
        e.ganador = partida.ganador
    try:
        s.flush()
    except IntegrityError:
        raise ServicioError("otra copia de esta mano llegó a la vez: reenvíala", 409) from None
    if mano.discrepancia is not None:
        _anotar_discrepancia(s, e, row, mano.discrepancia)
    _PARTIDAS[_clave_cache(s, e)] = ((n + 1, row.id), partida)
    return 201, respuesta


def por_que_no(
    s: Session, torneo: Torneo, e: Enfrentamiento, numero: int, registro: Mapping[str, Any]
) -> ServicioError | None:
    """Why the table's hand ``numero`` (its record ``registro``) cannot be stored now, as
    :func:`registrar_mano` would refuse it before scoring it (a closed match, a hand out of
    order, a marcador before it that is not the match's), or None: what a table's page says of
    a hand waiting, read when it is shown."""
    cerrada = partida_cerrada(s, e)
    if cerrada is not None:
        return cerrada
    ultimo = s.scalar(select(func.max(Mano.numero)).where(Mano.enfrentamiento_id == e.id)) or 0
    if numero != ultimo + 1:
        return ServicioError("se esperaba la mano {esperada}, no la {numero}", 409, esperada=ultimo + 1, numero=numero)
    tantos = list(partida_de(s, torneo, e)[0].tantos)
    if "marcador" in registro and list(registro["marcador"]) != tantos:
        return ServicioError(
            "el marcador antes de la mano no coincide: el servidor lleva {marcador}", 409, marcador=tantos
        )
    return None


def partida_cerrada(s: Session, e: Enfrentamiento) -> ServicioError | None:
    """Why the table may no longer write this match (its result is in, or its round is over), or None."""
    if e.ganador is not None:
        return ServicioError(
            "la partida ya tiene ganador: la mesa no puede cambiarla; el organizador corrige los resultados", 409
        )
    ultima = s.scalar(select(func.max(Ronda.numero)).where(Ronda.torneo_id == e.torneo_id))
    if fila(s, Ronda, e.ronda_id).numero != ultima:
        return ServicioError("la ronda de esta partida ya terminó: la mesa no puede escribir en ella", 409)
    return None


def _anotar_intento(s: Session, e: Enfrentamiento, mano: ManoEnviada) -> None:
    """A table tried to void a hand of a closed match: an incident for the organiser."""
    s.add(
        Incidencia(
            torneo_id=e.torneo_id,
            origen="mesa",
            mesa_id=e.mesa_id,
            pareja_id=None,
            asiento=None,
            tipo="cambio_partida_cerrada",
            gravedad="",
            articulo="",
            razon=f"la mesa intentó anular la mano {excerpt(mano.anula or '', 64)} con la mano "
            f"{mano.numero} en una partida cerrada",
        )
    )


def _anotar_discrepancia(s: Session, e: Enfrentamiento, row: Mano, mesa: tuple[int, int]) -> None:
    """One incident for each pareja whose tantos the table counted otherwise than the rules."""
    reglas = row.marcador
    for lado, pareja in ((0, e.pareja0_id), (1, e.pareja1_id)):
        if mesa[lado] != reglas[lado]:
            s.add(
                Incidencia(
                    torneo_id=e.torneo_id,
                    origen="tanteo",
                    mano_id=row.id,
                    mesa_id=e.mesa_id,
                    pareja_id=pareja,
                    asiento=None,
                    tipo="discrepancia_tanteo",
                    gravedad="",
                    articulo="",
                    razon=f"mano {row.numero}: la mesa contó {list(mesa)}, las reglas dan {list(reglas)}",
                )
            )


def _anular(s: Session, torneo: Torneo, e: Enfrentamiento, cliente_id: str) -> tuple[Partida, int]:
    """Void the match's last hand (a correction); the new hand replaces it."""
    ultima = s.scalar(_vigentes(e).order_by(Mano.numero.desc()).limit(1))
    if ultima is None or ultima.cliente_id != cliente_id:
        raise ServicioError("solo se puede corregir la última mano de la partida", 409)
    ultima.anulada = True
    e.ganador = None
    s.flush()
    _PARTIDAS.pop(_clave_cache(s, e), None)
    return partida_de(s, torneo, e)


def _sin_fuente(reglas: Any) -> dict[str, Any]:
    """The rules as they score: the profile's title (fuente) is not a rule."""
    return {k: v for k, v in reglas.to_dict().items() if k not in ("fuente", "nombre")}


def _anotar(partida: Partida, result: ResultadoTanteo) -> ResultadoTanteo:
    """A hand scored in this process for the match's point (ManoEnviada.puntuada) added as
    it is: its rules must be the tournament's and its marcador before it the match's."""
    if _sin_fuente(result.registro.reglas) != _sin_fuente(partida.reglas):
        raise ServicioError("el registro trae otras reglas que las del torneo")
    if tuple(result.registro.marcador) != tuple(partida.tantos):
        raise ServicioError(
            "el marcador antes de la mano no coincide: el servidor lleva {marcador}", 409, marcador=list(partida.tantos)
        )
    try:
        partida.anotar(result)
    except PartidaError as exc:
        raise ServicioError(str(exc)) from None
    return result


def _tantear(partida: Partida, registro: Mapping[str, Any], tanteo: tuple[int, int]) -> Any:
    """Score the table's record as the next hand of the match; refuse a claimed tanteo that differs."""
    unknown = sorted(map(str, set(registro) - CLAVES_REGISTRO))
    if unknown:
        raise ServicioError("campo desconocido en el registro: {campos}", campos=excerpt(", ".join(unknown)))
    if "reglas" in registro:
        try:
            if _sin_fuente(perfil(registro["reglas"])) != _sin_fuente(partida.reglas):
                raise ServicioError("el registro trae otras reglas que las del torneo")
        except PerfilError as exc:
            raise ServicioError.de(exc) from None
    if "marcador" in registro and list(registro["marcador"]) != list(partida.tantos):
        raise ServicioError(
            "el marcador antes de la mano no coincide: el servidor lleva {marcador}", 409, marcador=list(partida.tantos)
        )
    if "jugadores" in registro and list(registro["jugadores"]) != list(partida.jugadores):
        raise ServicioError("los jugadores del registro no son los de esta partida")
    try:
        manos: Any = registro.get("manos")  # the table's JSON: registrar checks its shape
        result = partida.registrar(manos, registro.get("lances"), registro.get("mano"), registro.get("declaraciones"))
    except (RegistroManoError, PartidaError, TypeError) as exc:
        raise ServicioError.de(exc) from None
    if tuple(result.marcador) != tuple(tanteo):
        partida.deshacer()
        # the rules' tanteo goes with the refusal: the table may resend the hand with it (discrepancia)
        raise ServicioError(
            "el tanteo no coincide: la mesa dice {mesa}, las reglas dan {reglas}",
            datos={TANTEO_SERVIDOR: list(result.marcador)},
            mesa=list(tanteo),
            reglas=list(result.marcador),
        )
    return result


# -- standings --------------------------------------------------------------------------------
def resultados(s: Session, torneo: Torneo, fase: str | None = None) -> list[fm.Resultado]:
    """Each match added up from its stored hands (not from any running total), or its newest
    correction where the organiser corrected it."""
    q = select(Enfrentamiento).where(Enfrentamiento.torneo_id == torneo.id)
    if fase:
        q = q.join(Ronda, Ronda.id == Enfrentamiento.ronda_id).where(Ronda.fase == fase)
    partidos = list(s.scalars(q))
    suma = _sumas(s, torneo)
    corregidos = correcciones_vigentes(s, torneo)
    out = []
    for e in partidos:
        juegos, tantos = suma.get(e.id, ((0, 0), (0, 0)))
        if e.id in corregidos:
            juegos, tantos = _corregido(corregidos[e.id].despues, juegos, tantos)
        out.append(fm.Resultado(e.pareja0_id, e.pareja1_id, juegos, tantos, e.ganador))
    return out


Dos = tuple[int, int]  # one value per pareja


def _sumas(s: Session, torneo: Torneo, e: Enfrentamiento | None = None) -> dict[int, tuple[Dos, Dos]]:
    """match id -> (juegos won, tantos scored) by each pareja, from the hands not voided."""
    q = select(Mano).where(Mano.torneo_id == torneo.id, Mano.anulada.is_(False))
    if e is not None:
        q = q.where(Mano.enfrentamiento_id == e.id)
    acc: dict[int, list[int]] = {}
    for m in s.scalars(q):
        a = acc.setdefault(m.enfrentamiento_id, [0, 0, 0, 0])
        a[0] += m.ganados[0]
        a[1] += m.ganados[1]
        if m.juego is not None:
            a[2 + m.juego] += 1
    return {k: ((a[2], a[3]), (a[0], a[1])) for k, a in acc.items()}


def _corregido(despues: Mapping[str, Any], juegos: Dos, tantos: Dos) -> tuple[Dos, Dos]:
    j, t = despues.get("juegos") or juegos, despues.get("tantos") or tantos
    return (j[0], j[1]), (t[0], t[1])


def correcciones_vigentes(s: Session, torneo: Torneo) -> dict[int, Correccion]:
    """match id -> its newest correction."""
    rows = s.scalars(select(Correccion).where(Correccion.torneo_id == torneo.id).order_by(Correccion.id))
    return {c.enfrentamiento_id: c for c in rows}


def resultado(s: Session, torneo: Torneo, e: Enfrentamiento) -> dict[str, Any]:
    """A match's result as the standings count it: winner, juegos won, tantos scored, and the
    marcador of its last hand."""
    juegos, tantos = _sumas(s, torneo, e).get(e.id, ((0, 0), (0, 0)))
    correccion = s.scalar(
        select(Correccion).where(Correccion.enfrentamiento_id == e.id).order_by(Correccion.id.desc()).limit(1)
    )
    if correccion is not None:
        juegos, tantos = _corregido(correccion.despues, juegos, tantos)
    ultima = s.scalar(_vigentes(e).order_by(Mano.numero.desc()).limit(1))
    return {
        "ganador": e.ganador,
        "juegos": list(juegos),
        "tantos": list(tantos),
        "marcador": list(ultima.marcador) if ultima else [0, 0],
        "corregida": correccion is not None,
    } | ({"por_tiempo": True} if correccion is not None and correccion.despues.get("por_tiempo") else {})


def clasificacion(s: Session, torneo: Torneo) -> dict[str, Any]:
    formato = fm.Formato.from_dict(torneo.formato)
    parejas = parejas_de(s, torneo)
    nombres = {p.id: p.nombre for p in parejas}
    retiradas = {p.id for p in parejas if p.retirada}
    fase = {"grupos": "grupos", "suizo": "suizo"}.get(formato.tipo)
    res = resultados(s, torneo, fase)
    grupos: dict[int, dict[int, int]] = {}
    for p in parejas:
        grupos.setdefault(p.grupo or 1, {})[p.id] = p.semilla
    out = []
    for g, miembros in sorted(grupos.items()):
        filas = fm.clasificacion(miembros, res, formato.desempates, por_ceros=formato.tipo == "ceros")
        out.append(
            {
                "grupo": g,
                "filas": [
                    f.to_json() | {"nombre": nombres[f.pareja], "retirada": f.pareja in retiradas} for f in filas
                ],
            }
        )
    return {"torneo": torneo.id, "nombre": torneo.nombre, "grupos": out}


# -- referee reports --------------------------------------------------------------------------
def subir_informe(
    s: Session, torneo: Torneo, arbitro: Cuenta, numero_mesa: int, registro: Any, clave: str | None, sello: str | None
) -> Informe:
    """Verify a referee's chained log with scoring.registro and store it with its findings."""
    mesa = s.scalar(select(Mesa).where(Mesa.torneo_id == torneo.id, Mesa.numero == numero_mesa))
    if mesa is None:
        raise ServicioError("el torneo no tiene mesa {mesa}", 404, mesa=numero_mesa)
    check = verificar(registro, clave.encode() if clave else None, sello)
    if not check:
        if check.entrada is None:
            raise ServicioError("registro del árbitro ALTERADO: {motivo}", motivo=check.motivo)
        raise ServicioError(
            "registro del árbitro ALTERADO en la entrada {entrada}: {motivo}",
            entrada=check.entrada,
            motivo=check.motivo,
        )
    e = s.scalar(select(Enfrentamiento).where(Enfrentamiento.mesa_id == mesa.id).order_by(Enfrentamiento.id.desc()))
    informe = Informe(
        torneo_id=torneo.id,
        mesa_id=mesa.id,
        enfrentamiento_id=e.id if e else None,
        arbitro_id=arbitro.id,
        sello=check.sello,
        registro=registro,
    )
    s.add(informe)
    s.flush()
    for entrada in registro["entradas"]:
        for asiento, h in _hallazgos(entrada):
            pareja = None
            if e is not None and asiento is not None:
                pareja = e.pareja0_id if asiento % 2 == 0 else e.pareja1_id
            s.add(
                Incidencia(
                    torneo_id=torneo.id,
                    informe_id=informe.id,
                    mesa_id=mesa.id,
                    pareja_id=pareja,
                    asiento=asiento,
                    tipo=str(h.get("tipo", ""))[:32],
                    gravedad=str(h.get("gravedad", ""))[:32],
                    articulo=str(h.get("articulo", "")),
                    razon=str(h.get("razon", "")),
                )
            )
    return informe


def _hallazgos(entrada: Mapping[str, Any]) -> list[tuple[int | None, Mapping[str, Any]]]:
    """The findings of an ``informe`` entry (what app.logic.arbitro writes), with the seat."""
    datos = entrada.get("datos")
    if entrada.get("tipo") != "informe" or not isinstance(datos, Mapping):
        return []
    asiento = datos.get("jugador")
    asiento = asiento if type(asiento) is int and 0 <= asiento <= 3 else None
    inf = datos.get("informe")
    hs = inf.get("hallazgos") if isinstance(inf, Mapping) else None
    return [(asiento, h) for h in hs if isinstance(h, Mapping)] if isinstance(hs, list) else []


def incidencias(s: Session, torneo: Torneo) -> list[dict[str, Any]]:
    mesas = {m.id: m.numero for m in mesas_de(s, torneo)}
    nombres = {p.id: p.nombre for p in parejas_de(s, torneo)}
    rows = s.scalars(select(Incidencia).where(Incidencia.torneo_id == torneo.id).order_by(Incidencia.id))
    return [_incidencia(s, i, mesas, nombres) for i in rows]


def _incidencia(s: Session, i: Incidencia, mesas: Mapping[int, int], nombres: Mapping[int, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "origen": i.origen,
        "mesa": mesas.get(i.mesa_id),
        "pareja": nombres.get(i.pareja_id) if i.pareja_id else None,
        "asiento": i.asiento,
        "tipo": i.tipo,
        "gravedad": i.gravedad,
        "articulo": i.articulo,
        "razon": i.razon,
    }
    mano = s.get(Mano, i.mano_id) if i.mano_id else None
    if mano is not None:  # a tanteo discrepancy: both counts, for the referee to settle
        out |= {"mano": mano.numero, "tanteo_mesa": mano.discrepancia, "tanteo_servidor": mano.marcador}
    return out
