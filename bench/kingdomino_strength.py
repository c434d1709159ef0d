"""King Domino bot strength: ``python bench/kingdomino_strength.py [--games 200] ...``.

The figures come from :mod:`bots.kingdomino.match` (also ``gamehub domino-match``):
greedy against three random players, and the Monte-Carlo ``domino`` bot against three
greedy players, over seeded games, with 95% intervals.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.kingdomino.match import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
