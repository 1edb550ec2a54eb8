"""`mus senas`: recognise señas in a video, a live camera or still images.

mus senas partida.mp4
mus senas --json --perfil euskadi partida.mp4
mus senas --camara 0            # live window until q (where a screen exists)
mus senas cara1.jpg cara2.jpg   # per-image gesture scores
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from gestures.decision import DecisionError
from gestures.draw import draw_landmarks, draw_status
from gestures.events import Tiempos, tiempos_with
from gestures.models import ModelError
from gestures.recognizer import SenaRecognizer
from gestures.scorer import Umbrales, with_overrides
from gestures.sources import CameraSource, SourceError, VideoSource
from gestures.types import GESTOS, Calibracion, Evento, FrameResult
from scoring.inputs import InputError, check_readable, excerpt, read_json
from scoring.rules import PerfilError, perfil

# Threshold and timing overrides of --umbrales; None: the defaults.
Settings = tuple[Umbrales | None, dict[str, Tiempos] | None]
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fuentes", nargs="*", metavar="VIDEO|IMAGEN", help="un vídeo, o una o varias imágenes")
    parser.add_argument("--camara", type=int, metavar="N", help="usar la cámara N (0, 1...)")
    parser.add_argument("--json", action="store_true", help="salida JSON")
    parser.add_argument(
        "--perfil",
        metavar="NOMBRE",
        help="perfil de reglas cuyo juego de señas da el significado (general, segovia, euskadi...)",
    )
    parser.add_argument(
        "--espejo",
        action="store_true",
        help="las imágenes vienen en espejo (vista previa de selfi): cambia izquierdo/derecho",
    )
    parser.add_argument(
        "--sin-hombros", action="store_true", help="no buscar los hombros (más rápido; sin señas de hombros)"
    )
    parser.add_argument(
        "--calibracion",
        type=float,
        default=2.0,
        metavar="S",
        help="segundos de cara neutra al principio (por defecto 2)",
    )
    parser.add_argument(
        "--neutra",
        metavar="IMAGEN",
        action="append",
        help="foto de la cara neutra de la misma persona: calibra con ella "
        "(necesaria para lengua y labio mordido en imágenes sueltas); "
        "repítela con varias fotos para una calibración más fiable",
    )
    parser.add_argument("--sin-ventana", action="store_true", help="con --camara, no abrir ventana")
    parser.add_argument(
        "--umbrales",
        metavar="JSON",
        help='ajustes: {"umbrales": {"brow_geom": [0.03, 0.07]}, '
        '"tiempos": {"guino": {"minimo": 0.2}}} (docs/senas.md)',
    )
    parser.add_argument(
        "--puntuaciones", metavar="CSV", help="escribe las puntuaciones de cada fotograma (para ajustar umbrales)"
    )
    parser.add_argument("--modelo-cara", metavar="TASK", help="otro face_landmarker.task")
    parser.add_argument("--modelo-pose", metavar="TASK", help="otro pose_landmarker.task")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except _Fail as exc:
        print(f"mus senas: {' '.join(str(exc).split())}", file=sys.stderr)  # one line
        return exc.status


class _Fail(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _run(args: argparse.Namespace) -> int:
    if args.camara is None and not args.fuentes:
        raise _Fail("indica un vídeo, imágenes o --camara N")
    if args.camara is not None and args.fuentes:
        raise _Fail("usa --camara o ficheros, no ambos")
    if args.calibracion < 0:
        raise _Fail("--calibracion no puede ser negativa")
    _check_perfil(args.perfil)
    settings = _settings(args.umbrales)  # before any model is loaded or frame read
    if args.camara is not None:
        return _stream(args, settings, camera=args.camara)
    paths = [Path(p) for p in args.fuentes]
    for p in paths:
        _check_file(p)
    if len(paths) == 1 and paths[0].suffix.lower() not in IMAGE_SUFFIXES:
        return _stream(args, settings, video=paths[0])
    not_images = [str(p) for p in paths if p.suffix.lower() not in IMAGE_SUFFIXES]
    if not_images:
        raise _Fail(f"un vídeo cada vez; estos no son imágenes: {', '.join(not_images)}")
    return _images(args, settings, paths)


def _check_file(p: Path) -> None:
    """_Fail saying why ``p`` cannot be read: missing, a folder, a loop of links, no permission."""
    try:
        check_readable(p, kind="un vídeo ni una imagen")
    except InputError as exc:
        raise _Fail(str(exc)) from None


def _check_perfil(name: str | None) -> None:
    if name is None:
        return
    try:
        perfil(name)
    except PerfilError as exc:
        raise _Fail(str(exc)) from exc


def _recognizer(args: argparse.Namespace, settings: Settings) -> SenaRecognizer:
    umbrales, tiempos = settings
    try:
        rec = SenaRecognizer(
            args.perfil or "general",
            mirrored=args.espejo,
            pose=not args.sin_hombros,
            calibracion=args.calibracion,
            umbrales=umbrales,
            tiempos=tiempos,
            face_model=args.modelo_cara,
            pose_model=args.modelo_pose,
        )
    except (ModelError, DecisionError) as exc:
        raise _Fail(str(exc)) from exc
    if args.neutra:
        photos = []
        for path in args.neutra:
            photo = cv2.imread(path, cv2.IMREAD_COLOR)
            if photo is None:
                raise _Fail(f"{path}: no es una imagen legible")
            photos.append(photo)
        if rec.calibrate(photos) is None:
            raise _Fail(f"{', '.join(args.neutra)}: no se ve ninguna cara en la imagen neutra")
        _warn_calibration(rec.calidad)
    return rec


# How the command words a poor calibration (the app has its own, translated, wording).
MENSAJES_CALIBRACION = {
    "cara_pequena": "la cara se ve pequeña: acércate a la cámara",
    "oscuro": "hay poca luz en la cara",
    "no_neutra": "la cara no estuvo quieta y neutra (hablar, sonreír o parpadear mucho)",
    "pocos_fotogramas": "pocos fotogramas neutros: los gestos pequeños pueden confundirse",
}


def _warn_calibration(calidad: Calibracion | None) -> None:
    if calidad is not None and not calidad.buena:
        why = "; ".join(MENSAJES_CALIBRACION[p] for p in calidad.problemas)
        print(f"mus senas: aviso: calibración pobre: {why}", file=sys.stderr, flush=True)


def _settings(path: str | None) -> Settings:
    """Threshold and timing overrides from a JSON file (None: defaults), every value checked
    here, before any frame is read."""
    if not path:
        return None, None
    where = f"--umbrales {excerpt(path)}"
    try:
        doc = read_json(path, where)
    except InputError as exc:
        raise _Fail(str(exc)) from None
    try:
        return parse_settings(doc)
    except KeyError as exc:  # an unknown threshold name
        raise _Fail(f"{where}: {exc.args[0]}") from None
    except ValueError as exc:
        raise _Fail(f"{where}: {exc}") from None


def parse_settings(doc: object) -> tuple[Umbrales, dict[str, Tiempos]]:
    """The ``--umbrales`` document as thresholds and timings; KeyError for an unknown threshold,
    ValueError (one Spanish line) for anything else wrong."""
    if not isinstance(doc, dict):
        raise ValueError('se espera un objeto: {"umbrales": {...}, "tiempos": {...}}')
    extra = set(doc) - {"umbrales", "tiempos"}
    if extra:
        raise ValueError(
            f"claves desconocidas: {excerpt(', '.join(map(repr, sorted(extra))))} (solo umbrales y tiempos)"
        )
    umbrales, tiempos = doc.get("umbrales", {}), doc.get("tiempos", {})
    for key, value in (("umbrales", umbrales), ("tiempos", tiempos)):
        if not isinstance(value, dict):
            raise ValueError(f'"{key}" debe ser un objeto')
    return with_overrides(Umbrales(), umbrales), tiempos_with(tiempos)


# --- video and camera ---------------------------------------------------------------------


def _stream(args: argparse.Namespace, settings: Settings, video: Path | None = None, camera: int | None = None) -> int:
    try:
        source = VideoSource(video) if video is not None else CameraSource(int(camera or 0))
    except SourceError as exc:
        raise _Fail(str(exc)) from exc
    rec = _recognizer(args, settings)
    show = camera is not None and not args.sin_ventana and _has_display()
    if camera is not None and not args.neutra:
        print(
            f"mus senas: cámara {camera}: mira a la cámara con la cara neutra {args.calibracion:g} s",
            file=sys.stderr,
            flush=True,
        )
    scores_out = _scores_file(args.puntuaciones)
    seen_face = calibrated = False
    said: tuple[str, ...] = ()
    frames = faceless = 0
    interrupted = False
    printed: set[tuple[str, float]] = set()
    try:
        for res in _frames(rec, source, show):
            seen_face = seen_face or res.cara
            frames += 1
            faceless += not res.cara
            if scores_out is not None:
                scores_out.write(_score_row(res))
            if res.calibracion is not None and not res.calibrando and not calibrated:
                calibrated = True
                if camera is not None:  # tell a player without a window when to start
                    print("mus senas: calibrado; ya puedes hacer señas", file=sys.stderr, flush=True)
            problems = res.calibracion.problemas if res.calibracion is not None else ()
            if problems != said and not args.neutra:
                said = problems  # each new verdict once, not once a frame
                _warn_calibration(res.calibracion)
            if not args.json:  # text mode prints each seña as it ends
                for ev in res.eventos:
                    print(_line(ev), flush=True)
                    printed.add((ev.gesto, ev.inicio))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if scores_out is not None:
            scores_out.close()
    eventos = rec.finish()
    name = str(video) if video is not None else f"camara:{camera}"
    _report(args, name, eventos, printed, rec.calidad)
    problem = getattr(source, "error", None)
    if problem:
        print(f"mus senas: {problem}; se conservan los eventos anteriores", file=sys.stderr)
        return 1
    if not seen_face:  # nothing to recognise: bad input, like a file that is not a video
        print(
            f"mus senas: {name}: no se vio ninguna cara en toda la fuente (¿está la cara a la vista y con luz?)",
            file=sys.stderr,
        )
        return 2
    if faceless > 0.2 * frames:
        print(f"mus senas: aviso: sin cara en {faceless} de {frames} fotogramas", file=sys.stderr)
    return 130 if interrupted else 0


def _scores_file(path: str | None) -> TextIO | None:
    if not path:
        return None
    try:
        out = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise _Fail(f"--puntuaciones {path}: {exc}") from exc
    out.write(",".join(["t", "cara", "calibrando", *GESTOS]) + "\n")
    return out


def _score_row(res: FrameResult) -> str:
    cells = [f"{res.t:.3f}", str(int(res.cara)), str(int(res.calibrando))]
    cells += [f"{res.puntuaciones.get(g, 0.0):.3f}" for g in GESTOS]
    return ",".join(cells) + "\n"


def _frames(rec: SenaRecognizer, source: Iterable[tuple[float, np.ndarray]], show: bool) -> Iterator[FrameResult]:
    last: str | None = None
    window = "mus senas (q para salir)"
    for t, frame in source:
        res = rec.process(frame, t)
        if res.eventos:
            ev = res.eventos[-1]
            last = f"{ev.gesto}: {ev.sena}" if ev.sena else ev.gesto
        if show and not _show(window, frame, res, last):
            break
        yield res
    if show:
        cv2.destroyAllWindows()


def _show(window: str, frame: np.ndarray, res: FrameResult, last: str | None) -> bool:
    """Draw and display; False when the user quits (q, Esc or window closed)."""
    view = draw_landmarks(frame.copy(), res)
    view = cv2.flip(view, 1)  # a mirror preview feels natural; sides are computed unflipped
    draw_status(view, res, last)
    cv2.imshow(window, view)
    key = cv2.waitKey(1) & 0xFF
    if key in (ord("q"), 27):
        return False
    try:
        return cv2.getWindowProperty(window, cv2.WND_PROP_VISIBLE) >= 1
    except cv2.error:
        return True


def _has_display() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _line(ev: Evento) -> str:
    lado = f" ({ev.lado})" if ev.lado else ""
    sena = f"  {ev.sena}" if ev.sena else ""
    return f"{ev.inicio:7.2f}-{ev.fin:7.2f}  {ev.gesto}{lado}  {ev.confianza:.2f}{sena}"


def _report(
    args: argparse.Namespace,
    name: str,
    eventos: Sequence[Evento],
    printed: set[tuple[str, float]],
    calidad: Calibracion | None,
) -> None:
    if args.json:
        print(
            json.dumps(
                {
                    "fuente": name,
                    "eventos": [e.to_dict() for e in eventos],
                    "calibracion": calidad.to_dict() if calidad else None,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    for ev in eventos:  # the ones still held when the stream ended
        if (ev.gesto, ev.inicio) not in printed:
            print(_line(ev))
    print(f"fuente: {name}: {len(eventos)} gestos reconocidos")


# --- still images ---------------------------------------------------------------------------


def _images(args: argparse.Namespace, settings: Settings, paths: Sequence[Path]) -> int:
    rec = _recognizer(args, settings)
    out = []
    for p in paths:
        frame = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if frame is None:
            out.append({"imagen": str(p), "cara": False, "error": "no es una imagen legible"})
            continue
        cara, scores, lados = rec.score_image(frame)
        item: dict[str, object] = {
            "imagen": str(p),
            "cara": cara,
            "gestos": {g: round(s, 2) for g, s in scores.items()},
        }
        sided = {g: lado for g, lado in lados.items() if lado and scores.get(g, 0) > 0}
        if sided:
            item["lados"] = sided
        out.append(item)
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        for item in out:
            print(_image_line(item))
    bad = [i for i in out if "error" in i]
    for i in bad:
        print(f"mus senas: {i['imagen']}: {i['error']}", file=sys.stderr)
    if len(bad) == len(out):
        return 2
    faceless = [str(i["imagen"]) for i in out if "error" not in i and not i["cara"]]
    if faceless:
        print(f"mus senas: sin cara en {', '.join(faceless)}", file=sys.stderr)
    return 2 if len(faceless) + len(bad) == len(out) else 0  # no face in any: bad input, as a video


def _image_line(item: dict[str, Any]) -> str:
    if "error" in item:
        return f"{item['imagen']}: {item['error']}"
    if not item["cara"]:
        return f"{item['imagen']}: sin cara"
    strong = sorted(((s, g) for g, s in item["gestos"].items() if s >= 0.5), reverse=True)
    lados = item.get("lados", {})
    found = ", ".join(f"{g}{' (' + lados[g] + ')' if g in lados else ''} {s:.2f}" for s, g in strong)
    return f"{item['imagen']}: {found or 'ningún gesto'}"
