"""`mus servir` on the open internet: photo bombs refused from their header, photos
read only when a reader has room, within time limits and never written to disk, slow headers cut
off, and forms and cookie-authenticated changes from another site refused (server.seguridad)."""

from __future__ import annotations

import asyncio
import socket
import struct
import tempfile
import threading
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
cv2 = pytest.importorskip("cv2")

import httpx  # noqa: E402
import numpy as np  # noqa: E402

from server.seguridad import COOKIE_CSRF  # noqa: E402
from server.servicios import auth, lectura  # noqa: E402
from server.servicios.partidas import WebError  # noqa: E402
from server.servidor import Servidor  # noqa: E402
from tests.cliente_web import ClienteWeb  # noqa: E402

CLAVE = "organiza-bien-1"

# -- photo bombs ------------------------------------------------------------------------------


def jpeg_bomba(ancho: int = 30000, alto: int = 30000) -> bytes:
    """A small real JPEG whose frame header (SOF0) claims ``ancho`` x ``alto`` pixels."""
    ok, data = cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))
    assert ok
    b = bytearray(data.tobytes())
    sof = b.index(b"\xff\xc0")
    b[sof + 5 : sof + 9] = struct.pack(">HH", alto, ancho)
    return bytes(b)


def _trozo(tipo: bytes, datos: bytes) -> bytes:
    return struct.pack(">I", len(datos)) + tipo + datos + struct.pack(">I", zlib.crc32(tipo + datos))


def png_bomba(ancho: int = 65500, alto: int = 65500) -> bytes:
    """A ~100-byte PNG claiming ``ancho`` x ``alto`` pixels (a first row of zeros, then nothing)."""
    ihdr = struct.pack(">IIBBBBB", ancho, alto, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64, 9)
    return b"\x89PNG\r\n\x1a\n" + _trozo(b"IHDR", ihdr) + _trozo(b"IDAT", idat) + _trozo(b"IEND", b"")


@pytest.fixture
def sin_decodificar(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The decoders made to fail the test if anything reaches them."""
    import vision.images

    llamadas: list[int] = []

    def decode(*_: Any, **__: Any) -> None:
        llamadas.append(1)
        raise AssertionError("a photo bomb reached the decoder")

    monkeypatch.setattr(vision.images, "decode_image", decode)
    monkeypatch.setattr(cv2, "imdecode", decode)
    return llamadas


def test_bomb_sizes_are_what_the_issue_measured() -> None:
    assert 500 < len(jpeg_bomba()) < 800 and len(png_bomba()) < 120


@pytest.mark.parametrize("bomba", [jpeg_bomba, png_bomba])
def test_a_bomb_is_refused_from_its_header_without_decoding(bomba: Any, sin_decodificar: list[int]) -> None:
    with pytest.raises(WebError) as exc:
        lectura.comprobar_foto(bomba())
    assert exc.value.estado == 413
    assert exc.value.texto() == "la foto tiene demasiados píxeles: como mucho 50 megapíxeles"
    assert "50" in exc.value.texto("en") and exc.value.texto("en") != exc.value.texto("eu")
    assert sin_decodificar == []


def test_truncated_and_invalid_headers_are_unreadable_not_errors(sin_decodificar: list[int]) -> None:
    png = png_bomba()
    for roto in (png[:20], png[:30], b"\xff\xd8\xff", jpeg_bomba()[:40], b"\x89PNG\r\n\x1a\n" + b"\0" * 60):
        with pytest.raises(WebError) as exc:
            lectura.comprobar_foto(roto)
        assert exc.value.estado == 415, roto
    assert sin_decodificar == []


def test_a_header_is_read_without_image_open_which_ultralytics_replaces(monkeypatch: pytest.MonkeyPatch) -> None:
    # ultralytics, once imported in a process (the training tests), replaces PIL.Image.open by
    # one that tries to install a HEIF plugin for a file it cannot identify, and then fails
    from PIL import Image

    def reemplazada(*_a: object, **_k: object) -> None:
        raise ModuleNotFoundError("No module named 'pi_heif'")

    monkeypatch.setattr(Image, "open", reemplazada)
    with pytest.raises(WebError) as exc:
        lectura.comprobar_foto(b"%PDF-1.4 no es una foto" + b"\0" * 64)
    assert exc.value.estado == 415
    ok, data = cv2.imencode(".jpg", np.zeros((12, 20, 3), np.uint8))
    assert ok
    assert lectura.comprobar_cabecera(data.tobytes()) == (20, 12)


def test_a_photo_at_the_limit_still_passes_its_header() -> None:
    ok, data = cv2.imencode(".png", np.zeros((10, 10, 3), np.uint8))
    assert ok
    assert lectura.comprobar_cabecera(data.tobytes()) == (10, 10)
    assert lectura.MAX_PIXELES == 50_000_000  # the figure docs/web.md gives


def _pico_al_decodificar(data: bytes) -> tuple[tuple[int, ...], int]:
    """The shape of the image server.servicios.lectura decodes from ``data`` and the most memory Python
    held meanwhile (tracemalloc sees numpy's buffers, where OpenCV decodes into)."""
    tracemalloc.start()
    try:
        forma = lectura.comprobar_foto(data).shape
        return forma, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_bomb_under_the_limit_costs_no_more_memory_than_a_12_mp_photo() -> None:
    ok, foto = cv2.imencode(".jpg", np.full((3024, 4032, 3), 90, np.uint8))  # a phone's 12 MP
    assert ok
    forma, pico_foto = _pico_al_decodificar(foto.tobytes())
    assert forma == (1512, 2016, 3)  # decoded at half its size, as its cards are read
    bomba = jpeg_bomba(8000, 6000)  # a 48 MP phone's size, in a few hundred bytes
    assert len(bomba) < 800 and lectura.comprobar_cabecera(bomba) == (8000, 6000)
    forma, pico_bomba = _pico_al_decodificar(bomba)  # within MAX_PIXELES: decoded, reduced
    assert pico_bomba <= pico_foto  # whole, it would have held 144 MB
    assert pico_foto < 1512 * 2016 * 3 * 1.2
    from vision.images import MAX_DECODED_PIXELS

    assert forma == (1500, 2000, 3) and forma[0] * forma[1] <= MAX_DECODED_PIXELS
    assert MAX_DECODED_PIXELS == 12_600_000  # the figure docs/web.md gives


def test_a_png_over_12_mp_is_refused_not_decoded_whole(sin_decodificar: list[int]) -> None:
    # a PNG (or WebP) cannot be reduced while it is decoded: over 12 MP, refused with the limit
    for bomba in (png_bomba(5000, 3000), png_bomba(8000, 6000)):
        with pytest.raises(WebError) as exc:
            lectura.comprobar_foto(bomba)
        assert exc.value.estado == 413
        assert exc.value.texto() == "la foto tiene demasiados píxeles: como mucho 12 megapíxeles"
    assert sin_decodificar == []


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Any]:
    from server.main import crear_app

    with ClienteWeb(crear_app(f"sqlite:///{tmp_path / 'mus.db'}", tmp_path)) as c:
        yield c


def _partida(c: Any) -> str:
    r = c.post("/api/partidas", json={"jugadores": ["Ana", "Bea", "Carlos", "Dani"]})
    assert r.status_code == 201, r.text
    return str(r.json()["clave"])


def test_every_photo_route_refuses_a_bomb_in_the_players_language(web: Any, sin_decodificar: list[int]) -> None:
    clave = _partida(web)
    for bomba in (jpeg_bomba(), png_bomba()):
        foto = {"foto": ("mesa.jpg", bomba, "image/jpeg")}
        respuestas = [
            web.post("/api/leer?lang=en", files=foto),
            web.post("/api/leer/asiento?lang=en", files=foto, data={"partida": clave, "asiento": "0"}),
            web.post("/api/baraja/comprobar?lang=en", files=foto, data={"palo": "oros"}),
            web.post(
                f"/api/partidas/{clave}/baraja?lang=en",
                files={p: (f"{p}.jpg", bomba, "image/jpeg") for p in ("oros", "copas", "espadas", "bastos")},
            ),
        ]
        for r in respuestas:
            assert r.status_code == 413, r.text
            assert r.json() == {"error": "the photo has too many pixels: 50 megapixels at most"}
    assert sin_decodificar == []


# -- uploads: a reader's room first, time limits, memory only ----------------------------------------


def _multipart(foto: bytes, frontera: str = "xYzZy") -> tuple[bytes, dict[str, str]]:
    cuerpo = (
        (
            f'--{frontera}\r\nContent-Disposition: form-data; name="foto"; filename="mesa.jpg"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + foto
        + f"\r\n--{frontera}--\r\n".encode()
    )
    return cuerpo, {"Content-Type": f"multipart/form-data; boundary={frontera}"}


def _app(tmp_path: Path) -> Any:
    from server.main import crear_app

    return crear_app(f"sqlite:///{tmp_path / 'mus.db'}", tmp_path)


def test_a_photo_is_not_read_while_no_reader_has_room(tmp_path: Path) -> None:
    app = _app(tmp_path)
    pool = lectura.PoolLecturas(hilos=1, cola=0)
    app.state.lecturas = pool
    sigue = threading.Event()
    pool.enviar(sigue.wait, 30)  # the only reader, busy with another photo
    cuerpo, cabeceras = _multipart(jpeg_bomba() + b"\0" * 200_000)
    leidos: list[int] = []

    async def trozos() -> AsyncIterator[bytes]:
        for i in range(0, len(cuerpo), 16_384):
            leidos.append(i)
            yield cuerpo[i : i + 16_384]

    async def enviar() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
            return await c.post("/api/leer", content=trozos(), headers=cabeceras)

    try:
        r = asyncio.run(enviar())
        assert leidos == []  # refused before a byte of the photo was read
        assert r.status_code == 503 and r.headers["retry-after"] == "2", r.text
        sigue.set()
        assert pool._plazas.acquire(timeout=30)  # the reader's place comes back when its reading ends
        pool._plazas.release()
        r = asyncio.run(enviar())  # room again: the same photo is read (and refused for its pixels)
        assert r.status_code == 413 and leidos
    finally:
        sigue.set()
        pool.cerrar()


def test_a_slow_photo_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import server.cuerpo

    monkeypatch.setattr(server.cuerpo, "PAUSA_CUERPO_S", 0.3)
    app = _app(tmp_path)
    cuerpo, cabeceras = _multipart(jpeg_bomba())

    async def trozos() -> AsyncIterator[bytes]:
        yield cuerpo[:100]
        await asyncio.wait_for(asyncio.Event().wait(), 30)  # a client that stops sending
        yield cuerpo[100:]

    async def enviar() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
            return await c.post("/api/leer?lang=en", content=trozos(), headers=cabeceras)

    r = asyncio.run(enviar())
    assert r.status_code == 408
    assert r.json() == {"error": "the photo is taking too long to arrive: send it again"}


def test_a_photo_is_never_written_to_a_temporary_file(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    escritos: list[str] = []
    original = tempfile.SpooledTemporaryFile.rollover

    def rollover(self: Any) -> None:
        escritos.append("rollover")
        original(self)

    monkeypatch.setattr(tempfile.SpooledTemporaryFile, "rollover", rollover)
    grande = b"not a photo" + b"\0" * (3 * 1024 * 1024)  # over Starlette's 1 MiB spool
    clave = _partida(web)
    r = web.post("/api/leer", files={"foto": ("mesa.jpg", grande, "image/jpeg")})
    r4 = web.post(
        f"/api/partidas/{clave}/baraja",
        files={p: (f"{p}.jpg", grande, "image/jpeg") for p in ("oros", "copas", "espadas", "bastos")},
    )
    assert escritos == []
    assert r.status_code == r4.status_code == 415, (r.text, r4.text)


def test_a_form_that_is_not_multipart_or_has_too_many_parts_is_one_line(web: Any) -> None:
    r = web.post("/api/leer", content=b"foto=x", headers={"Content-Type": "text/plain"})
    assert r.status_code == 422 and r.json() == {"error": "no ha llegado ninguna foto"}
    muchos = {f"f{i}": (f"{i}.jpg", b"x", "image/jpeg") for i in range(12)}
    r = web.post("/api/leer", files=muchos)
    assert r.status_code == 422 and r.json() == {"error": "no ha llegado ninguna foto"}


# -- slow headers ---------------------------------------------------------------------------------


def test_slow_headers_are_cut_off() -> None:
    import uvicorn

    from server.conexiones import ProtocoloH11

    class Rapido(ProtocoloH11):
        plazo_cabeceras = 0.5

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    puerto = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, http=Rapido, log_level="error", lifespan="off"))
    hilo = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    hilo.start()
    try:
        with httpx.Client(timeout=30) as c:  # waits until the server answers
            for _ in range(300):
                try:
                    assert c.get(f"http://127.0.0.1:{puerto}/").text == "ok"  # a whole request is answered
                    break
                except httpx.ConnectError:
                    threading.Event().wait(0.05)
        with socket.create_connection(("127.0.0.1", puerto), timeout=30) as lento:
            lento.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
            assert lento.recv(100) == b""  # closed by the server (a timeout here: held open)
    finally:
        server.should_exit = True
        hilo.join(10)


# -- forms and origins (server.seguridad) -------------------------------------------------------------


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[Servidor]:
    s = Servidor(f"sqlite:///{tmp_path / 't.sqlite3'}")
    with s.sesion() as db:
        auth.crear_cuenta(db, "ana", CLAVE, "organizador")
    yield s
    s.engine.dispose()


def _navegador(srv: Servidor) -> tuple[Any, int, str]:
    """A browser logged in on the login page, with a tournament made from its page."""
    c = ClienteWeb(srv.app, follow_redirects=False)
    assert COOKIE_CSRF in c.get("/entrar").cookies  # the page with the form gives the token
    assert c.post("/entrar", data={"usuario": "ana", "clave": CLAVE}).status_code == 303
    r = c.post("/torneos", data={"nombre": "Club", "parejas": "A: a, b\nB: c, d", "mesas": "1"})
    assert r.status_code == 303, r.text
    return c, int(r.headers["location"].split("?")[0].rsplit("/", 1)[1]), str(c.cookies[COOKIE_CSRF])


def _rondas(srv: Servidor, tid: int) -> int:
    from server.modelos.torneo import Ronda

    with srv.sesion() as db:
        return db.query(Ronda).filter_by(torneo_id=tid).count()


def test_every_form_of_the_pages_carries_the_token(srv: Servidor) -> None:
    import re

    c, tid, token = _navegador(srv)
    for ruta in ("/torneos", f"/torneos/{tid}", f"/torneos/{tid}/miembros", "/cuenta"):
        html = c.get(ruta).text
        formularios = re.findall(r"<form[^>]*method=\"post\"[^>]*>(.*?)</form>", html, re.S)
        assert formularios, ruta
        for f in formularios:
            assert f'<input type="hidden" name="csrf" value="{token}">' in f, (ruta, f)


def test_a_form_from_another_site_is_refused(srv: Servidor) -> None:
    c, tid, token = _navegador(srv)
    ruta = f"/torneos/{tid}/rondas?lang=en"
    for origen in ("http://evil.example", "http://testserver:8001", "http://mus.testserver", "null"):
        r = c.post(ruta, data={"csrf": token}, headers={"Origin": origen})
        assert r.status_code == 403 and "does not come from a page of this server" in r.text, origen
    r = c.post(ruta, data={"csrf": token}, headers={"Referer": "http://evil.example/x"})
    assert r.status_code == 403
    # no Origin and no Referer, with the login cookie: refused as well
    sin = httpx.Request("POST", "http://testserver" + ruta, data={"csrf": token}, cookies=c.cookies)
    assert c.send(sin).status_code == 403
    # the right origin but no token (or another one): the form did not come from our page
    assert c.post(ruta, data={"csrf": "x" * 43}, headers={"Origin": "http://testserver"}).status_code == 403
    assert (
        c.post(
            ruta,
            content=b"",
            headers={"Origin": "http://testserver", "Content-Type": "application/x-www-form-urlencoded"},
        ).status_code
        == 403
    )
    assert _rondas(srv, tid) == 0
    # this server's own page: its Origin (or Referer) and its token
    assert (
        c.post(ruta, data={"csrf": token}, headers={"Referer": f"http://testserver/torneos/{tid}"}).status_code == 303
    )
    assert _rondas(srv, tid) == 1


def test_the_json_api_takes_only_json_and_the_cookie_only_from_this_site(srv: Servidor) -> None:
    c, _, _ = _navegador(srv)
    cuerpo = b'{"nombre": "Otro", "parejas": [], "mesas": 1}'
    r = c.post("/api/torneos", content=cuerpo, headers={"Content-Type": "text/plain", "Origin": "http://evil.example"})
    assert r.status_code == 403
    r = c.post("/api/torneos?lang=en", content=cuerpo, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json() == {"error": "the body must be JSON (Content-Type: application/json)"}
    r = c.post("/api/torneos", content=cuerpo, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 403  # a form without the token
    from server.modelos.torneo import Torneo

    with srv.sesion() as db:
        assert [t.nombre for t in db.query(Torneo)] == ["Club"]


def test_a_bearer_token_needs_no_origin(srv: Servidor) -> None:
    c, tid, _ = _navegador(srv)
    plain = httpx.Client(transport=c._transport, base_url="http://testserver")  # a tablet: no cookie, no Origin
    token = plain.post("/api/sesion", json={"usuario": "ana", "clave": CLAVE}).json()["token"]
    r = plain.post(f"/api/torneos/{tid}/rondas", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text


def test_the_phone_pages_forms_need_their_token(web: Any) -> None:
    import re

    html = web.get("/nueva").text
    token = re.search(r'name="csrf" value="([^"]+)"', html)
    assert token and web.cookies[COOKIE_CSRF] == token[1]
    r = web.post("/nueva?lang=en", data={"jugador0": "Ana", "csrf": "y" * 43})
    assert r.status_code == 403 and "the form has expired" in r.text and "<html" in r.text
    nombres = {f"jugador{i}": n for i, n in enumerate(("Ana", "Bea", "Carlos", "Dani"))}
    r = web.post("/nueva", data=nombres, follow_redirects=False)
    assert r.status_code == 303, r.text


def test_a_refused_form_gives_the_browser_a_token_for_the_next_try(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    c = TestClient(_app(tmp_path))  # a browser whose cookie went (or a forged post)
    r = c.post("/nueva", data={"jugador0": "Ana"}, headers={"Origin": "http://testserver"})
    assert r.status_code == 403
    nuevo = c.cookies[COOKIE_CSRF]
    assert "max-age=2592000" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
    r = c.post("/nueva", data={"jugador0": "Ana", "csrf": nuevo}, headers={"Origin": "http://testserver"})
    assert r.status_code != 403
