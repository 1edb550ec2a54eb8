"""Write synthetic data sets to disk: a one-class oriented-box (YOLO-OBB) set for the card
detector and an array of rectified card crops for the card classifier.

Seeds: scene ``i`` of a split uses ``np.random.default_rng([base_seed, split_code, i])``, so the
training, validation and evaluation splits never share a scene; validation and evaluation also
use only :data:`training.cards.synth.HOLDOUT_BACKGROUNDS`.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.cards import CARD_IDS
from training.cards.decks import DECKS
from training.cards.synth import (
    HAND_STYLES,
    HOLDOUT_BACKGROUNDS,
    TRAIN_BACKGROUNDS,
    closeup_at_scale,
    render_scene,
    visible_fraction,
)
from vision.detect import Detector
from vision.geometry import CROP_H, CROP_W, crop_cards, quad_to_obb, rotated_iou

SPLIT_CODES = {"train": 1, "val": 2, "eval": 3, "ejemplo": 4}
MIN_VISIBLE = 0.12  # cards hidden more than this are not labelled as readable crops
# Half-hidden cards (under the next card of a fan or an overlapping row) hold most wrong ids:
# the readers also train on extra tables laid out so, from these scene indices (no other set's)
HIDDEN_MAX_VISIBLE = 0.65
HIDDEN_FIRST_INDEX = 400_000
HIDDEN_STYLES = (("fan", 0.7), ("overlap", 0.3))
# Fanned hands are where the detector misses most cards (a quarter of the tables exact against two
# thirds in rows): the detector is fine-tuned on extra tables, two in three with every hand fanned
FAN_FIRST_INDEX = 600_000
FAN_SEED_OFFSET = 11


@dataclass(frozen=True)
class SceneJob:
    split: str
    index: int
    base_seed: int
    decks: tuple[str, ...]
    backgrounds: tuple[str, ...]
    render_size: tuple[int, int]
    det_size: tuple[int, int] | None  # write a detector image at this size (None: no)
    crops_per_card: int  # jittered classifier crops per visible card (0: none)
    deck_root: str | None
    keep_image: bool = False  # return the full scene (for crops from a detector's boxes)
    jitter: float = 1.0
    # a fixed kind of scene (see training.cards.synth.render_scene, and "cerca": a hand filling the
    # frame, training.cards.synth.closeup_at_scale); None: mixed
    kind: str | None = None
    hand_style: str | None = None  # how every hand of a table lies ("fan", ...); None: mixed


def scene_rng(base_seed: int, split: str, index: int) -> np.random.Generator:
    return np.random.default_rng([base_seed, SPLIT_CODES[split], index])


def jitter_obb(rng: np.random.Generator, obb: np.ndarray, amount: float = 1.0) -> np.ndarray:
    """Perturb a box like a detector would: centre, size and angle."""
    cx, cy, w, h, a = (float(v) for v in obb)
    s = max(w, h)
    return np.array(
        [
            cx + rng.normal(0, 0.03 * amount) * s,
            cy + rng.normal(0, 0.03 * amount) * s,
            w * (1 + rng.normal(0, 0.05 * amount)),
            h * (1 + rng.normal(0, 0.05 * amount)),
            a + rng.normal(0, 0.04 * amount),
        ],
        np.float32,
    )


def _run_job(job: SceneJob) -> dict:
    rng = scene_rng(job.base_seed, job.split, job.index)
    if job.kind == "cerca":  # one hand filling most of the frame, nearer than "mano" draws it
        deck, style = str(rng.choice(list(job.decks))), job.hand_style or str(rng.choice(list(HAND_STYLES)))
        scene = closeup_at_scale(rng, deck, style, job.render_size, job.backgrounds, job.deck_root)
    else:
        scene = render_scene(
            rng,
            decks=job.decks,
            backgrounds=job.backgrounds,
            size=job.render_size,
            deck_root=job.deck_root,
            kind=job.kind,
            hand_style=job.hand_style,
        )
    out: dict = {"index": job.index, "kind": scene.kind, "deck": scene.deck, "background": scene.background}
    if job.det_size is not None:
        sx = job.det_size[0] / job.render_size[0]
        sy = job.det_size[1] / job.render_size[1]
        img = cv2.resize(scene.image, job.det_size, interpolation=cv2.INTER_AREA)
        out["det_image"] = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1]
        lines = []
        for quad in scene.corners:
            q = quad * np.array([sx, sy], np.float32)
            q = q / np.array(job.det_size, np.float32)
            q = np.clip(q, 0, 1)
            lines.append("0 " + " ".join(f"{v:.5f}" for v in q.reshape(-1)))
        out["det_label"] = "\n".join(lines) + ("\n" if lines else "")
    if job.crops_per_card and len(scene.card_ids):
        vis = visible_fraction(scene)
        boxes, labels = [], []
        for quad, cid, v in zip(scene.corners, scene.card_ids, vis, strict=True):
            if v < MIN_VISIBLE:
                continue
            obb = quad_to_obb(quad)
            for _ in range(job.crops_per_card):
                boxes.append(jitter_obb(rng, obb, job.jitter))
                labels.append(CARD_IDS.index(cid))
        out["crops"] = crop_cards(scene.image, np.stack(boxes)) if boxes else np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
        out["labels"] = np.array(labels, np.int16)
    if job.keep_image:
        out["image"], out["corners"], out["card_ids"] = scene.image, scene.corners, scene.card_ids
        out["visible"] = visible_fraction(scene) if len(scene.card_ids) else np.zeros(0)
    return out


def run_jobs(jobs: list[SceneJob], workers: int | None = None):
    """Yield job results in order, rendering in ``workers`` processes."""
    workers = workers or min(2, os.cpu_count() or 1)
    if workers <= 1:
        yield from map(_run_job, jobs)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(_run_job, jobs, chunksize=4)


class _CropSet:
    """Classifier crops gathered scene by scene, saved as one .npz (x, y, deck, decks)."""

    def __init__(self, decks: tuple[str, ...]) -> None:
        self.decks = decks
        self.xs: list[np.ndarray] = []
        self.ys: list[np.ndarray] = []
        self.ds: list[np.ndarray] = []

    def add(self, crops: np.ndarray, labels: np.ndarray, deck: str) -> None:
        self.xs.append(crops)
        self.ys.append(labels)
        self.ds.append(np.full(len(labels), self.decks.index(deck), np.int8))

    def add_result(self, res: dict) -> None:
        if "crops" in res:
            self.add(res["crops"], res["labels"], res["deck"])

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            path,
            x=np.concatenate(self.xs),
            y=np.concatenate(self.ys),
            deck=np.concatenate(self.ds),
            decks=np.array(self.decks),
        )
        return path


def write_detector_set(
    out: Path,
    *,
    n_train: int,
    n_val: int,
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    det_size: tuple[int, int] = (640, 480),
    render_size: tuple[int, int] = (1280, 960),
    crops_per_card: int = 0,
    workers: int | None = None,
    deck_root: str | None = None,
    kind: str | None = None,
    backgrounds: tuple[str, ...] = TRAIN_BACKGROUNDS,
) -> Path:
    """Write ``out/images/{train,val}``, ``out/labels/...`` and ``out/data.yaml`` (absolute paths).

    Training scenes draw their table from ``backgrounds`` (a subset of the training ones);
    validation scenes always from the held-out backgrounds.

    With ``crops_per_card`` > 0 the classifier crops of the training scenes are saved too, in
    ``out/crops_train.npz`` (arrays ``x`` uint8 (N, 96, 64, 3) BGR, ``y`` class index, ``deck``).
    """
    if set(backgrounds) & set(HOLDOUT_BACKGROUNDS):
        raise ValueError("los fondos reservados para validar no se usan para entrenar")
    jobs = {
        split: [
            SceneJob(
                split,
                i,
                seed,
                decks,
                bgs,
                render_size,
                det_size,
                crops_per_card if split == "train" else 0,
                deck_root,
                kind=kind,
            )
            for i in range(n)
        ]
        for split, n, bgs in (("train", n_train, backgrounds), ("val", n_val, HOLDOUT_BACKGROUNDS))
    }
    return _write_detector_jobs(Path(out).resolve(), jobs, decks, workers)


def write_fan_table_set(
    out: Path,
    *,
    n_train: int,
    n_val: int,
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    workers: int | None = None,
    deck_root: str | None = None,
    first: int = 0,
) -> Path:
    """A detector set of whole tables, two in three with every hand fanned (the others laid any
    way), one deck design per table in turn; scene indices from FAN_FIRST_INDEX + ``first`` with
    the seed ``seed + FAN_SEED_OFFSET``, so no other set shares a scene (a second set starts its
    ``first`` where the first one's tables end). Written like :func:`write_detector_set`
    (640x480 images from 1280x960 renders)."""
    jobs = {
        split: [
            SceneJob(
                split,
                FAN_FIRST_INDEX + i,
                seed + FAN_SEED_OFFSET,
                (decks[i % len(decks)],),
                bgs,
                (1280, 960),
                (640, 480),
                0,
                deck_root,
                kind="mesa",
                hand_style="fan" if i % 3 else None,
            )
            for i in range(first, first + n)
        ]
        for split, n, bgs in (("train", n_train, TRAIN_BACKGROUNDS), ("val", n_val, HOLDOUT_BACKGROUNDS))
    }
    return _write_detector_jobs(Path(out).resolve(), jobs, decks, workers)


def _write_detector_jobs(
    out: Path, jobs: dict[str, list[SceneJob]], decks: tuple[str, ...], workers: int | None
) -> Path:
    meta = []
    for split, split_jobs in jobs.items():
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        crop_set = _CropSet(decks)
        for res in run_jobs(split_jobs, workers):
            name = f"{split}_{res['index']:06d}"
            (out / "images" / split / f"{name}.jpg").write_bytes(res["det_image"].tobytes())
            (out / "labels" / split / f"{name}.txt").write_text(res["det_label"])
            meta.append({"split": split, "name": name, **{k: res[k] for k in ("kind", "deck", "background")}})
            crop_set.add_result(res)
        if crop_set.xs:
            crop_set.save(out / f"crops_{split}.npz")
    (out / "data.yaml").write_text(f"path: {out}\ntrain: images/train\nval: images/val\nnames:\n  0: carta\n")
    (out / "scenes.json").write_text(json.dumps(meta))
    return out / "data.yaml"


def write_crop_set(
    path: Path,
    *,
    n_scenes: int,
    split: str = "train",
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    backgrounds: tuple[str, ...] | None = None,
    crops_per_card: int = 2,
    render_size: tuple[int, int] = (1280, 960),
    workers: int | None = None,
    deck_root: str | None = None,
) -> Path:
    """Classifier crops from ``n_scenes`` full-resolution scenes, saved as an .npz."""
    bgs = backgrounds or (TRAIN_BACKGROUNDS if split == "train" else HOLDOUT_BACKGROUNDS)
    jobs = [SceneJob(split, i, seed, decks, bgs, render_size, None, crops_per_card, deck_root) for i in range(n_scenes)]
    crop_set = _CropSet(decks)
    for res in run_jobs(jobs, workers):
        crop_set.add_result(res)
    return crop_set.save(path)


def half_hidden_tables(
    n_scenes: int,
    *,
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    first_index: int = HIDDEN_FIRST_INDEX,
    face_edit=None,
):
    """Yield ``(rng, scene, hidden)`` for ``n_scenes`` training tables (training backgrounds,
    1280x960) whose hands lie in fans or overlapping rows: ``hidden``, the indices of the cards
    that show between MIN_VISIBLE and HIDDEN_MAX_VISIBLE of their face; ``rng`` goes on from the
    scene's, for jittering boxes."""
    styles, weights = [s for s, _ in HIDDEN_STYLES], [w for _, w in HIDDEN_STYLES]
    for i in range(n_scenes):
        rng = scene_rng(seed, "train", first_index + i)
        style = str(rng.choice(styles, p=weights))
        scene = render_scene(
            rng,
            decks=decks,
            backgrounds=TRAIN_BACKGROUNDS,
            size=(1280, 960),
            kind="mesa",
            hand_style=style,
            face_edit=face_edit,
        )
        vis = visible_fraction(scene)
        yield rng, scene, np.nonzero((vis >= MIN_VISIBLE) & (vis < HIDDEN_MAX_VISIBLE))[0]


def write_hidden_crop_set(
    path: Path,
    detector: Detector,
    *,
    n_scenes: int,
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    first_index: int = HIDDEN_FIRST_INDEX,
) -> Path:
    """Classifier crops of the half-hidden cards of :func:`half_hidden_tables`: two jittered
    crops of each one's true box, and the crop under the ``detector``'s box over it (rotated
    IoU >= 0.3), like :func:`write_detector_crop_set`."""
    crop_set = _CropSet(decks)
    for rng, scene, hidden in half_hidden_tables(n_scenes, seed=seed, decks=decks, first_index=first_index):
        gt = [quad_to_obb(q) for q in scene.corners]
        jittered = [jitter_obb(rng, gt[j]) for j in hidden for _ in range(2)]
        crops = list(crop_cards(scene.image, np.stack(jittered))) if jittered else []
        labels = [CARD_IDS.index(scene.card_ids[j]) for j in hidden for _ in range(2)]
        readable = np.isin(np.arange(len(gt)), hidden)
        more, more_labels = _detector_box_crops(detector, scene.image, gt, scene.card_ids, readable)
        if crops or more:
            crop_set.add(np.stack(crops + more), np.array(labels + more_labels, np.int16), scene.deck)
    return crop_set.save(path)


def _detector_box_crops(
    detector: Detector, image: np.ndarray, gt: list[np.ndarray], card_ids: list[str], readable: np.ndarray
) -> tuple[list[np.ndarray], list[int]]:
    """Crops under the boxes of the table the ``detector`` chooses and the class of the true
    card each box overlaps most (rotated IoU >= 0.3), for the boxes whose card is ``readable``."""
    boxes = detector.detect(image).boxes
    kept, labels = [], []
    for b in boxes:
        ious = [rotated_iou(b, g) for g in gt]
        j = int(np.argmax(ious))
        if ious[j] >= 0.3 and readable[j]:
            kept.append(b)
            labels.append(CARD_IDS.index(card_ids[j]))
    return (list(crop_cards(image, np.stack(kept))) if kept else []), labels


def join_sets(path: Path, parts: list[Path], keys: tuple[str, ...]) -> Path:
    """One .npz of the training sets ``parts`` (same designs in the same order), ``keys``
    concatenated and ``decks`` kept."""
    sets = [np.load(p) for p in parts]
    decks = [str(v) for v in sets[0]["decks"]]
    if any([str(v) for v in s["decks"]] != decks for s in sets):
        raise ValueError("los conjuntos no tienen las mismas barajas en el mismo orden")
    arrays: dict[str, Any] = {k: np.concatenate([s[k] for s in sets]) for k in keys}
    # numpy's stubs read **arrays as its keyword `allow_pickle`; every value is an array
    np.savez(path, **arrays, decks=sets[0]["decks"])
    return Path(path)


def write_detector_crop_set(
    path: Path,
    detector: Detector,
    *,
    n_scenes: int,
    first_index: int = 100_000,
    seed: int = 0,
    decks: tuple[str, ...] = DECKS,
    render_size: tuple[int, int] = (1280, 960),
    workers: int | None = None,
    deck_root: str | None = None,
    kind: str | None = None,
) -> Path:
    """Classifier crops cut where a trained ``detector`` puts its boxes, labelled with
    the card each box overlaps most (rotated IoU >= 0.3), plus strongly jittered crops of the
    true boxes: the classifier learns the detector's real errors. Training split, training
    backgrounds, scene indices from ``first_index`` on (not shared with the other sets);
    ``kind`` fixes the kind of scene (for instance "mesa", whole tables), mixed when None."""
    jobs = [
        SceneJob(
            "train",
            first_index + i,
            seed,
            decks,
            TRAIN_BACKGROUNDS,
            render_size,
            None,
            1,
            deck_root,
            keep_image=True,
            jitter=2.0,
            kind=kind,
        )
        for i in range(n_scenes)
    ]
    crop_set = _CropSet(decks)
    for res in run_jobs(jobs, workers):
        crop_set.add_result(res)
        if not len(res["card_ids"]):
            continue
        gt = [quad_to_obb(q) for q in res["corners"]]
        crops, labels = _detector_box_crops(detector, res["image"], gt, res["card_ids"], res["visible"] >= MIN_VISIBLE)
        if crops:
            crop_set.add(np.stack(crops), np.array(labels, np.int16), res["deck"])
    return crop_set.save(path)
