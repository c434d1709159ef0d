"""Tests of the card encoding."""

import pytest

from games.poker import cards


def test_encoding_matches_protocol():
    assert cards.parse("2c") == 0
    assert cards.parse("2d") == 1
    assert cards.parse("2h") == 2
    assert cards.parse("2s") == 3
    assert cards.parse("As") == 51
    assert cards.parse("Kh") == 11 * 4 + 2
    assert cards.card(cards.ACE, cards.SPADES) == 51
    assert cards.rank(51) == 12 and cards.suit(51) == 3


def test_round_trip_every_card():
    for c in range(52):
        assert cards.parse(cards.format(c)) == c
    assert len({cards.format(c) for c in range(52)}) == 52


def test_parse_variants():
    assert cards.parse("ts") == cards.parse("Ts") == cards.parse("10s") == cards.parse(" TS ")
    assert cards.parse_many("As Kd, 10h") == [51, 45, 34]
    assert cards.parse_many("AsKd10h2c") == [51, 45, 34, 0]
    assert cards.parse_many("") == []


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "Zs", "Asd", "10", None, 51])
def test_parse_rejects(bad):
    with pytest.raises(ValueError):
        cards.parse(bad)


@pytest.mark.parametrize("bad", [52, -2, 1.0, "As", True])
def test_format_rejects(bad):
    with pytest.raises(ValueError):
        cards.format(bad)


def test_hidden_and_words():
    assert cards.format(cards.HIDDEN) == "??"
    assert cards.pretty(cards.HIDDEN) == "??"
    assert cards.pretty(51) == "A\u2660"
    assert cards.name(0) == "deuce of clubs"
    assert cards.format_many([51, 0]) == "As 2c"


def test_check_distinct():
    cards.check_distinct([0, 1, 2])
    with pytest.raises(ValueError, match="duplicate"):
        cards.check_distinct([0, 1, 0])
    with pytest.raises(ValueError):
        cards.check_distinct([0, 52])
