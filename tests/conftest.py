"""Shared pytest fixtures. Keep this file light: no heavy imports at module level."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[Any], Path]:
    """Write a JSON value (or raw text, if given a str) to a fresh file under tmp_path."""
    counter = iter(range(1_000_000))

    def _write(value: Any, name: str | None = None) -> Path:
        path = tmp_path / (name or f"data_{next(counter)}.json")
        path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
        return path

    return _write
