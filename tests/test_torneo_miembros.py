"""Who acts in a tournament: co-organisers and referees added and removed by its organisers from
a page or the API (a ``miembro`` row each, checked by the routes' dependency), and a pareja added
after round 1 (a league pairs it with everyone in the rounds to come; groups and the knockout
refuse it in the reader's language)."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

pytest.importorskip("fastapi")
from server.servidor import Servidor
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato, postgres  # noqa: F401 (fixtures used by name)
from tests.test_torneo_api import CLAVE, organizador, torneo

srv, client, srv1, client1 = base.srv, base.client, base.srv1, base.client1


def _login(client: TestClient, usuario: str, clave: str = CLAVE) -> dict[str, str]:
    r = client.post("/api/sesion", json={"usuario": usuario, "clave": clave})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _pagina(srv: Servidor, usuario: str, clave: str = CLAVE) -> TestClient:
    """A browser of its own (its own cookie), logged in through the login page."""
    c = TestClient(srv.app)
    assert c.post("/entrar", data={"usuario": usuario, "clave": clave}, follow_redirects=False).status_code == 303
    return c


def test_a_co_organiser_added_from_the_page_runs_the_tournament_until_removed(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=4, mesas=2)
    h_otra = organizador(srv, client, "otra")  # an organiser of her own tournaments
    assert client.get(f"/api/torneos/{tid}", headers=h_otra).status_code == 404
    assert client.post(f"/api/torneos/{tid}/rondas", headers=h_otra).status_code == 404

    org = _pagina(srv, "org")
    r = org.post(f"/torneos/{tid}/miembros", data={"usuario": "otra", "rol": "organizador"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith(f"/torneos/{tid}/miembros")
    page = org.get(f"/torneos/{tid}/miembros").text
    pendientes = page[page.index('class="invitaciones"') :]
    assert "otra" in pendientes and "Coorganizador" in pendientes and "Creó el torneo" in page
    # invited, not yet a member: she sees the invitation, not the tournament, until she accepts it
    assert client.get(f"/api/torneos/{tid}", headers=h_otra).status_code == 404
    otra = _pagina(srv, "otra")
    assert f'href="/torneos/{tid}?' not in otra.get("/torneos").text
    assert 'href="/invitaciones?' in otra.get("/torneos").text
    (inv,) = client.get("/api/sesion/invitaciones", headers=h_otra).json()
    assert (inv["torneo"]["id"], inv["rol"], inv["por"]) == (tid, "organizador", "org")
    assert "Open de Segovia" in otra.get("/invitaciones").text
    assert client.post(f"/api/sesion/invitaciones/{inv['id']}/aceptar", headers=h).status_code == 404  # not hers
    r = otra.post(f"/invitaciones/{inv['id']}/aceptar", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith(f"/torneos/{tid}")
    assert client.get("/api/sesion/invitaciones", headers=h_otra).json() == []

    # the co-organiser: sees it in her list, starts a round, adds a referee with a new account
    assert f'href="/torneos/{tid}?' in otra.get("/torneos").text
    assert client.post(f"/api/torneos/{tid}/rondas", headers=h_otra).status_code == 201
    r = client.post(
        f"/api/torneos/{tid}/miembros",
        headers=h_otra,
        json={"usuario": "juez", "rol": "arbitro", "clave": "arbitra-bien-7"},
    )
    assert r.status_code == 201
    assert {(m["usuario"], m["rol"], m["creador"]) for m in r.json()} == {
        ("org", "organizador", True),
        ("otra", "organizador", False),
        ("juez", "arbitro", False),
    }
    # the referee reads but does not organise, on the API and on the page
    h_juez = _login(client, "juez", "arbitra-bien-7")
    assert client.get(f"/api/torneos/{tid}", headers=h_juez).status_code == 200
    r = client.post(f"/api/torneos/{tid}/mesas/1/codigo", headers=h_juez)
    assert r.status_code == 403 and "organizador del torneo" in r.json()["error"]
    juez = _pagina(srv, "juez", "arbitra-bien-7")
    assert 'id="ronda"' not in juez.get(f"/torneos/{tid}").text
    assert 'id="miembros"' not in juez.get(f"/torneos/{tid}").text
    assert juez.get(f"/torneos/{tid}/miembros").status_code == 403
    # the creator stays
    org_id = next(m["cuenta"] for m in client.get(f"/api/torneos/{tid}/miembros", headers=h).json() if m["creador"])
    r = client.delete(f"/api/torneos/{tid}/miembros/{org_id}", headers=h_otra)
    assert r.status_code == 409 and "siempre su organizador" in r.json()["error"]

    # removed from the page: she sees it no more
    otra_id = next(
        m["cuenta"] for m in client.get(f"/api/torneos/{tid}/miembros", headers=h).json() if m["usuario"] == "otra"
    )
    r = org.post(f"/torneos/{tid}/miembros/{otra_id}/baja", follow_redirects=False)
    assert r.status_code == 303
    assert client.get(f"/api/torneos/{tid}", headers=h_otra).status_code == 404
    assert otra.get(f"/torneos/{tid}").status_code == 404
    assert f'href="/torneos/{tid}?' not in otra.get("/torneos").text


def test_an_invitation_tells_no_names_apart_and_can_be_declined(srv1: Servidor, client1: TestClient):
    """Adding an account needs its consent, and the answer does not tell which names exist:
    404 against 201 would. An existing name and a made-up one get the same status and body,
    on the API and the page, and the same pending line; only the account sees its invitation."""
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    h_ana = organizador(srv1, client1, "ana")
    antes = client1.get(f"/api/torneos/{tid}/miembros", headers=h).json()
    respuestas = [
        client1.post(f"/api/torneos/{tid}/miembros", headers=h, json={"usuario": u, "rol": "arbitro"})
        for u in ("ana", "nadie")
    ]
    assert [(r.status_code, r.json()) for r in respuestas] == [(202, antes), (202, antes)]
    org = _pagina(srv1, "org")
    paginas = [
        org.post(f"/torneos/{tid}/miembros", data={"usuario": u, "rol": "organizador"}, follow_redirects=False)
        for u in ("ana", "nadie")
    ]
    assert [(p.status_code, p.headers["location"], p.text) for p in paginas[:1]] * 2 == [
        (p.status_code, p.headers["location"], p.text) for p in paginas
    ]
    pendientes = client1.get(f"/api/torneos/{tid}/invitaciones", headers=h).json()
    assert [(i["usuario"], i["rol"], i["por"]) for i in pendientes] == [
        ("ana", "organizador", "org"),
        ("nadie", "organizador", "org"),
    ]
    # an account made later with the invited name does not get the invitation meant for another
    h_nadie = organizador(srv1, client1, "nadie")
    assert client1.get("/api/sesion/invitaciones", headers=h_nadie).json() == []
    # ana declines (Basque page): no member, the invitation gone, the log says so
    ana = _pagina(srv1, "ana")
    (inv,) = client1.get("/api/sesion/invitaciones", headers=h_ana).json()
    assert "Baztertu" in ana.get("/invitaciones?lang=eu").text
    assert ana.post(f"/invitaciones/{inv['id']}/rechazar", follow_redirects=False).status_code == 303
    assert client1.get(f"/api/torneos/{tid}", headers=h_ana).status_code == 404
    assert client1.post(f"/api/sesion/invitaciones/{inv['id']}/aceptar", headers=h_ana).status_code == 404
    cambios = client1.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()["cambios_miembros"]
    assert [(c["usuario"], c["accion"], c["por"]) for c in cambios][-1] == ("ana", "rechaza", "ana")
    assert "Invitation declined" in org.get(f"/torneos/{tid}/miembros?lang=en").text


def test_members_refusals_are_clear_in_the_readers_language(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    r = client1.post(f"/api/torneos/{tid}/miembros", headers=h, json={"usuario": "org", "rol": "arbitro"})
    assert r.status_code == 409
    r = client1.post(f"/api/torneos/{tid}/miembros", headers=h, json={"usuario": "x1234", "rol": "jefe"})
    assert r.status_code == 422 and "rol" in r.json()["error"]
    org = _pagina(srv1, "org")
    body = {"usuario": "org", "rol": "arbitro", "clave": "arbitra-bien-7"}
    page = org.post(f"/torneos/{tid}/miembros?lang=en", data=body)
    assert page.status_code == 409 and "text/html" in page.headers["content-type"]
    page = org.post(f"/torneos/{tid}/miembros?lang=en", data={"usuario": "nuevo1", "rol": "jefe", "clave": "x"})
    assert page.status_code == 422 and "field rol" in page.text
    # a page under a tournament the account is no member of: the same answer as no tournament
    organizador(srv1, client1, "ajena")
    assert _pagina(srv1, "ajena").get(f"/torneos/{tid}/miembros").status_code == 404


def _cerrar_ronda(client: TestClient, h: dict[str, str], tid: int) -> list[tuple[str, str]]:
    """Set every open match of the round now played as won by its first pareja (a result the
    organiser enters); the pairs played."""
    datos = client.get(f"/api/torneos/{tid}", headers=h).json()
    ultima = datos["rondas"][-1]["numero"]
    jugadas = []
    for p in datos["partidas"]:
        if p["ronda"] != ultima or p["parejas"][1] is None:
            continue
        jugadas.append((p["parejas"][0], p["parejas"][1]))
        if p["ganador"] is None:
            body: dict[str, Any] = {"ganador": 0, "juegos": [1, 0], "motivo": "acta de la mesa"}
            r = client.post(f"/api/torneos/{tid}/partidas/{p['id']}/correccion", headers=h, json=body)
            assert r.status_code == 201, r.text
    return jugadas


def test_a_league_takes_a_pareja_after_round_1_and_it_meets_everyone(srv: Servidor, client: TestClient):
    h = organizador(srv, client)
    tid = torneo(client, h, parejas=4, mesas=3, juegos=1)
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    r = client.post(f"/api/torneos/{tid}/parejas", headers=h, json={"nombre": "Tarde", "jugadores": ["C", "D"]})
    assert r.status_code == 201 and r.json()["entra_en"] == 1
    rondas = [_cerrar_ronda(client, h, tid)]
    assert all("Tarde" not in par for par in rondas[0])  # the round under way is not changed
    while (r := client.post(f"/api/torneos/{tid}/rondas", headers=h)).status_code == 201:
        rondas.append(_cerrar_ronda(client, h, tid))
    assert r.status_code == 409 and "no quedan rondas" in r.json()["error"]
    for ronda in rondas:  # nobody twice in a round
        nombres = [n for par in ronda for n in par]
        assert len(nombres) == len(set(nombres))
    todas = sorted(tuple(sorted(par)) for ronda in rondas for par in ronda)
    assert todas == list(itertools.combinations(["P0", "P1", "P2", "P3", "Tarde"], 2))  # every pair once
    datos = client.get(f"/api/torneos/{tid}", headers=h).json()
    assert datos["terminado"] is True
    filas = client.get(f"/api/torneos/{tid}/clasificacion", headers=h).json()["grupos"][0]["filas"]
    assert {f["nombre"]: f["jugadas"] for f in filas}["Tarde"] == 4
    r = client.post(f"/api/torneos/{tid}/parejas?lang=en", headers=h, json={"nombre": "Otra", "jugadores": ["E", "F"]})
    assert r.status_code == 409 and r.json()["error"] == "the tournament is over: no pairs are added"


def test_groups_and_the_knockout_refuse_a_late_pareja_in_the_readers_language(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, tipo="grupos", grupos=2, clasifican=1, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    nueva = {"nombre": "Tarde", "jugadores": ["C", "D"]}
    r = client1.post(f"/api/torneos/{tid}/parejas?lang=en", headers=h, json=nueva)
    assert r.status_code == 409
    assert (
        r.json()["error"] == "the groups have begun: in a groups tournament a pair is added only before the first round"
    )
    org = _pagina(srv1, "org")
    page = org.post(f"/torneos/{tid}/parejas?lang=eu", data={"pareja": "Tarde: C, D"})
    assert page.status_code == 409 and "multzoak hasi dira" in page.text and "text/html" in page.headers["content-type"]
    assert 'id="anadir"' not in org.get(f"/torneos/{tid}").text  # no form that can only be refused
    _cerrar_ronda(client1, h, tid)
    assert client1.post(f"/api/torneos/{tid}/rondas", headers=h).json()["fase"] == "eliminatoria"
    r = client1.post(f"/api/torneos/{tid}/parejas", headers=h, json=nueva)
    assert r.status_code == 409 and r.json()["error"] == "la eliminatoria ya empezó: no se añaden parejas"


def test_a_league_pareja_added_from_the_page_after_round_1(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=4, mesas=2, juegos=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    org = _pagina(srv1, "org")
    assert 'id="anadir"' in org.get(f"/torneos/{tid}").text
    r = org.post(f"/torneos/{tid}/parejas", data={"pareja": "Tarde: C, D"}, follow_redirects=False)
    assert r.status_code == 303
    parejas = client1.get(f"/api/torneos/{tid}", headers=h).json()["parejas"]
    assert [(p["nombre"], p["entra_en"]) for p in parejas][-1] == ("Tarde", 1)


def test_the_json_export_holds_the_members_and_their_log_as_the_page_left_them_and_no_credential(
    srv1: Servidor, client1: TestClient
):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    org = _pagina(srv1, "org")
    for usuario, rol in (("coorg", "organizador"), ("juez_a", "arbitro"), ("juez_b", "arbitro")):
        r = org.post(
            f"/torneos/{tid}/miembros",
            data={"usuario": usuario, "rol": rol, "clave": "arbitra-bien-7"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
    quitado = next(
        m["cuenta"] for m in client1.get(f"/api/torneos/{tid}/miembros", headers=h).json() if m["usuario"] == "juez_b"
    )
    assert org.post(f"/torneos/{tid}/miembros/{quitado}/baja", follow_redirects=False).status_code == 303
    export = client1.get(f"/api/torneos/{tid}/exportar.json", headers=h)
    assert {(m["usuario"], m["rol"], m["creador"]) for m in export.json()["miembros"]} == {
        ("org", "organizador", True),
        ("coorg", "organizador", False),
        ("juez_a", "arbitro", False),
    }
    # the log of the changes, oldest first: who, in which role, done by whom, when
    cambios = export.json()["cambios_miembros"]
    assert [(c["usuario"], c["rol"], c["accion"], c["por"]) for c in cambios] == [
        ("coorg", "organizador", "alta", "org"),
        ("juez_a", "arbitro", "alta", "org"),
        ("juez_b", "arbitro", "alta", "org"),
        ("juez_b", "arbitro", "baja", "org"),
    ]
    assert all(c["cuando"].endswith("Z") for c in cambios)
    # a role changed, and a referee account made through the API, are logged by their maker
    h_coorg = _login(client1, "coorg", "arbitra-bien-7")
    cambio = {"usuario": "juez_a", "rol": "organizador"}
    assert client1.post(f"/api/torneos/{tid}/miembros", headers=h_coorg, json=cambio).status_code == 201
    nuevo = {"usuario": "juez_c", "clave": "arbitra-bien-7"}
    assert client1.post(f"/api/torneos/{tid}/arbitros", headers=h_coorg, json=nuevo).status_code == 201
    cambios = client1.get(f"/api/torneos/{tid}/exportar.json", headers=h).json()["cambios_miembros"]
    assert [(c["usuario"], c["rol"], c["accion"], c["por"]) for c in cambios[4:]] == [
        ("juez_a", "organizador", "rol", "coorg"),
        ("juez_c", "arbitro", "alta", "coorg"),
    ]
    # the members page shows the same log, in the reader's language
    page = org.get(f"/torneos/{tid}/miembros?lang=en").text
    log = page[page.index('class="cambios') :]
    assert [re.sub(r"<[^>]+>", " ", fila).split()[1:] for fila in log.split("<tr>")[2:]] == [
        ["org", "coorg", "Co-organiser", "Added"],
        ["org", "juez_a", "Referee", "Added"],
        ["org", "juez_b", "Referee", "Added"],
        ["org", "juez_b", "Referee", "Removed"],
        ["coorg", "juez_a", "Co-organiser", "Role", "changed"],
        ["coorg", "juez_c", "Referee", "Added"],
    ]
    # no password hash and no join code, in any form the server stores or derives them
    with srv1.sesion() as s:
        from sqlalchemy import select

        from server.modelos.torneo import Cuenta, Mesa
        from server.servicios import torneos as servicio

        secretos = [c.clave_hash for c in s.scalars(select(Cuenta))]
        secretos += [m.huella for m in s.scalars(select(Mesa).where(Mesa.torneo_id == tid))]
        secretos += [servicio.codigo_mesa(s, m) for m in s.scalars(select(Mesa).where(Mesa.torneo_id == tid))]
    assert secretos and not [x for x in secretos if x in export.text]
    assert "arbitra-bien-7" not in export.text and "clave_hash" not in export.text
