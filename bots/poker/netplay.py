"""Playing poker over the XML front end: a network bot at a table.

The poker plugin's client module (:class:`games.poker.client.TableState`) keeps a
gameinfo-like view of the table in the shape
:func:`bots.poker.plugin.observation_from_view` reads, so a network bot decides with
the same code as the in-hub bot: the wire's action numbers become the game's action
names on the way in and go back on the way out (:func:`games.poker.client.wire_action`).
:class:`NetPlayer` sits at a table through a :class:`hub.client.HubClient` and answers
every type-10 event for its seat; it thinks in a worker thread with a deadline and
never blocks the reactor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from twisted.internet import defer, threads
from twisted.logger import Logger

from games.poker.client import TableState, action_xml, wire_action

#: ``(view, legal, deadline seconds) → action mapping`` (the game's words:
#: ``{"name": "raise", "amount": …}``; the legal actions are named alike)
Decide = Callable[[Mapping[str, Any], list[dict[str, Any]], float], Mapping[str, Any]]


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
        #: an action sent and not answered yet: a turn announced again meanwhile (after
        #: a resumed connection, :mod:`hub.client`) is not answered twice
        self._acting = False
        #: our turn announced while an action was out (resumed, the hub may have taken
        #: that action before the cut): acted on once the action is answered, unless
        #: another seat's turn came meanwhile
        self._missed: Mapping[str, Any] | None = None
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
        return bool(mine) and Decimal(str(mine[0].get("bankroll") or 0)) <= 0

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
            if self._acting:
                self._missed = todo
            else:
                self._think(todo)
        elif todo is not None:
            self._missed = None

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
        if self._leaving or (self.client.proto is None and not self.client.resuming):
            return None
        self.actions += 1
        self._acting = True
        d = self.client.act(self.gameid, action_xml(wire_action(action)))
        d.addErrback(self._failed)

        def answered(result: Any) -> Any:
            self._acting = False
            missed, self._missed = self._missed, None
            if missed is not None and not self._leaving:
                self._think(missed)
            return result

        return d.addBoth(answered)

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


__all__ = ["NetPlayer", "bot_decider"]
