"""The rank reader of the corner index (``carta_idx.onnx``), trained in torch in two steps:

1. synthetic index patches: a rank in one of the fonts matplotlib ships, on paper, with frame
   lines, pips, card edges, blur, lost resolution and noise (class 10: no index), so that it
   learns digits rather than one deck's print;
2. patches cut from rendered tables (:mod:`training.cards.synth`) of the training decks, the faces'
   indices redrawn in another of those fonts on a share of the cards.

The ONNX model takes ``(N, 2, 36, 40)`` float32 from :func:`vision.corner_index.corner_patches` (the
two index corners of each card) and returns ``(N, 10)`` logits in :data:`scoring.cards.RANKS`
order. :mod:`vision.classify` multiplies the classifier's probabilities by the reader's rank
probabilities (see INDEX_WEIGHT there). Full size, 39 min on one core of a 2-core CPU (another
job on the second core)::

    python -m training.cards.corner_index --salida runs/indice

The cross-design check (train on one design, measure on the other)::

    python -m training.cards.corner_index --salida runs/indice_F --barajas fournier1878-pd \\
        --prueba naipes-libres-basquetteur
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFont
from torch import nn
from torch.nn import functional as F

from scoring.cards import CARD_IDS, RANKS
from training.cards.dataset import (
    HIDDEN_FIRST_INDEX,
    MIN_VISIBLE,
    half_hidden_tables,
    jitter_obb,
    join_sets,
    scene_rng,
)
from training.cards.onnx_file import write_onnx
from training.cards.synth import HOLDOUT_BACKGROUNDS, TRAIN_BACKGROUNDS, render_scene, visible_fraction
from vision.corner_index import INDEX_CROP, PATCH_H, PATCH_W, RANK_OF, corners_bgr, normalise, standardise
from vision.geometry import crop_card, quad_to_obb

DECKS = ("fournier1878-pd", "naipes-libres-basquetteur")
NONE = len(RANKS)  # the synthetic class "no index in this patch"
# where each design prints its index, as fractions of the face (x0, x1, y0, y1), measured
INDEX_BOX = {"fournier1878-pd": (0.085, 0.215, 0.065, 0.13), "naipes-libres-basquetteur": (0.07, 0.195, 0.045, 0.115)}
_SYMBOL_FONTS = ("Siz", "NonUni", "cmex", "cmsy", "cmmi", "LastResort", "Display")


@lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """The text fonts matplotlib ships (DejaVu, STIX, Computer Modern): sans, serif, mono,
    bold and italic numerals, installed with the training extra, nothing downloaded."""
    # matplotlib (the train extra) reads MPLCONFIGDIR when first imported: only when needed,
    # so that train.setup_offline may set it first
    import matplotlib

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    fonts = sorted(str(p) for p in folder.glob("*.ttf") if not any(s in p.name for s in _SYMBOL_FONTS))
    if not fonts:
        raise FileNotFoundError(f"no fonts in {folder}")
    return tuple(fonts)


@lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


# --------------------------------------------------------------------------- synthetic patches


def _draw_frame(
    d: ImageDraw.ImageDraw, rng: np.random.Generator, s: int, paper: int, ink: int
) -> tuple[float, float, int]:
    """The frame's corner near the top left (sometimes broken by a pinta); returns its place."""
    fx, fy = rng.uniform(-4, 14) * s, rng.uniform(-4, 12) * s
    lw = int(rng.integers(1, 3)) * s // 2 + 1
    if rng.random() < 0.85:
        d.line([(fx, fy), (PATCH_W * s, fy)], fill=ink, width=lw)
        d.line([(fx, fy), (fx, PATCH_H * s)], fill=ink, width=lw)
        if rng.random() < 0.5:
            gx = rng.uniform(fx + 10 * s, PATCH_W * s)
            d.line([(gx, fy), (gx + rng.uniform(2, 6) * s, fy)], fill=paper, width=lw + 2)
    return fx, fy, lw


def synthetic_patch(rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """One grey PATCH_H x PATCH_W index patch and its class (an index into
    scoring.cards.RANKS, or NONE)."""
    s = 3  # drawn at 3x and shrunk: anti-aliased like a photo
    paper = int(rng.integers(120, 256))
    img = Image.new("L", (PATCH_W * s, PATCH_H * s), paper)
    d = ImageDraw.Draw(img)
    ink = int(rng.integers(0, max(1, paper - 70)))
    for _ in range(rng.integers(0, 3)):  # pips or a figure reaching the corner
        x, y = rng.uniform(0, PATCH_W * s), rng.uniform(0, PATCH_H * s)
        r = rng.uniform(4, 20) * s
        d.ellipse([x, y, x + r, y + r * rng.uniform(0.5, 2)], fill=int(rng.integers(0, 256)))
    fx, fy, lw = _draw_frame(d, rng, s, paper, ink)
    label = int(rng.integers(0, NONE + 1))
    if label < NONE:
        th = rng.uniform(7, 15) * s
        font = _font(font_files()[rng.integers(len(font_files()))], int(th * 1.3))
        tx = fx + rng.uniform(-1, 6) * s + (lw if rng.random() < 0.7 else 0)
        ty = fy + rng.uniform(0, 5) * s
        text = Image.new("L", img.size, 0)
        ImageDraw.Draw(text).text(
            (tx, ty), str(RANKS[label]), font=font, fill=255, anchor="lt", stroke_width=int(rng.integers(0, 2)) * s // 2
        )
        if rng.random() < 0.5:
            text = text.rotate(rng.uniform(-8, 8), center=(tx, ty), resample=Image.Resampling.BILINEAR)
        t = np.asarray(text, np.float32) / 255
        img = Image.fromarray((np.asarray(img, np.float32) * (1 - t) + ink * t).astype(np.uint8))
    a: np.ndarray = np.asarray(img.resize((PATCH_W, PATCH_H), Image.Resampling.BILINEAR), np.float32)
    if rng.random() < 0.4:  # the card's edge: cloth or another card over part of the patch
        k, val = int(rng.integers(2, 14)), rng.uniform(0, 255)
        side = int(rng.integers(4))
        sl = [np.s_[:k, :], np.s_[:, :k], np.s_[-k:, :], np.s_[:, -k:]][side]
        a[sl] = val
    a = a * rng.uniform(0.6, 1.2) + rng.uniform(-30, 30)
    if rng.random() < 0.5:
        f = rng.uniform(0.4, 0.9)
        a = cv2.resize(cv2.resize(a, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), (PATCH_W, PATCH_H))
    if rng.random() < 0.4:
        a = cv2.GaussianBlur(a, (3, 3), rng.uniform(0.3, 1.2))
    a = a + rng.normal(0, rng.uniform(0, 10), a.shape)
    return np.clip(a, 0, 255).astype(np.uint8), label


def synthetic_set(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` synthetic patches, standardised (n, PATCH_H, PATCH_W), and their classes."""
    rng = np.random.default_rng([seed, 7])
    xs, ys = zip(*(synthetic_patch(rng) for _ in range(n)), strict=True)
    return normalise(np.stack(xs)), np.array(ys, np.int64)


# --------------------------------------------------------------------------- patches from tables


class IndexRedraw:
    """A ``face_edit`` for :func:`training.cards.synth.render_scene`: on a share of the faces, both
    corner indices painted over with the paper's colour and the rank written in a random font."""

    def __init__(self, share: float, seed: int) -> None:
        self.share = share
        self.rng = np.random.default_rng([seed, 11])

    def __call__(self, deck: str, card_id: str, face: np.ndarray) -> np.ndarray:
        if deck not in INDEX_BOX or self.rng.random() >= self.share:
            return face
        return redraw_index(face, card_id[:-1], INDEX_BOX[deck], self.rng)


def redraw_index(
    face: np.ndarray, rank: str, box: tuple[float, float, float, float], rng: np.random.Generator
) -> np.ndarray:
    """``face`` (BGR or BGRA) with both index corners rewritten as ``rank`` in one random font."""
    h, w = face.shape[:2]
    x0, x1, y0, y1 = box
    font = _font(font_files()[rng.integers(len(font_files()))], round(rng.uniform(0.04, 0.07) * h * 1.3))
    ink = tuple(int(v) for v in rng.integers(0, 80, 3))
    out = face.copy()
    for turned in (False, True):
        img = np.ascontiguousarray(out[::-1, ::-1]) if turned else out
        region = img[int(y0 * h) : int(y1 * h), int(x0 * w) : int(x1 * w), :3]
        flat = region.reshape(-1, 3).astype(np.float32)
        bright = flat.sum(1) >= np.percentile(flat.sum(1), 60)
        region[:] = np.median(flat[bright], 0).astype(np.uint8)
        pil = Image.fromarray(np.ascontiguousarray(img[..., 2::-1]))
        ImageDraw.Draw(pil).text(
            (x0 * w + rng.uniform(-0.01, 0.02) * w, y0 * h + rng.uniform(-0.005, 0.01) * h),
            rank,
            font=font,
            anchor="lt",
            fill=ink[::-1],
            stroke_width=int(rng.integers(0, 2)),
            stroke_fill=ink[::-1],
        )
        img[..., :3] = np.asarray(pil)[..., ::-1]
        out = np.ascontiguousarray(img[::-1, ::-1]) if turned else img
    return out


def write_view_set(
    path: Path,
    cut: Callable[[np.ndarray], np.ndarray],
    *,
    n_scenes: int,
    split: str,
    seed: int,
    decks: tuple[str, ...],
    per_card: int,
    first_index: int,
    face_edit: Callable[[str, str, np.ndarray], np.ndarray] | None = None,
    hidden: bool = False,
) -> Path:
    """``cut`` (a card rectified at INDEX_CROP -> its views) of every visible card of
    ``n_scenes`` rendered 1280x960 scenes, each cut ``per_card`` times on jittered boxes like a
    detector's; saved with card ids (``y``) and designs (``deck``). What the mark readers
    (corner index, pintas) train and are validated on. ``hidden``: the half-hidden cards of
    :func:`training.cards.dataset.half_hidden_tables` instead (training split)."""

    def scenes():
        if hidden:
            yield from half_hidden_tables(
                n_scenes, seed=seed, decks=decks, first_index=first_index, face_edit=face_edit
            )
            return
        backgrounds = TRAIN_BACKGROUNDS if split == "train" else HOLDOUT_BACKGROUNDS
        for i in range(n_scenes):
            rng = scene_rng(seed, split, first_index + i)
            scene = render_scene(
                rng,
                decks=decks,
                backgrounds=backgrounds,
                size=(1280, 960),
                kind=None if split == "train" else "mesa",
                face_edit=face_edit,
            )
            if scene.card_ids:
                yield rng, scene, np.nonzero(visible_fraction(scene) >= MIN_VISIBLE)[0]

    views, labels, deck_of = [], [], []
    for rng, scene, keep in scenes():
        for j in keep:
            obb = quad_to_obb(scene.corners[j])
            for _ in range(per_card):
                views.append(cut(crop_card(scene.image, jitter_obb(rng, obb), INDEX_CROP)))
                labels.append(CARD_IDS.index(scene.card_ids[j]))
                deck_of.append(decks.index(scene.deck))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path, p=np.stack(views), y=np.array(labels, np.int16), deck=np.array(deck_of, np.int8), decks=np.array(decks)
    )
    return path


def write_index_set(
    path: Path,
    *,
    n_scenes: int,
    split: str = "train",
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    redraw_share: float = 0.35,
    per_card: int = 2,
    first_index: int = 20_000,
    hidden: bool = False,
) -> Path:
    """Corner patches (N, 2, PATCH_H, PATCH_W, 3) uint8 of every visible card of ``n_scenes``
    rendered scenes (:func:`write_view_set`), a share ``redraw_share`` of the faces with their
    index redrawn (:class:`IndexRedraw`)."""
    edit = IndexRedraw(redraw_share, seed) if redraw_share > 0 else None
    return write_view_set(
        path,
        corners_bgr,
        n_scenes=n_scenes,
        split=split,
        seed=seed,
        decks=decks,
        per_card=per_card,
        first_index=first_index,
        face_edit=edit,
        hidden=hidden,
    )


# --------------------------------------------------------------------------- the network


def conv_block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TwoViewNet(nn.Module):
    """A ``trunk`` on each of a card's two views (its two index corners, its two frame strips),
    one grey ``view`` (H, W) each; the two feature vectors read together by ``head`` in both
    orders, since which view shows the mark depends on how the card lies and what covers it."""

    view: tuple[int, int]
    input_name: str
    trunk: nn.Module  # one view (1, H, W) to a feature vector
    head: nn.Module  # the two views' features side by side to logits

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        f = self.trunk(x.reshape(n * 2, 1, *self.view)).reshape(n, 2, -1)
        return 0.5 * (self.head(torch.cat([f[:, 0], f[:, 1]], 1)) + self.head(torch.cat([f[:, 1], f[:, 0]], 1)))

    def export_onnx(self, path: Path) -> Path:
        """ONNX with input ``(N, 2, H, W)`` float32 named ``input_name``, output ``logits``;
        written whole or not at all."""
        self.eval()
        return write_onnx(
            self,
            (torch.zeros(1, 2, *self.view),),
            path,
            input_names=[self.input_name],
            output_names=["logits"],
            dynamic_axes={self.input_name: {0: "n"}, "logits": {0: "n"}},
        )


class IndexNet(TwoViewNet):
    """The rank reader: a small CNN on each corner patch (36x40)."""

    view = (PATCH_H, PATCH_W)
    input_name = "esquinas"

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            conv_block(1, 16),
            conv_block(16, 32, 2),
            conv_block(32, 64, 2),
            conv_block(64, 96, 2),
            nn.Flatten(),
            nn.Linear(96 * 5 * 5, 128),
            nn.ReLU(),
            nn.Dropout(0.2),
        )
        self.head = nn.Linear(256, len(RANKS))
        self.patch_head = nn.Linear(128, NONE + 1)  # used only to pretrain on synthetic patches


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A shift of up to 3 px, contrast, sometimes blur, always noise."""
    dx, dy = torch.randint(-3, 4, (2,), generator=gen).tolist()
    x = torch.roll(x, (dy, dx), (-2, -1))
    x = x * (0.7 + 0.6 * torch.rand(*x.shape[:-2], 1, 1, generator=gen))
    if torch.rand(1, generator=gen).item() < 0.3:
        k = torch.tensor([[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16
        x = F.conv2d(x.reshape(-1, 1, PATCH_H, PATCH_W), k[None, None], padding=1).reshape(x.shape)
    return x + 0.15 * torch.randn(x.shape, generator=gen)


def train_epochs(
    model: nn.Module, params, step, n: int, epochs: int, lr: float, gen: torch.Generator, name: str, start: float
) -> None:
    """``epochs`` passes over ``n`` samples in shuffled batches of 128: ``step(indices)`` gives
    the batch's loss; AdamW with a one-cycle schedule peaking at ``lr``."""
    opt = torch.optim.AdamW(params, lr * 2 / 3, weight_decay=1e-4)
    steps = max(1, epochs * (n // 128))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for i in range(0, max(n - 127, 1), 128):
            loss = step(order[i : i + 128])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch < steps - 1:
                sched.step()
            total += float(loss.detach())
        print(
            f"{name} epoch {epoch + 1}/{epochs} loss {total / max(1, n // 128):.3f} ({time.time() - start:.0f} s)",
            flush=True,
        )


def rank_probabilities(model: nn.Module, patches: np.ndarray) -> np.ndarray:
    """Rank probabilities (N, 10) of uint8 corner patches (N, 2, H, W, 3)."""
    model.eval()
    x = torch.from_numpy(standardise(patches))
    with torch.no_grad():
        return torch.cat([F.softmax(model(x[i : i + 512]), 1) for i in range(0, len(x), 512)]).numpy()


def measure(model: nn.Module, npz: Path, deck: str | None = None) -> dict:
    """Rank accuracy on a patch set (one design's cards only when ``deck``), courts apart."""
    d = np.load(npz)
    keep = np.ones(len(d["y"]), bool)
    if deck is not None:
        keep = d["deck"] == [str(v) for v in d["decks"]].index(deck)
    y = RANK_OF[d["y"][keep]]
    right = rank_probabilities(model, d["p"][keep]).argmax(1) == y
    court = y >= RANKS.index(10)
    return {
        "n": int(keep.sum()),
        "rango": float(right.mean()),
        "rango_figuras": float(right[court].mean()),
        "rango_1_7": float(right[~court].mean()),
    }


def train_index_reader(
    out: Path,
    train_npz: Path,
    *,
    synthetic: int = 60_000,
    pre_epochs: int = 5,
    epochs: int = 6,
    threads: int = 1,
    seed: int = 0,
    init: Path | None = None,
) -> nn.Module:
    """Pretrain on synthetic patches (skipped with ``init``), fine-tune on ``train_npz``; writes
    ``out/carta_idx.pt`` and ``out/carta_idx.onnx``."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    model = IndexNet()
    start = time.time()
    if init is not None:
        model.load_state_dict(torch.load(init))
    elif synthetic:
        patches, classes = synthetic_set(synthetic, seed)
        xs, ys = torch.from_numpy(patches)[:, None], torch.from_numpy(classes)
        print(f"{len(xs)} synthetic patches ({time.time() - start:.0f} s)", flush=True)
        train_epochs(
            model,
            list(model.trunk.parameters()) + list(model.patch_head.parameters()),
            lambda idx: F.cross_entropy(model.patch_head(model.trunk(_augment(xs[idx], gen))), ys[idx]),
            len(xs),
            pre_epochs,
            3e-3,
            gen,
            "sintéticos",
            start,
        )
        torch.save(model.state_dict(), out / "carta_idx_pre.pt")
    d = np.load(train_npz)
    x = torch.from_numpy(standardise(d["p"]))
    y = torch.from_numpy(RANK_OF[d["y"]])
    train_epochs(
        model,
        list(model.trunk.parameters()) + list(model.head.parameters()),
        lambda idx: F.cross_entropy(model(_augment(x[idx], gen)), y[idx], label_smoothing=0.05),
        len(x),
        epochs,
        1.5e-3,
        gen,
        "mesas",
        start,
    )
    torch.save(model.state_dict(), out / "carta_idx.pt")
    model.export_onnx(out / "carta_idx.onnx")
    return model


def reader_arguments(prog: str, doc: str | None, scenes: int) -> argparse.ArgumentParser:
    """The options the mark readers' training commands share."""
    p = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--salida", type=Path, required=True, help="the run's folder")
    p.add_argument("--barajas", default=",".join(DECKS), help="designs to train on")
    p.add_argument("--prueba", default=None, help="also measure on this design (cross-design check)")
    p.add_argument("--escenas", type=int, default=scenes, help="training tables rendered")
    p.add_argument("--escenas-val", type=int, default=60, help="validation tables a design")
    p.add_argument(
        "--escenas-tapadas",
        type=int,
        default=800,
        help="more tables in fans and overlapping rows whose half-hidden cards are trained on too (0: none)",
    )
    p.add_argument("--semilla", type=int, default=0)
    p.add_argument("--hilos", type=int, default=1)
    return p


def main(argv: list[str] | None = None) -> int:
    p = reader_arguments("python -m training.cards.corner_index", __doc__, 1200)
    p.add_argument("--fuentes", type=float, default=0.35, help="share of faces with a redrawn index")
    p.add_argument("--sinteticos", type=int, default=60_000)
    p.add_argument("--epocas-pre", type=int, default=5)
    p.add_argument("--epocas", type=int, default=6)
    p.add_argument("--desde", type=Path, default=None, help="skip pretraining: start from these weights")
    args = p.parse_args(argv)
    decks = tuple(args.barajas.split(","))
    out = args.salida
    start = time.time()
    train_npz = out / "indice_train.npz"
    if not train_npz.is_file():
        write_index_set(train_npz, n_scenes=args.escenas, seed=args.semilla, decks=decks, redraw_share=args.fuentes)
        print(f"patches of {args.escenas} tables ({time.time() - start:.0f} s)", flush=True)
    train_npz = with_hidden(
        train_npz,
        args.escenas_tapadas,
        lambda path: write_index_set(
            path,
            n_scenes=args.escenas_tapadas,
            seed=args.semilla,
            decks=decks,
            redraw_share=args.fuentes,
            first_index=HIDDEN_FIRST_INDEX,
            hidden=True,
        ),
    )
    model = train_index_reader(
        out,
        train_npz,
        synthetic=args.sinteticos,
        pre_epochs=args.epocas_pre,
        epochs=args.epocas,
        threads=args.hilos,
        seed=args.semilla,
        init=args.desde,
    )
    log_validation(
        model,
        measure,
        args,
        start,
        out / "index_log.json",
        out / "indice_val_{}.npz",
        lambda path, deck: write_index_set(
            path, n_scenes=args.escenas_val, split="val", seed=args.semilla, decks=(deck,), redraw_share=0, per_card=1
        ),
    )
    return 0


def with_hidden(train_npz: Path, n_scenes: int, write: Callable[[Path], object]) -> Path:
    """``train_npz`` joined with the views of the half-hidden cards of ``n_scenes`` tables
    (``write(path)`` renders them into ``*_tapadas.npz`` next to it unless it is there; the
    joined ``*_todo.npz`` is reused when newer than both); as it is when ``n_scenes`` is 0."""
    if not n_scenes:
        return train_npz
    hidden = train_npz.with_name(train_npz.stem + "_tapadas.npz")
    if not hidden.is_file():
        start = time.time()
        write(hidden)
        print(f"half-hidden cards of {n_scenes} tables ({time.time() - start:.0f} s)", flush=True)
    joined = train_npz.with_name(train_npz.stem + "_todo.npz")
    if joined.is_file() and joined.stat().st_mtime_ns >= max(train_npz.stat().st_mtime_ns, hidden.stat().st_mtime_ns):
        return joined  # joined by an earlier run from these same parts
    return join_sets(joined, [train_npz, hidden], ("p", "y", "deck"))


def log_validation(
    model: nn.Module,
    measure_fn: Callable[[nn.Module, Path], dict],
    args: argparse.Namespace,
    start: float,
    log_path: Path,
    val_path: Path,
    write_val: Callable[[Path, str], object],
) -> dict:
    """Measure ``model`` on the validation set of each training design (and of ``--prueba``):
    ``val_path`` with ``{}`` for the design, written by ``write_val(path, deck)`` unless it is
    there already; the figures, the arguments and the time go to ``log_path``."""
    log: dict = {"args": {k: str(v) for k, v in vars(args).items()}}
    for deck in tuple(args.barajas.split(",")) + ((args.prueba,) if args.prueba else ()):
        val = Path(str(val_path).format(deck))
        if not val.is_file():
            write_val(val, deck)
        log[deck] = measure_fn(model, val)
        print(deck, log[deck], flush=True)
    log["s"] = time.time() - start
    log_path.write_text(json.dumps(log, indent=1))
    return log


if __name__ == "__main__":
    raise SystemExit(main())
