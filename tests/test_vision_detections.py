"""One card type: a reading's rows carry scoring's Card, and a correction takes only a card of
the deck (vision.detections)."""

from __future__ import annotations

import pytest

from scoring.cards import Card, NotationError
from vision.detections import CardBox, CardDetections

LECTURA = {
    "cartas": [
        {"carta": "12o", "confianza": 0.95, "caja": [10, 20, 50, 80], "asiento": 0, "dudosa": False},
        {"carta": "3c", "confianza": 0.4, "caja": [60, 20, 100, 80], "dudosa": True, "alternativa": "2c"},
    ],
    "avisos": ["una carta dudosa"],
}


def test_each_row_is_a_box_carrying_a_scoring_card():
    boxes = list(CardDetections.from_json(LECTURA))
    assert [type(b) for b in boxes] == [CardBox, CardBox]
    first, second = boxes
    assert first.card == Card(12, "o") and first.card.name == "rey de oros"
    assert second.card == Card.parse("3c") and second.card_id == "3c"
    assert first.xyxy == (10.0, 20.0, 50.0, 80.0) and first.seat == 0 and not first.low_confidence
    assert second.seat == -1 and second.low_confidence and second.confidence == pytest.approx(0.4)


def test_a_correction_takes_a_scoring_card_or_its_notation():
    lec = CardDetections.from_json(LECTURA)
    assert lec.correct(1, Card(2, "c")) == [(1, "3c", "2c")]
    assert lec.correct(0, " 3C ") == [(0, "12o", "3c")]  # written as scoring writes it
    assert lec.ids == ["3c", "2c"] and [b.card for b in lec] == [Card(3, "c"), Card(2, "c")]


@pytest.mark.parametrize("carta", ["8o", "", "12x", "rey"])
def test_a_correction_to_no_card_of_the_deck_is_refused_and_changes_nothing(carta):
    lec = CardDetections.from_json(LECTURA)
    before = lec.to_json()
    with pytest.raises(NotationError):
        lec.correct(0, carta)
    assert lec.to_json() == before
