"""What a seat sees of a poker table: the view builders of :meth:`.server.PokerGame.view`.

The view is in the game's own words (front ends translate it: the XML adapter into a
``gameinfo``): the table's stakes and variant, the hand in progress, and per player the
stack, the hole cards (``-1`` for those the seat may not see), the money in the pot and
the player's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import rules


@dataclass(frozen=True)
class TableFacts:
    """What the view holds of the game around the engine's table.

    :ivar variant: the betting structure (``fixed-limit``...).
    :ivar gameid: the lobby's id of the game.
    :ivar name: the table's name.
    :ivar timeleft: milliseconds left for the decision running now (``None``: none).
    :ivar nexthand_ms: milliseconds until the next hand is dealt (during the pause).
    :ivar commitment: the shuffle commitment of the current hand.
    :ivar buyin: the default buy-in (decimal string).
    :ivar timebanks: each seat's time bank in milliseconds (``None``: the table has none).
    """

    variant: str
    gameid: str
    name: str
    timeleft: int | None
    nexthand_ms: int | None
    commitment: str | None
    buyin: str
    timebanks: dict[str, int] | None = None


def last_action(table: rules.Table, seat: int) -> str | None:
    """The name of ``seat``'s last action in the current hand (``None``: none yet)."""
    h = table.hand
    if h is None:
        return None
    for r in reversed(h.records):
        if r.seat == seat and r.index is not None:
            return rules.ACTION_NAMES[r.index]
    return None


def player_state(table: rules.Table, seat: int) -> str:
    """``sittingout``, ``folded``, ``allin``, ``active`` (in the hand) or ``waiting``."""
    h = table.hand
    live = h if h is not None and not h.over else None
    if table.players[seat].sitting_out:
        return "sittingout"
    if h is not None and seat in h.folded:
        return "folded"
    if live is not None and seat in live.allin:
        return "allin"
    if live is not None and seat in live.seats:
        return "active"
    return "waiting"


def players_view(table: rules.Table, seats: int, seat: int | None) -> list[dict[str, Any]]:
    """One mapping per player at the table, as ``seat`` (``None``: a spectator) sees it."""
    h = table.hand
    live = h if h is not None and not h.over else None  # the hand in progress
    shown = h.shown if h is not None else set()
    players = []
    for s in range(seats):
        p = table.players.get(s)
        if p is None:
            continue
        hole: list[int] = []
        if h is not None and s in h.hole:
            hole = list(h.hole[s]) if s == seat or s in shown else [-1] * len(h.hole[s])
        state = player_state(table, s)
        players.append(
            {
                "seat": s,
                "myseat": s,
                "myname": p.name,
                "accountname": p.name,
                "bankroll": str(p.stack),
                "bankrollatstartofhand": str(
                    h.start_stacks.get(s, p.stack) if h is not None else p.stack
                ),
                "holecards": hole,
                "inpot": str(live.contrib.get(s, 0)) if live is not None else "0",
                "inpotthisround": str(live.bets.get(s, 0)) if live is not None else "0",
                "hasactedthisround": bool(
                    live is not None
                    and live.kind == rules.BETTING
                    and s in live.seats
                    and s not in live.needs_act
                ),
                "hastopostblind": bool(live is not None and s in live.owed),
                "lastaction": last_action(table, s),
                "state": state,
                "mystate": state,
                "sitoutnext": p.sit_out_next,
                "leaving": p.leaving,
                "autopost": p.auto_post,
                "automuck": p.auto_muck,
            }
        )
    return players


def _hand_view(
    table: rules.Table, seat: int | None, legal: list[dict[str, Any]]
) -> tuple[Any, int, str, Any]:
    """The parts of the view that follow the hand in progress."""
    h = table.hand
    live = h if h is not None and not h.over else None
    minraise = None
    for a in legal:
        if a["name"] in ("bet", "raise"):
            minraise = a.get("min", a.get("amount"))
    if live is not None:
        stage = max(live.stage, 0)
    else:
        stage = 4 if h is not None else 0
    to_call = "0"
    if live is not None and seat is not None and seat in live.bets:
        to_call = str(table._to_call(seat))
    return live, stage, to_call, minraise


def table_view(
    table: rules.Table,
    seats: int,
    seat: int | None,
    legal: list[dict[str, Any]],
    facts: TableFacts,
) -> dict[str, Any]:
    """The whole table as ``seat`` sees it, with the seat's own ``legal`` actions
    (the keys are documented at :meth:`.server.PokerGame.view`)."""
    t = table
    h = t.hand
    cfg = t.config
    turn = t.turn
    live, stage, to_call, minraise = _hand_view(t, seat, legal)
    last = t.last_hand
    return {
        "game": cfg.variant.name,
        "variant": facts.variant,
        "gameid": facts.gameid,
        "name": facts.name,
        "handid": h.hand_id if h is not None else None,
        "state": t.state,
        "stakes": cfg.stakes,
        "smallbet": str(cfg.small_bet),
        "bigbet": str(cfg.big_bet),
        "smallblind": str(cfg.small_blind),
        "bigblind": str(cfg.big_blind),
        "ante": str(cfg.ante),
        "cap": cfg.cap,
        "minplayers": cfg.min_players,
        "seats": seats,
        "stage": stage,
        "buttonseat": t.button,
        "smallblindseat": h.sb_seat if h is not None else None,
        "bigblindseat": h.bb_seat if h is not None else None,
        "currentplayerseat": turn.seat if turn else None,
        "decision": turn.kind if turn else None,
        "boardcards": list(h.board) if h is not None else [],
        "pot": str(t.pot_total()),
        "pots": [
            {"amount": str(p.amount), "seats": list(p.eligible)}
            for p in (h.pots if h is not None else [])
        ],
        "raisesthisround": max(live.bets_count - 1, 0) if live is not None else 0,
        "betsthisround": live.bets_count if live is not None else 0,
        "tocall": to_call,
        "minraise": minraise,
        "playerstoact": (
            sorted(live.needs_act) if live is not None and live.kind == rules.BETTING else []
        ),
        "winners": sorted(h.winners) if h is not None else [],
        "players": players_view(t, seats, seat),
        "myseat": seat,
        "myname": t.players[seat].name if seat in t.players else None,
        "legal": legal,
        "timeleft": facts.timeleft,
        "inhand": live is not None,
        "nexthand_ms": facts.nexthand_ms,
        "commitment": facts.commitment,
        "lasthand": last.hand_id if last is not None else None,
        "buyin": facts.buyin,
        "timebanks": facts.timebanks,
    }
