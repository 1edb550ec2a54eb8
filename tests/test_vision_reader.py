"""The shipped card reader (models/*.onnx through ONNX Runtime) on generated photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.decks import DECKS, decks_root
from vision.reader import CLS_FILE, DET_FILE, models_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
EXAMPLE_TRUTH = REPO / "examples" / "mesa.json"

pytestmark = pytest.mark.skipif(
    not ((models_dir() / DET_FILE).is_file() and (models_dir() / CLS_FILE).is_file()),
    reason="the trained models are not in models/")


def test_reader_needs_no_torch():
    import subprocess
    import sys

    code = ("import sys, vision.reader as r; r.read_cards(r.load_image(sys.argv[1])); "
            "print('torch' in sys.modules, 'ultralytics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(EXAMPLE)], capture_output=True,
                         text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["False", "False"]


def test_bundled_example_is_read_exactly():
    from vision.reader import read_cards

    truth = json.loads(EXAMPLE_TRUTH.read_text())
    dets = read_cards(str(EXAMPLE))
    assert dets.asientos is not None, dets.avisos
    assert [sorted(h) for h in dets.asientos] == [sorted(h.split()) for h in truth["manos"]]
    assert len(set(dets.ids)) == 16


def test_sessions_are_loaded_once_and_cached():
    from vision.reader import CardReader, default_reader

    a, b = default_reader(), default_reader()
    assert a is b
    assert CardReader().detector is CardReader().detector


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_closeups_of_one_hand_give_no_seats():
    """One hand is not a table: four distinct cards, no seats, and a warning that says why.
    (How many of them are right is measured in models/README.md, not asserted here.)"""
    from vision.dataset import scene_rng
    from vision.reader import read_cards
    from vision.synth import HOLDOUT_BACKGROUNDS, render_scene

    for i in range(2):
        scene = render_scene(scene_rng(0, "eval", 50_000 + i), backgrounds=HOLDOUT_BACKGROUNDS,
                             size=(1280, 960), kind="mano")
        dets = read_cards(scene.image)
        assert len(set(dets.ids)) == len(dets)
        assert dets.asientos is None
        assert any("se esperan 16" in a for a in dets.avisos)


def test_bundled_closeup_is_read():
    from vision.reader import read_cards

    dets = read_cards(str(REPO / "examples" / "mano.jpg"))
    truth = json.loads(EXAMPLE_TRUTH.read_text())["manos"][0].split()
    assert sorted(dets.ids) == sorted(truth)


def test_no_cards_on_an_empty_table():
    from vision.reader import read_cards
    from vision.synth import make_background

    img = make_background(np.random.default_rng(0), "felt", 960, 1280)
    dets = read_cards(img)
    assert len(dets) == 0 and dets.asientos is None and dets.avisos


def test_annotation_draws_on_a_copy():
    from vision.draw import annotate
    from vision.reader import load_image, read_cards

    img = load_image(EXAMPLE)
    dets = read_cards(img)
    out = annotate(img, dets)
    assert out.shape == img.shape and not np.array_equal(out, img)


def test_a_wrong_card_without_a_flag_is_a_silent_error():
    """The evaluation's `mesas_mal_sin_aviso`: a seated table whose wrong card is not flagged
    would give a wrong tanteo with no warning; once the wrong card is flagged it is not silent."""
    from vision.evaluate import _unflagged_error
    from vision.reader import read_cards

    dets = read_cards(str(EXAMPLE))
    truth = [h.split() for h in json.loads(EXAMPLE_TRUTH.read_text())["manos"]]
    assert dets.asientos is not None and not _unflagged_error(dets, truth)
    wrong = dets.seat == 0
    k = int(np.nonzero(wrong)[0][0])
    other = truth[2][0]  # a card of the top hand read in the bottom hand
    dets.card_ids[k] = other
    dets.low_confidence[:] = False
    assert _unflagged_error(dets, truth)
    dets.low_confidence[k] = True
    assert not _unflagged_error(dets, truth)


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_the_evaluation_reports_every_figure_of_the_readme():
    from vision.evaluate import evaluate
    from vision.reader import CardReader

    res = evaluate(CardReader(), DECKS[0], 2)
    for key in ("cartas_bien", "mesas_exactas", "mesas_con_asientos", "mesas_mal_sin_aviso", "mesas_baraja_desconocida",
                "precision_media_por_carta", "recall_media_por_carta"):
        assert 0.0 <= res[key] <= 1.0, key
    assert 0.0 <= res["detector"]["mAP50-95"] <= res["detector"]["mAP50"] <= 1.0
    assert res["escenas"] == 2 and len(res["por_carta"]) == 40
    assert 0.0 <= res["dudosas_por_mesa"] <= 16.0
    # the flag count follows the reader's threshold: with every card under it, all are counted
    every = evaluate(CardReader(low_confidence=1.01), DECKS[0], 1)
    assert every["dudosas_por_mesa"] >= 12 > res["dudosas_por_mesa"]


def test_a_deck_unlike_the_known_ones_flags_every_card(monkeypatch):
    """The bundled table is a known design: no warning. With the bar raised above its mean
    class probability the table reads as an unknown deck: every card flagged, and the user is
    told to register the deck; a registered deck is never called unfamiliar."""
    import vision.reader as reader_module
    from vision.reader import UNFAMILIAR_WARNING, CardReader, load_image

    image = load_image(REPO / "examples" / "mesa.jpg")
    dets = CardReader().read(image)
    assert UNFAMILIAR_WARNING not in dets.avisos and not dets.low_confidence.all()
    monkeypatch.setattr(reader_module, "UNFAMILIAR_DECK", 0.999)
    dets = CardReader().read(image)
    assert UNFAMILIAR_WARNING in dets.avisos and dets.low_confidence.all()
    assert dets.asientos is not None  # the seats are still given, to correct card by card
    reader = CardReader()
    reader.baraja = object()  # any registration: the similarities are not class probabilities
    assert not reader._unfamiliar(np.full(16, 0.1))
    assert not CardReader()._unfamiliar(np.full(4, 0.1))  # a close-up of one hand: too few


@pytest.mark.skipif(not (models_dir() / "carta_idx.onnx").is_file(), reason="no index reader")
def test_the_corner_index_reads_the_ranks_of_the_bundled_example_and_sharpens_the_truth():
    """On the bundled photo (read exactly, above) the corner-index reader gives the true rank of
    14 of the 16 cards (measured once; about 69 % of Fournier validation cards), and multiplying
    by it raises the mean probability of the true cards (0.92 -> 0.98 measured)."""
    from scoring.cards import CARD_IDS
    from vision.indice import RANKS
    from vision.reader import CardReader, load_image

    truth = json.loads(EXAMPLE_TRUTH.read_text())
    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    assert sorted(dets.ids) == sorted(" ".join(truth["manos"]).split())
    ranks = reader.rank_probabilities(img, dets.obb)
    right = sum(RANKS[k] == c[:-1] for k, c in zip(ranks.argmax(1), dets.card_ids, strict=True))
    assert right >= 12
    look, *_ = reader.classify_parts(img, dets.obb)
    true = [CARD_IDS.index(c) for c in dets.card_ids]
    rows = np.arange(len(true))
    reader.pinta_weight = 0  # the index alone
    assert reader.classify(img, dets.obb)[rows, true].mean() > look[rows, true].mean()
    reader.index_weight = 0
    assert np.array_equal(reader.classify(img, dets.obb), look)


@pytest.mark.skipif(not (models_dir() / "carta_palo.onnx").is_file(), reason="no pinta reader")
def test_the_pintas_give_the_suits_of_the_bundled_example_and_sharpen_the_truth():
    """On the bundled photo the pinta reader gives the true suit of every card (measured once:
    16 of 16; about 91 % of validation cards), and multiplying by it raises the mean probability
    of the true cards (0.92 -> 0.97 measured, without the index); switched off, the reading is
    the classifier's and the index's alone."""
    from scoring.cards import CARD_IDS
    from vision.pintas import SUITS
    from vision.reader import CardReader, load_image

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    suits = reader.suit_probabilities(img, dets.obb)
    right = sum(SUITS[k] == c[-1] for k, c in zip(suits.argmax(1), dets.card_ids, strict=True))
    assert right >= 14
    look, _, suits_again = reader.classify_parts(img, dets.obb)
    assert np.allclose(suits, suits_again, atol=1e-6)
    true = [CARD_IDS.index(c) for c in dets.card_ids]
    rows = np.arange(len(true))
    reader.index_weight = 0  # the pintas alone
    assert reader.classify(img, dets.obb)[rows, true].mean() > look[rows, true].mean()
    reader.pinta_weight = 0
    assert np.array_equal(reader.classify(img, dets.obb), look)


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="no CPU affinity here")
def test_the_reader_uses_two_threads_only_where_it_may_use_two_cores():
    import subprocess
    import sys

    code = ("import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "import vision.reader as r; print(r.DEFAULT_THREADS, r.CardReader().threads)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["1", "1"]


def test_the_classifier_reads_each_card_both_ways_up_unless_told_not_to(monkeypatch):
    """Both ways up (the default): the classifier gets each crop and the crop turned half a
    turn, and the reading averages the two; one way: only the crops, their softmax as is."""
    from vision.reader import CardReader, _softmax, load_image

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    dets = reader.read(img)
    seen: list[np.ndarray] = []
    run = reader.run_classifier

    def spy(crops):
        seen.append(crops)
        return run(crops)

    monkeypatch.setattr(reader, "run_classifier", spy)
    both, _, _ = reader.classify_parts(img, dets.obb)
    assert len(seen[-1]) == 2 * len(dets) and np.array_equal(seen[-1][len(dets):], seen[-1][:len(dets)][:, ::-1, ::-1])
    up, down = (_softmax(run(c)[0]) for c in (seen[-1][:len(dets)], seen[-1][len(dets):]))
    assert np.allclose(both, (up + down) / 2, atol=1e-6)
    reader.both_ways = False
    one, _, _ = reader.classify_parts(img, dets.obb)
    assert len(seen[-1]) == len(dets)
    assert np.allclose(one, up, atol=1e-6) and not np.allclose(one, both, atol=1e-3)


def test_on_an_unfamiliar_deck_the_pintas_weigh_more(monkeypatch):
    """A table of an unfamiliar deck is read again with the pinta reader at
    UNFAMILIAR_PINTA_WEIGHT; a familiar one is not. Driven by a pinta reader that calls every
    card oros and a weight so large that only the pintas count: ten oros at most in a deck."""
    import vision.reader as reader_module
    from vision.reader import UNFAMILIAR_WARNING, CardReader, load_image

    image = load_image(EXAMPLE)

    def all_oros(img, obbs, cards=None):
        return np.tile([0.97, 0.01, 0.01, 0.01], (len(obbs), 1))

    monkeypatch.setattr(reader_module, "UNFAMILIAR_PINTA_WEIGHT", 50.0)
    familiar = CardReader()
    monkeypatch.setattr(familiar, "suit_probabilities", all_oros)
    ids = [str(c) for c in familiar.read(image).card_ids]
    assert sum(c.endswith("o") for c in ids) < 10  # weight 0.5: the classifier still counts
    monkeypatch.setattr(reader_module, "UNFAMILIAR_DECK", 0.999)
    unfamiliar = CardReader()
    monkeypatch.setattr(unfamiliar, "suit_probabilities", all_oros)
    dets = unfamiliar.read(image)
    assert UNFAMILIAR_WARNING in dets.avisos and dets.low_confidence.all()
    assert sum(str(c).endswith("o") for c in dets.card_ids) == 10
    assert len(set(map(str, dets.card_ids))) == len(dets)  # still each card once


def test_the_unfamiliar_deck_check_ignores_the_corner_index(monkeypatch):
    """Whether a table looks like a known deck is the classifier's judgement alone: a rank
    reader that is sure of every rank (with the shipped pinta reader) sharpens the
    probabilities, and must not hide the warning (on validation tables of an unseen design
    it hid it on 30-40 % of the tables)."""
    import vision.reader as reader_module
    from scoring.cards import CARD_IDS
    from vision.indice import RANKS
    from vision.reader import UNFAMILIAR_WARNING, CardReader, load_image

    image = load_image(EXAMPLE)
    reader, plain = CardReader(), CardReader()
    plain.index_weight = plain.pinta_weight = 0
    look, *_ = plain.classify_parts(image, plain.detect(image)[0])
    mean_look = float(look.max(1).mean())

    def sure_of_every_rank(img, obbs, cards=None):  # the rank of the classifier's first choice, for certain
        probs, *_ = plain.classify_parts(img, obbs)
        out = np.full((len(obbs), len(RANKS)), 1e-6)
        out[np.arange(len(obbs)), [RANKS.index(CARD_IDS[k][:-1]) for k in probs.argmax(1)]] = 1
        return out / out.sum(1, keepdims=True)

    monkeypatch.setattr(reader, "rank_probabilities", sure_of_every_rank)
    monkeypatch.setattr(reader_module, "UNFAMILIAR_DECK", min(0.999, mean_look + 0.01))
    both = reader.classify(image, reader.detect(image)[0])
    assert both.max(1).mean() > mean_look + 0.01  # the index alone would have cleared the bar
    dets = reader.read(image)
    assert UNFAMILIAR_WARNING in dets.avisos and dets.low_confidence.all()


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_the_evaluation_command_swaps_or_drops_the_index_reader(tmp_path, capsys, monkeypatch):
    """`vision.evaluate --indice F` reads with that index model, `--sin-indice` without any,
    `--particion val` on the validation tables; the same for the pinta reader (`--pintas F`,
    `--sin-pintas`, `--peso-pintas W`), and the output says which weights were used."""
    from vision import evaluate as ev

    seen = []
    real = ev.evaluate

    def spy(reader, deck, n, seed=0, **kw):
        idx, pinta = reader.folder / "carta_idx.onnx", reader.folder / "carta_palo.onnx"
        seen.append((reader.index_reader is not None, idx.is_file() and idx.read_bytes(), kw["split"],
                     reader.pinta_reader is not None, pinta.is_file() and pinta.read_bytes(),
                     reader.pinta_weight, reader.folder))
        return real(reader, deck, n, seed, **kw)

    monkeypatch.setattr(ev, "evaluate", spy)
    other, other_pinta = tmp_path / "otro.onnx", tmp_path / "otro_palo.onnx"
    other.write_bytes((models_dir() / "carta_idx.onnx").read_bytes())
    other_pinta.write_bytes((models_dir() / "carta_palo.onnx").read_bytes())
    assert ev.main(["--escenas", "1", "--indice", str(other), "--particion", "val"]) == 0
    capsys.readouterr()
    assert ev.main(["--escenas", "1", "--sin-indice", "--pintas", str(other_pinta), "--peso-pintas", "0.7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["peso_indice"] == 0 and out["peso_pintas"] == 0.7
    assert ev.main(["--escenas", "1", "--sin-pintas"]) == 0
    capsys.readouterr()
    assert seen[0][:3] == (True, other.read_bytes(), "val") and seen[0][3]
    assert seen[1][0] is False and seen[1][2] == "eval"
    assert seen[1][3:6] == (True, other_pinta.read_bytes(), 0.7)
    assert seen[2][0] is True and seen[2][3] is False
    # a swapped model is read from a folder of copies, never from models/ itself
    assert seen[0][6] != models_dir() and seen[1][6] != models_dir() and seen[2][6] == models_dir()


def test_a_photo_turned_a_quarter_is_read_the_same_with_boxes_turned_too():
    """A portrait photo is letterboxed the other way: the boxes come back in the photo's own
    pixels, whichever the orientation, and name the same cards."""
    import cv2

    from vision.reader import CardReader, load_image

    reader = CardReader().load()
    img = load_image(EXAMPLE)
    turned = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)  # (x, y) -> (h - 1 - y, x)
    a, b = reader.read(img), reader.read(turned)
    assert sorted(a.ids) == sorted(b.ids) and len(a) == 16
    h = img.shape[0]
    for card, box in zip(a.ids, a.obb, strict=True):
        other = b.obb[list(b.ids).index(card)]
        assert np.hypot(other[0] - (h - 1 - box[1]), other[1] - box[0]) < 0.1 * min(box[2:4]), card


def test_the_evaluation_command_generates_photos_of_the_size_asked(capsys, monkeypatch):
    """`--tamano WxH` passes the photo size on (the same tables at another size); a malformed
    size stops at once with exit status 2 and a Spanish message."""
    from vision import evaluate as ev

    sizes = []
    monkeypatch.setattr(ev, "evaluate", lambda reader, deck, n, seed=0, **kw: sizes.append(kw["size"]) or {})
    assert ev.main(["--escenas", "1", "--tamano", "1920x1440"]) == 0
    assert ev.main(["--escenas", "1"]) == 0
    assert sizes == [(1920, 1440), (1280, 960)]
    capsys.readouterr()
    for bad in ("1920", "axb", "10x10", "1x2x3"):
        with pytest.raises(SystemExit) as exc:
            ev.main(["--escenas", "1", "--tamano", bad])
        assert exc.value.code == 2 and "--tamano" in capsys.readouterr().err
