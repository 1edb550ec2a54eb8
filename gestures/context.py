"""What the face did over the last second: a person talking is making no mouth or brow seña.

Speech opens and closes the jaw several times a second, and on the way it shapes pouts ("o",
"u"), lips to a side and raised brows that look, frame by frame, exactly like the regulated
señas (measured on real clips: a spoken "u" pushes the lips out as far as a morro). What tells
them apart is the second around: a seña comes out of a still mouth and is held, speech moves
the jaw up and down, again and again. Fed one frame at a time by the recognizer.

    >>> m = MouthActivity()
    >>> still = [m.update(i / 25, {"jawOpen": 0.05, "lip_gap": 0.01}) for i in range(25)]
    >>> still[0], still[-1]
    (1.0, 0.0)
    >>> talk = [m.update(1 + i / 25, {"jawOpen": 0.05 + 0.3 * (i % 6 < 3),
    ...                               "lip_gap": 0.01 + 0.1 * (i % 6 < 3)}) for i in range(25)]
    >>> talk[-1]
    1.0
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gestures.scorer import ramp

# The señas the mouth and brows make: speech fakes them; eyes and shoulders are not affected.
SPEECH_FAKES = ("morro", "labios_lado", "labio_mordido", "lengua_fuera", "lengua_lado", "cejas_arriba")


@dataclass(frozen=True)
class ActivitySettings:
    """How many openings and closings of the mouth over how long are talking."""

    window: float = 1.5  # seconds looked back
    gap_step: float = 0.04  # a move of the lip gap at least this big (IOD) counts...
    jaw_step: float = 0.12  # ...or of jawOpen, when the lips move too...
    jaw_gap_step: float = 0.015  # ...by at least this much
    moves: tuple[float, float] = (2.5, 3.5)  # moves in the window: from not talking to talking
    min_frames: int = 4  # fewer frames in the window: not enough to tell...
    known_after: float = 0.6  # ...nor less than this many seconds of the face


def moves(values: Sequence[float], step: float) -> int:
    """Up and down moves of at least ``step`` between turning points (a zigzag count).

    Opening the mouth for a seña and closing it again is two moves; speech makes several a
    second.

    >>> moves([0, 0.1, 0.1, 0.1, 0], 0.05), moves([0, 0.1, 0, 0.1, 0, 0.1], 0.05)
    (2, 5)
    """
    count, anchor, up = 0, values[0] if values else 0.0, None
    for v in values[1:]:
        if up is None or (v - anchor) * (1 if up else -1) > 0:
            if up is None and abs(v - anchor) >= step:
                up, count = v > anchor, count + 1
            if up is not None:
                anchor = v
        elif abs(v - anchor) >= step:
            up, anchor, count = not up, v, count + 1
    return count


class MouthActivity:
    """Running measure (0..1) of how much the person is talking."""

    def __init__(self, settings: ActivitySettings | None = None) -> None:
        self.settings = settings or ActivitySettings()
        self._rows: deque[tuple[float, float, float]] = deque()

    def reset(self) -> None:
        self._rows.clear()

    def known(self, t: float) -> bool:
        """Whether the face has been seen long enough to tell if it talks."""
        s = self.settings
        return len(self._rows) >= s.min_frames and t - self._rows[0][0] >= s.known_after

    def update(self, t: float, feats: Mapping[str, float]) -> float:
        """Add one frame (no face: nothing added) and return the talking measure at ``t``."""
        s = self.settings
        if feats and "jawOpen" in feats:
            self._rows.append((t, feats["jawOpen"], feats.get("lip_gap", 0.0)))
        while self._rows and t - self._rows[0][0] > s.window:
            self._rows.popleft()
        # a face just found: whether it is talking is not known yet, so it counts as talking
        if not self.known(t):
            return 1.0
        jaw = [r[1] for r in self._rows]
        gap = [r[2] for r in self._rows]
        # the jaw blendshape also moves when the chin is raised with the lips shut (a pout):
        # its moves count only as far as the lips move with them
        jaw_moves = min(moves(jaw, s.jaw_step), moves(gap, s.jaw_gap_step))
        return ramp(max(moves(gap, s.gap_step), jaw_moves), *s.moves)


def hush(scores: dict[str, float], talking: float) -> dict[str, float]:
    """Scores with the señas speech fakes turned down by how much the person talks."""
    if talking <= 0.0:
        return scores
    out = dict(scores)
    for g in SPEECH_FAKES:
        if g in out:
            out[g] = round(out[g] * (1.0 - talking), 4)
    return out


# --- blinks -------------------------------------------------------------------------------------

# What a blink confuses: the lids (a wink, closed eyes) and the brows (the mesh and the
# blendshapes read them raised during a blink and for a few tenths of a second after); and a
# blink starts no seña of any kind.


@dataclass(frozen=True)
class BlinkSettings:
    """What a blink is: both eyes shut together, briefly."""

    shut: float = 0.5  # an eye's closure score (the wink's, 0..1) this high: shut
    longest: float = 0.45  # s: both eyes shut longer than this are closed eyes, not a blink
    after: float = 0.15  # s after a blink: the lids settle; no seña starts, no wink, no closure
    brows_after: float = 0.4  # s after a blink the brows still read raised
    # A wink squeezed hard narrows the other eye too, and for a moment both read shut. What
    # tells it from a blink is how it ends: in a blink both eyes open again together (in the
    # 38 labelled blinks of the shared clips one eye trails the other by one frame, two at
    # 25 fps: 0.08 s), in a wink the winking eye stays shut after the other opens. So both eyes
    # shut briefly are a wink's narrowing, not a blink, once the same eye has been shut alone
    # for ``wink_trail`` frames after it and ``wink_alone`` seconds in all, counting the frames
    # it was shut alone just before (set on senas-lp d7 and d1's winks: 0.067 s; a blink there
    # reached 0.04 s)
    wink_trail: int = 2
    wink_alone: float = 0.06


@dataclass(frozen=True)
class Veda:
    """One frame's verdict of :class:`BlinkWatch`: what a blink rules out at that frame."""

    parpadeo: bool = False  # inside a blink (both eyes shut, not yet for longer than a blink)
    ojos: bool = False  # no wink and no new closed-eyes: a blink or its last few frames
    cejas: bool = False  # no raised brows: a blink or the tenths of a second after it
    inicio: bool = False  # no seña starts now (a blink never starts one)
    # the both-eyes closure just before was a wink's narrowing (``BlinkSettings.wink_trail``):
    # the wink started this long ago (its first frame with the eye shut), no blink rules it out
    guino_desde: float | None = None


class BlinkWatch:
    """Follows both eyes' closure frame by frame and says when a blink rules gestures out.

    A blink is both eyes shut at once for at most ``longest`` seconds (symmetric and short);
    its lopsided ends, one eye shutting first or opening last, fall into the blink itself or
    into the ``after`` seconds that follow it.

    >>> w = BlinkWatch()  # both eyes shut for frames 5-8 at 25 fps: 0.12 s
    >>> "".join("x" if w.update(i / 25, *((0.9, 0.9) if 5 <= i < 9 else (0.0, 0.0))).ojos
    ...         else "." for i in range(14))
    '.....xxxxxxx..'
    """

    def __init__(self, settings: BlinkSettings | None = None) -> None:
        self.settings = settings or BlinkSettings()
        self.reset()

    def reset(self) -> None:
        self._start: float | None = None  # both eyes shut since
        self._last = 0.0  # last frame both were shut
        self._end = float("-inf")  # last frame of the last blink
        self._alone: tuple[str, float, int] | None = None  # one eye shut alone: side, since, frames
        self._lead: tuple[str, float] | None = None  # that run just before both shut: side, since
        self._episode = (0.0, 0.0)  # the last short closure of both eyes: first and last frame
        self._lead_of_episode: tuple[str, float] | None = None
        self._wink: float | None = None  # the closure turned out a wink's: it started then
        self._trail = False  # the eye shut alone now has been since the closure ended

    def update(self, t: float, closure_a: float, closure_b: float) -> Veda:
        s = self.settings
        both = min(closure_a, closure_b) >= s.shut
        ended = False
        one = None if both or max(closure_a, closure_b) < s.shut else ("a" if closure_a >= s.shut else "b")
        if both:
            if self._start is None:
                self._start = t
                self._lead = None if self._alone is None else self._alone[:2]
            self._last = t
        elif self._start is not None:
            if self._last - self._start <= s.longest:
                self._end = self._last
                self._episode, self._lead_of_episode = (self._start, self._last), self._lead
                ended = True
            self._start = None
        # the same eye shut alone since the frame after a short closure of both
        if one is None:
            self._alone, self._wink = None, None
        elif self._alone is None or self._alone[0] != one:
            self._alone, self._wink, self._trail = (one, t, 1), None, ended
        else:
            self._alone = (one, self._alone[1], self._alone[2] + 1)
        if self._alone is not None and self._wink is None and self._trail:
            side, since, frames = self._alone
            lead = self._lead_of_episode if self._lead_of_episode and self._lead_of_episode[0] == side else None
            alone = (t - since) + (self._episode[0] - lead[1] if lead else 0.0)
            if frames >= s.wink_trail and alone >= s.wink_alone - 1e-9:
                self._wink = lead[1] if lead else self._episode[0]
        blinking = both and self._start is not None and t - self._start <= s.longest
        since_end = t - self._end
        eyes = (blinking or 0 < since_end <= s.after) and self._wink is None
        return Veda(
            parpadeo=blinking,
            ojos=eyes,
            cejas=blinking or 0 < since_end <= s.brows_after,
            inicio=eyes,
            guino_desde=self._wink,
        )


def veto(scores: dict[str, float], veda: Veda) -> dict[str, float]:
    """Scores with what a blink fakes taken out: wink and brows over the blink and after it,
    closed eyes only after it (a closure that lasts longer is what closed eyes are)."""
    out = dict(scores)
    if veda.ojos:
        out["guino"] = 0.0
    if veda.ojos and not veda.parpadeo:
        out["ojos_cerrados"] = 0.0
    if veda.cejas:
        out["cejas_arriba"] = 0.0
    return out


# --- looking down --------------------------------------------------------------------------------

# A player looking down at the cards in hand lowers both lids with the gaze, and with the head
# level (no pitch for the scorer's ``eyes_pitch`` to see) the lids may come down far enough to
# read as closed eyes. Shut or lowered over a downcast eye, the lids look the same to the mesh
# and the blendshapes (on the real clips the iris and eyeLookDown read as low on closed eyes as
# on a downcast gaze); what differs is how the eyes got there: closed eyes shut from a level
# gaze, a look down lowers the gaze first, with the eyes still open.


@dataclass(frozen=True)
class GazeSettings:
    """How long the open eyes must look down before the lids that follow are no closed eyes,
    and what looking level again is."""

    # s the open eyes look down (``Scorer.gaze_down`` at 1 or more) before it counts: a blink's
    # or a closure's first frame, one lid on its way down, moves both cues by itself for a frame
    hold: float = 0.1
    # ...and it holds until the open eyes look down by less than this share of it: a gaze held
    # down wavers around the threshold (senas d3's dropped to 0.98 of it for one frame, just
    # before the lids came down)
    level: float = 0.5


class GazeWatch:
    """Says, frame by frame, whether the eyes came to where they are from a downward gaze.

    It is set once the open eyes have looked down for ``hold`` seconds, holds while the eyes
    are too closed to read the gaze (``None``: the lids coming down, or shut) or look down by
    more than ``level``, and clears at the first frame of open eyes looking (nearly) level.
    While it is set, both eyes shut are no closed-eyes seña (:func:`gaze_veto`).

    >>> w = GazeWatch()  # looking down 0.2 s, the lids come down, then open eyes looking ahead
    >>> reads = [1.2] * 5 + [0.9] + [None] * 9 + [0.1] + [None] * 3
    >>> "".join("x" if w.update(i / 25, r) else "." for i, r in enumerate(reads))
    '...xxxxxxxxxxxx....'
    """

    def __init__(self, settings: GazeSettings | None = None) -> None:
        self.settings = settings or GazeSettings()
        self.reset()

    def reset(self) -> None:
        self.abajo = False  # the eyes came from a downward gaze
        self._since: float | None = None  # the open eyes look down since

    def update(self, t: float, down: float | None) -> bool:
        """One frame's reading of the open eyes' gaze (``Scorer.gaze_down``; None: not
        readable) -> :attr:`abajo`."""
        s = self.settings
        if down is None or down < 1.0:
            self._since = None
            if down is not None and down <= s.level:
                self.abajo = False
        else:
            self._since = t if self._since is None else self._since
            if t - self._since >= s.hold - 1e-9:
                self.abajo = True
        return self.abajo


def gaze_veto(scores: dict[str, float], abajo: bool) -> dict[str, float]:
    """Scores with no closed eyes while the lids are down from a downward gaze."""
    if not abajo or not scores.get("ojos_cerrados"):
        return scores
    return {**scores, "ojos_cerrados": 0.0}
