"""The examples in the vision modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

MODULES = (
    "vision.assemble",
    "vision.classify",
    "vision.corner_index",
    "vision.cutout",
    "vision.detect",
    "vision.detections",
    "vision.flags",
    "vision.geometry",
    "vision.hands",
    "vision.pintas",
    "vision.registered_deck",
    "vision.templates",
)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name: str) -> None:
    with np.printoptions(legacy=False):  # another test may have changed them
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
