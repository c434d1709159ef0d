"""A match state of the ACPC protocol read back into a hand, on the program's side.

:func:`parse` reads ``MATCHSTATE:<position>:<hand>:<betting>:<cards>``;
:class:`Hand` replays its betting with the game's rules (:data:`GAMES`: blinds by
position, who acts first in each round, bet sizes, raises per round, stacks) to know
whose turn it is, what calling costs and which raises are allowed, as a program of the
protocol must (the server does not say whose turn it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

RANKS, SUITS = "23456789TJQKA", "cdhs"
_STATE = re.compile(r"^MATCHSTATE:(\d+):(\d+):([^:]*):([^:]*)$")
_ACTION = re.compile(r"[fc]|r\d*")


@dataclass(frozen=True)
class Rules:
    """One game of the competition, as a program needs it."""

    players: int
    limit: bool
    blinds: tuple[int, ...]  #: by position
    first: tuple[int, ...]  #: first position to act, by round
    bets: tuple[int, ...] = (10, 10, 20, 20)  #: limit bet size, by round
    raises: tuple[int, ...] = (3, 4, 4, 4)  #: limit raises, by round
    stack: int = 0  #: no limit: every hand's stack

    @property
    def big_blind(self) -> int:
        """The largest blind."""
        return max(self.blinds)


GAMES = {
    "holdem.limit.2p.reverse_blinds": Rules(2, True, (10, 5), (1, 0, 0, 0)),
    "holdem.limit.3p": Rules(3, True, (5, 10, 0), (2, 0, 0, 0)),
    "holdem.nolimit.2p.reverse_blinds": Rules(2, False, (100, 50), (1, 0, 0, 0), stack=20000),
}


def cards_of(text: str) -> list[int]:
    """``TdAs`` → card numbers (rank × 4 + suit; 2c is 0, As is 51)."""
    out = []
    for i in range(0, len(text) - 1, 2):
        out.append(RANKS.index(text[i]) * 4 + SUITS.index(text[i + 1]))
    return out


@dataclass
class Hand:
    """A hand replayed from a match state."""

    rules: Rules
    position: int
    number: int
    rounds: list[list[str]]
    hole: list[list[int]]
    board: list[int]
    spent: list[int] = field(default_factory=list)
    folded: set[int] = field(default_factory=set)
    level: int = 0  #: the total each must have put in to stay
    round_start: list[int] = field(default_factory=list)
    last_raise: int = 0
    raises: int = 0
    need: set[int] = field(default_factory=set)
    next: int | None = None
    over: bool = False

    @property
    def round(self) -> int:
        """The betting round: 0 preflop … 3 river."""
        return len(self.rounds) - 1

    def _can_act(self, p: int) -> bool:
        return p not in self.folded and (self.rules.limit or self.spent[p] < self.rules.stack)

    def _order(self, start: int) -> list[int]:
        n = self.rules.players
        return [(start + i) % n for i in range(n)]

    def replay(self) -> Hand:
        """Play the betting through; sets :attr:`next` (``None``: nobody is to act)."""
        r = self.rules
        self.spent = list(r.blinds)
        self.level = r.big_blind
        for number, actions in enumerate(self.rounds):
            self.round_start = list(self.spent)
            if number > 0:
                self.level = max(self.spent)
            self.raises = 0
            self.last_raise = r.big_blind
            self.need = {p for p in range(r.players) if self._can_act(p)}
            if len([p for p in self.need]) < 2 and all(
                self.spent[p] >= self.level for p in self.need
            ):
                self.need = set()
            actor = r.first[min(number, 3)]
            for action in actions:
                while not self._can_act(actor):
                    actor = (actor + 1) % r.players
                self._apply(actor, action)
                actor = (actor + 1) % r.players
            self.next = None
            if len(self.folded) >= r.players - 1:
                self.over = True
                return self
            for p in self._order(actor):
                if p in self.need and self._can_act(p):
                    self.next = p
                    break
        if self.next is None:
            self.over = True
        return self

    def _apply(self, p: int, action: str) -> None:
        r = self.rules
        if action == "f":
            self.folded.add(p)
        elif action == "c":
            self.spent[p] = min(self.level, r.stack) if not r.limit else self.level
        else:
            if r.limit:
                new = self.level + r.bets[min(self.round, 3)]
            else:
                new = int(action[1:])
            self.last_raise = max(self.last_raise, new - self.level)
            self.level = new
            self.spent[p] = new
            self.raises += 1
            self.need = {q for q in range(r.players) if self._can_act(q)}
        self.need.discard(p)

    def legal(self) -> list[dict[str, object]]:
        """The choices of the player to act, in the words of Gamehub's poker bots
        (round totals, as their view has them)."""
        r = self.rules
        p = self.position
        before = self.round_start[p]
        to_call = self.level - self.spent[p]
        out: list[dict[str, object]] = []
        if to_call > 0:
            out.append({"name": "fold"})
            out.append({"name": "call", "amount": str(to_call)})
        else:
            out.append({"name": "check"})
        name = "raise" if self.level > self.round_start_level() else "bet"
        if r.limit:
            cap = r.raises[min(self.round, 3)]
            if self.raises < cap:
                out.append(
                    {"name": name, "amount": str(self.level + r.bets[min(self.round, 3)] - before)}
                )
        else:
            low = self.level + max(self.last_raise, r.big_blind)
            high = r.stack
            if self.level < high:
                out.append(
                    {"name": name, "min": str(min(low, high) - before), "max": str(high - before)}
                )
        return out

    def round_start_level(self) -> int:
        """The level the round started at (the big blind preflop)."""
        return self.rules.big_blind if self.round == 0 else max(self.round_start)

    def view(self) -> dict[str, object]:
        """A table view in the shape Gamehub's poker bots read (seats are positions)."""
        r = self.rules
        pot = sum(self.spent)
        players = {}
        for q in range(r.players):
            players[q] = {
                "seat": q,
                "name": f"position {q}",
                "inpot": str(self.spent[q]),
                "inpotthisround": str(self.spent[q] - self.round_start[q]),
                "state": "folded" if q in self.folded else "active",
            }
        players[self.position]["holecards"] = self.hole[self.position]
        return {
            "hole": self.hole[self.position],
            "board": self.board,
            "stage": self.round,
            "smallbet": str(r.bets[0]),
            "bigbet": str(r.bets[2]),
            "pot": str(pot),
            "button": r.players - 1,
            "players": players,
            "betsthisround": self.raises + (1 if self.round == 0 else 0),
            "cap": (r.raises[min(self.round, 3)] + (1 if self.round == 0 else 0))
            if r.limit
            else 100,
        }


def parse(line: str, rules: Rules) -> Hand | None:
    """A match state line as a replayed :class:`Hand` (``None``: not a match state)."""
    m = _STATE.match(line)
    if m is None:
        return None
    position, number, betting, cards = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
    rounds = [_ACTION.findall(part) for part in betting.split("/")]
    parts = cards.split("/")
    hole = [cards_of(h) for h in parts[0].split("|")]
    board = [c for part in parts[1:] for c in cards_of(part)]
    if len(hole) != rules.players or not 0 <= position < rules.players:
        return None
    return Hand(rules, position, number, rounds, hole, board).replay()


def letter(action: dict[str, object], hand: Hand) -> str:
    """A poker bot's action as the protocol's letters (``r<N>``: raise to N this hand)."""
    name = action.get("name")
    if name == "fold":
        return "f"
    if name in ("bet", "raise"):
        if hand.rules.limit:
            return "r"
        amount = int(float(str(action.get("amount", 0))))
        return f"r{amount + hand.round_start[hand.position]}"
    return "c"
