"""Señas: the trainer (deal, signal, check) and the free mode, fed by gestures/ lazily.

With "Guardar cada toma" on in Ajustes, each attempt of the trainer is kept as a take
(mesa.tomas) and the player is asked whether it was recognised right."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from app.camera import Preview
from app.screens.vivo import ReconocimientoEnVivo
from app.screens.widgets import CartaChip
from mesa.senas import Entrenador, describir_evento
from mesa.tomas import AJUSTE, AlmacenTomas, GrabacionToma, TomaError, nueva_toma


def clave(ev: dict[str, Any]) -> tuple[str, float]:
    """Identity of an event (the recognizer may report it again at finish())."""
    return ev["gesto"], round(float(ev.get("inicio", 0.0)), 2)


def dibujar_marcas(frame: Any, res: Any) -> Any:
    """Face landmarks (every 3rd point) and shoulders on a copy of the frame."""
    import cv2  # OpenCV is an optional extra: only with a live source

    out = frame.copy()
    if res.landmarks is not None:
        for x, y in res.landmarks[::3]:
            cv2.circle(out, (int(x), int(y)), 1, (160, 230, 160), -1)
    if res.hombros is not None:
        for x, y in res.hombros:
            cv2.circle(out, (int(x), int(y)), 6, (60, 200, 255), -1)
    for i, ev in enumerate(res.activos):
        cv2.putText(out, ev.sena or ev.gesto, (10, 30 + 30 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (60, 200, 255), 2)
    return out


class SenasScreen(ReconocimientoEnVivo, Screen):
    modo = StringProperty("entrenar")
    estado = StringProperty("")
    veredicto = StringProperty("")
    explicacion = StringProperty("")
    vistas = StringProperty("")
    perfil = StringProperty("general")
    en_vivo = BooleanProperty(False)
    repartida = BooleanProperty(False)
    aviso_calibracion = StringProperty("")
    # the take just saved, waiting for the player's "sí, era eso" / "no" ("" = none)
    toma = StringProperty("")
    toma_vista = StringProperty("")  # what the take recognised, for the question

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.preview: Preview | None = None
        self.reconocedor: Any = None
        self.entrenador: Entrenador | None = None
        self.eventos: list[dict[str, Any]] = []
        self.desde = 0  # index of the first event of the current attempt
        self.grabacion: GrabacionToma | None = None  # only while takes are kept (Ajustes)
        self.activos: list[dict[str, Any]] = []  # gestures held at the last frame

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        perfil = (app.ctl.info.get("reglas") if app.ctl.activa else None) or app.perfil
        self.perfil = perfil if isinstance(perfil, str) else "general"
        if self.entrenador is None or self.entrenador.perfil != self.perfil:
            self.entrenador = Entrenador(self.perfil)
            self.reconocedor = None
        if self.preview is None:
            self.preview = Preview(self.ids.vista, procesar=self._procesar, aplicar=self._frame, al_error=self._fallo)
        if not self.estado:
            self.estado = app.t("Mira a la cámara con la cara neutra para calibrar")
        guardar = app.almacen is not None and app.almacen.ajuste(AJUSTE, "0") == "1"
        if guardar and self.grabacion is None:
            self.grabacion = GrabacionToma()
        elif not guardar:
            self.grabacion = None
        self._marcador()

    # -- sources --------------------------------------------------------------------------
    def _reiniciar(self) -> None:
        self.eventos, self.desde, self.activos = [], 0, []
        self.aviso_calibracion = ""
        if self.grabacion is not None:
            self.grabacion.reiniciar()
        self.estado = App.get_running_app().t("Calibrando: cara neutra un momento…")

    def _frame(self, t: float, frame: Any, res: Any) -> Any:
        app = App.get_running_app()
        if isinstance(res, Exception):
            self.estado = f"{app.t('Error al reconocer')}: {res}"
            return None
        if res.calibrando:
            self.estado = app.t("Calibrando: cara neutra un momento…")
        elif not res.cara:
            self.estado = app.t("No se ve ninguna cara")
        else:
            self.estado = app.t("Haz tus señas")
        self._calibracion(res)
        self._grabar(t, frame, res)
        self.activos = [ev.to_dict() for ev in res.activos]
        self._nuevos(res.eventos)
        return dibujar_marcas(frame, res)

    def _nuevos(self, eventos: Any) -> None:
        for ev in eventos:
            d = ev.to_dict() if hasattr(ev, "to_dict") else dict(ev)
            if any(clave(d) == clave(e) for e in self.eventos):
                continue
            self.eventos.append(d)
        self.vistas = "\n".join(describir_evento(e) for e in self.eventos[-8:][::-1])

    def _grabar(self, t: float, frame: Any, res: Any) -> None:
        if self.grabacion is None or self.modo != "entrenar":
            return  # the free mode asks no seña: no take
        try:
            self.grabacion.fotograma(t, frame, res.calibrando, getattr(res, "calibracion", None))
        except TomaError as exc:  # no OpenCV, a frame that cannot be encoded: say it once
            self.grabacion = None
            App.get_running_app().avisar(exc.texto(App.get_running_app().lang), error=True)

    # -- trainer --------------------------------------------------------------------------
    @property
    def _trainer(self) -> Entrenador:
        """The trainer of the profile in use (made when the screen is entered, before any tap)."""
        if self.entrenador is None:
            raise RuntimeError("the señas screen is used before it was entered")
        return self.entrenador

    def repartir(self) -> None:
        mano = self._trainer.repartir()
        self._mostrar_mano(mano)

    def poner_mano(self, texto: str) -> None:
        self._trainer.poner_mano(texto)
        self._mostrar_mano(texto)

    def _mostrar_mano(self, mano: str) -> None:
        app = App.get_running_app()
        box = self.ids.mano
        box.clear_widgets()
        for cid in mano.split():
            box.add_widget(CartaChip(carta=cid))
        self.repartida = True
        self.desde = len(self.eventos)
        self.veredicto = ""
        self.toma = ""  # a take left unanswered stays out of the export
        if self.grabacion is not None:
            self.grabacion.empezar()
        self.explicacion = app.t("Haz las señas de esta mano y pulsa Comprobar")

    def comprobar(self) -> None:
        app = App.get_running_app()
        intento = self._trainer.comprobar(self.eventos[self.desde :])
        self.veredicto = app.t("¡Bien!") if intento.correcto else app.t("No del todo")
        debia = "; ".join(intento.debia) or app.t("ninguna seña (no hay jugada con seña)")
        lines = [f"{app.t('Debías señar')}: {debia}"]
        lines += intento.hallazgos[:3]
        self.explicacion = "\n".join(lines)
        held = [a for a in self.activos if all(clave(a) != clave(e) for e in self.eventos)]
        self._guardar_toma(self.eventos[self.desde :] + held, intento.correcto)
        self.desde = len(self.eventos)
        self._marcador()

    # -- takes (Ajustes: keep every take) -------------------------------------------------
    def _guardar_toma(self, eventos: list[dict[str, Any]], correcto: bool) -> None:
        """Write this attempt's take, then ask the player whether it was recognised right."""
        if self.grabacion is None:
            return
        got = self.grabacion.terminar()
        if got is None:
            return  # no frame seen since the deal: nothing to keep
        app = App.get_running_app()
        e = self._trainer
        doc = nueva_toma(
            got.frames,
            got.n_calib,
            mano=e.mano,
            perfil=e.perfil,
            senas=e.que_senar(),
            gestos=e.gestos_pedidos(),
            eventos=eventos,
            correcto=correcto,
            calibracion=self.grabacion.calibracion,
            recortada=got.recortada,
        )
        try:
            self.toma = AlmacenTomas(app.carpeta).guardar(doc, got.frames)
        except TomaError as exc:
            app.avisar(exc.texto(app.lang), error=True)
            return
        vistas = [describir_evento(ev) for ev in doc["eventos"]]
        self.toma_vista = "\n".join(vistas) or app.t("ninguna seña")

    def responder(self, si: bool) -> None:
        """The player's answer about the take just saved: "sí, era eso" or "no"."""
        app = App.get_running_app()
        try:
            AlmacenTomas(app.carpeta).responder(self.toma, si)
        except TomaError as exc:
            app.avisar(exc.texto(app.lang), error=True)
            return
        self.toma = ""
        app.avisar(app.t("Toma guardada con tu respuesta"))

    def _marcador(self) -> None:
        e = self.entrenador
        if e is not None and e.intentos:
            app = App.get_running_app()
            self.veredicto = self.veredicto.split("  ·")[0] + f"  · {e.aciertos} {app.t('de')} {e.intentos}"

    def volver(self) -> None:
        app = App.get_running_app()
        app.ir("marcador" if app.ctl.activa else "nueva")
