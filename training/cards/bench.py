"""Benchmark (not a test): median milliseconds to read one 1280x960 photo of a table (and of a
close-up of one hand, ``primer_plano_mediana_ms``, and of one filling the frame,
``primer_plano_cerca_mediana_ms``), model loading apart,
with ONNX Runtime (what ships) versus the same models run through PyTorch (Ultralytics for
the detector, torch for the classifier and the mark readers), in one run, read by read
interleaved, and their ratio;
and what the corner-index and pinta readers cost (the same reader with them switched off).
``--fp32`` also times each kind of photo read by the generic reader with the fp32 classifier
instead of the int8 one (``models/carta_cls_int8.onnx``), interleaved read by read with the
shipped reader (``*_intercalado_*``): the machine's other work weighs on both alike.
``--etapas`` also says where a read's time goes: the milliseconds each ONNX model takes, and
the rest (the photo shrunk for the detector, the cut-outs, the NMS, the assembly: numpy,
OpenCV and Python); and the photo's shrink for the detector in two steps (as read) against one
step of area averaging, interleaved.
``--frente-a DIR`` also times each kind of photo read with the models of another folder (an
older detector, say), interleaved read by read with the shipped reader (``*_frente_a_mediana_ms``
against ``*_intercalado_con_frente_a_mediana_ms``), and says whether both read the same cards
and flags.
``--baraja FILE`` also times reading against that registered deck, with its templates and
without them (the features alone).

    python -m training.cards.bench --veces 30 --pytorch
    mus baraja registrar examples/baraja/{oros,copas,espadas,bastos}.jpg --salida runs/ejemplo.npz
    python -m training.cards.bench --veces 30 --baraja runs/ejemplo.npz

``--pytorch`` also times the checkpoints ``models/carta_obb.pt`` (through Ultralytics' predict),
``models/carta_cls.pt``, ``models/carta_idx.pt`` and ``models/carta_palo.pt`` (torch); it needs
the ``train`` extra.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from scoring.cards import CARD_IDS
from training.cards.dataset import scene_rng
from training.cards.scale_bands import closeup_at_scale
from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
from vision.assemble import assign_unique
from vision.classify import INDEX_WEIGHT, PINTA_WEIGHT, combine_marks
from vision.corner_index import corner_patches
from vision.detect import DET_THRESHOLD, NMS_IOU
from vision.geometry import CROP_H, CROP_W, crop_cards, shrink
from vision.models import DEFAULT_THREADS
from vision.pintas import pinta_strips
from vision.reader import CardReader, ReaderSettings
from vision.registered_deck import RegisteredDeck


def _time(fn, images, repeats: int) -> list[float]:
    fn(images[0])  # warm-up
    out = []
    for k in range(repeats):
        t0 = time.perf_counter()
        fn(images[k % len(images)])
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _time_pair(fn_a, fn_b, images, repeats: int) -> tuple[list[float], list[float]]:
    """As :func:`_time` for two readers, their reads interleaved (each photo by one then the
    other), so that the machine's other work weighs on both alike."""
    fn_a(images[0]), fn_b(images[0])  # warm-up
    a: list[float] = []
    b: list[float] = []
    for k in range(repeats):
        for fn, out in ((fn_a, a), (fn_b, b)) if k % 2 == 0 else ((fn_b, b), (fn_a, a)):
            t0 = time.perf_counter()
            fn(images[k % len(images)])
            out.append((time.perf_counter() - t0) * 1000)
    return a, b


class _TimedSession:
    """An ONNX Runtime session that adds each run's milliseconds to ``spent[name]``."""

    def __init__(self, sess, name: str, spent: dict[str, list[float]]):
        self.sess, self.name, self.spent = sess, name, spent

    def run(self, output_names, input_feed):
        t0 = time.perf_counter()
        out = self.sess.run(output_names, input_feed)
        self.spent.setdefault(self.name, []).append((time.perf_counter() - t0) * 1000)
        return out

    def get_inputs(self):
        return self.sess.get_inputs()


def stage_times(photos: dict[str, list[np.ndarray]], repeats: int, threads: int) -> dict[str, dict[str, float]]:
    """Where a read's time goes, for each kind of photo: the median read, and the milliseconds
    a read spends in each ONNX model (all its runs summed, averaged over the reads), the rest
    being numpy, OpenCV and Python. The sessions are wrapped for this only (a fresh reader)."""
    import vision.classify
    import vision.detect
    import vision.models

    spent: dict[str, list[float]] = {}
    plain = vision.models.session

    @functools.lru_cache(maxsize=16)
    def timed(path: str, n: int):
        return _TimedSession(plain(path, n), Path(path).name, spent)

    patched = (vision.models, vision.detect, vision.classify)
    for module in patched:
        module.session = timed  # type: ignore[attr-defined]
    try:
        reader = CardReader(settings=ReaderSettings(threads=threads)).load()
        res = {}
        for kind, images in photos.items():
            for image in images:  # warm-up
                reader.read(image)
            spent.clear()
            total = []
            for k in range(repeats):
                t0 = time.perf_counter()
                reader.read(images[k % len(images)])
                total.append((time.perf_counter() - t0) * 1000)
            row = {"lectura_mediana_ms": round(statistics.median(total), 1)}
            for name, ms in spent.items():
                row[f"{name}_ms"] = round(sum(ms) / len(total), 1)
            row["fuera_de_onnx_ms"] = round(
                statistics.mean(total) - sum(sum(v) for v in spent.values()) / len(total), 1
            )
            res[kind] = row
        return res
    finally:
        for module in patched:
            module.session = plain  # type: ignore[attr-defined]


def shrink_times(images: list[np.ndarray], side: int, repeats: int) -> tuple[float, float]:
    """Median ms of the photo shrunk to the detector's input ``side`` wide as the reader does it
    (two steps, :func:`vision.geometry.shrink`) and in one step of area averaging, interleaved."""
    h, w = images[0].shape[:2]
    size = (side, round(h * side / w))
    two, one = _time_pair(
        lambda im: shrink(im, size),
        lambda im: cv2.resize(im, size, interpolation=cv2.INTER_AREA),
        images,
        repeats,
    )
    return round(statistics.median(two), 2), round(statistics.median(one), 2)


def torch_reader(models: Path, threads: int):
    """The same pipeline with the PyTorch models (detector via Ultralytics predict)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    # torch and Ultralytics (the train extra), and the networks built on them, only for this
    import torch
    from ultralytics import YOLO
    from ultralytics.engine.results import Results

    from training.cards.classifier import CardNet
    from training.cards.corner_index import IndexNet
    from training.cards.pintas import PintaNet

    torch.set_num_threads(threads)
    det = YOLO(str(models / "carta_obb.pt"))
    imgsz = int(det.overrides.get("imgsz") or 384)  # the size it was trained (and exported) at
    cls = CardNet()
    cls.load_state_dict(torch.load(models / "carta_cls.pt"))
    cls.eval()
    idx = None
    if (models / "carta_idx.pt").is_file():
        idx = IndexNet()
        idx.load_state_dict(torch.load(models / "carta_idx.pt"))
        idx.eval()
    pinta = None
    if (models / "carta_palo.pt").is_file():
        pinta = PintaNet()
        pinta.load_state_dict(torch.load(models / "carta_palo.pt"))
        pinta.eval()

    def read(image: np.ndarray):
        # without stream=True, predict gives a list of Results (its annotation also allows tensors)
        found = det.predict(image, imgsz=imgsz, conf=DET_THRESHOLD, iou=NMS_IOU, device="cpu", verbose=False)
        res = cast(list[Results], found)[0]
        obb = np.asarray(res.obb.xywhr) if res.obb is not None else np.zeros((0, 5), np.float32)
        if len(obb) == 0:
            return []
        crops = crop_cards(image, obb, (CROP_W, CROP_H))
        x = torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255
        with torch.no_grad():
            p = ((torch.softmax(cls(x), 1) + torch.softmax(cls(x.flip(2, 3)), 1)) / 2).numpy()
            ranks = suits = None
            if idx is not None:
                ranks = torch.softmax(idx(torch.from_numpy(corner_patches(image, obb))), 1).numpy()
            if pinta is not None:
                suits = torch.softmax(pinta(torch.from_numpy(pinta_strips(image, obb))), 1).numpy()
            p = combine_marks(p, ranks, suits, INDEX_WEIGHT, PINTA_WEIGHT)
        labels, _, _ = assign_unique(p)
        return [CARD_IDS[i] for i in labels]

    return read


def _registered_times(path: Path, settings: ReaderSettings, images: list[np.ndarray], repeats: int) -> dict:
    deck = RegisteredDeck.load(path)
    res = {}
    if deck.has_templates:
        reader = CardReader(settings=settings, deck=deck).load()
        res["registrada_mediana_ms"] = round(statistics.median(_time(reader.read, images, repeats)), 1)
    plain = replace(deck, templates=None, template_labels=None)
    reader = CardReader(settings=settings, deck=plain).load()
    res["registrada_sin_plantillas_mediana_ms"] = round(statistics.median(_time(reader.read, images, repeats)), 1)
    return res


def _against(reader: CardReader, other: CardReader, photos: dict[str, list[np.ndarray]], repeats: int) -> dict:
    """Each kind of photo read by ``reader`` and ``other`` interleaved (see ``--frente-a``)."""
    res: dict[str, object] = {}
    for key, images in photos.items():
        new, old = _time_pair(reader.read, other.read, images, repeats)
        res[f"{key}_intercalado_con_frente_a_mediana_ms"] = round(statistics.median(new), 1)
        res[f"{key}_frente_a_mediana_ms"] = round(statistics.median(old), 1)
    every = [image for images in photos.values() for image in images]
    a, b = ([r.read(i) for i in every] for r in (reader, other))
    res["frente_a_mismas_cartas"] = all(
        list(x.card_ids) == list(y.card_ids) and np.array_equal(x.low_confidence, y.low_confidence)
        for x, y in zip(a, b, strict=True)
    )
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--veces", type=int, default=30)
    p.add_argument("--hilos", type=int, default=DEFAULT_THREADS)
    p.add_argument("--pytorch", action="store_true")
    p.add_argument("--baraja", type=Path, default=None, help="also read against this registration")
    p.add_argument(
        "--fp32",
        action="store_true",
        help="also time each kind of photo read with the fp32 classifier, interleaved with the shipped reader",
    )
    p.add_argument(
        "--frente-a",
        type=Path,
        default=None,
        metavar="DIR",
        help="also time each kind of photo read with this folder's models, interleaved with the shipped reader",
    )
    p.add_argument("--salida", type=Path, default=None, help="also write the results here (JSON)")
    p.add_argument(
        "--etapas", action="store_true", help="also where each read's time goes: each ONNX model's ms, the rest"
    )
    args = p.parse_args(argv)
    images = [
        render_scene(
            scene_rng(0, "eval", 1000 + i), backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind="mesa"
        ).image
        for i in range(5)
    ]
    t0 = time.perf_counter()
    settings = ReaderSettings(threads=args.hilos)
    reader = CardReader(settings=settings).load()
    load_ms = (time.perf_counter() - t0) * 1000
    onnx_ms = _time(reader.read, images, args.veces)
    res = {
        "foto": "1280x960",
        "hilos": args.hilos,
        "veces": args.veces,
        "onnxruntime_carga_ms": round(load_ms, 1),
        "onnxruntime_mediana_ms": round(statistics.median(onnx_ms), 1),
    }
    closeups = [
        render_scene(
            scene_rng(0, "eval", 1000 + i), backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind="mano"
        ).image
        for i in range(5)
    ]
    res["primer_plano_mediana_ms"] = round(statistics.median(_time(reader.read, closeups, args.veces)), 1)
    # a hand filling the frame: the reader reads it again zoomed out (vision.scale)
    near = [
        closeup_at_scale(scene_rng(0, "eval", 1000 + i), "fournier1878-pd", style).image
        for i, style in enumerate(("row", "overlap", "fan", "overlap", "fan"))
    ]
    res["primer_plano_cerca_mediana_ms"] = round(statistics.median(_time(reader.read, near, args.veces)), 1)
    if args.etapas:
        res["encoger_dos_pasos_ms"], res["encoger_un_paso_ms"] = shrink_times(
            images, int(reader.detector.session.get_inputs()[0].shape[2]), args.veces
        )
        res["etapas"] = stage_times({"mesa": images, "primer_plano": closeups, "cerca": near}, args.veces, args.hilos)
    photos_by_kind = {"mesa": images, "primer_plano": closeups, "primer_plano_cerca": near}
    if args.fp32:
        fp32 = CardReader(reader.folder, replace(settings, int8_classifier=False)).load()
        for key, photos in photos_by_kind.items():
            new, old = _time_pair(reader.read, fp32.read, photos, args.veces)
            res[f"{key}_intercalado_mediana_ms"] = round(statistics.median(new), 1)
            res[f"{key}_intercalado_fp32_mediana_ms"] = round(statistics.median(old), 1)
    if args.frente_a:
        res.update(_against(reader, CardReader(args.frente_a, settings).load(), photos_by_kind, args.veces))
    if reader.classifier.has_marks:
        no_marks = CardReader(reader.folder, replace(settings, index_weight=0, pinta_weight=0)).load()
        res["onnxruntime_sin_marcas_mediana_ms"] = round(statistics.median(_time(no_marks.read, images, args.veces)), 1)
    if args.baraja:
        res.update(_registered_times(args.baraja, settings, images, args.veces))
    if args.pytorch:
        read = torch_reader(reader.folder, args.hilos)
        # interleaved read by read with the ONNX Runtime reader: the machine's other work
        # weighs on both alike
        ort_ms, torch_ms = _time_pair(reader.read, read, images, args.veces)
        res["pytorch_mediana_ms"] = round(statistics.median(torch_ms), 1)
        res["onnxruntime_intercalado_con_pytorch_mediana_ms"] = round(statistics.median(ort_ms), 1)
        res["pytorch_entre_onnxruntime"] = round(statistics.median(torch_ms) / statistics.median(ort_ms), 2)
    res["carga_media_cpu"] = round(os.getloadavg()[0], 2)
    print(json.dumps(res, indent=1, ensure_ascii=False))
    if args.salida:
        args.salida.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
