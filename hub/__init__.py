"""Gamehub: a game server for turn-based games on Twisted."""

__version__ = "1.0.0"
