"""Tournaments: round robin, Swiss, rotating tables and sit-and-go, for any game type.

:mod:`.pairing` is the arithmetic (pairings, standings, tie-breaks), :mod:`.model` a
tournament as data, :mod:`.service` the runner (games on the lobby, results, the store,
routes for network clients).  See docs/tournaments.md.
"""
