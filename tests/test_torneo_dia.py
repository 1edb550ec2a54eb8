"""The day's running through the API: a table calls the referee and the members
attend it; the round clock is started, paused, extended and resumed with its log, and the round
closed on time goes to the pareja ahead, recorded as won on time."""

from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from server.modelos.torneo import Incidencia, Llamada, RelojRonda, Torneo
from server.servicios import reloj
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests.servidor_torneo import postgres  # noqa: F401 (a fixture)
from tests.test_torneo_api import client, client1, codigos, organizador, srv, srv1, torneo  # noqa: F401 (fixtures)
from tests.test_web_mesa_torneo import en_la_base, jugar, servidor_unico, telefono, unirse  # noqa: F401 (fixtures)
from tests.test_web_mesa_torneo import torneo as torneo_remoto  # noqa: F401 (a fixture)


def _mesas(api: TestClient, h: dict[str, str], tid: int) -> list[MesaSimulada]:
    r = api.post(f"/api/torneos/{tid}/rondas", headers=h)
    assert r.status_code == 201, r.text
    return [MesaSimulada.unirse(api, c, semilla=i) for i, c in enumerate(codigos(api, h, tid))]


def _bearer(mesa: MesaSimulada) -> dict[str, str]:
    return {"Authorization": f"Bearer {mesa.token}"}


def test_llamar_al_arbitro(srv: Servidor, client: TestClient) -> None:  # noqa: F811
    h = organizador(srv, client)
    tid = torneo(client, h)
    m1, m2 = _mesas(client, h, tid)
    assert client.post("/api/mesa/llamar", json={}).status_code == 401
    r = client.post("/api/mesa/llamar", json={"motivo": "renuncio dudoso"}, headers=_bearer(m1))
    assert r.status_code == 201, r.text
    llamada = r.json()
    assert llamada["mesa"] == 1 and llamada["motivo"] == "renuncio dudoso" and llamada["atendida"] is None
    assert llamada["cuando"].endswith("Z")
    # one open call per table: the second is refused while the first waits
    r = client.post("/api/mesa/llamar", json={}, headers=_bearer(m1))
    assert r.status_code == 409 and r.json()["id"] == llamada["id"]
    r = client.post("/api/mesa/llamar", json={}, headers=_bearer(m1) | {"Accept-Language": "en"})
    assert r.json()["error"] == "this table has already called the referee: wait until they come"
    assert client.post("/api/mesa/llamar", json={}, headers=_bearer(m2)).status_code == 201
    abiertas = client.get(f"/api/torneos/{tid}/llamadas?abiertas=true", headers=h).json()
    assert [a["mesa"] for a in abiertas] == [1, 2]
    # the organiser's page shows them, with the poll that rings
    pagina = client.get(f"/torneos/{tid}", headers=h).text
    assert 'id="llamadas"' in pagina and "renuncio dudoso" in pagina and "AudioContext" in pagina
    r = client.post(f"/api/torneos/{tid}/llamadas/{llamada['id']}/atendida", headers=h)
    assert r.status_code == 200 and r.json()["atendida_por"] == "org" and r.json()["atendida"]
    assert [a["mesa"] for a in client.get(f"/api/torneos/{tid}/llamadas?abiertas=true", headers=h).json()] == [2]
    assert client.post("/api/mesa/llamar", json={}, headers=_bearer(m1)).status_code == 201
    assert client.post(f"/api/torneos/{tid}/llamadas/999/atendida", headers=h).status_code == 404
    export = client.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()
    assert [(x["mesa"], x["atendida_por"]) for x in export["llamadas"]] == [(1, "org"), (2, None), (1, None)]
    # another organiser's account sees none of them
    otro = organizador(srv, client, "otro")
    assert client.get(f"/api/torneos/{tid}/llamadas", headers=otro).status_code == 404


def _reloj(api: TestClient, h: dict[str, str], tid: int, **body: Any) -> Any:
    return api.post(f"/api/torneos/{tid}/reloj", headers=h, json=body)


def test_reloj_de_ronda_y_cierre_por_tiempo(srv: Servidor, client: TestClient) -> None:  # noqa: F811
    h = organizador(srv, client)
    tid = torneo(client, h, juegos=3)
    assert _reloj(client, h, tid, accion="inicio", minutos=50).status_code == 409  # no round yet
    mesas = _mesas(client, h, tid)
    assert client.get(f"/api/torneos/{tid}/reloj", headers=h).json() == {}
    assert _reloj(client, h, tid, accion="inicio").status_code == 422  # no minutes, no option
    r = _reloj(client, h, tid, accion="inicio", minutos=50)
    assert r.status_code == 200, r.text
    assert r.json()["fin"].endswith("Z") and not r.json()["pausado"] and r.json()["minutos"] == 50
    assert _reloj(client, h, tid, accion="inicio", minutos=50).status_code == 409
    # the table reads the same end instant
    assert client.get("/api/mesa/reloj", headers=_bearer(mesas[0])).json()["fin"] == r.json()["fin"]
    firma = client.get(f"/api/torneos/{tid}", headers=h).json()["firma"]
    assert client.get(f"/publico/{tid}/{firma}/reloj.json").json()["fin"] == r.json()["fin"]
    assert 'id="reloj"' in client.get(f"/torneos/{tid}", headers=h).text
    assert _reloj(client, h, tid, accion="pausa").status_code == 422  # a pause says why
    pausa = _reloj(client, h, tid, accion="pausa", motivo="discusión en la mesa 2").json()
    assert pausa["pausado"] and pausa["fin"] is None
    prorroga = _reloj(client, h, tid, accion="prorroga", minutos=5, motivo="la pausa").json()
    assert prorroga["restante"] == pausa["restante"] + 300
    assert _reloj(client, h, tid, accion="reanuda", motivo="sigue el juego").json()["fin"] is not None
    # before time is up the round is closed only when forced
    r = client.post(f"/api/torneos/{tid}/reloj/cierre", headers=h, json={})
    assert r.status_code == 409 and "queda tiempo" in r.json()["error"]
    # table 1 plays a few hands (its match unfinished), table 2 none
    for _ in range(6):
        mesas[0].jugar()
    mesas[0].enviar(client)
    antes = client.get("/api/mesa/partida", headers=_bearer(mesas[0])).json()
    assert not antes["terminada"]
    r = client.post(f"/api/torneos/{tid}/reloj/cierre", headers=h, json={"forzar": True})
    assert r.status_code == 200, r.text
    cerradas = {c["partida"]: c for c in r.json()}
    assert len(cerradas) == 2
    total = tuple(cerradas[antes["id"]]["tantos"])
    assert cerradas[antes["id"]]["ganador"] == reloj.decidir("juegos_tantos", antes, total)
    partidas = client.get(f"/api/torneos/{tid}", headers=h).json()["partidas"]
    assert all(p["terminada"] and p["resultado"]["por_tiempo"] for p in partidas)
    # a hand sent after the close does not count
    mesas[0].jugar()
    late = client.post("/api/mesa/manos", json=mesas[0].cola[0], headers=_bearer(mesas[0]))
    assert late.status_code == 409
    assert client.post(f"/api/torneos/{tid}/reloj/cierre", headers=h, json={"forzar": True}).status_code == 409
    export = client.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()
    assert [(c["accion"], c["usuario"]) for c in export["reloj"]] == [
        ("inicio", "org"),
        ("pausa", "org"),
        ("prorroga", "org"),
        ("reanuda", "org"),
        ("cierre", "org"),
    ]
    assert export["reloj"][1]["motivo"] == "discusión en la mesa 2"
    # the public and projector pages: the clock from reloj.json, the matches won on time
    firma = client.get(f"/api/torneos/{tid}", headers=h).json()["firma"]
    assert client.get(f"/publico/{tid}/{firma}/reloj.json").json()["cerrada"] is True
    assert client.get(f"/publico/{tid}/x{firma[1:]}/reloj.json").status_code == 404
    proyector = client.get(f"/publico/{tid}/{firma}?vista=proyector&lang=en").text
    assert 'id="reloj_publico"' in proyector and "On time" in proyector
    assert "(Por tiempo)" in client.get(f"/torneos/{tid}", headers=h).text
    # the next round is paired from the results on time
    assert client.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201


def test_minutos_del_torneo(srv1: Servidor, client1: TestClient) -> None:  # noqa: F811
    """``formato.tiempo.minutos`` starts a round's clock without minutes in the request."""
    h = organizador(srv1, client1)
    tid = torneo(client1, h, tiempo={"minutos": 40, "al_acabar": "juegos_tantos"})
    _mesas(client1, h, tid)
    r = _reloj(client1, h, tid, accion="inicio")
    assert r.status_code == 200 and r.json()["minutos"] == 40


def test_decidir_sin_ventaja() -> None:
    assert reloj.decidir("juegos_tantos", {"juegos": [0, 0], "tantos": [0, 0]}, (0, 0)) == 0
    rng = random.Random(5)
    for _ in range(200):
        j, t, tot = ([rng.randrange(3) for _ in range(2)] for _ in range(3))
        g = reloj.decidir("juegos_tantos", {"juegos": j, "tantos": t}, (tot[0], tot[1]))
        assert (j[g], t[g], tot[g]) >= (j[1 - g], t[1 - g], tot[1 - g])


def test_telefono_de_la_mesa_llama_y_ve_el_reloj(servidor_unico: tuple[TestClient, list[str]]) -> None:  # noqa: F811
    """`mus servir`'s table page: the button calls the referee in-process; the clock is read from it."""
    web, codes = servidor_unico
    clave = unirse(web, codes[0])
    page = web.get(f"/mesa/{clave}?lang=en").text
    assert 'id="llamar"' in page and "Call the referee" in page and 'id="reloj_mesa"' in page
    assert web.get(f"/api/partidas/{clave}/torneo/reloj").json() == {}
    r = web.post(f"/api/partidas/{clave}/torneo/llamar?lang=en")
    assert r.status_code == 201 and r.json()["texto"] == "Referee called: they are coming to the table"
    r = web.post(f"/api/partidas/{clave}/torneo/llamar?lang=eu")
    assert r.status_code == 409 and r.json()["texto"] == "Epaileari deitu diozue jada: mahaira dator"
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token
    origen = {"Origin": str(web.base_url).rstrip("/")}
    r = web.post(f"/mesa/{clave}/llamar", data={"csrf": token[1]}, headers=origen)
    assert r.status_code == 303 and r.headers["location"] == f"/mesa/{clave}"
    engine = web.app.state.servidor.engine  # type: ignore[attr-defined]
    with Session(engine) as s, s.begin():
        assert [ll.atendida for ll in s.scalars(select(Llamada))] == [None]
        t = s.scalars(select(Torneo)).one()
        reloj.iniciar(s, t, "ana", 45)
    assert web.get(f"/api/partidas/{clave}/torneo/reloj").json()["minutos"] == 45


def test_la_mano_que_llega_tras_el_fin_cierra_la_partida(srv1: Servidor, client1: TestClient) -> None:  # noqa: F811
    """Time is up: the hand being played still counts, and its match goes to the pareja ahead."""
    h = organizador(srv1, client1)
    tid = torneo(client1, h, juegos=3)
    m1, m2 = _mesas(client1, h, tid)
    assert _reloj(client1, h, tid, accion="inicio", minutos=30).status_code == 200
    for _ in range(3):
        m1.jugar()
    m1.enviar(client1)
    assert not client1.get("/api/mesa/partida", headers=_bearer(m1)).json()["terminada"]  # time left
    with srv1.sesion() as s:  # the round's end moved to the past: its time is up
        r = s.scalars(select(RelojRonda)).one()
        assert r.fin is not None
        r.fin -= dt.timedelta(minutes=31)
    m1.jugar()
    assert m1.enviar(client1) == 1  # the hand being played counts
    despues = client1.get("/api/mesa/partida", headers=_bearer(m1)).json()
    assert despues["terminada"] and despues["resultado"]["por_tiempo"]
    total = tuple(despues["resultado"]["tantos"])
    assert despues["ganador"] == reloj.decidir("juegos_tantos", {"juegos": m1.juegos, "tantos": _tantos(m1)}, total)
    assert client1.get("/api/mesa/partida", headers=_bearer(m2)).json()["terminada"] is False  # no hand yet
    # the organiser's close decides the rest
    r2 = client1.post(f"/api/torneos/{tid}/reloj/cierre", headers=h, json={})
    assert r2.status_code == 200 and [c["partida"] for c in r2.json()] != []
    assert client1.get("/api/mesa/partida", headers=_bearer(m2)).json()["resultado"]["por_tiempo"]


def _tantos(mesa: MesaSimulada) -> list[int]:
    """The tantos of the juego in play at the table."""
    return list(mesa.partida.tantos)


def test_la_otra_pareja_confirma_cada_mano(srv: Servidor, client: TestClient) -> None:  # noqa: F811
    """``confirmacion_rival``: a hand counts once the other pareja confirms it; refused, an incident."""
    h = organizador(srv, client)
    tid = torneo(client, h, juegos=3, confirmacion_rival=True)
    m1, _m2 = _mesas(client, h, tid)
    m1.jugar()
    m1.jugar()
    primera, segunda = m1.cola
    r = client.post("/api/mesa/manos", json=primera, headers=_bearer(m1))
    assert r.status_code == 202 and r.json()["pendiente"] and r.json()["numero"] == 1
    assert client.post("/api/mesa/manos", json=primera, headers=_bearer(m1)).status_code == 202  # a resend
    assert client.get("/api/mesa/partida", headers=_bearer(m1)).json()["manos"] == 0  # not counted yet
    r = client.post("/api/mesa/manos", json=segunda, headers=_bearer(m1) | {"Accept-Language": "en"})
    assert r.status_code == 409 and r.json()["error"] == "hand 1 is waiting for the other pair's confirmation"
    url = f"/api/mesa/manos/{primera['id']}/confirmacion"
    r = client.post(url, json={"acepta": True}, headers=_bearer(m1))
    assert r.status_code == 201, r.text
    assert client.get("/api/mesa/partida", headers=_bearer(m1)).json()["manos"] == 1
    assert client.post("/api/mesa/manos", json=primera, headers=_bearer(m1)).status_code == 200  # stored: its answer
    assert client.post(url, json={"acepta": True}, headers=_bearer(m1)).status_code == 404
    # the second hand refused by the opponents: not counted, an incident with both versions
    assert client.post("/api/mesa/manos", json=segunda, headers=_bearer(m1)).status_code == 202
    r = client.post(
        f"/api/mesa/manos/{segunda['id']}/confirmacion",
        json={"acepta": False, "tanteo": [0, 5], "motivo": "no hubo órdago"},
        headers=_bearer(m1),
    )
    assert r.status_code == 200 and r.json()["rechazada"]
    assert client.get("/api/mesa/partida", headers=_bearer(m1)).json()["manos"] == 1
    incidencias = client.get(f"/api/torneos/{tid}/incidencias", headers=h).json()
    rechazo = [i for i in incidencias if i["origen"] == "rival"]
    assert len(rechazo) == 1 and str(segunda["tanteo"]) in rechazo[0]["razon"] and "[0, 5]" in rechazo[0]["razon"]
    # the table enters the hand again, and this time it is confirmed
    assert client.post("/api/mesa/manos", json=segunda, headers=_bearer(m1)).status_code == 202
    r = client.post(f"/api/mesa/manos/{segunda['id']}/confirmacion", json={"acepta": True}, headers=_bearer(m1))
    assert r.status_code == 201 and client.get("/api/mesa/partida", headers=_bearer(m1)).json()["manos"] == 2


def test_la_otra_pareja_confirma_en_el_telefono(servidor_unico: tuple[TestClient, list[str]]) -> None:  # noqa: F811
    """``confirmacion_rival`` on `mus servir`'s phone pages: a hand confirmed on the phone waits
    until the other pareja confirms it on the same phone; refused, an incident, and asked again."""
    web, codes = servidor_unico
    engine = web.app.state.servidor.engine  # type: ignore[attr-defined]
    with Session(engine) as s, s.begin():
        t = s.scalars(select(Torneo)).one()
        t.formato = dict(t.formato or {}) | {"confirmacion_rival": True}
    clave = unirse(web, codes[0])
    origen = {"Origin": str(web.base_url).rstrip("/")}

    def espera() -> tuple[str, str]:
        page = web.get(f"/mesa/{clave}?lang=en").text
        assert 'id="confirmar_mano"' in page and "Pass the phone to the other pair" in page, page
        envio = re.search(r'id="envio"[^>]*>([^<]*)<', page)
        assert envio and "waits for the other pair" in envio[1], page
        detras = int(re.search(r'id="envio" data-pendientes="(\d+)"', page)[1]) - 1  # type: ignore[index]
        assert ("not sent" in envio[1]) == (detras > 0), envio[1]  # only the hands behind it
        id_mano, token = re.search(r'name="id" value="([^"]+)"', page), re.search(r'name="csrf" value="([^"]+)"', page)
        assert id_mano and token
        return id_mano[1], token[1]

    def responder(id_mano: str, token: str, **campos: str) -> None:
        r = web.post(f"/mesa/{clave}/confirmacion", data={"csrf": token, "id": id_mano} | campos, headers=origen)
        assert r.status_code == 303 and r.headers["location"] == f"/mesa/{clave}", r.text

    jugar(web, clave, 0)
    assert en_la_base(web) == []  # confirmed on the phone, stored in the partida: not the tournament's yet
    assert web.get(f"/api/partidas/{clave}/torneo").json()["pendientes"] == 1
    primera, token = espera()
    responder(primera, token, acepta="si")
    assert [m.cliente_id for m in en_la_base(web)] == [primera]
    assert 'id="confirmar_mano"' not in web.get(f"/mesa/{clave}").text
    # the next hand refused by the other pareja: not counted, an incident for the referee
    jugar(web, clave, 1)
    segunda, token = espera()
    assert segunda != primera
    responder(segunda, token, acepta="no", motivo="no hubo órdago")
    assert len(en_la_base(web)) == 1
    with Session(engine) as s:
        (inc,) = s.scalars(select(Incidencia).where(Incidencia.origen == "rival"))
        assert inc.tipo == "mano_rechazada" and "mano 2" in inc.razon and "no hubo órdago" in inc.razon
    # the partida keeps it: it is put before the other pareja again, and the hands after it wait
    jugar(web, clave, 2)
    otra, token = espera()
    assert otra == segunda and len(en_la_base(web)) == 1
    responder(segunda, token, acepta="si")
    assert [m.cliente_id for m in en_la_base(web)][:2] == [primera, segunda]
    tercera, token = espera()  # the send after the page put the third before them
    responder(tercera, token, acepta="si")
    assert len(en_la_base(web)) == 3 and web.get(f"/api/partidas/{clave}/torneo").json()["pendientes"] == 0


def test_la_tableta_llama_y_lee_el_reloj(srv1: Servidor, client1: TestClient, tmp_path: Path) -> None:  # noqa: F811
    """The tablet's client (mesa.torneo.ClienteTorneo) calls the referee and reads the clock."""
    from mesa.torneo import ClienteTorneo

    h = organizador(srv1, client1)
    tid = torneo(client1, h)
    assert client1.post(f"/api/torneos/{tid}/rondas", headers=h).status_code == 201

    def transporte(_base: str, _idioma: str) -> Any:
        def send(method: str, path: str, body: dict[str, Any] | None, token: str | None) -> tuple[int, Any]:
            r = client1.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"} if token else {})
            return r.status_code, r.json()

        return send

    (tmp_path / "tableta").mkdir()
    cliente = ClienteTorneo(tmp_path / "tableta", transporte)  # its own folder: not the server's database
    try:
        cliente.unirse("http://torneo", codigos(client1, h, tid)[0])
        assert cliente.reloj() == {}
        llamada = cliente.llamar_arbitro("falta una carta")
        assert llamada["mesa"] == 1 and llamada["motivo"] == "falta una carta"
        assert cliente.llamar_arbitro()["id"] == llamada["id"]  # the one still open
        assert _reloj(client1, h, tid, accion="inicio", minutos=20).status_code == 200
        assert cliente.reloj()["minutos"] == 20
    finally:
        cliente.close()


def test_telefono_de_una_mesa_remota_llama(torneo_remoto: Any, telefono: TestClient) -> None:  # noqa: F811
    """A table of a remote tournament server (`--torneo-remoto`) calls through the table's own client."""
    import httpx

    server, codes = torneo_remoto
    telefono.app.state.torneos_remotos = (server.base,)  # type: ignore[attr-defined]  # the operator's --torneo-remoto
    clave = unirse(telefono, codes[0], server.base)
    assert telefono.get(f"/api/partidas/{clave}/torneo/reloj").json() == {}
    r = telefono.post(f"/api/partidas/{clave}/torneo/llamar?lang=en")
    assert r.status_code == 201 and r.json()["texto"] == "Referee called: they are coming to the table"
    assert telefono.post(f"/api/partidas/{clave}/torneo/llamar").status_code == 409
    tok = httpx.post(f"{server.base}/api/sesion", json={"usuario": "ana", "clave": "una-clave-larga"}).json()["token"]
    h = {"Authorization": f"Bearer {tok}"}
    llamadas = httpx.get(f"{server.base}/api/torneos/1/llamadas", headers=h).json()
    assert [ll["mesa"] for ll in llamadas] == [1]
    httpx.post(f"{server.base}/api/torneos/1/reloj", headers=h, json={"accion": "inicio", "minutos": 25})
    assert telefono.get(f"/api/partidas/{clave}/torneo/reloj").json()["minutos"] == 25
