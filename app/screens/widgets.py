"""Widgets shared by the screens: buttons, card chips, the piedras counter, the card picker."""

from __future__ import annotations

from collections.abc import Callable, Set

from kivy.app import App
from kivy.graphics import Color, Ellipse, Line
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

from mesa import cartas
from mesa.i18n import SOURCE
from scoring.cards import RANKS, SUITS, Card

SUIT_COLOURS = {
    "o": (0.72, 0.50, 0.00, 1),  # oros: gold
    "c": (0.72, 0.10, 0.10, 1),  # copas: red
    "e": (0.10, 0.25, 0.55, 1),  # espadas: blue
    "b": (0.18, 0.40, 0.12, 1),  # bastos: green
}


class Boton(Button):
    fondo = ColorProperty((0.52, 0.32, 0.15, 1))


class Opcion(ToggleButton):
    """A choice in a group (paso / envite / ...): gold when selected."""

    allow_no_selection = BooleanProperty(False)


def _idioma() -> str:
    app = App.get_running_app()
    return str(getattr(app, "lang", SOURCE) or SOURCE)


def card_label(card_id: str, idioma: str | None = None) -> str:
    """The chip's text: the short rank over the suit's name, as the phone pages name a card."""
    idioma = idioma or _idioma()
    c = Card.parse(card_id)
    return f"{cartas.corta(c, idioma)}\n[size=15sp]{cartas.nombre_palo(c.suit, idioma)}[/size]"


class CartaChip(Button):
    """One card as a tappable chip: rank and suit name in the suit's colour."""

    carta = StringProperty("")
    dudosa = BooleanProperty(False)  # low confidence from the card reader: orange
    tinta = ColorProperty((0.16, 0.12, 0.08, 1))

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.markup = True
        self.bind(carta=self._update)
        self._update()

    def _update(self, *_: object) -> None:
        if not self.carta:
            self.text, self.tinta = "?", (0.4, 0.3, 0.2, 1)
            return
        self.text = card_label(self.carta)
        self.tinta = SUIT_COLOURS[self.carta[-1]]


class Piedras(Widget):
    """Tantos drawn the way players count them: amarracos (5) as big beads, piedras small."""

    amarracos = NumericProperty(0)
    piedras = NumericProperty(0)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self._draw, size=self._draw, amarracos=self._draw, piedras=self._draw)

    def _draw(self, *_: object) -> None:
        self.canvas.clear()
        big, small, gap = dp(34), dp(20), dp(8)
        x, y = self.x, self.top - big
        with self.canvas:
            for _i in range(int(self.amarracos)):
                if x + big > self.right:
                    x, y = self.x, y - big - gap
                Color(0.97, 0.94, 0.85, 1)
                Ellipse(pos=(x, y), size=(big, big))
                Color(0.52, 0.32, 0.15, 1)
                Line(circle=(x + big / 2, y + big / 2, big / 2 - dp(3)), width=dp(2))
                x += big + gap
            for _i in range(int(self.piedras)):
                if x + small > self.right:
                    x, y = self.x, y - big - gap
                Color(0.62, 0.40, 0.16, 1)
                Ellipse(pos=(x, y + (big - small) / 2), size=(small, small))
                x += small + gap


class Marcas(Widget):
    """Juegos or vacas won out of the total, as filled and empty rings."""

    ganados = NumericProperty(0)
    total = NumericProperty(1)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self._draw, size=self._draw, ganados=self._draw, total=self._draw)

    def _draw(self, *_: object) -> None:
        self.canvas.clear()
        d, gap = dp(26), dp(10)
        y = self.center_y - d / 2
        with self.canvas:
            for i in range(int(self.total)):
                x = self.x + i * (d + gap)
                Color(0.90, 0.72, 0.30, 1)
                if i < self.ganados:
                    Ellipse(pos=(x, y), size=(d, d))
                else:
                    Line(circle=(x + d / 2, y + d / 2, d / 2 - dp(1)), width=dp(2))


class SelectorCartas(ModalView):
    """The 40-card grid: pick cards for a seat (or one card to correct a reading).

    ``al_elegir(card_id)`` is called for each tapped card; cards in ``bloqueadas`` are disabled.
    """

    def __init__(
        self,
        titulo: str,
        al_elegir: Callable[[str], None],
        bloqueadas: set[str],
        al_cerrar: Callable[[], None] | None = None,
        marcadas: set[str] | None = None,
    ):
        super().__init__(size_hint=(0.96, 0.94), auto_dismiss=False, background_color=(0, 0, 0, 0.7))
        self._anim_duration = 0  # no fade: a tap right after closing reaches the screen
        self.al_elegir, self.al_cerrar = al_elegir, al_cerrar
        box = BoxLayout(orientation="vertical", padding=dp(10), spacing=dp(8))
        top = BoxLayout(size_hint_y=None, height=dp(70), spacing=dp(10))
        self.titulo = Label(text=titulo, font_size="28sp", bold=True)
        top.add_widget(self.titulo)
        app = App.get_running_app()
        cerrar = Boton(text=app.t("Listo") if app else "Listo", size_hint_x=None, width=dp(180))
        cerrar.bind(on_release=lambda *_: self.cerrar())
        top.add_widget(cerrar)
        box.add_widget(top)
        grid = GridLayout(cols=len(RANKS), spacing=dp(6))
        self.chips: dict[str, CartaChip] = {}
        for suit in SUITS:
            for rank in RANKS:
                cid = f"{rank}{suit}"
                chip = CartaChip(carta=cid, size_hint=(1, 1), disabled=cid in bloqueadas)
                chip.dudosa = bool(marcadas and cid in marcadas)
                chip.bind(on_release=lambda w, c=cid: self.al_elegir(c))
                self.chips[cid] = chip
                grid.add_widget(chip)
        box.add_widget(grid)
        self.add_widget(box)

    def bloquear(self, bloqueadas: set[str], marcadas: Set[str] = frozenset()) -> None:
        for cid, chip in self.chips.items():
            chip.disabled = cid in bloqueadas
            chip.dudosa = cid in marcadas

    def cerrar(self) -> None:
        self.dismiss()
        if self.al_cerrar:
            self.al_cerrar()
