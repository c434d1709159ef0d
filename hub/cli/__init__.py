"""The ``gamehub`` console command: a dispatcher for sub-commands.

The hub's own sub-commands live in this package and are listed in :data:`COMMANDS` as
``"module:function"``.  Plugins contribute theirs in their ``.meta`` file
(``[commands.<name>]`` with ``run = "module:function"`` and a ``summary``, see
docs/plugins.md); :func:`plugin_commands` reads the built-in plugins' ``.meta`` files
(nothing is imported and no hub is started to list them).  A function takes the
remaining arguments (a list of strings) and returns an exit status.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from hub.plugins.meta import MetaError, builtin_meta_dir, parse_meta

#: the hub's own sub-commands: name → ("module:function", one line of help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("hub.cli.run:main", "run the hub in the foreground (same options as twistd gamehub)"),
    "account": ("hub.cli.store:account_main", "create|delete|list|set-type|grant accounts"),
    "ledger": ("hub.cli.store:ledger_main", "prove every chip is accounted for; problems; hubs"),
    "ratings": ("hub.cli.ratings:ratings_main", "rebuild|show: ratings from the rated games"),
    "ladder": ("hub.cli.ratings:ladder_main", "a round robin of a game type's bots, rated"),
    "tournament": ("hub.cli.tournament:main", "create|list|show|register|start on a running hub"),
    "cluster": (
        "hub.cli.cluster:main",
        "status: the hubs sharing the database, their load, games; drain HUB",
    ),
    "audit": ("hub.cli.audit:main", "the audit log of admin actions (API and CLI), newest first"),
    "admin": (
        "hub.cli.admin:main",
        "bans|unban ADDRESS: the banned addresses (hub running or not)",
    ),
    "doctor": ("hub.cli.doctor:main", "check the ledger; list accounts that took reserved names"),
    "fetch": ("hub.cli.fetch:main", "download a plugin from a hub, verify it, install it into DIR"),
    "plugin": ("hub.cli.plugin:main", "keygen|sign|verify: Ed25519 signatures of plugin packages"),
    "xml-client": ("hub.cli.xml_client:main", "interactive XML protocol client (--hub HOST:PORT)"),
    "new-game": ("hub.cli.new_game:main", "write a working game on the kit (engine, tests, .meta)"),
    "play": (
        "hub.cli.play:main",
        "play a kit game of a hub as a person or a bot (its module fetched)",
    ),
    "acpc-match": ("hub.cli.acpc:main", "make an ACPC match on a running hub; print its ports"),
}


def plugin_commands(
    meta_dir: Path | None = None, problems: list[str] | None = None
) -> dict[str, tuple[str, str]]:
    """The sub-commands of the built-in plugins, read from their ``.meta`` files.

    :param meta_dir: the folder of ``.meta`` files (default: the built-ins').
    :param problems: collects one line for each ``.meta`` that cannot be read and each
        command whose name is taken already (by the hub, or by a plugin whose ``.meta``
        comes first by file name); those are left out, the others still work.
    """
    folder = builtin_meta_dir() if meta_dir is None else meta_dir
    found: dict[str, tuple[str, str]] = {}
    owner: dict[str, str] = {}
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".meta"))
    except OSError:
        names = []
    for filename in names:
        try:
            meta = parse_meta(folder / filename)
        except MetaError as e:
            if problems is not None:
                problems.append(f"{e}; its commands are left out")
            continue
        for command in meta.commands:
            taken = "the hub" if command.name in COMMANDS else owner.get(command.name)
            if taken is not None:
                if problems is not None:
                    problems.append(
                        f"plugin {meta.name}: command {command.name!r} is {taken}'s; left out"
                    )
                continue
            owner[command.name] = f"plugin {meta.name}"
            found[command.name] = (command.run, command.summary or f"(from plugin {meta.name})")
    return found


def all_commands(problems: list[str] | None = None) -> dict[str, tuple[str, str]]:
    """The hub's sub-commands and the built-in plugins' (see :func:`plugin_commands`)."""
    return {**COMMANDS, **plugin_commands(problems=problems)}


def usage() -> str:
    """The help text listing every sub-command."""
    problems: list[str] = []
    commands = all_commands(problems)
    lines = ["usage: gamehub COMMAND [ARGS...]", "", "commands:"]
    for name, (_, summary) in sorted(commands.items()):
        lines.append(f"  {name:<14} {summary}")
    lines.append("")
    lines.append("gamehub COMMAND --help shows the options of one command.")
    lines.extend(f"note: {p}" for p in problems)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gamehub`` script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    commands = all_commands()
    if name not in commands:
        print(f"gamehub: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, _, function_name = commands[name][0].partition(":")
    # a command named by a string
    function = getattr(importlib.import_module(module_name), function_name)
    return int(function(rest) or 0)
