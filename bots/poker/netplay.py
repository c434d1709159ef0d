"""Playing poker over the XML front end: a table seen through ``texasmessage`` updates.

:class:`TableState` keeps a gameinfo-like view of one table (the snapshot sent on
join and at each new hand, brought up to date by the events in between), in the shape
:func:`bots.poker.plugin.observation_from_view` reads, so a network bot decides with
the same code as the in-hub bot: the wire's action numbers become the game's action
names (:data:`games.poker.adapters.WIRE_ACTIONS`) on the way in and go back on the
way out (:func:`wire_action`).  :class:`NetPlayer` sits at a table through a
:class:`hub.client.HubClient` and answers every type-10 event for its seat; it thinks
in a worker thread with a deadline and never blocks the reactor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from lxml import etree
from twisted.internet import defer, threads
from twisted.logger import Logger

from games.poker.adapters import ACTION_INDEX, WIRE_ACTIONS

#: ``(view, legal, deadline seconds) → action mapping`` (the game's words:
#: ``{"name": "raise", "amount": …}``; the legal actions are named alike)
Decide = Callable[[Mapping[str, Any], list[dict[str, Any]], float], Mapping[str, Any]]

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
                return p
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
        kind = int(ev.get("type"))
        seat = int(ev.get("seat"))
        amount = _dec(ev.get("amount"))
        v = self.view
        if kind == 0:
            self.handid = ev.findtext("handid")
            self._dealt_in = False
            v.update(handid=self.handid, boardcards=[], stage=0, pot="0", betsthisround=1)
            v["buttonseat"] = int(ev.findtext("button") or -1)
            for p in v["players"]:
                p.update(inpot="0", inpotthisround="0", folded=False, holecards=[])
                p.pop("lastaction", None)
        elif kind == 2:
            hand = ev.find("hand")
            v["boardcards"] = _cards(hand)
            v["stage"] = {3: 1, 4: 2, 5: 3}.get(len(v["boardcards"]), v.get("stage", 0))
            v["betsthisround"] = 0
        elif kind == 3:
            p = self._player(seat)
            returned = ev.findtext("custom") == "returned"
            sign = -1 if returned else 1
            p["bankroll"] = str(_dec(p.get("bankroll")) - sign * amount)
            p["inpot"] = str(_dec(p.get("inpot")) + sign * amount)
            p["inpotthisround"] = str(_dec(p.get("inpotthisround")) + sign * amount)
            v["pot"] = str(_dec(v.get("pot")) + sign * amount)
            name = _action_name(ev.findtext("action/index"))
            if name is not None:
                if name in BETTING:
                    p["lastaction"] = name
                if name == "fold":
                    p["folded"] = True
                if name in ("bet", "raise"):
                    v["betsthisround"] = int(v.get("betsthisround") or 0) + 1
        elif kind == 4:
            for p in v["players"]:
                p["inpotthisround"] = "0"
            v["pot"] = str(amount)
        elif kind == 6:
            p = self._player(seat)
            p["bankroll"] = str(_dec(p.get("bankroll")) + amount)
        elif kind == 7 and ev.findtext("handid"):
            self.seen += 1
            if self._dealt_in:
                self.hands += 1
            self._dealt_in = False
        elif kind == 8:
            name = ev.findtext("action/name")
            what = ev.findtext("custom")
            if what == "taken" and name is not None:
                p = self._player(seat)
                p.update(name=name, accountname=name, bankroll=str(amount))
                if self.me is not None and name == self.me:
                    self.seat = seat
            elif what == "left":
                v["players"] = [p for p in v["players"] if p["seat"] != seat]
        elif kind == 10:
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
        return None


class NetPlayer:
    """Plays one seat of a poker table over XML with ``decide``.

    :param client: a logged-in :class:`hub.client.HubClient` that joined ``gameid``.
    :param decide: ``(view, legal, deadline) → action``; runs in a worker thread.
    :param reactor: the reactor (for the thread pool and deadlines).
    :param hands: leave the seat after this many finished hands (``None``: never).
    :param deadline: most seconds to think (less when the table's clock says so).
    :ivar done: fires with the number of hands played when the player left its seat.
    """

    log = Logger()

    def __init__(
        self,
        client: Any,
        gameid: int,
        decide: Decide,
        reactor: Any,
        hands: int | None = None,
        deadline: float = 5.0,
        threaded: bool = True,
    ) -> None:
        self.client = client
        self.gameid = gameid
        self.decide = decide
        self.reactor = reactor
        self.limit = hands
        self.deadline = deadline
        self.threaded = threaded
        me = (client.account or {}).get("name")
        self.table = TableState(me)
        self.done: defer.Deferred = defer.Deferred()
        self.errors: list[str] = []
        self.actions = 0
        self._leaving = False
        self._previous = client.on_state
        client.on_state = self._on_state
        for update in client.updates.get(gameid, ()):
            self.table.update(update.payload)
        client.closed.addCallback(lambda _: self._gone())
        transport = getattr(client.proto, "transport", None)
        if transport is not None and hasattr(transport, "setTcpNoDelay"):
            transport.setTcpNoDelay(True)  # one small frame per decision: no Nagle delay

    def _gone(self) -> None:
        self._leaving = True
        if not self.done.called:
            self.done.callback(self.table.hands)

    @property
    def busted(self) -> bool:
        """Whether this player sits with no chips left (it then leaves)."""
        seat = self.table.seat
        if seat is None or self.table.hands == 0:
            return False
        mine = [p for p in self.table.view.get("players", ()) if p["seat"] == seat]
        return bool(mine) and _dec(mine[0].get("bankroll")) <= 0

    def take_seat(self, seat: int | None = None, buyin: Any = None) -> defer.Deferred:
        """Send action 11 (take ``seat`` with ``buyin``)."""
        action: dict[str, Any] = {"index": 11, "seat": seat, "amount": buyin}
        return self.client.act(self.gameid, action_xml(action))

    def _on_state(self, update: Any) -> None:
        if self._previous is not None:
            self._previous(update)
        if update.gameid != self.gameid or update.payload is None:
            return
        before = self.table.seen
        todo = self.table.update(update.payload)
        if self.table.seen != before and (
            (self.limit is not None and self.table.hands >= self.limit) or self.busted
        ):
            self.leave()
        if todo is not None and todo["legal"] and todo["seat"] == self.table.seat:
            self._think(todo)

    def _think(self, todo: Mapping[str, Any]) -> None:
        view = _copy(self.table.view)
        legal = list(todo["legal"])
        deadline = max(0.05, min(self.deadline, float(todo["timeleft"]) * 0.8))
        if self.threaded:
            d = threads.deferToThreadPool(
                self.reactor, self.reactor.getThreadPool(), self.decide, view, legal, deadline
            )
            d.addTimeout(deadline + 0.5, self.reactor)
        else:
            d = defer.maybeDeferred(self.decide, view, legal, deadline)
        d.addCallback(self._play)
        d.addErrback(self._failed)

    def _play(self, action: Mapping[str, Any]) -> defer.Deferred | None:
        if self._leaving or self.client.proto is None:
            return None
        self.actions += 1
        d = self.client.act(self.gameid, action_xml(wire_action(action)))
        d.addErrback(self._failed)
        return d

    def _failed(self, failure: Any) -> None:
        self.errors.append(failure.getErrorMessage())
        self.log.warn("poker client: {error}", error=failure.getErrorMessage())

    def leave(self) -> None:
        """Leave the seat (action 12): the stack is cashed out after the hand."""
        if self._leaving:
            return
        self._leaving = True
        d = self.client.act(self.gameid, action_xml({"index": 12}))
        d.addErrback(self._failed)
        d.addBoth(lambda _: self.done.callback(self.table.hands) if not self.done.called else None)


def _copy(view: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(view)
    out["players"] = [dict(p) for p in view.get("players", ())]
    out["boardcards"] = list(view.get("boardcards", ()))
    return out


def bot_decider(policy: str, seat_of: Callable[[], int | None], seed: int | None = None) -> Decide:
    """A :data:`Decide` with the in-hub bot's code (:class:`bots.poker.plugin.PokerBot`)."""
    from .plugin import PokerBot

    bots: dict[int, Any] = {}

    def decide(view: Mapping[str, Any], legal: list[dict[str, Any]], deadline: float) -> Any:
        seat = seat_of()
        if seat is None:
            raise ValueError("not seated")
        if seat not in bots:
            bots[seat] = PokerBot(policy, seat, seed)
        return bots[seat].choose(view, legal, deadline)

    return decide


__all__ = ["NetPlayer", "TableState", "action_xml", "bot_decider", "wire_action"]
