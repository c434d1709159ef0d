"""A smoke run of ``bench/xml_frames.py``'s pipelined mode with tiny numbers: a real
hub and the bare anchor answer every request of many clients with several in flight
(figures, not timings, are checked)."""

from __future__ import annotations

from bench import xml_frames


def test_the_pipelined_xml_bench_runs_against_its_anchor():
    figures = xml_frames.run_pipelined(frames=48, rounds=1, games=2, clients=3, depth=4)
    assert set(figures) == {xml_frames.PIPELINED, xml_frames.PIPELINED_ANCHOR}
    assert all(f.rates and f.median > 0 for f in figures.values())


def test_an_answer_is_told_from_a_chat_update_by_its_head():
    head = b"<?xml version='1.0' encoding='UTF-8'?>\n<message sessionid=\"7\">"
    assert xml_frames.is_response(head + b"<response><lobby><gamelist/></lobby></response>")
    assert not xml_frames.is_response(head + b"<stateupdate><chat/></stateupdate>")
