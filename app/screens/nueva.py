"""Nueva partida: names by seat, profile, first mano; or continue the open partida."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from app.screens.widgets import Opcion
from mesa.i18n import SOURCE
from mesa.partida import resumen_reglas
from mesa.storage import StorageError
from scoring.rules import PERFILES


def describir(nombre: str, idioma: str = SOURCE) -> str:
    r = PERFILES[nombre]
    return f"{resumen_reglas(r, idioma)}\n{r.fuente}"


class NuevaScreen(Screen):
    hay_abierta = BooleanProperty(False)
    mano = NumericProperty(0)
    perfil = StringProperty("general")
    descripcion = StringProperty("")

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        self.hay_abierta = app.almacen.partida_abierta() is not None
        self.perfil = app.perfil if app.perfil in PERFILES else "general"
        grid = self.ids.perfiles
        grid.clear_widgets()
        for name in PERFILES:
            b = Opcion(text=name, group="perfil_nueva", state="down" if name == self.perfil else "normal")
            b.bind(on_release=lambda w, n=name: self.elegir_perfil(n))
            grid.add_widget(b)
        self.descripcion = describir(self.perfil, app.lang)

    def elegir_perfil(self, name: str) -> None:
        self.perfil = name
        self.descripcion = describir(name, App.get_running_app().lang)
        for b in self.ids.perfiles.children:
            b.state = "down" if b.text == name else "normal"

    def poner_mano(self, seat: int) -> None:
        self.mano = seat
        for i in range(4):
            self.ids[f"m{i}"].state = "down" if i == seat else "normal"

    def nombres(self) -> list[str]:
        return [self.ids[f"n{i}"].text for i in range(4)]

    def poner_nombres(self, names: list[str]) -> None:
        for i, name in enumerate(names):
            self.ids[f"n{i}"].text = name

    def empezar(self) -> None:
        app = App.get_running_app()
        try:
            app.ctl.nueva(self.perfil, self.nombres(), self.mano)
        except (ValueError, StorageError) as exc:
            app.avisar(app.t(str(exc)), error=True)
            return
        app.perfil = self.perfil
        app.guardar_ajuste("perfil", self.perfil)
        app.ir("marcador")

    def continuar(self) -> None:
        app = App.get_running_app()
        if app.ctl.reanudar():
            app.ir("marcador")
