"""``gamehub run [OPTIONS]``: the hub in the foreground, same as ``twistd -n gamehub``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(args: Sequence[str]) -> int:
    """Run ``twistd -n gamehub ARGS`` in this process (returns when the hub stops)."""
    from twisted.scripts.twistd import run

    sys.argv = ["twistd", "-n", "gamehub", *args]
    run()
    return 0
