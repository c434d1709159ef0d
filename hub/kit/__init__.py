"""The platform kit: the one documented, stable API for writing a game (docs/plugins.md,
"Write a game").

A game is a subclass of :class:`Game` (``Game[State, Move]``): a pure engine
(``setup``, ``legal``, ``apply``, ``result``; ``view``, ``text``, ``describe`` and
``parse`` have defaults) that is also its own game type; a two-player game that
declares a :class:`Board` is also played over MNM.  The hub then does the rest:
seating, turns, the move clock, events, transcripts, the XML payloads, the generic web
page, the generic bots (random and Monte-Carlo tree search, :mod:`hub.kit.search`) and
``gamehub play``.  The names below are the kit; the rest of the hub is not for games.
"""

from __future__ import annotations

from .board import Board
from .engine import (
    Engine,
    Json,
    KitError,
    Option,
    Options,
    OptionValue,
    check_options,
    decode,
    jsonable,
    outcome_words,
    rewards,
    winners,
)
from .game import FRONTENDS, MOVE_TIME, Game, KitGame, game_type, loaded_types
from .seams import Bot, Clock, Config, Context, DelayedCall

__all__ = [
    "FRONTENDS",
    "MOVE_TIME",
    "Board",
    "Bot",
    "Clock",
    "Config",
    "Context",
    "DelayedCall",
    "Engine",
    "Game",
    "Json",
    "KitError",
    "KitGame",
    "Option",
    "OptionValue",
    "Options",
    "check_options",
    "decode",
    "game_type",
    "jsonable",
    "loaded_types",
    "outcome_words",
    "rewards",
    "winners",
]
