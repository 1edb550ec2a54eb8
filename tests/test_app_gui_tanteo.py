"""The tablet's tanteo screen in the player's language: the reasons are written in
the app's language from each apunte's motivo, never Spanish sentences with Basque names.

Run headless with:
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python -m pytest tests/test_app_gui_tanteo.py
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ventana_kivy import MARCAS, tap

pytest.importorskip("kivy")
pytestmark = MARCAS

JUGADORES = ["Ana", "Iñaki", "Bea", "Josu"]
MANOS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]


def tanteo_en(app: Any, lang: str) -> str:
    app.lang = lang
    nueva = app.sm.get_screen("nueva")
    nueva.poner_nombres(JUGADORES)
    tap(nueva.ids.m0)
    tap(nueva.ids.empezar)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    mano = app.sm.get_screen("mano")
    tap(mano.ids.escribir)
    for text in MANOS:
        for card in text.split():
            tap(mano.selector.chips[card])
    tap(mano.filas["chica"].opcion["no_quiero"])
    tap(mano.filas["chica"].chips["g1"])
    tap(mano.ids.tantear)
    assert app.sm.current == "tanteo"
    return str(app.sm.get_screen("tanteo").detalle)


@pytest.mark.parametrize(
    ("lang", "says", "not_said"),
    [
        (
            "eu",
            ["Txikia: Ana eta Bea bikoteak ez du enbidoa onartu; 1 Iñaki eta Josu bikotearentzat", "Handia pasoan"],
            [" para ", " gana ", "en paso"],
        ),
        (
            "en",
            ["Chica: envite refused by Ana and Bea, 1 to Iñaki and Josu", "Grande passed: Iñaki"],
            [" para ", " gana ", "en paso"],
        ),
        (
            "es",
            ["Chica: envite no querido por Ana y Bea, 1 para Iñaki y Josu", "Grande en paso: gana Iñaki"],
            ["passed", "pasoan"],
        ),
    ],
)
def test_the_tanteo_screen_gives_the_reasons_in_the_apps_language(
    app: Any, lang: str, says: list[str], not_said: list[str]
) -> None:
    try:
        detalle = tanteo_en(app, lang)
    finally:
        app.lang = "es"  # the window is shared by the module's tests
    for text in says:
        assert text in detalle, detalle
    for text in not_said:
        assert text not in detalle, detalle
