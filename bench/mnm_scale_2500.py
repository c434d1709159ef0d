"""Issue 36's 2,500-game run as rows of ``python -m bench``: a hub with 2,500 paced MNM
games (:mod:`bench.mnm_scale`: each seat a move a second), started over 30 s and
measured for 45 s, three times (a fresh hub and fresh clients each); the p99 of every
move's latency of the three runs together against the 50 ms budget (each run's own
p99 in the note: one run's p99 moved between 10.8 and 81 ms on one quiet machine in
one morning, unchanged code) and the hubs' highest peak resident memory against
1.5 GB.  ``--quick`` runs 250 games once (ramp 5 s, 5 s measured): a smoke run, not
the issue's figure.

    python bench/mnm_scale.py --games 2500 --ramp 30 --seconds 45   # the same run, printed in full
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row  # noqa: E402
from bench.mnm_scale import percentile, run, summary  # noqa: E402

#: the issue's budgets: p99 move latency (ms) and resident memory (MB)
LATENCY_MS = 50.0
RSS_MB = 1536.0
#: runs pooled for the table (one in ``--quick``)
RUNS = 3


def rows(quick: bool) -> list[Row]:
    """The runner's rows (``python -m bench``)."""
    games, ramp, seconds, runs = (250, 5.0, 5.0, 1) if quick else (2500, 30.0, 45.0, RUNS)
    founds = [run(games, seconds, think=1.0, ramp=ramp, procs=4) for _ in range(runs)]
    latencies = [x * 1000 for found in founds for x in found["latencies"]]
    p99 = percentile(latencies, 0.99)
    notes = [summary(found)[1] for found in founds]
    note = notes[0] if runs == 1 else f"{runs} runs pooled; " + " — ".join(notes)
    who = f"gamehub, {min(found['games'] for found in founds):,} games"
    return [
        Row(
            f"MNM at scale: p99 move latency, {games:,} games (each seat a move a second)",
            Figure(who, "ms", [p99]),
            Figure(f"budget {LATENCY_MS:g} ms", "ms", [LATENCY_MS]),
            goal=("<=", 1.0),
            unit="ms",
            note=note,
        ),
        Row(
            f"MNM at scale: the hub's peak resident memory, {games:,} games",
            Figure(who, "MB", [max(found["peak"] for found in founds) / 2**20]),
            Figure(f"budget {RSS_MB:,.0f} MB", "MB", [RSS_MB]),
            goal=("<=", 1.0),
            unit="MB",
        ),
    ]
