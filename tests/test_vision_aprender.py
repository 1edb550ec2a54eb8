"""A deck learned from confirmed hands, with no suit photos (vision.aprender, `mus baraja aprender`)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from musmesa.cli import main
from scoring.cards import CARD_IDS
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir
from vision.registered_deck import DeckError, RegisteredDeck

REPO = Path(__file__).resolve().parent.parent
MESA, REGISTRO = REPO / "examples" / "mesa.jpg", REPO / "examples" / "mesa.json"
HAVE_MODELS = (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")
MANOS = json.loads(REGISTRO.read_text(encoding="utf-8"))["manos"]


def _aprender(capsys, baraja: Path, foto: Path, registro: Path) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["baraja", "aprender", "--baraja", str(baraja), str(foto), str(registro), "--json"])
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_learned_deck_round_trips_and_knows_only_its_cards(tmp_path):
    deck = RegisteredDeck.learned("m1", 8, "bar")
    assert deck.partial and not deck.known.any() and deck.series == 0
    again = RegisteredDeck.load(deck.save(tmp_path / "d.npz"))
    assert again.series == 0 and again.partial and again.name == "bar"
    with pytest.raises(DeckError):  # a registered deck (series 1) still needs all 40 cards
        RegisteredDeck(np.eye(8, dtype=np.float32), np.arange(8), series=1)


@needs_models
def test_the_cli_creates_then_strengthens_a_deck_from_a_table_and_its_record(tmp_path, capsys):
    path = tmp_path / "aprendida.npz"
    rc, out, err = _aprender(capsys, path, MESA, REGISTRO)
    assert rc == 0, err
    info = json.loads(out)
    deck = RegisteredDeck.load(path)
    confirmed = {c for m in MANOS for c in m.split()}
    assert {CARD_IDS[i] for i in np.flatnonzero(deck.known)} == confirmed
    assert deck.series == 0 and deck.extra_count == info["aprendidas"] == 16
    rc, out, err = _aprender(capsys, path, MESA, REGISTRO)
    assert rc == 0, err
    assert RegisteredDeck.load(path).extra_count == 32  # strengthened, the same 16 cards known
    assert json.loads(out)["conocidas"] == 16


@needs_models
def test_a_corrected_card_is_learned_as_the_record_says(tmp_path):
    from vision.aprender import match
    from vision.reader import CardReader

    dets = CardReader().read(MESA)
    manos = list(MANOS)
    i = int(np.flatnonzero(dets.seat == 0)[0])
    wrong = str(dets.card_ids[i])
    # the reader's card i was (as the record says) another one: swap it for a card of no hand
    free = next(c for c in ("5o", "6o", "2o", "10o") if all(c not in m.split() for m in manos))
    manos[0] = " ".join(free if c == wrong else c for c in manos[0].split())
    found = match(dets, [m.split() for m in manos])
    assert found.corrected.count(True) == 1 and found.card_ids[found.corrected.index(True)] == free


@needs_models
def test_bad_input_gets_one_spanish_line_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "d.npz"
    blank = tmp_path / "vacia.jpg"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    rc, _, err = _aprender(capsys, path, blank, REGISTRO)
    assert rc == 2 and "ninguna carta" in err and len(err.strip().splitlines()) == 1
    other = tmp_path / "otra.json"
    other.write_text(json.dumps({"manos": ["4o 5o 6o 7o", "1c 3c 4c 6c", "2e 3e 4e 5e", "2b 3b 5b 6b"]}))
    rc, _, err = _aprender(capsys, path, MESA, other)
    assert rc == 2 and "no casan" in err
    rc, _, err = _aprender(capsys, path, MESA, tmp_path / "no_existe.json")
    assert rc == 2 and "no existe" in err
    (tmp_path / "sin.json").write_text("{}")
    rc, _, err = _aprender(capsys, path, MESA, tmp_path / "sin.json")
    assert rc == 2 and "manos" in err
    assert not path.exists()


@needs_models
def test_a_partial_learned_deck_never_calls_the_whole_deck_unfamiliar(tmp_path, capsys, monkeypatch):
    """Where the generic reader calls the deck unfamiliar (forced here) and flags every card,
    the learned deck reads the cards it knows as a registered deck does, and flags only those
    it does not know."""
    import vision.assemble
    import vision.reader
    from vision.reader import CardReader

    path = tmp_path / "aprendida.npz"
    assert _aprender(capsys, path, MESA, REGISTRO)[0] == 0
    deck = RegisteredDeck.load(path)
    monkeypatch.setattr(vision.assemble, "UNFAMILIAR_DECK", 1.01)
    monkeypatch.setattr(vision.reader, "UNFAMILIAR_DECK", 1.01)
    generic = CardReader().read(MESA)
    assert generic.unfamiliar and generic.low_confidence.all()
    learned = CardReader(deck=deck).read(MESA)
    assert not learned.unfamiliar
    truth = {c: s for s, m in enumerate(MANOS) for c in m.split()}
    assert all(truth.get(str(c)) == s for c, s in zip(learned.card_ids, learned.seat, strict=True))
    assert not learned.low_confidence.all()
    # ten oros, five of them never seen: those read as a card it does not know are flagged
    other = CardReader(deck=deck).read(REPO / "examples" / "baraja" / "oros.jpg")
    assert not other.unfamiliar and len(other) == 10
    unknown = np.array([not deck.known[CARD_IDS.index(str(c))] for c in other.card_ids])
    assert unknown.any() and other.low_confidence[unknown].all()


@needs_models
def test_the_tablet_learns_a_deck_from_a_confirmed_reading_when_none_is_registered(tmp_path):
    from mesa.lectura import SIN_BARAJA, baraja_para_aprender, reforzar_baraja
    from vision.reader import CardReader

    assert baraja_para_aprender(SIN_BARAJA, tmp_path) is None  # the general model chosen: nothing learned
    assert baraja_para_aprender("", tmp_path) == str(tmp_path / "baraja.npz")
    lec = CardReader().read(MESA)
    path = baraja_para_aprender("", tmp_path)
    assert path is not None and reforzar_baraja(lec, cv2.imread(str(MESA)), path) == len(lec)
    deck = RegisteredDeck.load(path)
    assert deck.series == 0 and int(deck.known.sum()) == len(lec)


def _half_learned_deck() -> RegisteredDeck:
    """A deck learned from confirmed hands that knows the first 20 cards only."""
    from dataclasses import replace

    from vision.registered_deck import EXTRA_VIEWS
    from vision.templates import TEMPLATE_H, TEMPLATE_W

    deck = RegisteredDeck.learned("", 8)
    e = 20
    return replace(
        deck,
        extra_features=np.ones((e, 2 * EXTRA_VIEWS, 8), np.float32),
        extra_templates=np.zeros((e, EXTRA_VIEWS, TEMPLATE_H, TEMPLATE_W, 3), np.uint8),
        extra_labels=np.arange(e),
        extra_corrected=np.zeros(e, bool),
    )


def test_a_half_learned_deck_flags_each_card_as_the_reader_of_its_kind_would():
    """A card the deck knows is judged on the deck's own probability among the cards it knows,
    and on the generic classifier's belief that it is one of those at all; a card it does not
    know, as the generic reader judges it. (Before, every card was also judged as a registered
    deck judges its sharp probabilities, and right cards were flagged twice as often.)"""
    from vision.assemble import Table
    from vision.classify import CardProbabilities
    from vision.reader import CardReader, ReaderSettings

    deck = _half_learned_deck()
    assert deck.partial and deck.known[:20].all() and not deck.known[20:].any()
    reader = CardReader(settings=ReaderSettings(flag_model=False), deck=deck)
    cards = np.zeros((3, 40), np.float32)
    cards[0, 3], cards[0, 25] = 0.85, 0.15  # known, sure among the known ones, 0.85 of it known
    cards[1, 4], cards[1, 30] = 0.8, 0.2  # known, but the generic reader thinks it may be card 30
    cards[2, 31], cards[2, 2] = 0.9, 0.1  # a card it does not know, as sure as the generic rule wants
    parts = CardProbabilities(cards, None, None)
    labels = np.array([3, 4, 31])
    table = Table(
        np.zeros((3, 5), np.float32),
        np.full(3, 0.95, np.float32),
        parts,
        labels,
        cards[np.arange(3), labels],
        np.array([25, 30, 2]),
        np.zeros(3, bool),
        False,
    )
    assert reader._partial_flags(table, {}).tolist() == [False, True, False]
