"""training.cards.dfl: the detector's DFL decoding laid out for ONNX Runtime gives the same
outputs, and the shipped detector is already laid out so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from training.cards.dfl import BINS, _dfl_nodes, fast_dfl, main  # noqa: E402
from vision.models import DETECTOR_FILE, models_dir  # noqa: E402

ANCHORS = 21


def _dfl_model() -> onnx.ModelProto:
    """Ultralytics' DFL decoding as it exports it: (1, 64, A) -> (1, 4, 16, A) -> transposed to
    (1, 16, 4, A) -> softmax on axis 1 -> 1x1 conv by the bins 0..15 -> (1, 4, A)."""
    nodes = [
        helper.make_node("Reshape", ["x", "shape_in"], ["r"], name="/dfl/Reshape"),
        helper.make_node("Transpose", ["r"], ["t"], name="/dfl/Transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["t"], ["s"], name="/dfl/Softmax", axis=1),
        helper.make_node("Conv", ["s", "w"], ["c"], name="/dfl/conv/Conv", kernel_shape=[1, 1]),
        helper.make_node("Reshape", ["c", "shape_out"], ["y"], name="/dfl/Reshape_1"),
    ]
    inits = [
        numpy_helper.from_array(np.array([1, 4, BINS, ANCHORS], np.int64), "shape_in"),
        numpy_helper.from_array(np.arange(BINS, dtype=np.float32).reshape(1, BINS, 1, 1), "w"),
        numpy_helper.from_array(np.array([1, 4, ANCHORS], np.int64), "shape_out"),
    ]
    graph = helper.make_graph(
        nodes,
        "dfl",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4 * BINS, ANCHORS])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, ANCHORS])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: np.ndarray = sess.run(None, {"x": x})[0]
    return out


def test_the_rewritten_decoding_gives_the_same_box_sides_with_its_softmax_on_the_last_axis() -> None:
    model = _dfl_model()
    fast = fast_dfl(model)
    assert fast is not model and _dfl_nodes(model.graph) is not None and _dfl_nodes(fast.graph) is None
    softmax = next(n for n in fast.graph.node if n.op_type == "Softmax")
    assert helper.get_attribute_value(softmax.attribute[0]) == -1
    assert "Conv" not in {n.op_type for n in fast.graph.node}
    x = np.random.default_rng(0).normal(0, 3, (1, 4 * BINS, ANCHORS)).astype(np.float32)
    old, new = _run(model, x), _run(fast, x)
    assert old.shape == new.shape == (1, 4, ANCHORS)
    np.testing.assert_allclose(new, old, rtol=0, atol=1e-5)
    # each side is the expectation of its bins under the softmax: between 0 and 15
    assert ((new >= 0) & (new <= BINS - 1)).all()
    assert fast_dfl(fast) is fast  # nothing left to rewrite


def test_a_conv_by_other_weights_is_no_dfl_and_is_left_alone() -> None:
    model = _dfl_model()
    w = next(i for i in model.graph.initializer if i.name == "w")
    w.CopyFrom(numpy_helper.from_array(np.ones((1, BINS, 1, 1), np.float32), "w"))
    assert fast_dfl(model) is model


def test_the_shipped_detector_decodes_its_boxes_on_the_last_axis(tmp_path: Path, capsys) -> None:
    """The shipped file was rewritten (python -m training.cards.dfl) and every new export is
    (training.cards.train.export_detector): a softmax on axis 1 cost a quarter of a detector pass."""
    path = models_dir() / DETECTOR_FILE
    if not path.is_file():
        pytest.skip("no shipped detector")
    graph = onnx.load(path).graph
    assert _dfl_nodes(graph) is None
    axes = [helper.get_attribute_value(n.attribute[0]) for n in graph.node if n.op_type == "Softmax"]
    assert axes and set(axes) == {-1}  # the DFL's and the attention block's
    (tmp_path / DETECTOR_FILE).write_bytes(path.read_bytes())
    assert main(["--modelos", str(tmp_path)]) == 0  # already done: the file stays as it is
    assert (tmp_path / DETECTOR_FILE).read_bytes() == path.read_bytes()
    assert "nada que cambiar" in capsys.readouterr().out
