"""Train the card reader from nothing, offline, on this CPU: one command.

    python -m training.cards.train --salida runs/cartas --tiempo 100

1. ``datos``, ``recortes``: renders the synthetic data (:mod:`training.cards.dataset`): detector images
   (640x480) with oriented card boxes (mixed scenes, plus sets of close-ups of one hand and of
   cards laid out to register a deck), and rectified card crops (jittered true boxes) taken
   from full-resolution (1280x960) scenes;
2. ``clasificador``: trains the 40-class crop classifier (:mod:`training.cards.classifier`);
   ``indice``: the reader of the printed rank in the corners (:mod:`training.cards.corner_index`, about
   40 min at its default sizes before the half-hidden cards, which add an estimated 12,
   taken from ``--tiempo`` before the detector's share);
   ``pintas``: the reader of the suit from the breaks in the frame line
   (:mod:`training.cards.pintas`, about 23 min with the half-hidden cards);
3. ``detector``: trains the one-class oriented-box detector (Ultralytics YOLO11-OBB at a thin
   custom scale, ``training/cards/carta-obb.yaml``, no pretrained weights) for the time left in
   ``--tiempo`` minus ``--reserva``; ``abanicos``: fine-tunes it on 1,200 more tables, two in
   three with every hand fanned, 3 epochs at a small rate, and keeps the second epoch's weights
   (chosen on validation tables; about 30 min); the later stages use that detector when the
   run folder holds it (a ``detector`` stage run without ``abanicos`` renames an earlier one to
   ``abanicos_anterior.pt``); ``mezcla``: renders 5,495 fresh images of every layout (fanned
   tables, tables laid any way, mixed scenes, close-ups, decks laid out to register) and
   fine-tunes the detector on them for 44 epochs at batch 64: about 7 min on an H200 GPU with 16
   cores (``--dispositivo 0 --hilos 15``), many hours on this CPU; the later stages prefer its
   detector (``detector`` or ``abanicos`` run without it rename an earlier one, as above);
4. ``recortes-detector``, ``afinar``: cuts more crops where the trained detector puts its boxes
   (its real errors) and of the half-hidden cards of tables laid out in fans and overlapping
   rows (where most wrong ids fall; the mark readers train on those cards' views too), and
   fine-tunes the classifier on the three sets;
5. ``exportar``: the models to ONNX in ``SALIDA/export/`` (``--instalar`` copies them to
   ``models/``).

Needs the ``train`` extra (torch, ultralytics, onnx). Ultralytics is kept offline here:
YOLO_OFFLINE, no auto-install, a local font, ``amp=False``, models from ``.yaml`` only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from common.files import write_atomic
from training.cards.dataset import (
    join_sets,
    write_crop_set,
    write_detector_crop_set,
    write_detector_set,
    write_fan_table_set,
    write_hidden_crop_set,
)
from training.cards.decks import DECKS
from vision.detect import Detector
from vision.models import CLASSIFIER_FILE, CORNER_INDEX_FILE, DETECTOR_FILE, PINTAS_FILE, REPO

MODELS = REPO / "models"
DET_YAML = Path(__file__).resolve().parent / "carta-obb.yaml"  # YOLO11-OBB, 1 class, thin


def setup_offline(config_dir: Path, threads: int = 2) -> None:
    """Environment that keeps Ultralytics from reaching the network; call before importing it."""
    config_dir = Path(config_dir).resolve()
    (config_dir / "Ultralytics").mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("MPLCONFIGDIR", str(config_dir / "mpl"))
    # matplotlib and torch (the train extra) read that environment when first imported
    import matplotlib

    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = config_dir / "Ultralytics" / name
        if not target.exists():
            shutil.copy(font, target)
    import torch

    torch.set_num_threads(threads)


def train_detector(
    data_yaml: Path,
    out: Path,
    *,
    epochs: int,
    imgsz: int,
    batch: int = 16,
    workers: int = 2,
    threads: int = 2,
    time_hours: float | None = None,
    fraction: float = 1.0,
    patience: int = 100,
    seed: int = 0,
    init: Path | None = None,
    lr0: float | None = None,
    save_period: int = -1,
    name: str = "detector",
    device: str = "cpu",
    close_mosaic: int | None = None,
) -> Path:
    """Train the detector from scratch, or on from ``init`` weights; returns the path of best.pt.

    ``device`` is Ultralytics' (``"cpu"``, ``"0"`` for the first CUDA GPU). Mosaic
    augmentation stops for the last ``close_mosaic`` epochs (a fifth of them by default).

    ``save_period`` > 0 keeps every n-th epoch's weights (``epochN.pt``, N from 0), so that the
    epoch to ship can be chosen on validation tables rather than by Ultralytics' mAP. The run
    goes to ``out/name``.
    """
    setup_offline(out / "cfg", threads)
    # torch and Ultralytics (the train extra), once the environment keeps Ultralytics offline
    import torch
    import ultralytics.utils.torch_utils as tu
    from ultralytics import YOLO

    tu.NUM_THREADS = threads  # it would reset torch to cpu_count - 1 = 1 thread here
    _without_polars()
    model = YOLO(str(init or DET_YAML))
    model.add_callback("on_train_epoch_start", lambda trainer: torch.set_num_threads(threads))
    kwargs = dict(
        data=str(data_yaml),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        device=device,
        workers=workers,
        amp=False,
        plots=False,
        project=str(out.resolve()),
        name=name,
        exist_ok=True,
        pretrained=init is not None,
        seed=seed,
        deterministic=False,
        fraction=fraction,
        patience=patience,
        verbose=False,
        cache=False,
        close_mosaic=close_mosaic or max(1, epochs // 5),
        degrees=180.0,
        fliplr=0.5,
        flipud=0.5,
        mosaic=0.5,
        scale=0.3,
        translate=0.1,
        hsv_h=0.03,
        hsv_s=0.6,
        hsv_v=0.4,
        val=True,
        save_period=save_period,
    )
    if time_hours:
        kwargs["time"] = time_hours
    if lr0 is not None:  # going on from trained weights: a small rate, a short warm-up
        kwargs.update(optimizer="AdamW", lr0=lr0, warmup_epochs=0.3)
    torch.set_num_threads(threads)
    model.train(**kwargs)
    return out / name / "weights" / "best.pt"


def _without_polars() -> None:
    """Ultralytics reads its results table with polars only to store it in the checkpoint: on a
    lent GPU machine where polars is not installed (its 54 MB wheel does not travel), the
    checkpoint keeps no results table rather than the run failing at its first save."""
    try:
        import polars  # noqa: F401
    except ImportError:
        from ultralytics.engine.trainer import BaseTrainer

        # replacing the method on purpose (mypy refuses assigning to a method)
        BaseTrainer.read_results_csv = lambda self: {}  # type: ignore[method-assign]


def fanned_detector(out: Path) -> Path:
    """Where a run folder keeps the detector fine-tuned on fanned tables (the kept epoch, its
    optimizer stripped)."""
    return out / "detector_abanicos" / "abanicos.pt"


def mixed_detector(out: Path) -> Path:
    """Where a run folder keeps the detector fine-tuned on the mixed sets (stage ``mezcla``)."""
    return out / "detector_mezcla" / "mezcla.pt"


def retire_fanned(out: Path) -> Path | None:
    """Rename a run folder's ``detector_abanicos/abanicos.pt`` (the detector fine-tuned on fanned
    tables, which the later stages prefer) to ``abanicos_anterior.pt``, replacing an older one:
    when the detector is trained again without the fan stage, that file was made from the old
    detector. Returns the new path, or None when there was nothing to move."""
    return _retire(fanned_detector(out))


def retire_mixed(out: Path) -> Path | None:
    """As :func:`retire_fanned`, for ``detector_mezcla/mezcla.pt`` (``mezcla_anterior.pt``)."""
    return _retire(mixed_detector(out))


def _retire(path: Path) -> Path | None:
    if not path.is_file():
        return None
    return path.replace(path.with_name(f"{path.stem}_anterior{path.suffix}"))


# The mixed fine-tune's sets: folder, kind (None: mixed scenes; "fan": two tables in three
# fanned, write_fan_table_set from its table MIXED_FAN_FIRST, after the 1,200 of the abanicos
# stage and 1,200 more kept for a second set of fanned tables), render size, seed offset,
# training and validation images. "cerca": one hand filling 70-98 % of the frame (cards up to
# about 0.9 of the photo's longer side, far larger than the other sets'); "vacia": tables with
# no card face (distractors, card backs). The no-card photos (training.cards.negatives) join
# them as the set "mez_nada".
MIXED_SETS = (
    ("mez_abanicos", "fan", (1280, 960), 0, 2400, 60),
    ("mez_mesa", "mesa", (1280, 960), 41, 1200, 30),
    ("mez_escenas", None, (640, 480), 42, 1195, 30),
    ("mez_mano", "mano", (640, 480), 43, 300, 6),
    ("mez_palo", "palo", (1280, 960), 44, 300, 6),
    ("mez_baraja", "baraja", (1280, 960), 45, 100, 4),
    ("mez_cerca", "cerca", (960, 720), 46, 1000, 15),
    ("mez_vacia", "vacia", (1280, 960), 47, 150, 1),
)
MIXED_VAL = ("mez_abanicos", "mez_mesa", "mez_escenas", "mez_cerca")  # the sets validated on
MIXED_FAN_FIRST = 2400
MIXED_NEGATIVES = 360  # no-card photos (times the scale)


def write_mixed_sets(
    out: Path,
    *,
    scale: float = 1.0,
    seed: int = 0,
    decks: tuple[str, ...] | None = None,
    workers: int | None = None,
    negatives: Path | None = None,
) -> Path:
    """Render :data:`MIXED_SETS` (each count times ``scale``, at least 1) under ``out`` and
    return a data yaml that trains on all of them and on the no-card photos, and validates on
    :data:`MIXED_VAL`. ``negatives``: a no-card set written earlier by
    :func:`training.cards.negatives.write_training_set` (on a machine without scikit-image's
    photos); rendered here into ``out/mez_nada`` when None."""
    decks = decks or DECKS
    if negatives is None:
        from training.cards.negatives import write_training_set

        negatives = write_training_set(out / "mez_nada", max(1, round(MIXED_NEGATIVES * scale)))
    for folder, kind, render, offset, n_train, n_val in MIXED_SETS:
        n_train, n_val = (max(1, round(n * scale)) for n in (n_train, n_val))
        if kind == "fan":
            write_fan_table_set(
                out / folder,
                n_train=n_train,
                n_val=n_val,
                seed=seed + offset,
                decks=decks,
                workers=workers,
                first=MIXED_FAN_FIRST,
            )
        else:
            write_detector_set(
                out / folder,
                n_train=n_train,
                n_val=n_val,
                seed=seed + offset,
                decks=decks,
                workers=workers,
                render_size=render,
                kind=kind,
            )
    data = out / "mezcla.yaml"
    train = [f"{s[0]}/images/train" for s in MIXED_SETS] + [str(negatives.resolve() / "images" / "train")]
    data.write_text(
        f"path: {out}\ntrain: [{', '.join(train)}]\nval: ["
        + ", ".join(f"{name}/images/val" for name in MIXED_VAL)
        + "]\nnames:\n  0: carta\n"
    )
    return data


def export_detector(weights: Path, out_dir: Path, imgsz: int) -> Path:
    # Ultralytics (the train extra): imported where a stage needs it
    from ultralytics import YOLO

    model = YOLO(str(weights))
    path = Path(
        model.export(
            format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=False, half=False, nms=False, device="cpu"
        )
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    # the box head's decoding laid out for ONNX Runtime: the same outputs, a quarter less time
    # (training.cards.dfl)
    import onnx

    from training.cards.dfl import fast_dfl

    write_atomic(out_dir / DETECTOR_FILE, fast_dfl(onnx.load(path)).SerializeToString())
    return out_dir / DETECTOR_FILE


def copy_whole(src: Path, dst: Path) -> None:
    """Copy a model file so that a run stopped halfway leaves the old ``dst`` or the new one,
    never half a model for the reader to load."""
    write_atomic(dst, src.read_bytes())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--salida", type=Path, default=Path("runs/cartas"), help="the run's folder")
    p.add_argument("--tiempo", type=float, default=100, help="minutes for the whole run")
    p.add_argument("--escenas", type=int, default=4500, help="detector training images (mixed)")
    p.add_argument(
        "--escenas-extra",
        type=int,
        default=300,
        help="detector images of each extra kind: close-ups of one hand, one suit "
        "laid out to register it (and a third as many whole decks)",
    )
    p.add_argument("--escenas-val", type=int, default=150)
    p.add_argument("--escenas-cls", type=int, default=900, help="full-resolution scenes for crops")
    p.add_argument("--tamano-imagen", type=int, default=448, help="the detector's input size")
    p.add_argument("--epocas", type=int, default=30, help="detector epochs")
    p.add_argument("--epocas-cls", type=int, default=8, help="classifier epochs")
    p.add_argument("--epocas-afinar", type=int, default=10, help="classifier fine-tuning epochs")
    p.add_argument(
        "--escenas-det-cls", type=int, default=400, help="scenes whose detector boxes become classifier crops"
    )
    # estimated from a measured classifier epoch at the default sizes (about 10-11 s per 1,000
    # crops): afinar's 10 epochs of ~55,000 crops take about 95 min, plus ~10 min of detector
    # and half-hidden crops, plus ~30 min for the fanned tables' fine-tuning of the detector
    p.add_argument(
        "--reserva", type=float, default=135, help="minutes of --tiempo kept for the stages after the detector"
    )
    p.add_argument("--barajas", default="fournier1878-pd,naipes-libres-basquetteur")
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument(
        "--detector-desde", type=Path, default=None, help="go on training the detector from these weights (.pt)"
    )
    p.add_argument(
        "--aumento-diseno", action="store_true", help="classifier: also vary what differs between deck designs"
    )
    p.add_argument(
        "--aumento-estilo",
        action="store_true",
        help="classifier: on top of --aumento-diseno, another printer's style "
        "(palette, saturation, line weight, flat or textured print)",
    )
    p.add_argument(
        "--hilos",
        type=int,
        default=1,
        help="torch threads and rendering processes (1 is fastest on a loaded 2-core machine)",
    )
    p.add_argument("--dispositivo", default="cpu", help="where the detector trains: cpu, or a CUDA GPU's number (0)")
    p.add_argument(
        "--etapas",
        default="datos,recortes,clasificador,indice,pintas,detector,abanicos,mezcla,recortes-detector,afinar,exportar",
    )
    p.add_argument("--escenas-indice", type=int, default=1200, help="tables whose card corners train the rank reader")
    p.add_argument(
        "--sinteticos-indice", type=int, default=60_000, help="synthetic index patches the rank reader is pretrained on"
    )
    p.add_argument(
        "--epocas-indice",
        type=str,
        default="5,6",
        help="rank reader epochs: on synthetic patches, then on the tables' corners",
    )
    p.add_argument(
        "--escenas-pintas", type=int, default=700, help="tables whose cards' frame strips train the suit reader"
    )
    p.add_argument("--epocas-pintas", type=int, default=8)
    p.add_argument(
        "--escenas-tapadas",
        type=int,
        default=800,
        help="tables in fans and overlapping rows whose half-hidden cards the "
        "classifier and the mark readers also train on (0: none)",
    )
    p.add_argument(
        "--escenas-abanico",
        type=int,
        default=1200,
        help="tables (two in three fanned) the detector is fine-tuned on (abanicos)",
    )
    p.add_argument("--epocas-abanico", type=int, default=3)
    p.add_argument(
        "--epoca-abanico", type=int, default=1, help="which of those epochs' weights to keep, from 0 (1: the second)"
    )
    p.add_argument(
        "--escala-mezcla",
        type=float,
        default=1.0,
        help="mezcla: times the images of each mixed set (6,797 in all at 1, and the no-card photos)",
    )
    p.add_argument("--epocas-mezcla", type=int, default=44)
    p.add_argument("--lote-mezcla", type=int, default=64, help="mezcla: batch size")
    p.add_argument(
        "--limite-mezcla",
        type=float,
        default=None,
        help="mezcla: seconds from the start for rendering and training together (the epochs fit the time left)",
    )
    p.add_argument(
        "--negativos",
        type=Path,
        default=None,
        help="mezcla: a no-card set written earlier (python -m training.cards.negatives --escribir DIR N)",
    )
    p.add_argument("--instalar", action="store_true", help="copy the ONNX files to models/")
    args = p.parse_args(argv)
    if not 0 <= args.epoca_abanico < args.epocas_abanico:
        p.error("--epoca-abanico debe ser menor que --epocas-abanico")
    start = time.time()
    out = args.salida.resolve()
    out.mkdir(parents=True, exist_ok=True)
    decks = tuple(args.barajas.split(","))
    stages = set(args.etapas.split(","))
    for tune in ("abanicos", "mezcla"):
        if (
            tune in stages
            and "detector" not in stages
            and args.detector_desde is None
            and not (out / "detector" / "weights" / "best.pt").is_file()
            and not (tune == "mezcla" and fanned_detector(out).is_file())
        ):
            p.error(f"la etapa {tune} afina un detector: corre la etapa detector o da --detector-desde")
    log: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}

    def note(msg: str) -> None:
        print(f"[{time.time() - start:7.0f} s] {msg}", flush=True)

    if "datos" in stages:
        note("rendering detector scenes")
        write_detector_set(
            out / "det",
            n_train=args.escenas,
            n_val=args.escenas_val,
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
            render_size=(640, 480),
        )
        extra_sets = []
        for k, (kind, n) in enumerate(
            (("mano", args.escenas_extra), ("palo", args.escenas_extra), ("baraja", max(1, args.escenas_extra // 3)))
        ):
            write_detector_set(
                out / f"det_{kind}",
                n_train=n,
                n_val=max(1, args.escenas_val // 5),
                seed=args.semilla + 100 + k,
                decks=decks,
                workers=args.hilos,
                render_size=(640, 480),
                kind=kind,
            )
            extra_sets.append(f"det_{kind}")
        (out / "det_all.yaml").write_text(
            f"path: {out}\ntrain: [det/images/train, "
            + ", ".join(f"{d}/images/train" for d in extra_sets)
            + "]\nval: [det/images/val, "
            + ", ".join(f"{d}/images/val" for d in extra_sets)
            + "]\nnames:\n  0: carta\n"
        )
        log["datos_s"] = time.time() - start
    if "recortes" in stages:
        note("rendering classifier crops")
        write_crop_set(
            out / "crops_train.npz",
            n_scenes=args.escenas_cls,
            split="train",
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
        )
        write_crop_set(
            out / "crops_val.npz",
            n_scenes=max(20, args.escenas_cls // 10),
            split="val",
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
        )
    if "clasificador" in stages:
        # the networks' modules import torch (the train extra): only where a stage trains one
        from training.cards.classifier import train_classifier

        note("training classifier")
        t0 = time.time()
        res = train_classifier(
            out / "crops_train.npz",
            out / "crops_val.npz",
            out / "classifier",
            epochs=args.epocas_cls,
            threads=args.hilos,
            design_augment=args.aumento_diseno,
            style_augment=args.aumento_estilo,
        )
        log["clasificador"] = {**res, "s": time.time() - t0}
        note(f"classifier: {res}")
    if "indice" in stages:
        from training.cards import corner_index  # torch, as above

        note("training the corner-index rank reader")
        t0 = time.time()
        pre, fine = args.epocas_indice.split(",")
        corner_index.main(
            [
                "--salida",
                str(out / "indice"),
                "--barajas",
                ",".join(decks),
                "--escenas",
                str(args.escenas_indice),
                "--escenas-val",
                str(max(1, args.escenas_val // 2)),
                "--sinteticos",
                str(args.sinteticos_indice),
                "--epocas-pre",
                pre,
                "--epocas",
                fine,
                "--escenas-tapadas",
                str(args.escenas_tapadas),
                "--hilos",
                str(args.hilos),
                "--semilla",
                str(args.semilla),
            ]
        )
        log["indice_s"] = time.time() - t0
    if "pintas" in stages:
        from training.cards import pintas  # torch, as above

        note("training the pintas' suit reader")
        t0 = time.time()
        pintas.main(
            [
                "--salida",
                str(out / "pintas"),
                "--barajas",
                ",".join(decks),
                "--escenas",
                str(args.escenas_pintas),
                "--escenas-val",
                str(max(1, args.escenas_val // 2)),
                "--epocas",
                str(args.epocas_pintas),
                "--escenas-tapadas",
                str(args.escenas_tapadas),
                "--hilos",
                str(args.hilos),
                "--semilla",
                str(args.semilla),
            ]
        )
        log["pintas_s"] = time.time() - t0
    if "detector" in stages and "abanicos" not in stages and (kept := retire_fanned(out)):
        note(
            f"the fanned-table detector of an earlier run was made from the old detector: "
            f"moved to {kept.name}, the new detector is the one used"
        )
    if stages & {"detector", "abanicos"} and "mezcla" not in stages and (kept := retire_mixed(out)):
        note(
            f"the mixed-set detector of an earlier run was made from the old detector: "
            f"moved to {kept.name}, the new detector is the one used"
        )
    if "detector" in stages:
        left_h = (args.tiempo * 60 - (time.time() - start)) / 3600 - args.reserva / 60
        note(f"training detector, {left_h * 60:.0f} min left")
        t0 = time.time()
        train_detector(
            out / "det_all.yaml",
            out,
            epochs=args.epocas,
            imgsz=args.tamano_imagen,
            threads=args.hilos,
            workers=args.hilos,
            time_hours=max(left_h, 0.01) if args.tiempo else None,
            seed=args.semilla,
            init=args.detector_desde,
            device=args.dispositivo,
            lr0=1e-3 if args.detector_desde else None,
        )
        log["detector_s"] = time.time() - t0
    export = out / "export"
    best = out / "detector" / "weights" / "best.pt"
    fanned = fanned_detector(out)
    if "abanicos" in stages:
        init = best if best.is_file() else args.detector_desde
        note("rendering fanned tables and fine-tuning the detector on them")
        t0 = time.time()
        write_fan_table_set(
            out / "det_abanicos",
            n_train=args.escenas_abanico,
            n_val=max(1, args.escenas_val * 2 // 5),
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
        )
        train_detector(
            out / "det_abanicos" / "data.yaml",
            out,
            epochs=args.epocas_abanico,
            imgsz=args.tamano_imagen,
            threads=args.hilos,
            workers=args.hilos,
            seed=args.semilla,
            init=init,
            lr0=3e-4,
            save_period=1,
            name="detector_abanicos",
            device=args.dispositivo,
        )
        from ultralytics.utils.torch_utils import strip_optimizer  # the train extra

        strip_optimizer(out / "detector_abanicos" / "weights" / f"epoch{args.epoca_abanico}.pt", str(fanned))
        log["abanicos_s"] = time.time() - t0
    if fanned.is_file():  # the later stages read with the fine-tuned detector
        best = fanned
    mixed = mixed_detector(out)
    if "mezcla" in stages:
        init = best if best.is_file() else args.detector_desde
        note(f"rendering the mixed sets and fine-tuning the detector ({init.name}) on them")
        t0 = time.time()
        data = write_mixed_sets(
            out / "det_mezcla",
            scale=args.escala_mezcla,
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
            negatives=args.negativos,
        )
        log["mezcla_datos_s"] = time.time() - t0
        hours = None
        if args.limite_mezcla:  # training gets what the rendering left, less the final save
            hours = max(args.limite_mezcla - (time.time() - start) - 45, 60) / 3600
            note(f"fine-tuning for {hours * 60:.1f} min")
        train_detector(
            data,
            out,
            epochs=args.epocas_mezcla,
            imgsz=args.tamano_imagen,
            batch=args.lote_mezcla,
            threads=args.hilos,
            workers=args.hilos,
            seed=args.semilla,
            init=init,
            lr0=5e-4,
            name="detector_mezcla",
            device=args.dispositivo,
            close_mosaic=12,
            time_hours=hours,
        )
        from ultralytics.utils.torch_utils import strip_optimizer  # the train extra

        strip_optimizer(out / "detector_mezcla" / "weights" / "last.pt", str(mixed))
        log["mezcla_s"] = time.time() - t0
    if mixed.is_file():
        best = mixed
    if "recortes-detector" in stages:
        note("classifier crops where the trained detector puts its boxes")
        detector = Detector(export_detector(best, export, args.tamano_imagen), args.hilos, threshold=0.25)
        write_detector_crop_set(
            out / "crops_det.npz",
            detector,
            n_scenes=args.escenas_det_cls,
            seed=args.semilla,
            decks=decks,
            workers=args.hilos,
        )
        if args.escenas_tapadas:
            write_hidden_crop_set(
                out / "crops_tapadas.npz", detector, n_scenes=args.escenas_tapadas, seed=args.semilla, decks=decks
            )
    if "afinar" in stages:
        from training.cards.classifier import train_classifier  # torch, as above

        note("fine-tuning the classifier on true-box, detector-box and half-hidden crops")
        parts = [
            out / name for name in ("crops_train.npz", "crops_det.npz", "crops_tapadas.npz") if (out / name).is_file()
        ]
        join_sets(out / "crops_train_det.npz", parts, ("x", "y", "deck"))
        t0 = time.time()
        res = train_classifier(
            out / "crops_train_det.npz",
            out / "crops_val.npz",
            out / "classifier_afinado",
            epochs=args.epocas_afinar,
            threads=args.hilos,
            lr=1.5e-3,
            init=out / "classifier" / "carta_cls.pt",
            design_augment=args.aumento_diseno,
            style_augment=args.aumento_estilo,
        )
        log["afinar"] = {**res, "s": time.time() - t0}
        note(f"classifier (fine-tuned): {res}")
    if "exportar" in stages:
        note("exporting to ONNX")
        export_detector(best, export, args.tamano_imagen)
        tuned = out / "classifier_afinado"
        cls_dir = tuned if (tuned / CLASSIFIER_FILE).is_file() else out / "classifier"
        copy_whole(cls_dir / CLASSIFIER_FILE, export / CLASSIFIER_FILE)
        copy_whole(cls_dir / "carta_cls.pt", export / "carta_cls.pt")
        copy_whole(best, export / "carta_obb.pt")
        names = [DETECTOR_FILE, CLASSIFIER_FILE, "carta_obb.pt", "carta_cls.pt"]
        # the mark readers, where their stages ran: ONNX and checkpoint
        for stage, pair in (
            ("indice", (CORNER_INDEX_FILE, "carta_idx.pt")),
            ("pintas", (PINTAS_FILE, "carta_palo.pt")),
        ):
            if (out / stage / pair[0]).is_file():
                for name in pair:
                    copy_whole(out / stage / name, export / name)
                names += pair
        if args.instalar:
            for name in names:
                copy_whole(export / name, MODELS / name)
            note(f"installed in {MODELS}")
    log["total_s"] = time.time() - start
    (out / f"train_log_{'-'.join(sorted(stages))}.json").write_text(json.dumps(log, indent=1))
    note("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
