"""Seat by seat in the real app window: four players' cards photographed in turn (frames from a
fake camera, cut at run time from examples/mesa.jpg and read by the real models), one photo
with three cards refused and taken again, a seat retaken, the four hands confirmed and scored.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python -m pytest tests/test_app_gui_asientos.py

Screenshots go to the temp folder as ``musmesa-asientos-*.png``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ventana_kivy import MARCAS, captura, frames, tap

pytest.importorskip("kivy")
pytestmark = MARCAS

ROOT = Path(__file__).resolve().parents[1]
JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]


def fotografiar(cartas: Any, foto: np.ndarray) -> None:
    """Point the (fake) camera at ``foto`` and tap Capturar."""
    from app.camera import Fotogramas

    cartas.preview.empezar(Fotogramas([foto] * 600, intervalo=0.05))
    cartas.en_vivo = True
    deadline = time.monotonic() + 20
    while cartas.preview.ultimo is not foto and time.monotonic() < deadline:
        frames(2)
    assert cartas.preview.ultimo is foto
    tap(cartas.ids.capturar)


def test_four_seats_one_refused_and_retaken_then_confirmed(app: Any) -> None:
    if not (ROOT / "models" / "carta_obb.onnx").is_file():
        pytest.skip("the trained models are not in models/")
    pytest.importorskip("onnxruntime")
    import cv2

    from mesa.asientos import fotos_por_asiento
    from mesa.lectura import leer_foto, manos

    mesa = cv2.imread(str(ROOT / "examples" / "mesa.jpg"))
    truth = json.loads((ROOT / "examples" / "mesa.json").read_text(encoding="utf-8"))["manos"]
    table = leer_foto(mesa)
    buenas, tres = fotos_por_asiento(mesa, table), fotos_por_asiento(mesa, table, falta=2)[2]

    nueva = app.sm.get_screen("nueva")
    nueva.poner_nombres(JUGADORES)
    tap(nueva.ids.m0)
    tap(nueva.ids.empezar)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    assert app.sm.current == "cartas"
    tap(cartas.ids.modo)
    assert cartas.ids.modo.text == "Toda la mesa"
    assert cartas.estado == "Fotografía las cuatro cartas de Ana (asiento 1)"
    captura("asientos-1-ayuda")

    for seat in (0, 1):
        fotografiar(cartas, buenas[seat])
        assert cartas.sesion.leidas() == seat + 1, app.aviso
    assert cartas.estado == "Fotografía las cuatro cartas de Carlos (asiento 3)"
    assert not cartas.listas and cartas.resumen.startswith("2 de 4")
    captura("asientos-2-dos-asientos")

    fotografiar(cartas, tres)  # Carlos's photo shows three cards
    assert app.aviso_error and "Carlos (asiento 3): se ven 3 cartas" in cartas.estado
    assert cartas.sesion.leidas() == 2 and cartas.sesion.turno == 2  # nothing lost
    captura("asientos-3-error")
    app.cerrar_aviso()

    fotografiar(cartas, buenas[2])
    fotografiar(cartas, buenas[3])
    assert cartas.listas, cartas.estado
    captura("asientos-4-cuatro")

    tap(cartas.repetir_botones[1])  # Bea's again
    assert cartas.estado == "Fotografía las cuatro cartas de Bea (asiento 2)"
    assert not cartas.listas and cartas.sesion.leidas() == 4
    fotografiar(cartas, buenas[1])
    assert cartas.listas
    frames(4)
    captura("asientos-5-repetida")
    for seat, hand in enumerate(manos(cartas.lectura)):
        assert sorted(hand.split()) == sorted(truth[seat].split())

    tap(cartas.ids.usar)
    assert app.sm.current == "mano"
    assert [sorted(h.split()) for h in app.entrada.cartas] == [sorted(h.split()) for h in truth]
    tap(app.sm.get_screen("mano").ids.tantear)
    tap(app.sm.get_screen("tanteo").ids.confirmar)
    (stored,) = app.almacen.manos(app.ctl.partida_id)
    assert stored["origen"] == "asientos"  # the export says how the hand was entered


def test_first_reading_offers_to_register_the_deck_suit_by_suit(app: Any, tmp_path: Path) -> None:
    """No registered deck: the first reading offers it; each suit photo is checked as it is
    taken (half the oros refused, naming the suit), the four make the deck in the data folder."""
    if not (ROOT / "models" / "carta_obb.onnx").is_file():
        pytest.skip("the trained models are not in models/")
    pytest.importorskip("onnxruntime")
    import cv2

    from mesa.storage import baraja_registrada

    fotos = ROOT / "examples" / "baraja"
    oros = cv2.imread(str(fotos / "oros.jpg"))
    media = tmp_path / "media.png"
    cv2.imwrite(str(media), oros[:, : oros.shape[1] // 2])
    nueva = app.sm.get_screen("nueva")
    nueva.poner_nombres(JUGADORES)
    tap(nueva.ids.empezar)
    tap(app.sm.get_screen("marcador").ids.nueva_mano)
    tap(app.sm.get_screen("mano").ids.leer)
    cartas = app.sm.get_screen("cartas")
    if cartas.por_asientos:  # the screen keeps the way chosen last
        tap(cartas.ids.modo)
    assert cartas.cargar_foto(ROOT / "examples" / "mesa.jpg"), app.aviso
    assert cartas.ofrecer_baraja and cartas.ids.registrar.opacity == 1
    captura("asientos-6-oferta")
    tap(cartas.ids.registrar)
    baraja = app.sm.get_screen("baraja")
    assert app.sm.current == "baraja" and baraja.estado.startswith("Foto de oros")
    baraja.preview.mostrar(oros)  # the guide over a photo, as over the live preview
    frames(4)
    captura("asientos-7-marco")
    assert not baraja.cargar_foto(media)
    assert "foto de oros: se han encontrado 5 cartas" in app.aviso and baraja.palo == 0
    captura("asientos-8-palo-mal")
    app.cerrar_aviso()
    for palo in ("oros", "copas"):
        assert baraja.cargar_foto(fotos / f"{palo}.jpg"), app.aviso
    assert not baraja.cargar_foto(fotos / "copas.jpg")  # the copas again, as the espadas
    assert "esta foto es de copas, no de espadas" in app.aviso, app.aviso
    assert baraja.palo == 2
    captura("asientos-9-carta-fuera")
    app.cerrar_aviso()
    assert baraja.cargar_foto(fotos / "espadas.jpg"), app.aviso
    assert baraja.palo == 3 and baraja.hechas == "Hechas: oros, copas, espadas"
    assert not baraja_registrada(app.carpeta).exists()
    assert baraja.cargar_foto(fotos / "bastos.jpg"), app.aviso
    assert baraja_registrada(app.carpeta).is_file() and app.baraja == str(baraja_registrada(app.carpeta))
    assert app.sm.current == "cartas"
    assert cartas.cargar_foto(ROOT / "examples" / "mesa.jpg"), app.aviso  # read against it
    assert cartas.ofrecer_baraja == cartas.lectura.unfamiliar
