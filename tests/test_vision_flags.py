"""The learned flag model against a registered deck (vision.dudosas)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision import dudosas
from vision.dudosas import FEATURES, ModeloDudas, card_features, fit, fit_logistic, table_stats
from vision.reader import CLS_FILE, DET_FILE, CardReader, models_dir

HAVE_MODELS = (models_dir() / DET_FILE).is_file() and (models_dir() / CLS_FILE).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")


def _model(threshold=0.5, weights=(0, 1, 0, 0, 0, 0), modelos=None, bias=0.0):
    return ModeloDudas(np.zeros(6), np.ones(6), np.array(weights, float), bias, threshold, modelos)


def _registration():
    from vision.baraja import BarajaRegistrada

    return BarajaRegistrada(np.eye(40, 8, dtype=np.float32), np.arange(40))


def test_features_grow_with_doubt():
    """Each feature is larger for the doubtful card of a pair: a weaker box, a less sure card,
    marks less sure of it or preferring another rank or suit."""
    sure = card_features([0.9], [0.999], [[0.95, 0.95]], [[0.99, 0.99]])[0]
    weak = card_features([0.4], [0.6], [[0.2, 0.7]], [[0.3, 0.6]])[0]
    assert sure.shape == (len(FEATURES),)
    assert weak[0] < sure[0] and weak[1] > sure[1]  # log det, log(1 - p)
    assert weak[2] < sure[2] and weak[3] < sure[3]  # the marks' probability of the card
    assert weak[4] > sure[4] == 0 and weak[5] > sure[5] == 0  # another rank / suit preferred
    assert np.isfinite(card_features([0.0], [1.0], [[0.0, 1.0]], [[0.0, 1.0]])).all()


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
    return {"X": np.asarray(X, float), "wrong": np.asarray(wrong), "changed": np.asarray(changed),
            "table": np.asarray(table), "seated": np.asarray(seated),
            "conf": np.ones(len(wrong))}


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
    assert table_stats(d, flagged)["mesas_con_caja_mal_sin_aviso"] == 0
    must = (wrong > 0) & (seated > 0) & (changed == 0)
    assert model.threshold == pytest.approx(model.probability(X[must]).min())
    assert flagged.sum() < n  # it does not just flag everything


def test_the_threshold_keeps_the_margin_a_case_left_out_needs():
    """Fitted on several cases, the threshold is lowered by how far under it a case left out
    of the fit put its least likely wrong card (never raised)."""
    from vision.dudosas import _fit_once, margin

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
    assert fit(dumps).threshold == pytest.approx(_fit_once(dumps, 1e-2).threshold * m)
    assert margin(dumps[:1]) == 1.0  # one case: nothing to leave out


def test_table_stats_counts_flags_and_silent_tables():
    d = _dump(np.zeros((4, 6)), [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0])
    s = table_stats(d, np.array([True, False, False, False]))
    assert s == {"mesas": 2, "dudosas_por_mesa": 0.5, "dudosas_bien_por_mesa": 0.5,
                 "mesas_con_caja_mal_sin_aviso": 1}  # table 1 has no seats: a warning already


def test_a_model_round_trips_and_bad_files_are_clear_errors(tmp_path):
    m = _model(0.3, modelos={"carta_cls.onnx": "abc"})
    path = m.save(tmp_path / "d.json")
    back = dudosas.load(path)
    assert back.threshold == 0.3 and back.modelos == {"carta_cls.onnx": "abc"}
    X = np.random.default_rng(2).normal(0, 1, (20, 6))
    assert (back.probability(X) == m.probability(X)).all()
    assert not list(tmp_path.glob(".dudas-*"))
    bad = json.loads(path.read_text())
    bad["rasgos"] = ["otro"]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "junk.json").write_text("{")
    for name in ("bad.json", "junk.json", "none.json"):
        with pytest.raises(ValueError, match="modelo de dudas"):
            dudosas.load(tmp_path / name)


def test_a_model_fitted_with_other_model_files_is_not_used(tmp_path):
    (tmp_path / CLS_FILE).write_bytes(b"classifier one")
    own = dudosas.models_hashes(tmp_path)
    _model(modelos=own).save(tmp_path / dudosas.FLAG_FILE)
    assert dudosas.for_folder(tmp_path) is not None
    (tmp_path / CLS_FILE).write_bytes(b"classifier two, retrained")
    assert dudosas.for_folder(tmp_path) is None  # the product threshold, safe with any models
    (tmp_path / dudosas.FLAG_FILE).write_text("not json")
    assert dudosas.for_folder(tmp_path) is None


def test_the_reader_flags_by_the_model_only_against_a_registered_deck():
    model = _model(threshold=0.5, bias=np.log(10))  # flags the cards under 0.9, whatever the box
    det = np.float32([0.5, 0.95, 0.99])
    cls = np.float32([0.99999, 0.85, 0.95])
    data = {"indice": np.ones((3, 2), np.float32), "pintas": np.ones((3, 2), np.float32)}
    reader = CardReader(folder="/nonexistent", baraja=_registration(), dudas=model)
    assert reader.flag_model is model
    assert reader._doubtful(det, cls, data).tolist() == [False, True, False]
    # without the marks' probabilities, or with dudas=False, or a threshold given: the product
    product = [True, True, False]  # det x card under LOW_CONFIDENCE_REGISTERED (0.9)
    assert reader._doubtful(det, cls, {}).tolist() == product
    reader.dudas = False
    assert reader.flag_model is None and reader._doubtful(det, cls, data).tolist() == product
    fixed = CardReader(folder="/nonexistent", baraja=_registration(), dudas=model,
                       low_confidence=0.9)
    assert fixed.flag_model is None
    assert CardReader(folder="/nonexistent", dudas=model).flag_model is None  # not registered


def test_a_swapped_duplicate_brings_its_marks_along():
    """When a box read twice gives way to a left-out one, the rank and suit probabilities of
    the kept boxes follow them (they feed the flag model)."""
    from tests.test_vision_seats import _one_hot_reader, _table_obb

    table = _table_obb()
    ids = {(float(b[0]), float(b[1])): k for k, b in enumerate(table)}
    reader = _one_hot_reader(ids)
    plain = reader.classify_parts

    def with_marks(image, obbs):
        probs, _, _ = plain(image, obbs)
        ranks = np.repeat(obbs[:, :1] / 1000, 10, 1)  # a mark "probability" tied to the box
        return probs, ranks, np.repeat(obbs[:, 1:2] / 1000, 4, 1)

    reader.classify_parts = with_marks
    twice = table[1] + np.float32([6, 4, 0, 0, 0.05])
    boxes = np.concatenate([table[[0, 1]], twice[None], table[3:]])
    scores = np.float32([0.9, 0.9, 0.5] + [0.9] * 13)
    cand_b = np.concatenate([boxes, table[2:3]])
    cand_s = np.concatenate([scores, np.float32([0.3])])
    parts = reader.classify_parts(None, boxes)
    from vision.reader import combine_marks

    probs = combine_marks(*parts, 0.5, 0.5)
    new_b, _, new_parts, _ = reader._replace_duplicates(None, boxes, scores, parts, probs,
                                                        cand_b, cand_s)
    assert any(np.allclose(b, table[2]) for b in new_b)  # the left-out card came in
    assert np.allclose(new_parts[1][:, 0], new_b[:, 0] / 1000)
    assert np.allclose(new_parts[2][:, 0], new_b[:, 1] / 1000)


@needs_models
def test_the_shipped_flag_model_belongs_to_the_shipped_models():
    """models/carta_dudas.json was fitted with the models in models/: retraining them without
    fitting it again (python -m vision.dudosas ajustar) would silently switch it off."""
    model = dudosas.for_folder(models_dir())
    assert model is not None and 0 < model.threshold < 1
    assert CardReader(baraja=_registration_of_models()).flag_model is model


def _registration_of_models():
    from dataclasses import replace

    from vision.baraja import classifier_hash

    return replace(_registration(), modelo=classifier_hash(models_dir()))


@needs_models
def test_the_example_table_read_against_its_registration_flags_by_the_model():
    from vision.baraja import registrar
    from vision.reader import REPO, load_image

    photos = [REPO / "examples" / "baraja" / f"{s}.jpg" for s in ("oros", "copas", "espadas",
                                                                   "bastos")]
    baraja, _ = registrar(CardReader(), photos)
    dets = CardReader(baraja=baraja).read(load_image(REPO / "examples" / "mesa.jpg"))
    assert set(dets.data) == {"indice", "pintas"} and dets.data["indice"].shape == (16, 2)
    X = card_features(dets.det_confidence, dets.cls_confidence, dets.data["indice"],
                      dets.data["pintas"])
    model = dudosas.for_folder(models_dir())
    assert (dets.low_confidence >= model.flagged(X)).all()
    assert dets[dets.low_confidence].data["indice"].shape == (int(dets.low_confidence.sum()), 2)


@needs_models
def test_the_commands_dump_fit_and_measure(tmp_path, capsys):
    """`volcar` reads generated tables (registered or not) through the real reader, `ajustar`
    fits on the dumps and `medir` scores the model against the product rule."""
    reg, plain = tmp_path / "reg.npz", tmp_path / "plain.npz"
    assert dudosas.main(["volcar", "fournier1878-pd", "--escenas", "2", "--out", str(reg)]) == 0
    assert dudosas.main(["volcar", "fournier1878-pd", "--escenas", "2", "--sin-registrar",
                         "--out", str(plain)]) == 0
    for path in (reg, plain):
        d = dudosas._load_dump(path)
        n = len(d["wrong"])
        assert 16 <= n <= 40 and d["X"].shape == (n, 6) and set(np.unique(d["table"])) == {0, 1}
        assert ((d["conf"] > 0) & (d["conf"] <= 1)).all()
        assert bool(d["registrada"]) == (path == reg)
    out = tmp_path / "dudas.json"
    assert dudosas.main(["ajustar", str(reg), str(plain), "--out", str(out)]) == 0
    assert dudosas.load(out).modelos == dudosas.models_hashes(models_dir())
    capsys.readouterr()
    assert dudosas.main(["medir", str(reg), "--modelo", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)["reg.npz"]
    assert res["modelo"]["mesas"] == 2 and "dudosas_por_mesa" in res["producto"]
