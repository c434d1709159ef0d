"""``hub.connections.lines.LineFramer.drain``: what a pass-through hands on of an unfinished line."""

from __future__ import annotations

from hub.connections.lines import Line, LineFramer, Overlong


def test_drain_gives_the_unfinished_line_and_empties_the_framer():
    framer = LineFramer(10)
    assert framer.feed(b"LOGIN a\nCHO") == [Line(b"LOGIN a")]
    assert framer.drain() == b"CHO"
    assert framer.buffered == 0 and framer.drain() == b""


def test_drain_of_a_line_being_dropped_is_one_the_receiver_drops_too():
    framer = LineFramer(10)
    assert framer.feed(b"y" * 30) == [Overlong(b"y" * 12)]
    rest = framer.drain()
    receiver = LineFramer(10)
    assert receiver.feed(rest + b"more\n") == [Overlong(rest[:12])]  # refused, as here
    assert framer.feed(b"ok\n") == [Line(b"ok")]  # the framer is fresh again
