"""The hub events of the poker engine's records: one handler per record kind.

:func:`events_of` turns one :class:`.rules.Record` into the
:class:`hub.model.GameEvent` objects :class:`.server.PokerGame` emits (the list of
kinds and their data is in the :mod:`.server` docstring).  Hole cards go only to their
seat; the shuffle's seed goes into the public hand-over event only when it reveals
nothing private (:func:`.history.seed_is_public`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from hub.model import CASH_OUT, HAND_OVER, SEAT_OPEN, GameEvent

from . import history, rules, shuffle


@dataclass(frozen=True)
class Shuffle:
    """What the events of a record need besides the record: the table it happened at
    and the current hand's shuffle (:mod:`.shuffle`)."""

    table: rules.Table
    commitment: str | None
    seed: bytes | None
    #: seat (as text) → its contribution in hex (:mod:`.hand_shuffle`)
    contributions: Mapping[str, str] = field(default_factory=dict)

    def public_seed(self, hand: rules.HandRecord | None) -> str | None:
        """The seed for the public hand-over event: only when it shows nothing that was
        private; the hand record keeps it always."""
        if not self.seed or hand is None or not history.seed_is_public(hand):
            return None
        return shuffle.seed_hex(self.seed)


def _s(v: Decimal | None) -> str | None:
    return None if v is None else str(v)


def _only(seat: int | None) -> frozenset[int]:
    """The visibility of a private event for ``seat``."""
    assert seat is not None
    return frozenset({seat})


def _seat(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """Someone sat down, added chips, sat out or in, is leaving or left (then the
    stack goes back to the account: ``cashout``, and the seat is open)."""
    k = rec.kind
    what = {"seat": "taken", "leave": "left"}.get(k, k)
    data: dict[str, object] = {"seat": rec.seat, "what": what}
    if rec.text and k != "sitout":
        data["name"] = rec.text
    if rec.amount is not None:
        data["amount"] = str(rec.amount)
    out = [GameEvent("seat", data)]
    if k == "leave":
        cash = {"seat": rec.seat, "name": rec.text, "amount": str(rec.amount)}
        out.append(GameEvent(CASH_OUT, cash))
        out.append(GameEvent(SEAT_OPEN, {"seat": rec.seat}))
    return out


def _autopost(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """A seat's blinds are posted for it from now on, or no longer (``autopost``), or
    its hands are mucked without asking (``automuck``): the seat's own business."""
    return [GameEvent(rec.kind, {"seat": rec.seat, "on": rec.get("on")}, _only(rec.seat))]


def _hand(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    data = {
        "handid": rec.text,
        "number": rec.get("number"),
        "button": rec.seat,
        "smallblindseat": rec.get("sb"),
        "bigblindseat": rec.get("bb"),
        "commitment": sh.commitment,
    }
    return [GameEvent("hand", data)]


def _hole(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """A seat's own cards (private); after the last seat's, the public ``deal``."""
    assert rec.seat is not None
    out = [GameEvent("hole", {"seat": rec.seat, "cards": list(rec.cards)}, _only(rec.seat))]
    h = sh.table.hand
    if h is not None and rec.seat == h.seats[-1]:
        out.append(GameEvent("deal", {"seats": list(h.seats), "count": len(rec.cards)}))
    return out


def _board(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    data = {"cards": list(rec.cards), "board": list(rec.get("board", ())), "stage": rec.stage}
    return [GameEvent("board", data)]


def _action(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """A player's action; a discard also gives the player the new hand (private)."""
    k = rec.kind
    data = {
        "seat": rec.seat,
        "name": k,
        "amount": _s(rec.amount),
        "total": _s(rec.total),
        "allin": rec.allin,
        "stage": rec.stage,
    }
    if k == "post":
        data["blind"] = rec.text
        data["dead"] = _s(rec.get("dead"))
    if k == "discard":
        data["count"] = rec.get("count")
    out = [GameEvent("action", data)]
    if k == "discard":
        hand = {
            "seat": rec.seat,
            "cards": list(rec.get("hand")),
            "replaced": list(rec.get("positions")),
        }
        out.append(GameEvent("hole", hand, _only(rec.seat)))
    return out


def _return(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    return [GameEvent("return", {"seat": rec.seat, "amount": str(rec.amount)})]


def _pots(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    pots = [{"amount": str(p.amount), "seats": list(p.eligible)} for p in rec.pots]
    return [GameEvent("pots", {"stage": rec.stage, "pots": pots})]


def _show(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    return [GameEvent("show", {"seat": rec.seat, "cards": list(rec.cards), "text": rec.text})]


def _award(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    data = {"seat": rec.seat, "amount": str(rec.amount), "pot": rec.get("pot"), "text": rec.text}
    return [GameEvent("award", data)]


def _cancel(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    return [GameEvent("cancel", {"reason": rec.text})]


def _timeout(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    return [GameEvent("timeout", {"seat": rec.seat, "decision": rec.text})]


def _handover(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """The hand's result (:data:`hub.model.HAND_OVER`): what it moved per seat."""
    deltas = dict(rec.get("deltas", ()))
    last = sh.table.last_hand
    names = {s: n for s, n, _ in last.players} if last is not None else {}
    data = {
        "handid": rec.text,
        "deltas": {str(s): str(d) for s, d in deltas.items()},
        "names": {str(s): n for s, n in names.items()},
        "stacks": {str(s): str(v) for s, v in rec.get("stacks", ())},
        "seed": sh.public_seed(last),
        "commitment": sh.commitment,
        "contributions": dict(sh.contributions),
    }
    return [GameEvent(HAND_OVER, data)]


Handler = Callable[[rules.Record, Shuffle], list[GameEvent]]

#: record kind → its handler
HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(("seat", "addchips", "leaving", "leave", "sitout", "sitin"), _seat),
    "autopost": _autopost,
    "automuck": _autopost,
    "hand": _hand,
    "hole": _hole,
    "board": _board,
    **dict.fromkeys(
        ("post", "refuse", "fold", "check", "call", "bet", "raise", "discard", "muck"), _action
    ),
    "return": _return,
    "pots": _pots,
    "show": _show,
    "award": _award,
    "cancel": _cancel,
    "timeout": _timeout,
    "handover": _handover,
}


def events_of(rec: rules.Record, sh: Shuffle) -> list[GameEvent]:
    """The events of one engine record (none for a kind without a handler)."""
    handler = HANDLERS.get(rec.kind)
    return [] if handler is None else handler(rec, sh)
