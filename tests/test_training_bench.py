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
