"""Issue 36's 2,500-game run as rows of ``python -m bench``: one hub, 2,500 paced MNM
games (:mod:`bench.mnm_scale`: each seat a move a second), started over 30 s and
measured for 45 s; the p99 move latency against the 50 ms budget and the hub's peak
resident memory against 1.5 GB.  ``--quick`` runs 250 games (ramp 5 s, 5 s measured):
a smoke run, not the issue's figure.

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


def rows(quick: bool) -> list[Row]:
    """The runner's rows (``python -m bench``)."""
    games, ramp, seconds = (250, 5.0, 5.0) if quick else (2500, 30.0, 45.0)
    found = run(games, seconds, think=1.0, ramp=ramp, procs=4)
    _, note = summary(found)
    p99 = percentile([x * 1000 for x in found["latencies"]], 0.99)
    who = f"gamehub, {found['games']:,} games"
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
            Figure(who, "MB", [found["peak"] / 2**20]),
            Figure(f"budget {RSS_MB:,.0f} MB", "MB", [RSS_MB]),
            goal=("<=", 1.0),
            unit="MB",
        ),
    ]
