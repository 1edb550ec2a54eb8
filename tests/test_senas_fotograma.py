"""The learned per-frame model as gestures/ reads it: the exported file gives the probabilities
the scikit-learn model it came from gives, it loads with numpy only, a file for other inputs is
refused, and each frame's inputs are changes from the person's neutral."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gestures.scorer import Baseline
from training.senas.lector_fotograma import (
    ASIMETRIAS,
    CLASES,
    ENTRADAS,
    RASGOS,
    FotogramaError,
    cargar,
    desde_dict,
    entradas,
)

pytest.importorskip("sklearn")

from training.senas.evaluate import Clip, Etiqueta
from training.senas.fotograma import IGNORAR, export, fit_sklearn, frame_labels


def _data(classes: range | list[int], n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Separable-ish vectors: each class shifted along its own inputs."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in classes:
        x = rng.normal(0.0, 0.3, size=(n, len(ENTRADAS)))
        x[:, (3 * c) % len(ENTRADAS)] += 1.5
        xs.append(x)
        ys += [c] * n
    return np.vstack(xs), np.array(ys)


@pytest.mark.parametrize("classes", [range(len(CLASES)), [0, 2, 5, 8], [1, 6]])
def test_the_exported_model_gives_the_training_side_probabilities(tmp_path: Path, classes: range | list[int]) -> None:
    x, y = _data(classes)
    lr, media, escala = fit_sklearn(x, y)
    path = tmp_path / "fotograma.json"
    path.write_text(json.dumps(export(lr, media, escala).to_dict()), encoding="utf-8")
    model = cargar(path)
    probe = _data(classes, n=3, seed=1)[0]
    expected = np.zeros((len(probe), len(CLASES)))
    expected[:, [int(c) for c in lr.classes_]] = lr.predict_proba((probe - media) / escala)
    got = model.probabilidades(probe)
    np.testing.assert_allclose(got, expected, atol=1e-9)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    # a class the fit never saw is never predicted
    absent = [i for i in range(len(CLASES)) if i not in set(classes)]
    assert np.all(got[:, absent] < 1e-12)


def test_the_model_file_loads_without_scikit_learn(tmp_path: Path) -> None:
    x, y = _data(range(len(CLASES)))
    path = tmp_path / "fotograma.json"
    path.write_text(json.dumps(export(*fit_sklearn(x, y)).to_dict()), encoding="utf-8")
    code = (
        "import sys\n"
        "sys.modules['sklearn'] = None  # any import of it fails\n"
        "import numpy as np\n"
        "from training.senas.lector_fotograma import cargar, ENTRADAS\n"
        f"m = cargar(__import__('pathlib').Path({str(path)!r}))\n"
        "p = m.probabilidades(np.zeros(len(ENTRADAS)))\n"
        "print(round(float(p.sum()), 6))\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('scipy', 'torch', 'ultralytics')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["1.0", "[]"]


@pytest.mark.parametrize(
    "change",
    [{"formato": 99}, {"entradas": list(reversed(ENTRADAS))}, {"clases": list(reversed(CLASES))}, {"pesos": [[1.0]]}],
)
def test_a_file_for_other_inputs_is_refused_in_one_line(change: dict[str, object]) -> None:
    x, y = _data(range(len(CLASES)), n=10)
    doc = {**export(*fit_sklearn(x, y)).to_dict(), **change}
    with pytest.raises(FotogramaError) as err:
        desde_dict(doc)
    assert "\n" not in str(err.value)


def test_inputs_are_changes_from_the_neutral_face() -> None:
    base = Baseline({"jawOpen": 0.1, "ear_a": 0.3, "ear_b": 0.3, "yaw": 5.0}, frames=1)
    neutral = {"jawOpen": 0.1, "ear_a": 0.3, "ear_b": 0.3, "yaw": 5.0}
    assert not np.any(entradas(neutral, base)[[RASGOS.index(k) for k in neutral]])
    wink = {**neutral, "ear_a": 0.1, "jawOpen": 0.4, "yaw": 30.0}
    x = entradas(wink, base)
    assert x[ENTRADAS.index("ear_a")] == pytest.approx(-0.2)
    assert x[ENTRADAS.index("jawOpen")] == pytest.approx(0.3)
    assert x[ENTRADAS.index("yaw")] == pytest.approx(1.0)  # head turns in 25 degrees
    ear = len(RASGOS) + ASIMETRIAS.index(("ear_a", "ear_b"))
    assert x[ear] == pytest.approx(0.2)  # one eye closed, whichever
    assert np.all(np.isfinite(entradas({"jawOpen": float("nan")}, base)))


def test_frame_labels_put_senas_over_blinks_over_grimaces_and_leave_ambiguous_out() -> None:
    labels = [
        Etiqueta("neutro", 0, 29),
        Etiqueta("otro", 10, 19),
        Etiqueta("parpadeo", 12, 13),
        Etiqueta("guino_derecho", 20, 24),
        Etiqueta("morro_abierto", 25, 27),
        Etiqueta("cejas_arriba?", 28, 28),
    ]
    y = frame_labels(Clip("c.mp4", 30.0, 30, labels), 30)
    assert y[5] == CLASES.index("neutro") and y[10] == CLASES.index("otro")
    assert y[12] == CLASES.index("parpadeo") and y[22] == CLASES.index("guino")
    assert y[25] == IGNORAR and y[28] == IGNORAR and y[29] == CLASES.index("neutro")
