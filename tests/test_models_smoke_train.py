"""The training pipeline end to end, in seconds: a handful of generated images, one epoch of
the detector and of the classifier, ONNX export, and a read with the exported models.

This is the CI check that `python -m training.cards.train` still works; the real run is documented in
models/README.md. Training runs in its own process, as a user runs it: torch's lazily imported
extensions crashed (SIGSEGV) when loaded into a pytest process that already held Kivy, OpenGL
and MediaPipe from earlier tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")

from scoring.cards import RANKS, SUITS
from training.cards.decks import DECKS, decks_root
from training.cards.synth import render_scene
from training.cards.train import MIXED_FAN_FIRST, MIXED_SETS, main, retire_fanned, retire_mixed
from vision.models import CLASSIFIER_FILE, CORNER_INDEX_FILE, DETECTOR_FILE, PINTAS_FILE
from vision.pintas import STRIP_H, STRIP_W
from vision.reader import CardReader, ReaderSettings

pytestmark = [
    pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images"),
    pytest.mark.timeout(300),
]


def test_smoke_training_exports_models_the_reader_can_use(tmp_path):
    """`python -m training.cards.train` with every stage, sized down to seconds."""
    out = tmp_path / "run"
    args = [
        "--salida",
        str(out),
        "--tiempo",
        "0",
        "--escenas",
        "4",
        "--escenas-extra",
        "1",
        "--escenas-val",
        "1",
        "--escenas-cls",
        "1",
        "--escenas-det-cls",
        "1",
        "--tamano-imagen",
        "160",
        "--epocas",
        "1",
        "--epocas-cls",
        "1",
        "--epocas-afinar",
        "1",
        "--hilos",
        "1",
        "--escenas-indice",
        "1",
        "--sinteticos-indice",
        "128",
        "--epocas-indice",
        "1,1",
        "--escenas-pintas",
        "2",
        "--epocas-pintas",
        "1",
        "--escenas-tapadas",
        "1",
        "--escenas-abanico",
        "2",
        "--epocas-abanico",
        "1",
        "--epoca-abanico",
        "0",
        "--escala-mezcla",
        "0.001",
        "--epocas-mezcla",
        "1",
        "--lote-mezcla",
        "4",
        "--aumento-diseno",
        "--aumento-estilo",
    ]
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.run(
        [sys.executable, "-m", "training.cards.train", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    export = out / "export"
    for name in (
        DETECTOR_FILE,
        CLASSIFIER_FILE,
        CORNER_INDEX_FILE,
        PINTAS_FILE,
        "carta_obb.pt",
        "carta_cls.pt",
        "carta_idx.pt",
        "carta_palo.pt",
    ):
        assert (export / name).is_file(), name
    assert (out / "crops_det.npz").is_file() and (out / "classifier_afinado").is_dir()
    # the half-hidden cards of a fanned table joined the fine-tuning and both mark readers' data
    joined = np.load(out / "crops_train_det.npz")["y"]
    parts = [np.load(out / f"{n}.npz")["y"] for n in ("crops_train", "crops_det", "crops_tapadas")]
    assert len(parts[2]) > 0 and len(joined) == sum(len(p) for p in parts)
    assert (out / "indice" / "indice_train_tapadas.npz").is_file()
    assert (out / "pintas" / "pintas_train_tapadas.npz").is_file()
    for kind in ("mano", "palo", "baraja"):  # the extra detector sets are in the data
        assert f"det_{kind}/images/train" in (out / "det_all.yaml").read_text()
    # the fanned tables' detector went on to the mixed sets, whose detector is the one exported
    # (and cut the crops)
    fanned = out / "detector_abanicos" / "abanicos.pt"  # epoch 0's weights, optimizer stripped
    assert fanned.is_file()
    assert len(list((out / "det_abanicos" / "images" / "train").glob("*.jpg"))) == 2
    mixed = out / "detector_mezcla" / "mezcla.pt"
    assert mixed.read_bytes() == (export / "carta_obb.pt").read_bytes()
    mixed_yaml = (out / "det_mezcla" / "mezcla.yaml").read_text()
    for folder in ("mez_abanicos", "mez_mesa", "mez_escenas", "mez_mano", "mez_palo", "mez_baraja"):
        assert f"{folder}/images/train" in mixed_yaml
        assert any((out / "det_mezcla" / folder / "images" / "train").glob("*.jpg")), folder

    reader = CardReader(export, ReaderSettings(det_threshold=0.0001)).load()
    scene = render_scene(np.random.default_rng(5), size=(640, 480), kind="mano")
    dets = reader.read(scene.image)
    # an untrained model reads nonsense, but the pipeline runs and keeps cards unique
    assert len(set(dets.ids)) == len(dets) <= 40
    assert dets.xyxy.shape == (len(dets), 4)


STYLE_CHECK = """
import torch
from training.cards.classifier import _augment, _augment_style

x = torch.full((256, 3, 96, 64), 0.95)  # white cards (BGR) with a blue bar, as a sword
x[:, :, 30:66, 26:38] = torch.tensor([0.8, 0.4, 0.2])[:, None, None]
a = _augment_style(x, torch.Generator().manual_seed(1))
b = _augment_style(x, torch.Generator().manual_seed(1))
plain = _augment(x, torch.Generator().manual_seed(1))
assert a.shape == x.shape and torch.isfinite(a).all()
assert a.min() >= 0 and a.max() <= 1
assert torch.equal(a, b)


def bar_hue_spread(t):  # how much the bar's colour, relative to its grey, varies over the batch
    bar = t[:, :, 40:56, 28:36].mean((2, 3))
    return (bar - bar.mean(1, keepdim=True)).std(0).mean()


assert bar_hue_spread(a) > 1.25 * bar_hue_spread(plain)
print("ok")
"""


def test_style_augmentation_keeps_crops_valid_and_changes_them():
    """The classifier's augmentations: same shape, values in [0, 1], reproducible from the
    generator's seed, and the style one varies the ink's colour more than the photo one
    alone. In its own
    process, like the training (see the module docstring)."""
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.run(
        [sys.executable, "-c", STYLE_CHECK], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_smoke_index_reader_training_exports_a_model_the_reader_uses(tmp_path):
    """`python -m training.cards.corner_index` sized down to seconds: synthetic pretraining, patches of
    rendered tables, fine-tuning, ONNX export, and the reader multiplying by its ranks."""
    out = tmp_path / "idx"
    _run_module(
        "training.cards.corner_index",
        "--salida",
        str(out),
        "--escenas",
        "2",
        "--escenas-val",
        "1",
        "--sinteticos",
        "256",
        "--epocas-pre",
        "1",
        "--epocas",
        "1",
        "--barajas",
        DECKS[0],
        "--escenas-tapadas",
        "1",
    )
    assert (out / CORNER_INDEX_FILE).is_file() and (out / "carta_idx.pt").is_file()
    patches = np.load(out / "indice_train.npz")["p"]
    assert patches.ndim == 5 and patches.shape[1:] == (2, 36, 40, 3) and len(patches) >= 8
    hidden = np.load(out / "indice_train_tapadas.npz")["p"]
    assert hidden.shape[1:] == patches.shape[1:] and len(hidden) >= 2
    assert len(np.load(out / "indice_train_todo.npz")["p"]) == len(patches) + len(hidden)

    models = _models_with(tmp_path, out / CORNER_INDEX_FILE)
    img = np.full((480, 640, 3), 120, np.uint8)
    obbs = np.float32([[320, 240, 100, 160, 0.2], [150, 200, 90, 140, -0.4]])
    with_index = _probabilities(CardReader(models), img, obbs)
    assert with_index.ranks.shape == (2, len(RANKS)) and np.allclose(with_index.ranks.sum(1), 1, atol=1e-5)
    without = _probabilities(CardReader(models, ReaderSettings(index_weight=0)), img, obbs)
    assert without.ranks is None
    assert np.allclose(with_index.cards, without.cards)  # the same classifier
    assert np.allclose(with_index.combined(0.5, 0.5).sum(1), 1, atol=1e-5)
    assert not np.allclose(with_index.combined(0.5, 0.5), without.combined(0, 0.5))


def test_smoke_pinta_reader_training_exports_a_model_the_reader_uses(tmp_path):
    """`python -m training.cards.pintas` sized down to seconds: strips of rendered tables, training,
    ONNX export, and the reader multiplying by its suits."""
    out = tmp_path / "pintas"
    _run_module(
        "training.cards.pintas",
        "--salida",
        str(out),
        "--escenas",
        "3",
        "--escenas-val",
        "1",
        "--epocas",
        "1",
        "--barajas",
        DECKS[0],
        "--escenas-tapadas",
        "0",
    )
    assert (out / PINTAS_FILE).is_file() and (out / "carta_palo.pt").is_file()
    assert not (out / "pintas_train_tapadas.npz").exists()  # 0: none
    strips = np.load(out / "pintas_train.npz")["p"]
    assert strips.ndim == 4 and strips.shape[1:] == (2, STRIP_H, STRIP_W) and len(strips) >= 8
    assert "palo" in (out / "pinta_log.json").read_text()

    models = _models_with(tmp_path, out / PINTAS_FILE)
    img = np.full((480, 640, 3), 120, np.uint8)
    obbs = np.float32([[320, 240, 100, 160, 0.2], [150, 200, 90, 140, -0.4]])
    with_pintas = _probabilities(CardReader(models), img, obbs)
    assert with_pintas.suits.shape == (2, len(SUITS)) and np.allclose(with_pintas.suits.sum(1), 1, atol=1e-5)
    assert with_pintas.ranks is None  # no index reader in this folder
    without = _probabilities(CardReader(models, ReaderSettings(pinta_weight=0)), img, obbs)
    assert without.suits is None
    assert not np.allclose(with_pintas.combined(0.5, 0.5), without.combined(0.5, 0))


def _probabilities(reader: CardReader, image: np.ndarray, obbs: np.ndarray):
    """What the reader's classifier and mark readers say of the cards under ``obbs``."""
    return reader.classifier.classify_boxes(image, obbs)


def _run_module(module: str, *args: str) -> None:
    """``python -m module args`` in its own process (see the module docstring), from the repo."""
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=280
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def _models_with(tmp_path: Path, model: Path) -> Path:
    """A models folder with the shipped detector and classifier and one freshly trained reader."""
    models = tmp_path / "models"
    models.mkdir()
    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        (models / name).write_bytes((Path(__file__).resolve().parents[1] / "models" / name).read_bytes())
    (models / model.name).write_bytes(model.read_bytes())
    return models


def test_the_fan_stage_refuses_to_start_without_a_detector(tmp_path, capsys):
    """`abanicos` fine-tunes a detector: with none trained and none given it stops at once (exit
    status 2, a Spanish message) instead of after the stages before it."""
    with pytest.raises(SystemExit) as exc:
        main(["--salida", str(tmp_path / "run"), "--etapas", "datos,abanicos", "--escenas", "1"])
    assert exc.value.code == 2 and "--detector-desde" in capsys.readouterr().err
    assert not (tmp_path / "run" / "det").exists()  # nothing was rendered


def test_the_mixed_stage_refuses_to_start_without_a_detector(tmp_path, capsys):
    """`mezcla` too fine-tunes a detector: none trained, none given, no fanned one: exit 2."""
    with pytest.raises(SystemExit) as exc:
        main(["--salida", str(tmp_path / "run"), "--etapas", "mezcla"])
    assert exc.value.code == 2 and "etapa mezcla" in capsys.readouterr().err


def test_a_stale_mixed_detector_is_moved_aside_not_reused(tmp_path):
    """As for the fanned detector below: ``mezcla_anterior.pt``, replacing an older one."""
    assert retire_mixed(tmp_path) is None
    mixed = tmp_path / "detector_mezcla" / "mezcla.pt"
    mixed.parent.mkdir()
    (mixed.parent / "mezcla_anterior.pt").write_bytes(b"oldest")
    mixed.write_bytes(b"old weights")
    kept = retire_mixed(tmp_path)
    assert kept == mixed.with_name("mezcla_anterior.pt") and kept.read_bytes() == b"old weights"
    assert not mixed.exists()


def test_the_mixed_sets_render_where_no_earlier_fan_set_does():
    """The mixed stage's fanned tables start after the abanicos stage's (1,200) and an earlier
    second round's (1,200), so no table is rendered twice into the training data; its images
    are the earlier mixed sets' (5,495 + 136 val) plus near close-ups (1,000 + 15) and empty
    tables (150 + 1)."""
    assert MIXED_FAN_FIRST >= 2400
    assert sum(s[4] + s[5] for s in MIXED_SETS) == 5495 + 136 + 1015 + 151
    assert len({s[3] for s in MIXED_SETS}) == len(MIXED_SETS)  # each set its own seed


def test_a_stale_fanned_detector_is_moved_aside_not_reused(tmp_path):
    """A run folder keeps each stage's output so a run can be split across sessions; but when
    the detector is trained again without the fan stage, the old fine-tuned detector (which the
    later stages would prefer) is renamed, not used and not lost."""
    assert retire_fanned(tmp_path) is None
    fanned = tmp_path / "detector_abanicos" / "abanicos.pt"
    fanned.parent.mkdir()
    fanned.write_bytes(b"old weights")
    kept = retire_fanned(tmp_path)
    assert kept == fanned.with_name("abanicos_anterior.pt") and kept.read_bytes() == b"old weights"
    assert not fanned.exists()
