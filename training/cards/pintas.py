"""The suit reader of the pintas (``carta_palo.onnx``), trained in torch on the frame strips
(:mod:`vision.pintas`) of every visible card of rendered tables (:mod:`training.cards.synth`), and of
the half-hidden cards of more tables laid out in fans and overlapping rows, cut on jittered
boxes like a detector's.

The ONNX model takes ``(N, 2, 28, 128)`` float32 from :func:`vision.pintas.pinta_strips` and
returns ``(N, 4)`` logits in :data:`scoring.cards.SUITS` order. :mod:`vision.classify`
multiplies the card probabilities by the suit probabilities (see PINTA_WEIGHT there). Full
size, about 23 min on one core of a 2-core CPU: 7 rendering the tables' strips, 7 the
half-hidden cards' tables, 8 training (each set is rendered only when it is not in
``--salida`` yet)::

    python -m training.cards.pintas --salida runs/pintas

The cross-design check (train on one design, measure on the other)::

    python -m training.cards.pintas --salida runs/pintas_F --barajas fournier1878-pd \\
        --prueba naipes-libres-basquetteur
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from scoring.cards import CARD_IDS, SUITS
from training.cards.corner_index import (
    DECKS,
    TwoViewNet,
    conv_block,
    log_validation,
    reader_arguments,
    train_epochs,
    with_hidden,
    write_view_set,
)
from training.cards.dataset import HIDDEN_FIRST_INDEX
from vision.corner_index import normalise
from vision.pintas import STRIP_H, STRIP_W, SUIT_OF, strips_bgr


def write_pinta_set(
    path: Path,
    *,
    n_scenes: int,
    split: str = "train",
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    per_card: int = 2,
    first_index: int = 20_000,
    hidden: bool = False,
) -> Path:
    """Grey frame strips (N, 2, STRIP_H, STRIP_W) uint8 of every visible card of ``n_scenes``
    rendered scenes (:func:`training.cards.corner_index.write_view_set`)."""
    grey = np.array([0.114, 0.587, 0.299], np.float32)
    return write_view_set(
        path,
        lambda card: (strips_bgr(card).astype(np.float32) @ grey).astype(np.uint8),
        n_scenes=n_scenes,
        split=split,
        seed=seed,
        decks=decks,
        per_card=per_card,
        first_index=first_index,
        hidden=hidden,
    )


class PintaNet(TwoViewNet):
    """The suit reader: a small CNN on each frame strip (28x128), flattened so that it can tell
    where the breaks fall, not only that there are some. Every block halves the resolution,
    the first too: about 2.6 M multiply-adds a strip (a first block at full resolution costs
    10 M and reads no better)."""

    view = (STRIP_H, STRIP_W)
    input_name = "tiras"

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            conv_block(1, 16, 2),
            conv_block(16, 32, 2),
            conv_block(32, 48, 2),
            conv_block(48, 64, 2),
            nn.Flatten(),
            nn.Linear(64 * 2 * 8, 128),
            nn.ReLU(),
            nn.Dropout(0.2),
        )
        self.head = nn.Linear(256, len(SUITS))


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A shift of up to 4 px, a mirror (the count of breaks stays), contrast, noise."""
    dx, dy = torch.randint(-4, 5, (2,), generator=gen).tolist()
    x = torch.roll(x, (dy, dx), (-2, -1))
    if torch.rand(1, generator=gen).item() < 0.5:
        x = x.flip(-1)
    x = x * (0.7 + 0.6 * torch.rand(*x.shape[:-2], 1, 1, generator=gen))
    return x + 0.15 * torch.randn(x.shape, generator=gen)


def suit_probabilities(model: nn.Module, strips: np.ndarray) -> np.ndarray:
    """Suit probabilities (N, 4) of grey uint8 strips (N, 2, STRIP_H, STRIP_W)."""
    model.eval()
    x = torch.from_numpy(normalise(strips))
    with torch.no_grad():
        return torch.cat([F.softmax(model(x[i : i + 512]), 1) for i in range(0, len(x), 512)]).numpy()


def measure(model: nn.Module, npz: Path) -> dict:
    """Suit accuracy and mean negative log-likelihood on a strip set, courts apart."""
    d = np.load(npz)
    y = SUIT_OF[d["y"]]
    p = suit_probabilities(model, d["p"])
    right = p.argmax(1) == y
    court = np.array([CARD_IDS[i][:-1] in ("10", "11", "12") for i in d["y"]])
    return {
        "n": len(y),
        "palo": float(right.mean()),
        "palo_figuras": float(right[court].mean()),
        "nll": float(-np.log(p[np.arange(len(y)), y] + 1e-9).mean()),
    }


def train_pinta_reader(out: Path, train_npz: Path, *, epochs: int = 8, threads: int = 1, seed: int = 0) -> nn.Module:
    """Train on ``train_npz``; writes ``out/carta_palo.pt`` and ``out/carta_palo.onnx``."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    d = np.load(train_npz)
    x = torch.from_numpy(normalise(d["p"]))
    y = torch.from_numpy(SUIT_OF[d["y"]])
    model = PintaNet()
    train_epochs(
        model,
        list(model.parameters()),
        lambda idx: F.cross_entropy(model(_augment(x[idx], gen)), y[idx], label_smoothing=0.05),
        len(x),
        epochs,
        2e-3,
        gen,
        "pintas",
        time.time(),
    )
    torch.save(model.state_dict(), out / "carta_palo.pt")
    model.export_onnx(out / "carta_palo.onnx")
    return model


def main(argv: list[str] | None = None) -> int:
    p = reader_arguments("python -m training.cards.pintas", __doc__, 700)
    p.add_argument("--epocas", type=int, default=8)
    args = p.parse_args(argv)
    decks = tuple(args.barajas.split(","))
    out = args.salida
    start = time.time()
    train_npz = out / "pintas_train.npz"
    if not train_npz.is_file():
        write_pinta_set(train_npz, n_scenes=args.escenas, seed=args.semilla, decks=decks)
        print(f"strips of {args.escenas} tables ({time.time() - start:.0f} s)", flush=True)
    train_npz = with_hidden(
        train_npz,
        args.escenas_tapadas,
        lambda path: write_pinta_set(
            path,
            n_scenes=args.escenas_tapadas,
            seed=args.semilla,
            decks=decks,
            first_index=HIDDEN_FIRST_INDEX,
            hidden=True,
        ),
    )
    model = train_pinta_reader(out, train_npz, epochs=args.epocas, threads=args.hilos, seed=args.semilla)
    log_validation(
        model,
        measure,
        args,
        start,
        out / "pinta_log.json",
        out / "pintas_val_{}.npz",
        lambda path, deck: write_pinta_set(
            path, n_scenes=args.escenas_val, split="val", seed=args.semilla, decks=(deck,), per_card=1, first_index=0
        ),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
