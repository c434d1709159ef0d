"""Cross-check poker payoffs against pokerkit and print the agreement count.

Usage: ``python bench/poker_oracle.py [HANDS]`` (default 10,000) from the checkout root.
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, ".")

from tests.games.poker.test_rules_oracle import run  # noqa: E402


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 10_000
    t0 = time.perf_counter()
    agree, bad, side_pots, splits = run(0, count)
    dt = time.perf_counter() - t0
    print(f"hands: {count}  agree with pokerkit: {agree}  disagree: {len(bad)}")
    print(f"hands with side pots: {side_pots}  hands with a split pot: {splits}")
    print(f"time: {dt:.1f} s")
    for why in bad[:10]:
        print("  ", why)
    return 0 if not bad else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
