"""A smoke run of ``bench/web_list.py`` with tiny numbers: a real hub and the two bare
anchors answer every request (figures, not timings, are checked)."""

from __future__ import annotations

from bench import web_list


def test_the_web_list_bench_runs_against_both_anchors():
    found = web_list.run([3, 60], requests=40, rounds=1, connections=4)
    assert sorted(found) == [3, 60]
    for figures in found.values():
        assert set(figures) == {web_list.OURS, web_list.ANCHOR, web_list.PLAIN_ANCHOR}
        assert all(f.rates and f.median > 0 for f in figures.values())


def test_a_response_is_complete_only_with_its_whole_body():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n"
    assert web_list._complete(bytearray(head + b"[1,")) is None
    assert web_list._complete(bytearray(head + b"[1]\nHTTP/1.1")) == len(head) + 4
