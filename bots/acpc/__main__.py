"""``python -m bots.acpc HOST PORT [--game NAME] [--bot NAME] [--seed N] [--tls | --ca
FILE]``: one of
Gamehub's poker bots as a program of the ACPC protocol; it plays until the server
closes the connection, then prints how many hands it played and the server's last
comment.  ``--tls`` speaks TLS (the system's CAs), ``--ca FILE`` trusts that CA."""

from __future__ import annotations

import argparse
import ssl
import sys
from collections.abc import Sequence

from bots.poker.policies import POLICIES

from .client import play
from .state import GAMES


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.acpc", description=__doc__)
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--game", choices=sorted(GAMES), default="holdem.limit.2p.reverse_blinds")
    parser.add_argument("--bot", choices=sorted(POLICIES), default="caller")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--tls", action="store_true", help="speak TLS (an ssl: port)")
    parser.add_argument("--ca", default=None, help="TLS, trusting the CA certificate FILE")
    args = parser.parse_args(argv)
    tls = None
    if args.tls or args.ca:
        try:
            tls = ssl.create_default_context(cafile=args.ca)
        except (OSError, ssl.SSLError) as e:
            print(f"cannot use --ca {args.ca}: {e}", file=sys.stderr)
            return 1
    try:
        seen = play(args.host, args.port, args.game, args.bot, args.seed, tls=tls)
    except OSError as e:
        print(f"cannot play: {e}", file=sys.stderr)
        return 1
    last = seen["comments"][-1] if seen["comments"] else ""
    print(f"{seen['hands']} hands, {seen['actions']} actions. {last}".strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
