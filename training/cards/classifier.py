"""The 40-class card classifier: a small CNN on rectified 64x96 crops, trained in torch and
exported to ONNX (inference in :mod:`vision.classify` needs only ONNX Runtime).

The ONNX model takes ``(N, 3, 96, 64)`` float32 BGR in [0, 1] and returns ``(N, 40)`` logits in
the order of :data:`scoring.cards.CARD_IDS` and ``(N, 960)`` features: the last feature map
pooled to 3x2 cells (it keeps where the pips are) and L2-normalised. The features are what a
registered deck (:mod:`vision.registered_deck`) is compared on.

Export a checkpoint again (for instance one trained on a single design)::

    python -m training.cards.classifier --exportar runs/cartas/cls_F_to_N/carta_cls.pt

Train and test on different designs (the cross-design check)::

    python -m training.cards.classifier --recortes runs/cartas/crops_train.npz \\
        --val runs/cartas/crops_val.npz --entrena fournier1878-pd --prueba naipes-libres-basquetteur
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from scoring.cards import CARD_IDS
from training.cards.onnx_file import write_onnx
from vision.geometry import CROP_H, CROP_W

N_CLASSES = len(CARD_IDS)
FEATURE_GRID = (3, 2)  # rows x columns of the pooled feature map (960 numbers a crop)


def _block(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CardNet(nn.Module):
    """About 0.5 M parameters, 35 M multiply-adds per crop."""

    def __init__(self, n_classes: int = N_CLASSES) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _block(3, 32, 2),
            _block(32, 48, 2),
            _block(48, 48, 1),
            _block(48, 96, 2),
            _block(96, 96, 1),
            _block(96, 160, 2),
            _block(160, 160, 1),
        )
        self.drop = nn.Dropout(0.2)
        self.head = nn.Linear(160, n_classes)

    def feature_map(self, x: torch.Tensor) -> torch.Tensor:
        return self.features((x - 0.5) / 0.25)

    def logits(self, fm: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(fm.mean((2, 3))))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.logits(self.feature_map(x))


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Batch augmentation on (N, 3, H, W) floats in [0, 1]."""
    n = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(n, *shape, generator=gen)

    flip = torch.rand(n, generator=gen) < 0.5  # the card upside down
    x = torch.where(flip[:, None, None, None], x.flip(2, 3), x)
    gray = torch.rand(n, generator=gen) < 0.1
    g = x.mean(1, keepdim=True).expand_as(x)
    x = torch.where(gray[:, None, None, None], g, x)
    gain = u(0.8, 1.2, 3, 1, 1) * u(0.6, 1.3, 1, 1, 1)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.7, 1.3, 1, 1, 1) + mean
    x = x * gain + u(-0.08, 0.08, 1, 1, 1)
    x = x.clamp(0, 1) ** u(0.75, 1.35, 1, 1, 1)
    if torch.rand(1, generator=gen).item() < 0.3:  # blur the whole batch a little
        k = torch.tensor([1.0, 2.0, 1.0]) / 4
        kern = (k[:, None] * k[None, :]).expand(3, 1, 3, 3)
        x = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), kern, groups=3)
    x = x + torch.randn(x.shape, generator=gen) * u(0, 0.04, 1, 1, 1)
    # small shifts (the detector's boxes are not exact)
    dx, dy = (int(v) for v in torch.randint(-3, 4, (2,), generator=gen))
    x = torch.roll(x, (dy, dx), (2, 3))
    return x.clamp(0, 1)


def _augment_design(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """On top of :func:`_augment`, what differs between deck designs rather than photos: the
    card's proportions and margins (each crop zoomed and stretched) and ink hues (a hue turn).
    No patches are hidden: a hidden pip turns a 6 into a 4."""
    x = _augment(x, gen)
    n = x.shape[0]
    sx = 0.85 + 0.3 * torch.rand(n, generator=gen)
    sy = sx * (0.92 + 0.16 * torch.rand(n, generator=gen))
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 1, 1] = sx, sy
    theta[:, :, 2] = (torch.rand(n, 2, generator=gen) - 0.5) * 0.1
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # hue turn: rotate the chroma around the grey axis by up to +-25 degrees
    ang = (torch.rand(n, generator=gen) - 0.5) * math.radians(50)
    grey = x.mean(1, keepdim=True)
    c = x - grey
    k = torch.tensor([1.0, 1.0, 1.0]) / math.sqrt(3)
    cross = torch.stack(
        [k[1] * c[:, 2] - k[2] * c[:, 1], k[2] * c[:, 0] - k[0] * c[:, 2], k[0] * c[:, 1] - k[1] * c[:, 0]], 1
    )
    cos, sin = torch.cos(ang)[:, None, None, None], torch.sin(ang)[:, None, None, None]
    x = grey + c * cos + cross * sin
    return x.clamp(0, 1)


def _augment_style(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """On top of :func:`_augment_design`, the drawing style of another printer: the palette
    (channels mixed at random, saturation from washed out to vivid), the weight of the lines
    (dark strokes thickened or thinned) and the print (flat vector colours or a textured
    print). The pips' layout and the corner numbers, which every Spanish deck shares, are
    untouched."""
    x = _augment_design(x, gen)
    n = x.shape[0]

    def pick(p: float) -> torch.Tensor:
        return (torch.rand(n, generator=gen) < p)[:, None, None, None]

    mix = torch.eye(3) + 0.2 * torch.randn(n, 3, 3, generator=gen)
    mix = mix / mix.sum(2, keepdim=True).clamp(min=0.3)  # keep greys grey, whites white
    mixed = torch.einsum("nij,njhw->nihw", mix, x)
    x = torch.where(pick(0.5), mixed, x)
    grey = x.mean(1, keepdim=True)
    sat = 0.3 + 1.5 * torch.rand(n, 1, 1, 1, generator=gen)
    x = torch.where(pick(0.5), grey + (x - grey) * sat, x)
    thick = -F.max_pool2d(-x, 3, 1, 1)  # the darker neighbour: dark strokes grow
    thin = F.max_pool2d(x, 3, 1, 1)
    x = torch.where(pick(0.2), thick, torch.where(pick(0.2), thin, x))
    flat = F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3, 1)
    flat = flat + 1.5 * (flat - F.avg_pool2d(F.pad(flat, (2, 2, 2, 2), mode="replicate"), 5, 1))
    grain = x * (1 + 0.06 * torch.randn(n, 1, x.shape[2], x.shape[3], generator=gen))
    x = torch.where(pick(0.25), flat, torch.where(pick(0.2), grain, x))
    return x.clamp(0, 1)


class CosineHead(nn.Module):
    """Margin cosine classifier (CosFace) on the pooled 3x2 features, used only in training: it
    shapes the features a registered deck is matched on (cosine similarity), which the 40-way
    head alone never trains directly. Not exported."""

    def __init__(self, dim: int, n_classes: int = N_CLASSES, scale: float = 25.0, margin: float = 0.15) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, dim) * 0.01)
        self.scale, self.margin = scale, margin

    def loss(self, feats: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        cos = feats @ F.normalize(self.weight, dim=1).T
        cos = cos - self.margin * F.one_hot(y, cos.shape[1])
        return F.cross_entropy(self.scale * cos, y)


def _pooled_features(fm: torch.Tensor) -> torch.Tensor:
    return F.normalize(F.adaptive_avg_pool2d(fm, FEATURE_GRID).flatten(1), dim=1)


def _to_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(x).permute(0, 3, 1, 2).float().div_(255)


def _load(path: Path, deck: str | None) -> tuple[np.ndarray, np.ndarray]:
    d = np.load(path)
    x, y = d["x"], d["y"].astype(np.int64)
    if deck is not None:
        decks = [str(v) for v in d["decks"]]
        keep = d["deck"] == decks.index(deck)
        x, y = x[keep], y[keep]
    return x, y


@torch.no_grad()
def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray, batch: int = 512) -> dict:
    model.eval()
    preds = []
    for i in range(0, len(x), batch):
        preds.append(model(_to_tensor(x[i : i + batch])).argmax(1).numpy())
    pred = np.concatenate(preds) if preds else np.zeros(0, np.int64)
    return {"n": len(y), "acierto": float((pred == y).mean()) if len(y) else math.nan, "pred": pred}


def train_classifier(
    train_npz: Path,
    val_npz: Path,
    out: Path,
    *,
    epochs: int = 12,
    batch: int = 128,
    lr: float = 3e-3,
    threads: int = 2,
    seed: int = 0,
    train_deck: str | None = None,
    test_deck: str | None = None,
    max_minutes: float | None = None,
    init: Path | None = None,
    design_augment: bool = False,
    style_augment: bool = False,
    feature_loss: float = 0.0,
) -> dict:
    """Train CardNet on crops; write ``out/carta_cls.pt`` and ``out/carta_cls.onnx``.

    ``feature_loss`` > 0 adds, with that weight, a margin cosine loss on the pooled features
    (:class:`CosineHead`), the features a registered deck is read with.
    """
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    x_train, y_train = _load(train_npz, train_deck)
    x_val, y_val = _load(val_npz, test_deck)
    model = CardNet()
    if init is not None:  # continue from earlier weights
        model.load_state_dict(torch.load(init))
    cos_head = CosineHead(160 * FEATURE_GRID[0] * FEATURE_GRID[1]) if feature_loss else None
    params = list(model.parameters()) + (list(cos_head.parameters()) if cos_head else [])
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=5e-4)
    steps = epochs * math.ceil(len(x_train) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.15)
    history = []
    start = time.time()
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(x_train))
        total, count = 0.0, 0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            augment = _augment_style if style_augment else _augment_design if design_augment else _augment
            xb = augment(_to_tensor(x_train[idx]), gen)
            yb = torch.from_numpy(y_train[idx])
            fm = model.feature_map(xb)
            loss = F.cross_entropy(model.logits(fm), yb, label_smoothing=0.1)
            if cos_head is not None:
                loss = loss + feature_loss * cos_head.loss(_pooled_features(fm), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch < steps - 1:
                sched.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        res = evaluate(model, x_val, y_val)
        history.append(
            {"epoch": epoch + 1, "loss": total / max(count, 1), "val_acierto": res["acierto"], "s": time.time() - start}
        )
        print(
            f"clasificador epoch {epoch + 1}/{epochs} loss {total / max(count, 1):.3f} "
            f"val {res['acierto']:.4f} ({time.time() - start:.0f} s)",
            flush=True,
        )
        if max_minutes and time.time() - start > max_minutes * 60:
            break
    torch.save(model.state_dict(), out / "carta_cls.pt")
    export_onnx(model, out / "carta_cls.onnx")
    final = evaluate(model, x_val, y_val)
    summary = {
        "n_train": len(y_train),
        "n_val": len(y_val),
        "val_acierto": final["acierto"],
        "train_deck": train_deck,
        "test_deck": test_deck,
        "history": history,
        "s": time.time() - start,
    }
    (out / "classifier_log.json").write_text(json.dumps(summary, indent=1))
    return {k: v for k, v in summary.items() if k != "history"}


class WithFeatures(nn.Module):
    """CardNet returning its logits and the normalised pooled feature map (for ONNX export)."""

    def __init__(self, net: CardNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        fm = self.net.feature_map(x)
        return self.net.logits(fm), _pooled_features(fm)


def export_onnx(model: CardNet, path: Path) -> Path:
    """``carta_cls.onnx``: input ``crops`` (N, 3, CROP_H, CROP_W) float32, outputs ``logits`` and
    ``features``; written whole or not at all."""
    model.eval()
    dummy = torch.rand(1, 3, CROP_H, CROP_W)
    return write_onnx(
        WithFeatures(model),
        (dummy,),
        path,
        input_names=["crops"],
        output_names=["logits", "features"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "features": {0: "n"}},
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.classifier",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--recortes", type=Path)
    p.add_argument("--val", type=Path)
    p.add_argument(
        "--exportar",
        type=Path,
        default=None,
        metavar="PT",
        help="only export this checkpoint to ONNX next to it, and stop",
    )
    p.add_argument("--salida", type=Path, default=Path("runs/clasificador"), help="the run's folder")
    p.add_argument("--entrena", default=None, help="train only on this deck design")
    p.add_argument("--prueba", default=None, help="validate only on this deck design")
    p.add_argument("--epocas", type=int, default=12)
    p.add_argument("--hilos", type=int, default=2)
    p.add_argument("--tasa", type=float, default=3e-3, help="the peak learning rate")
    p.add_argument("--desde", type=Path, default=None, help="start from these weights (.pt)")
    p.add_argument(
        "--aumento-diseno",
        action="store_true",
        help="also vary what differs between deck designs (proportions, hues, patches)",
    )
    p.add_argument(
        "--aumento-estilo",
        action="store_true",
        help="on top of --aumento-diseno, another printer's style: palette, "
        "saturation, line weight, flat or textured print",
    )
    p.add_argument(
        "--perdida-rasgos",
        type=float,
        default=0.0,
        metavar="W",
        help="weight of a margin cosine loss on the features a registered deck is read with (0: none)",
    )
    args = p.parse_args(argv)
    if args.exportar:
        model = CardNet()
        model.load_state_dict(torch.load(args.exportar))
        print(export_onnx(model, args.exportar.with_suffix(".onnx")))
        return 0
    if not (args.recortes and args.val):
        p.error("para entrenar hacen falta --recortes y --val")
    res = train_classifier(
        args.recortes,
        args.val,
        args.salida,
        epochs=args.epocas,
        threads=args.hilos,
        train_deck=args.entrena,
        test_deck=args.prueba,
        lr=args.tasa,
        init=args.desde,
        design_augment=args.aumento_diseno,
        style_augment=args.aumento_estilo,
        feature_loss=args.perdida_rasgos,
    )
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
