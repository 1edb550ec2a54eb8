"""`mus app`: open the table app (Kivy); `--demo --capturas DIR` plays a scripted partida.

Kivy is imported only when the app opens, after its window is configured, so `mus app --help`
works without Kivy and a missing display gives a clear message instead of an SDL traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from mesa.storage import DB_NAME


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--datos", metavar="CARPETA", help="carpeta de datos (por defecto $MUSMESA_DATA o la del usuario)"
    )
    parser.add_argument("--demo", action="store_true", help="juega una partida de ejemplo a través de la interfaz real")
    parser.add_argument(
        "--capturas", metavar="DIR", help="con --demo: guarda una captura de cada pantalla en DIR y sale"
    )
    parser.add_argument(
        "--foto", metavar="FOTO", help="con --demo: la foto de la mesa que se lee (por defecto examples/mesa.jpg)"
    )
    parser.add_argument(
        "--tamano",
        default="1280x800",
        metavar="ANCHOxALTO",
        help="tamaño de la ventana (por defecto 1280x800, tableta apaisada)",
    )


def _size(text: str) -> tuple[int, int] | None:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        return None
    return (w, h) if 320 <= w <= 8000 and 240 <= h <= 8000 else None


def _fail(msg: str) -> int:
    print(f"mus app: {msg}", file=sys.stderr)
    return 2


def configure_kivy(width: int, height: int) -> None:
    """Window settings; must run before kivy.core.window is imported."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")  # no xclip/xsel probing on Linux
    # Kivy after the variables above: it reads them, and its settings, when imported
    from kivy.config import Config
    from kivy.logger import Logger

    level = os.environ.get("MUSMESA_LOG", "warning")
    Config.set("kivy", "log_level", level)
    Logger.setLevel(getattr(logging, level.upper(), logging.WARNING))
    Config.set("graphics", "width", str(width))
    Config.set("graphics", "height", str(height))
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")


def copia_para_demo(datos: Path | None) -> str:
    """A fresh folder for the demo holding a copy of ``datos``'s database, if it has one
    (SQLite's online backup; a file copy if SQLite cannot read it, the app then recovers it)."""
    dest = Path(tempfile.mkdtemp(prefix="musmesa-demo-"))
    fuente = datos / DB_NAME if datos else None
    if fuente is None or not fuente.is_file():
        return str(dest)
    try:
        src = sqlite3.connect(f"{fuente.resolve().as_uri()}?mode=ro", uri=True)
        out = sqlite3.connect(dest / DB_NAME)
        try:
            src.backup(out)
        finally:
            src.close()
            out.close()
    except sqlite3.Error:
        for extra in ("", "-wal"):
            if Path(f"{fuente}{extra}").is_file():
                shutil.copyfile(f"{fuente}{extra}", dest / f"{DB_NAME}{extra}")
    return str(dest)


def run(args: argparse.Namespace) -> int:
    size = _size(args.tamano)
    if size is None:
        return _fail(f"tamaño no válido {args.tamano!r}: usa por ejemplo 1280x800")
    if (args.capturas or args.foto) and not args.demo:
        return _fail("--capturas y --foto solo tienen sentido con --demo")
    if args.foto and not Path(args.foto).is_file():
        return _fail(f"no existe la foto {args.foto}")
    capturas = None
    if args.capturas:
        capturas = Path(args.capturas)
        try:
            capturas.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _fail(f"no se puede crear la carpeta de capturas {capturas}: {exc.strerror}")
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return _fail(
            "no hay pantalla (DISPLAY vacío); en un servidor usa xvfb-run -a -s '-screen 0 1280x800x24' mus app ..."
        )
    datos = args.datos
    if args.demo:  # the demo never touches real data: a fresh folder, or a copy of --datos
        datos = copia_para_demo(Path(datos) if datos else None)
    try:
        configure_kivy(*size)
        # app.main opens Kivy's window: only once it is configured, and only for this command
        from app.main import MusApp
    except ImportError as exc:
        return _fail(f"falta Kivy ({exc}); instala el extra: pip install 'musmesa[app]'")
    demo = None
    if args.demo:
        from app.demo import Demo  # Kivy's window too (see app.main above)

        demo = Demo(capturas, foto=Path(args.foto) if args.foto else None)
    app = MusApp(datos=datos, demo=demo)
    app.run()
    return demo.estado if demo is not None else 0
