"""Mano: enter the four hands (camera or grid) and each lance's outcome, then tantear."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from app.screens.widgets import CartaChip, Opcion, SelectorCartas
from mesa.i18n import N_
from mesa.mano import IMPORTES, EntradaError, EntradaMano, row_of
from mesa.storage import StorageError
from scoring.cards import NotationError

MODOS = ("paso", "envite", "no_quiero", "ordago")
TITULOS = {
    "grande": N_("Grande"),
    "chica": N_("Chica"),
    "pares": N_("Pares"),
    "juego": N_("Juego"),
    "punto": N_("Punto"),
}
ETIQUETAS = {
    "paso": N_("Paso"),
    "envite": N_("Envite querido"),
    "no_quiero": N_("No quiero"),
    "ordago": N_("Órdago querido"),
}


class FilaLance(BoxLayout):
    """One lance: paso / envite querido N / no quiero (who, how much) / órdago querido."""

    lance = StringProperty("grande")  # record key: grande, chica, pares, juego (or punto)
    titulo = StringProperty("")
    modo = StringProperty("paso")
    importe = NumericProperty(2)
    gana = NumericProperty(0)
    apostable = BooleanProperty(True)

    def __init__(self, pantalla: ManoScreen, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.pantalla = pantalla
        self.opcion: dict[str, Opcion] = {}
        self.chips: dict[str, Opcion] = {}
        app = App.get_running_app()
        for modo in MODOS:
            b = Opcion(
                text=app.t(ETIQUETAS[modo]),
                group=f"lance_{self.lance}",
                size_hint_y=1,
                state="down" if modo == "paso" else "normal",
            )
            b.bind(on_release=lambda w, m=modo: self.elegir(m))
            self.opcion[modo] = b
            self.ids.opciones.add_widget(b)

    def elegir(self, modo: str) -> None:
        self.modo = modo
        if modo == "no_quiero":
            self.importe = 1
        elif modo == "envite" and self.importe < 2:
            self.importe = 2
        self.aplicar()

    def poner_importe(self, n: int) -> None:
        self.importe = n
        self.aplicar()

    def poner_gana(self, pareja: int) -> None:
        self.gana = pareja
        self.aplicar()

    def aplicar(self) -> None:
        """Write the row into the EntradaMano and redraw the detail line."""
        e: EntradaMano = App.get_running_app().entrada
        try:
            if self.modo == "paso":
                e.paso(self.lance)
            elif self.modo == "envite":
                e.envite(self.lance, int(self.importe))
            elif self.modo == "no_quiero":
                e.no_quiero(self.lance, int(self.gana), int(self.importe))
            else:
                e.ordago(self.lance)
        except EntradaError as exc:
            App.get_running_app().avisar(str(exc), error=True)
            self.modo = "paso"
            e.paso(self.lance)
        for m, b in self.opcion.items():
            b.state = "down" if m == self.modo else "normal"
        self.dibujar_detalle()

    def dibujar_detalle(self) -> None:
        app = App.get_running_app()
        box = self.ids.detalle
        box.clear_widgets()
        self.chips = {}
        for m in ("envite", "no_quiero", "ordago"):
            self.opcion[m].disabled = not self.apostable
        if not self.apostable:
            box.add_widget(Label(text=self.pantalla.motivos.get(self.lance, ""), font_size="22sp"))
            return
        if self.modo == "paso":
            box.add_widget(Label(text=app.t("En paso: el lance se cuenta al final"), font_size="20sp"))
        elif self.modo == "envite":
            for n in IMPORTES:
                self._chip(box, f"i{n}", str(n), self.importe == n, partial(self.poner_importe, n))
        elif self.modo == "no_quiero":
            for k in (0, 1):
                self._chip(
                    box,
                    f"g{k}",
                    self.pantalla.parejas[k],
                    self.gana == k,
                    partial(self.poner_gana, k),
                    ancho=dp(210),
                )
            for n in (1, 2, 3, 4, 5, 10):
                self._chip(box, f"i{n}", str(n), self.importe == n, partial(self.poner_importe, n))
        else:
            box.add_widget(Label(text=app.t("Quien gane el lance gana el juego"), font_size="20sp"))

    def _chip(
        self, box: BoxLayout, key: str, text: str, on: bool, action: Callable[[], object], ancho: float | None = None
    ) -> None:
        b = Opcion(text=text, state="down" if on else "normal", size_hint_y=1)
        if ancho:
            b.size_hint_x, b.width = None, ancho
        b.bind(on_release=lambda w: action())
        self.chips[key] = b
        box.add_widget(b)


class ManoScreen(Screen):
    titulo = StringProperty("")
    pista = StringProperty("")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.filas: dict[str, FilaLance] = {}
        self.chips_asiento: list[list[CartaChip]] = []
        self.parejas: tuple[str, str] = ("", "")
        self.motivos: dict[str, str] = {}
        self.selector: SelectorCartas | None = None
        self.asiento_sel = 0
        self.pendiente: list[str] = []

    @property
    def entrada(self) -> EntradaMano:
        return App.get_running_app().entrada

    def on_pre_enter(self, *_: object) -> None:
        app = App.get_running_app()
        if app.entrada is None:
            app.entrada = app.ctl.entrada()
        if len(app.cartas_leidas) == 4:
            try:
                self.entrada.poner_cartas(list(app.cartas_leidas))
            except (NotationError, EntradaError) as exc:
                app.avisar(str(exc), error=True)
            app.cartas_leidas = []
        self.parejas = self.entrada.parejas
        v = app.ctl.vista()
        self.titulo = f"{app.t('Mano nº')} {v.numero_mano} · {app.t('es mano')}: {v.jugadores[self.entrada.mano]}"
        self.construir()

    def construir(self) -> None:
        self._asientos()
        self._lances()

    def _asientos(self) -> None:
        app = App.get_running_app()
        box = self.ids.asientos
        box.clear_widgets()
        self.chips_asiento = []
        self.botones_mano: list[Opcion] = []
        jug = app.ctl.info["jugadores"]
        for seat in range(4):
            row = BoxLayout(spacing=dp(2))  # rows share the height: fits 800 and 640 px
            es_mano = seat == self.entrada.mano
            name = Opcion(
                text=jug[seat] + (f"\n({app.t('mano')})" if es_mano else ""),
                group="mano_asiento",
                state="down" if es_mano else "normal",
                size_hint=(None, 1),
                width=dp(112),
                halign="center",
                font_size="20sp",
            )
            name.text_size = (dp(116), None)
            name.bind(on_release=lambda w, s=seat: self.cambiar_mano(s))
            self.botones_mano.append(name)
            row.add_widget(name)
            cards = (self.entrada.cartas[seat] or "").split()
            chips = []
            for i in range(4):
                chip = CartaChip(carta=cards[i] if i < len(cards) else "", size_hint=(None, 1))
                chip.bind(height=lambda w, h: setattr(w, "width", min(dp(76), h * 0.8)))
                chip.bind(on_release=lambda w, s=seat: self.editar_cartas(s))
                chips.append(chip)
                row.add_widget(chip)
            self.chips_asiento.append(chips)
            box.add_widget(row)

    def _lances(self) -> None:
        app = App.get_running_app()
        box = self.ids.lances
        box.clear_widgets()
        self.filas = {}
        self.motivos = {}
        for estado in self.entrada.estado():
            key = row_of(estado.lance)
            self.motivos[key] = app.t(estado.plantilla[0]).format(*estado.plantilla[1:]) if estado.plantilla else ""
            fila = FilaLance(self, lance=key, titulo=app.t(TITULOS[estado.lance]), apostable=estado.apostable)
            self._cargar(fila, estado.resultado)
            fila.aplicar()
            self.filas[key] = fila
            box.add_widget(fila)
        self.pista = "" if self.entrada.cartas_completas() else app.t("Faltan cartas: léelas o escríbelas")

    @staticmethod
    def _cargar(fila: FilaLance, res: object) -> None:
        if isinstance(res, dict) and "quiero" in res:
            fila.modo, fila.importe = "envite", res["quiero"]
        elif isinstance(res, dict) and "no_quiero" in res:
            fila.modo, fila.importe, fila.gana = "no_quiero", res["no_quiero"], res["gana"]
        elif isinstance(res, dict) and "ordago" in res:
            fila.modo = "ordago"

    def cambiar_mano(self, seat: int) -> None:
        """With mus corrido the mano passes on until someone cuts: record who really was."""
        app = App.get_running_app()
        if seat != self.entrada.mano and not app.ctl.partida.estado.mus_corrido:
            app.avisar(app.t("Solo con mus corrido puede ser mano otro jugador"), error=True)
        elif seat != self.entrada.mano:
            self.entrada.mano = seat
            v = app.ctl.vista()
            self.titulo = f"{app.t('Mano nº')} {v.numero_mano} · {app.t('es mano')}: {v.jugadores[seat]}"
        self._asientos()

    # -- cards ----------------------------------------------------------------------------
    def primer_asiento_libre(self) -> int:
        for seat, text in enumerate(self.entrada.cartas):
            if not text:
                return seat
        return 0

    def leer_cartas(self) -> None:
        App.get_running_app().ir("cartas")

    def editar_cartas(self, seat: int) -> None:
        self.asiento_sel = seat
        self.pendiente = (self.entrada.cartas[seat] or "").split()
        self.selector = SelectorCartas(
            self._titulo_selector(),
            self.tocar_carta,
            self.entrada.cartas_usadas(salvo=seat),
            al_cerrar=self._cerrar_selector,
        )
        self.selector.open()

    def _titulo_selector(self) -> str:
        app = App.get_running_app()
        name = app.ctl.info["jugadores"][self.asiento_sel]
        return f"{app.t('Cartas de')} {name} ({len(self.pendiente)}/4)"

    def tocar_carta(self, card: str) -> None:
        """Grid tap: add/remove the card; 4 cards complete the seat and move to the next."""
        if card in self.pendiente:
            self.pendiente.remove(card)
            self.entrada.cartas[self.asiento_sel] = None
        elif len(self.pendiente) < 4:
            self.pendiente.append(card)
        if len(self.pendiente) == 4:
            try:
                self.entrada.poner_mano(self.asiento_sel, " ".join(self.pendiente))
            except (NotationError, EntradaError) as exc:
                App.get_running_app().avisar(str(exc), error=True)
                return
            nxt = self.primer_asiento_libre()
            if self.entrada.cartas_completas():
                if self.selector is not None:
                    self.selector.cerrar()
                return
            self.asiento_sel, self.pendiente = nxt, []
        if self.selector:
            used = self.entrada.cartas_usadas(salvo=self.asiento_sel)
            self.selector.bloquear(used, set(self.pendiente))
            self.selector.titulo.text = self._titulo_selector()

    def _cerrar_selector(self) -> None:
        self.selector = None
        self.construir()

    # -- tanteo ---------------------------------------------------------------------------
    def tantear(self) -> None:
        app = App.get_running_app()
        try:
            app.resultado = app.ctl.previsualizar(self.entrada)
        except (EntradaError, NotationError, ValueError, StorageError) as exc:  # scoring/'s errors are ValueErrors
            app.avisar(str(exc), error=True)
            return
        app.ir("tanteo")
