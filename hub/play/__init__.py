"""Live games: the lobby, a game instance and its seats, bots, clock, journal and
table money (the game seam's hub side; the plugins' side is hub.interfaces and hub.kit)."""
