"""`mus app --demo --capturas DIR`: a scripted partida played through the real UI.

Every action is a simulated touch on the real widgets (the same path a finger takes), and a
screenshot of each screen goes into DIR. The tests use the same touch driver.
"""

from __future__ import annotations

import json
import shutil
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.input.motionevent import MotionEvent

from app.camera import Video, cargar_imagen
from mesa.asientos import fotos_por_asiento

ASSETS = Path(__file__).resolve().parent / "assets"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Demo hands (seats 0-3 in speaking order) and lance outcomes, as a table would play them.
MANO_1 = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
MANO_2 = ["5o 6o 7c 4e", "12e 11c 10o 2b", "1c 6c 7e 5b", "12b 10c 4o 3b"]
MANO_SENAS = "12o 12c 7e 4b"  # pareja de reyes and 31: dos reyes + treinta y una


class Toque(MotionEvent):
    """A finger touch at window coordinates (x, y)."""

    def __init__(self, x: float, y: float) -> None:
        win = EventLoop.window
        super().__init__(
            "musmesa-demo",
            id(self),
            {"x": x / max(1, win.width - 1), "y": y / max(1, win.height - 1)},
            is_touch=True,
            type_id="touch",
        )
        self.profile = ["pos"]

    def depack(self, args: dict[str, float]) -> None:
        self.sx, self.sy = args["x"], args["y"]
        self.profile = ["pos"]
        super().depack(args)


def tocar(widget: Any) -> None:
    """Press and release a finger on the widget's centre, through the window's event loop."""
    if widget.get_root_window() is None:
        raise RuntimeError(f"{widget!r} is not on screen")
    x, y = widget.to_window(*widget.center)
    t = Toque(x, y)
    EventLoop.post_dispatch_input("begin", t)
    EventLoop.post_dispatch_input("end", t)


def captura(path: Path) -> Path:
    """Screenshot of the whole window (call after a redraw) to exactly ``path``."""
    written = Window.screenshot(name=str(path.with_suffix("")) + ".png")
    if written and Path(written) != path:
        shutil.move(written, path)
    return path


def foto_ejemplo() -> Path | None:
    """The bundled table photo (training.cards.examples writes examples/mesa.jpg), else any image."""
    if (EXAMPLES / "mesa.jpg").is_file():
        return EXAMPLES / "mesa.jpg"
    for ext in ("jpg", "jpeg", "png"):
        found = sorted(EXAMPLES.glob(f"*.{ext}")) if EXAMPLES.is_dir() else []
        if found:
            return found[0]
    return None


class Hasta(NamedTuple):
    """A step of the script that waits until ``cond()`` holds, ``timeout`` seconds at most."""

    cond: Callable[[], bool]
    timeout: float


Paso = float | Hasta  # seconds to wait before the next step, or a wait for a condition


class Demo:
    """Runs :meth:`guion` step by step on the Kivy clock; ``estado`` is the exit status."""

    def __init__(self, capturas: Path | None, foto: Path | None = None, video: Path | None = None) -> None:
        self.capturas = capturas
        self.foto = foto or foto_ejemplo()
        self.video = video or ASSETS / "senas_demo.mp4"
        self.estado = 0
        self.hechas: list[Path] = []
        self.app: Any = None
        self._gen: Iterator[Paso] | None = None
        self._n = 0

    def start(self, app: Any) -> None:
        self.app = app
        self._gen = self.guion()
        Clock.schedule_once(self._siguiente, 0)

    def _siguiente(self, _dt: float = 0) -> None:
        if self._gen is None:  # start() makes the script
            return
        try:
            step = next(self._gen)
        except StopIteration:
            self.app.stop()
            return
        except Exception:
            traceback.print_exc()
            self.estado = 1
            self.app.stop()
            return
        if isinstance(step, Hasta):
            self._esperar(step.cond, step.timeout)
        else:
            Clock.schedule_once(self._siguiente, float(step))

    def _esperar(self, cond: Callable[[], bool], timeout: float) -> None:
        deadline = Clock.get_time() + timeout

        def poll(_dt: float) -> None:
            if cond() or Clock.get_time() > deadline:
                Clock.schedule_once(self._siguiente, 0.1)
            else:
                Clock.schedule_once(poll, 0.2)

        poll(0)

    # -- helpers used by the script -----------------------------------------------------
    def pantalla(self, name: str) -> Any:
        return self.app.sm.get_screen(name)

    def capturar(self, name: str) -> Iterator[Paso]:
        """Redraw, then screenshot into DIR/NN_name.png."""
        Window.canvas.ask_update()
        yield 0.25
        Window.canvas.ask_update()
        yield 0.1
        if self.capturas is not None:
            self._n += 1
            self.hechas.append(captura(self.capturas / f"{self._n:02d}_{name}.png"))

    def tocar_cartas(self, manos: list[str]) -> Iterator[Paso]:
        """Open the 40-card grid and tap the sixteen cards, seat by seat."""
        mano = self.pantalla("mano")
        tocar(mano.ids.escribir)
        yield 0.3
        for seat, text in enumerate(manos):
            for card in text.split():
                tocar(mano.selector.chips[card])
                yield 0.05
            if seat == 1 and self._n < 4:
                yield from self.capturar("cartas_a_mano")

    def verdad(self) -> list[str] | None:
        """The true hands of a generated photo (the JSON training.cards.examples writes beside it)."""
        if self.foto is None:
            return None
        try:
            data = json.loads(self.foto.with_suffix(".json").read_text(encoding="utf-8"))
            return [str(h) for h in data["manos"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def corregir_lectura(self, cartas: Any) -> Iterator[Paso]:
        """Correct what the reader got wrong, as a player would: tap the card, tap the right
        one. Without the true hands, check the least sure card (tap it, confirm it)."""
        lec, truth = cartas.lectura, self.verdad()
        fixes: list[tuple[int, str]] = []
        if truth and lec.hands:
            for seat in range(4):
                idxs = [int(i) for i in np.flatnonzero(lec.seat == seat)]
                wrong = [i for i in idxs if lec.card_ids[i] not in truth[seat].split()]
                missing = [c for c in truth[seat].split() if c not in set(lec.card_ids[idxs])]
                fixes += list(zip(wrong, missing, strict=False))
        if not fixes:
            i = int(np.argmin(lec.confidence))
            fixes = [(i, str(lec.card_ids[i]))]
        for n, (i, card) in enumerate(fixes[:4]):
            tocar(cartas.chips[i])
            yield 0.3
            if n == 0:
                yield from self.capturar("corregir_carta")
            tocar(cartas.selector.chips[card])
            yield 0.3

    # -- the script ------------------------------------------------------------------------
    def registrar_baraja(self, cartas: Any) -> Iterator[Paso]:
        """The offer after the first reading without a registered deck: the four suit photos
        (examples/baraja, as if taken with the camera inside the guide), checked one by one."""
        tocar(cartas.ids.registrar)
        yield 0.3
        baraja = self.pantalla("baraja")
        fotos = [EXAMPLES / "baraja" / f"{p}.jpg" for p in ("oros", "copas", "espadas", "bastos")]
        baraja.preview.mostrar(cargar_imagen(fotos[0]))
        yield 0.2
        yield from self.capturar("registrar_baraja")
        for foto in fotos:
            if not baraja.cargar_foto(foto):
                break
            yield 0.2
        if self.app.sm.current == "baraja":  # refused: back to the cards as they were
            tocar(baraja.ids.volver)
        yield 0.3
        self.app.cerrar_aviso()

    def asiento_por_asiento(self, cartas: Any) -> Iterator[Paso]:
        """The same table seat by seat: a photo of each player's cards (cut from the table
        photo), one with a card missing (refused, then taken again)."""
        img, mesa = cartas.foto, cartas.lectura
        buenas, mala = fotos_por_asiento(img, mesa), fotos_por_asiento(img, mesa, falta=2)[2]
        tocar(cartas.ids.modo)
        yield 0.2
        yield from self.capturar("leer_asiento_ayuda")
        for s, foto in enumerate(buenas):
            if s == 2:
                cartas.leer(mala)  # as a capture from the camera
                yield 0.3
                yield from self.capturar("leer_asiento_error")
                self.app.cerrar_aviso()
            cartas.leer(foto)
            yield 0.3
            if s == 1:
                yield from self.capturar("leer_asiento")
        yield from self.capturar("leer_asientos")

    def a_nueva_partida(self) -> Iterator[Paso]:
        """From the screen the app opened on (a saved partida resumed on the marcador, a
        message over it) to Nueva partida, by touch as a player would."""
        if self.app.aviso:
            tocar(self.app.root.ids.aviso_ok)
            yield 0.2
        if self.app.sm.current == "marcador":
            tocar(self.pantalla("marcador").ids.ajustes)
            yield 0.3
        if self.app.sm.current == "ajustes":
            tocar(self.pantalla("ajustes").ids.nueva)
            yield 0.3

    def guion(self) -> Iterator[Paso]:
        app = self.app
        yield 0.5
        yield from self.a_nueva_partida()
        nueva = self.pantalla("nueva")
        nueva.poner_nombres(["Ana", "Bea", "Carlos", "Dani"])  # typed on the keyboard
        tocar(nueva.ids.m0)
        yield from self.capturar("nueva_partida")
        tocar(nueva.ids.empezar)
        yield 0.3
        yield from self.capturar("marcador_inicio")

        # Hand 1, by hand: cards on the grid, chica no quiero (Bea y Dani), pares 5 querido.
        marcador = self.pantalla("marcador")
        tocar(marcador.ids.nueva_mano)
        yield 0.3
        yield from self.tocar_cartas(MANO_1)
        mano = self.pantalla("mano")
        yield 0.3
        tocar(mano.filas["chica"].opcion["no_quiero"])
        yield 0.1
        tocar(mano.filas["chica"].chips["g1"])
        yield 0.1
        tocar(mano.filas["pares"].opcion["envite"])
        yield 0.1
        tocar(mano.filas["pares"].chips["i5"])
        yield from self.capturar("mano")
        tocar(mano.ids.tantear)
        yield 0.3
        yield from self.capturar("tanteo")
        tocar(self.pantalla("tanteo").ids.confirmar)
        yield 0.3

        # Hand 2, by hand, everything en paso.
        tocar(marcador.ids.nueva_mano)
        yield 0.3
        yield from self.tocar_cartas(MANO_2)
        yield 0.2
        tocar(mano.ids.tantear)
        yield 0.3
        tocar(self.pantalla("tanteo").ids.confirmar)
        yield 0.3
        yield from self.capturar("marcador")

        # Hand 3, from the example photo, with one card checked by hand; órdago at grande.
        tocar(marcador.ids.nueva_mano)
        yield 0.3
        tocar(mano.ids.leer)
        yield 0.3
        cartas = self.pantalla("cartas")
        yield from self.capturar("leer_cartas_ayuda")  # the hint before any photo
        leida = self.foto is not None and cartas.cargar_foto(self.foto)  # the file chooser
        if self.foto is None:
            cartas.estado = "Demo: no hay foto de ejemplo en examples/; se escriben a mano"
        yield 0.3
        yield from self.capturar("leer_cartas")
        if leida and cartas.ofrecer_baraja and (EXAMPLES / "baraja" / "bastos.jpg").is_file():
            yield from self.registrar_baraja(cartas)
        if leida and cartas.lectura is not None and cartas.lectura.hands is not None:
            yield from self.asiento_por_asiento(cartas)
        if leida and cartas.lectura is not None and cartas.chips:
            yield from self.corregir_lectura(cartas)
        if cartas.listas:
            tocar(cartas.ids.usar)
        else:  # reading unavailable or incomplete: the manual path
            tocar(cartas.ids.volver)
            yield 0.3
            yield from self.tocar_cartas(["7o 7c 10e 11b", "1c 4c 5o 6b", "12c 11o 2e 3e", "4b 5e 6o 10b"])
        yield 0.3
        tocar(mano.filas["grande"].opcion["ordago"])
        yield 0.2
        tocar(mano.ids.tantear)
        yield 0.3
        yield from self.capturar("tanteo_ordago")
        tocar(self.pantalla("tanteo").ids.confirmar)
        yield 0.5
        yield from self.capturar("marcador_juego")

        # Señas trainer, fed from the bundled clip.
        tocar(marcador.ids.senas)
        yield 0.3
        senas = self.pantalla("senas")
        senas.poner_mano(MANO_SENAS)
        if self.video.exists() and senas.usar_fuente(Video(self.video)):
            yield Hasta(lambda: senas.preview.ultimo is not None and len(senas.eventos) >= 1, 60)
            yield from self.capturar("senas_en_vivo")
            yield Hasta(lambda: not senas.en_vivo, 90)
        tocar(senas.ids.comprobar)
        yield 0.3
        yield from self.capturar("senas")
        tocar(senas.ids.modo_libre)  # free mode: every seña seen, no dealt hand
        yield 0.2
        yield from self.capturar("senas_libre")
        tocar(senas.ids.modo_entrenar)
        tocar(senas.ids.volver)
        yield 0.3

        # Referee: watch Bea, mark phases, the same clip, check against her last cards.
        tocar(marcador.ids.arbitro)
        yield 0.3
        arb = self.pantalla("arbitro")
        tocar(arb.ids.jugadores.children[::-1][1])
        yield 0.1
        tocar(arb.fase_botones["reparto"])
        yield 0.1
        if self.video.exists() and arb.usar_fuente(Video(self.video)):
            yield Hasta(lambda: arb.t > 1.5, 60)
            tocar(arb.fase_botones["lances"])
            yield Hasta(lambda: not arb.en_vivo, 90)
        if arb.cartas:
            tocar(arb.ids.comprobar)
        yield 0.3
        yield from self.capturar("arbitro")
        tocar(arb.ids.exportar)
        tocar(arb.ids.volver)
        yield 0.3

        # Ajustes, then the marcador in English.
        tocar(self.pantalla("marcador").ids.deshacer)  # and undo the last hand (two taps)
        yield 0.2
        tocar(self.pantalla("marcador").ids.deshacer)
        yield 0.3
        tocar(app.root.ids.aviso_ok)  # read the message, close it
        tocar(self.pantalla("marcador").ids.ajustes)
        yield 0.3
        yield from self.capturar("ajustes")
        aj = self.pantalla("ajustes")
        en = next(b for b in aj.ids.idiomas.children if getattr(b, "valor", "") == "en")
        tocar(en)
        yield 0.2
        tocar(aj.ids.volver)
        yield 0.3
        yield from self.capturar("marcador_en")
        app.lang = "es"
