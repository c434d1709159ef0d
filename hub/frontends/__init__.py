"""Gamehub front ends: one codec + protocol per wire format."""
