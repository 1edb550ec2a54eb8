"""Fitting, dumping and measuring the learned flag model (training.cards.flag_model)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.cards import flag_model
from training.cards.decks import DECKS, decks_root
from training.cards.flag_model import fit, fit_logistic, fit_once, margin, measure, table_stats
from vision.flags import LOW_CONFIDENCE, LOW_CONFIDENCE_REGISTERED, FlagModel, load
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir, models_hashes

HAVE_MODELS = (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()


def test_the_fitted_model_ranks_wrong_cards_above_right_ones():
    rng = np.random.default_rng(0)
    right = np.c_[rng.normal(0, 1, (300, 1)), rng.normal(-6, 1, (300, 1)), rng.normal(0, 1, (300, 4))]
    wrong = np.c_[rng.normal(-1, 1, (30, 1)), rng.normal(-2, 1, (30, 1)), rng.normal(0, 1, (30, 4))]
    X, y = np.r_[right, wrong], np.r_[np.zeros(300), np.ones(30)]
    mean, scale, w, b = fit_logistic(X, y)
    p = 1 / (1 + np.exp(-(((X - mean) / scale) @ w + b)))
    assert p[y == 1].mean() > 5 * p[y == 0].mean()
    assert w[1] > 0 and w[0] < 0  # less sure of the card, weaker box: more likely wrong


def _dump(X, wrong, changed, table, seated):
    return {
        "X": np.asarray(X, float),
        "wrong": np.asarray(wrong),
        "changed": np.asarray(changed),
        "table": np.asarray(table),
        "seated": np.asarray(seated),
        "conf": np.ones(len(wrong)),
    }


def test_the_threshold_reaches_every_wrong_card_of_a_seated_table():
    """No validation table read with seats is left wrong without a flag; wrong cards of tables
    without seats (already warned) or moved by the assignment (already flagged) do not lower
    the threshold."""
    rng = np.random.default_rng(1)
    n = 400
    X = rng.normal(0, 1, (n, 6))
    wrong = (X[:, 1] + rng.normal(0, 1, n) > 1.5).astype(int)
    table = np.arange(n) // 16
    seated = (table % 5 != 0).astype(int)
    changed = np.zeros(n, int)
    changed[np.flatnonzero(wrong)[:3]] = 1
    d = _dump(X, wrong, changed, table, seated)
    model = fit([d])
    flagged = model.flagged(X) | (changed > 0)
    assert table_stats(d, flagged)["mesas_mal_sin_aviso"] == 0
    must = (wrong > 0) & (seated > 0) & (changed == 0)
    assert model.threshold == pytest.approx(model.probability(X[must]).min())
    assert flagged.sum() < n  # it does not just flag everything


def test_the_threshold_keeps_the_margin_a_case_left_out_needs():
    """Fitted on several cases, the threshold is lowered by how far under it a case left out
    of the fit put its least likely wrong card (never raised)."""
    rng = np.random.default_rng(3)
    dumps = []
    for shift in (0.0, 0.0, -1.0):  # the third case's wrong cards look surer than the others'
        n = 320
        X = rng.normal(0, 1, (n, 6))
        wrong = (X[:, 1] + rng.normal(0, 1, n) > 1.5 + shift).astype(int)
        X[wrong > 0, 1] += shift
        dumps.append(_dump(X, wrong, np.zeros(n, int), np.arange(n) // 16, np.ones(n, int)))
    m = margin(dumps)
    assert 0 < m < 1
    assert fit(dumps).threshold == pytest.approx(fit_once(dumps).threshold * m)
    assert margin(dumps[:1]) == 1.0  # one case: nothing to leave out


def test_table_stats_counts_flags_and_silent_tables():
    d = _dump(np.zeros((4, 6)), [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0])
    s = table_stats(d, np.array([True, False, False, False]))
    assert s == {
        "mesas": 2,
        "dudosas_por_mesa": 0.5,
        "dudosas_bien_por_mesa": 0.5,
        "mesas_mal_sin_aviso": 1,
    }  # table 1 has no seats: a warning already
    # a close-up of one hand is one seat's photo: its wrong card counts without seats
    hand = {**d, "tipo": np.array("mano")}
    assert table_stats(hand, np.array([True, False, False, False]))["mesas_mal_sin_aviso"] == 2
    assert flag_model._must_cover(hand).tolist() == [False, True, False, True]
    assert flag_model._must_cover(d).tolist() == [False, True, False, False]


def test_measure_compares_with_the_product_rule_the_dump_was_read_under():
    """A registered deck's dump against LOW_CONFIDENCE_REGISTERED, another against
    LOW_CONFIDENCE; a dump without the flag counts as registered."""
    d = _dump(np.zeros((2, 6)), [0, 0], [0, 0], [0, 0], [1, 1])
    d["conf"] = np.array([(LOW_CONFIDENCE + LOW_CONFIDENCE_REGISTERED) / 2, 0.99])
    never = FlagModel(np.zeros(6), np.ones(6), np.zeros(6), 0.0, 1.0)  # probability 0.5 < 1
    assert measure(never, d)["producto"]["dudosas_por_mesa"] == 1
    assert measure(never, {**d, "registrada": np.array(True)})["producto"]["dudosas_por_mesa"] == 1
    assert measure(never, {**d, "registrada": np.array(False)})["producto"]["dudosas_por_mesa"] == 0
    assert measure(never, d)["modelo"]["dudosas_por_mesa"] == 0


def test_measure_at_other_thresholds_and_the_right_flags_of_cards_in_view():
    """`medir --umbrales`: the model's flags at other thresholds than its own, with the tables
    each would leave wrong without a warning; right cards flagged on cards in view apart."""
    X = np.zeros((4, 6))
    X[:, 1] = [-3.0, 0.0, 3.0, -1.0]  # the model below: probabilities rising with this number
    d = _dump(X, [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1])
    d["visible"] = np.array([1.0, 0.4, 0.9, 1.0])
    model = FlagModel(np.zeros(6), np.ones(6), np.array([0, 1, 0, 0, 0, 0.0]), 0.0, 0.01)
    res = measure(model, d, (0.2, 0.6))
    assert res["modelo"]["dudosas_bien_por_mesa"] == 1.5 and res["modelo"]["mesas_mal_sin_aviso"] == 0
    assert res["modelo"]["dudosas_bien_a_la_vista_por_mesa"] == 1.0  # the card 40 % in view apart
    assert res["modelo_umbral_0.2"]["dudosas_bien_por_mesa"] == 1.0  # p = 0.05 no longer flagged
    assert res["modelo_umbral_0.2"]["mesas_mal_sin_aviso"] == 0  # the wrong card: p = 0.27
    assert res["modelo_umbral_0.6"]["dudosas_bien_por_mesa"] == 0.5
    assert res["modelo_umbral_0.6"]["mesas_mal_sin_aviso"] == 1  # fewer flags, one table silent
    assert (
        "dudosas_bien_a_la_vista_por_mesa" not in measure(model, _dump(X, [0] * 4, [0] * 4, [0] * 4, [1] * 4))["modelo"]
    )


def test_a_case_names_a_deck_or_a_deck_and_three_models(tmp_path):
    deck, reader = flag_model.reader_for_case("fournier1878-pd")
    assert deck == "fournier1878-pd" and reader.folder == models_dir()
    other = tmp_path / "otro.onnx"
    other.write_bytes(b"not a model: only copied")
    deck, reader = flag_model.reader_for_case(f"naipes:{other}:{other}:{other}")
    assert deck == "naipes" and reader.folder != models_dir()
    assert (reader.folder / CLASSIFIER_FILE).read_bytes() == other.read_bytes()
    with pytest.raises(ValueError, match="caso"):
        flag_model.reader_for_case(f"naipes:{other}")


@pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")
@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_the_commands_dump_fit_and_measure(tmp_path, capsys):
    """`volcar` reads generated tables (registered or not) through the real reader, `ajustar`
    fits on the dumps and `medir` scores the model against the product rule."""
    reg, plain = tmp_path / "reg.npz", tmp_path / "plain.npz"
    assert flag_model.main(["volcar", DECKS[0], "--escenas", "2", "--salida", str(reg)]) == 0
    assert flag_model.main(["volcar", DECKS[0], "--escenas", "2", "--sin-registrar", "--salida", str(plain)]) == 0
    for path in (reg, plain):
        d = flag_model.load_dump(path)
        n = len(d["wrong"])
        assert 16 <= n <= 40 and d["X"].shape == (n, 6) and set(np.unique(d["table"])) == {0, 1}
        assert ((d["conf"] > 0) & (d["conf"] <= 1)).all()
        assert bool(d["registrada"]) == (path == reg)
    out = tmp_path / "dudas.json"
    assert flag_model.main(["ajustar", str(reg), str(plain), "--salida", str(out)]) == 0
    assert load(out).models == models_hashes(models_dir())
    hand = tmp_path / "mano.npz"
    assert flag_model.main(["volcar", DECKS[0], "--escenas", "3", "--tipo", "mano", "--salida", str(hand)]) == 0
    d = flag_model.load_dump(hand)
    assert str(d["tipo"]) == "mano" and str(d["baraja"]) == DECKS[0] and len(d["wrong"]) >= 3
    assert (d["seated"] == 0).all()
    capsys.readouterr()
    assert flag_model.main(["medir", str(reg), "--modelo", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)["reg.npz"]
    assert res["modelo"]["mesas"] == 2 and "dudosas_por_mesa" in res["producto"]
    d = flag_model.load_dump(reg)
    assert d["visible"].shape == d["table"].shape and (d["visible"] <= 1).all()
    assert ((d["visible"] >= 0) | (d["wrong"] > 0)).all()  # -1 only for a box on no card


def _reading(ids, seats, boxes=None, conf=None):
    from vision.detections import CardDetections

    n = len(ids)
    obb = np.asarray(boxes if boxes is not None else [(100 * k + 50, 50, 40, 60, 0) for k in range(n)], np.float32)
    c = np.asarray(conf if conf is not None else np.full(n, 0.9), np.float32)
    return CardDetections(
        np.zeros((n, 4), np.float32),
        obb,
        np.array(ids, object),
        c,
        c.copy(),
        np.ones(n, np.float32),
        np.array(ids, object),
        np.zeros(n, bool),
        np.asarray(seats, np.int8),
    )


def _scene(ids, seats, boxes):
    from training.cards.synth import Scene

    corners = np.array(
        [
            [(x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2, y + h / 2), (x - w / 2, y + h / 2)]
            for x, y, w, h, _ in boxes
        ],
        np.float32,
    )
    return Scene(np.zeros((10, 10, 3), np.uint8), corners, list(ids), list(seats), "mesa", "x", "d")


def test_a_card_is_wrong_when_its_hand_is_wrong_not_when_its_box_is_a_little_off():
    """What the flag model must catch is what the player would be told wrong: a card not in the
    hand of its seat, or a card boxed twice in one hand; a box off its card that names a card
    of that hand leaves the hand right."""
    ids = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4)]
    seats = [k // 4 for k in range(16)]
    boxes = [(100 * k + 50, 50, 40, 60, 0) for k in range(16)]
    scene = _scene(ids, seats, boxes)
    read = list(ids)
    off = [list(b) for b in boxes]
    off[0][0] += 30  # box 0 far off its card, still named "1o": right in its hand
    read[5] = "7c"  # not in seat 1's hand
    read[10] = "1e"  # "1e" twice in seat 2: the less sure one is the box too many
    conf = np.full(16, 0.9)
    conf[10] = 0.5
    got = flag_model.wrong_in_hand(_reading(read, seats, off, conf), scene, "mesa")
    assert np.flatnonzero(got).tolist() == [5, 10]
    # read without seats (a warning already): a box off its card is wrong
    unseated = _reading(read, [-1] * 16, off, conf)
    assert np.flatnonzero(flag_model.wrong_in_hand(unseated, scene, "mesa")).tolist() == [0, 5, 10]
    # a close-up of one hand: the photo's cards are the hand
    hand = _scene(ids[:4], [0] * 4, boxes[:4])
    assert flag_model.wrong_in_hand(_reading(["1o", "2o", "3o", "5o"], [-1] * 4), hand, "mano").tolist() == [
        False,
        False,
        False,
        True,
    ]
