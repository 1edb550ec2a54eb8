"""The reader's ONNX exports are written whole or not at all (training.cards.onnx_file), in a
subprocess (torch beside Kivy and MediaPipe in one pytest process crashed; see
test_models_smoke_train.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parent.parent


def _run(code: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, str(folder)], cwd=REPO, capture_output=True, text=True, timeout=280
    )


def test_an_export_replaces_the_model_with_one_that_reads_like_the_network(tmp_path):
    (tmp_path / "carta_idx.onnx").write_bytes(b"the previous model")
    code = """
import sys
from pathlib import Path
import numpy as np, onnxruntime as ort, torch
from training.cards.corner_index import IndexNet
path = Path(sys.argv[1]) / "carta_idx.onnx"
torch.manual_seed(0)
net = IndexNet()
assert net.export_onnx(path) == path
x = torch.rand(3, 2, *net.view)
with torch.no_grad():
    want = net(x).numpy()
got = ort.InferenceSession(str(path)).run(None, {"esquinas": x.numpy()})[0]
print(float(np.abs(got - want).max()))
"""
    res = _run(code, tmp_path)
    assert res.returncode == 0, res.stderr
    assert float(res.stdout) < 1e-4
    assert [p.name for p in tmp_path.iterdir()] == ["carta_idx.onnx"]  # no temporary file left


def test_a_failed_export_leaves_the_previous_model_untouched(tmp_path):
    (tmp_path / "carta_cls.onnx").write_bytes(b"the previous model")
    code = """
import sys
from pathlib import Path
import torch
from training.cards.onnx_file import write_onnx

class Broken(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("roto a medias")

try:
    write_onnx(Broken(), (torch.zeros(1, 3),), Path(sys.argv[1]) / "carta_cls.onnx",
               input_names=["x"], output_names=["y"], dynamic_axes={})
except RuntimeError as exc:
    print(exc)
"""
    res = _run(code, tmp_path)
    assert res.returncode == 0, res.stderr
    assert "roto a medias" in res.stdout
    assert (tmp_path / "carta_cls.onnx").read_bytes() == b"the previous model"
    assert [p.name for p in tmp_path.iterdir()] == ["carta_cls.onnx"]
