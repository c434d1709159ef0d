"""Built-in games: each a pure rules engine plus the adapters that host it."""
