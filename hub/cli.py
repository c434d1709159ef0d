"""The ``gamehub`` console command: a dispatcher for sub-commands.

Each sub-command lives in the module that owns its subject and is listed in
:data:`COMMANDS` as ``"module:function"``; the function takes the remaining arguments
(a list of strings) and returns an exit status.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

#: sub-command → ("module:function", one line of help)
COMMANDS: dict[str, tuple[str, str]] = {
    "domino-match": (
        "bots.kingdomino.match:main",
        "King Domino bots' win shares over seeded games",
    ),
    "run": ("hub.runner:main", "run the hub in the foreground (same options as twistd gamehub)"),
    "match": ("hub.match:main", "play duplicate poker deals between two bots, mbb/hand ± 95% CI"),
    "verify-hand": ("hub.verify_hand:main", "check a stored poker hand against its shuffle seed"),
    "hand-history": ("hub.hand_history_cli:main", "print a stored poker hand as readable text"),
    "account": ("hub.store.cli:account_main", "create|delete|list|set-type|grant accounts"),
    "ledger": ("hub.store.cli:ledger_main", "prove every chip is accounted for; problems; hubs"),
    "fetch": ("hub.fetch:main", "download a plugin from a hub, verify it, install it into DIR"),
    "xml-client": ("hub.xml_client_cli:main", "interactive XML protocol client (--hub HOST:PORT)"),
}


def usage() -> str:
    """The help text listing every sub-command."""
    lines = ["usage: gamehub COMMAND [ARGS...]", "", "commands:"]
    for name, (_, summary) in sorted(COMMANDS.items()):
        lines.append(f"  {name:<14} {summary}")
    lines.append("")
    lines.append("gamehub COMMAND --help shows the options of one command.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gamehub`` script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"gamehub: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, _, function_name = COMMANDS[name][0].partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    return int(function(rest) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
