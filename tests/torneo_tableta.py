"""One tablet of a tournament, as its own process: the real app in its own window, joined to a
table with its code and playing hands by simulated touches on the real widgets.

tests/test_app_gui_torneo_varias.py starts several of these at once on one X display, each
with its own data folder (``MUSMESA_DATA``), and checks the server afterwards:

    MUSMESA_DATA=DIR python tests/torneo_tableta.py --servidor URL --codigo CODE \\
        --semilla 1 --manos 3 --salida OUT --izquierda 0 --idioma eu

It writes ``OUT/resultado.json`` (the app's marcador, the tantos each pareja won, the hand ids
the server stored) and screenshots of its window (``OUT/torneo.png``, ``OUT/marcador.png``).
Exit status 0 when every hand was played and sent.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from server.simulacion import mano_aleatoria
from tests import ventana_kivy  # sets Kivy's home before Kivy loads
from tests.ventana_kivy import esperar, frames, jugar_mano, tap

ANCHO, ALTO = 1280, 800


def captura(app: Any, path: Path) -> None:
    app.cerrar_aviso()  # the banner would hide the buttons
    ventana_kivy.captura(path.stem, path.parent)


def abrir(izquierda: int) -> Any:
    from app.launcher import configure_kivy

    configure_kivy(ANCHO, ALTO)
    from kivy.config import Config

    Config.set("graphics", "position", "custom")  # side by side on the display
    Config.set("graphics", "left", str(izquierda))
    Config.set("graphics", "top", "0")
    from app.main import MusApp

    app = MusApp(datos=os.environ["MUSMESA_DATA"])
    app._run_prepare()  # build and open the window; the loop is run here, frame by frame
    frames(10)
    return app


def unirse(app: Any, servidor: str, codigo: str) -> Any:
    tap(app.sm.get_screen("nueva").ids.torneo)
    pantalla = app.sm.get_screen("torneo")
    pantalla.ids.servidor.text = servidor
    pantalla.ids.codigo.text = codigo
    tap(pantalla.ids.unirse)
    if not esperar(lambda: pantalla.unida or (not pantalla.uniendo and app.aviso_error), 60):
        raise RuntimeError("joining took too long")
    if not pantalla.unida:
        raise RuntimeError(f"not joined: {app.aviso}")
    return pantalla


def partida(args: argparse.Namespace, salida: Path) -> dict[str, Any]:
    t0 = time.monotonic()
    app = abrir(args.izquierda)
    tiempos = {"abrir": time.monotonic() - t0}
    try:
        app.lang = args.idioma  # as Ajustes sets it
        pantalla = unirse(app, args.servidor, args.codigo)
        tiempos["unirse"] = time.monotonic() - t0
        captura(app, salida / "unida.png")
        tap(pantalla.ids.jugar)
        rng = random.Random(args.semilla)
        for _ in range(args.manos):
            jugar_mano(app, mano_aleatoria(rng)[0], frames_por_toque=1)  # 16 touches a hand
        tiempos["jugar"] = time.monotonic() - t0
        captura(app, salida / "marcador.png")
        m = pantalla.mesa_torneo()
        app.ir("torneo")
        frames(3)
        if not esperar(lambda: (pantalla.enviar_ahora(), m.cliente.pendientes() == 0)[1], 60):
            raise RuntimeError(f"{m.cliente.pendientes()} hands not sent")
        frames(3)
        tiempos["enviar"] = time.monotonic() - t0
        captura(app, salida / "torneo.png")
        p = app.ctl.partida
        ganados = [0, 0]
        for r in p.historial:  # what each pareja won in each hand, juegos ended or not
            for k in (0, 1):
                ganados[k] += r.marcador[k] - r.registro.marcador[k]
        return {
            "parejas": m.mesa().parejas,
            "tantos": list(p.tantos),
            "juegos": list(p.juegos),
            "ganados": ganados,
            "manos": len(p.historial),
            "ids": m.cliente.enviadas(),
            "pendientes": m.cliente.pendientes(),
            "estado_envio": pantalla.estado_envio,
            "rechazadas": pantalla.rechazadas,
            "segundos": {k: round(v, 1) for k, v in tiempos.items()},
        }
    finally:
        app.stop()
        frames(2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servidor", required=True)
    parser.add_argument("--codigo", required=True)
    parser.add_argument("--semilla", type=int, default=0)
    parser.add_argument("--manos", type=int, default=3)
    parser.add_argument("--salida", type=Path, required=True)
    parser.add_argument("--izquierda", type=int, default=0)
    parser.add_argument("--idioma", default="es", choices=("es", "eu", "en"))
    args = parser.parse_args()
    args.salida.mkdir(parents=True, exist_ok=True)
    try:
        out = partida(args, args.salida)
    except Exception:  # the test reads why from the file
        out = {"error": traceback.format_exc()}
    (args.salida / "resultado.json").write_text(json.dumps(out, ensure_ascii=False, indent=1))
    return 1 if "error" in out else 0


if __name__ == "__main__":
    sys.exit(main())
