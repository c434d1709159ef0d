"""The kinds of the events a kit game sends besides the hub's own (``state``,
``turn``, ``game_over``...): shared by the game base (:mod:`hub.kit.game`) and the
isolated host (:mod:`hub.plugins.isolation.host`), which must not import the game base."""

from __future__ import annotations

#: a move was made: ``seat``, ``move``, ``label``
MOVED = "moved"
#: a player took a seat: ``seat``, ``name``
SEATED = "seated"
#: a player left a seat: ``seat``
LEFT = "left"
#: seats whose time ran out: ``seats``
TIMEOUT = "timeout"

__all__ = ["LEFT", "MOVED", "SEATED", "TIMEOUT"]
