"""Marcador: tantos as piedras and amarracos, juegos, vacas, the mano, the last hands."""

from __future__ import annotations

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from mesa.i18n import t, tn
from mesa.storage import StorageError


def texto_piedras(idioma: str, amarracos: int, piedras: int) -> str:
    """'3 amarracos y 1 piedra', each count with its word in the right number (ngettext)."""
    parts = []
    if amarracos:
        parts.append(tn("{n} amarraco", "{n} amarracos", amarracos, idioma).format(n=amarracos))
    if piedras or not parts:
        parts.append(tn("{n} piedra", "{n} piedras", piedras, idioma).format(n=piedras))
    return f" {t('y', idioma)} ".join(parts)


class MarcadorScreen(Screen):
    titulo = StringProperty("")
    mano = StringProperty("")
    ultimas = StringProperty("")
    estado = StringProperty("")
    terminada = BooleanProperty(False)
    confirmar_deshacer = BooleanProperty(False)  # undo needs a second tap within a few seconds

    def on_pre_enter(self, *_: object) -> None:
        self.refrescar()

    def refrescar(self) -> None:
        app = App.get_running_app()
        if not app.ctl.activa:
            return
        v = app.ctl.vista()
        t = app.t
        self.titulo = f"{t('Marcador')} · {t('mano nº')} {v.numero_mano} · {v.reglas} ({v.tantos_juego} {t('tantos')})"
        self.mano = v.jugadores[v.mano]
        self.ids.mesa.nombres, self.ids.mesa.mano = list(v.jugadores), v.mano
        self.ultimas = "\n".join(v.ultimas) or t("Aún no hay manos")
        self.terminada = v.terminada
        self.estado = (
            f"{t('Partida para')} {v.parejas[v.ganador].nombre}" if v.terminada and v.ganador is not None else ""
        )
        for k, w in ((0, self.ids.p0), (1, self.ids.p1)):
            p = v.parejas[k]
            w.nombre, w.tantos, w.de = p.nombre, p.tantos, v.tantos_juego
            w.amarracos, w.piedras = p.amarracos, p.piedras
            w.texto_piedras = texto_piedras(app.lang, p.amarracos, p.piedras)
            w.juegos, w.juegos_total = p.juegos, v.juegos_por_vaca
            w.vacas, w.vacas_total = p.vacas, v.vacas_por_partida

    def nueva_mano(self) -> None:
        app = App.get_running_app()
        if self.terminada:
            app.ir("nueva")
            return
        app.entrada = app.ctl.entrada()
        app.cartas_leidas = []
        app.origen_mano = "manual"
        app.foto_mano = None
        app.ir("mano")

    def deshacer(self) -> None:
        app = App.get_running_app()
        if app.sm.has_screen("torneo") and app.sm.get_screen("torneo").juega():
            # the server holds the hand already: the partida would no longer match it
            app.avisar(app.t("En un torneo las manos enviadas no se deshacen: avisa al árbitro"), error=True)
            return
        if not self.confirmar_deshacer:
            self.confirmar_deshacer = True
            Clock.schedule_once(lambda dt: setattr(self, "confirmar_deshacer", False), 4)
            return
        self.confirmar_deshacer = False
        try:
            done = app.ctl.deshacer()
        except StorageError as exc:
            app.avisar(str(exc), error=True)
            return
        app.avisar(app.t("Última mano deshecha") if done else app.t("No hay manos que deshacer"))
        self.refrescar()

    def exportar(self) -> None:
        App.get_running_app().exportar()
