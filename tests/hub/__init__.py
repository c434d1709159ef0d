"""Tests of the hub core."""
