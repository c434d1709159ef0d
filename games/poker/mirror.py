"""A peer-to-peer hold'em table as the hub shows it: the relay front end's game.

The peers of a ``gamehub p2p --hub`` table deal and play among themselves
(:mod:`.p2p`); the hub's relay front end only passes their messages on, and gives each
to this game (its relay adapter wraps the bytes in a ``{"relayed": base64}`` action).
:class:`PeerTableMirror` follows them as an *observer* of the table (a
:class:`.p2p.table.PeerTable` without a key): it checks every signature, plays the
public actions on the hub's engine, opens the board cards once every peer has revealed
its keys of them and the hands shown at a showdown, and nothing else, because it can
open nothing else (the peers' other keys reach each other sealed).  So the lobby and
the web page show the table as it goes, public information only; every player action
of a person at the hub is refused (the table is played by its peers).

Events are those of the hub's poker tables (:mod:`.events`): ``hand``, ``deal``,
``action``, ``board``, ``pots``, ``show``, ``award``, ``handover``, and ``cancel`` for a
void hand, ``seat`` (``left``) for a peer that left or was named a cheater.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from zope.interface import implementer

from hub.interfaces import IGame, IGameFactory
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    STATE,
    WAITING,
    BadAction,
    GameConfig,
    GameContext,
    GameEvent,
    IllegalAction,
)

from . import events, rules, views
from .p2p.gather import Witness
from .p2p.params import Params
from .p2p.table import NoPlayer, PeerTable
from .p2p.wire import MAX_FRAME, WireError

if TYPE_CHECKING:
    from hub.kit.seams import DelayedCall

#: seconds a mirror waits for a first message before it closes (nobody plays here)
IDLE_CLOSE = 600.0
#: messages kept until the table is agreed, and their bytes in all (a peer's own
#: valid messages could otherwise make the hub hold a lot)
MAX_EARLY, MAX_EARLY_BYTES = 1000, 1024 * 1024


class _NoLink:
    """An observer sends nothing."""

    def send(self, to: int | None, frame: bytes) -> None:
        """Nothing."""


@implementer(IGame)
class PeerTableMirror:
    """The lobby's view of one peer-to-peer table (see the module docstring)."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        self.seats = config.seats
        self.name = config.name
        self._context = context
        self._emit = context.emit
        self._clock = context.clock
        self.names: dict[int, str] = {}
        self.witness = Witness(config.seats)
        self.table: PeerTable | None = None
        self._early: list[tuple[int, bytes]] = []
        self._left: set[int] = set()
        self._over = False
        self._result: dict[str, Any] | None = None
        self._shown_state = WAITING
        self._idle: DelayedCall | None = self._clock.callLater(
            IDLE_CLOSE, self._close, "nobody played here"
        )

    # -- IGame -------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``waiting`` until the peers agreed the table, ``running``, then ``over``."""
        if self._over:
            return OVER
        return RUNNING if self.table is not None else WAITING

    def seat_player(self, seat: int, name: str) -> None:
        """A peer sat down (the relay seats the table's peers)."""
        self.names[seat] = name
        self._emit(GameEvent("seat", {"seat": seat, "what": "taken", "name": name}))

    def leave(self, seat: int) -> None:
        """A peer's connection to the hub is gone; when all are, the table is over."""
        self._left.add(seat)
        self._emit(GameEvent("seat", {"seat": seat, "what": "left", "name": self.names.get(seat)}))
        if len(self._left) >= len(self.names) > 0:
            self._close("every peer left")

    def act(self, seat: int, action: Any) -> None:
        """Only a message the hub relayed (``{"relayed": base64}``) is taken.

        :raises hub.model.IllegalAction: any other action: the peers play this table.
        :raises hub.model.BadAction: not base64.
        """
        if not isinstance(action, Mapping) or set(action) != {"relayed"}:
            raise IllegalAction(
                "this table is played by its peers (gamehub p2p); the hub only shows it"
            )
        text = action["relayed"]
        if not isinstance(text, str) or len(text) > MAX_FRAME * 2:
            raise BadAction("a relayed message is base64")
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise BadAction("a relayed message is base64") from None
        if self._over:
            return
        if self._idle is not None and self._idle.active():
            self._idle.cancel()
        self._idle = None
        self._follow(seat, data)

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """None: nobody plays here."""
        return []

    def view(self, seat: int | None) -> dict[str, Any]:
        """The table as everyone may see it (any ``seat`` sees the same)."""
        table = self.table
        facts = views.TableFacts("fixed-limit", self._context.game_id, self.name, None, None,
                                 None, "")  # fmt: skip
        if table is None:
            engine = rules.Table(Params(players=self.seats).config())
            for s, name in sorted(self.names.items()):
                engine.seat_player(s, name, Decimal(1))
            view = views.table_view(engine, self.seats, None, [], facts)
        elif table.hand is not None:
            view = table.hand.play.view(None, table.hand.cards, facts)
        else:
            view = views.table_view(table.table, self.seats, None, [], facts)
        view["peertopeer"] = True
        view["departed"] = {str(s): why for s, why in (table.departed if table else {}).items()}
        return view

    def result(self) -> dict[str, Any] | None:
        """``None`` until over; then the stacks."""
        return self._result

    def stop(self) -> None:
        """Nothing runs here but the idle timer."""
        if self._idle is not None and self._idle.active():
            self._idle.cancel()
        self._idle = None

    # -- following the table ---------------------------------------------------------------------

    def _follow(self, seat: int, data: bytes) -> None:
        if self.table is not None:
            self.table.receive(seat, data)
            return
        try:
            roster = self.witness.take(data)
        except WireError:
            return
        if roster is None:
            early_bytes = sum(len(d) for _, d in self._early) + len(data)
            if len(self._early) < MAX_EARLY and early_bytes <= MAX_EARLY_BYTES:
                self._early.append((seat, data))
            return
        self.table = PeerTable(roster, None, self._clock, _NoLink(), NoPlayer(), self)
        self.table.start()
        self._announce()
        early, self._early = self._early, []
        for s, d in early:
            self.table.receive(s, d)

    def _announce(self) -> None:
        state = self.state
        if state != self._shown_state:
            self._shown_state = state
            self._emit(GameEvent(STATE, {"state": state}))

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        """The table's public records become the hub's poker events (public ones only)."""
        shuffled = events.Shuffle(table, None, None)
        for rec in records:
            for event in events.events_of(rec, shuffled):
                if event.seats is None:
                    self._emit(event)

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """The table's own events, in the hub's words."""
        if kind == "void":
            self._emit(GameEvent("cancel", {"reason": f"void hand: {data['why']}"}))
        elif kind in ("left", "cheater"):
            word = "named a cheater" if kind == "cheater" else "left"
            self._emit(GameEvent("seat", {"seat": data["seat"], "what": "left",
                                          "name": data["name"], "why": f"{word}: {data['why']}"}))  # fmt: skip
        elif kind == "over":
            self._close(str(data["reason"]), data.get("stacks"))

    def _close(self, why: str, stacks: Mapping[str, Any] | None = None) -> None:
        if self._over:
            return
        self.stop()
        if stacks is None and self.table is not None:
            stacks = {str(s): str(v) for s, v in self.table.stacks.items()}
        stacks = stacks or {}
        self._over = True
        self._result = {
            "winners": [],
            "scores": [str(stacks.get(str(s), "0")) for s in range(self.seats)],
            "summary": f"peer-to-peer table over ({why})",
        }
        if self.table is not None and not self.table.over:
            self.table.stop(why)
        self._emit(GameEvent(GAME_OVER, {"result": self._result}))


@implementer(IGameFactory)
class PeerTableFactory:
    """``holdem-p2p``: fixed-limit hold'em played by its peers, followed by the hub."""

    name = "holdem-p2p"
    summary = "Fixed-limit hold'em played peer to peer (gamehub p2p --hub): the hub only shows it."
    variants: tuple[str, ...] = ("fixed-limit",)
    min_seats = 2
    max_seats = 10
    default_seats = 2
    frontends: tuple[str, ...] = ("relay", "web")

    def create(self, config: GameConfig, context: GameContext) -> PeerTableMirror:
        """A table's mirror."""
        return PeerTableMirror(config, context)

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.ADAPTERS`), or ``None``."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.ADAPTERS.get(frontend) if frontend in self.frontends else None
        return None if make is None else make()
