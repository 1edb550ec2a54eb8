"""The card reader's benchmark times two readers read by read, interleaved."""

from __future__ import annotations

from training.cards.bench import _time_pair


def test_two_readers_are_timed_interleaved_each_photo_by_both():
    calls: list[tuple[str, int]] = []
    images = [10, 11, 12]

    def reader(name):
        return lambda image: calls.append((name, image))

    a, b = _time_pair(reader("a"), reader("b"), images, 4)
    assert len(a) == len(b) == 4
    assert calls[:2] == [("a", 10), ("b", 10)]  # the warm-up
    timed = calls[2:]
    # each photo read by both readers in turn, the first to read it alternating
    assert timed == [("a", 10), ("b", 10), ("b", 11), ("a", 11), ("a", 12), ("b", 12), ("b", 10), ("a", 10)]


def test_stage_times_say_what_each_model_takes_and_leave_the_sessions_as_they_were():
    from pathlib import Path

    import pytest

    import vision.classify
    import vision.detect
    import vision.models
    from training.cards.bench import stage_times
    from vision.images import load_image
    from vision.models import DETECTOR_FILE, models_dir

    if not (models_dir() / DETECTOR_FILE).is_file():
        pytest.skip("the trained models are not in models/")
    before = (vision.models.session, vision.detect.session, vision.classify.session)
    photo = load_image(Path(__file__).resolve().parent.parent / "examples" / "mesa.jpg")
    res = stage_times({"mesa": [photo]}, 2, 1)["mesa"]
    assert res[f"{DETECTOR_FILE}_ms"] > 0 and res["lectura_mediana_ms"] > res[f"{DETECTOR_FILE}_ms"]
    assert any(k.startswith("carta_cls") for k in res)
    assert (vision.models.session, vision.detect.session, vision.classify.session) == before


def test_a_reader_timed_against_another_folder_says_whether_both_read_the_same():
    from types import SimpleNamespace

    import numpy as np

    from training.cards.bench import _against

    def reader(ids, flags):
        read = SimpleNamespace(card_ids=np.array(ids), low_confidence=np.array(flags))
        return SimpleNamespace(read=lambda image: read)

    photos = {"mesa": [1, 2], "primer_plano": [3]}
    same = _against(reader(["1o"], [False]), reader(["1o"], [False]), photos, 2)
    assert same["frente_a_mismas_cartas"] is True
    assert set(same) == {
        "frente_a_mismas_cartas",
        *(f"{k}_{s}_mediana_ms" for k in photos for s in ("intercalado_con_frente_a", "frente_a")),
    }
    assert _against(reader(["1o"], [False]), reader(["1o"], [True]), photos, 2)["frente_a_mismas_cartas"] is False
    assert _against(reader(["1o"], [False]), reader(["2o"], [False]), photos, 2)["frente_a_mismas_cartas"] is False
