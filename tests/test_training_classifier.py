"""The classifier's training options, in a subprocess (torch beside Kivy and MediaPipe in one
pytest process crashed; see test_models_smoke_train.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=280)


def test_the_margin_cosine_loss_prefers_features_near_their_class():
    code = """
import torch
from training.cards.classifier import CosineHead
head = CosineHead(6, n_classes=3)
with torch.no_grad():
    head.weight.copy_(torch.eye(3, 6))
y = torch.tensor([1])
near = torch.nn.functional.normalize(torch.tensor([[0.1, 1.0, 0.0, 0.0, 0.0, 0.0]]), dim=1)
far = torch.nn.functional.normalize(torch.tensor([[1.0, 0.1, 0.0, 0.0, 0.0, 0.0]]), dim=1)
print(float(head.loss(near, y)), float(head.loss(far, y)))
"""
    res = _run("-c", code)
    assert res.returncode == 0, res.stderr
    near, far = (float(v) for v in res.stdout.split())
    assert near < 0.5 < far


def test_training_with_the_feature_loss_exports_a_model_with_features(tmp_path):
    rng = np.random.default_rng(0)
    crops = tmp_path / "crops.npz"
    np.savez(
        crops,
        x=rng.integers(0, 255, (80, 96, 64, 3), np.uint8),
        y=np.arange(80) % 40,
        deck=np.zeros(80, np.int64),
        decks=np.array(["a"]),
    )
    out = tmp_path / "cls"
    res = _run(
        "-m",
        "training.cards.classifier",
        "--recortes",
        str(crops),
        "--val",
        str(crops),
        "--epocas",
        "1",
        "--hilos",
        "1",
        "--perdida-rasgos",
        "1.0",
        "--salida",
        str(out),
    )
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "classifier_log.json").read_text())["n_train"] == 80
    import onnxruntime as ort

    sess = ort.InferenceSession(str(out / "carta_cls.onnx"))
    logits, feats = sess.run(None, {"crops": rng.random((2, 3, 96, 64), dtype=np.float32)})
    assert logits.shape == (2, 40) and feats.shape == (2, 960)
    assert np.allclose(np.linalg.norm(feats, axis=1), 1, atol=1e-4)
