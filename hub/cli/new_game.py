"""``gamehub new-game NAME [--into DIR]``: write a working game on the kit to start from.

It writes ``DIR/<package>/`` (``__init__.py``, ``game.py``: the engine and its text
view; ``test_game.py``: its tests) and ``DIR/<NAME>.meta``, a drop-in plugin that a hub
loads as it is: copy the folder into ``<data>/plugins/`` and the ``.meta`` into
``<data>/plugins/meta/``.  Nothing is ever overwritten.
"""

from __future__ import annotations

import argparse
import importlib.resources
import keyword
import re
import sys
from collections.abc import Sequence
from pathlib import Path

NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
#: template → the file it becomes (``{package}`` the package folder)
FILES = {
    "init.py.txt": "{package}/__init__.py",
    "game.py.txt": "{package}/game.py",
    "test_game.py.txt": "{package}/test_game.py",
    "meta.txt": "{name}.meta",
}


def skeleton(name: str) -> dict[str, str]:
    """Relative path → text of the skeleton of game ``name``.

    :raises ValueError: ``name`` is not a usable game name."""
    if not NAME.match(name) or name.endswith("-") or "--" in name:
        raise ValueError(f"{name!r} is not a game name: a-z, 0-9 and -, starting with a letter")
    package = name.replace("-", "_")
    if keyword.iskeyword(package) or package in sys.stdlib_module_names or package == "hub":
        raise ValueError(f"{name!r} would shadow Python's {package!r}: choose another name")
    words = {
        "__NAME__": name,
        "__PACKAGE__": package,
        "__CLASS__": "".join(part.capitalize() for part in name.split("-")),
        "__TITLE__": name.replace("-", " ").capitalize(),
    }
    templates = importlib.resources.files("hub.kit") / "skeleton"
    out = {}
    for template, target in FILES.items():
        text = (templates / template).read_text(encoding="utf-8")
        for key, value in words.items():
            text = text.replace(key, value)
        out[target.format(package=package, name=name)] = text
    return out


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub new-game``: 0 when written, 2 for a bad name or a path
    that exists."""
    parser = argparse.ArgumentParser(
        prog="gamehub new-game",
        description="Write a working game on the kit (engine, tests, .meta) to start from.",
    )
    parser.add_argument("name", help="the game type's name: a-z, 0-9 and -")
    parser.add_argument("--into", default=".", metavar="DIR", help="where to write it (.)")
    args = parser.parse_args(list(argv))
    try:
        files = skeleton(args.name)
    except ValueError as e:
        parser.error(str(e))
    into = Path(args.into)
    taken = sorted(
        {str(into / p.split("/")[0]) for p in files if (into / p.split("/")[0]).exists()}
    )
    if taken:
        parser.error(f"{', '.join(taken)} exists already: nothing was written")
    for path, text in files.items():
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    package = args.name.replace("-", "_")
    print(f"wrote {into / package}/ and {into / args.name}.meta")
    print(f"test it:  python -m pytest {into / package}")
    print(f"play it:  copy {package}/ into <data>/plugins/ and {args.name}.meta into")
    print("          <data>/plugins/meta/ of a running hub (docs/plugins.md, Write a game)")
    return 0
