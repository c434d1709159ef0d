"""``gamehub fetch NAME [--hub URL] [--into DIR]``: download a plugin from a hub.

The work is :func:`hub.fetch.fetch`; this is its command line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from twisted.internet import defer, task

from hub.fetch import DEFAULT_HUB, DEFAULT_INTO, FetchError, fetch


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The options of ``gamehub fetch``."""
    parser = argparse.ArgumentParser(
        prog="gamehub fetch",
        description="Download a plugin from a hub, verify its SHA-256 and install it "
        "into DIR/plugins (games) or DIR/bots (bots) with its .meta.",
    )
    parser.add_argument("name", help="the plugin's name, as in /plugins/index.json")
    parser.add_argument("--hub", default=DEFAULT_HUB, help=f"the hub's web URL ({DEFAULT_HUB})")
    parser.add_argument(
        "--into", default=DEFAULT_INTO, help=f"the data folder to install into ({DEFAULT_INTO})"
    )
    return parser.parse_args(list(argv))


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub fetch``; returns 0 on success, 1 on failure."""
    args = parse_args(argv)
    outcome: dict[str, Any] = {}

    async def run(reactor: Any) -> None:
        try:
            path = await fetch(args.name, args.hub, args.into)
        except FetchError as e:
            outcome["error"] = str(e)
        except Exception as e:  # connection refused, DNS...
            outcome["error"] = f"{type(e).__name__}: {e}"
        else:
            outcome["path"] = path

    try:
        task.react(lambda reactor: defer.ensureDeferred(run(reactor)))
    except SystemExit:
        pass
    if "error" in outcome:
        print(f"gamehub fetch: {outcome['error']}; nothing was installed", file=sys.stderr)
        return 1
    print(f"installed {args.name}: {outcome['path']}")
    return 0
