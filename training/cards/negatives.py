"""Photos with no card, real and generated, split into a part the card-evidence rule may be
tuned on and a held-out part it never is (:data:`vision.assemble.CARD_EVIDENCE`).

Real photos that ship with packages the project installs (nothing is downloaded):

- tuned on: the 22 of scikit-image in :data:`training.cards.evaluate.NEGATIVE_PHOTOS`
  (portraits, a cat, a cup of coffee, coins, text, a rocket, microscopy, textures);
- held out: matplotlib's sample portrait (Grace Hopper) and rendered gift box, Ultralytics'
  two example photos (a bus in a street with people, two men in suits), Kivy's background
  and test pattern, scikit-image's checkerboard, phantom and a mosaic of its small
  face photos (Labeled Faces in the Wild).

Each real photo is read whole and as RANDOM_CROPS random crops (a quarter to two thirds of
it, enlarged to a 1280x960 photo: what a close-up of it would be); the held-out crops use other
random numbers. Generated beside them: cartoon faces drawn with OpenCV (head, eyes, brows,
nose, mouth, hair) on a plain or noisy ground, seeds 0-19 tuned on, 1000-1019 held out.

    python -m training.cards.negatives            # the figures of both parts
    python -m training.cards.negatives --escribir DIR 360   # the detector's training negatives
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from training.cards.evaluate import NEGATIVE_PHOTOS, negative_photo
from vision.reader import CardReader

PHOTO_SIZE = (1280, 960)
RANDOM_CROPS = 3
FACES = 20  # generated cartoon faces a part
HELD_OUT_SEED = 1000


def _package_file(module: str, *parts: str) -> Path | None:
    """A data file inside an installed package, found without importing it (None when the
    package is not installed)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent.joinpath(*parts)
    return path if path.is_file() else None


def _lfw_mosaic() -> np.ndarray:
    from skimage import data

    faces = data.lfw_subset()[:20]  # (20, 25, 25) grey faces in [0, 1]
    rows = [np.hstack(list(faces[r * 5 : (r + 1) * 5])) for r in range(4)]
    grey = (np.vstack(rows) * 255).astype(np.uint8)
    return cv2.cvtColor(cv2.resize(grey, (500, 400), interpolation=cv2.INTER_CUBIC), cv2.COLOR_GRAY2BGR)


def _skimage_grey(name: str) -> Callable[[], np.ndarray]:
    def load() -> np.ndarray:
        from skimage import data

        img = getattr(data, name)().astype(np.float64)
        img = (255 * (img - img.min()) / max(np.ptp(img), 1e-9)).astype(np.uint8)
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)

    return load


def _file(module: str, *parts: str) -> Callable[[], np.ndarray | None]:
    def load() -> np.ndarray | None:
        path = _package_file(module, *parts)
        return None if path is None else cv2.imread(str(path), cv2.IMREAD_COLOR)

    return load


# the held-out real photos: name -> loader (None when its package is not installed)
HELD_OUT_PHOTOS: dict[str, Callable[[], np.ndarray | None]] = {
    "grace_hopper": _file("matplotlib", "mpl-data", "sample_data", "grace_hopper.jpg"),
    "gift_box": _file("matplotlib", "mpl-data", "sample_data", "Minduka_Present_Blue_Pack.png"),
    "bus": _file("ultralytics", "assets", "bus.jpg"),
    "zidane": _file("ultralytics", "assets", "zidane.jpg"),
    "kivy_background": _file("kivy", "data", "images", "background.jpg"),
    "checkerboard": _skimage_grey("checkerboard"),
    "shepp_logan_phantom": _skimage_grey("shepp_logan_phantom"),
    "lfw_faces": _lfw_mosaic,
}


def as_photo(img: np.ndarray) -> np.ndarray:
    """An image as a 1280x960 BGR photo (stretched as a camera of that shape would frame it)."""
    return cv2.resize(
        img, PHOTO_SIZE, interpolation=cv2.INTER_AREA if img.shape[1] > PHOTO_SIZE[0] else cv2.INTER_CUBIC
    )


def random_crop(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A random part of ``img`` (a quarter to two thirds of each side), as a 1280x960 photo."""
    h, w = img.shape[:2]
    share = rng.uniform(0.25, 0.67)
    ch = min(h, max(8, int(h * share)))
    cw = min(w, max(8, int(w * share * rng.uniform(0.8, 1.25))))
    y, x = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    return as_photo(img[y : y + ch, x : x + cw])


def cartoon_face(rng: np.random.Generator) -> np.ndarray:
    """A drawn face filling much of a 1280x960 photo: an oval head, eyes, brows, a nose, a mouth
    and hair, flat colours, on a plain, graded or noisy ground."""
    w, h = PHOTO_SIZE
    ground = rng.integers(0, 256, 3)
    img: np.ndarray = np.empty((h, w, 3), np.uint8)
    img[:] = ground
    if rng.random() < 0.5:
        img = np.clip(img + rng.normal(0, rng.uniform(5, 40), img.shape), 0, 255).astype(np.uint8)
    cx, cy = w / 2 + rng.uniform(-150, 150), h / 2 + rng.uniform(-80, 80)
    ax, ay = rng.uniform(200, 380), rng.uniform(260, 440)
    skin = tuple(int(v) for v in rng.integers(60, 256, 3))
    line = tuple(int(v) for v in rng.integers(0, 80, 3))
    thick = int(rng.integers(2, 12))
    hair = tuple(int(v) for v in rng.integers(0, 256, 3))
    cv2.ellipse(img, (int(cx), int(cy - ay * 0.35)), (int(ax * 1.08), int(ay * 0.8)), 0, 180, 360, hair, -1)
    cv2.ellipse(img, (int(cx), int(cy)), (int(ax), int(ay)), 0, 0, 360, skin, -1)
    cv2.ellipse(img, (int(cx), int(cy)), (int(ax), int(ay)), 0, 0, 360, line, thick)
    eye_r = rng.uniform(0.12, 0.25) * ax
    for side in (-1, 1):
        ex, ey = int(cx + side * ax * 0.4), int(cy - ay * 0.2)
        cv2.circle(img, (ex, ey), int(eye_r), (255, 255, 255), -1)
        cv2.circle(img, (ex, ey), int(eye_r), line, max(1, thick // 2))
        cv2.circle(img, (ex + int(rng.uniform(-0.3, 0.3) * eye_r), ey), int(eye_r * 0.45), line, -1)
        brow_y = int(ey - eye_r * 1.6)
        cv2.line(
            img, (ex - int(eye_r), brow_y + int(side * rng.uniform(-8, 8))), (ex + int(eye_r), brow_y), line, thick
        )
    nose = np.array([[cx, cy - ay * 0.05], [cx - ax * 0.08, cy + ay * 0.18], [cx + ax * 0.06, cy + ay * 0.2]], np.int32)
    cv2.polylines(img, [nose], False, line, thick)
    smile = int(rng.uniform(-40, 40))
    cv2.ellipse(
        img,
        (int(cx), int(cy + ay * 0.42)),
        (int(ax * 0.4), int(ay * 0.12)),
        0,
        10 if smile >= 0 else 190,
        170 if smile >= 0 else 350,
        line,
        thick + 2,
    )
    angle = rng.uniform(-25, 25)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    img = cv2.warpAffine(img, rot, (w, h), borderMode=cv2.BORDER_REFLECT)
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))


def photos(part: str) -> Iterator[tuple[str, np.ndarray]]:
    """The (name, 1280x960 BGR photo) of one part, "ajuste" (tuned on) or "reservada" (held
    out): each real photo whole and cropped, then the cartoon faces."""
    held_out = part == "reservada"
    if held_out:
        sources = ((name, load()) for name, load in HELD_OUT_PHOTOS.items())
    else:
        sources = ((name, negative_photo(name)) for name in NEGATIVE_PHOTOS)
    seed = HELD_OUT_SEED if held_out else 0
    for k, (name, img) in enumerate(sources):
        if img is None:  # its package is not installed here
            continue
        yield name, as_photo(img)
        rng = np.random.default_rng([seed, k])
        for c in range(RANDOM_CROPS):
            yield f"{name}/recorte{c}", random_crop(rng, img)
    for i in range(FACES):
        yield f"cara{seed + i}", cartoon_face(np.random.default_rng([seed + i, 7]))


# the detector's training negatives draw other random numbers than both measured parts
TRAIN_SEED = 5000


def training_photos(n: int, seed: int = TRAIN_SEED) -> Iterator[np.ndarray]:
    """``n`` no-card photos for the detector's training (1280x960 BGR), drawn only from the
    tuned-on part's sources: its real photos whole and in other random crops, and cartoon
    faces of other seeds. The held-out part never reaches the detector."""
    sources = [img for img in (negative_photo(name) for name in NEGATIVE_PHOTOS) if img is not None]
    rng = np.random.default_rng(seed)
    for i in range(n):
        kind = i % 3
        if kind == 2 or not sources:
            yield cartoon_face(np.random.default_rng([seed, i, 7]))
            continue
        img = sources[int(rng.integers(len(sources)))]
        yield as_photo(img) if kind == 0 and rng.random() < 0.3 else random_crop(rng, img)


def write_training_set(out: Path, n: int, size: tuple[int, int] = (640, 480), seed: int = TRAIN_SEED) -> Path:
    """Write ``n`` no-card photos as a detector set (``out/images/train``, empty label files)."""
    images, labels = out / "images" / "train", out / "labels" / "train"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    for i, photo in enumerate(training_photos(n, seed)):
        small = cv2.resize(photo, size, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(images / f"nada_{i:05d}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (labels / f"nada_{i:05d}.txt").write_text("")
    return out


def measure(reader: CardReader, part: str) -> dict:
    """Photos of ``part`` read as none, and the cards read on the others (by photo name)."""
    found = {name: len(reader.read(img)) for name, img in photos(part)}
    wrong = {name: n for name, n in found.items() if n}
    return {
        "fotos": len(found),
        "sin_cartas": len(found) - len(wrong),
        "cartas_fantasma": sum(wrong.values()),
        "con_cartas": wrong,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.cards.negatives",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--parte", choices=("ajuste", "reservada", "las-dos"), default="las-dos")
    p.add_argument(
        "--escribir",
        nargs=2,
        metavar=("DIR", "N"),
        help="write N no-card photos of the tuned-on part as a detector training set, and measure nothing",
    )
    args = p.parse_args(argv)
    if args.escribir:
        print(write_training_set(Path(args.escribir[0]), int(args.escribir[1])))
        return 0
    reader = CardReader().load()
    parts = ("ajuste", "reservada") if args.parte == "las-dos" else (args.parte,)
    print(json.dumps({part: measure(reader, part) for part in parts}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
