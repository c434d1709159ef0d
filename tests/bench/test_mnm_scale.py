"""A smoke run of ``bench/mnm_scale.py`` with tiny numbers: a real hub, paced network
clients in two processes; every game starts and moves are answered, each timed twice,
and the hub's reactor is traced (no timing is checked)."""

from __future__ import annotations

import pytest

from bench import mnm_scale


def test_the_scale_bench_plays_paced_games_and_reports(tmp_path):
    trace = tmp_path / "trace.txt"
    found = mnm_scale.run(games=6, seconds=3.0, think=0.2, ramp=0.5, procs=2, trace=str(trace))
    assert found["games"] == 6 and found["error"] == ""
    assert found["moves"] > 0 and found["failed"] == 0
    assert found["rss"] > 0 and found["peak"] >= found["rss"]
    # each answer also by the kernel's receive stamp, which comes before the loop reads it
    arrivals, latencies = found["arrivals"], found["latencies"]
    assert len(arrivals) == len(latencies) and all(a > 0 for a in arrivals)
    assert mnm_scale.percentile(arrivals, 0.5) <= mnm_scale.percentile(latencies, 0.5)
    text = trace.read_text()  # written when the hub stopped
    assert "I/O (one epoll answer): <1: " in text and "timers: <1: " in text
    assert "Deadlines._run:Transcript._timed_flush" in text  # the sweeps by their handler


def test_percentiles_of_the_latencies():
    values = [float(i) for i in range(100)]
    assert mnm_scale.percentile(values, 0.5) == 50.0
    assert mnm_scale.percentile(values, 0.99) == 99.0
    assert mnm_scale.percentile([], 0.99) != mnm_scale.percentile([], 0.99)  # NaN


def found(games: int, lobby: int, moves: int = 100, cpu: float = 0.5) -> dict:
    """What :func:`mnm_scale.run` says of a run (made up)."""
    return {
        "lobby": (lobby, 0, 0, 0), "ramp_cpu": 0.1, "all_seconds": 30.0, "games": games,
        "moves": moves, "seconds": 10.0, "latencies": [0.001 * (i % 10) for i in range(moves)],
        "cpu": cpu, "rss": 100 * 2**20, "peak": 120 * 2**20, "failures": [], "failed": 0,
        "error": "",
    }  # fmt: skip


def test_a_run_is_summed_up_as_cpu_a_move_and_a_note():
    figure, note = mnm_scale.summary(found(10, 0, moves=100, cpu=0.5))
    assert figure.median == 100 / 5.0  # moves per CPU-second: 50 ms a move
    assert note == "p99 9.0 ms, median 5.0 ms; 10 moves/s; RSS 100 MB"
    failing = {**found(10, 0), "failed": 2, "failures": ["game x: refused"]}
    assert mnm_scale.summary(failing)[1].endswith("; 2 failure(s): game x: refused")


def test_the_scale_rows_compare_with_ten_games_and_with_no_lobby_pages(monkeypatch):
    runs: list[tuple[int, int]] = []

    def fake_run(games, seconds, think, ramp, procs, lobby=0):
        runs.append((games, lobby))
        return found(games, lobby, moves=games * 10, cpu=games * 0.01 + lobby * 0.001)

    monkeypatch.setattr(mnm_scale, "run", fake_run)
    rows = mnm_scale.rows(quick=False)
    assert runs == [(10, 0), (100, 0), (1000, 0), (100, 100), (100, 400)]
    assert rows[0].anchor is None and "10 games" in rows[0].what
    assert [r.anchor.name for r in rows[1:] if r.anchor] == ["10 games"] * 2 + ["100 games"] * 2
    assert all(r.cost and r.unit == "µs/move" for r in rows)
    assert "400 lobby pages" in rows[4].what and rows[4].ratio is not None


def test_the_2500_game_rows_hold_p99_and_memory_against_their_budgets(monkeypatch):
    from bench import mnm_scale_2500

    asked = []

    def fake_run(games, seconds, think, ramp, procs, lobby=0):
        asked.append((games, ramp, seconds))
        return found(games, 0)

    monkeypatch.setattr(mnm_scale_2500, "run", fake_run)
    latency, memory = mnm_scale_2500.rows(quick=True)
    assert asked == [(250, 5.0, 5.0)]
    assert latency.ratio == pytest.approx(9.0 / 50) and latency.met is True
    assert memory.ours.median == 120 and memory.ratio == pytest.approx(120 / 1536)


def test_the_2500_game_rows_pool_the_latencies_of_their_runs(monkeypatch):
    from bench import mnm_scale_2500

    runs = iter([9.0, 9.0, 200.0])  # the third run slow throughout

    def fake_run(games, seconds, think, ramp, procs, lobby=0):
        got = found(games, 0)
        got["latencies"] = [next(runs) / 1000] * 100
        got["peak"] = len(got["latencies"]) * 2**20 * (3 if got["latencies"][0] > 0.1 else 1)
        return got

    monkeypatch.setattr(mnm_scale_2500, "run", fake_run)
    latency, memory = mnm_scale_2500.rows(quick=False)
    # a third of the moves took 200 ms: the pooled p99 is theirs, whatever the other runs
    assert latency.ours.median == pytest.approx(200.0) and latency.met is False
    assert latency.note.startswith("3 runs pooled") and latency.note.count("p99") == 3
    assert memory.ours.median == 300  # the highest peak of the three
