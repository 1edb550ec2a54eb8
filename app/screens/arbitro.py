"""Árbitro: referee mode. One watched player, phase marks, señas log, findings, JSON report."""

from __future__ import annotations

import hashlib
import json
from collections import deque
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from app.camera import Preview, a_textura
from app.screens.senas import clave, dibujar_marcas
from app.screens.vivo import ReconocimientoEnVivo
from app.screens.widgets import Opcion, SelectorCartas
from mesa.arbitro import FASES_BOTON, SesionArbitro
from mesa.i18n import N_
from mesa.senas import describir_evento
from mesa.storage import StorageError

NOMBRES_FASE = {"reparto": N_("Reparto"), "mus": N_("Mus"), "descarte": N_("Descarte"), "lances": N_("Lances")}


def _pequena(frame: Any, ancho: int = 160) -> Any:
    import cv2  # OpenCV is an optional extra: only with a live source

    return cv2.resize(frame, (ancho, int(ancho * frame.shape[0] / frame.shape[1])), interpolation=cv2.INTER_AREA)


class ArbitroScreen(ReconocimientoEnVivo, Screen):
    estado = StringProperty("")
    perfil = StringProperty("general")
    cartas = StringProperty("")
    hallazgos = StringProperty("")
    en_vivo = BooleanProperty(False)
    aviso_calibracion = StringProperty("")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self.reconocedor: Any = None
        self.sesion: SesionArbitro | None = None
        self._pid: tuple[str, int | None] | None = None
        self.t = 0.0
        self.frame: Any = None
        self.miniatura: Any = None  # the last seña's thumbnail (BGR), shown in its log row
        self.recientes: deque[tuple[float, Any]] = deque(maxlen=80)  # (t, thumbnail), ~6 s
        self.fase_botones: dict[str, Opcion] = {}
        self.selector: SelectorCartas | None = None
        self._pendientes: list[str] = []

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        activa = app.ctl.activa
        reglas = app.ctl.info.get("reglas") if activa else app.perfil
        self.perfil = reglas if isinstance(reglas, str) else "general"
        jug = list(app.ctl.info["jugadores"]) if activa else [f"Asiento {i + 1}" for i in range(4)]
        if self.sesion is None or self._pid != (app.carpeta, app.ctl.partida_id):
            self._pid = (app.carpeta, app.ctl.partida_id)
            self.sesion = self._sesion(app, jug)
            self.reconocedor = None
        if self.preview is None:
            self.preview = Preview(self.ids.vista, procesar=self._procesar, aplicar=self._frame, al_error=self._fallo)
        self._botones(jug)
        if not self.cartas:
            self.cartas = self._cartas_ultima_mano()
        if not self.estado:
            self.estado = app.t("Elige a quién vigilar y apunta la cámara a su cara")

    @property
    def _log(self) -> SesionArbitro:
        """The partida's referee log (made when the screen is entered, before any tap)."""
        if self.sesion is None:
            raise RuntimeError("the referee screen is used before it was entered")
        return self.sesion

    def _botones(self, jug: list[str]) -> None:
        app = App.get_running_app()
        box = self.ids.jugadores
        box.clear_widgets()
        for s, name in enumerate(jug):
            b = Opcion(text=name, group="arbitro_jugador", state="down" if s == self._log.asiento else "normal")
            b.bind(on_release=lambda w, s=s: self.vigilar(s))
            box.add_widget(b)
        box = self.ids.fases
        box.clear_widgets()
        self.fase_botones = {}
        for fase in FASES_BOTON:
            b = Opcion(text=app.t(NOMBRES_FASE[fase]), group="arbitro_fase")
            b.bind(on_release=lambda w, f=fase: self.marcar(f))
            self.fase_botones[fase] = b
            box.add_widget(b)

    def _sesion(self, app: App, jug: list[str]) -> SesionArbitro:
        """Continue the partida's stored referee log (it survives a kill), or start one."""
        primera = app.ctl.activa and not app.almacen.manos(app.ctl.partida_id)
        stored = app.almacen.arbitraje(app.ctl.partida_id)
        try:
            sesion = SesionArbitro(self.perfil, jug, primera_mano=bool(primera), entradas=stored or None)
        except ValueError as exc:  # a tampered or damaged stored log: say so, start afresh
            app.avisar(f"{app.t('Registro de árbitro dañado')}: {exc}", error=True)
            sesion = SesionArbitro(self.perfil, jug, primera_mano=bool(primera))
            stored = []
        if not stored:
            self._guardar(sesion.ultima)
        return sesion

    def _cartas_ultima_mano(self) -> str:
        app = App.get_running_app()
        if not app.ctl.activa:
            return ""
        manos = app.almacen.manos(app.ctl.partida_id)
        return manos[-1]["registro"]["manos"][self._log.asiento] if manos else ""

    # -- actions --------------------------------------------------------------------------
    def vigilar(self, asiento: int) -> None:
        self._log.vigilar(asiento)
        self._guardar(self._log.ultima)
        self.cartas = self._cartas_ultima_mano()
        self.hallazgos = ""

    def marcar(self, fase: str) -> None:
        self._log.marcar(fase, self.t)
        self._guardar(self._log.ultima)
        for f, b in self.fase_botones.items():
            b.state = "down" if f == fase else "normal"

    def nueva_mano(self) -> None:
        self._log.nueva_mano()
        self._guardar(self._log.ultima)
        self.ids.registro.clear_widgets()
        self.hallazgos = ""
        self.cartas = ""
        for b in self.fase_botones.values():
            b.state = "normal"

    def _guardar(self, entrada: dict[str, Any]) -> None:
        app = App.get_running_app()
        try:
            app.almacen.guardar_arbitraje(app.ctl.partida_id, entrada)
        except StorageError as exc:
            app.avisar(str(exc), error=True)

    # -- sources --------------------------------------------------------------------------
    def _reiniciar(self) -> None:
        self.recientes.clear()
        self.aviso_calibracion = ""

    def _frame(self, t: float, frame: Any, res: Any) -> Any:
        self.t, self.frame = t, frame
        self.recientes.append((t, _pequena(frame)))
        app = App.get_running_app()
        if isinstance(res, Exception):
            self.estado = f"{app.t('Error al reconocer')}: {res}"
            return None
        self.estado = (
            app.t("Calibrando…")
            if res.calibrando
            else app.t("No se ve ninguna cara")
            if not res.cara
            else f"{app.t('Vigilando a')} {self._log.jugadores[self._log.asiento]}"
        )
        self._calibracion(res)
        self._nuevos(res.eventos)
        return dibujar_marcas(frame, res)

    def _nuevos(self, eventos: Any) -> None:
        for ev in eventos:
            d = ev.to_dict() if hasattr(ev, "to_dict") else dict(ev)
            if any(clave(d) == clave(e) for e in self._log.eventos):
                continue
            name, digest = self._miniatura(d)
            self._log.anotar(d, name, digest)
            self._guardar(self._log.ultima)
            self._fila(d)

    def _miniatura(self, ev: dict[str, Any]) -> tuple[str | None, str | None]:
        """Save a small JPEG of the frame in the middle of the seña beside the database;
        returns its name and sha256 (the hash goes in the chained log)."""
        if not self.recientes:
            return None, None
        import cv2  # OpenCV is an optional extra: only with a live source

        app = App.get_running_app()
        mitad = (ev.get("inicio", self.t) + ev.get("fin", self.t)) / 2
        small = min(self.recientes, key=lambda tf: abs(tf[0] - mitad))[1]
        self.miniatura = small
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return None, None
        digest = hashlib.sha256(buf.tobytes()).hexdigest()
        folder = Path(app.carpeta) / "arbitro"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{digest[:16]}.jpg").write_bytes(buf.tobytes())
        except OSError:
            return None, digest  # the hash still goes in the log
        return f"arbitro/{digest[:16]}.jpg", digest

    def _fila(self, ev: dict[str, Any]) -> None:
        row = BoxLayout(size_hint_y=None, height=dp(76), spacing=dp(8))
        thumb = self.miniatura
        img = Image(size_hint_x=None, width=dp(100))
        if thumb is not None:
            img.texture = a_textura(thumb)
        row.add_widget(img)
        text = Label(text=describir_evento(ev), font_size="20sp", halign="left", valign="middle")
        text.bind(size=lambda w, s: setattr(w, "text_size", s))
        row.add_widget(text)
        self.ids.registro.add_widget(row, index=0)

    # -- cards and findings ---------------------------------------------------------------
    def elegir_cartas(self) -> None:
        app = App.get_running_app()
        self._pendientes = []
        name = self._log.jugadores[self._log.asiento]
        self.selector = SelectorCartas(f"{app.t('Cartas de')} {name}", self._tocar, set())
        self.selector.open()

    def _tocar(self, carta: str) -> None:
        if carta in self._pendientes:
            self._pendientes.remove(carta)
        else:
            self._pendientes.append(carta)
        if len(self._pendientes) == 4:
            self.cartas = " ".join(self._pendientes)
            if self.selector is not None:
                self.selector.dismiss()
            return
        if self.selector is not None:
            self.selector.bloquear(set(), set(self._pendientes))

    def comprobar(self) -> None:
        app = App.get_running_app()
        try:
            informe = self._log.comprobar(self.cartas)
        except ValueError as exc:
            app.avisar(str(exc), error=True)
            return
        for entrada in self._log.exportar()["entradas"][-2:]:  # cartas and informe
            self._guardar(entrada)
        if not informe.hallazgos:
            self.hallazgos = app.t("Sin faltas: las señas son fieles a las cartas.")
        else:
            self.hallazgos = "\n".join(f"• {h.razon} [{h.articulo}]" for h in informe.hallazgos)

    def exportar(self) -> None:
        app = App.get_running_app()
        folder = Path(app.carpeta) / "export"
        name = f"arbitro_{app.ctl.partida_id or 'libre'}.json"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(json.dumps(self._log.exportar(), ensure_ascii=False, indent=1), encoding="utf-8")
        except OSError as exc:
            app.avisar(f"{app.t('No se pudo exportar')}: {exc}", error=True)
            return
        app.avisar(f"{app.t('Informe exportado')}: {folder / name}")

    def volver(self) -> None:
        app = App.get_running_app()
        app.ir("marcador" if app.ctl.activa else "nueva")
