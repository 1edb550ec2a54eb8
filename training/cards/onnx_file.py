"""Writing a torch network as an ONNX file for the card reader (:mod:`vision.models` loads them).

The export is made in memory and written with :func:`common.files.write_atomic`, so that a run
stopped halfway (a crash, Ctrl-C, a full disk) leaves the old model or the new one in the models
folder, never half a file that ONNX Runtime would refuse to open."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch
from torch import nn

from common.files import write_atomic

OPSET = 17  # the ONNX opset every reader model is exported at


def write_onnx(
    model: nn.Module,
    example: tuple[torch.Tensor, ...],
    path: Path,
    *,
    input_names: Sequence[str],
    output_names: Sequence[str],
    dynamic_axes: Mapping[str, Mapping[int, str]],
) -> Path:
    """Export ``model`` (traced on ``example``, with TorchScript's exporter) to ``path``."""
    buf = io.BytesIO()
    torch.onnx.export(
        model,
        example,
        buf,  # type: ignore[arg-type]  # torch annotates a path, but the TorchScript exporter writes any binary file
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
        opset_version=OPSET,
        dynamo=False,
    )
    write_atomic(path, buf.getvalue())
    return path
