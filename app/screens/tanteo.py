"""Tanteo: show scoring/'s breakdown with its reasons in the app's language; confirm stores the hand."""

from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from mesa.storage import StorageError
from scoring.tanteo import NOMBRES_LANCE, ResultadoTanteo


class TanteoScreen(Screen):
    titulo = StringProperty("")
    marcador = StringProperty("")
    anuncio = StringProperty("")
    detalle = StringProperty("")

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        if not app.resultado:
            return
        res, avisos = app.resultado
        reg = res.registro
        parejas = (app.ctl.nombre_pareja(0), app.ctl.nombre_pareja(1))  # in app.lang, unlike reg's
        self.titulo = f"{app.t('Tanteo')} · {app.t('es mano')}: {reg.nombre(reg.mano)}"
        self._tabla(app, res, parejas)
        self.marcador = f"{parejas[0]}  {res.marcador[0]}  —  {res.marcador[1]}  {parejas[1]}"
        self.anuncio = "\n".join(app.t(tpl).format(arg) for tpl, arg in avisos)
        if res.fin and not avisos:
            self.anuncio = app.t("Fin del juego")
        # the reasons written in app.lang from each apunte's motivo (scoring/razones.py)
        lines = [f"+{a.tantos}  {parejas[a.pareja]}:  {res.razon(a, app.lang)}" for a in res.detalle]
        self.detalle = "\n\n".join(lines) or app.t("Nadie suma tantos en esta mano")

    def _tabla(self, app: App, res: ResultadoTanteo, parejas: tuple[str, str]) -> None:
        grid = self.ids.tabla
        grid.clear_widgets()
        cells = ["", parejas[0], parejas[1]]
        for lance in res.orden:
            a, b = res.por_lance[lance]
            cells += [app.t(NOMBRES_LANCE[lance]), str(a), str(b)]
        tot = [sum(v[i] for v in res.por_lance.values()) for i in (0, 1)]
        cells += [app.t("Total"), str(tot[0]), str(tot[1])]
        for i, text in enumerate(cells):
            head = i < 3 or i >= len(cells) - 3
            grid.add_widget(
                Label(
                    text=text,
                    font_size="26sp" if i >= 3 else "22sp",
                    bold=head,
                    size_hint_y=None,
                    height=dp(50),
                    text_size=(dp(180), None),
                    halign="center",
                )
            )

    def confirmar(self) -> None:
        app = App.get_running_app()
        origen = getattr(app, "origen_mano", "manual")
        try:
            res, avisos = app.ctl.confirmar(app.entrada, origen=origen)
        except StorageError as exc:
            app.avisar(str(exc), error=True)  # the hand stays on screen: nothing is lost
            return
        app.entrada, app.resultado = None, None
        if app.sm.has_screen("torneo"):  # queued and sent in the background while joined
            foto = getattr(app, "foto_mano", None) if origen in ("camara", "asientos") else None
            app.sm.get_screen("torneo").tras_confirmar(res, foto)
        app.ir("marcador")
        if avisos:
            app.avisar("  ".join(app.t(tpl).format(arg) for tpl, arg in avisos))
