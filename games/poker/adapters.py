"""Plugs poker into the front ends that host it: XML (the ``texasmessage`` payload of
spec xml-protocol.md, :class:`PokerXMLAdapter`) and the web (:class:`WebView`).

Client → server, inside ``game/action``'s ``parameters``::

    <texasmessage><action><index>4</index><amount>40</amount></action></texasmessage>

becomes the game's action mapping (:mod:`games.poker.server`): ``{"name": "raise",
"amount": "40"}``, and ``discarded`` is carried over.  The wire's action numbers are
this module's (:data:`WIRE_ACTIONS`: the index of each of the game's action names); the
game knows only the names.  Three indices are the hub's business, not the game's
(:class:`hub.interfaces.IXMLGameAdapter`), typed seat operations (:mod:`hub.seatops`):
``12`` (leave seat) becomes ``LeaveSeat()`` (the front end leaves the seat; the stack
is cashed out at the end of the hand), ``11`` (take seat; from one's own seat: add
chips) ``TakeSeat(seat, amount)`` and ``13`` (add bot) ``AddBot(name, seat,
amount)``: the hub's table money (:mod:`hub.play.money`) moves the buy-in through
the ledger first.  The payload schema is ``texas.xsd`` in this package
(:class:`hub.interfaces.IXMLPayloadSchema`): the front end validates every action
against it before :meth:`PokerXMLAdapter.parse_action` reads it, and publishes it at
``/schema/texas.xsd``.

Server → client, as ``updatedgamestate`` parameters, one ``texasmessage`` each:

- ``gameinfo``: the full table as the receiver may see it (other players' hole cards
  ``-1`` until shown), after ``game/join`` and at the start of every hand
  (:meth:`PokerXMLAdapter.snapshot_on`);
- ``hand``: the receiver's own hole cards (after the deal, and after a discard);
- ``event`` of types 0–10 (the table of the spec).  Choices where the spec is silent:
  a public deal (type 1) lists each dealt seat's cards as ``-1``; a board event
  (type 2) carries the whole board in a ``hand`` with seat ``-1`` and the positions of
  the new cards in ``cardpositions``; an uncalled bet given back is a type-3 event
  without an ``action`` child and ``custom`` "returned"; seat events (type 8) carry an
  ``action`` child (11 taken, 12 leaving/left, 6 sat out, 7 sat in, 5 auto-post) with
  the player's ``name``; the hand-over event (type 7) carries the revealed seed and,
  in ``custom``, each seat's result (``seat:+amount`` …); a cancelled hand and the
  closed table are type-7 events with ``seat`` -1 and the reason in ``custom``.

``game/custom`` ``<handhistory/>`` answers with a hand's text; ``lobby/history`` lists
stored hands in the words of the factories' :class:`hub.interfaces.IHandRecord`
(:func:`.history.describe`).

Every element this module builds validates against ``texas.xsd`` (the tests check
every document a server sends).  Elements are built with the XML front end's public
:mod:`hub.frontends.xml.payload` helpers rather than plain lxml: they keep every text
XML can carry (a player's name may hold characters plain lxml refuses), and
:func:`~hub.frontends.xml.payload.wire_game_id` is the front end's own mapping of game
ids, which a ``gameinfo`` must repeat exactly.  Nothing else of the front end is used.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from lxml import etree
from zope.interface import implementer

from hub.frontends.xml.payload import XMLGameAdapter, wire_game_id
from hub.frontends.xml.payload import element as _el
from hub.frontends.xml.payload import sub as _sub
from hub.interfaces import (
    IRelayAdapter,
    IWebAssets,
    IWebView,
    IXMLGameAdapter,
    IXMLPayloadSchema,
)
from hub.model import CONTRIBUTE, BadAction, GameEvent, NotFound
from hub.optional_interfaces import IXMLSeatDetails
from hub.seatops import AddBot, LeaveSeat, Parsed, TakeSeat

from .acpc import ACPCAdapter
from .rules import ACTION_NAMES

#: ``texasmessage/action/index`` on the wire → the game's action name.  The spec's
#: table (0 fold, 1 check, 2 call, 3 bet, 4 raise, 5 post, 6 sit out, 7 sit in, 8 show,
#: 9 muck, 10 discard, 11 take seat, 12 leave seat, 13 add bot) lists the actions in the
#: order the game names them (:data:`.rules.ACTION_NAMES`); the tests pin every number.
#: 14 adds the seat's entropy to the next shuffle (its ``entropy`` child, hex).
WIRE_ACTIONS: tuple[str, ...] = (*ACTION_NAMES, CONTRIBUTE)
#: the game's action name → its wire index
ACTION_INDEX = {name: index for index, name in enumerate(WIRE_ACTIONS)}
#: action events the wire shows with another action's index (a refused blind: sit out)
SHOWN_AS = {"refuse": "sitout"}
#: event types of ``texasmessage/event`` (spec table), by the game's event kinds
EVENT_TYPES = {
    "hand": 0,
    "deal": 1,
    "board": 2,
    "action": 3,
    "return": 3,
    "pots": 4,
    "show": 5,
    "award": 6,
    "handover": 7,
    "cancel": 7,
    "over": 7,
    "seat": 8,
    "autopost": 8,
    "timeout": 9,
    "turn": 10,
    # a sit-and-go's (:mod:`.sitandgo`): table-wide like the hand-over, a seat's like
    # seat events
    "level": 7,
    "eliminated": 8,
    "away": 8,
    # the shared shuffle (:mod:`.hand_shuffle`): its commitment before the deal, and
    # each seat's contribution
    "shuffle": 11,
    "entropy": 12,
}
#: ``gameinfo/limitstyle`` of the game's betting structures (its variants)
LIMIT_STYLES = {"fixed-limit": 0, "pot-limit": 1, "no-limit": 2}
#: ``mystate`` numbers of the view's player states.
PLAYER_STATES = {"waiting": 0, "active": 1, "folded": 2, "allin": 3, "sittingout": 4}
#: seat event ``what`` → the action shown in its ``action`` child.
SEAT_ACTIONS = {
    "taken": "takeseat",
    "addchips": "takeseat",
    "leaving": "leaveseat",
    "left": "leaveseat",
    "sitout": "sitout",
    "sitin": "sitin",
}
#: Most card positions a discard may list.
MAX_DISCARDS = 5


def wire_index(name: Any) -> int:
    """The wire index of an action name of the game (fold for an unknown one)."""
    return ACTION_INDEX.get(SHOWN_AS.get(str(name), str(name)), ACTION_INDEX["fold"])


def _amount(value: Any) -> str:
    """A non-negative wire amount (``xs:decimal``, at most 2 fraction digits)."""
    if value is None:
        return "0"
    d = abs(Decimal(str(value)))
    exponent = d.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        d = d.quantize(Decimal("0.01"))
    return format(d, "f")


def _signed(value: Any) -> str:
    d = Decimal(str(value))
    return ("+" if d >= 0 else "") + format(d, "f")


def _seat(value: Any) -> int:
    return -1 if value is None else int(value)


def _hand(parent: etree._Element | None, seat: int, cards: Iterable[int], tag: str = "hand"):
    """A ``parserhand``: ``<hand seat=><cards><card>n</card></cards>…</hand>``."""
    node = _el(tag) if parent is None else etree.SubElement(parent, tag)
    node.set("seat", str(seat))
    for c in cards:
        _sub(_sub(node, "cards"), "card", int(c))
    return node


def _message(child: etree._Element) -> etree._Element:
    root = _el("texasmessage")
    root.append(child)
    return root


def _pots(parent: etree._Element, pots: Sequence[Mapping[str, Any]]) -> None:
    node = _sub(parent, "pots")
    for p in pots:
        pot = _sub(node, "pot", amount=_amount(p.get("amount")))
        for s in p.get("seats", ()):
            _sub(pot, "seat", int(s))


def _legal_action(parent: etree._Element, legal: Mapping[str, Any]) -> None:
    node = _sub(parent, "action")
    _sub(node, "index", wire_index(legal["name"]))
    if legal.get("amount") is not None:
        _sub(node, "amount", _amount(legal["amount"]))
    elif legal.get("min") is not None:
        _sub(node, "amount", _amount(legal["min"]))
        if legal.get("max") is not None:
            _sub(node, "amount", _amount(legal["max"]))


def event_element(
    kind: str,
    seat: int | None,
    amount: Any = None,
    *,
    handid: str | None = None,
    button: int | None = None,
    commitment: str | None = None,
    seed: str | None = None,
    cardpositions: Iterable[int] = (),
    hands: Iterable[tuple[int, Iterable[int]]] = (),
    actions: Iterable[etree._Element] = (),
    pots: Sequence[Mapping[str, Any]] | None = None,
    timeleft: int | None = None,
    custom: str | None = None,
    entropy: Mapping[str, str] | None = None,
) -> etree._Element:
    """One ``texasmessage/event`` of the game's event ``kind`` (children in the
    schema's order; its ``type`` from :data:`EVENT_TYPES`)."""
    ev = _el("event")
    ev.set("type", str(EVENT_TYPES[kind]))
    ev.set("seat", str(_seat(seat)))
    if amount is not None:
        ev.set("amount", _amount(amount))
    if handid is not None:
        _sub(ev, "handid", handid)
    if button is not None:
        _sub(ev, "button", int(button))
    if commitment is not None:
        _sub(ev, "commitment", commitment)
    if seed is not None:
        _sub(ev, "seed", seed)
    for pos in cardpositions:
        _sub(ev, "cardpositions", int(pos))
    for s, cards in hands:
        _hand(ev, s, cards)
    for a in actions:
        ev.append(a)
    if pots is not None:
        _pots(ev, pots)
    if timeleft is not None:
        _sub(ev, "timeleft", int(timeleft))
    if custom is not None:
        _sub(ev, "custom", custom)
    for who, value in sorted((entropy or {}).items(), key=_seat_key):
        _sub(ev, "entropy", value).set("seat", str(int(who)))
    return _message(ev)


def _action_child(action: str, amount: Any = None, name: str | None = None, seat: Any = None):
    node = _el("action")
    _sub(node, "index", wire_index(action))
    if amount is not None:
        _sub(node, "amount", _amount(amount))
    if name is not None:
        _sub(node, "name", name)
    if seat is not None:
        _sub(node, "seat", int(seat))
    return node


#: how an event is rendered: (adapter, event data, seat) → element
Renderer = Callable[[Any, dict[str, Any], "int | None"], etree._Element]


@implementer(IXMLGameAdapter, IXMLPayloadSchema, IXMLSeatDetails)
class PokerXMLAdapter(XMLGameAdapter):
    """Translates poker actions, events and views to and from ``texasmessage``."""

    #: ``game/join`` only watches; seats are taken with action 11 (or a bot added, 13).
    seat_on_join = False
    #: the payload's schema, in this package (validated and published by the front end)
    payload_schema = "texas.xsd"

    # -- client → server ------------------------------------------------------------------

    def parse_action(self, element: Any) -> Parsed:
        """``<parameters><texasmessage><action>…`` (checked against ``texas.xsd`` by
        the front end) → the game's action mapping, or a seat operation for 11-13.

        :raises hub.model.BadAction: not a ``texasmessage`` action.
        """
        children = [c for c in element if isinstance(c.tag, str)] if element is not None else []
        if len(children) != 1 or children[0].tag != "texasmessage":
            raise BadAction("a poker action is <texasmessage><action>…</action></texasmessage>")
        action = children[0].find("action")
        if action is None:
            raise BadAction("a client sends a texasmessage with an action")
        try:
            index = int((action.findtext("index") or "").strip())
            seat_text = action.findtext("seat")
            seat = int(seat_text) if seat_text is not None else None
        except ValueError:
            raise BadAction("a poker action's index and seat are integers") from None
        if not 0 <= index < len(WIRE_ACTIONS):
            raise BadAction(f"a poker action index is 0 to {len(WIRE_ACTIONS) - 1}")
        name = WIRE_ACTIONS[index]
        amounts = [a.text for a in action.findall("amount")]
        amount = None
        if amounts:
            try:
                amount = str(Decimal((amounts[0] or "").strip()))
            except InvalidOperation:
                raise BadAction("an amount is a decimal number") from None
        if name == "leaveseat":
            return LeaveSeat()
        if name == "takeseat":
            return TakeSeat(seat, amount)
        if name == "addbot":
            bot = (action.findtext("name") or "").strip()
            if not bot:
                raise BadAction("add bot needs the bot's name")
            return AddBot(bot, seat, amount)
        if name == CONTRIBUTE:
            value = (action.findtext("entropy") or "").strip()
            if not value:
                raise BadAction("action 14 carries the seat's entropy in an entropy element")
            return {"name": name, "value": value}
        out: dict[str, Any] = {"name": name}
        if amount is not None:
            out["amount"] = amount
        discarded = action.findall("discarded")
        if discarded:
            if len(discarded) > MAX_DISCARDS:
                raise BadAction(f"at most {MAX_DISCARDS} cards are discarded")
            try:
                out["discarded"] = [int((d.text or "").strip()) for d in discarded]
            except ValueError:
                raise BadAction("discarded lists card positions (integers)") from None
        elif name == "discard":
            out["discarded"] = []
        return out

    def custom(self, game: Any, seat: int | None, element: Any) -> etree._Element:
        """``game/custom`` ``<handhistory handid="…"/>`` (no ``handid``: the last hand)
        → ``<handhistory handid="…">`` readable hand-history text ``</handhistory>`` of
        one of the table's recent hands, as the asker's seat saw it (own hole cards,
        and those shown at the table).

        :raises hub.model.BadAction: another request; ``NotFound`` for an unknown hand.
        """
        if element is None or element.tag != "handhistory":
            raise BadAction('poker answers <handhistory handid="…"/> custom requests')
        hand_id = element.get("handid") or None
        text = game.engine.hand_history_text(hand_id, seat=seat)
        if text is None:
            raise NotFound(f"no recent hand {hand_id or ''} at this table".replace("  ", " "))
        record = game.engine.hand_record(hand_id) or {}
        node = _el("handhistory", text)
        node.set("handid", str(record.get("hand_id", hand_id or "")))
        return node

    def seat_details(self, engine: Any) -> tuple[tuple[str, ...], dict[int, dict[str, str]]]:
        """``lobby/gamedetails``'s ``chips`` of each seat: the chips in front of the
        player at the table now (those set aside for a hand of a match included)."""
        table = engine.table
        aside = table.hand.reserve if table.hand is not None else {}
        chips = {s: p.stack + aside.get(s, 0) for s, p in table.players.items()}
        return ("chips",), {s: {"chips": str(amount)} for s, amount in chips.items()}

    # -- server → client ------------------------------------------------------------------

    def snapshot_on(self, event: GameEvent) -> bool:
        """Whether a full ``gameinfo`` follows ``event``: at each new hand."""
        return event.kind == "hand"

    def render_event(self, event: GameEvent, seat: int | None) -> etree._Element | None:
        """One engine event as the observer at ``seat`` sees it (``None``: nothing)."""
        render = self.RENDERERS.get(event.kind)
        if render is None:
            return None
        return render(self, dict(event.data), seat)

    def _ev_hand(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element(
            "hand",
            d.get("button"),
            handid=d.get("handid"),
            button=_seat(d.get("button")),
            commitment=d.get("commitment"),
        )

    def _ev_hole(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return _message(_hand(None, int(d["seat"]), d.get("cards", ())))

    def _ev_deal(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        count = int(d.get("count") or 0)
        hands = [(int(s), [-1] * count) for s in d.get("seats", ())]
        return event_element("deal", -1, hands=hands)

    def _ev_board(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        board = list(d.get("board") or d.get("cards") or ())
        new = len(d.get("cards") or ())
        positions = range(len(board) - new, len(board))
        return event_element("board", -1, cardpositions=positions, hands=[(-1, board)])

    def _ev_action(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        name = str(d.get("name") or "fold")
        child = _action_child(name, d.get("total"), name, d.get("seat"))
        custom = "allin" if d.get("allin") else None
        if d.get("blind"):
            custom = f"{d['blind']}{' allin' if d.get('allin') else ''}"
        return event_element(
            "action", d.get("seat"), d.get("amount"), actions=[child], custom=custom
        )

    def _ev_return(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("return", d.get("seat"), d.get("amount"), custom="returned")

    def _ev_pots(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        pots = list(d.get("pots") or ())
        total = sum((Decimal(str(p.get("amount", 0))) for p in pots), Decimal(0))
        return event_element("pots", -1, total, pots=pots)

    def _ev_show(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        s = int(d["seat"])
        return event_element("show", s, hands=[(s, d.get("cards", ()))], custom=d.get("text"))

    def _ev_award(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("award", d.get("seat"), d.get("amount"), custom=d.get("text") or None)

    def _ev_handover(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        deltas = d.get("deltas") or {}
        text = " ".join(f"{s}:{_signed(v)}" for s, v in sorted(deltas.items(), key=_seat_key))
        return event_element(
            "handover",
            -1,
            handid=d.get("handid"),
            commitment=d.get("commitment"),
            seed=d.get("seed"),
            custom=text or None,
            entropy=d.get("contributions") or None,
        )

    def _ev_shuffle(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("shuffle", -1, commitment=d.get("commitment"), custom=str(d["number"]))

    def _ev_entropy(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        contribution = {str(d["seat"]): str(d["value"])}
        return event_element(
            "entropy", d.get("seat"), custom=str(d["number"]), entropy=contribution
        )

    def _ev_cancel(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("cancel", -1, custom=f"cancelled: {d.get('reason') or ''}".strip())

    def _ev_seat(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        what = str(d.get("what") or "")
        action = SEAT_ACTIONS.get(what, "takeseat")
        child = _action_child(action, d.get("amount"), d.get("name"), d.get("seat"))
        return event_element("seat", d.get("seat"), d.get("amount"), actions=[child], custom=what)

    def _ev_autopost(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        on = 1 if d.get("on") else 0
        child = _action_child("post", on, None, d.get("seat"))
        return event_element("autopost", d.get("seat"), actions=[child], custom="autopost")

    def _ev_timeout(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("timeout", d.get("seat"), custom=d.get("decision"))

    def _ev_turn(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        mine = seat is not None and seat == d.get("seat")
        actions = []
        if mine:
            for legal in d.get("legal") or ():
                node = _el("x")
                _legal_action(node, legal)
                actions.append(node[0])
        return event_element(
            "turn",
            d.get("seat"),
            d.get("tocall"),
            actions=actions,
            timeleft=d.get("timeleft_ms"),
            custom=d.get("decision"),
        )

    def _ev_over(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        result = d.get("result") or {}
        return event_element("over", -1, custom=f"closed: {result.get('summary') or ''}".strip())

    # -- snapshot -------------------------------------------------------------------------

    def render_view(self, view: Any) -> etree._Element:
        """The game's view (``PokerGame.view``) → ``texasmessage/gameinfo``."""
        v = view
        gi = _el("gameinfo")
        _sub(gi, "ante", _amount(v.get("ante")))
        _sub(gi, "bigblind", _amount(v.get("bigblind")))
        _hand(gi, -1, v.get("boardcards") or (), "boardcards")
        _sub(gi, "buttonseat", _seat(v.get("buttonseat")))
        _sub(gi, "currentplayerseat", _seat(v.get("currentplayerseat")))
        gameid = v.get("gameid")
        _sub(gi, "gameid", wire_game_id(gameid) if gameid else 0)
        _sub(gi, "limitstyle", LIMIT_STYLES.get(str(v.get("variant")), 0))
        _sub(gi, "minplayers", int(v.get("minplayers") or 2))
        _sub(gi, "minraise", _amount(v.get("minraise")))
        sb_seat, bb_seat = v.get("smallblindseat"), v.get("bigblindseat")
        for p in v.get("players") or ():
            pl = _sub(gi, "players")
            _sub(pl, "bankroll", _amount(p.get("bankroll")))
            _sub(pl, "bankrollatstartofhand", _amount(p.get("bankrollatstartofhand")))
            _sub(pl, "hasactedthisround", "true" if p.get("hasactedthisround") else "false")
            s = int(p["seat"])
            blind = "no_blinds"
            if p.get("hastopostblind"):
                blind = "small_blind" if s == sb_seat and s != bb_seat else "big_blind"
            _sub(pl, "hastopostblind", blind)
            _hand(pl, s, p.get("holecards") or (), "holecards")
            _sub(pl, "inpot", _amount(p.get("inpot")))
            _sub(pl, "inpotthisround", _amount(p.get("inpotthisround")))
            last = p.get("lastaction")
            _sub(pl, "lastaction", ACTION_INDEX.get(str(last), -1) if last else -1)
            _sub(pl, "myname", p.get("myname") or "")
            _sub(pl, "myseat", s)
            _sub(pl, "mystate", PLAYER_STATES.get(str(p.get("mystate")), 0))
            _sub(pl, "accountname", p.get("accountname") or "")
        _sub(gi, "playerstoact", len(v.get("playerstoact") or ()))
        _sub(gi, "pot", _amount(v.get("pot")))
        _sub(gi, "raisesthisround", int(v.get("raisesthisround") or 0))
        _sub(gi, "smallblind", _amount(v.get("smallblind")))
        _sub(gi, "stage", int(v.get("stage") or 0))
        _sub(gi, "winners", len(v.get("winners") or ()))
        _sub(gi, "bigblindseat", _seat(bb_seat))
        _sub(gi, "smallblindseat", _seat(sb_seat))
        if v.get("handid") is not None:
            _sub(gi, "handid", v["handid"])
        _sub(gi, "smallbet", _amount(v.get("smallbet")))
        _sub(gi, "bigbet", _amount(v.get("bigbet")))
        if v.get("cap") is not None:
            _sub(gi, "cap", int(v["cap"]))
        _pots(gi, v.get("pots") or ())
        if v.get("timeleft") is not None:
            _sub(gi, "timeleft", int(v["timeleft"]))
        if v.get("commitment") is not None:
            _sub(gi, "commitment", v["commitment"])
        return _message(gi)

    #: event kind → how it is rendered: the dispatch table
    RENDERERS: ClassVar[dict[str, Renderer]] = {
        "hand": _ev_hand,
        "hole": _ev_hole,
        "deal": _ev_deal,
        "board": _ev_board,
        "action": _ev_action,
        "return": _ev_return,
        "pots": _ev_pots,
        "show": _ev_show,
        "award": _ev_award,
        "handover": _ev_handover,
        "shuffle": _ev_shuffle,
        "entropy": _ev_entropy,
        "cancel": _ev_cancel,
        "seat": _ev_seat,
        "autopost": _ev_autopost,
        "timeout": _ev_timeout,
        "turn": _ev_turn,
        "over": _ev_over,
    }


@implementer(IXMLGameAdapter, IXMLPayloadSchema)
class SitAndGoXMLAdapter(PokerXMLAdapter):
    """A sit-and-go over XML (:mod:`.sitandgo`): ``game/join`` takes a free seat (no
    buy-in: tournament chips), take seat (11) and add bot (13) carry no amount, and
    the tournament's events are ``texasmessage`` events: a ``level`` as type 7 with
    seat -1 (``custom`` ``level 2: 30/60``), an ``eliminated`` as type 8 of the seat
    (``custom`` ``eliminated: place 5``), ``away`` as type 8 (``custom`` ``away`` or
    ``back``)."""

    seat_on_join = True

    def parse_action(self, element: Any) -> Parsed:
        """As poker's, without buy-ins (an amount sent is ignored)."""
        out = super().parse_action(element)
        if isinstance(out, (TakeSeat, AddBot)):
            return replace(out, buyin=None)
        return out

    def _ev_level(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("level", -1, custom=f"level {d.get('level')}: {d.get('stakes')}")

    def _ev_eliminated(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element(
            "eliminated", d.get("seat"), handid=d.get("handid"),
            custom=f"eliminated: place {d.get('place')}",
        )  # fmt: skip

    def _ev_away(self, d: dict[str, Any], seat: int | None) -> etree._Element:
        return event_element("away", d.get("seat"), custom="away" if d.get("away") else "back")

    #: event kind → how it is rendered, the dispatch table (poker's and the tournament's)
    RENDERERS: ClassVar[dict[str, Renderer]] = {
        **PokerXMLAdapter.RENDERERS,
        "level": _ev_level,
        "eliminated": _ev_eliminated,
        "away": _ev_away,
    }


@implementer(IWebView, IWebAssets)
class WebView:
    """The page script that draws poker in the browser (``web.js`` here), its
    stylesheet (``web.css``) and the history page's panel of its hands with the shuffle check (``history.js``)."""

    script = "web.js"
    styles = "web.css"
    history: str | None = "history.js"


@implementer(IRelayAdapter)
class RelayAdapter:
    """What the relay front end gives a peer-to-peer table (:mod:`.mirror`): each
    message it passes on, as an action."""

    def relayed(self, data: bytes) -> dict[str, Any]:
        """``{"relayed": base64}``."""
        return {"relayed": base64.b64encode(data).decode("ascii")}


#: front end → the adapter that lets it host poker (:meth:`.server.TexasHoldemFactory.adapter`;
#: ``relay``: the peer-to-peer tables of :mod:`.mirror`)
ADAPTERS: dict[str, type] = {
    "xml": PokerXMLAdapter,
    "web": WebView,
    "acpc": ACPCAdapter,
    "relay": RelayAdapter,
}
#: front end → the adapter of a sit-and-go (:meth:`.sitandgo.HoldemSitAndGoFactory.adapter`)
SNG_ADAPTERS: dict[str, type] = {"xml": SitAndGoXMLAdapter, "web": WebView}


def _seat_key(item: tuple[Any, Any]) -> int:
    try:
        return int(item[0])
    except (TypeError, ValueError):
        return -1


__all__ = [
    "ACTION_INDEX",
    "ADAPTERS",
    "EVENT_TYPES",
    "PLAYER_STATES",
    "WIRE_ACTIONS",
    "PokerXMLAdapter",
    "SNG_ADAPTERS",
    "SitAndGoXMLAdapter",
    "WebView",
    "event_element",
    "wire_index",
]
