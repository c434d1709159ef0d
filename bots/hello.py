"""A bot that plays ``hello``: it says hello, politely, once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory


@implementer(IBot)
class HelloBot:
    """Says ``Hello, I am a bot at seat N``."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def choose(
        self, view: Any, legal: Sequence[Mapping[str, Any]], deadline: float
    ) -> dict[str, Any]:
        """Say hello."""
        return {"hello": f"Hello, I am a bot at seat {self.seat}"}


@implementer(IBotFactory)
class HelloBotFactory:
    """The ``hello-bot`` bot plugin."""

    name = "hello-bot"
    summary = "Says hello once, politely."
    games = ("hello",)

    def create(self, game_type: str, seat: int, options: Any) -> HelloBot:
        """A bot for one seat."""
        return HelloBot(seat)
