"""One shape for every game package (issue 14): ``games/<game>/`` has its pure rules
(``rules.py`` or ``rules/``), ``server.py`` (the factory and the game), ``adapters.py``
(every front end's adapter), ``client.py`` (what clients download) and ``web.js``."""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import pytest
from zope.interface.verify import verifyObject

from hub.interfaces import (
    IACPCAdapter,
    IDominoAdapter,
    IMNMGameAdapter,
    IRelayAdapter,
    IWebView,
    IXMLGameAdapter,
)

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(p.name for p in (ROOT / "games").iterdir() if (p / "__init__.py").exists())
#: what a front end's adapter provides
INTERFACES = {
    "xml": IXMLGameAdapter,
    "mnm": IMNMGameAdapter,
    "domino": IDominoAdapter,
    "web": IWebView,
    "acpc": IACPCAdapter,
    "relay": IRelayAdapter,
}


def builtin_games() -> list[dict]:
    """The ``[plugin]`` tables of the built-in game ``.meta`` files."""
    found = []
    for path in sorted((ROOT / "meta").glob("*.meta")):
        plugin = tomllib.loads(path.read_text(encoding="utf-8"))["plugin"]
        if plugin["kind"] == "game":
            found.append(plugin)
    return found


def relative_imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports (``from . import x``, ``from .x import y``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_the_games_are_the_four_built_ins():
    assert GAMES == ["hello", "kingdomino", "morris", "poker"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_the_same_modules(game):
    folder = ROOT / "games" / game
    assert (folder / "rules.py").is_file() or (folder / "rules" / "__init__.py").is_file()
    for name in ("server.py", "adapters.py", "client.py", "web.js"):
        assert (folder / name).is_file(), f"games/{game}/{name}"
    # the adapters and the client lean on the rules, never on the server (no cycle)
    assert "server" not in relative_imports(folder / "adapters.py")
    assert "server" not in relative_imports(folder / "client.py")


@pytest.mark.parametrize("plugin", builtin_games(), ids=lambda p: p["name"])
def test_every_built_in_game_names_its_client_and_adapters(plugin):
    module_name, _, attr = plugin["server"].partition(":")
    package = module_name.rsplit(".", 1)[0]
    assert plugin["client"] == f"{package}.client"
    client = importlib.import_module(plugin["client"])
    assert client.__doc__ and "client" in client.__doc__
    factory = getattr(importlib.import_module(module_name), attr)()
    adapters = importlib.import_module(f"{package}.adapters")
    # (one package's games share its ADAPTERS: of poker's, hold'em alone hosts acpc)
    assert set(factory.frontends) == set(plugin["frontends"])
    assert set(factory.frontends) <= set(adapters.ADAPTERS)
    for frontend in factory.frontends:
        adapter = factory.adapter(frontend)
        assert isinstance(adapter, adapters.ADAPTERS[frontend])
        assert verifyObject(INTERFACES[frontend], adapter)
    assert factory.adapter("nothing") is None
