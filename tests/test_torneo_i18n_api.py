"""The API's error messages in Spanish, Basque and English by Accept-Language (Spanish by
default), in the JSON shape the clients read; and the gettext catalogues (mesa/i18n) cover every
message the server's code raises."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from argon2 import PasswordHasher

pytest.importorskip("babel")
from mesa.i18n import extraer, t
from scoring.cards import NotationError, check_distinct, parse_hand
from scoring.inputs import parse_json
from server.errores import FUERA, ServidorError
from server.limites import Limite
from server.servicios import auth
from server.servidor import _VALIDACION, Servidor
from server.simulacion import MesaSimulada
from tests.cliente_web import ClienteWeb as TestClient

REPO = Path(__file__).resolve().parents[1]
CLAVE = "secreto-largo-1"
CAMPOS = re.compile(r"\{(\w+)\}")


ERRORES = ("ServidorError", "ServicioError", "FormatoError", "Espera")


def _msgids() -> list[tuple[str, str]]:
    """(file, first argument) of every ServicioError(...) (and the other errors of the hierarchy)
    in torneo/ and server/: a constant, never an f-string. The others are str(exc) (finished text
    from scoring/, read back into one of server.errores.FUERA's msgids), a name given its
    constant by N_ (api.error_de_validacion's ``plantilla``, one of _VALIDACION's)."""
    found = []
    for path in sorted([*(REPO / "torneo").rglob("*.py"), *(REPO / "server").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            name = getattr(node, "func", None)
            if not (isinstance(node, ast.Call) and getattr(name, "attr", getattr(name, "id", "")) in ERRORES):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "N_":
                arg = arg.args[0]
            if isinstance(arg, ast.Constant):
                found.append((path.name, arg.value))
            elif not (isinstance(arg, ast.Name) and arg.id in ("plantilla", "msgid")):
                assert isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "str", (path.name, node.lineno)
    return found


@pytest.mark.parametrize("idioma", ["eu", "en"])
def test_every_message_the_server_raises_is_in_the_catalogue_with_the_same_fields(idioma: str):
    raised = _msgids()
    assert len(raised) > 40, "the pattern no longer finds the server's errors"
    ids = {m for _, m in raised} | {m for m, _ in _VALIDACION.values()} | set(FUERA)
    traducidos = {m.id: m.string for m in extraer.read(idioma) if m.id and m.string and not m.fuzzy}
    assert sorted(ids - traducidos.keys()) == [], "run `python -m mesa.i18n.extraer` and translate them"
    for es in ids:
        assert set(CAMPOS.findall(t(es, idioma))) == set(CAMPOS.findall(es)), (es, idioma)


@pytest.mark.parametrize(
    ("texto", "eu", "en"),
    [
        (
            "cuerpo: JSON anidado demasiado profundo (más de 32 niveles)",
            "cuerpo: JSON habiaratuegia (32 maila baino gehiago)",
            "cuerpo: JSON nested too deep (more than 32 levels)",
        ),
        (
            "la carta 1o aparece en la mano 0 y en la mano 1",
            "1o karta 0. eskuan eta 1. eskuan agertzen da",
            "the card 1o appears in hand 0 and in hand 1",
        ),
        ("un texto que nadie escribió", "un texto que nadie escribió", "un texto que nadie escribió"),
    ],
)
def test_scoring_errors_carry_their_msgid_and_fields_to_the_player(texto: str, eu: str, en: str):
    cuerpo = "[" * 100 + "]" * 100
    origen = {
        "cuerpo": lambda: parse_json(cuerpo, "cuerpo"),
        "la": lambda: check_distinct([parse_hand("1o 2o 3o 4o"), parse_hand("1o 5o 6o 7o")]),
        "un texto": lambda: (_ for _ in ()).throw(ValueError("un texto que nadie escribió")),
    }[texto.split(" ")[0].rstrip(":") if not texto.startswith("un texto") else "un texto"]
    with pytest.raises(ValueError) as info:
        origen()
    exc = ServidorError.de(info.value)
    assert str(info.value) == texto
    assert (exc.texto("es"), exc.texto("eu"), exc.texto("en")) == (texto, eu, en)


def test_every_scoring_msgid_marked_for_the_catalogues_is_raised_by_scoring():
    fuente = "".join(p.read_text("utf-8") for p in (REPO / "scoring").glob("*.py"))
    assert [m for m in FUERA if f'"{m}"' not in fuente] == []


def test_a_format_error_carries_its_msgid_and_fields():
    from torneo.formato import Formato, FormatoError

    with pytest.raises(FormatoError) as info:
        Formato.from_dict({"tipo": "copa"})
    assert info.value.msgid == "formato desconocido {tipo} ({lista})"
    # the server says it in the reader's language (server.handlers: ServidorError.de)
    assert ServidorError.de(info.value).texto("en") == "unknown format 'copa' (liga, grupos, suizo, ceros)"


def test_a_motivo_inside_a_message_is_translated_too():
    motivo = NotationError("la carta {carta} aparece en la mano {a} y en la mano {b}", carta="1o", a=0, b=1)
    exc = ServidorError("registro del árbitro ALTERADO en la entrada {entrada}: {motivo}", entrada=3, motivo=motivo)
    assert str(exc) == "registro del árbitro ALTERADO en la entrada 3: la carta 1o aparece en la mano 0 y en la mano 1"
    assert exc.texto("en") == "referee's log ALTERED at entry 3: the card 1o appears in hand 0 and in hand 1"


@pytest.fixture
def srv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(auth, "_HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    server = Servidor(f"sqlite:///{tmp_path / 'torneo.sqlite3'}")
    yield server
    server.engine.dispose()


def _mesa(srv: Servidor, client: TestClient) -> MesaSimulada:
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", CLAVE, "organizador")
    token = client.post("/api/sesion", json={"usuario": "org", "clave": CLAVE}).json()["token"]
    h = {"Authorization": f"Bearer {token}"}
    body = {
        "nombre": "Club",
        "parejas": [{"nombre": f"P{i}", "jugadores": [f"a{i}", f"b{i}"]} for i in range(2)],
        "mesas": 1,
    }
    tid = client.post("/api/torneos", headers=h, json=body).json()["id"]
    client.post(f"/api/torneos/{tid}/rondas", headers=h)
    codigo = client.get(f"/api/torneos/{tid}", headers=h).json()["mesas"][0]["codigo"]
    m = MesaSimulada.unirse(client, codigo, semilla=4)
    m.jugar()
    return m


JSON = {"Content-Type": "application/json"}
IDIOMAS = {None: 0, "es-ES,es;q=0.9": 0, "eu": 1, "en-GB,en;q=0.8": 2, "fr-FR, eu;q=0.5": 1, "fr": 0}


@pytest.mark.parametrize("accept", list(IDIOMAS))
def test_errors_are_answered_in_the_requests_language(srv: Servidor, accept: str | None):
    client = TestClient(srv.app)
    m = _mesa(srv, client)
    lang = IDIOMAS[accept]
    hdr = {"Accept-Language": accept} if accept else {}
    mesa_h = hdr | {"Authorization": f"Bearer {m.token}"}
    body = m.cola[0]
    bad = [body["tanteo"][0] + 1, body["tanteo"][1]]
    casos: list[tuple[Any, int, tuple[str, str, str]]] = [
        (
            client.post("/api/sesion", json={"usuario": "nadie", "clave": "x"}, headers=hdr),
            401,
            ("usuario o contraseña incorrectos", "erabiltzaile edo pasahitz okerra", "wrong user or password"),
        ),
        (
            client.get("/api/torneos/1", headers=hdr),
            401,
            ("hay que iniciar sesión", "saioa hasi behar da", "you must log in"),
        ),
        (
            client.get("/api/mesa/partida", headers=hdr),
            401,
            ("falta el token de la mesa", "mahaiaren tokena falta da", "the table token is missing"),
        ),
        (
            client.post("/api/mesas/unirse", json={"codigo": "NOPE1234"}, headers=hdr),
            404,
            ("código de mesa desconocido", "mahai-kode ezezaguna", "unknown table code"),
        ),
        (
            client.post("/api/mesa/manos", json={**body, "tanteo": [1, 2, 3]}, headers=mesa_h),
            422,
            (
                "campo tanteo: debe tener como mucho 2 elementos",
                "tanteo eremua: gehienez 2 elementu izan ditzake",
                "field tanteo: must have at most 2 items",
            ),
        ),
        (
            client.post("/api/mesa/manos", json={**body, "numero": 5}, headers=mesa_h),
            409,
            ("se esperaba la mano 1, no la 5", "1. eskua espero zen, ez 5.a", "hand 1 was expected, not 5"),
        ),
        (
            client.post("/api/mesa/manos", content=b"[" * 100 + b"]" * 100, headers=mesa_h | JSON),
            422,
            (
                "cuerpo: JSON anidado demasiado profundo (más de 32 niveles)",
                "cuerpo: JSON habiaratuegia (32 maila baino gehiago)",
                "cuerpo: JSON nested too deep (more than 32 levels)",
            ),
        ),
        (  # a body another site's form could post (text/plain) is no JSON here
            client.post("/api/mesa/manos", content=b"{}", headers=mesa_h | {"Content-Type": "text/plain"}),
            415,
            (
                "el cuerpo debe ser JSON (Content-Type: application/json)",
                "gorputzak JSON izan behar du (Content-Type: application/json)",
                "the body must be JSON (Content-Type: application/json)",
            ),
        ),
        (
            client.post("/api/mesa/manos", content=b"[" + b"0," * 40_000 + b"0]", headers=mesa_h | JSON),
            413,
            (
                "cuerpo demasiado grande (más de 64 KiB)",
                "gorputz handiegia (64 KiB baino gehiago)",
                "body too large (more than 64 KiB)",
            ),
        ),
    ]
    for r, estado, textos in casos:
        assert (r.status_code, r.json()) == (estado, {"error": textos[lang]}), r.request.url
    r = client.post("/api/mesa/manos", json={**body, "tanteo": bad}, headers=mesa_h)
    textos = (
        f"el tanteo no coincide: la mesa dice {bad}, las reglas dan {body['tanteo']}",
        f"zenbaketa ez dator bat: mahaiak {bad} dio, arauek {body['tanteo']} ematen dute",
        f"the score does not match: the table says {bad}, the rules give {body['tanteo']}",
    )
    assert (r.status_code, r.json()) == (422, {"error": textos[lang], "tanteo_servidor": body["tanteo"]})


def test_the_rate_limit_and_the_query_language_and_the_pages(srv: Servidor):
    client = TestClient(srv.app)
    srv.limite_unirse = Limite("unirse", 1, 60.0)
    client.post("/api/mesas/unirse", json={"codigo": "NOPE1234"})
    r = client.post("/api/mesas/unirse?lang=eu", json={"codigo": "NOPE1234"}, headers={"Accept-Language": "en"})
    assert (r.status_code, r.json()) == (429, {"error": "eskaera gehiegi: itxaron pixka bat"})
    page = client.post("/entrar?lang=en", data={"usuario": "nadie", "clave": "x"})
    assert page.status_code == 401 and "wrong user or password" in page.text


def test_the_pages_and_the_api_offer_one_profile_list_in_one_language(srv: Servidor):
    """The new-tournament page's rule profiles are the API's list, and one request's language
    (the query, then Accept-Language) answers a page and the API alike."""
    with srv.sesion() as s:
        auth.crear_cuenta(s, "org", CLAVE, "organizador")
    client = TestClient(srv.app)
    assert client.post("/entrar", data={"usuario": "org", "clave": CLAVE}, follow_redirects=False).status_code == 303
    pagina = client.get("/torneos")
    seleccion = pagina.text[pagina.text.index('id="reglas"') :].split("</select>")[0]
    assert re.findall(r"<option>([^<]+)</option>", seleccion) == client.get("/api/perfiles").json()
    errores = set()
    for cabeceras, lang in (({"Accept-Language": "en-GB,en"}, "en"), ({"Accept-Language": "eu"}, "eu")):
        page = client.get("/torneos/999999", headers=cabeceras)
        api = client.get("/api/torneos/999999", headers=cabeceras)
        assert page.status_code == api.status_code == 404
        assert api.json()["error"] in page.text and f'lang="{lang}"' in page.text
        errores.add(api.json()["error"])
    assert len(errores) == 2  # said in English, then in Basque
