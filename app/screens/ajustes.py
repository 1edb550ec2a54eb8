"""Ajustes: rule profile, language, camera index, señas takes, data folder, export, own deck."""

from __future__ import annotations

from collections.abc import Callable

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from app.screens.widgets import Opcion
from mesa.i18n import IDIOMAS
from mesa.lectura import SIN_BARAJA, LecturaError, baraja_de, preparar_baraja
from mesa.tomas import AJUSTE, AlmacenTomas, TomaError
from scoring.rules import PERFILES


class AjustesScreen(Screen):
    info = StringProperty("")
    estado_baraja = StringProperty("")
    info_tomas = StringProperty("")

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        self._grupo(self.ids.perfiles, list(PERFILES), app.perfil, "aj_perfil", self.perfil)
        self._grupo(self.ids.idiomas, list(IDIOMAS), app.lang, "aj_idioma", self.idioma, labels=IDIOMAS)
        self._grupo(self.ids.camaras, ["0", "1", "2"], app.camara, "aj_camara", self.camara)
        self.ids.carpeta.text = app.carpeta
        elegida = baraja_de(app.baraja, app.carpeta)  # the data folder's deck counts too
        self.ids.baraja.text = elegida or ""
        self.estado_baraja = (
            f"{app.t('Baraja registrada')}: {elegida}" if elegida else app.t("Baraja: el modelo general")
        )
        self.ids.exportar.disabled = not app.ctl.activa
        self.ids.guardar_tomas.state = "down" if app.almacen.ajuste(AJUSTE, "0") == "1" else "normal"
        self._info_tomas()
        n = len(app.almacen.partidas()) if app.almacen else 0
        self.info = f"{app.t('Partidas guardadas')}: {n}\n{app.t('Base de datos')}: {app.carpeta}/musmesa.sqlite3"

    def _grupo(
        self,
        box: Widget,
        values: list[str],
        current: str,
        group: str,
        action: Callable[[str], object],
        labels: dict[str, str] | None = None,
    ) -> None:
        box.clear_widgets()
        for v in values:
            b = Opcion(text=(labels or {}).get(v, v), group=group, state="down" if v == current else "normal")
            b.valor = v
            b.bind(on_release=lambda w, v=v: action(v))
            box.add_widget(b)

    def perfil(self, name: str) -> None:
        app = App.get_running_app()
        app.perfil = name
        app.guardar_ajuste("perfil", name)

    def idioma(self, code: str) -> None:
        app = App.get_running_app()
        app.lang = code
        app.guardar_ajuste("idioma", code)
        self.on_pre_enter()

    def camara(self, index: str) -> None:
        app = App.get_running_app()
        app.camara = index
        app.guardar_ajuste("camara", index)

    def _info_tomas(self) -> None:
        app = App.get_running_app()
        tomas = AlmacenTomas(app.carpeta).tomas()
        hechas = sum(d.get("respuesta") is not None for d in tomas)
        self.info_tomas = f"{app.t('Tomas guardadas')}: {len(tomas)} ({hechas} {app.t('con respuesta')})"
        self.ids.exportar_tomas.disabled = not hechas

    def guardar_tomas(self, si: bool) -> None:
        """Keep (or stop keeping) every take of the señas trainer: off by default."""
        App.get_running_app().guardar_ajuste(AJUSTE, "1" if si else "0")

    def exportar_tomas(self) -> None:
        """The answered takes as a folder of clips and labels.json (the evaluation's format)."""
        app = App.get_running_app()
        try:
            hecho = AlmacenTomas(app.carpeta).exportar()
        except TomaError as exc:
            app.avisar(exc.texto(app.lang), error=True)
            return
        app.avisar(f"{app.t('Tomas exportadas')}: {hecho.clips} · {hecho.carpeta}")

    def cambiar_carpeta(self) -> None:
        app = App.get_running_app()
        app.cambiar_datos(self.ids.carpeta.text.strip())

    def usar_baraja(self) -> None:
        """Register the deck from a folder of photos, or use a registered .npz file."""
        app = App.get_running_app()
        try:
            ruta, desc, avisos = preparar_baraja(self.ids.baraja.text, app.carpeta)
        except LecturaError as exc:
            self.estado_baraja = str(exc)
            app.avisar(str(exc), error=True)
            return
        app.baraja = ruta
        app.guardar_ajuste("baraja", ruta)
        self.ids.baraja.text = ruta
        self.estado_baraja = f"{app.t('Baraja registrada')}: {desc}"
        app.avisar("; ".join([self.estado_baraja, *avisos]), error=bool(avisos))

    def baraja_general(self) -> None:
        app = App.get_running_app()
        app.baraja = SIN_BARAJA  # not "": that would fall back to the data folder's deck
        app.guardar_ajuste("baraja", SIN_BARAJA)
        self.ids.baraja.text = ""
        self.estado_baraja = app.t("Baraja: el modelo general")

    def exportar(self) -> None:
        App.get_running_app().exportar()

    def volver(self) -> None:
        app = App.get_running_app()
        app.ir("marcador" if app.ctl.activa else "nueva")
