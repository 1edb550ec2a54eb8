"""Seat by seat (vision.hands, `mus mano` with four photos) and the registered deck of the data
folder used by default (`mus leer`, `mus mano`, `mus baraja`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.fotos_asiento import fotos_por_asiento
from vision.detections import CardDetections
from vision.hands import HandsError, seat_hands
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "mesa.jpg"
LANCES = REPO / "examples" / "lances.json"
SUIT_PHOTOS = [str(REPO / "examples" / "baraja" / f"{s}.jpg") for s in ("oros", "copas", "espadas", "bastos")]
needs_models = pytest.mark.skipif(
    not ((models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()),
    reason="the trained models are not in models/",
)


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch) -> Path:
    """A data folder of the test's own (never the real home's): the commands find it there."""
    folder = tmp_path / "datos"
    monkeypatch.setenv("MUSMESA_DATA", str(folder))
    return folder


def mus(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "musmesa", *args], capture_output=True, text=True, cwd=REPO, timeout=180
    )


def _photo(ids: list[str], warnings: list[str] | None = None) -> CardDetections:
    n = len(ids)
    one = np.ones(n, np.float32)
    return CardDetections(
        np.zeros((n, 4), np.float32),
        np.zeros((n, 5), np.float32),
        np.array(ids, object),
        one,
        one,
        one,
        np.array(ids, object),
        np.zeros(n, bool),
        np.full(n, -1, np.int8),
        list(warnings or []),
    )


HANDS = [["1o", "2o", "3o", "4o"], ["1c", "2c", "3c", "4c"], ["1e", "2e", "3e", "4e"], ["1b", "2b", "3b", "4b"]]


def test_four_photos_are_the_four_seats_in_order():
    read = seat_hands([(f"p{k}.jpg", _photo(h)) for k, h in enumerate(HANDS)])
    assert read.hands == HANDS and read.warnings == []


def test_a_photo_without_four_cards_is_named():
    photos = [(f"p{k}.jpg", _photo(h)) for k, h in enumerate(HANDS)]
    photos[2] = ("p2.jpg", _photo(["1e", "2e", "3e", "4e", "5e"]))
    with pytest.raises(HandsError, match=r"p2\.jpg \(asiento 2\): se ven 5 cartas \(1e 2e 3e 4e 5e\)"):
        seat_hands(photos)
    photos[2] = ("p2.jpg", _photo([]))
    with pytest.raises(HandsError, match=r"p2\.jpg \(asiento 2\): se ven 0 cartas, una mano son 4"):
        seat_hands(photos)
    with pytest.raises(HandsError, match="se esperan 4 fotos"):
        seat_hands(photos[:3])


def test_a_card_in_two_photos_is_named_with_both_photos():
    photos = [(f"p{k}.jpg", _photo(h)) for k, h in enumerate(HANDS)]
    photos[3] = ("p3.jpg", _photo(["1b", "2b", "3c", "4b"]))
    with pytest.raises(
        HandsError,
        match=r"p3\.jpg \(asiento 3\): la carta 3c ya se ha leído en "
        r"p1\.jpg \(asiento 1\)",
    ):
        seat_hands(photos)


def test_a_photos_warnings_name_it_and_the_seat_step_is_left_out():
    from vision.seats import NOT_16

    photos = [(f"p{k}.jpg", _photo(h)) for k, h in enumerate(HANDS)]
    photos[1] = ("p1.jpg", _photo(HANDS[1], [NOT_16.format(n=4), "confirma las cartas dudosas: 2c"]))
    assert seat_hands(photos).warnings == ["p1.jpg (asiento 1): confirma las cartas dudosas: 2c"]


@pytest.fixture(scope="module")
def hand_photos(tmp_path_factory) -> list[str]:
    """The example table as four photos, one hand each, in seat order."""
    return [str(p) for p in fotos_por_asiento(tmp_path_factory.mktemp("manos"))]


@needs_models
def test_mano_with_four_hand_photos_gives_the_table_of_one_photo(hand_photos):
    one = mus("mano", str(EXAMPLE), "--mano", "0", "--lances", str(LANCES), "--json")
    four = mus("mano", *hand_photos, "--mano", "0", "--lances", str(LANCES), "--json")
    assert one.returncode == 0 and four.returncode == 0, four.stderr
    a, b = json.loads(one.stdout), json.loads(four.stdout)
    assert [sorted(h.split()) for h in a["manos"]] == [sorted(h.split()) for h in b["manos"]]
    assert a["ganadores"] == b["ganadores"]
    text = mus("mano", *hand_photos, "--mano", "2")
    assert text.returncode == 0 and "asiento2.jpg" in text.stdout
    assert "asiento 2 (arriba): " in text.stdout and "(mano)" in text.stdout.split("asiento 2")[1]


@needs_models
@pytest.mark.parametrize("as_json", [False, True])
def test_mano_refuses_photos_that_are_not_four_hands(hand_photos, as_json):
    flags = ["--json"] if as_json else []
    res = mus("mano", hand_photos[0], hand_photos[0], *hand_photos[2:], "--mano", "0", *flags)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "asiento1.jpg" not in res.stderr and "ya se ha leído en" in res.stderr
    assert "(asiento 1)" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = mus("mano", str(EXAMPLE), *hand_photos[1:], "--mano", "0", *flags)
    assert res.returncode == 2 and "mesa.jpg (asiento 0): se ven 16 cartas" in res.stderr
    res = mus("mano", *hand_photos[:2], "--mano", "0", *flags)
    assert res.returncode == 2 and "una foto de la mesa o 4" in res.stderr
    if as_json:
        assert "error" in json.loads(res.stdout)


def test_the_default_deck_is_in_the_data_folder(data_folder):
    from common.files import default_data_dir
    from vision.registered_deck import default_deck_path

    assert default_data_dir() == data_folder
    assert default_deck_path() == data_folder / "baraja.npz"


@needs_models
def test_the_registered_deck_of_the_data_folder_is_used_by_default(data_folder):
    from vision.registered_deck import RegisteredDeck

    res = mus("baraja", "ver")
    assert res.returncode == 2 and "no hay ninguna baraja registrada" in res.stderr
    res = mus("baraja", "registrar", *SUIT_PHOTOS, "--nombre", "de casa")
    assert res.returncode == 0, res.stderr
    assert (data_folder / "baraja.npz").is_file()
    res = mus("baraja", "ver")
    assert res.returncode == 0 and "de casa" in res.stdout
    truth = [sorted(h.split()) for h in json.loads((REPO / "examples" / "mesa.json").read_text())["manos"]]
    res = mus("leer", "--json", str(EXAMPLE))
    assert res.returncode == 0, res.stderr
    assert [sorted(h) for h in json.loads(res.stdout)["asientos"]] == truth
    # a registration the shipped classifier cannot use, in the data folder: the commands say
    # so, and how to read without it; --sin-baraja and --baraja FILE do not look there
    good = data_folder / "buena.npz"
    (data_folder / "baraja.npz").rename(good)
    deck = RegisteredDeck.load(good)
    RegisteredDeck(deck.features, deck.labels, "vieja", "otro-modelo").save(data_folder / "baraja.npz")
    for cmd in (["leer", str(EXAMPLE)], ["mano", str(EXAMPLE), "--mano", "0"]):
        res = mus(*cmd)
        assert res.returncode == 2 and "otro clasificador" in res.stderr
        assert "--sin-baraja" in res.stderr and len(res.stderr.strip().splitlines()) == 1
        assert mus(*cmd, "--sin-baraja").returncode == 0
        assert mus(*cmd, "--baraja", str(good)).returncode == 0
    res = mus("leer", str(EXAMPLE), "--baraja", str(good), "--sin-baraja")
    assert res.returncode == 2 and "Traceback" not in res.stderr
