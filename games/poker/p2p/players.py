"""Who plays a peer's seat, and who follows its table (a terminal, a history file).

- :class:`BotPlayer`: any of the hub's poker bot plugins (``IBot``: ``holdem``,
  ``caller``, ``raiser``, ``poker-random``), loaded by name through the plugin registry;
  it thinks in the reactor's thread pool with a deadline, and checks or folds when it
  does not answer in time;
- :class:`TerminalPlayer`: a person at the terminal, who types ``fold``, ``check``,
  ``call``, ``bet`` or ``raise`` (or the first letter); it checks or folds for them a
  little before the time limit;
- :class:`Printer` tells a person what happens at the table, :class:`History` writes a
  line of JSON per hand (``--history``), with what a third party needs to check it:
  the deck as opened, the signed actions, the stacks before and after
  (:func:`.history.check_hand`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from twisted.internet import threads
from twisted.logger import Logger

from .. import cards as card_text
from .. import rules
from .base import Answer

#: the share of the action time a bot may think (the rest is for the network)
BOT_SHARE = 0.5
#: what a person's timer leaves of the action time before acting for them
MARGIN = 0.15


def fallback(legal: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Check when it is free, else fold."""
    names = [a["name"] for a in legal]
    return {"name": "check" if "check" in names else "fold"}


class BotPlayer:
    """A bot plugin playing a seat.

    :param reactor: the reactor (its thread pool, its clock).
    :param bot: an ``IBot`` (``choose(view, legal, deadline) → action``).
    :param deadline: most seconds to think.
    """

    log = Logger()

    def __init__(self, reactor: Any, bot: Any, deadline: float = 5.0) -> None:
        self.reactor = reactor
        self.bot = bot
        self.deadline = deadline
        self._question = 0

    def ask(
        self, view: Mapping[str, Any], legal: list[dict[str, Any]], seconds: float, answer: Answer
    ) -> None:
        """Think in a worker thread; answer once (the bot's choice, or a fallback)."""
        self._question += 1
        question = self._question
        limit = max(0.01, min(self.deadline, seconds * BOT_SHARE))
        answered = [False]

        def once(action: Mapping[str, Any]) -> None:
            if answered[0] or question != self._question:
                return
            answered[0] = True
            if timer.active():
                timer.cancel()
            answer(action)

        def failed(failure: Any) -> None:
            self.log.failure("the bot failed to decide", failure)
            once(fallback(legal))

        timer = self.reactor.callLater(limit, lambda: once(fallback(legal)))
        d = threads.deferToThreadPool(
            self.reactor, self.reactor.getThreadPool(), self.bot.choose, dict(view), legal, limit
        )
        d.addCallbacks(once, failed)

    def cancel(self) -> None:
        """Forget the question asked."""
        self._question += 1


#: what a person may type → the action
WORDS = {"f": "fold", "x": "check", "k": "check", "c": "call", "b": "bet", "r": "raise"}


class TerminalPlayer:
    """A person deciding at a terminal.

    :param reactor: the reactor (the timer).
    :param write: writes a line for the person.
    """

    def __init__(self, reactor: Any, write: Callable[[str], None]) -> None:
        self.reactor = reactor
        self.write = write
        self._answer: Callable[[Mapping[str, Any]], None] | None = None
        self._legal: list[dict[str, Any]] = []
        self._timer: Any = None

    def ask(
        self, view: Mapping[str, Any], legal: list[dict[str, Any]], seconds: float, answer: Answer
    ) -> None:
        """Show the situation and the choices; wait for a line."""
        self._answer, self._legal = answer, legal
        me = view.get("myseat")
        players = {p["seat"]: p for p in view.get("players", ())}
        mine = players.get(me, {})
        hole = card_text.format_many([c for c in mine.get("holecards", ()) if c >= 0])
        board = card_text.format_many(view.get("boardcards", ()))
        choices = ", ".join(a["name"] + (f" {a['amount']}" if "amount" in a else "") for a in legal)
        self.write(
            f"your turn: cards {hole or '-'}, board {board or '-'}, pot {view.get('pot')}, "
            f"stack {mine.get('bankroll')}; {choices}? ({int(seconds)} s)"
        )
        self._timer = self.reactor.callLater(max(0.01, seconds * (1 - MARGIN)), self._late)

    def _late(self) -> None:
        self._timer = None
        if self._answer is not None:
            action = fallback(self._legal)
            self.write(f"time is up: {action['name']}")
            self._give(action)

    def line(self, text: str) -> None:
        """A line the person typed."""
        if self._answer is None:
            return
        word = text.strip().lower()
        name = WORDS.get(word, word) if len(word) == 1 else word  # "c" is call, "check" check
        if not any(a["name"] == name for a in self._legal):
            self.write(f"not now: {word!r}; say one of {', '.join(a['name'] for a in self._legal)}")
            return
        self._give({"name": name})

    def _give(self, action: Mapping[str, Any]) -> None:
        answer, self._answer = self._answer, None
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        if answer is not None:
            answer(action)

    def cancel(self) -> None:
        """The question is void."""
        self._answer = None
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None


class Printer:
    """Tells a person what happens at the table, a line at a time.

    :param write: writes one line.
    :param quiet: only the table's start, departures, cheaters and its end.
    """

    def __init__(self, write: Callable[[str], None], quiet: bool = False) -> None:
        self.write = write
        self.quiet = quiet
        self.names: list[str] = []

    def _name(self, seat: Any) -> str:
        return self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        """Actions, boards, shows and awards in words."""
        if self.quiet:
            return
        for rec in records:
            line = self._line(rec)
            if line:
                self.write(line)

    def _line(self, rec: rules.Record) -> str:
        who = self._name(rec.seat)
        if rec.kind in ("fold", "check"):
            return f"{who} {rec.kind}s"
        if rec.kind in ("call", "bet", "raise", "post"):
            return f"{who} {rec.kind}s {rec.amount}"
        if rec.kind == "board":
            return f"board {card_text.format_many(rec.get('board', rec.cards))}"
        if rec.kind == "show":
            return f"{who} shows {card_text.format_many(rec.cards)}: {rec.text}"
        if rec.kind == "award":
            return f"{who} wins {rec.amount}" + (f" ({rec.text})" if rec.text else "")
        return ""

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """The table's own events."""
        if kind == "started":
            self.names = list(data["names"])
            self.write(f"table agreed: {', '.join(self.names)}; stakes {data['stakes']}, "
                       f"stacks {data['stack']}")  # fmt: skip
        elif kind == "reached":
            self.write(f"reached a peer ({str(data['key'])[:20]}…)")
        elif kind == "hello":
            self.write(f"{data['name']} is here")
        elif kind == "refused":
            self.write(f"the hub refused: {data['why']}")
        elif kind == "hand" and not self.quiet:
            self.write(f"hand {data['hand']}: the button is {self._name(data['button'])}")
        elif kind == "hole" and not self.quiet:
            self.write(f"your cards: {card_text.format_many(data['cards'])}")
        elif kind in ("left", "cheater", "forged"):
            word = {
                "left": "left the table",
                "cheater": "CHEATED",
                "forged": "sent a forged message",
            }
            self.write(f"{data['name']} {word[kind]}: {data.get('why', '')}".rstrip(": "))
        elif kind == "void":
            self.write(f"hand {data['hand']} is void: {data['why']} (every bet goes back)")
        elif kind == "result" and not self.quiet:
            stacks = ", ".join(f"{self._name(int(s))} {v}" for s, v in data["stacks"].items())
            self.write(f"hand {data['hand']} over: {stacks}")
        elif kind == "over":
            stacks = ", ".join(f"{self._name(int(s))} {v}" for s, v in data["stacks"].items())
            self.write(f"table over ({data['reason']}) after {data['hands']} hands: {stacks}")


class History:
    """Writes a JSON line per hand that counted (the ``result`` note, with the table's
    keys and parameters) to ``out``."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.started: dict[str, Any] = {}

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        """Not written (the result holds what a check needs)."""

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """A hand's result, or the table's start."""
        if kind in ("started", "result", "over", "cheater", "left"):
            self.out.write(json.dumps({"note": kind, **data}, sort_keys=True) + "\n")
            self.out.flush()


class Watchers:
    """Several watchers as one."""

    def __init__(self, *watchers: Any) -> None:
        self.watchers = watchers

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        """To each."""
        for w in self.watchers:
            w.records(table, records)

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """To each."""
        for w in self.watchers:
            w.note(kind, data)
