"""Poker: a generic engine (fixed-limit Texas Hold'em first), cards, evaluator, shuffle."""
