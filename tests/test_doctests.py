"""Every example in our packages' docstrings runs: the modules are found, not listed.

Each module of our packages whose source holds ``>>>`` is imported and its doctests run. A module
whose optional extra (torch, OpenCV, MediaPipe, FastAPI...) is not installed is skipped, the skip
naming the missing package; a missing module of our own is a failure.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# the installed packages (pyproject.toml's [tool.setuptools] packages)
PACKAGES = ("common", "scoring", "vision", "gestures", "mesa", "app", "training", "torneo", "server", "musmesa")
FLAGS = doctest.ELLIPSIS


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_with_examples() -> list[str]:
    """The dotted names of our modules whose source holds an example (``>>>``)."""
    return sorted(
        _module_name(path)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if ">>>" in path.read_text(encoding="utf-8")
    )


WITH_EXAMPLES = modules_with_examples()


def _import(name: str) -> ModuleType:
    """The module; a skip naming the extra when a third-party package it needs is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if not missing or missing in PACKAGES:
            raise
        pytest.skip(f"{name}: its optional dependency {missing} is not installed")


def test_the_examples_are_found_in_every_layer() -> None:
    # modules with examples in every layer: the walk finds them all
    found = set(WITH_EXAMPLES)
    assert {
        "scoring.tanteo",
        "scoring.inputs",
        "vision.refuerzo",
        "mesa.storage",
        "gestures.events",
        "gestures.context",
    } <= found
    assert {"torneo.formato", "training.cards.evaluate", "mesa.i18n"} <= found


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_module_doctests(name: str) -> None:
    module = _import(name)
    found = sum(len(test.examples) for test in doctest.DocTestFinder().find(module))
    assert found > 0, f"{name} has '>>>' in its source but no docstring example doctest can find"
    with np.printoptions(legacy=False):  # another test may have changed them
        result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
