"""A game made again from its journal (issue 31, :mod:`hub.play.journal`): the same
factory, config, seats and seed (made by :meth:`hub.play.lobby.Lobby.resume`), the entries
given to it again in order with its clock replaying (:mod:`hub.play.gameclock`: ``tick``
fires the timer of that number, no waiting), then live, the clock running on from
where it stood.  In-hub bots are re-attached (they are given the turn that waits); a
person's seat keeps its player, who comes back to it under the game's ordinary time
rules.

Above :mod:`hub.play.game` (it drives a :class:`~hub.play.game.GameInstance`) and below
:mod:`hub.play.lobby`, which uses it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from hub.model import GAME_OVER, HAND_OVER, SHUFFLE, TURN, BadAction, GameError
from hub.play.game import GameInstance
from hub.store.journal import Entry


def _amount(value: Any) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _int(value: Any) -> int:
    if not isinstance(value, int):
        raise BadAction("a journal entry's seat is a number")
    return value


#: kind → how an entry is given to the game again
APPLY: dict[str, Callable[[GameInstance, int | None, dict[str, Any]], object]] = {
    "seat": lambda g, s, p: g.take_seat(p["player"], s, p["kind"], _amount(p.get("buyin"))),
    "leave": lambda g, s, p: g.leave_seat(_int(s)),
    "dismiss": lambda g, s, p: g.dismiss_bot(_int(s)),
    "chips": lambda g, s, p: g.add_chips(_int(s), _amount(p["amount"])),
    "act": lambda g, s, p: g.act(_int(s), p),
    "bot": lambda g, s, p: g.seat_bot(_int(s), p["bot"], p.get("player"), _amount(p.get("buyin"))),
    "bots": lambda g, s, p: g.seat_bots({int(k): _amount(v) for k, v in p["buyins"].items()}),
    "rules": lambda g, s, p: g.set_table_rules(p["bots_only"], p["broke_bots"]),
    "settled": lambda g, s, p: g.settled(p["hand"]),
    "hold": lambda g, s, p: g.hold_hands(),
    "tick": lambda g, s, p: g.clock.fire(int(p["n"])),
    "pause": lambda g, s, p: None,
    "await": lambda g, s, p: g.await_players(),
}


class Resumed:
    """How a resume went: entries given again, and those the game refused (a game
    that is not deterministic, or a journal of another version)."""

    def __init__(self) -> None:
        self.entries = 0
        self.refused: list[tuple[int, str]] = []


def replay(game: GameInstance, entries: Sequence[Entry]) -> Resumed:
    """Give ``entries`` to ``game`` (made with its funnel replaying) in order."""
    out = Resumed()
    clock = game.clock
    for entry in entries:
        clock.set_time(entry.at)
        out.entries += 1
        try:
            APPLY[entry.kind](game, entry.seat, json.loads(entry.payload))
        except (GameError, KeyError, ValueError, TypeError) as e:
            out.refused.append((entry.n, f"{entry.kind}: {e}"))
    return out


def go_live(game: GameInstance, resumed: Resumed) -> None:
    """The replay is over: the clock runs on, the bots are given the waiting turn, a
    game that ended in its journal ends here (its history is written)."""
    funnel = game.funnel
    funnel.replaying = False
    game.clock.go_live()
    game.await_players()  # its people come back to their seats
    for driver in game.bot_drivers():
        for kind in (SHUFFLE, TURN):
            event = funnel.last.get(kind)
            if event is not None and event.visible_to(driver.seat):
                driver.game_event(game, event)
    unsettled = funnel.last.get(HAND_OVER)
    over = funnel.last.get(GAME_OVER)
    funnel.last.clear()
    if unsettled is not None:  # the table money settles it once (keyed by its hand)
        game.tell_services(unsettled)
    if over is not None:
        game.lobby.game_over(game, over)


__all__ = ["APPLY", "Resumed", "go_live", "replay"]
