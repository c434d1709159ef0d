"""The engine rows of ``python -m bench``: the passes of ``morris_engine.py``,
``poker_engine.py`` and ``evaluator.py`` (each module's own contenders, imported, not
copied), timed interleaved with their anchors by :func:`bench.common.measure`.
An anchor that is not installed gives a row without a ratio, with a note.
"""

from __future__ import annotations

import random

from bench.common import Row, measure


def morris(quick: bool) -> list[Row]:
    """Nine Men's Morris random playouts/s against OpenSpiel."""
    from bench import morris_engine as m

    n = 60 if quick else 300
    contenders = {"gamehub": m.passes(m.ours, n, 1)}
    note = ""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        note = "OpenSpiel not installed"
    else:
        contenders["OpenSpiel"] = m.passes(m.openspiel, n * 10, 1)
    figures = measure(contenders, "playouts/s", rounds=3 if quick else 7)
    return [
        Row(
            "Nine Men's Morris random playouts/s (vs OpenSpiel, C++)",
            figures["gamehub"],
            figures.get("OpenSpiel"),
            goal=(">=", 0.2),
            unit="playouts/s",
            note=note,
        )
    ]


def poker(quick: bool) -> list[Row]:
    """Heads-up fixed-limit Hold'em hands/s against pokerkit and OpenSpiel."""
    from bench import poker_engine as p
    from games.poker import rules

    n = 400 if quick else 2000
    limit = rules.FIXED_LIMIT
    contenders = {"gamehub": p.passes(p.ours, n, 1, limit)}
    missing = []
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        missing.append("pokerkit")
    else:
        contenders["pokerkit"] = p.passes(p.theirs, n, 1, limit)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        missing.append("OpenSpiel")
    else:
        contenders["OpenSpiel"] = p.passes(p.openspiel, n * 4, 1, limit)
    figures = measure(contenders, "hands/s", rounds=3 if quick else 7)
    what = "heads-up fixed-limit Hold'em hands/s, random actions"
    return [
        Row(
            f"{what} (vs {anchor})",
            figures["gamehub"],
            figures.get(anchor),
            goal=goal,
            unit="hands/s",
            note=f"{anchor} not installed" if anchor in missing else "",
        )
        for anchor, goal in (("pokerkit", (">=", 12.0)), ("OpenSpiel", (">=", 0.2)))
    ]


def evaluator(quick: bool) -> list[Row]:
    """7-card evaluations/s: one a call against treys, the batch against eval7."""
    from bench import evaluator as e
    from games.poker import cards
    from games.poker import evaluator as ours

    rng = random.Random(2026)
    hands = [rng.sample(range(52), 7) for _ in range(20_000 if quick else 100_000)]
    contenders = {"gamehub evaluate": e.passes(ours.evaluate, hands)}
    try:
        import numpy
    except ImportError:
        contenders["gamehub batch"] = lambda: len(ours.evaluate_batch(hands))
    else:
        array = numpy.array(hands)
        contenders["gamehub batch"] = lambda: len(ours.evaluate_array(array))
    treys_eval, tcards = e._treys()
    if treys_eval is not None:
        thands = [[tcards[c] for c in h] for h in hands]

        def treys(t, _e=treys_eval.evaluate):
            return _e(t[:2], t[2:])

        contenders["treys"] = e.passes(treys, thands)
    eval7 = e._eval7()
    if eval7 is not None:
        deck = [eval7.Card(cards.format(c)) for c in range(52)]
        contenders["eval7"] = e.passes(eval7.evaluate, [[deck[c] for c in h] for h in hands])
    figures = measure(contenders, "evaluations/s", rounds=3 if quick else 7)
    return [
        Row(
            "7-card evaluations/s, one a call (vs treys)",
            figures["gamehub evaluate"],
            figures.get("treys"),
            goal=(">=", 10.0),
            unit="evals/s",
            note="" if treys_eval is not None else "treys not installed",
        ),
        Row(
            "7-card evaluations/s, the batch (vs eval7)",
            figures["gamehub batch"],
            figures.get("eval7"),
            goal=(">=", 1.0),
            unit="evals/s",
            note="" if eval7 is not None else "eval7 not installed: no ratio",
        ),
    ]


def rows(quick: bool) -> list[Row]:
    """Every engine row."""
    return morris(quick) + poker(quick) + evaluator(quick)
