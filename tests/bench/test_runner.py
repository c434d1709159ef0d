"""``python -m bench``: the table it prints and writes (behaviour, never a timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import __main__ as runner
from bench.common import Figure, Row

ROOT = Path(__file__).resolve().parents[2]


def figure(name: str, *rates: float) -> Figure:
    return Figure(name, "x/s", list(rates))


def test_a_row_gives_the_ratio_of_medians_and_says_whether_the_goal_is_met():
    rate = Row("rate", figure("ours", 1, 3, 2), figure("theirs", 8, 9, 10), goal=(">=", 0.25))
    assert rate.ratio == pytest.approx(2 / 9) and rate.met is False
    cost = Row("cost", figure("ours", 10), figure("theirs", 25), goal=("<=", 2.0), cost=True)
    assert cost.ratio == pytest.approx(2.5) and cost.met is False
    alone = Row("alone", figure("ours", 5))
    assert alone.ratio is None and alone.met is None


def test_the_table_has_a_line_per_row_with_medians_ratio_and_goal():
    rows = [
        Row("xml frames", figure("g", 2_000), figure("bare", 8_000), goal=(">=", 0.25), unit="f"),
        Row(
            "mnm line",
            figure("g", 100_000),
            figure("bare", 400_000),
            goal=("<=", 2.0),
            cost=True,
            unit="µs/line",
        ),  # fmt: skip
        Row("games", figure("g", 12.5), unit="games/CPU-s"),
    ]
    lines = runner.table(rows)
    assert len(lines) == 2 + len(rows)
    assert "| xml frames | 2,000 f | bare: 8,000 f | **0.25** | ≥ 0.25 ✔ |" in lines[2]
    assert "| mnm line | 10.00 µs/line | bare: 2.50 µs/line | costs 4.00× | ≤ 2 ✘ |" in lines[3]
    assert lines[4].startswith("| games | 12.50 games/CPU-s | – | – |")


def test_writing_replaces_only_what_is_between_the_markers(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nIntro.\n\n## Later\n\nKept.\n")
    runner.write(["first table"], doc)
    text = doc.read_text()
    assert text.index("Intro.") < text.index(runner.BEGIN) < text.index("## Later")
    runner.write(["second table"], doc)
    text = doc.read_text()
    assert "second table" in text and "first table" not in text
    assert text.count(runner.BEGIN) == 1 and "Kept." in text and "Intro." in text


def test_a_source_missing_from_the_checkout_is_a_row_that_says_so(monkeypatch):
    monkeypatch.setitem(runner.SOURCES, "nothing", "bench.no_such_bench")
    rows = runner.collect(["nothing"], quick=True)
    assert len(rows) == 1 and "not in this checkout" in rows[0].what


def test_the_load_is_printed_and_a_load_over_the_cores_warned(monkeypatch, capsys):
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(runner, "LOADS", [])
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    runner.load_now("before x")
    assert "load average 1.5 on 2 cores" in capsys.readouterr().err
    assert "WARNING" not in "\n".join(runner.heading(True, 1.0))
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (7.25, 5.0, 3.0))
    runner.load_now("after x")
    err = capsys.readouterr().err
    assert "WARNING: the load (7.2) exceeds the 2 cores" in err
    head = "\n".join(runner.heading(True, 1.0))
    assert "load 1.5 to 7.2 during the run" in head and "exceeded the 2 cores" in head


@pytest.mark.slow
def test_quick_mode_measures_every_row_and_writes_the_table(tmp_path):
    """The whole quick run (real hubs, bare servers, engines): every row is there and
    none failed; the document keeps what is outside the markers."""
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nIntro.\n")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--doc", str(doc)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    text = doc.read_text()
    assert "Intro." in text and runner.BEGIN in text
    for what in (
        "web game list, GET /api/games?limit=50 per server CPU-s, 50 games",
        "web game list, GET /api/games?limit=50 per server CPU-s, 2,000 games",
        "XML frames per server CPU-s",
        "MNM server CPU per line",
        "memory per idle MNM connection",
        "Nine Men's Morris random playouts/s",
        "Hold'em hands/s, random actions (vs pokerkit)",
        "Hold'em hands/s, random actions (vs OpenSpiel)",
        "7-card evaluations/s, one a call",
        "7-card evaluations/s, the batch",
        "whole games per hub CPU-s: hello",
        "whole games per hub CPU-s: Nine Men's Morris",
        "whole games per hub CPU-s: King Domino",
        "whole games per hub CPU-s: heads-up hold'em",
    ):
        assert what in text, what
    assert "failed (" not in text, text
