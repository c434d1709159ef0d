"""Benchmark: 7-card hand evaluations per second, ours against treys and eval7, in one run.

Usage: ``python bench/evaluator.py [--hands N] [--repeats R] [--verify M] [--seed S]``

Every evaluator scores the same random 7-card hands (pre-built, so dealing is not
timed): ours one hand per call (:func:`evaluate`, checked, and ``evaluate_unchecked``)
and in one batch (:func:`evaluate_batch` from lists, :func:`evaluate_array` on a numpy
array), treys one hand per call, and eval7 (when installed) one hand per call.  The
passes are interleaved ``R`` times (:func:`bench.common.measure`) and the medians are
printed with the ratios the issue sets goals for: ``evaluate`` over treys (≥ 10) and
the batch over eval7 (≥ 1.0).  ``--verify M`` first cross-checks ``M`` random 5-, 6-
and 7-card hands against treys (category and order), reporting any disagreement; the
exit status is 1 if there is one.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import measure, ratio, report  # noqa: E402
from games.poker import cards, evaluator  # noqa: E402


def _treys():
    try:
        from treys import Card, Evaluator
    except ImportError:
        return None, None
    return Evaluator(), [Card.new(cards.format(c)) for c in range(52)]


def _eval7():
    try:
        import eval7
    except ImportError:
        return None
    return eval7


def passes(fn, hands):
    """A pass of ``fn`` over ``hands``, one call per hand, for :func:`measure`."""

    def run() -> int:
        for h in hands:
            fn(h)
        return len(hands)

    return run


def verify(m: int, rng: random.Random, treys_eval, tcards) -> int:
    """Cross-check ``m`` hands against treys; return the number of disagreements."""
    bad = 0
    done = 0
    chunk = 100_000
    t0 = time.perf_counter()
    while done < m:
        n = min(chunk, m - done)
        size = (5, 6, 7)[(done // chunk) % 3]
        hands = [rng.sample(range(52), size) for _ in range(n)]
        ours = [evaluator.evaluate(h) for h in hands]
        theirs = []
        for h in hands:
            t = [tcards[c] for c in h]
            theirs.append(treys_eval.evaluate(t[:2], t[2:]))
        for o, t in zip(ours, theirs, strict=True):
            tc = 8 if t == 1 else 9 - treys_eval.get_rank_class(t)
            bad += evaluator.hand_class(o) != tc
        pairs = sorted(zip(theirs, ours, strict=True), key=lambda p: -p[0])
        for (t1, o1), (t2, o2) in zip(pairs, pairs[1:], strict=False):
            bad += (t1 == t2) != (o1 == o2) or o1 > o2
        done += n
        print(
            f"\rverified {done:,}/{m:,} hands, {bad} disagreements "
            f"({time.perf_counter() - t0:.0f} s)",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    return bad


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=100_000, help="7-card hands per pass")
    p.add_argument("--repeats", type=int, default=5, help="timed passes per evaluator")
    p.add_argument("--verify", type=int, default=0, help="hands to cross-check first")
    p.add_argument("--seed", type=int, default=2026)
    a = p.parse_args(argv)
    rng = random.Random(a.seed)
    treys_eval, tcards = _treys()
    status = 0
    if a.verify:
        if treys_eval is None:
            print("treys is not installed: cannot verify", file=sys.stderr)
            return 2
        bad = verify(a.verify, rng, treys_eval, tcards)
        print(f"cross-check: {a.verify:,} hands, {bad} disagreements with treys")
        status = 1 if bad else 0
    hands = [rng.sample(range(52), 7) for _ in range(a.hands)]
    contenders = {
        "gamehub evaluate": passes(evaluator.evaluate, hands),
        "gamehub evaluate_unchecked": passes(evaluator.evaluate_unchecked, hands),
        "gamehub evaluate_batch": lambda: len(evaluator.evaluate_batch(hands)),
    }
    try:
        import numpy
    except ImportError:
        print("numpy: not installed - no evaluate_array figure")
    else:
        array = numpy.array(hands)
        contenders["gamehub evaluate_array"] = lambda: len(evaluator.evaluate_array(array))
    goals = {}
    if treys_eval is None:
        print("treys: not installed (pip install treys) - no ratio to treys")
    else:
        thands = [[tcards[c] for c in h] for h in hands]

        def treys_fn(t, _e=treys_eval.evaluate):
            return _e(t[:2], t[2:])

        contenders["treys"] = passes(treys_fn, thands)
        goals["treys"] = "≥ 10 for evaluate"
    eval7 = _eval7()
    if eval7 is None:
        print("eval7: not installed (pip install eval7) - skipped, no ratio to eval7")
    else:
        deck = [eval7.Card(cards.format(c)) for c in range(52)]
        ehands = [[deck[c] for c in h] for h in hands]
        contenders["eval7"] = passes(eval7.evaluate, ehands)
        goals["eval7"] = "≥ 1.0 for the batch"
    print(f"python {sys.version.split()[0]}, {a.hands:,} hands x {a.repeats} passes, interleaved")
    figures = measure(contenders, "7-card evaluations/s", rounds=a.repeats)
    anchors = ("treys", "eval7")
    report("7-card hand evaluation", figures, "gamehub evaluate", goals, anchors)
    batch = (
        "gamehub evaluate_array"
        if "gamehub evaluate_array" in figures
        else "gamehub evaluate_batch"
    )
    for anchor in anchors:
        if anchor in figures:
            print(f"  ratio {batch}/{anchor}: {ratio(figures[batch], figures[anchor]):.3f}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
