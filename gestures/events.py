"""Temporal event detector: per-frame scores -> gesture events (no MediaPipe needed).

One small state machine per gesture, with hysteresis (enter above ``entrar``, leave below
``salir``), a minimum duration (a blink is not ``ojos_cerrados``, a syllable is not ``morro``),
a short tolerance for dropped frames (``hueco``) and a cooldown after each event.

    >>> det = EventDetector()
    >>> for i in range(30):
    ...     t = i / 10
    ...     _ = det.update(t, {"guino": 0.9 if 1.0 <= t < 1.6 else 0.0}, {"guino": "a"})
    >>> [(e.gesto, e.lado, e.inicio, e.fin) for e in det.eventos]
    [('guino', 'a', 1.0, 1.5)]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from gestures.types import GESTOS, Evento


@dataclass(frozen=True)
class Tiempos:
    """Hysteresis and timing of one gesture (seconds)."""

    entrar: float = 0.6
    salir: float = 0.35
    minimo: float = 0.3
    hueco: float = 0.08  # at most this long below ``salir`` inside a gesture...
    hueco_frames: int = 2  # ...and at most this many frames (speech flickers for longer)
    enfriar: float = 0.2
    # confirmed only once one of its frames was clearly shown (the scorer's ``claros``): a seña
    # made on purpose gets there at some point, a slight expression held long enough never does
    claro: bool = False


# A wink is short but one-eyed; both eyes closed must outlast a blink (0.1-0.4 s);
# mouth and brow señas must outlast a syllable of speech.
TIEMPOS: dict[str, Tiempos] = {
    "guino": Tiempos(minimo=0.15),
    "ojos_cerrados": Tiempos(minimo=0.48),
    "cejas_arriba": Tiempos(minimo=0.3),
    "morro": Tiempos(minimo=0.3),
    "labios_lado": Tiempos(minimo=0.25, claro=True),
    "labio_mordido": Tiempos(minimo=0.3),
    "lengua_fuera": Tiempos(minimo=0.25),
    "lengua_lado": Tiempos(minimo=0.25),
    "hombros_arriba": Tiempos(minimo=0.3),
    "hombro_arriba": Tiempos(minimo=0.3),
}

# What each field may be: scores are 0..1, times are seconds (a seña lasts a few), frames a
# count, ``claro`` true or false.
LIMITES: dict[str, tuple[type, float]] = {
    "entrar": (float, 1.0),
    "salir": (float, 1.0),
    "minimo": (float, 60.0),
    "hueco": (float, 60.0),
    "hueco_frames": (int, 1000),
    "enfriar": (float, 60.0),
    "claro": (bool, 1.0),
}


def tiempos_with(overrides: Mapping[str, object], base: Mapping[str, Tiempos] = TIEMPOS) -> dict[str, Tiempos]:
    """``base`` with some gestures' timings changed (``{"guino": {"minimo": 0.2}}``), each value
    checked (type, finite, in range, ``salir`` not above ``entrar``); ValueError (one Spanish
    line) otherwise."""
    tiempos = dict(base)
    for gesto, changes in overrides.items():
        if gesto not in tiempos:
            raise ValueError(f"tiempos: gesto desconocido {str(gesto)[:40]!r} (los gestos: {', '.join(tiempos)})")
        if not isinstance(changes, Mapping):
            raise ValueError(f'tiempos de {gesto}: se espera un objeto, p. ej. {{"minimo": 0.2}}')
        checked = {name: _tiempo(gesto, name, value) for name, value in changes.items()}
        nuevo = replace(tiempos[gesto], **checked)  # type: ignore[arg-type]
        if nuevo.salir > nuevo.entrar:
            raise ValueError(
                f"tiempos de {gesto}: salir ({nuevo.salir:g}) no puede ser mayor que entrar ({nuevo.entrar:g})"
            )
        tiempos[gesto] = nuevo
    return tiempos


def _tiempo(gesto: str, name: object, value: object) -> float | int | bool:
    if name not in LIMITES:
        raise ValueError(f"tiempos de {gesto}: campo desconocido {str(name)[:40]!r} (los campos: {', '.join(LIMITES)})")
    kind, top = LIMITES[str(name)]
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"tiempos de {gesto}: {name} debe ser true o false")
        return value
    # bool is an int in Python, but `true` is not a time; a count of frames must be whole
    ok = int if kind is int else int | float
    if isinstance(value, bool) or not isinstance(value, ok):
        what = "un número entero" if kind is int else "un número"
        raise ValueError(f"tiempos de {gesto}: {name} debe ser {what}")
    if not (0 <= value <= top):  # also false for NaN
        raise ValueError(f"tiempos de {gesto}: {name} fuera de rango (de 0 a {top:g})")
    return kind(value)


# What a blink (``sin_inicio``) cuts short when it comes in the middle: every face seña. The
# shoulders are not the face: a shrug goes on through a blink, it only cannot start on one.
CORTA_PARPADEO: frozenset[str] = frozenset(GESTOS) - {"hombro_arriba", "hombros_arriba"}
# The lids begin to close a frame or two before a blink is seen (both eyes past half shut): a
# seña cut by a blink ends before these seconds, and one confirmed only in them is none.
CIERRE = 0.07
# ...but a wink's own frames are those of one eye closing: when the other eye narrows with it
# the blink watch may take the two for a blink (a real wink here did); a wink held its
# minimum before that keeps all its frames (a blink's own lopsided start never gets there:
# the wink is held at 0 from the blink's first frame and its cue needs the other eye open)
SIN_CIERRE: frozenset[str] = frozenset({"guino"})

# When both members of a pair are confirmed together, the first one wins: a shrug of both
# shoulders often starts with one; closing both eyes often starts with one.
PREFERIDO = {"hombro_arriba": "hombros_arriba", "guino": "ojos_cerrados", "lengua_fuera": "lengua_lado"}
ESPERA = 0.25  # a lesser gesture's event waits this long in case its partner follows


@dataclass
class _Track:
    inicio: float | None = None  # first frame above entrar
    ultimo: float = 0.0  # last frame above salir
    lado: str | None = None
    suma: float = 0.0
    n: int = 0
    bajos: int = 0  # consecutive frames below salir
    claro: bool = False  # one of its frames was clearly shown
    confirmado: bool = False
    confirmado_en: float = 0.0  # when it was confirmed
    vistos: list[float] = field(default_factory=list)  # its last few frames above salir
    libre_desde: float = float("-inf")  # end of cooldown


@dataclass
class EventDetector:
    """Feed ``update(t, scores, lados)`` frame by frame; read ``eventos`` (all finished)."""

    tiempos: Mapping[str, Tiempos] = field(default_factory=lambda: dict(TIEMPOS))
    eventos: list[Evento] = field(default_factory=list)
    _tracks: dict[str, _Track] = field(default_factory=dict)
    _pending: list[Evento] = field(default_factory=list)

    def update(
        self,
        t: float,
        scores: Mapping[str, float],
        lados: Mapping[str, str] | None = None,
        sin_inicio: Collection[str] = (),
        claros: Collection[str] = (),
        desde: Mapping[str, float] | None = None,
    ) -> list[Evento]:
        """Advance to time ``t``; return the events that ended at this frame. The gestures in
        ``sin_inicio`` do not start at this frame, and those of :data:`CORTA_PARPADEO` in
        progress end at their last frame before (a blink never starts, confirms or carries a
        face seña; what was confirmed before it is an event that stops short of it); those in
        ``claros`` are clearly shown at this frame (what a gesture whose ``claro`` is set needs
        once before it is confirmed); a gesture in ``desde`` that starts at this frame started
        at that earlier time instead (a wink seen only once the blink watch knows the closure of
        both eyes before it was the wink's own: :class:`gestures.context.Veda`), and is confirmed
        at once if it has been held its minimum since."""
        lados = lados or {}
        desde = desde or {}
        ended: list[Evento] = []
        for g in GESTOS:
            tr = self._tracks.setdefault(g, _Track())
            if g in sin_inicio and (tr.inicio is None or g in CORTA_PARPADEO):
                if tr.inicio is not None:
                    cut = self._cut(g, tr, t)
                    if cut is not None:
                        ended.append(cut)
                continue
            ev = self._step(g, tr, t, float(scores.get(g, 0.0)), lados.get(g), g in claros, desde.get(g))
            if ev is not None:
                ended.append(ev)
        return self._release(self._resolve_pairs(ended), t)

    def activos(self, t: float) -> list[Evento]:
        """Gestures confirmed and not yet finished, as provisional events ending at ``t``."""
        out = []
        for g, tr in self._tracks.items():
            if tr.confirmado and tr.inicio is not None and not self._shadowed(g):
                out.append(Evento(g, tr.lado, tr.inicio, t, tr.suma / max(tr.n, 1)))
        return out

    def finish(self, t: float) -> list[Evento]:
        """End of stream: close the gestures still held."""
        ended = []
        for g, tr in self._tracks.items():
            if tr.confirmado and tr.inicio is not None:
                ended.append(self._close(g, tr, max(tr.ultimo, t)))
            tr.inicio, tr.confirmado = None, False
        return self._release(self._resolve_pairs(ended), float("inf"))

    # --- internals --------------------------------------------------------------------------

    def _step(
        self, g: str, tr: _Track, t: float, s: float, lado: str | None, claro: bool = False, desde: float | None = None
    ) -> Evento | None:
        cfg = self.tiempos.get(g, Tiempos())
        if tr.inicio is None:
            if s >= cfg.entrar and t >= tr.libre_desde:
                inicio = t if desde is None else max(min(desde, t), tr.libre_desde)
                tr.inicio, tr.ultimo, tr.lado, tr.suma, tr.n, tr.bajos, tr.claro = inicio, t, lado, s, 1, 0, claro
                tr.vistos = [t]
                if t - inicio >= cfg.minimo and (claro or not cfg.claro):
                    tr.confirmado, tr.confirmado_en = True, t
            return None
        if s >= cfg.salir and (lado == tr.lado or lado is None or tr.lado is None):
            tr.ultimo, tr.suma, tr.n, tr.bajos = t, tr.suma + s, tr.n + 1, 0
            tr.vistos = [*tr.vistos[-3:], t]
            tr.claro = tr.claro or claro
            if not tr.confirmado and t - tr.inicio >= cfg.minimo and (tr.claro or not cfg.claro):
                tr.confirmado, tr.confirmado_en = True, t
            return None
        tr.bajos += 1
        if t - tr.ultimo <= cfg.hueco and tr.bajos <= cfg.hueco_frames and lado in (None, tr.lado):
            return None  # a dropped or noisy frame inside a held gesture
        ev = self._close(g, tr, tr.ultimo) if tr.confirmado else None
        tr.inicio, tr.confirmado = None, False
        if ev is not None:
            tr.libre_desde = ev.fin + cfg.enfriar
        elif s >= cfg.entrar and lado != tr.lado:
            tr.inicio, tr.ultimo, tr.lado, tr.suma, tr.n, tr.bajos, tr.claro = t, t, lado, s, 1, 0, claro  # new side
            tr.vistos = [t]
        return ev

    def _cut(self, g: str, tr: _Track, t: float) -> Evento | None:
        """End a gesture in progress at ``t``, the first frame of a blink: at its last frame
        before the lids began to close (:data:`CIERRE` before), an event if it was confirmed
        by then (then the cooldown), nothing otherwise."""
        before = [v for v in tr.vistos if v <= t - (0.0 if g in SIN_CIERRE else CIERRE)]
        fin = before[-1] if before else None
        keep = tr.confirmado and fin is not None and tr.confirmado_en <= fin and tr.inicio is not None
        ev = self._close(g, tr, fin) if keep and fin is not None else None
        tr.inicio, tr.confirmado = None, False
        if ev is not None:
            tr.libre_desde = ev.fin + self.tiempos.get(g, Tiempos()).enfriar
        return ev

    def _release(self, ended: list[Evento], t: float) -> list[Evento]:
        """Hold lesser gestures for ESPERA; drop them if their preferred partner began."""
        self._pending.extend(e for e in ended if e.gesto in PREFERIDO)
        out = [e for e in ended if e.gesto not in PREFERIDO]
        still = []
        for ev in self._pending:
            partner = PREFERIDO[ev.gesto]

            def near(start: float, ev: Evento = ev) -> bool:
                return ev.inicio - ESPERA <= start <= ev.fin + ESPERA

            rival = self._tracks.get(partner)
            rival_now = rival.inicio if rival is not None else None
            if any(e.gesto == partner and near(e.inicio) for e in self.eventos + out) or (
                rival is not None and rival.confirmado and rival_now is not None and near(rival_now)
            ):
                continue  # part of the partner gesture (one shoulder first, then both)
            waiting = rival_now is not None and near(rival_now) and t != float("inf")
            if t >= ev.fin + ESPERA and not waiting:
                out.append(ev)
            else:
                still.append(ev)
        self._pending = still
        out.sort(key=lambda e: e.inicio)
        self.eventos.extend(out)
        return out

    @staticmethod
    def _close(g: str, tr: _Track, fin: float) -> Evento:
        assert tr.inicio is not None
        return Evento(g, tr.lado, tr.inicio, fin, tr.suma / max(tr.n, 1))

    def _shadowed(self, g: str) -> bool:
        other = PREFERIDO.get(g)
        if other is None:
            return False
        mine, theirs = self._tracks.get(g), self._tracks.get(other)
        return bool(
            mine
            and theirs
            and theirs.confirmado
            and theirs.inicio is not None
            and mine.inicio is not None
            and theirs.inicio <= mine.ultimo
        )

    @staticmethod
    def _resolve_pairs(ended: list[Evento]) -> list[Evento]:
        """Drop a lesser gesture that overlaps its preferred partner ending at the same frame."""
        keep = []
        for ev in ended:
            other = PREFERIDO.get(ev.gesto)
            rival = next((o for o in ended if o.gesto == other), None)
            if rival and rival.inicio <= ev.fin and ev.inicio <= rival.fin:
                continue
            keep.append(ev)
        return keep


def con_sena(ev: Evento, sena: str | None) -> Evento:
    return replace(ev, sena=sena)
