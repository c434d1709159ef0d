"""The error every refused action raises."""

from __future__ import annotations


class RuleError(ValueError):
    """An action the rules refuse now; nothing changed.

    :ivar reason: the reason, for people.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
