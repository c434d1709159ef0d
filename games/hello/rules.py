"""Rules of ``hello``: pure, no I/O.

1 to 8 seats; each seated player says hello once with a short text (at most 200
characters); the game is over when every seat has said hello.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_TEXT = 200
MIN_SEATS, MAX_SEATS = 1, 8


class HelloError(Exception):
    """An action is refused; ``legal`` tells whether it was well formed but not legal now."""

    def __init__(self, reason: str, legal: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.well_formed = legal


@dataclass(frozen=True)
class Said:
    """A hello that was said."""

    seat: int
    name: str
    text: str

    @property
    def line(self) -> str:
        """What every observer reads."""
        return f"Hello from {self.name}: {self.text}"


@dataclass
class HelloState:
    """The state of one hello game."""

    seats: int
    names: dict[int, str] = field(default_factory=dict)
    said: dict[int, Said] = field(default_factory=dict)

    @property
    def started(self) -> bool:
        """Every seat is taken."""
        return len(self.names) == self.seats

    @property
    def over(self) -> bool:
        """Every seat has said hello."""
        return self.started and len(self.said) == self.seats

    def pending(self) -> list[int]:
        """Seats that still have to say hello."""
        return [s for s in range(self.seats) if s not in self.said] if self.started else []

    def verify_sit(self, seat: int, name: str) -> None:
        """Raise :class:`HelloError` unless ``name`` may sit at ``seat``."""
        if not 0 <= seat < self.seats:
            raise HelloError(f"there is no seat {seat}")
        if seat in self.names:
            raise HelloError(f"seat {seat} is taken", legal=True)

    def sit(self, seat: int, name: str) -> None:
        """Seat a player."""
        self.verify_sit(seat, name)
        self.names[seat] = name

    def verify_say(self, seat: int, text: object) -> str:
        """Raise :class:`HelloError` unless the player at ``seat`` may say ``text``."""
        if not isinstance(text, str) or not text.strip():
            raise HelloError("a hello is a non-empty text")
        if len(text) > MAX_TEXT:
            raise HelloError(f"a hello is at most {MAX_TEXT} characters, not {len(text)}")
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
            raise HelloError("a hello has no control characters")
        if not self.started:
            raise HelloError("the game has not started: not every seat is taken", legal=True)
        if seat in self.said:
            raise HelloError("you have said hello already", legal=True)
        return text

    def say(self, seat: int, text: object) -> Said:
        """Say hello; returns what was said."""
        said = Said(seat, self.names[seat], self.verify_say(seat, text))
        self.said[seat] = said
        return said
