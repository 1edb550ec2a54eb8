"""The model files of the card reader, where they are, and their ONNX Runtime inference objects.

A reader's folder (``models/``, or ``$MUSMESA_MODELS``) holds:

- ``carta_obb.onnx``: the one-class oriented-box card detector (its input size is read from the file);
- ``carta_cls.onnx``: the 40-class card classifier on 64x96 crops (also gives its features);
- ``carta_cls_int8.onnx`` (optional): the same quantized to int8, what the generic reader
  classifies with (never a registered deck's features);
- ``carta_idx.onnx`` (optional): the reader of the rank printed in the corners;
- ``carta_palo.onnx`` (optional): the reader of the suit from the pintas;
- ``carta_dudas.json`` (optional): the learned flag model (:mod:`vision.flags`).

Sessions are created on first use and cached per file and thread count.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Protocol

REPO: Final = Path(__file__).resolve().parent.parent
DETECTOR_FILE: Final = "carta_obb.onnx"
CLASSIFIER_FILE: Final = "carta_cls.onnx"
# The same classifier quantized to int8 (training/cards/quantize.py), about twice as fast: the
# generic reading's card probabilities only. A registered or learned deck's features, and the
# hash it is tied to, stay the fp32 file's, so registered decks stay valid.
FAST_CLASSIFIER_FILE: Final = "carta_cls_int8.onnx"
CORNER_INDEX_FILE: Final = "carta_idx.onnx"
PINTAS_FILE: Final = "carta_palo.onnx"
FLAG_MODEL_FILE: Final = "carta_dudas.json"
ONNX_FILES: Final = (DETECTOR_FILE, CLASSIFIER_FILE, CORNER_INDEX_FILE, PINTAS_FILE)
# Two threads where the process may use two cores: on this 2-core CPU a photo reads about a
# third faster with two than with one, and about as fast with the other core busy
# (training.cards.bench). More were not measured.
DEFAULT_THREADS: Final = min(
    2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
)


def models_dir() -> Path:
    """The shipped models' folder: ``$MUSMESA_MODELS`` if set, else ``models/`` of the repository."""
    env = os.environ.get("MUSMESA_MODELS")
    return Path(env) if env else REPO / "models"


def file_hash(path: str | os.PathLike[str]) -> str:
    """Short SHA-256 of a model file: what a registration or a flag model is tied to."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def models_hashes(folder: str | os.PathLike[str]) -> dict[str, str]:
    """The hashes of a folder's ONNX files (those present)."""
    folder = Path(folder)
    return {n: file_hash(folder / n) for n in ONNX_FILES if (folder / n).is_file()}


class OnnxSession(Protocol):
    """What the reader uses of an ``onnxruntime.InferenceSession`` (the package has no type hints)."""

    def run(self, output_names: Sequence[str] | None, input_feed: Mapping[str, Any]) -> list[Any]: ...

    def get_inputs(self) -> list[Any]: ...


@lru_cache(maxsize=16)
def session(path: str, threads: int) -> OnnxSession:
    """An ONNX Runtime InferenceSession of ``path`` on the CPU with ``threads`` threads."""
    # ONNX Runtime is heavy and only the card reader needs it: imported on first use
    import onnxruntime as ort

    if not Path(path).is_file():
        raise FileNotFoundError(f"falta el modelo {path} (¿se instaló musmesa con models/?)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # every graph optimisation (ONNX Runtime's default, said here): "extended" alone ran the
    # classifier in 66 against 39 ms (docs/experiments.md)
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # no busy-waiting between operators: on a shared or busy CPU spinning threads steal the
    # cores they wait for
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess: OnnxSession = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return sess


def optional_session(folder: Path, name: str, threads: int) -> OnnxSession | None:
    """The ONNX Runtime model of ``folder/name``, or None where the folder has no such file."""
    path = Path(folder) / name
    return session(str(path), threads) if path.is_file() else None
