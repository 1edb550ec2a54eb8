"""The evaluation command (training.cards.evaluate) on generated tables, with the shipped models."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.cards.decks import DECKS, decks_root
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

REPO = __import__("pathlib").Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
EXAMPLE_TRUTH = REPO / "examples" / "mesa.json"

pytestmark = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)


def test_a_wrong_card_without_a_flag_is_a_silent_error():
    """The evaluation's `mesas_mal_sin_aviso`: a seated table whose wrong card is not flagged
    would give a wrong tanteo with no warning; once the wrong card is flagged it is not silent."""
    from training.cards.evaluate import _unflagged_error
    from vision.reader import read_cards

    dets = read_cards(str(EXAMPLE))
    truth = [h.split() for h in json.loads(EXAMPLE_TRUTH.read_text())["manos"]]
    assert dets.hands is not None and not _unflagged_error(dets, truth)
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
    from training.cards.evaluate import evaluate
    from vision.reader import CardReader, ReaderSettings

    res = evaluate(CardReader(), DECKS[0], 2)
    for key in (
        "cartas_bien",
        "mesas_exactas",
        "mesas_con_asientos",
        "mesas_mal_sin_aviso",
        "mesas_baraja_desconocida",
        "precision_media_por_carta",
        "recall_media_por_carta",
    ):
        assert 0.0 <= res[key] <= 1.0, key
    assert 0.0 <= res["detector"]["mAP50-95"] <= res["detector"]["mAP50"] <= 1.0
    assert res["escenas"] == 2 and len(res["por_carta"]) == 40
    assert 0.0 <= res["dudosas_por_mesa"] <= 16.0
    # the right cards among the flagged, and the wrong ones left unflagged (never acceptable)
    assert 0.0 <= res["bien_dudosas_por_mesa"] <= res["dudosas_por_mesa"]
    assert res["cartas_mal_sin_aviso"] == 0
    # the flag count follows the reader's threshold: with every card under it, all are counted
    every = evaluate(CardReader(settings=ReaderSettings(low_confidence=1.01)), DECKS[0], 1)
    assert every["dudosas_por_mesa"] >= 12 > res["dudosas_por_mesa"]


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_the_evaluation_command_swaps_or_drops_the_index_reader(tmp_path, capsys, monkeypatch):
    """`training.cards.evaluate --indice F` reads with that index model, `--sin-indice` without any,
    `--particion val` on the validation tables; the same for the pinta reader (`--pintas F`,
    `--sin-pintas`, `--peso-pintas W`), and the output says which weights were used."""
    from training.cards import evaluate as ev

    seen = []
    real = ev.evaluate

    def spy(reader, deck, n, seed=0, **kw):
        idx, pinta = reader.folder / "carta_idx.onnx", reader.folder / "carta_palo.onnx"
        seen.append(
            (
                reader.classifier.index_reader is not None,
                idx.is_file() and idx.read_bytes(),
                kw["split"],
                reader.classifier.pinta_reader is not None,
                pinta.is_file() and pinta.read_bytes(),
                reader.settings.pinta_weight,
                reader.folder,
            )
        )
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


def test_the_evaluation_command_generates_photos_of_the_size_asked(capsys, monkeypatch):
    """`--tamano WxH` passes the photo size on (the same tables at another size); a malformed
    size stops at once with exit status 2 and a Spanish message."""
    from training.cards import evaluate as ev

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


@pytest.mark.skipif(not (decks_root() / DECKS[0]).is_dir(), reason="no deck images")
def test_the_evaluation_measures_closeups_empty_tables_and_real_photos_without_cards():
    from training.cards.evaluate import LAYOUTS, evaluate, negatives
    from vision.reader import CardReader

    reader = CardReader()
    closeup = evaluate(reader, DECKS[0], 1, kind="mano", hand_style="fan")
    assert closeup["disposicion"] == "mano" and 0.0 <= closeup["fotos_exactas"] <= 1.0
    assert closeup["cartas_de_mas_por_foto"] >= 0 and closeup["cartas_mal_sin_aviso"] == 0
    assert 0.0 <= closeup["bien_dudosas_por_foto"] <= closeup["dudosas_por_foto"]
    empty = evaluate(reader, DECKS[0], 1, kind="vacia")
    assert empty["cartas_bien"] is None and empty["cartas_perdidas_por_foto"] == 0
    assert {kind for _, kind, _ in LAYOUTS} == {"mesa", "mano", "sueltas", "vacia"}
    res = negatives(reader, ("coffee", "astronaut"))
    assert res["fotos"] == 2 and set(res["por_foto"]) == {"coffee", "astronaut"}
    assert res["sin_cartas"] == sum(v == 0 for v in res["por_foto"].values())
