"""Transcripts: escaping makes forged records impossible."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from twisted.internet.task import Clock

from hub.connections.transcript import (
    SHARED_STAMP,
    ConnectionRecord,
    Transcripts,
    TranscriptSettings,
    _Stamp,
    escape,
    escaped,
    owner_token,
    record_tag,
)
from hub.connections.transcript_access import Access, stream, visible


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


@given(st.lists(st.text(max_size=30), min_size=1, max_size=5))
def test_lines_recorded_at_once_read_as_recorded_one_by_one(lines):
    """``record_lines`` (a reply's lines in one write) writes what ``record`` would for
    each line: one record per line, escaped the same (a line's own newline too)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        clock.advance(1_700_000_000.25)
        transcripts = Transcripts(Path(tmp), clock)
        transcripts.for_game("once").record_lines("c1", "out", lines)
        for line in lines:
            transcripts.for_game("each").record("c1", "out", line)
        assert transcripts.read("once") == transcripts.read("each")
        assert transcripts.read("once").count("\n") == len(lines)
        transcripts.close()


@given(
    st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), min_size=1, max_size=5)
)
@example(lines=[b"\xed\xa0\x80"])  # a surrogate's UTF-8 form: not UTF-8, written as \xNN
@example(lines=[b"a\\b\r", "\u2658\x85".encode(), b"", b"\xff"])
def test_a_block_recorded_at_once_reads_as_its_lines_recorded_one_by_one(lines):
    """``record_block`` (a reply as the bytes that went over the wire) writes what
    ``record`` would for each of its lines: same stamps, same escapes."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        clock.advance(1_700_000_000.25)
        transcripts = Transcripts(Path(tmp), clock)
        transcripts.for_game("once").record_block("c1", "out", b"".join(x + b"\n" for x in lines))
        for line in lines:
            transcripts.for_game("each").record("c1", "out", line)
        assert transcripts.read("once") == transcripts.read("each")
        assert transcripts.read("once").count("\n") == len(lines)
        transcripts.close()


@given(st.one_of(st.text(), st.binary(), st.lists(st.sampled_from(b"ab\\\n<>\t\xff")).map(bytes)))
@example(b"<?xml version='1.0'?>\n<message/>")
@example(b"\n\n")
def test_escaped_is_the_files_bytes_of_escape(content):
    """The fast ways of :func:`escaped` (nothing to escape, only line breaks) write
    what :func:`escape` writes."""
    assert escaped(content) == escape(content).encode("utf-8", "surrogateescape")


def test_a_records_tag_names_connection_owner_and_seat():
    assert record_tag("x1", "out") == b" x1 out "
    assert record_tag("x1", "in", "Ann Lee", 2) == b" x1~ann%20lee#2 in  "
    with pytest.raises(ValueError):
        record_tag("x1", "sideways")


def _lines(transcripts, name):
    return transcripts.read(name).splitlines()


def test_a_frame_with_newlines_keeps_its_text_and_stays_one_line():
    frame = b"<?xml version='1.0' encoding='UTF-8'?>\n<message sessionid=\"1\"/>"
    assert escape(frame) == "<?xml version='1.0' encoding='UTF-8'?>\\n<message sessionid=\"1\"/>"
    assert escape("Zürich\n♞\x85") == "Zürich\\n♞\\x85"


def test_records_are_buffered_and_written_on_the_timer_and_on_close(tmp_path):
    clock = Clock()
    settings = TranscriptSettings(flush_seconds=1.0, buffer_bytes=10_000)
    transcripts = Transcripts(tmp_path, clock, settings)
    t = transcripts.for_game("g1")
    t.record("c1", "in", "HELLO")
    path = tmp_path / "g1.log"
    assert not path.exists() and t.buffered == 1
    clock.advance(1.0)
    assert path.read_text().endswith("c1 in  HELLO\n") and t.buffered == 0
    t.record("c1", "out", "BYE")
    transcripts.release("g1")
    assert path.read_text().count("\n") == 2
    assert transcripts.live_count == 0 and clock.getDelayedCalls() == []


def test_files_are_owner_only(tmp_path):
    transcripts = Transcripts(tmp_path / "t", Clock())
    transcripts.for_game("g1").note("x")
    transcripts.flush()
    assert (tmp_path / "t").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "t" / "g1.log").stat().st_mode & 0o777 == 0o600


def test_files_rotate_by_size_and_old_parts_go(tmp_path):
    settings = TranscriptSettings(buffer_bytes=1, max_bytes=200, keep_rotated=2)
    transcripts = Transcripts(tmp_path, Clock(), settings)
    t = transcripts.for_game("g1")
    for n in range(40):
        t.record("hub", "out", f"line {n:03d} " + "x" * 40)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["g1.log", "g1.log.1", "g1.log.2"]
    assert all(p.stat().st_size <= 200 + 100 for p in tmp_path.iterdir())
    text = transcripts.read("g1")
    assert "line 039" in text and "line 000" not in text
    numbers = [int(line.split("line ")[1][:3]) for line in text.splitlines()]
    assert numbers == sorted(numbers)  # parts are read oldest first


def test_each_connection_has_a_recording_cap_with_one_marker(tmp_path):
    settings = TranscriptSettings(max_per_connection=3000)
    transcripts = Transcripts(tmp_path, Clock(), settings)
    t = transcripts.for_game("g1")
    for _ in range(50):
        t.record("x1", "in", "y" * 50)
        t.record("x2", "in", "ok")
    t.end_connection("x1")
    lines = _lines(transcripts, "g1")
    assert sum(" x1 in " in line for line in lines) == 3000 // 86  # 86 bytes a line
    assert sum(" x2 in " in line for line in lines) == 50
    markers = [line for line in lines if "recording cap" in line]
    assert len(markers) == 1 and " x1 reached the recording cap of 3000 bytes" in markers[0]
    assert any("x1: 16 lines (1376 bytes) were not recorded" in line for line in lines)


def test_a_broadcast_is_one_record_of_the_hub_for_its_whole_audience(tmp_path):
    """``broadcast`` (a lobby update or chat line for every connection) writes one
    record, ``lobby*<count>``, whatever the audience's size; no connection's recording
    cap counts it, and no reader but an admin sees a lobby's (it names no owner)."""
    settings = TranscriptSettings(max_per_connection=300)
    transcripts = Transcripts(tmp_path, Clock(), settings)
    t = transcripts.for_game("g1")
    text = b"<?xml version='1.0'?>\n<message/>" + b"y" * 40
    for _ in range(50):
        t.broadcast(1000, escaped(text))
    t.record("x1", "out", "mine", owner="ann")
    lines = _lines(transcripts, "g1")
    said = [line for line in lines if " lobby*1000 out " in line]
    assert len(said) == 50
    assert all(line.endswith(escaped(text).decode()) for line in said)
    assert not any("recording cap" in line for line in lines)
    assert lines[-1].split(" ", 1)[1] == "x1~ann out mine"
    ann = Access(owners=frozenset({"ann"}))
    assert [visible(line.encode(), ann) for line in (said[0], lines[-1])] == [False, True]


def test_owner_and_seat_are_in_the_record_and_cannot_be_forged(tmp_path):
    transcripts = Transcripts(tmp_path, Clock())
    t = transcripts.for_game("g1")
    t.record("x1", "out", "cards", owner="Alice", seat=0)
    t.record("x2 ~bob#1", "in", "hi", owner="eve #0 ~x")
    first, second = _lines(transcripts, "g1")
    assert first.split(" ")[1] == "x1~alice#0"
    assert second.split(" ")[1] == "x2%20%7Ebob%231~eve%20%230%20%7ex"


def _records(tmp_path):
    transcripts = Transcripts(tmp_path, Clock(), TranscriptSettings(buffer_bytes=1))
    t = transcripts.for_game("g1")
    t.note("game created")
    t.record("x1", "in", "join", owner="alice")
    t.record("x1", "out", "alice's hole cards", owner="alice", seat=0)
    t.record("x2", "out", "bob's hole cards", owner="bob", seat=1)
    t.record("x2", "out", "the flop", owner="bob")
    t.record("m1", "in", "PLAY")
    return transcripts, transcripts.paths("g1")


def _read(parts, access, tail=None):
    return b"".join(stream(parts, access, tail)).decode()


def test_who_reads_what(tmp_path):
    _, parts = _records(tmp_path)
    everything = _read(parts, Access(admin=True))
    assert everything.count("\n") == 6
    alice = _read(parts, Access(owners=frozenset({owner_token("ALICE")})))
    assert "join" in alice and "alice's hole cards" in alice
    assert "bob's" not in alice and "flop" not in alice and "game created" not in alice
    after = _read(parts, Access(public=True))
    assert "hole cards" not in after
    assert "game created" in after and "the flop" in after and "PLAY" in after
    alice_after = _read(parts, Access(owners=frozenset({"alice"}), public=True))
    assert "alice's hole cards" in alice_after and "bob's" not in alice_after
    assert _read(parts, Access()) == ""


def test_tail_returns_the_last_visible_records(tmp_path):
    _, parts = _records(tmp_path)
    assert _read(parts, Access(admin=True), tail=2).splitlines()[0].endswith("the flop")
    public = _read(parts, Access(public=True), tail=2).splitlines()
    assert [line.split(" ", 3)[3].strip() for line in public] == ["the flop", "PLAY"]
    assert _read(parts, Access(public=True), tail=100).count("\n") == 4
    assert _read(parts, Access(public=True), tail=0) == ""


def test_tail_and_stream_read_across_blocks_and_parts(tmp_path, monkeypatch):
    import hub.connections.transcript_access as module

    monkeypatch.setattr(module, "BLOCK", 64)
    settings = TranscriptSettings(buffer_bytes=1, max_bytes=500, keep_rotated=5)
    transcripts = Transcripts(tmp_path, Clock(), settings)
    t = transcripts.for_game("g1")
    for n in range(60):
        t.record("x1", "out", f"n{n:02d} " + "z" * (n % 7) * 9, seat=n % 2)
    parts = transcripts.paths("g1")
    assert len(parts) > 2
    admin = _read(parts, Access(admin=True))
    assert admin == transcripts.read("g1")
    last = _read(parts, Access(admin=True), tail=5).splitlines()
    assert last == admin.splitlines()[-5:]
    assert _read(parts, Access(public=True)) == ""


def test_closing_writes_what_released_transcripts_still_buffer(tmp_path):
    clock = Clock()
    transcripts = Transcripts(tmp_path, clock)
    t = transcripts.for_game("g1")
    transcripts.release("g1")
    t.record("x1", "out", "a late line")  # the game object still holds it
    assert not (tmp_path / "g1.log").exists()
    transcripts.close()
    assert "a late line" in (tmp_path / "g1.log").read_text()
    assert clock.getDelayedCalls() == []


def test_records_close_together_share_a_stamp_and_stamps_never_go_back():
    """A stamp is formatted once for the records of half a millisecond (one line in
    brings several records): each is at most that early, and the file's stamps rise."""
    stamp = _Stamp()
    first = stamp(1700000000.25)
    assert first == b"2023-11-14T22:13:20.250000Z"
    assert stamp(1700000000.25 + SHARED_STAMP / 2) == first
    later = stamp(1700000000.25 + 2 * SHARED_STAMP)
    assert later == b"2023-11-14T22:13:20.251000Z"
    assert stamp(1700000000.2) == b"2023-11-14T22:13:20.200000Z"  # a clock set back
    assert stamp(1700000001.0) == b"2023-11-14T22:13:21.000000Z"


def test_what_a_connection_says_before_its_game_is_bounded_in_bytes():
    record = ConnectionRecord("r1")
    for _ in range(20):
        record.record("in", b"x" * (ConnectionRecord.EARLY_BYTES // 8))
    kept = record._early[1::2]
    assert len(kept) == 8 and sum(len(c) for c in kept) == ConnectionRecord.EARLY_BYTES


def test_many_transcripts_are_written_by_one_timer_each_in_its_time(tmp_path):
    clock = Clock()
    transcripts = Transcripts(tmp_path, clock, TranscriptSettings(flush_seconds=1.0))
    for n in range(90):  # a record every 10 ms, each in its own game
        transcripts.for_game(f"g{n}").note(f"line {n}")
        clock.advance(0.01)
    assert len(clock.getDelayedCalls()) == 1  # not one a game
    assert not list(tmp_path.iterdir())
    clock.advance(0.15)  # the first ones are a second old (to within the granularity)
    written = {p.name for p in tmp_path.iterdir()}
    assert {f"g{n}.log" for n in range(5)} <= written and "g89.log" not in written
    clock.advance(1.0)
    assert len(list(tmp_path.iterdir())) == 90 and clock.getDelayedCalls() == []
    for n in range(90):
        assert (tmp_path / f"g{n}.log").read_text().endswith(f"line {n}\n")
    t = transcripts.for_game("g0")
    t.note("again")  # waits again; an early flush takes it out of the timer's queue
    assert len(clock.getDelayedCalls()) == 1
    t.flush()
    assert clock.getDelayedCalls() == [] and t.buffered == 0
