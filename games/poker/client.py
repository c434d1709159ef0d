"""The client side of poker: what a client downloads to play over the XML front end.

:func:`action_xml` writes a ``texasmessage`` action (the wire's action numbers, from
the game's action names with :func:`wire_action`), and :class:`TableState` follows one
table through the ``texasmessage`` updates a receiver gets: the ``gameinfo`` snapshot
sent on join and at each new hand, brought up to date by the events in between (one
handler per event type), in the game's own words (``{"name": "raise", ...}``).  The
wire's numbers are those of the plugin's XML adapter (:mod:`.adapters`), so both ends
read one table.  No I/O: a client feeds it what its connection receives
(``bots.poker.netplay`` does, through :class:`hub.client.HubClient`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from lxml import etree

from .adapters import ACTION_INDEX, EVENT_TYPES, WIRE_ACTIONS

#: the betting actions a view remembers as a player's ``lastaction``
BETTING = ("fold", "check", "call", "bet", "raise")


def _action_name(index: Any) -> str | None:
    """The game's name of a wire action index (``None`` for an unknown one)."""
    try:
        i = int(index)
    except (TypeError, ValueError):
        return None
    return WIRE_ACTIONS[i] if 0 <= i < len(WIRE_ACTIONS) else None


def wire_action(action: Mapping[str, Any]) -> dict[str, Any]:
    """A named action of the game (``{"name": "raise", "amount": …}``) → the mapping
    :func:`action_xml` writes (its wire ``index``)."""
    out = {k: v for k, v in action.items() if k != "name"}
    out["index"] = ACTION_INDEX[str(action["name"])]
    return out


def _cards(hand: Any) -> list[int]:
    if hand is None:
        return []
    return [int(c.text) for c in hand.iterfind("cards/card")]


def _dec(text: Any, default: str = "0") -> Decimal:
    return Decimal(str(text).strip() if text not in (None, "") else default)


def action_xml(action: Mapping[str, Any]) -> etree._Element:
    """``<texasmessage><action>…`` of a wire action mapping (``index``, ``amount``,
    ``seat``, ``name``, ``discarded``: the children of ``action``)."""
    root = etree.Element("texasmessage")
    node = etree.SubElement(root, "action")
    etree.SubElement(node, "index").text = str(int(action["index"]))
    if action.get("amount") is not None:
        etree.SubElement(node, "amount").text = str(Decimal(str(action["amount"])))
    for pos in action.get("discarded") or ():
        etree.SubElement(node, "discarded").text = str(int(pos))
    if action.get("name") is not None:
        etree.SubElement(node, "name").text = str(action["name"])
    if action.get("seat") is not None:
        etree.SubElement(node, "seat").text = str(int(action["seat"]))
    return root


class TableState:
    """One table as the XML updates of one receiver show it.

    :ivar view: gameinfo-like mapping (``players`` is a list of per-seat mappings).
    :ivar seat: the receiver's seat (from its own ``hand`` messages / its name).
    :ivar hands: hands the receiver was dealt into and saw finish.
    :ivar seen: hand-over events seen (also while watching).
    """

    def __init__(self, me: str | None = None) -> None:
        self.me = me
        self.view: dict[str, Any] = {"players": [], "boardcards": [], "pot": "0", "stage": 0}
        self.seat: int | None = None
        self.hands = 0
        self.seen = 0
        self._dealt_in = False
        self.handid: str | None = None
        #: where a snapshot of the current hand disagreed with the events before it
        self.mismatches: list[str] = []

    def _player(self, seat: int) -> dict[str, Any]:
        for p in self.view["players"]:
            if p["seat"] == seat:
                player: dict[str, Any] = p
                return player
        p = {"seat": seat, "bankroll": "0", "inpot": "0", "inpotthisround": "0"}
        self.view["players"].append(p)
        return p

    def update(self, payload: Any) -> dict[str, Any] | None:
        """Take in one ``texasmessage``; returns ``{"seat", "legal", "timeleft"}`` for a
        type-10 (to act) event, else ``None``."""
        if payload is None or payload.tag != "texasmessage" or not len(payload):
            return None
        node = payload[0]
        if node.tag == "gameinfo":
            self._gameinfo(node)
        elif node.tag == "hand":
            seat = int(node.get("seat"))
            self.seat = seat
            self._dealt_in = True
            self._player(seat)["holecards"] = _cards(node)
        elif node.tag == "event":
            return self._event(node)
        return None

    def _gameinfo(self, gi: Any) -> None:
        if self.handid is not None and gi.findtext("handid") == self.handid:
            self._compare(gi)
        v: dict[str, Any] = {}
        for child in gi:
            if child.tag in ("players", "boardcards", "pots"):
                continue
            v[child.tag] = child.text
        for key in ("buttonseat", "currentplayerseat", "limitstyle", "stage", "raisesthisround"):
            if key in v:
                v[key] = int(v[key])
        if "cap" in v:
            v["cap"] = int(v["cap"])
        v["boardcards"] = _cards(gi.find("boardcards"))
        players = []
        for p in gi.iterfind("players"):
            seat = int(p.findtext("myseat"))
            entry = {
                "seat": seat,
                "name": p.findtext("myname"),
                "accountname": p.findtext("accountname"),
                "bankroll": p.findtext("bankroll"),
                "inpot": p.findtext("inpot"),
                "inpotthisround": p.findtext("inpotthisround"),
                "holecards": _cards(p.find("holecards")),
                "mystate": int(p.findtext("mystate") or 0),
                "folded": p.findtext("mystate") == "2",
            }
            last = _action_name(p.findtext("lastaction"))
            if last in BETTING:
                entry["lastaction"] = last
            if self.me is not None and entry["accountname"] == self.me:
                self.seat = seat
            players.append(entry)
        v["players"] = players
        v["betsthisround"] = v.get("raisesthisround", 0)
        self.view = v
        self.handid = v.get("handid")

    def _compare(self, gi: Any) -> None:
        """Check the state the events built against a snapshot of the same hand."""
        mine = {p["seat"]: p for p in self.view.get("players", ())}
        if _dec(gi.findtext("pot")) != _dec(self.view.get("pot")):
            self.mismatches.append(f"{self.handid}: pot {gi.findtext('pot')} != {self.view['pot']}")
        for p in gi.iterfind("players"):
            seat = int(p.findtext("myseat"))
            have = mine.get(seat)
            for key in ("bankroll", "inpot", "inpotthisround"):
                if have is None or _dec(p.findtext(key)) != _dec(have.get(key)):
                    got = None if have is None else have.get(key)
                    self.mismatches.append(f"{self.handid}: seat {seat} {key} {got}")

    def _event(self, ev: Any) -> dict[str, Any] | None:
        handler = _ON_EVENT.get(int(ev.get("type")))
        if handler is None:
            return None
        return handler(self, ev, int(ev.get("seat")), _dec(ev.get("amount")))

    def _on_hand(self, ev: Any, seat: int, amount: Decimal) -> None:
        v = self.view
        self.handid = ev.findtext("handid")
        self._dealt_in = False
        v.update(handid=self.handid, boardcards=[], stage=0, pot="0", betsthisround=1)
        v["buttonseat"] = int(ev.findtext("button") or -1)
        for p in v["players"]:
            p.update(inpot="0", inpotthisround="0", folded=False, holecards=[])
            p.pop("lastaction", None)

    def _on_board(self, ev: Any, seat: int, amount: Decimal) -> None:
        v = self.view
        v["boardcards"] = _cards(ev.find("hand"))
        v["stage"] = {3: 1, 4: 2, 5: 3}.get(len(v["boardcards"]), v.get("stage", 0))
        v["betsthisround"] = 0

    def _on_action(self, ev: Any, seat: int, amount: Decimal) -> None:
        """A player's chips into the pot (or an uncalled bet back, ``returned``)."""
        v = self.view
        p = self._player(seat)
        sign = -1 if ev.findtext("custom") == "returned" else 1
        p["bankroll"] = str(_dec(p.get("bankroll")) - sign * amount)
        p["inpot"] = str(_dec(p.get("inpot")) + sign * amount)
        p["inpotthisround"] = str(_dec(p.get("inpotthisround")) + sign * amount)
        v["pot"] = str(_dec(v.get("pot")) + sign * amount)
        name = _action_name(ev.findtext("action/index"))
        if name in BETTING:
            p["lastaction"] = name
        if name == "fold":
            p["folded"] = True
        if name in ("bet", "raise"):
            v["betsthisround"] = int(v.get("betsthisround") or 0) + 1

    def _on_pots(self, ev: Any, seat: int, amount: Decimal) -> None:
        for p in self.view["players"]:
            p["inpotthisround"] = "0"
        self.view["pot"] = str(amount)

    def _on_award(self, ev: Any, seat: int, amount: Decimal) -> None:
        p = self._player(seat)
        p["bankroll"] = str(_dec(p.get("bankroll")) + amount)

    def _on_handover(self, ev: Any, seat: int, amount: Decimal) -> None:
        """The end of a hand (type 7 also closes a cancelled hand or the table: those
        carry no ``handid``)."""
        if not ev.findtext("handid"):
            return
        self.seen += 1
        if self._dealt_in:
            self.hands += 1
        self._dealt_in = False

    def _on_seat(self, ev: Any, seat: int, amount: Decimal) -> None:
        name = ev.findtext("action/name")
        what = ev.findtext("custom")
        if what == "taken" and name is not None:
            p = self._player(seat)
            p.update(name=name, accountname=name, bankroll=str(amount))
            if self.me is not None and name == self.me:
                self.seat = seat
        elif what == "left":
            self.view["players"] = [p for p in self.view["players"] if p["seat"] != seat]

    def _on_turn(self, ev: Any, seat: int, amount: Decimal) -> dict[str, Any]:
        """Someone is to act: ``{"seat", "legal", "timeleft"}`` (legal for the receiver's
        own seat only)."""
        legal = []
        for a in ev.iterfind("action"):
            name = _action_name(a.findtext("index"))
            if name is None:
                continue
            entry: dict[str, Any] = {"name": name}
            amounts = [x.text for x in a.iterfind("amount")]
            if len(amounts) == 2:
                entry["min"], entry["max"] = amounts
            elif amounts:
                entry["amount"] = amounts[0]
            legal.append(entry)
        timeleft = ev.findtext("timeleft")
        return {
            "seat": seat,
            "legal": legal,
            "timeleft": int(timeleft) / 1000.0 if timeleft else 30.0,
        }


#: ``texasmessage/event`` type → what :class:`TableState` does with it (the types of
#: :data:`.adapters.EVENT_TYPES`; the others change nothing it keeps)
_ON_EVENT: dict[int, Callable[[TableState, Any, int, Decimal], dict[str, Any] | None]] = {
    EVENT_TYPES["hand"]: TableState._on_hand,
    EVENT_TYPES["board"]: TableState._on_board,
    EVENT_TYPES["action"]: TableState._on_action,
    EVENT_TYPES["pots"]: TableState._on_pots,
    EVENT_TYPES["award"]: TableState._on_award,
    EVENT_TYPES["handover"]: TableState._on_handover,
    EVENT_TYPES["seat"]: TableState._on_seat,
    EVENT_TYPES["turn"]: TableState._on_turn,
}


__all__ = ["BETTING", "TableState", "action_xml", "wire_action"]
