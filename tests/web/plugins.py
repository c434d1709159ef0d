"""A test bot plugin for the web tests: plays the first legal action of any game.

Dropped into a hub's data folder with :func:`install_first_legal` (a ``.meta`` naming
this importable module), the way an operator drops in a bot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory, IGame, IGameFactory, IWebView
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    STATE,
    TURN,
    WAITING,
    BadAction,
    GameConfig,
    GameContext,
    GameEvent,
    IllegalAction,
)


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


# -- a drop-in game that brings its own page script (IWebView.script) -------------------


@implementer(IGame)
class PressGame:
    """One seat; the player presses the button once and wins."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        self._context = context
        self.seats = config.seats
        self.name: str | None = None
        self.pressed = False

    @property
    def state(self) -> str:
        """``waiting``, ``running``, ``over``."""
        if self.pressed:
            return OVER
        return RUNNING if self.name else WAITING

    def seat_player(self, seat: int, name: str) -> None:
        """Seat the player; the game starts."""
        self.name = name
        self._context.emit(GameEvent(STATE, {"state": RUNNING}))
        self._context.emit(GameEvent(TURN, {"seat": 0, "legal": [{"press": True}]}))

    def leave(self, seat: int) -> None:
        """Nothing to do."""

    def act(self, seat: int, action: Any) -> None:
        """Press."""
        if dict(action) != {"press": True}:
            raise BadAction('the only action is {"press": true}')
        if self.pressed:
            raise IllegalAction("pressed already")
        self.pressed = True
        self._context.emit(GameEvent("pressed", {"seat": seat}))
        self._context.emit(GameEvent(GAME_OVER, {"result": self.result()}))

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """Press while running."""
        return [{"press": True}] if self.state == RUNNING else []

    def view(self, seat: int | None) -> dict[str, Any]:
        """Who sits, whether pressed."""
        return {"name": self.name, "pressed": self.pressed}

    def result(self) -> dict[str, Any] | None:
        """The presser wins."""
        if not self.pressed:
            return None
        return {"winners": [0], "scores": [1], "summary": f"{self.name} pressed"}

    def stop(self) -> None:
        """No timers."""


@implementer(IWebView)
class PressWebView:
    """The page script of ``press``: ``tinyweb.js`` next to this module."""

    script = "tinyweb.js"


@implementer(IGameFactory)
class PressGameFactory:
    """The ``press`` game type (tests of plugin page scripts)."""

    name = "press"
    summary = "Press the button (tests)."
    variants: tuple[str, ...] = ()
    min_seats = 1
    max_seats = 1
    default_seats = 1
    frontends = ("web",)

    def create(self, config: GameConfig, context: GameContext) -> PressGame:
        """A new game."""
        return PressGame(config, context)

    def adapter(self, frontend: str) -> Any:
        """The web adapter brings a page script."""
        return PressWebView() if frontend == "web" else None


PRESS_META = """[plugin]
name = "press"
kind = "game"
version = "1.0.0"
summary = "Press the button (tests)."
server = "tests.web.plugins:PressGameFactory"
frontends = ["web"]
"""


def install_press(data: Path) -> None:
    """Drop the ``press`` game's ``.meta`` into the data folder ``data``."""
    folder = data / "plugins" / "meta"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "press.meta").write_text(PRESS_META, encoding="utf-8")
