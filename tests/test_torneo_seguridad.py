"""Security of the tournament server: limits per client address (the proxy's header believed
only from --proxy), logins and table joins counted apart, credentials checked before a body is
read, a password rule, Secure cookies over HTTPS, an owner-only SQLite file, join codes kept
only hashed (and a new code revoking the old tokens), and the OpenAPI schema served."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from sqlalchemy import inspect

from server.limites import Limite
from server.servicios import auth
from server.servicios.torneos import ServicioError
from server.servidor import Servidor
from server.simulacion import MesaSimulada
from tests import test_torneo_api as base
from tests.cliente_web import ClienteWeb as TestClient
from tests.servidor_torneo import hash_barato  # noqa: F401 (fixture used by name)
from tests.test_torneo_api import CLAVE, codigos, organizador, torneo

srv1, client1 = base.srv1, base.client1


def test_the_general_limit_counts_the_address_not_the_token(srv1: Servidor, client1: TestClient):
    srv1.limite_general = Limite("general", 5, 60.0)
    answers = [
        client1.get("/api/mesa/partida", headers={"Authorization": f"Bearer {secrets.token_urlsafe(32)}"}).status_code
        for _ in range(7)
    ]
    assert answers == [401] * 5 + [429] * 2


def test_forwarded_for_is_believed_only_from_the_named_proxy(tmp_path: Path):
    plain = Servidor(f"sqlite:///{tmp_path / 'a.sqlite3'}", limite_entrar=3)
    c = TestClient(plain.app)
    answers = [
        c.post(
            "/api/sesion", json={"usuario": "nadie", "clave": "x"}, headers={"X-Forwarded-For": f"10.0.0.{i}"}
        ).status_code
        for i in range(5)
    ]
    assert answers == [401] * 3 + [429] * 2  # a client writing the header escapes nothing
    # behind a proxy (the test client's address, "testclient"), each forwarded client counts apart
    detras = Servidor(f"sqlite:///{tmp_path / 'b.sqlite3'}", limite_entrar=3, proxies=["testclient"])
    c = TestClient(detras.app)
    answers = [
        c.post(
            "/api/sesion", json={"usuario": "nadie", "clave": "x"}, headers={"X-Forwarded-For": f"6.6.6.6, 10.0.0.{i}"}
        ).status_code
        for i in range(5)
    ]
    assert answers == [401] * 5  # the rightmost address is what the proxy saw; the left one is the client's word
    answers = [  # another name: "nadie" has had its five free failures (the per-account wait)
        c.post(
            "/api/sesion", json={"usuario": "nadie2", "clave": "x"}, headers={"X-Forwarded-For": "10.9.9.9"}
        ).status_code
        for _ in range(4)
    ]
    assert answers == [401] * 3 + [429]
    plain.engine.dispose()
    detras.engine.dispose()


def test_wrong_passwords_for_one_account_from_many_addresses_make_it_wait_and_never_lock_it(tmp_path: Path):
    """The per-account wait (server.limites.Intentos): of 60 wrong passwords from 12 addresses
    five are checked, then the name waits 2, 4, 8 ... s whatever the
    address, a right password included; after the wait a right password works. A name no
    account has is answered alike, and the organiser's own address does not wait."""
    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}", proxies=["testclient"])
    reloj = [1000.0]
    srv.intentos.reloj = lambda: reloj[0]
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", CLAVE, "organizador")
    c = TestClient(srv.app)

    def entrar(usuario: str, clave: str, ip: str, lang: str = "es") -> tuple[int, str | None, str]:
        r = c.post(
            f"/api/sesion?lang={lang}", json={"usuario": usuario, "clave": clave}, headers={"X-Forwarded-For": ip}
        )
        return r.status_code, r.headers.get("retry-after"), r.text

    assert entrar("org", CLAVE, "10.1.1.1")[0] == 200  # the organiser's laptop, known from now on
    for usuario in ("org", "nadie"):  # an account, and a name no account has: the same answers
        estados = [entrar(usuario, f"mala-clave-{i}", f"10.0.0.{i}")[0] for i in range(6)]
        assert estados == [401] * 5 + [429]
    estado, reintento, texto = entrar("org", CLAVE, "10.0.0.9", "en")  # a right password waits too
    assert (estado, reintento) == (429, "2")
    assert texto == '{"error":"too many failed attempts for this account: wait 2 s and try again"}'
    assert entrar("nadie", CLAVE, "10.0.0.9", "en")[:3] == (429, "2", texto)
    # the wait grows with each failure after it
    reloj[0] += 2
    assert entrar("org", "otra-mala-1", "10.0.0.7")[0] == 401
    reloj[0] += 3
    assert entrar("org", CLAVE, "10.0.0.8")[:2] == (429, "1")  # 4 s after the last failure
    page = c.post("/entrar?lang=eu", data={"usuario": "org", "clave": CLAVE}, headers={"X-Forwarded-For": "10.0.0.8"})
    assert page.status_code == 429 and page.headers["retry-after"] == "1" and "itxaron 1 s" in page.text
    assert entrar("org", CLAVE, "10.1.1.1")[0] == 200  # her own laptop does not wait (and clears the count)
    assert [entrar("org", f"mala-{i}", "10.0.0.3")[0] for i in range(6)] == [401] * 5 + [429]
    reloj[0] += 2
    assert entrar("org", CLAVE, "10.0.0.8")[0] == 200  # after the wait a right password works: never a lock
    srv.engine.dispose()


def test_logins_beyond_the_password_checks_running_are_refused_at_once(srv1: Servidor, client1: TestClient):
    """At most auth.HASHES_A_LA_VEZ argon2id checks (64 MiB each) at once: a login beyond them
    gets 503 with Retry-After at once, in the reader's language, rather than a queue holding
    memory; and it costs the account nothing."""
    organizador(srv1, client1)
    with auth.hash_libre(), auth.hash_libre():  # two logins' checks running
        r = client1.post("/api/sesion?lang=en", json={"usuario": "org", "clave": CLAVE})
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json() == {"error": "the server is checking other passwords: try again in a moment"}
        page = client1.post("/entrar?lang=eu", data={"usuario": "org", "clave": CLAVE})
        assert page.status_code == 503 and "beste pasahitz batzuk" in page.text
    assert client1.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).status_code == 200


def test_logins_and_table_joins_are_limited_apart(srv1: Servidor, client1: TestClient):
    srv1.limite_entrar = Limite("entrar", 3, 60.0)
    for _ in range(3):
        client1.post("/api/sesion", json={"usuario": "nadie", "clave": "adivinando"})
    assert client1.post("/api/sesion", json={"usuario": "nadie", "clave": "x"}).status_code == 429
    # someone guessing passwords does not lock the tablets out
    assert client1.post("/api/mesas/unirse", json={"codigo": "NOPE12345"}).status_code == 404
    assert client1.post("/entrar", data={"usuario": "nadie", "clave": "x"}).status_code == 429


def test_credentials_are_checked_before_the_body_is_read(srv1: Servidor, client1: TestClient):
    grande = b"{" + b" " * (5 * 1024 * 1024) + b"}"
    for path in (
        "/api/torneos/1/informes",
        "/api/torneos",
        "/api/torneos/1/arbitros",
        "/api/torneos/1/partidas/1/correccion",
    ):
        r = client1.post(path, content=grande, headers={"Content-Type": "application/json"})
        assert r.status_code == 401, (path, r.status_code)  # not 413: the body was never read
        r = client1.post(path, content=b"{no es json", headers={"Content-Type": "application/json"})
        assert r.status_code == 401, path
    r = client1.post("/api/mesa/manos", content=grande, headers={"Content-Type": "application/json"})
    assert r.status_code == 401 and r.json()["error"] == "falta el token de la mesa"


@pytest.mark.parametrize(
    "clave",
    [
        "aaaaaaaa",
        "abababab",
        "abcabcabc",
        "12345678",
        "87654321",
        "abcdefgh",
        "Password1",
        "qwertyuiop",
        "contraseña",
        "TXAPELKETA",
        "ana-secreta-1",
    ],
)
def test_a_common_or_repeated_password_is_refused(srv1: Servidor, clave: str):
    with srv1.sesion() as s, pytest.raises(ServicioError, match="demasiado fácil"):
        auth.crear_cuenta(s, "ana", clave, "organizador")


def test_a_good_password_is_taken_and_changed_from_the_api(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    segunda = client1.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).json()["token"]
    tid = torneo(client1, h, parejas=2, mesas=1)
    r = client1.post(f"/api/torneos/{tid}/arbitros?lang=en", headers=h, json={"usuario": "arbi", "clave": "11111111"})
    assert (r.status_code, r.json()["error"]) == (
        422,
        "that password is too easy to guess: choose a longer, less common one",
    )
    r = client1.post("/api/sesion/clave", headers=h, json={"actual": "mala-mala-1", "nueva": "otra-clave-9"})
    assert r.status_code == 403
    assert client1.post("/api/sesion/clave", headers=h, json={"actual": CLAVE, "nueva": "aaaaaaaa"}).status_code == 422
    assert (
        client1.post("/api/sesion/clave", headers=h, json={"actual": CLAVE, "nueva": "otra-clave-9"}).status_code == 204
    )
    assert client1.get(f"/api/torneos/{tid}", headers=h).status_code == 200  # this login goes on
    assert client1.get(f"/api/torneos/{tid}", headers={"Authorization": f"Bearer {segunda}"}).status_code == 401
    assert client1.post("/api/sesion", json={"usuario": "org", "clave": "otra-clave-9"}).status_code == 200


def test_the_cookie_is_secure_over_https_and_samesite_always(tmp_path: Path):
    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}", proxies=["testclient"])
    with srv.sesion() as s:
        auth.crear_cuenta(s, "ana", CLAVE, "organizador")

    def cookie(base_url: str, headers: dict[str, str]) -> str:
        c = TestClient(srv.app, base_url=base_url)
        r = c.post("/entrar", data={"usuario": "ana", "clave": CLAVE}, headers=headers, follow_redirects=False)
        assert r.status_code == 303
        return r.headers["set-cookie"].lower()

    assert "secure" in cookie("https://testserver", {}) and "samesite=strict" in cookie("https://testserver", {})
    assert "secure" not in cookie("http://testserver", {})
    assert "secure" in cookie("http://testserver", {"X-Forwarded-Proto": "https"})  # from the trusted proxy
    srv.engine.dispose()
    other = Servidor(f"sqlite:///{tmp_path / 'u.sqlite3'}")
    with other.sesion() as s:
        auth.crear_cuenta(s, "ana", CLAVE, "organizador")
    r = TestClient(other.app).post(
        "/entrar",
        data={"usuario": "ana", "clave": CLAVE},
        headers={"X-Forwarded-Proto": "https", "Origin": "http://testserver"},  # no proxy: plain HTTP
        follow_redirects=False,
    )
    assert "secure" not in r.headers["set-cookie"].lower()  # a client's own word is not enough
    other.engine.dispose()


def test_the_database_its_wal_and_the_key_are_readable_by_the_owner_only(tmp_path: Path):
    old = os.umask(0o022)
    try:
        datos = tmp_path / "datos"
        srv = Servidor(f"sqlite:///{datos / 'torneo.sqlite3'}")
        c = TestClient(srv.app)
        h = organizador(srv, c)
        torneo(c, h, parejas=2, mesas=1)
        for f in ("torneo.sqlite3", "torneo.sqlite3-wal", "torneo.sqlite3.clave"):
            assert stat.S_IMODE((datos / f).stat().st_mode) == 0o600, f
        srv.engine.dispose()
    finally:
        os.umask(old)


def test_join_codes_are_stored_hashed_and_a_new_code_revokes_the_old_tokens(srv1: Servidor, client1: TestClient):
    h = organizador(srv1, client1)
    tid = torneo(client1, h, parejas=2, mesas=1)
    client1.post(f"/api/torneos/{tid}/rondas", headers=h)
    (codigo,) = codigos(client1, h, tid)
    assert "codigo" not in {c["name"] for c in inspect(srv1.engine).get_columns("mesa")}
    fichero = Path(srv1.engine.url.database)
    crudo = b"".join(p.read_bytes() for p in fichero.parent.glob(fichero.name + "*") if not p.name.endswith(".clave"))
    assert codigo.encode() not in crudo
    m = MesaSimulada.unirse(client1, codigo, semilla=1)
    r = client1.post(f"/api/torneos/{tid}/mesas/1/codigo", headers=h)
    assert r.status_code == 201 and r.json()["codigo"] not in (None, codigo)
    assert client1.post("/api/mesas/unirse", json={"codigo": codigo}).status_code == 404
    assert client1.get("/api/mesa/partida", headers={"Authorization": f"Bearer {m.token}"}).status_code == 401
    assert client1.post("/api/mesas/unirse", json={"codigo": r.json()["codigo"]}).status_code == 200
    assert codigos(client1, h, tid) == [r.json()["codigo"]]
    # the same from the tournament page's button, as the organiser does it on the day
    pagina = TestClient(srv1.app)
    assert pagina.post("/entrar", data={"usuario": "org", "clave": CLAVE}, follow_redirects=False).status_code == 303
    assert f'action="/torneos/{tid}/mesas/1/codigo' in pagina.get(f"/torneos/{tid}").text
    m = MesaSimulada.unirse(client1, r.json()["codigo"], semilla=2)
    assert pagina.post(f"/torneos/{tid}/mesas/1/codigo", follow_redirects=False).status_code == 303
    assert client1.post("/api/mesas/unirse", json={"codigo": r.json()["codigo"]}).status_code == 404
    assert client1.get("/api/mesa/partida", headers={"Authorization": f"Bearer {m.token}"}).status_code == 401
    assert codigos(client1, h, tid) not in ([codigo], [r.json()["codigo"]])


def test_the_openapi_schema_is_served_with_every_body_and_answer(client1: TestClient):
    schema = client1.get("/api/openapi.json").json()
    manos = schema["paths"]["/api/mesa/manos"]["post"]
    assert manos["requestBody"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/ManoIn"
    comps = schema["components"]["schemas"]
    assert {
        "ManoIn",
        "TorneoIn",
        "ParejaIn",
        "FormatoIn",
        "InformeIn",
        "CorreccionIn",
        "TorneoOut",
        "PartidaOut",
        "ErrorOut",
    } <= comps.keys()
    for path, ops in schema["paths"].items():
        for op in ops.values():
            assert "200" in op["responses"] or "201" in op["responses"] or "204" in op["responses"], path
    assert client1.get("/docs").status_code == 404


def test_the_proxy_and_the_limits_come_from_the_environment_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`mus servir` builds this server too: the settings reach it through the environment."""
    monkeypatch.setenv("MUSMESA_TORNEO_PROXY", "10.0.0.1, testclient")
    monkeypatch.setenv("MUSMESA_TORNEO_LIMITE_UNIONES", "2")
    srv = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    assert srv.proxies == {"10.0.0.1", "testclient"}
    c = TestClient(srv.app)
    answers = [
        c.post("/api/mesas/unirse", json={"codigo": "NOPE12345"}, headers={"X-Forwarded-For": "192.0.2.7"}).status_code
        for _ in range(3)
    ]
    assert answers == [404, 404, 429]
    assert (
        c.post("/api/mesas/unirse", json={"codigo": "NOPE12345"}, headers={"X-Forwarded-For": "192.0.2.8"}).status_code
        == 404
    )  # another client behind the proxy
    srv.engine.dispose()
