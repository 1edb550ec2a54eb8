"""Card notation; the doctests run in tests/test_doctests.py."""

from __future__ import annotations

import pytest

from scoring.cards import (
    CARD_IDS,
    DECK,
    RANK_NAMES,
    SUIT_NAMES,
    Card,
    Hand,
    NotationError,
    check_distinct,
    parse_hand,
)

RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)


def test_deck_has_forty_distinct_cards_suit_by_suit() -> None:
    assert len(DECK) == 40 == len(set(DECK))
    assert CARD_IDS[:10] == ("1o", "2o", "3o", "4o", "5o", "6o", "7o", "10o", "11o", "12o")
    assert {c.suit for c in DECK} == set(SUIT_NAMES) == {"o", "c", "e", "b"}
    assert {c.rank for c in DECK} == set(RANK_NAMES) == set(RANKS)


@pytest.mark.parametrize("text", CARD_IDS)
def test_every_card_round_trips(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(text.upper()) == card


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12O", Card(12, "o")),
        ("3c", Card(3, "c")),
        (" 11E ", Card(11, "e")),
        ("1B", Card(1, "b")),
        ("10o", Card(10, "o")),
    ],
)
def test_parse_is_case_insensitive(text: str, expected: Card) -> None:
    assert Card.parse(text) == expected


def test_card_names_in_spanish() -> None:
    assert Card(12, "o").name == "rey de oros"
    assert Card(10, "b").name == "sota de bastos"
    assert Card(11, "c").name == "caballo de copas"


@pytest.mark.parametrize("text", ["8o", "9c", "13e", "0b", "14o", "12x", "12", "o", "rey", "1oo", "", "-1o"])
def test_bad_card_is_rejected_naming_the_text(text: str) -> None:
    with pytest.raises(NotationError) as info:
        Card.parse(text)
    assert repr(text.strip()) in str(info.value) or text.strip() in str(info.value)


@pytest.mark.parametrize(("rank", "suit"), [(8, "o"), (9, "o"), (13, "o"), (0, "o"), (12, "x"), (12, "O")])
def test_card_constructor_validates(rank: int, suit: str) -> None:
    with pytest.raises(NotationError):
        Card(rank, suit)


def test_parse_hand_keeps_order_and_normalises_case() -> None:
    hand = parse_hand("12O 3c  11e\t1b")
    assert str(hand) == "12o 3c 11e 1b"
    assert hand.ranks() == (12, 3, 11, 1)
    assert len(hand) == 4 and list(hand) == [Card(12, "o"), Card(3, "c"), Card(11, "e"), Card(1, "b")]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("12o 3c 11e", "12o 3c 11e"),  # three cards
        ("12o 3c 11e 1b 4o", "12o 3c 11e 1b 4o"),  # five cards
        ("", "''"),
        ("12o 3c 11e 8b", "8b"),  # unknown rank
        ("12o 3c 11e 9b", "9b"),
        ("12o 3c 11e 13b", "13b"),
        ("12o 3c 11e 0b", "0b"),
        ("12o 3c 11e 1z", "1z"),  # unknown suit
        ("12o 12O 11e 1b", "12o"),  # same card twice, whatever the case
    ],
)
def test_bad_hand_is_rejected_naming_the_text(text: str, named: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_hand(text)
    message = str(info.value)
    assert named in message
    assert "\n" not in message


@pytest.mark.parametrize("value", [None, 12, ["12o", "3c", "11e", "1b"]])
def test_parse_hand_rejects_non_text(value: object) -> None:
    with pytest.raises(NotationError):
        parse_hand(value)  # type: ignore[arg-type]


def test_hand_constructor_checks_size_and_duplicates() -> None:
    with pytest.raises(NotationError):
        Hand((Card(1, "o"), Card(2, "o"), Card(3, "o")))  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="1o"):
        Hand((Card(1, "o"), Card(1, "o"), Card(3, "o"), Card(4, "o")))


def test_check_distinct_names_the_card_and_both_hands() -> None:
    hands = [parse_hand(t) for t in ("12o 3c 11e 1b", "4o 5o 6o 7o", "1c 2c 4c 5c", "6c 7c 10o 12O")]
    with pytest.raises(NotationError) as info:
        check_distinct(hands)
    message = str(info.value)
    assert "12o" in message and "0" in message and "3" in message


def test_check_distinct_accepts_a_real_deal() -> None:
    check_distinct([parse_hand(" ".join(CARD_IDS[i : i + 4])) for i in range(0, 16, 4)])


def test_cards_are_hashable_and_ordered() -> None:
    assert len({Card.parse("1o"), Card.parse("1O")}) == 1
    assert sorted([Card(12, "o"), Card(1, "o")])[0] == Card(1, "o")


@pytest.mark.parametrize("text", ["１２o", "١٢o", "۱۲o", "1２o", "７e"])
def test_only_ascii_digits_are_ranks(text: str) -> None:
    # str.isdigit, \d and int() all take these; a card written so is a typo or a trick
    with pytest.raises(NotationError, match="se espera rango y palo"):
        Card.parse(text)
    with pytest.raises(NotationError):
        parse_hand(f"{text} 3c 11e 1b")


@pytest.mark.parametrize(("rank", "suit"), [(True, "o"), (1.0, "o"), (12.0, "c"), (1, 0)])
def test_a_card_is_built_from_an_int_and_a_suit_letter(rank: object, suit: object) -> None:
    with pytest.raises(NotationError):
        Card(rank, suit)  # type: ignore[arg-type]


def test_a_long_hand_is_quoted_only_as_an_excerpt() -> None:
    hand = "x" * 1_000_000 + " 3c 11e 1b"
    with pytest.raises(NotationError) as info:
        parse_hand(hand)
    assert len(str(info.value)) < 200 and "car.)" in str(info.value)
    with pytest.raises(NotationError) as info:
        parse_hand(["12o"] * 100_000)  # type: ignore[arg-type]
    assert len(str(info.value)) < 200


def test_a_card_that_is_not_text_is_a_notation_error() -> None:
    with pytest.raises(NotationError):
        Card.parse(["12o"])  # type: ignore[arg-type]
