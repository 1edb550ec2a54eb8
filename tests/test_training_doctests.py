"""The examples in the training modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

TRAINING = Path(__file__).resolve().parent.parent / "training"
TORCH_MODULES = {"training.cards.classifier", "training.cards.corner_index", "training.cards.pintas"}
WITH_EXAMPLES = sorted(
    ".".join(p.relative_to(TRAINING.parent).with_suffix("").parts)
    for p in TRAINING.rglob("*.py")
    if ">>> " in p.read_text(encoding="utf-8")
)


def test_some_training_modules_have_examples():
    assert "training.cards.evaluate" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_module_doctests(name: str) -> None:
    if name in TORCH_MODULES and importlib.util.find_spec("torch") is None:
        pytest.skip("torch (the train extra) is not installed")
    with np.printoptions(legacy=False):  # another test may have changed them
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
