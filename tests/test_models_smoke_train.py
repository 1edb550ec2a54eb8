"""The training pipeline end to end, in seconds: a handful of generated images, one epoch of
the detector and of the classifier, ONNX export, and a read with the exported models.

This is the CI check that `python -m vision.train` still works; the real run is documented in
models/README.md.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")

from vision.decks import DECKS, decks_root

pytestmark = [
    pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images"),
    pytest.mark.timeout(300),
]


def test_smoke_training_exports_models_the_reader_can_use(tmp_path):
    from vision.classifier_train import train_classifier
    from vision.dataset import write_crop_set, write_detector_set
    from vision.reader import CLS_FILE, DET_FILE, CardReader
    from vision.synth import render_scene
    from vision.train import export_detector, train_detector

    data = write_detector_set(tmp_path / "det", n_train=4, n_val=1, det_size=(320, 240),
                              render_size=(320, 240), workers=1)
    best = train_detector(data, tmp_path, epochs=1, imgsz=160, batch=4, workers=0)
    assert best.is_file()
    export = tmp_path / "export"
    onnx_det = export_detector(best, export, 160)
    assert onnx_det.name == DET_FILE and onnx_det.stat().st_size > 100_000

    crops = write_crop_set(tmp_path / "crops.npz", n_scenes=1, render_size=(640, 480), workers=1)
    res = train_classifier(crops, crops, tmp_path / "cls", epochs=1, batch=32)
    assert 0.0 <= res["val_acierto"] <= 1.0
    shutil.copy(tmp_path / "cls" / CLS_FILE, export / CLS_FILE)

    reader = CardReader(export, det_threshold=0.0001).load()
    scene = render_scene(np.random.default_rng(5), size=(640, 480), kind="mano")
    dets = reader.read(scene.image)
    # an untrained model reads nonsense, but the pipeline runs and keeps cards unique
    assert len(set(dets.ids)) == len(dets) <= 40
    assert dets.xyxy.shape == (len(dets), 4)
