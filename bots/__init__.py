"""Bots: in-hub players and stand-alone network clients."""
