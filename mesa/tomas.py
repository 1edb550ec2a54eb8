"""Takes of the señas trainer: every practice kept as a labelled real clip (only when the
player turns it on in Ajustes), and exported in the label format of ``training.senas.evaluate``
so that a club measures the recognizer on its own faces.

A take is what the recognizer saw for one dealt hand: the frames of its calibration (the
neutral face, the clip's lead-in) and the frames from the deal to "Comprobar", the seña asked
(the hand, the señas it entitles and their gestures), the events recognised (``mus senas``
dicts: those ended since the deal and those still held at Comprobar) and the player's answer,
"sí, era eso" (True) or "no" (False), None until given. No calibration seen, no take: without
its neutral lead-in a clip cannot be calibrated on again.

On disk, in ``<datos>/tomas/``: ``<id>.mp4`` (cv2.VideoWriter, mp4v, at the mean rate the
frames really came; the per-frame times are in the JSON) and ``<id>.json``. Each file is
written beside its place and renamed into it, the JSON last: a take exists once its JSON does,
so a kill or a full disk never leaves a half take (a clip without its JSON is ignored), and
never touches earlier ones. The clip is encoded twice (JPEG in memory, then mp4v), so a replay
sees nearly, not exactly, the frames the recognizer saw live.

How a take becomes labels (:func:`etiquetas`), frames 0-based in its clip:

- its calibration frames: ``neutro`` (what ``evaluate --calibracion neutra`` calibrates on);
- answered "sí": each recognised event is labelled with its gesture, on the frames it spanned
  (winks by the eye as the viewer sees it, like the shared labels). The player said that was
  what they did, so the rest of the take holds no seña: a later recognizer firing there makes
  a false event;
- answered "no": nothing is required (it may have missed, confused or invented a seña, we do
  not know which): each recognised event becomes ambiguous (``gesto?``) on its frames, and each
  gesture asked becomes ambiguous over the whole attempt. A future event of another gesture
  still counts as false there; one of those gestures is neither found nor wrong;
- not answered: left out of the export (nothing is known of it).

Labels take the frames of the recognizer that made the take, so a club's timing figures are
relative to it. ``evaluate``'s own automatic calibration takes the first 2 s, the app's lead-in
is about 1 s: a seña made within a second of the deal is then counted apart (``calib.``).

    >>> t = {"calibracion": {"fotogramas": 2}, "fotogramas": 6, "respuesta": True,
    ...      "eventos": [{"gesto": "guino", "lado": "derecho"}], "marcos": [[3, 4]],
    ...      "pedido": {"gestos": ["guino"]}, "espejo": False}
    >>> etiquetas(t)
    [['neutro', 0, 1, 'calibración'], ['guino_izquierdo', 3, 4, 'reconocido y confirmado']]
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import time
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

from common.files import PRIVATE_MODE, write_atomic
from mesa.i18n import N_, SOURCE
from mesa.storage import Aviso

FORMATO: Final = "musmesa-toma-1"
AJUSTE: Final = "guardar_tomas"  # the settings key ("1" on, anything else off)
CARPETA: Final = "tomas"
MAX_SEGUNDOS_INTENTO: Final = 45.0  # a longer attempt keeps its first 45 s (~80 MB at 20 fps)
MAX_CALIBRACION: Final = 120  # calibration frames kept (the last ones)
# Frames wait in memory as JPEG until the take is written (the rate is known only then).
# 98, not 92: at 92 the bundled clip's bitten lip was no longer found once written (~90 kB a
# frame at 640x480, 3.6 ms to encode).
CALIDAD_JPEG: Final = 98
FPS_SIN_MEDIDA: Final = 10.0  # a take of one frame has no rate to measure
# the recognizer names the player's side; on an unmirrored image the player's right eye is
# the viewer's left (gestures.types.lado_jugador)
GUINO_VISTO: Final = {"derecho": "guino_izquierdo", "izquierdo": "guino_derecho"}
FORMATO_ETIQUETAS: Final = (
    "events: [label, first_frame, last_frame, note]; frames 0-based at the clip's fps. Takes "
    "of the musmesa señas trainer: 'neutro' = its calibration; a take the player confirmed "
    "labels what was recognised; a rejected one marks what was recognised and what was asked "
    "ambiguous ('?'). guino_izquierdo / guino_derecho name the eye as the VIEWER sees it."
)


class TomaError(RuntimeError):
    """A take that cannot be written, read or exported; the message is for the player."""

    def __init__(self, aviso: Aviso, idioma: str = SOURCE) -> None:
        super().__init__(aviso.texto(idioma))
        self.aviso = aviso

    def texto(self, idioma: str) -> str:
        return self.aviso.texto(idioma)


def _cv2() -> Any:
    try:  # OpenCV is an optional extra: only a live source makes takes
        import cv2
    except ImportError as exc:
        raise TomaError(
            Aviso(N_("No se pueden guardar tomas: falta OpenCV ({motivo})."), datos={"motivo": str(exc)})
        ) from None
    return cv2


def motivo(exc: BaseException) -> str:
    """Why a write failed, in plain words (a Spanish msgid)."""
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC or code == errno.EDQUOT:
        return N_("el disco está lleno")
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return N_("la carpeta de datos es de solo lectura")
    if code in (errno.ENOTDIR, errno.EEXIST):
        return N_("esa ruta no es una carpeta")
    return N_("no se puede escribir en esa carpeta")


def _error_escritura(exc: BaseException, carpeta: Path) -> TomaError:
    return TomaError(
        Aviso(
            N_("No se pudo guardar la toma en {carpeta}: {motivo}. Las tomas anteriores no se pierden."),
            motivo(exc),
            {"carpeta": str(carpeta)},
        )
    )


# -- recording: the frames the recognizer saw ---------------------------------------------------


class Grabado(NamedTuple):
    """A take's frames, (t, JPEG) in order: the first ``n_calib`` are its calibration."""

    frames: list[tuple[float, bytes]]
    n_calib: int
    recortada: bool  # the attempt went on past GrabacionToma.max_segundos


@dataclass
class GrabacionToma:
    """The frames of the current take, fed from the live loop (no Kivy here).

    ``fotograma`` takes every frame the recognizer processed: those of its calibration become
    the lead-in (a new calibration replaces them and restarts the attempt), the others count
    from ``empezar`` (the deal) on. ``calibracion``: the last quality report seen."""

    max_segundos: float = MAX_SEGUNDOS_INTENTO
    calib: list[tuple[float, bytes]] = field(default_factory=list)
    intento: list[tuple[float, bytes]] = field(default_factory=list)
    en_intento: bool = False
    recortada: bool = False
    calibracion: dict[str, Any] | None = None
    _calibrando: bool = False

    def reiniciar(self) -> None:
        """A new source: a new calibration comes, the attempt starts again after it."""
        self.calib, self.intento, self.recortada, self._calibrando = [], [], False, False

    def empezar(self) -> None:
        """The hand is dealt: the attempt starts with the next frame."""
        self.intento, self.en_intento, self.recortada = [], True, False

    def fotograma(self, t: float, frame: Any, calibrando: bool, calibracion: Any = None) -> None:
        if calibrando:
            if not self._calibrando:
                self.calib, self.intento = [], []
            self._calibrando = True
            self.calib.append((float(t), _jpeg(frame)))
            del self.calib[:-MAX_CALIBRACION]
            return
        self._calibrando = False
        if calibracion is not None:
            self.calibracion = calibracion.to_dict() if hasattr(calibracion, "to_dict") else dict(calibracion)
        if not self.en_intento:
            return
        if self.intento and t - self.intento[0][0] > self.max_segundos:
            self.recortada = True
            return
        self.intento.append((float(t), _jpeg(frame)))

    def terminar(self) -> Grabado | None:
        """The clip's frames (calibration then attempt) and how many are calibration;
        None when the attempt has no frame, or no calibration was seen (without its neutral
        lead-in a clip cannot be calibrated on again). The next attempt at the same hand (the
        trainer's Comprobar again) starts with the next frame."""
        intento, recortada = self.intento, self.recortada
        self.intento, self.recortada = [], False
        if not intento or not self.calib:
            return None
        return Grabado([*self.calib, *intento], len(self.calib), recortada)


def _jpeg(frame: Any) -> bytes:
    ok, buf = _cv2().imencode(".jpg", frame, [int(_cv2().IMWRITE_JPEG_QUALITY), CALIDAD_JPEG])
    if not ok:
        raise TomaError(Aviso(N_("Un fotograma no se pudo codificar: esta toma no se guarda.")))
    return buf.tobytes()


def fps_real(tiempos: Sequence[float], n_calib: int) -> float:
    """Frames a second as they came: the mean interval within the lead-in and within the
    attempt (the jump between them is not a frame interval).

    >>> fps_real([0.0, 0.1, 0.2, 5.0, 5.1, 5.2], 3)
    10.0
    """
    pasos, dur = 0, 0.0
    for parte in (tiempos[:n_calib], tiempos[n_calib:]):
        if len(parte) > 1:
            pasos, dur = pasos + len(parte) - 1, dur + parte[-1] - parte[0]
    return round(pasos / dur, 3) if pasos and dur > 0 else FPS_SIN_MEDIDA


def marcos(
    eventos: Sequence[dict[str, Any]], tiempos: Sequence[float], n_calib: int
) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """The events that fall in the attempt and their [first, last] frames in the clip: the
    frame nearest each time, clamped to the attempt (an event held from before the deal
    starts at its first frame); events ended before the attempt are dropped.

    >>> marcos([{"inicio": 0.1, "fin": 0.2}, {"inicio": 5.04, "fin": 9.0}],
    ...        [0.0, 0.1, 5.0, 5.05, 5.1], 2)
    ([{'inicio': 5.04, 'fin': 9.0}], [[3, 4]])
    """
    attempt = list(tiempos[n_calib:])
    kept, frames = [], []
    for ev in eventos:
        inicio, fin = float(ev.get("inicio", 0.0)), float(ev.get("fin", 0.0))
        if not attempt or fin < attempt[0] - 1e-6:
            continue
        i0, i1 = _cerca(attempt, inicio), _cerca(attempt, fin)
        kept.append(dict(ev))
        frames.append([n_calib + i0, n_calib + max(i0, i1)])
    return kept, frames


def _cerca(times: Sequence[float], t: float) -> int:
    i = bisect_left(times, t)
    if i >= len(times):
        return len(times) - 1
    return i if i == 0 or times[i] - t <= t - times[i - 1] else i - 1


def nueva_toma(
    frames: Sequence[tuple[float, bytes]],
    n_calib: int,
    *,
    mano: str,
    perfil: str,
    senas: Sequence[str],
    gestos: Sequence[str],
    eventos: Sequence[dict[str, Any]],
    correcto: bool,
    calibracion: dict[str, Any] | None = None,
    recortada: bool = False,
    espejo: bool = False,
) -> dict[str, Any]:
    """The JSON document of a take (the clip itself is written by AlmacenTomas.guardar)."""
    tiempos = [t for t, _ in frames]
    evs, frs = marcos(eventos, tiempos, n_calib)
    return {
        "formato": FORMATO,
        "creada": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "perfil": perfil,
        "mano": mano,
        "pedido": {"senas": list(senas), "gestos": sorted(set(gestos))},
        "eventos": evs,
        "marcos": frs,
        "correcto": bool(correcto),
        "respuesta": None,
        "fps": fps_real(tiempos, n_calib),
        "fotogramas": len(frames),
        "calibracion": {**(calibracion or {}), "fotogramas": n_calib},
        "tiempos": [round(t, 4) for t in tiempos],
        "recortada": recortada,
        "espejo": espejo,
    }


# -- labels ------------------------------------------------------------------------------------------


def clave(ev: dict[str, Any], espejo: bool = False) -> str:
    """The label an event carries: winks by the eye as the viewer sees it.

    >>> clave({"gesto": "guino", "lado": "izquierdo"}), clave({"gesto": "morro", "lado": None})
    ('guino_derecho', 'morro')
    """
    if ev.get("gesto") == "guino" and ev.get("lado") in GUINO_VISTO:
        lado = ev["lado"]
        if espejo:  # a mirrored image shows the player's right eye on the viewer's right
            lado = "izquierdo" if lado == "derecho" else "derecho"
        return GUINO_VISTO[lado]
    return str(ev.get("gesto"))


def etiquetas(toma: dict[str, Any]) -> list[list[Any]]:
    """The labels of an answered take (module docstring); [] for an unanswered one."""
    respuesta = toma.get("respuesta")
    if respuesta is None:
        return []
    n, k = int(toma["fotogramas"]), int(toma["calibracion"]["fotogramas"])
    espejo = bool(toma.get("espejo"))
    out: list[list[Any]] = [["neutro", 0, k - 1, "calibración"]] if k else []
    for ev, (i0, i1) in zip(toma["eventos"], toma["marcos"], strict=True):
        if respuesta:
            out.append([clave(ev, espejo), i0, i1, "reconocido y confirmado"])
        else:
            out.append([f"{clave(ev, espejo)}?", i0, i1, "reconocido; el jugador dijo que no"])
    if not respuesta and n > k:
        out += [[f"{g}?", k, n - 1, "pedido; el jugador dijo que no"] for g in toma["pedido"]["gestos"]]
    return out


# -- the store on disk ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Exportacion:
    carpeta: Path
    clips: int
    sin_respuesta: int


class AlmacenTomas:
    """The takes in ``<datos>/tomas``; every write is whole or not at all."""

    def __init__(self, datos: str | Path) -> None:
        self.datos = Path(datos)
        self.carpeta = self.datos / CARPETA

    def _nuevo_id(self) -> str:
        base = time.strftime("toma-%Y%m%d-%H%M%S")
        k, name = 1, base
        while (self.carpeta / f"{name}.json").exists() or (self.carpeta / f"{name}.mp4").exists():
            k += 1
            name = f"{base}-{k}"
        return name

    def guardar(self, toma: dict[str, Any], frames: Sequence[tuple[float, bytes]]) -> str:
        """Write the clip and then the take's JSON; returns its id. TomaError otherwise."""
        try:
            self.carpeta.mkdir(parents=True, exist_ok=True)
            tid = self._nuevo_id()
            clip = self.carpeta / f"{tid}.mp4"
            tmp = self.carpeta / f".{tid}.parcial.mp4"
            try:
                # OpenCV writes the clip by its path: created owner-only first (a player's face),
                # the writer truncates it and keeps its mode
                os.close(os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, PRIVATE_MODE))
                _escribir_clip(tmp, frames, float(toma["fps"]))
                os.replace(tmp, clip)
                write_atomic(
                    self.carpeta / f"{tid}.json",
                    json.dumps({**toma, "id": tid, "clip": clip.name}, ensure_ascii=False, indent=1),
                    private=True,
                )
            except BaseException:
                for p in (tmp, clip):
                    with contextlib.suppress(OSError):
                        p.unlink()
                raise
        except OSError as exc:
            raise _error_escritura(exc, self.carpeta) from None
        return tid

    def leer(self, tid: str) -> dict[str, Any]:
        path = self.carpeta / f"{Path(tid).name}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise TomaError(Aviso(N_("No se encuentra la toma {toma}."), datos={"toma": tid})) from None
        return doc

    def responder(self, tid: str, si: bool) -> None:
        """The player's answer: True "sí, era eso", False "no"."""
        doc = self.leer(tid)
        doc["respuesta"] = bool(si)
        try:
            write_atomic(
                self.carpeta / f"{doc['id']}.json", json.dumps(doc, ensure_ascii=False, indent=1), private=True
            )
        except OSError as exc:
            raise _error_escritura(exc, self.carpeta) from None

    def tomas(self) -> list[dict[str, Any]]:
        """Every complete take (its JSON and its clip), oldest first; unreadable ones skipped."""
        out = []
        for path in sorted(self.carpeta.glob("toma-*.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if (
                isinstance(doc, dict)
                and doc.get("formato") == FORMATO
                and (self.carpeta / str(doc.get("clip"))).is_file()
            ):
                out.append(doc)
        return out

    def exportar(self, destino: Path | None = None) -> Exportacion:
        """The answered takes as a folder for ``python -m training.senas.evaluate``: their
        clips and a labels.json (../shared/realdata/README.md's format). Built beside its
        place and renamed into it."""
        todas = self.tomas()
        hechas = [d for d in todas if d.get("respuesta") is not None]
        if not hechas:
            raise TomaError(
                Aviso(N_("No hay tomas respondidas que exportar ({sin} sin respuesta)."), datos={"sin": len(todas)})
            )
        final = destino or self.datos / "export" / time.strftime("tomas-%Y%m%d-%H%M%S")
        tmp = final.with_name(f".{final.name}.parcial")
        try:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True, mode=0o700)  # the players' clips: the owner's only, as in the store
            clips = {}
            for d in hechas:
                shutil.copyfile(self.carpeta / d["clip"], tmp / d["clip"])
                clips[d["clip"]] = {
                    "fps": d["fps"],
                    "frames": d["fotogramas"],
                    "events": etiquetas(d),
                    "mano": d["mano"],
                    "respuesta": "si" if d["respuesta"] else "no",
                }
            write_atomic(
                tmp / "labels.json",
                json.dumps({"_format": FORMATO_ETIQUETAS, "clips": clips}, ensure_ascii=False, indent=1),
                private=True,
            )
            os.replace(tmp, final)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise TomaError(
                Aviso(
                    N_("No se pudieron exportar las tomas a {carpeta}: {motivo}. Las tomas guardadas no se pierden."),
                    motivo(exc),
                    {"carpeta": str(final.parent)},
                )
            ) from None
        return Exportacion(final, len(hechas), len(todas) - len(hechas))


def _escribir_clip(path: Path, frames: Sequence[tuple[float, bytes]], fps: float) -> None:
    """The frames as an .mp4 (mp4v), then read back: a disk that filled up mid-way leaves a
    short file, which VideoWriter does not report."""
    import numpy as np  # with OpenCV, only when a take is written

    cv2 = _cv2()
    imgs = (cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR) for _, b in frames)
    try:
        first = next(imgs)
        h, w = first.shape[:2]
        out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
        if not out.isOpened():
            raise _sin_espacio_o(path, errno.EIO)
        try:
            out.write(first)
            for img in imgs:
                out.write(img if img.shape[:2] == (h, w) else cv2.resize(img, (w, h)))
        finally:
            out.release()
        cap = cv2.VideoCapture(str(path))
        try:
            n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) if cap.isOpened() else 0
        finally:
            cap.release()
    except cv2.error:  # OpenCV's own failures: the clip is not there, whatever the reason
        raise _sin_espacio_o(path, errno.EIO) from None
    if n != len(frames):
        raise _sin_espacio_o(path, errno.EIO)


def _sin_espacio_o(path: Path, code: int) -> OSError:
    """The write failed silently: a full disk if there is (almost) no room left."""
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        free = 0
    return OSError(errno.ENOSPC if free < 1 << 20 else code, os.strerror(code), str(path))
