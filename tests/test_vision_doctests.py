"""The examples in the vision modules' docstrings run and hold (vision.plantillas' are run by
tests/test_vision_plantillas.py)."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest


@pytest.mark.parametrize("name", ["vision.baraja", "vision.detections", "vision.dudosas",
                                  "vision.indice", "vision.marcos", "vision.pintas",
                                  "vision.reader"])
def test_module_doctests(name: str) -> None:
    with np.printoptions(legacy=False):  # another test may have changed them
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
