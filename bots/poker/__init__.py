"""Poker bots: decision policies on a small observation, and their hub plugins.

* :mod:`.observation` — :class:`~.observation.Observation`, what a seat may know.
* :mod:`.policies` — pure decision functions (``caller``, ``raiser``, ``poker-random``,
  ``holdem``): observation (+ a seeded ``random.Random``) → action index.
* :mod:`.equity` — Monte-Carlo equity against ranges, the preflop hand ranking.
"""
