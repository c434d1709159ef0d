"""Tests of the game engines."""
