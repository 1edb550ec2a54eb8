"""The examples in the gestures modules' docstrings run and hold (no MediaPipe needed)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

GESTURES = Path(__file__).resolve().parent.parent / "gestures"
WITH_EXAMPLES = sorted(f"gestures.{p.stem}" for p in GESTURES.glob("*.py") if ">>> " in p.read_text(encoding="utf-8"))


def test_the_new_modules_have_examples():
    assert {"gestures.context", "gestures.calibration", "gestures.events"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_module_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
