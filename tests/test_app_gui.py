"""The real app in a real window: simulated touches, assertions on the marcador and the database.

Run headless with:
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python -m pytest tests/test_app_gui.py
Skipped (with the reason) where there is no display.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ventana_kivy import MARCAS, captura, esperar, frames, tap

pytest.importorskip("kivy")
pytestmark = MARCAS

ROOT = Path(__file__).resolve().parents[1]
JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
MANOS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
SOLO_P1_PARES = ["1o 4c 5e 6b", "7o 7c 2e 4b", "1c 5c 6e 10b", "2o 4e 5b 6o"]


def start_partida(app: Any, mano: int = 0) -> None:
    nueva = app.sm.get_screen("nueva")
    nueva.poner_nombres(JUGADORES)
    tap(nueva.ids[f"m{mano}"])
    tap(nueva.ids.empezar)
    assert app.sm.current == "marcador"


def enter_cards(app: Any, manos: list[str]) -> None:
    mano = app.sm.get_screen("mano")
    tap(mano.ids.escribir)
    for text in manos:
        for card in text.split():
            tap(mano.selector.chips[card])
    frames(5)
    assert app.entrada.cartas == manos


def test_hand_by_touch_updates_marcador_and_database(app: Any) -> None:
    from scoring.tanteo import tantear

    start_partida(app, mano=1)
    marcador = app.sm.get_screen("marcador")
    tap(marcador.ids.nueva_mano)
    assert app.sm.current == "mano"
    enter_cards(app, MANOS)
    mano = app.sm.get_screen("mano")
    tap(mano.filas["chica"].opcion["no_quiero"])  # 4 taps for the lances of this hand
    tap(mano.filas["chica"].chips["g1"])
    tap(mano.filas["pares"].opcion["envite"])
    tap(mano.filas["pares"].chips["i5"])
    tap(mano.ids.tantear)
    assert app.sm.current == "tanteo"
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    assert app.sm.current == "marcador"

    lances = {"chica": {"no_quiero": 1, "gana": 1}, "pares": {"quiero": 5}}
    expected = tantear({"mano": 1, "manos": MANOS, "lances": lances})
    assert (marcador.ids.p0.tantos, marcador.ids.p1.tantos) == expected.marcador
    assert marcador.mano == "Carlos"  # the mano moved on to the next seat
    stored = app.almacen.manos(app.ctl.partida_id)
    assert len(stored) == 1 and stored[0]["registro"]["lances"] == lances
    assert stored[0]["registro"]["mano"] == 1

    tap(marcador.ids.deshacer)  # the first tap only asks
    assert marcador.ids.p1.tantos == expected.marcador[1] and marcador.confirmar_deshacer
    tap(marcador.ids.deshacer)
    assert (marcador.ids.p0.tantos, marcador.ids.p1.tantos) == (0, 0)
    assert app.almacen.manos(app.ctl.partida_id) == []


def test_nueva_partida_refuses_repeated_names(app: Any) -> None:
    nueva = app.sm.get_screen("nueva")
    nueva.poner_nombres(["Ana", "Bea", "Ana", "Dani"])
    tap(nueva.ids.empezar)
    assert app.sm.current == "nueva" and app.aviso_error and "distintos" in app.aviso
    assert app.almacen.partidas() == []


def test_lance_that_cannot_be_bet_ignores_taps(app: Any) -> None:
    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    enter_cards(app, SOLO_P1_PARES)
    fila = app.sm.get_screen("mano").filas["pares"]
    assert fila.opcion["envite"].disabled
    tap(fila.opcion["envite"])
    assert app.entrada.lances() == {}
    assert "Bea y Dani" in app.sm.get_screen("mano").motivos["pares"]


def test_mus_corrido_lets_the_first_hand_change_mano_only(app: Any) -> None:
    start_partida(app)
    marcador, mano = app.sm.get_screen("marcador"), app.sm.get_screen("mano")
    tap(marcador.ids.nueva_mano)
    tap(mano.botones_mano[2])  # all asked for mus twice: Carlos is mano when the mus is cut
    assert app.entrada.mano == 2
    enter_cards(app, MANOS)
    tap(mano.ids.tantear)
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    assert app.almacen.manos(app.ctl.partida_id)[0]["registro"]["mano"] == 2
    assert marcador.mano == "Dani"
    tap(marcador.ids.nueva_mano)
    tap(mano.botones_mano[0])
    assert app.entrada.mano == 3 and app.aviso_error and "mus corrido" in app.aviso


def test_full_disk_keeps_the_hand_on_screen(app: Any) -> None:
    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    enter_cards(app, MANOS)
    tap(app.sm.get_screen("mano").ids.tantear)
    db = app.almacen.conn
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")
    for _ in range(200):  # use up the free space of the hands' page
        try:
            app.almacen.guardar_mano(app.ctl.partida_id + 1000, {"x": "y" * 500}, {})
        except Exception:
            break
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    assert app.sm.current == "tanteo" and app.aviso_error and "lleno" in app.aviso
    assert app.entrada is not None and app.entrada.cartas == MANOS  # nothing lost
    assert app.ctl.partida.tantos == (0, 0)
    db.execute("PRAGMA max_page_count=1073741823")
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    assert app.sm.current == "marcador"
    assert len(app.almacen.manos(app.ctl.partida_id)) == 1


def test_bad_photo_and_camera_loss_show_messages(app: Any, tmp_path: Path) -> None:
    from app.camera import FuenteVideo

    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    assert app.sm.current == "cartas"
    bad = tmp_path / "mesa.jpg"
    bad.write_bytes(b"esto no es una foto")
    assert not cartas.cargar_foto(bad)
    assert app.aviso_error and "no es una imagen" in app.aviso
    assert not cartas.listas and app.sm.current == "cartas"
    app.camara = "97"  # no such camera
    tap(cartas.ids.camara)
    assert not cartas.en_vivo and "cámara 97" in app.aviso

    class Desenchufada(FuenteVideo):  # a camera that stops answering after two frames
        def __init__(self) -> None:
            self.n, self.error = 0, ""

        def leer(self) -> tuple[float, np.ndarray] | None:
            self.n += 1
            if self.n > 2:
                self.error = "la cámara 0 dejó de responder (¿desconectada?)"
                return None
            return self.n / 10, np.full((48, 64, 3), 90, np.uint8)

    cartas.preview.empezar(Desenchufada())
    cartas.en_vivo = True
    deadline = time.monotonic() + 10
    while cartas.en_vivo and time.monotonic() < deadline:
        frames(2)
    assert not cartas.en_vivo and "desconectada" in cartas.estado
    tap(cartas.ids.volver)
    assert app.sm.current == "mano"


def test_live_camera_frames_are_processed_in_a_worker_thread(app: Any) -> None:
    import threading

    from kivy.uix.image import Image

    from app.camera import Camara, Preview

    class CamaraFalsa(Camara):  # 30 frames, then unplugged
        def __init__(self) -> None:
            self.indice, self.error, self.n = 0, "", 0

        def leer(self) -> tuple[float, np.ndarray] | None:
            self.n += 1
            if self.n > 30:
                self.error = "desconectada"
                return None
            return self.n / 30, np.zeros((48, 64, 3), np.uint8)

        def cerrar(self) -> None:
            pass

    hilos: set[str] = set()
    aplicados: list[tuple[bool, float]] = []

    def procesar(t: float, frame: np.ndarray) -> float:
        time.sleep(0.15)  # as slow as face + pose landmarks on a small CPU
        hilos.add(threading.current_thread().name)
        return t

    def aplicar(t: float, frame: np.ndarray, res: float) -> None:
        aplicados.append((threading.current_thread() is threading.main_thread(), res))

    errores: list[str] = []
    preview = Preview(Image(), procesar, aplicar, al_error=errores.append, fps=30)
    preview.empezar(CamaraFalsa())
    esperar(lambda: bool(errores), 20)
    assert errores == ["desconectada"]
    assert hilos and all(h.startswith("musmesa-preview") for h in hilos)
    assert aplicados and all(main for main, _ in aplicados)
    assert len(aplicados) < 30  # frames that came while busy were shown, not processed


def test_reading_screen_corrects_a_card_and_fills_the_hand(app: Any) -> None:
    """The screen's side of reading (model apart): show a reading, correct one doubtful card
    with two taps, use the hands, score the hand; the correction and origin are stored."""
    from vision.detections import CardDetections

    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    read = [h.split() for h in MANOS]
    read[1][1] = "2b"  # the reader mistook Bea's 3c for a 2b, with low confidence
    data = {
        "cartas": [
            {
                "carta": c,
                "confianza": 0.4 if c == "2b" else 0.97,
                "caja": [40 * i, 40 * s, 40 * i + 30, 40 * s + 38],
                "asiento": s,
            }
            for s, hand in enumerate(read)
            for i, c in enumerate(hand)
        ],
        "asientos": read,
        "avisos": [],
    }
    cartas.foto = np.full((200, 200, 3), 60, np.uint8)
    cartas.lectura = CardDetections.from_json(data)
    cartas.dibujar()
    frames(2)
    doubtful = [chip for chip in cartas.chips if chip.dudosa]
    assert len(doubtful) == 1 and doubtful[0].carta == "2b"
    # the count with its word in the right number, the card named as the phone pages name it
    assert cartas.resumen == "16 cartas · 1 dudosa (naranja): tócala para corregirla"
    assert doubtful[0].text == "2\n[size=15sp]bastos[/size]"
    tap(doubtful[0])
    tap(cartas.selector.chips["3c"])
    assert not any(chip.dudosa for chip in cartas.chips)
    (corr,) = app.almacen.correcciones(app.ctl.partida_id)
    assert (corr["asiento"], corr["antes"], corr["despues"]) == (1, "2b", "3c")
    tap(cartas.ids.usar)
    assert app.sm.current == "mano" and app.entrada.cartas == MANOS
    tap(app.sm.get_screen("mano").ids.tantear)
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    (stored,) = app.almacen.manos(app.ctl.partida_id)
    assert stored["origen"] == "camara" and stored["registro"]["manos"] == MANOS


def test_reading_the_example_photo_shows_what_vision_reads(app: Any) -> None:
    """The screen shows the shipped reader's result for the bundled photo, card for card
    (how well the model reads is vision's own test)."""
    from app.demo import foto_ejemplo

    photo = foto_ejemplo()
    if photo is None:
        pytest.skip("no example photo in examples/ yet")
    pytest.importorskip("onnxruntime")
    from mesa.lectura import leer_foto, manos

    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    if not cartas.cargar_foto(photo):
        pytest.fail(f"the example photo could not be read: {app.aviso}")
    frames(3)  # lay out the new chips before touching them
    expected = leer_foto(cv2_imread(photo))
    assert cartas.lectura.ids == expected.ids
    assert [chip.carta for chip in cartas.chips] == expected.ids
    assert cartas.listas == (manos(expected) is not None)
    assert " · ".join(expected.warnings) == cartas.estado or not expected.warnings
    if not cartas.listas:
        return  # no seats: the screen offers corrections and the manual path only
    tap(cartas.chips[0])
    tap(cartas.selector.chips[cartas.lectura.ids[0]])  # confirm the card
    assert app.almacen.correcciones(app.ctl.partida_id)
    tap(cartas.ids.usar)
    assert app.sm.current == "mano" and app.entrada.cartas == manos(expected)


def cv2_imread(path: Path) -> np.ndarray:
    from app.camera import cargar_imagen

    return cargar_imagen(path)


def test_language_switch_retranslates(app: Any) -> None:
    start_partida(app)
    marcador = app.sm.get_screen("marcador")
    tap(marcador.ids.ajustes)
    ajustes = app.sm.get_screen("ajustes")
    english = next(b for b in ajustes.ids.idiomas.children if b.valor == "en")
    tap(english)
    tap(ajustes.ids.volver)
    assert app.sm.current == "marcador" and marcador.ids.nueva_mano.text == "New hand"
    assert marcador.ids.p0.nombre == f"{JUGADORES[0]} and {JUGADORES[2]}"  # the controller's too
    assert app.almacen.ajuste("idioma") == "en"


def test_senas_trainer_and_referee_on_the_bundled_clip(app: Any) -> None:
    pytest.importorskip("mediapipe")
    from app.camera import Video
    from scoring.registro import FORMATO, verificar

    clip = ROOT / "app" / "assets" / "senas_demo.mp4"  # wink, then bitten lip (synthetic)
    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.senas)
    senas = app.sm.get_screen("senas")
    senas.poner_mano("12o 12c 7e 4b")  # pareja de reyes and 31: dos reyes + treinta y una
    assert senas.usar_fuente(Video(clip)), app.aviso
    esperar(lambda: not senas.en_vivo, 180)
    assert [e["gesto"] for e in senas.eventos] == ["guino", "labio_mordido"]
    tap(senas.ids.comprobar)
    assert senas.veredicto.startswith("¡Bien!")
    tap(senas.ids.volver)

    tap(app.sm.get_screen("marcador").ids.arbitro)
    arb = app.sm.get_screen("arbitro")
    tap(arb.ids.jugadores.children[::-1][1])  # watch Bea
    tap(arb.fase_botones["reparto"])
    assert arb.usar_fuente(Video(clip))
    esperar(lambda: arb.t > 1.0, 60)
    tap(arb.fase_botones["lances"])
    esperar(lambda: not arb.en_vivo, 180)
    tap(arb.ids.elegir_cartas)
    for card in ("12o", "12c", "7e", "4b"):
        tap(arb.selector.chips[card])
    assert arb.cartas == "12o 12c 7e 4b"
    tap(arb.ids.comprobar)
    assert arb.hallazgos.startswith("Sin faltas")
    entradas = app.almacen.arbitraje(app.ctl.partida_id)
    assert [e["tipo"] for e in entradas].count("sena") == 2
    assert verificar(
        {"formato": FORMATO, "algoritmo": "sha256", "entradas": entradas, "sello": entradas[-1]["hash"]}
    ).valido


DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from app.launcher import configure_kivy
    configure_kivy(1280, 800)
    from app.demo import MANO_1, MANO_2, Demo, tocar
    from app.main import MusApp

    class Guion(Demo):
        def guion(self):
            yield 0.5
            nueva = self.pantalla("nueva")
            nueva.poner_nombres(["Ana", "Bea", "Carlos", "Dani"])
            tocar(nueva.ids.empezar)
            yield 0.3
            marcador, mano = self.pantalla("marcador"), self.pantalla("mano")
            for manos in (MANO_1, MANO_2):
                tocar(marcador.ids.nueva_mano)
                yield 0.3
                yield from self.tocar_cartas(manos)
                yield 0.2
                tocar(mano.ids.tantear)
                yield 0.3
                tocar(self.pantalla("tanteo").ids.confirmar)
                yield 0.3
            tocar(marcador.ids.nueva_mano)  # a third hand, half entered when the kill comes
            yield 0.3
            tocar(mano.ids.escribir)
            yield 0.3
            for card in ("1o", "2o", "3o"):
                tocar(mano.selector.chips[card])
                yield 0.05
            Path(sys.argv[2]).write_text("listo")
            while True:
                yield 1.0

    MusApp(datos=sys.argv[1], demo=Guion(None)).run()
""")


def test_kill_mid_partida_and_resume(app: Any, tmp_path: Path) -> None:
    from app.demo import MANO_1, MANO_2
    from scoring.partida import Partida

    datos, listo = tmp_path / "kill", tmp_path / "listo"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp_path / "kivy")}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(datos), str(listo)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not listo.exists():
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the driven app never got to the third hand"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)  # no clean shutdown, mid-hand
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()

    expected = Partida("general", JUGADORES, 0)  # both hands were played en paso
    for manos in (MANO_1, MANO_2):
        expected.registrar(manos, {})
    app.cambiar_datos(str(datos))
    frames(5)
    assert app.sm.current == "marcador"
    marcador = app.sm.get_screen("marcador")
    assert (marcador.ids.p0.tantos, marcador.ids.p1.tantos) == expected.tantos
    assert marcador.mano == JUGADORES[expected.mano]
    assert len(app.almacen.manos(app.ctl.partida_id)) == 2  # the half-entered hand is lost


@pytest.mark.slow
def test_demo_writes_a_screenshot_of_every_screen(tmp_path: Path) -> None:
    caps = tmp_path / "capturas"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp_path / "kivy")}
    done = subprocess.run(
        [sys.executable, "-m", "musmesa", "app", "--demo", "--capturas", str(caps)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    names = sorted(p.name for p in caps.glob("*.png"))
    for screen in ("nueva_partida", "marcador", "mano", "tanteo", "leer_cartas", "senas", "arbitro", "ajustes"):
        assert any(screen in n for n in names), (screen, names)


def test_registering_the_own_deck_in_ajustes_and_reading_against_it(app: Any, tmp_path: Path) -> None:
    """Ajustes registers the deck from the folder of the four example photos; the reading
    screen then reads against it; a wrong folder is a message and changes nothing."""
    pytest.importorskip("onnxruntime")
    fotos = ROOT / "examples" / "baraja"
    if not (fotos / "oros.jpg").is_file():
        pytest.skip("no registration photos in examples/baraja")
    start_partida(app)
    tap(app.sm.get_screen("marcador").ids.ajustes)
    ajustes = app.sm.get_screen("ajustes")
    ajustes.ids.baraja.text = str(tmp_path / "no-existe")
    tap(ajustes.ids.usar_baraja)
    assert app.baraja == "" and app.aviso_error and "no existe" in app.aviso
    app.cerrar_aviso()
    ajustes.ids.baraja.text = str(fotos)
    tap(ajustes.ids.usar_baraja)
    assert app.baraja == str(Path(app.carpeta) / "baraja.npz"), app.aviso
    assert Path(app.baraja).is_file() and app.almacen.ajuste("baraja", "") == app.baraja
    assert "40 cartas" in ajustes.estado_baraja
    app.cerrar_aviso()
    tap(ajustes.ids.volver)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    assert cartas.cargar_foto(ROOT / "examples" / "mesa.jpg"), app.aviso
    from mesa.lectura import SIN_BARAJA, baraja_de, leer_foto

    expected = leer_foto(cv2_imread(ROOT / "examples" / "mesa.jpg"), app.baraja)
    assert cartas.lectura.ids == expected.ids
    # the cards confirmed (Usar estas cartas) strengthen the deck in a worker thread
    from vision.registered_deck import RegisteredDeck

    assert RegisteredDeck.load(app.baraja).extra_count == 0
    tap(cartas.ids.usar)
    assert app.sm.current == "mano"
    esperar(lambda: RegisteredDeck.load(app.baraja).extra_count > 0, 30)
    assert RegisteredDeck.load(app.baraja).extra_count > 0
    app.ir("ajustes")
    frames(2)
    tap(ajustes.ids.baraja_general)
    # the general model, even with the deck still in the data folder
    assert app.baraja == SIN_BARAJA and app.almacen.ajuste("baraja", "x") == SIN_BARAJA
    assert baraja_de(app.baraja, app.carpeta) is None
    assert ajustes.estado_baraja == "Baraja: el modelo general"


# -- the data folder: damage, no writing, the demo on a folder in use -------------------------


def test_damaged_database_opens_with_a_message(app: Any, tmp_path: Path) -> None:
    from test_app_storage import partida_danada

    carpeta, pid = partida_danada(tmp_path / "danada", con_copia=False)
    app.cambiar_datos(str(carpeta))  # a crash at every start before: "disk image is malformed"
    frames(5)
    assert app.sm.current == "marcador" and app.ctl.partida_id == pid
    assert app.aviso_error and "dañado" in app.aviso and "guardado aparte" in app.aviso
    assert not app.problema_datos  # recovered: it saves again
    captura("datos-danados")
    assert app._aviso_ev is None  # the message waits for OK, it does not fade
    tap(app.root.ids.aviso_ok)
    assert app.aviso == ""


def test_unwritable_folder_is_a_bar_on_every_screen(app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_app_storage import jugar, sin_escritura

    carpeta = tmp_path / "solo-lectura"
    ctl = jugar(carpeta, n=2)
    tantos = ctl.partida.tantos
    ctl.almacen.cerrar()
    sin_escritura(monkeypatch, carpeta)
    app.cambiar_datos(str(carpeta))
    frames(5)
    assert app.sm.current == "marcador"  # the saved partida, still readable
    marcador = app.sm.get_screen("marcador")
    assert (marcador.ids.p0.tantos, marcador.ids.p1.tantos) == tantos
    barra = app.root.ids.barra_datos
    assert "No se guarda nada" in app.problema_datos and "unable to open" not in app.problema_datos
    captura("datos-sin-escritura")
    app.cerrar_aviso()  # what the banner's timer does: the bar stays
    for screen in ("marcador", "mano", "nueva"):
        app.ir(screen)
        frames(3)
        assert barra.height > 0 and barra.opacity == 1, screen
        assert barra.top <= app.root.top and barra.y >= app.sm.top - 1  # above, not over
    tap(app.root.ids.elegir_carpeta)  # one tap to where the folder is chosen
    assert app.sm.current == "ajustes"
    captura("datos-sin-escritura-ajustes")
    ajustes = app.sm.get_screen("ajustes")
    ajustes.ids.carpeta.text = str(tmp_path / "otra")
    tap(ajustes.ids.aplicar_carpeta)
    frames(3)
    assert app.problema_datos == "" and barra.height == 0 and app.almacen.guarda


def test_demo_starts_from_a_folder_with_an_open_partida(app: Any) -> None:
    from app.demo import Demo

    start_partida(app)
    old = app.ctl.partida_id
    app.cambiar_datos(app.carpeta)  # as on starting there: the open partida is resumed
    frames(3)
    assert app.sm.current == "marcador"
    demo = Demo(None)
    demo.app = app
    steps = demo.guion()
    for _ in range(40):  # up to the demo's own partida on its marcador
        next(steps)
        frames(2)
        if app.ctl.partida_id != old and app.sm.current == "marcador":
            break
    assert app.ctl.partida_id != old and app.ctl.info["jugadores"] == JUGADORES
    assert app.sm.current == "marcador"
