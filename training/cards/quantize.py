"""Make the int8 card classifier the generic reader classifies with (``models/carta_cls_int8.onnx``):
ONNX Runtime's static quantization of ``models/carta_cls.onnx`` (QDQ, per channel), calibrated on
the crops the shipped detector cuts from generated photos of the ``val`` split (tables and
close-ups of both reference decks, the training backgrounds; never the ``eval`` scenes the
evaluation reads), each crop upright and turned half a turn as the reader classifies them.

    python -m training.cards.quantize --escenas 12 --prueba 10

Then it reports the share of crops both classifiers name right on crops of ``eval`` scenes (the
cards' true boxes, jittered), and their agreement. The fp32 file stays: a registered or learned
deck's features and its hash come from it (:mod:`vision.registered_deck`); only the generic
reading uses this one (:class:`vision.classify.Classifier`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from scoring.cards import CARD_IDS
from training.cards.dataset import jitter_obb, scene_rng
from training.cards.decks import DECKS
from training.cards.synth import HOLDOUT_BACKGROUNDS, render_scene
from vision.classify import softmax
from vision.geometry import crop_cards, quad_to_obb
from vision.models import CLASSIFIER_FILE, FAST_CLASSIFIER_FILE, models_dir, session
from vision.reader import CardReader

SEED = 0


def calibration_crops(scenes: int, seed: int = SEED) -> np.ndarray:
    """The classifier's input (N, 3, 96, 64) float32 of the crops the reader's detector cuts
    from ``scenes`` generated photos of each deck (``val`` split), upright and turned."""
    reader = CardReader().load()
    crops = []
    for deck in DECKS:
        for i in range(scenes):
            kind = "mesa" if i % 3 else "mano"
            scene = render_scene(scene_rng(seed, "val", 5000 + i), decks=(deck,), size=(1280, 960), kind=kind)
            boxes = reader.detector.detect(scene.image).boxes
            if len(boxes):
                c = crop_cards(scene.image, boxes)
                crops += [c, c[:, ::-1, ::-1]]
    x = np.concatenate(crops)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2).astype(np.float32) / 255)


def test_crops(scenes: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, 96, 64, 3) of the cards' true boxes (jittered) in ``eval`` tables of both
    decks on the held-out backgrounds, and their class indices."""
    crops, labels = [], []
    for deck in DECKS:
        for i in range(scenes):
            rng = scene_rng(seed, "eval", 9000 + i)
            scene = render_scene(rng, decks=(deck,), backgrounds=HOLDOUT_BACKGROUNDS, size=(1280, 960), kind="mesa")
            obbs = np.stack([jitter_obb(rng, quad_to_obb(q)) for q in scene.corners])
            crops.append(crop_cards(scene.image, obbs))
            labels += [CARD_IDS.index(c) for c in scene.card_ids]
    return np.concatenate(crops), np.array(labels)


def predict(path: Path, crops: np.ndarray) -> np.ndarray:
    """The classifier's probabilities (both ways averaged, as the reader reads)."""
    sess = session(str(path), 2)
    name = sess.get_inputs()[0].name
    both = np.concatenate([crops, crops[:, ::-1, ::-1]]).transpose(0, 3, 1, 2).astype(np.float32) / 255
    p = softmax(sess.run(None, {name: both})[0])
    n = len(crops)
    out: np.ndarray = (p[:n] + p[n:]) / 2
    return out


def quantize(source: Path, target: Path, calibration: np.ndarray) -> None:
    """Static QDQ int8 quantization of ``source`` into ``target``, calibrated on ``calibration``."""
    # ONNX Runtime's quantization tools are only needed here
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(np.array_split(calibration, max(1, len(calibration) // 64)))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.batches, None)
            return None if batch is None else {"crops": batch}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(source), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(target),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.quantize",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--escenas", type=int, default=12, help="calibration photos of each deck")
    p.add_argument("--prueba", type=int, default=20, help="test tables of each deck")
    p.add_argument("--salida", type=Path, default=models_dir() / FAST_CLASSIFIER_FILE)
    args = p.parse_args(argv)
    source = models_dir() / CLASSIFIER_FILE
    quantize(source, args.salida, calibration_crops(args.escenas))
    crops, labels = test_crops(args.prueba)
    fp32, int8 = predict(source, crops), predict(args.salida, crops)
    res = {
        "recortes": len(labels),
        "fp32_bien": round(float((fp32.argmax(1) == labels).mean()), 4),
        "int8_bien": round(float((int8.argmax(1) == labels).mean()), 4),
        "coinciden": round(float((fp32.argmax(1) == int8.argmax(1)).mean()), 4),
        "max_diferencia_prob": round(float(np.abs(fp32 - int8).max()), 4),
    }
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
