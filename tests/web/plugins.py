"""A test bot plugin for the web tests: plays the first legal action of any game.

Dropped into a hub's data folder with :func:`install_first_legal` (a ``.meta`` naming
this importable module), the way an operator drops in a bot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory


@implementer(IBot)
class FirstLegalBot:
    """Plays ``legal[0]``."""

    def choose(self, view: Any, legal: list[dict[str, Any]], deadline: float) -> dict[str, Any]:
        """The first legal action (a hello gets a text)."""
        action = dict(legal[0])
        if action == {"hello": ""}:
            action["hello"] = "hi from first-legal"
        return action


@implementer(IBotFactory)
class FirstLegalBotFactory:
    """The ``first-legal`` bot."""

    name = "first-legal"
    summary = "Plays the first legal action (tests)."
    games = ("hello", "nmmorris", "kingdomino", "texas-holdem", "five-card-draw")

    def create(self, game_type: str, seat: int, options: Any) -> FirstLegalBot:
        """A bot for one seat."""
        return FirstLegalBot()


META = """[plugin]
name = "first-legal"
kind = "bot"
version = "1.0.0"
summary = "Plays the first legal action (tests)."
server = "tests.web.plugins:FirstLegalBotFactory"
"""


def install_first_legal(data: Path) -> None:
    """Drop the ``first-legal`` bot's ``.meta`` into the data folder ``data``."""
    folder = data / "bots" / "meta"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "first-legal.meta").write_text(META, encoding="utf-8")
