"""Shared pytest fixtures. Keep this file light: no heavy imports at module level."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
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


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets an empty data folder ($MUSMESA_DATA): none reads the deck registered or
    the partidas saved in this machine's own folder, nor writes there. A test that wants another
    sets its own."""
    monkeypatch.setenv("MUSMESA_DATA", str(tmp_path_factory.mktemp("datos")))


# The GUI tests' app (tests/ventana_kivy.py: imported by the fixtures, so that only they load Kivy).
@pytest.fixture(scope="module")
def kapp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real app in a real window, opened once per test module."""
    from tests.ventana_kivy import ventana

    with ventana(tmp_path_factory.mktemp("datos")) as opened:
        yield opened


@pytest.fixture
def app(kapp: Any, tmp_path: Path) -> Any:
    """The app on a fresh, empty data folder, in Spanish, on the Nueva partida screen."""
    from tests.ventana_kivy import limpia

    fresh = limpia(kapp, tmp_path / "datos")
    assert fresh.sm.current == "nueva"
    return fresh


# A test that needs the deck images, the shipped models or the real clips must run where they are: a skip for
# a wrong path or a broken lookup would otherwise pass unseen. Reasons as the tests write them.
_MUST_NOT_SKIP = {
    "no deck images": "decks",
    "the trained models are not in models/": "models",
    "no real clips": "real clips",
}
_wrong_skips: list[str] = []


def _present(what: str) -> bool:
    # the lookups of the tests themselves; imported here so that collecting stays light
    if what == "real clips":
        root = os.environ.get("MUSMESA_REALDATA") or Path(__file__).resolve().parents[2] / "shared" / "realdata"
        return (Path(root) / "senas" / "labels.json").is_file()
    if what == "decks":
        from training.cards.decks import DECKS, decks_root

        return (decks_root() / DECKS[0]).is_dir()
    from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

    return (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return
    reason = str(report.longrepr[2])
    for text, what in _MUST_NOT_SKIP.items():
        if text in reason and _present(what):
            _wrong_skips.append(f"{report.nodeid}: skipped ({text}) but the {what} are there")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _wrong_skips:
        print("\n" + "\n".join(_wrong_skips))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
