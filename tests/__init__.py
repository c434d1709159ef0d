"""Gamehub tests."""
