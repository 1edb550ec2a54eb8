"""The real app in a real window, for the GUI tests: the window opened once a module, a fresh
data folder each test, simulated taps, waits and screenshots.

Import it before anything imports Kivy (it sets Kivy's home and logging first); each GUI test
module sets ``pytestmark = MARCAS`` and takes the fixtures ``kapp`` and ``app`` of
tests/conftest.py, built with :func:`ventana` and :func:`limpia`.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="kivy-home-"))  # before Kivy loads
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")  # leave the root logger of this pytest alone

MARCAS = [
    pytest.mark.gui,
    pytest.mark.skipif(
        not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")),
        reason="no display: run under xvfb-run -a -s '-screen 0 1280x800x24'",
    ),
]


def frames(n: int = 3) -> None:
    """Run ``n`` turns of Kivy's event loop (layouts, clock callbacks, drawing)."""
    from kivy.base import EventLoop

    for _ in range(n):
        EventLoop.idle()


def tap(widget: Any, n: int = 2) -> None:
    """A simulated touch on ``widget``; ``n`` frames let layouts (a new popup) settle."""
    from app.demo import tocar

    tocar(widget)
    frames(n)


def esperar(cond: Callable[[], Any], seconds: float = 20) -> bool:
    """Turn the event loop until ``cond()`` holds or ``seconds`` have passed (work done in
    threads, a join or a send, needs the CPU too: a short sleep between turns)."""
    deadline = time.monotonic() + seconds
    while not cond() and time.monotonic() < deadline:
        frames(2)
        time.sleep(0.02)
    return bool(cond())


def captura(nombre: str, carpeta: Path | None = None) -> Path:
    """A screenshot of the window: ``carpeta/<nombre>.png``, by default
    ``musmesa-<nombre>.png`` in the temp folder."""
    from kivy.core.window import Window

    from app.demo import captura as shot

    Window.canvas.ask_update()
    frames(4)
    if carpeta is None:
        return shot(Path(tempfile.gettempdir()) / f"musmesa-{nombre}.png")
    return shot(carpeta / f"{nombre}.png")


@contextmanager
def ventana(datos: Path) -> Iterator[Any]:
    """The app built and its window open on ``datos``, without blocking in the main loop."""
    from app.launcher import configure_kivy

    configure_kivy(1280, 800)
    from kivy.lang import Builder

    from app.main import KV_DIR, MusApp

    def olvidar_kv() -> None:  # another module's app in this process loaded the same rules
        for kv in sorted(KV_DIR.glob("*.kv")):
            Builder.unload_file(str(kv))

    olvidar_kv()
    app = MusApp(datos=str(datos))
    app._run_prepare()
    frames(10)
    try:
        yield app
    finally:
        app.avisar("", fijo=True)  # no timer left to close a message on the stopped app,
        frames(2)  # and its rules run while the app is still there
        app.stop()
        frames(2)
        olvidar_kv()


def limpia(kapp: Any, datos: Path) -> Any:
    """The app on a fresh, empty data folder, in Spanish, on the Nueva partida screen."""
    kapp.cerrar_aviso()
    kapp.lang = "es"
    kapp.cambiar_datos(str(datos))
    frames(5)
    return kapp


def jugar_mano(app: Any, cartas: list[str], frames_por_toque: int = 2) -> None:
    """One hand through the real screens: marcador, the four hands by touch, tanteo, confirmar
    (a RuntimeError says where it went wrong: the tablet driver runs outside pytest too)."""
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    mano = app.sm.get_screen("mano")
    tap(mano.ids.escribir)
    for text in cartas:
        for card in text.split():
            tap(mano.selector.chips[card], frames_por_toque)
    frames(3)
    if app.entrada.cartas != cartas:
        raise RuntimeError(f"cards entered {app.entrada.cartas}, not {cartas}")
    tap(mano.ids.tantear)
    if app.sm.current != "tanteo":
        raise RuntimeError(f"after tantear the app is on {app.sm.current}")
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    if app.sm.current != "marcador":
        raise RuntimeError(f"after confirmar the app is on {app.sm.current}")
