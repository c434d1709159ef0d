"""Progress bars for the command line (``tqdm``): drawn on a terminal, silent otherwise.

``gamehub fetch``, ``gamehub match``, ``gamehub domino-match`` and
``bench/morris_strength.py`` all use :func:`bar`, so a run piped into a file or a CI log
has no bar in it, only the commands' own result lines.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from tqdm import tqdm


def on_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal."""
    isatty = getattr(stream, "isatty", None)  # foreign: any stream
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def bar(
    total: int | None,
    desc: str,
    stream: IO[str] | None = None,
    unit: str = "it",
    enabled: bool = True,
    **options: Any,
) -> tqdm:
    """A ``tqdm`` bar on ``stream`` (default ``sys.stderr``), disabled unless it is a
    terminal and ``enabled``; ``options`` go to ``tqdm`` (``unit_scale``...).

    Use it as a context manager, or call ``close()``.
    """
    out = stream if stream is not None else sys.stderr
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=out,
        disable=not (enabled and on_terminal(out)),
        dynamic_ncols=True,
        **options,
    )
