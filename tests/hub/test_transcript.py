"""Transcripts: escaping makes forged records impossible."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.internet.task import Clock

from hub.transcript import Transcripts, escape


@pytest.mark.parametrize(
    ("raw", "written"),
    [
        ("PLAY A1", "PLAY A1"),
        ("a\nb", "a\\nb"),
        ("a\r\nb", "a\\r\\nb"),
        ("back\\slash", "back\\\\slash"),
        ("\x00\x1b\x7f", "\\x00\\x1b\\x7f"),
        ("\u2028", "\\u2028"),
        (b"\xff\xfe ok", "\\xff\\xfe ok"),
        ("Zürich ♞", "Zürich ♞"),
    ],
)
def test_escape(raw, written):
    assert escape(raw) == written


@given(st.one_of(st.text(), st.binary()))
def test_escaped_content_is_one_printable_line(content):
    line = escape(content)
    assert "\n" not in line and "\r" not in line
    assert all(ch.isprintable() for ch in line)


def test_records_have_time_connection_direction(tmp_path):
    clock = Clock()
    clock.advance(1_700_000_000.25)
    transcripts = Transcripts(tmp_path, clock)
    t = transcripts.for_game("abc123")
    t.record("c7", "in", "LOGIN ALICE")
    t.record("c7", "out", b"OK\n")
    lines = transcripts.read("abc123").splitlines()
    assert lines == [
        "2023-11-14T22:13:20.250000Z c7 in  LOGIN ALICE",
        "2023-11-14T22:13:20.250000Z c7 out OK\\n",
    ]
    with pytest.raises(ValueError):
        t.record("c7", "sideways", "x")
    with pytest.raises(ValueError):
        transcripts.for_game("../etc/passwd")
    assert transcripts.read("../etc/passwd") is None
    transcripts.close()
    assert transcripts.read("abc123").count("\n") == 2
