"""hub.connections.fields: the one place of the rules of client strings, and the bounded JSON reader."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.connections import fields
from hub.connections.fields import FieldError
from hub.frontends.domino import codec as domino
from hub.frontends.xml import codec as xml
from hub.store import accounts
from hub.store.errors import BadName, BadPassword

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(json_values)
def test_json_depth_is_the_nesting_of_the_value(value):
    assert fields.json_depth(json.dumps(value).encode()) == _depth(value)


@given(st.binary(max_size=200))
def test_loads_answers_any_bytes_with_a_value_or_a_field_error(data):
    try:
        fields.loads(data)
    except FieldError as e:
        assert e.code == 400


def test_loads_refuses_deep_nesting_without_recursion():
    for body in (b"[" * 100_000, b"[" * 5000 + b"]" * 5000, b'{"a":' * 40 + b"1" + b"}" * 40):
        with pytest.raises(FieldError, match="deeper than"):
            fields.loads(body)
    assert fields.loads(b"[" * 32 + b"]" * 32) is not None
    assert fields.loads(b'["' + b"[" * 40 + b'"]') == ["[" * 40]


def test_loads_refuses_lone_surrogates_anywhere_and_non_numbers():
    for body in (b'"\\ud800"', b'{"\\udfff": 1}', b'[1, {"a": ["x\\ud800y"]}]'):
        with pytest.raises(FieldError, match="lone surrogate"):
            fields.loads(body)
    assert fields.loads(b'"\\ud83d\\ude00"') == "\U0001f600"  # a pair is one scalar value
    for body in (b"NaN", b"[Infinity]", b"-Infinity", b"\xff"):
        with pytest.raises(FieldError, match="not valid JSON"):
            fields.loads(body)


@pytest.mark.parametrize(
    ("rule", "good", "bad"),
    [
        (fields.ACCOUNT_NAME, ["a", "Ann_1.x-y", "x" * 32], ["", "-a", "a b", "x" * 33, "é"]),
        (fields.PASSWORD, ["pass", "é" * 10, "x" * 1024], ["abc", "pw\x00xx", "x" * 1025]),
        (fields.GIVEN_PASSWORD, ["a", "pw\x00xx"], ["", "x" * 1025, "pw\ud800"]),
        (fields.GAME_NAME, ["Table 1", "游戏 ♠"], ["", " ", "a\nb", "\u202e", "\ufffe", "x" * 65]),
        (fields.CHAT_TEXT, ["hi <b>"], ["", "\x07", "a\u2028b", "\U0010ffff"]),
        (fields.PLAYER_NAME, ["bob", "a!~"], ["", "a b", "é", "x" * 65]),
        (fields.OPTION_NAME, ["showdown_pause"], ["", "a b", "x" * 65]),
    ],
)
def test_each_field_keeps_its_rule(rule, good, bad):
    for value in good:
        assert rule.check(value) == value
    for value in [*bad, None, 5, "ok\ud800"]:
        assert not rule.ok(value), value
        with pytest.raises(FieldError) as e:
            rule.check(value)
        assert e.value.code in (400, 413) and rule.what in e.value.reason


def test_a_too_long_chat_line_is_413():
    with pytest.raises(FieldError) as e:
        fields.CHAT_TEXT.check("x" * (fields.MAX_CHAT + 1))
    assert e.value.code == 413


def test_options_are_names_and_plain_values():
    assert fields.check_options(None) == {}
    good = {"a": 1, "b": 1.5, "c": "text", "d": None, "e": True, "f": [1, "x"]}
    assert fields.check_options(good) == good
    for bad in (
        [],
        {"a b": 1},
        {"a": float("nan")},
        {"a": {"b": 1}},
        {"a": [[1]]},
        {"a": "x" * 1025},
        {f"k{n}": n for n in range(65)},
    ):
        with pytest.raises(FieldError):
            fields.check_options(bad)


def test_the_store_and_the_front_ends_use_the_same_rules():
    with pytest.raises(BadName):
        accounts.check_name("ann\ud800")
    with pytest.raises(BadPassword):
        accounts.check_password("pw\ud800xx")
    assert isinstance(domino.parse(b"LOGIN " + b"x" * 65), domino.Invalid)
    assert domino.parse(b"LOGIN bob") == domino.Login("bob")
    with pytest.raises(FieldError, match="accountname"):
        xml.check_fields(xml.Login(0, "has space", "pw"))
    with pytest.raises(FieldError, match="newpassword"):
        xml.check_fields(xml.ChangePassword(0, "ann", "old", "no"))
    with pytest.raises(FieldError, match="game name"):
        xml.check_fields(xml.CreateGame(0, "hello", "\u202e"))
    with pytest.raises(FieldError, match="option"):
        xml.check_fields(xml.CreateGame(0, "hello", "ok", options=(("a", "x\x01"),)))
    xml.check_fields(xml.Login(0, "ann", "pw"))
    xml.check_fields(xml.History(0, 5, None, 20))
