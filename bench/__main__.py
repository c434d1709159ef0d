"""``python -m bench [--quick] [--no-write] [--only NAME]``: every benchmark against its
anchor, in one run, as one table.

Each source below gives its rows (:class:`bench.common.Row`); every row's contenders
were timed interleaved in the same run (:func:`bench.common.measure` or
:func:`~bench.common.measure_servers`), and the table shows their medians and the
ratio with the issue's goal.  The table is printed and written to
``docs/performance.md`` between the markers :data:`BEGIN` and :data:`END` (the rest of
the document stays).  ``--quick`` runs shorter passes and fewer rounds (a couple of
minutes); its ratios are rougher.  A source that is not in this checkout, or fails,
gives a row that says so, and the others run on.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT, Figure, Row  # noqa: E402

#: name → the module whose ``rows(quick)`` gives its rows, in the table's order
SOURCES: dict[str, str] = {
    "web": "bench.web_list",
    "xml": "bench.xml_frames",
    "mnm-lines": "bench.mnm_lines",
    "mnm-in-flight": "bench.mnm_in_flight",
    "mnm-memory": "bench.mnm_memory",
    "scale": "bench.mnm_scale",
    "scale-2500": "bench.mnm_scale_2500",
    "engines": "bench.engines",
    "ledger": "bench.ledger",
    "games": "bench.whole_games",
    "p2p": "bench.p2p",
}
BEGIN = "<!-- bench:begin (written by python -m bench; edits here are lost) -->"
END = "<!-- bench:end -->"
DOC = Path(ROOT) / "docs" / "performance.md"


#: the 1-minute load averages seen before and after each source
LOADS: list[float] = []


def load_now(what: str) -> float:
    """The machine's 1-minute load average, printed (with a warning over the cores)."""
    load = os.getloadavg()[0]
    LOADS.append(load)
    cores = os.cpu_count() or 1
    print(f"[bench] load average {load:.1f} on {cores} cores ({what})", file=sys.stderr, flush=True)
    if load > cores:
        print(
            f"[bench] WARNING: the load ({load:.1f}) exceeds the {cores} cores: other work "
            "competes with the benchmarks; trust only the ratios, and rerun on a quieter machine",
            file=sys.stderr,
            flush=True,
        )
    return load


def collect(names: Sequence[str], quick: bool) -> list[Row]:
    """The rows of the sources ``names``, in order."""
    rows: list[Row] = []
    for name in names:
        module_name = SOURCES[name]
        t0 = time.monotonic()
        load_now(f"before {name}")
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name != module_name:
                raise
            rows.append(Row(f"{name}: not in this checkout ({module_name})", Figure(name, "")))
            continue
        try:
            rows += module.rows(quick)
        except Exception as e:  # one broken bench does not stop the table
            traceback.print_exc()
            rows.append(Row(f"{name}: failed ({type(e).__name__}: {e})", Figure(name, "")))
        print(f"[bench] {name}: {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    load_now("at the end")
    return rows


def _value(row: Row, f: Figure | None) -> str:
    if f is None or not f.rates:
        return "–"
    if row.cost:  # a rate shown as its cost
        return f"{1e6 / f.median:,.2f} {row.unit}"
    digits = 0 if f.median >= 100 else 2
    return f"{f.median:,.{digits}f} {row.unit}"


def _goal(row: Row) -> str:
    if row.goal is None:
        return ""
    op, bound = row.goal
    mark = {True: " ✔", False: " ✘", None: ""}[row.met]
    return f"{'≥' if op == '>=' else '≤'} {bound:g}{mark}"


def table(rows: Sequence[Row]) -> list[str]:
    """The rows as a Markdown table."""
    lines = [
        "| what | Gamehub | anchor | ratio | goal | note |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        anchor = "–" if row.anchor is None else f"{row.anchor.name}: {_value(row, row.anchor)}"
        r = row.ratio
        ratio = "–" if r is None else (f"costs {r:.2f}×" if row.cost else f"**{r:.3g}**")
        lines.append(
            f"| {row.what} | {_value(row, row.ours)} | {anchor} | {ratio} | {_goal(row)} "
            f"| {row.note} |"
        )
    return lines


def heading(quick: bool, seconds: float) -> list[str]:
    """What the table was measured on."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    mode = "--quick" if quick else "full"
    cores = os.cpu_count() or 1
    seen = ""
    if LOADS:
        seen = f" (1-minute load {min(LOADS):.1f} to {max(LOADS):.1f} during the run)"
    lines = [
        f"Measured {when} by `python -m bench` ({mode}, {seconds:.0f} s) on "
        f"{platform.machine()} with {cores} CPUs, Python "
        f"{platform.python_version()}, load average {load}{seen}: medians of interleaved "
        "rounds; only the ratios of one run mean something.",
        "",
    ]
    if LOADS and max(LOADS) > cores:
        lines[-1:-1] = [
            "",
            f"**Warning: the load exceeded the {cores} cores during the run** (other work "
            "on the machine): the absolute figures are low and noisy; the ratios of "
            "interleaved rounds by CPU time are what to read.",
        ]
    return lines


def write(lines: Sequence[str], doc: Path = DOC) -> None:
    """Put ``lines`` between the markers of ``doc`` (after its first paragraph if it
    has none yet)."""
    text = doc.read_text() if doc.exists() else "# Performance\n"
    block = "\n".join([BEGIN, *lines, END])
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block + tail
    else:
        parts = text.split("\n\n", 2)
        where = min(2, len(parts))
        text = "\n\n".join(parts[:where] + [block] + parts[where:])
    doc.write_text(text if text.endswith("\n") else text + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short passes (a couple of minutes)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--only", action="append", choices=list(SOURCES), help="these sources")
    parser.add_argument("--doc", type=Path, default=DOC, help="the document to write into")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    rows = collect(args.only or list(SOURCES), args.quick)
    lines = heading(args.quick, time.monotonic() - t0) + table(rows)
    print("\n".join(lines))
    if not args.no_write:
        write(lines, args.doc)
        print(f"[bench] written to {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
