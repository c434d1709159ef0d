"""Plugs Texas Hold'em into the ACPC front end (spec acpc-protocol.md): the match
states of the Annual Computer Poker Competition's protocol 2.0.0, the reading of a
program's replies and the lines of the dealer's match log.

Everything poker of the ACPC wire is here; the front end (:mod:`hub.frontends.acpc`)
only frames lines, keeps time and runs matches.

- :data:`GAMES`: the competition's games this table plays (heads-up fixed limit with
  reverse blinds, three-player fixed limit, heads-up no limit with stacks of 20,000
  reset every hand) and the Texas Hold'em table options that make each
  (:meth:`ACPCAdapter.table`).
- :class:`SeatView`: one seat's view of a table, built from the game's events: the
  ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` text after every action and at
  the end of each hand, the prompt the seat must answer, and the reading of its reply
  (``c`` check or call, ``f`` fold, ``r`` raise in limit games, ``r<N>`` raise **to**
  N chips put in this hand in no-limit games), with the dealer's corrections of bad
  replies or, in strict mode, the verdict that ends the match.
- :meth:`ACPCAdapter.log_line`: ``STATE:<hand>:<betting>:<cards>:<payoffs>:<names>``
  from the hand's full record.

Positions: position 0 is the first player after the button (the big blind heads-up,
where the button posts the small blind; the small blind with three players), the
order the engine deals in (the ``deal`` event's ``seats``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from zope.interface import implementer

from hub.frontends.acpc.codec import log_number
from hub.interfaces import IACPCAdapter, IACPCSeatView
from hub.model import HAND_OVER, TURN, GameError, GameEvent

from . import cards
from .acpc_score import dealer_payoffs

#: ``r`` / ``r<N>`` letters of the engine's actions
LETTERS = {"fold": "f", "check": "c", "call": "c", "bet": "r", "raise": "r"}
#: a no-limit raise's size, as the dealer reads it after the ``r`` (``%d``)
_SIZE = re.compile(r"^\s*([+-]?[0-9]{1,10})")


@dataclass(frozen=True)
class Game:
    """One of the competition's games, as a Gamehub poker table.

    :ivar players: seats at the table.
    :ivar limit: the Texas Hold'em variant (``fixed-limit`` or ``no-limit``).
    :ivar stakes: the table's ``stakes`` option (small bet/big bet; the big blind is
        the small bet, the small blind half of it).
    :ivar hand_stack: the stack every hand starts from (``None``: unlimited, as the
        limit games of the competition).
    :ivar worst: the most a player can lose in one hand (for the buy-in of a match).
    """

    players: int
    limit: str
    stakes: str
    hand_stack: int | None
    worst: int

    @property
    def big_blind(self) -> int:
        """The big blind, in chips (the unit of mbb/hand)."""
        return int(self.stakes.split("/")[0])


#: ACPC game name → the table that plays it
GAMES: dict[str, Game] = {
    "holdem.limit.2p.reverse_blinds": Game(2, "fixed-limit", "10/20", None, 240),
    "holdem.limit.3p": Game(3, "fixed-limit", "10/20", None, 240),
    "holdem.nolimit.2p.reverse_blinds": Game(2, "no-limit", "100/200", 20000, 20000),
}
#: short names accepted for the games
ALIASES = {
    "limit": "holdem.limit.2p.reverse_blinds",
    "limit.2p": "holdem.limit.2p.reverse_blinds",
    "limit.3p": "holdem.limit.3p",
    "nolimit": "holdem.nolimit.2p.reverse_blinds",
    "nolimit.2p": "holdem.nolimit.2p.reverse_blinds",
}


def game_of(name: str) -> tuple[str, Game]:
    """The canonical name and :class:`Game` of ``name`` (an ACPC game or an alias).

    :raises hub.model.GameError: no such game.
    """
    full = ALIASES.get(name, name)
    if full not in GAMES:
        raise GameError(f"no ACPC game {name!r}; one of {', '.join([*GAMES, *ALIASES])}")
    return full, GAMES[full]


def card_text(values: Sequence[int]) -> str:
    """Cards in ACPC text: ``TdAs`` (rank then suit, no separator)."""
    return "".join(cards.format(c) for c in values)


@implementer(IACPCAdapter)
class ACPCAdapter:
    """Texas Hold'em on the ACPC front end (see the module)."""

    game_type = "texas-holdem"

    @property
    def games(self) -> tuple[str, ...]:
        """The ACPC games (and their short names) a match may be played in."""
        return (*GAMES, *ALIASES)

    def table(
        self,
        game: str,
        hands: int,
        deal_seed: str | None,
        dealer_seed: int | None = None,
        show_all: bool = True,
    ) -> dict[str, Any]:
        """How to make a table that plays ``hands`` hands of ``game``: ``type``,
        ``variant``, ``seats``, ``options`` (for :meth:`hub.play.lobby.Lobby.create_game`),
        ``game`` (the canonical name) and ``big_blind``.  ``dealer_seed``: the
        reference dealer's deals for that seed; ``show_all``: every hand that did not
        fold is shown at the showdown (the dealer's rule; else a bot or a person may
        muck a losing hand).

        :raises hub.model.GameError: no such game, or a bad number of hands.
        """
        name, g = game_of(game)
        if isinstance(hands, bool) or not isinstance(hands, int) or not 1 <= hands <= 1000000:
            raise GameError("a match has 1 to 1,000,000 hands")
        options: dict[str, Any] = {
            "stakes": g.stakes,
            "chip": "1",
            "buyin": str(g.worst * hands),
            "min_buyin": str(g.worst * hands),
            "max_buyin": str(g.worst * hands),
            "min_players": g.players,
            "auto_post": True,
            "showdown_pause": 0,
            "hands": hands,
            "first_button": g.players - 1,  # position 0 is the first seat
        }
        if g.hand_stack is not None:
            options["hand_stack"] = str(g.hand_stack)
        if dealer_seed is not None:
            options["dealer_seed"] = dealer_seed
        elif deal_seed is not None:
            options["deal_seed"] = deal_seed
        if show_all:
            options["show_all"] = True
        return {
            "type": self.game_type,
            "variant": g.limit,
            "seats": g.players,
            "options": options,
            "game": name,
            "big_blind": g.big_blind,
        }

    def seat_view(self, seat: int, game: str, first_hand: int = 0) -> SeatView:
        """The match states of ``seat`` at a table of ``game``; the table's hand 1 is
        the match's hand ``first_hand``."""
        _, g = game_of(game)
        return SeatView(seat, g, first_hand)

    def log_line(
        self,
        engine: Any,
        event: GameEvent,
        view: SeatView,
        names: Mapping[int, str],
        exact: bool = True,
    ) -> tuple[str, dict[int, Fraction]] | None:
        """The log's ``STATE:`` line of the hand ``event`` (a hand-over event) ended,
        and each seat's payoff, from ``view`` (a spectator's :class:`SeatView` fed the
        table's public events) and the hand's full record in ``engine``; ``names``
        gives each seat's player.  ``None`` when the hand left no record.

        With ``exact`` the payoffs are the reference dealer's (pots split exactly,
        :func:`.acpc_score.dealer_payoffs`), else the table's results in whole chips.
        """
        if event.kind != HAND_OVER:
            return None
        hand_id = event.data.get("handid")
        record = engine.hand_record(hand_id) if hasattr(engine, "hand_record") else None
        if record is None or view.positions is None:
            return None
        hole = {int(s): list(cs) for s, cs in record["hole"]}
        seats = view.positions
        values: dict[int, Fraction]
        if exact:
            spent = {s: view.paid.get(s, Decimal(0)) for s in seats}
            dealt = [c for group in view.board for c in group]
            values = dealer_payoffs(spent, view.folded, hole, dealt)
        else:
            values = {int(s): Fraction(str(d)) for s, d in record["deltas"]}
        shown = "|".join(card_text(hole.get(s, ())) for s in seats)
        board = "".join("/" + card_text(group) for group in view.board)
        payoffs = "|".join(log_number(values.get(s, 0)) for s in seats)
        players = "|".join(_log_name(names.get(s, f"seat{s}")) for s in seats)
        line = f"STATE:{view.number}:{view.betting}:{shown}{board}:{payoffs}:{players}"
        return line, {s: values.get(s, Fraction(0)) for s in seats}


def _log_name(name: str) -> str:
    """A player's name as the log can carry it (no ``:`` or ``|``)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_"


@implementer(IACPCSeatView)
class SeatView:
    """What one seat (``None``: a spectator) knows of the hand, in ACPC words.

    Feed it every event the seat sees (:meth:`feed`); it answers the match states to
    send.  :attr:`prompt` is the state the seat must answer now (``None`` when it is
    not its turn); :meth:`read` reads its reply.
    """

    def __init__(self, seat: int | None, game: Game, first_hand: int = 0) -> None:
        self.seat = seat
        self.game = game
        self.first_hand = first_hand
        self.number = first_hand
        self.positions: list[int] | None = None  #: seats by position, once dealt
        self.rounds: list[str] = [""]
        self.board: list[list[int]] = []
        self.hole: list[int] = []
        self.shown: dict[int, list[int]] = {}
        self.folded: set[int] = set()
        self.paid: dict[int, Decimal] = {}  #: chips put in this hand, by seat
        self.paid_before: dict[int, Decimal] = {}  #: ... before this round
        self.prompt: str | None = None
        self.legal: list[Mapping[str, Any]] = []
        self.last: str | None = None  #: the last state sent
        self.in_hand = False

    # -- the state --------------------------------------------------------------------

    @property
    def betting(self) -> str:
        """The betting string: rounds separated by ``/``."""
        return "/".join(self.rounds)

    @property
    def position(self) -> int | None:
        """This seat's position in the hand (``None`` for a spectator or not dealt)."""
        if self.positions is None or self.seat not in self.positions:
            return None
        return self.positions.index(self.seat)

    def state(self) -> str | None:
        """The ``MATCHSTATE:...`` text of now, as this seat may see it."""
        position = self.position
        if position is None or self.positions is None:
            return None
        holes = []
        for s in self.positions:
            if s == self.seat:
                holes.append(card_text(self.hole))
            else:
                holes.append(card_text(self.shown.get(s, ())))
        board = "".join("/" + card_text(group) for group in self.board)
        return f"MATCHSTATE:{position}:{self.number}:{self.betting}:{'|'.join(holes)}{board}"

    # -- events -----------------------------------------------------------------------

    def feed(self, event: GameEvent) -> list[str]:
        """Follow ``event``; the match states to send for it (none, or one)."""
        kind, data = event.kind, event.data
        if kind == "hand":
            self._new_hand(int(data.get("number") or 1))
        elif not self.in_hand:
            return []
        elif kind == "hole" and data.get("seat") == self.seat:
            self.hole = list(data.get("cards", ()))
        elif kind == "deal":
            self.positions = [int(s) for s in data.get("seats", ())]
        elif kind == "action":
            self._action(data)
        elif kind == "return":
            seat = int(data["seat"])
            self.paid[seat] = self.paid.get(seat, Decimal(0)) - Decimal(str(data["amount"]))
        elif kind == "board":
            self.rounds.append("")
            self.board.append(list(data.get("cards", ())))
            self.paid_before = dict(self.paid)
        elif kind == "show":
            self.shown[int(data["seat"])] = list(data.get("cards", ()))
        elif kind == TURN and data.get("decision") == "bet":
            mine = data.get("seat") == self.seat
            out = self._send()
            self.prompt = self.last if mine else None
            self.legal = list(data.get("legal", ())) if mine else []
            return out
        elif kind == HAND_OVER:
            self.prompt, self.legal = None, []
            out = self._send()
            self.in_hand = False
            return out
        elif kind == "cancel":
            self.prompt, self.legal, self.in_hand = None, [], False
        return []

    def _new_hand(self, number: int) -> None:
        self.number = self.first_hand + number - 1
        self.positions = None
        self.rounds, self.board, self.hole, self.shown = [""], [], [], {}
        self.folded = set()
        self.paid, self.paid_before = {}, {}
        self.prompt, self.legal, self.last = None, [], None
        self.in_hand = True

    def _action(self, data: Mapping[str, Any]) -> None:
        seat, name = int(data["seat"]), data.get("name")
        amount = Decimal(str(data.get("amount") or 0))
        self.paid[seat] = self.paid.get(seat, Decimal(0)) + amount
        if name == "fold":
            self.folded.add(seat)
        letter = LETTERS.get(str(name))
        if letter is None:
            return  # a blind, a muck: not in the betting string
        if letter == "r" and self.game.limit == "no-limit":
            letter += str(int(self.paid[seat]))
        self.rounds[-1] += letter
        if self.seat == seat:
            self.prompt, self.legal = None, []

    def _send(self) -> list[str]:
        text = self.state()
        if text is None or text == self.last:
            return []
        self.last = text
        return [text]

    def automatic(self, event: GameEvent) -> Mapping[str, Any] | None:
        """The answer of a decision the protocol has no words for (to show at the
        showdown: always, as the competition's dealer shows every hand that did not
        fold, but not when everyone else folded; a blind: post it), or ``None``."""
        if event.kind != TURN or event.data.get("seat") != self.seat:
            return None
        decision = event.data.get("decision")
        if decision == "show":
            live = [s for s in self.positions or () if s not in self.folded]
            return {"name": "show" if len(live) > 1 else "muck"}
        if decision == "blind":
            return {"name": "post"}
        return None

    # -- replies ----------------------------------------------------------------------

    def read(self, line: str, strict: bool = False) -> tuple[Mapping[str, Any] | None, bool, str]:
        """Read a reply line: ``(action, invalid, note)``.

        ``action`` is the game action to play, or ``None`` when the line is ignored
        (it is no match state, it is not this seat's turn, it answers another state)
        or, in ``strict`` mode, when the action is invalid (``invalid`` is then true:
        the match ends).  Otherwise an invalid action is played as the competition's
        dealer plays it and ``invalid`` is true: an action it cannot read (an unknown
        letter, none, a no-limit ``r`` without a size) and one that is not allowed (a
        fold when a check is free, a raise when none is) are a call; a no-limit raise
        out of range is moved to the nearest valid size; in a limit game what follows
        the letter is ignored (``r123`` is a raise).  ``note`` says what was wrong
        (empty if nothing).
        """
        if not line.startswith("MATCHSTATE:"):
            return None, False, "could not parse the reply"
        if self.prompt is None:
            return None, False, "not this player's turn"
        if line == self.prompt:
            move = ""
        elif line.startswith(self.prompt + ":"):
            move = line[len(self.prompt) + 1 :]
        else:
            return None, False, "the reply answers another state"
        legal = {str(a.get("name")): a for a in self.legal}
        call = {"name": "call"} if "call" in legal else {"name": "check"}
        letter, rest = move[:1], move[1:]
        if letter not in ("c", "f", "r"):
            return (None if strict else call), True, f"unknown action {move[:20]!r}"
        size: str | None = None
        if letter == "r" and self.game.limit == "no-limit":
            sized = _SIZE.match(rest)
            if sized is None:
                return (None if strict else call), True, "a no-limit raise needs its size"
            size, rest = sized.group(1), rest[sized.end() :]
        if rest and strict:
            return None, True, f"{rest[:20]!r} after the action"
        if letter == "c":
            return call, False, ""
        if letter == "f":
            if "fold" in legal:
                return {"name": "fold"}, False, ""
            return (None if strict else call), True, "folding when a check is free is invalid"
        name = "bet" if "bet" in legal else "raise"
        option = legal.get(name)
        if option is None:
            return (None if strict else call), True, "no raise is allowed now"
        if self.game.limit != "no-limit":
            return {"name": name, "amount": option["amount"]}, False, ""
        before = (
            self.paid_before.get(self.seat, Decimal(0)) if self.seat is not None else Decimal(0)
        )
        low = Decimal(str(option["min"])) + before
        high = Decimal(str(option["max"])) + before
        wanted = Decimal(str(size))
        if low <= wanted <= high:
            return {"name": name, "amount": str(wanted - before)}, False, ""
        if strict:
            return None, True, f"a raise to {size} is not within {low} to {high}"
        fixed = low if wanted < low else high
        note = f"raise to {size} moved to {fixed} (valid: {low} to {high})"
        return {"name": name, "amount": str(fixed - before)}, True, note


#: front end → the adapter that lets it host Texas Hold'em (used by :mod:`.adapters`)
__all__ = ["ALIASES", "GAMES", "ACPCAdapter", "Game", "SeatView", "card_text", "game_of"]
