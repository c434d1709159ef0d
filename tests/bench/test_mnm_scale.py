"""A smoke run of ``bench/mnm_scale.py`` with tiny numbers: a real hub, paced network
clients in two processes; every game starts and moves are answered (no timing is
checked)."""

from __future__ import annotations

from bench import mnm_scale


def test_the_scale_bench_plays_paced_games_and_reports():
    found = mnm_scale.run(games=6, seconds=3.0, think=0.2, ramp=0.5, procs=2)
    assert found["games"] == 6 and found["error"] == ""
    assert found["moves"] > 0 and found["failed"] == 0
    assert found["rss"] > 0 and found["peak"] >= found["rss"]


def test_percentiles_of_the_latencies():
    values = [float(i) for i in range(100)]
    assert mnm_scale.percentile(values, 0.5) == 50.0
    assert mnm_scale.percentile(values, 0.99) == 99.0
    assert mnm_scale.percentile([], 0.99) != mnm_scale.percentile([], 0.99)  # NaN
