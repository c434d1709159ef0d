"""A program of the ACPC protocol (2.0.0) that plays with one of Gamehub's poker bots:
``python -m bots.acpc HOST PORT [--game NAME] [--bot caller]``.

It connects, says ``VERSION:2.0.0``, reads match states (:mod:`.state` replays each
one to know whose turn it is and what is allowed), asks the bot on its turn and
answers with the state and the action; it ignores comment lines, and stops when the
server closes the connection.  It plays on Gamehub's ACPC front end and on any other
dealer of the protocol.
"""

from __future__ import annotations

from .client import play

__all__ = ["play"]
