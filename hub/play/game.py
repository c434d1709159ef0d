"""One live game of the lobby (:class:`GameInstance`): its engine, seats, observers,
event log and transcript; the seam every front end plays through (``take_seat``,
``act``, ``observe``, ``leave_seat``, ``view``, ``legal_actions``).

Pure Python objects driven by the lobby's injected clock; no sockets, no wire formats.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface.verify import verifyObject

from hub.connections import fields
from hub.connections.transcript import Transcripts
from hub.interfaces import IBot, IBotFactory, IChipGame, IChipGameFactory, IGame
from hub.model import (
    GAME_OVER,
    OVER,
    PAUSED,
    RESUMED,
    RUNNING,
    SEAT_OPEN,
    STATE,
    TURN,
    BadAction,
    Conflict,
    GameConfig,
    GameContext,
    GameEvent,
    NotFound,
)
from hub.optional_interfaces import ICatchesUp
from hub.play.botdriver import BotDriver, BotRunner, LoadMargin
from hub.play.finished import FinishedEngine, spent
from hub.play.gameclock import GameClock, ReactorTime
from hub.play.gamelog import LoggedEvent, deadline_of, missed, replay_of, replay_text_of
from hub.play.journal import Funnel, JournalWriter, payload_of
from hub.play.seats import Seat, unused_name
from hub.play.seeded import SeededRandom
from hub.play.tablerules import CLOSING, check_table_rules

#: builds a named tuple from its fields without the keyword handling of its ``__new__``
_new = tuple.__new__


class BotFactories(Protocol):
    """Where a game finds the bots it seats (:class:`hub.plugins.registry.Registry`)."""

    def bot_factory(self, name: str) -> IBotFactory:
        """The loaded bot called ``name`` (``NotFound``: none)."""
        ...


class GameHost(Protocol):
    """What a game uses of the lobby that holds it (:class:`hub.play.lobby.Lobby`)."""

    @property
    def clock(self) -> ReactorTime: ...
    @property
    def registry(self) -> BotFactories: ...
    @property
    def transcripts(self) -> Transcripts | None: ...
    @property
    def journal(self) -> JournalWriter | None: ...
    @property
    def money(self) -> object | None: ...
    @property
    def event_log(self) -> int: ...
    @property
    def unattended_seconds(self) -> float | None: ...
    @property
    def bot_runner(self) -> BotRunner: ...
    @property
    def bot_deadline(self) -> float: ...
    @property
    def bot_margin(self) -> LoadMargin: ...
    def changed(self, game: GameInstance) -> None: ...
    def game_over(self, game: GameInstance, event: GameEvent) -> None: ...
    def game_seed(self) -> bytes: ...
    def awaits(self, game: GameInstance) -> None: ...
    def shared_start(self, game_type: str, view: dict[str, Any]) -> dict[str, Any]: ...


class GameInstance:
    """One game in the lobby: its engine, seats, observers and transcript."""

    log = Logger()

    def __init__(
        self,
        lobby: GameHost,
        game_id: str,
        factory: Any,
        config: GameConfig,
        seats: list[Seat],
        creator: str | None,
        seed: bytes | None = None,
        replay_from: float | None = None,
    ) -> None:
        """``seed``: the game's (:mod:`hub.play.seeded`; default: a fresh one, or the lobby's
        test source); ``replay_from``: the game is made again from its journal, its
        clock replaying from that game time (:func:`hub.play.journal.resume`)."""
        self.lobby = lobby
        self.id = game_id
        self.factory = factory
        self.type: str = factory.name
        self.variant = config.variant
        self.name = config.name
        self.config = config
        self.seats = seats
        self.creator = creator
        self.frontend: str = list(factory.frontends)[0] if factory.frontends else "web"
        self.created = lobby.clock.seconds()
        self.finished: float | None = None
        self._observers: dict[Any, int | None] = {}
        #: the observers and their seats as events go out (made again on every change)
        self._sending: tuple[tuple[Any, int | None], ...] = ()
        self._drivers: list[BotDriver] = []
        self._services: list[Any] = []  # hub services following every public event
        #: the events so far (bounded: the oldest go first), for late pages and replays
        self._log: deque[LoggedEvent] = deque(maxlen=max(1, lobby.event_log))
        self.log_dropped = 0
        #: the last public turn and when it was announced (``None``: nobody's turn)
        self._turn: LoggedEvent | None = None
        self._bots_seated = False
        #: why the table deals no new hand now (``None``: it plays on); see :meth:`pause`
        self.paused: str | None = None
        #: a chip table whose seats are all bots, on purpose: it plays on with nobody
        #: seated (:meth:`set_table_rules`)
        self.bots_only = False
        #: what a bot whose stack is gone does at a chip table: ``leave`` or ``rebuy``
        self.broke_bots = "leave"
        #: closes a chip table nobody sits at (:meth:`_check_attended`)
        self._unattended: Any = None
        self.transcript = lobby.transcripts.for_game(game_id) if lobby.transcripts else None
        #: what the engine got: its clock is the game's time (timers of the hub's own
        #: on this game use it too)
        self.context = context = self._context(seed, replay_from)
        engine = factory.create(config, context)
        verifyObject(IGame, engine)
        self.engine = engine
        #: the public view before anything happened: where a replay starts (read only:
        #: equal ones are one object, :meth:`Lobby.shared_start`)
        self.start_view: dict[str, Any] | None = lobby.shared_start(self.type, engine.view(None))
        #: the engine as a chip game (its factory provides ``IChipGameFactory``), else None
        self.chips: IChipGame | None = None
        if IChipGameFactory.providedBy(factory):
            verifyObject(IChipGame, engine)
            self.chips = engine
        #: (a resumed game) seat → the player it waits for (:meth:`take_seat`)
        self.awaiting: dict[int, str] = {}
        #: (resumed) the turn in effect as it went live here, and the events logged by then
        self.live_from: tuple[LoggedEvent | None, int] | None = None
        #: made again from its journal (:func:`hub.play.replay.replay`)
        self.resumed = replay_from is not None
        self._check_attended()
        if lobby.journal is not None and replay_from is None:
            lobby.journal.open(self)

    def _context(self, seed: bytes | None, replay_from: float | None) -> GameContext:
        """The game's clock (:mod:`hub.play.gameclock`), funnel (:mod:`hub.play.journal`) and
        seeded random source (:mod:`hub.play.seeded`)."""
        self.clock: GameClock = GameClock(self.lobby.clock, start=replay_from)
        self.clock_start = self.clock.seconds()
        #: every input goes through here to the game's journal
        self.funnel = Funnel(self.id, self.clock, self.lobby.journal)
        self.clock.on_tick = self.funnel.tick
        if replay_from is not None:
            self.clock.replaying(replay_from)
            self.funnel.replaying = True
            self.transcript = None  # its lines are in the file already
        seed = self.lobby.game_seed() if seed is None else seed
        return GameContext(self.clock, self._emit, SeededRandom(seed), self.id, seed)

    # -- state ------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``waiting``, ``running`` or ``over``."""
        return str(self.engine.state)

    def pause(self, reason: str) -> None:
        """Show everyone why the table deals no new hand (players, watchers, lobby):
        a :data:`hub.model.PAUSED` event; ``paused`` in the lobby's listing."""
        if self.paused == reason:
            return
        self.paused = reason
        if self.transcript is not None:
            self.transcript.note(f"paused: {reason}")
        self._emit(GameEvent(PAUSED, {"reason": reason}))
        self.lobby.changed(self)

    def resume(self) -> None:
        """The pause is over (a :data:`hub.model.RESUMED` event)."""
        if self.paused is None:
            return
        self.paused = None
        if self.transcript is not None:
            self.transcript.note("resumed")
        self._emit(GameEvent(RESUMED, {}))
        self.lobby.changed(self)

    # -- tables end: nobody at a chip table ----------------------------------------------

    def set_table_rules(self, bots_only: bool = False, broke_bots: str = "leave") -> None:
        """A chip table's rules for its bots: ``bots_only`` (every seat a bot, on
        purpose: it plays on with no person seated) and ``broke_bots`` (``leave``: a bot
        whose stack is gone leaves its seat; ``rebuy``: it buys in again).

        :raises hub.model.BadAction: bad values, or ``bots_only`` with a seat for people.
        """
        check_table_rules(["bot:"] * len(self.seats), bots_only, broke_bots)
        if bots_only and any(seat.kind != "bot" for seat in self.seats):
            raise BadAction("bots_only: every seat of the table must be a bot's")
        with self.funnel.input("rules", None, {"bots_only": bots_only, "broke_bots": broke_bots}):
            self.bots_only, self.broke_bots = bots_only, broke_bots
            self._check_attended()

    def attended(self) -> bool:
        """Whether a person (a network client or a web player) sits here now (not a
        seat of a resumed game still waiting for its player)."""
        return any(
            s.player
            and s.present
            and s.kind in ("client", "human")
            and s.index not in self.awaiting
            for s in self.seats
        )

    def await_players(self) -> None:
        """(A resumed game goes live.)  Its people's seats wait for them
        (:meth:`take_seat`); a chip table none comes back to closes as unattended."""
        with self.funnel.input("await"):
            for seat in self.seats:
                if seat.player and seat.present and seat.kind in ("client", "human"):
                    self.awaiting[seat.index] = seat.player
            self._check_attended()
        self.lobby.awaits(self)
        if not self.funnel.replaying:  # live here from now on (:meth:`missed`)
            self.live_from = (self._turn, self.log_dropped + len(self._log))

    def _check_attended(self) -> None:
        """A chip table with no person seated closes after the lobby's
        ``unattended_seconds`` (game time), unless it is bots only on purpose and can
        still play: its bots would otherwise play each other for ever.  The timer is
        cancelled as soon as a person sits down."""
        due = (
            self.chips is not None
            and self.lobby.unattended_seconds is not None
            and self.state != OVER
            and not self.attended()
            and not (self.bots_only and self.state == RUNNING)
        )
        timer = self._unattended
        if due and timer is None:
            self._unattended = self.context.clock.callLater(
                float(self.lobby.unattended_seconds or 0), self._close_unattended
            )
        elif not due and timer is not None:
            if timer.active():
                timer.cancel()
            self._unattended = None

    def _close_unattended(self) -> None:
        self._unattended = None
        if self.state == OVER or self.attended() or (self.bots_only and self.state == RUNNING):
            return
        why = "nobody plays at it" if not self.bots_only else "its bots cannot play on"
        if self.transcript is not None:
            self.transcript.note(f"closing: {why}")
        self.log.info("game {game}: closing, {why}", game=self.id, why=why)
        self._emit(GameEvent(CLOSING, {"reason": why}))
        self.engine.stop()  # the table closes: every stack goes back, game over

    def _check_paid(self, buyin: Any) -> None:
        """A chip game's chips come through the hub's table money (which passes the
        buy-in it moved in the ledger): nobody sits without one."""
        if self.chips is not None and self.lobby.money is not None and buyin is None:
            raise Conflict(f"seats at {self.type} tables are taken through the hub's table money")

    def seat_of(self, player: str) -> int | None:
        """The seat where ``player`` sits (and is still present), or ``None`` (also
        while the seat waits for its player to come back to a resumed game)."""
        for seat in self.seats:
            if seat.player == player and seat.present and seat.kind != "bot":
                return None if seat.index in self.awaiting else seat.index
        return None

    def free_seats(self, kind: str = "client", player: str | None = None) -> list[int]:
        """Seats a player of ``kind`` (``client`` or ``human``) may take now (seats
        reserved for someone else are not, :attr:`hub.play.seats.Seat.reserved`)."""
        allowed = ("open",) if kind == "client" else ("open", "human")
        back = [i for i, name in self.awaiting.items() if player in (None, name)]
        free = [s.index for s in self.seats if s.free and s.kind in allowed and s.allows(player)]
        return sorted(free + back)

    @property
    def observer_count(self) -> int:
        """How many observers follow the game (bots not counted)."""
        return len(self._observers)

    # -- observers ----------------------------------------------------------------------

    def observe(self, observer: Any, seat: int | None = None) -> None:
        """Send ``observer`` (an :class:`IGameObserver`) every event it may see as ``seat``."""
        self._observers[observer] = seat
        self._sending = tuple(self._observers.items())
        self.lobby.changed(self)

    def watch(self, service: Any) -> None:
        """Send ``service`` (an :class:`IGameObserver` of the hub itself, e.g. the
        table money of :mod:`hub.play.money`) every public event, first; it is no observer (not
        counted, no lobby change)."""
        self._services.append(service)

    def watchers(self) -> list[str]:
        """Names of the people who watch without a seat (observers with a ``viewer``)."""
        names = {
            getattr(observer, "viewer", None)  # optional on IGameObserver
            for observer, seat in self._observers.items()
            if seat is None
        }
        return sorted(n for n in names if isinstance(n, str) and n)

    def unobserve(self, observer: Any) -> None:
        """Stop sending events to ``observer`` (unknown observers are ignored)."""
        if observer in self._observers:
            del self._observers[observer]
            self._sending = tuple(self._observers.items())
            self.lobby.changed(self)

    # -- the event log and the turn -------------------------------------------------------

    def _record(self, event: GameEvent) -> None:
        now = self.lobby.clock.seconds()
        kind, seats = event.kind, event.seats
        to: tuple[tuple[int, str | None], ...] = ()
        if seats is not None:
            to = tuple((s, self.seats[s].player) for s in sorted(seats) if 0 <= s < len(self.seats))
        logged = _new(LoggedEvent, (now, kind, event.data, seats, to))
        if kind == TURN:
            if seats is None:  # only a public turn is everyone's business (current_turn)
                self._turn = logged
        elif kind == GAME_OVER:
            self._turn = None
        log = self._log
        if len(log) == log.maxlen:
            self.log_dropped += 1
        log.append(logged)

    def events_for(self, seat: int | None, player: str | None = None) -> list[LoggedEvent]:
        """The logged events the viewer at ``seat`` may see: every public one, and the
        private ones meant for ``seat`` while ``player`` sat there."""
        return [logged for logged in self._log if logged.seen_by(seat, player)]

    def missed(self, seat: int, player: str) -> list[GameEvent]:
        """What ``player``, back at ``seat`` of a resumed game, has not heard here
        (:func:`hub.play.gamelog.missed`; ``[]``: the game was not resumed here)."""
        return missed(self.live_from, self._log, self.log_dropped, seat, player)

    def turn_clock(self) -> dict[str, Any]:
        """``deadline`` (the clock's time by which the last announced turn must be
        answered, or ``None``) and ``timeleft_ms`` (what is left of it now)."""
        deadline = None if self._turn is None else deadline_of(self._turn)
        if deadline is None:
            return {"deadline": None, "timeleft_ms": None}
        left = max(0, int((deadline - self.lobby.clock.seconds()) * 1000))
        return {"deadline": deadline, "timeleft_ms": left}

    def current_turn(self) -> dict[str, Any] | None:
        """Who is to act now (the last ``turn`` event's data without ``legal``, with
        ``total_ms`` as announced, ``deadline`` and ``timeleft_ms`` as of now), or
        ``None`` when nobody is: the game is not running, or that seat has nothing
        left to decide (between poker hands, say)."""
        logged = self._turn
        if logged is None or self.state != RUNNING:
            return None
        turn = logged.public_data()
        seat = turn.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            return None
        if not self.engine.legal_actions(seat):
            return None
        turn["total_ms"] = turn.get("timeleft_ms")
        return {**turn, **self.turn_clock()}

    def replay(self) -> dict[str, Any] | None:
        """What a replay shows: the game, its public view before the first event, every
        public event (``at``: ms after creation) and, when over, the result.
        ``complete`` is false when the oldest events were dropped (the log is bounded).
        ``None`` once the game is retired (its log is gone; the store keeps its replay)."""
        if self.retired:
            return None
        return replay_of(self.to_json(), self.start_view, self._log, self.created, self.log_dropped)

    def replay_text(self) -> str | None:
        """:meth:`replay` as the JSON text the store keeps (``json.dumps(replay,
        default=str, separators=(",", ":"))``: the same text), made without building
        the replay's events as dicts first (a finished game's replay is encoded on the
        reactor's thread: issue 36)."""
        if self.retired:
            return None
        return replay_text_of(
            self.to_json(), self.start_view, self._log, self.created, self.log_dropped
        )

    def _emit(self, event: GameEvent) -> None:  # long: every event of every game, inlined
        self._record(event)
        kind, seats = event.kind, event.seats
        if kind == SEAT_OPEN:
            seat = event.data.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(self.seats):
                if self.seats[seat].reopen():
                    # a bot given the seat later is gone with it: its driver must not
                    # play for whoever sits down next
                    for driver in [d for d in self._drivers if d.seat == seat]:
                        driver.cancel()
                        self._drivers.remove(driver)
                self.lobby.changed(self)
        if kind == GAME_OVER and self.finished is None:
            self.finished = self.lobby.clock.seconds()
            if self.transcript is not None:
                self.transcript.note(f"game over: {event.data.get('result')}")
        live = not self.funnel.replaying
        if not live:
            self.funnel.seen(event)
        if seats is None and self._services and live:
            for service in list(self._services):
                try:
                    service.game_event(self, event)
                except Exception:
                    self.log.failure(
                        "service {service!r} of game {game} failed", service=service, game=self.id
                    )
        if self._drivers and live:
            for driver in list(self._drivers):
                if event.visible_to(driver.seat):
                    driver.game_event(self, event)
        observers = self._observers
        for observer, seat in self._sending if live else ():  # a snapshot: one may leave
            if observer in observers and (seats is None or (seat is not None and seat in seats)):
                try:
                    observer.game_event(self, event)
                except Exception:
                    self.log.failure(
                        "observer {observer!r} of game {game} failed",
                        observer=observer,
                        game=self.id,
                    )
        if kind == STATE or kind == GAME_OVER or kind == SEAT_OPEN:
            if self.chips is not None:
                self._check_attended()
        if kind == STATE or kind == GAME_OVER:
            self.lobby.changed(self)
        if kind == GAME_OVER and live:
            self.lobby.game_over(self, event)

    # -- playing ------------------------------------------------------------------------

    def come_back(self, player: str, kind: str, seat: int | None = None) -> int | None:
        """``player`` is back at a resumed game's seat kept for it (no chips move), or ``None``."""
        back = [i for i, name in self.awaiting.items() if name == player]
        if not back or seat not in (None, back[0]):
            return None
        with self.funnel.input("seat", back[0], payload_of(player=player, kind=kind)):
            del self.awaiting[back[0]]
            self.seats[back[0]].kind = kind
            self._check_attended()
        self.lobby.awaits(self)
        self.lobby.changed(self)
        return back[0]

    def take_seat(
        self, player: str, seat: int | None = None, kind: str = "client", buyin: Any = None
    ) -> int:
        """Seat ``player`` (``client`` or web ``human``) → the seat; ``buyin``: a chip seat's.

        :raises hub.model.Conflict: no such free seat, or the player already sits here.
        """
        if kind not in ("client", "human"):
            raise BadAction(f"players take seats as 'client' or 'human', not {kind!r}")
        fields.SEATED_NAME.check(player)
        back = self.come_back(player, kind, seat) if seat is None or seat in self.awaiting else None
        if back is not None:  # back to a resumed game's seat
            return back
        if self.seat_of(player) is not None:
            raise Conflict(f"{player} already sits in game {self.id}")
        self._check_paid(buyin)
        free = self.free_seats(kind, player)
        if seat is None:
            if not free:
                raise Conflict(f"game {self.id} has no free seat")
            seat = free[0]
        elif not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise NotFound(f"game {self.id} has no seat {seat}")
        elif seat not in free:
            raise Conflict(f"seat {seat} of game {self.id} is not free")
        record = self.seats[seat]
        previous_kind = record.kind
        record.player, record.kind = player, kind
        try:
            with self.funnel.input("seat", seat, payload_of(player=player, kind=kind, buyin=buyin)):
                self._seat_in_engine(seat, player, buyin)
        except BaseException:
            record.player, record.kind = None, previous_kind
            raise
        if self.transcript is not None:
            self.transcript.note(f"seat {seat} taken by {player} ({kind})")
        self._check_attended()
        self.lobby.changed(self)
        return seat

    def leave_seat(self, seat: int) -> None:
        """The player at ``seat`` leaves, disconnects or is removed."""
        record = self.seats[seat]
        if record.free or not record.present:
            return
        record.present = False
        if self.transcript is not None:
            self.transcript.note(f"seat {seat} left by {record.player}")
        with self.funnel.input("leave", seat):
            self.engine.leave(seat)
        self._check_attended()
        self.lobby.changed(self)

    def dismiss_bot(self, seat: int) -> None:
        """The bot at ``seat`` leaves for good (a chip table's broke bot): its seat then
        opens for anyone, even one that was created for it."""
        record = self.seats[seat]
        if record.kind != "bot" or record.free:
            return
        with self.funnel.input("dismiss", seat):
            record.spec = "open"
            self.leave_seat(seat)

    def add_chips(self, seat: int, amount: Any) -> None:
        """The player at ``seat`` of a chip game adds ``amount`` chips (the hub's table
        money calls this after moving them in the ledger).

        :raises hub.model.GameError: not a chip game, nobody there, or not now.
        """
        if self.chips is None:
            raise BadAction(f"{self.type} is not played for chips")
        if not 0 <= seat < len(self.seats) or self.seats[seat].free:
            raise NotFound(f"nobody sits at seat {seat} of game {self.id}")
        with self.funnel.input("chips", seat, payload_of(amount=amount)):
            self.chips.add_chips(seat, amount)
        if self.transcript is not None:
            self.transcript.note(f"seat {seat} added {amount} chips")

    def act(self, seat: int, action: Mapping[str, Any]) -> None:
        """The player at ``seat`` acts; see :meth:`hub.interfaces.IGame.act`."""
        if type(action) is not dict and not isinstance(action, Mapping):
            raise BadAction("an action is a mapping")
        if not 0 <= seat < len(self.seats) or self.seats[seat].free:
            raise NotFound(f"nobody sits at seat {seat} of game {self.id}")
        with self.funnel.input("act", seat, action):
            self.engine.act(seat, action)

    def settled(self, hand: str) -> None:
        """(Chip games.)  The hand ``hand`` is settled in the ledger."""
        if self.chips is not None and not self.funnel.sealed:  # sealed: its next hub
            self.funnel.settled(hand)
            with self.funnel.input("settled", None, {"hand": hand}):
                self.chips.settled(hand)

    def hold_hands(self) -> None:
        """(Chip games.)  Deal no hand until the last one is :meth:`settled`."""
        if self.chips is not None:
            with self.funnel.input("hold"):
                self.chips.hold_hands()

    def bot_drivers(self) -> list[BotDriver]:
        """The in-hub bots playing here now."""
        return list(self._drivers)

    def journaled(self) -> defer.Deferred[None]:
        """Fires once the inputs so far are in the journal (:meth:`hub.play.journal.JournalWriter.barrier`)."""
        journal = self.lobby.journal
        return defer.succeed(None) if journal is None else journal.barrier()

    def tell_services(self, event: GameEvent) -> None:
        """Give the hub's services (the table money) ``event`` again (a resumed
        table's hand not settled yet)."""
        for service in list(self._services):
            service.game_event(self, event)

    def caught_up(self) -> defer.Deferred[None]:
        """Fires once the game answered every input sent to it (``ICatchesUp``)."""
        if ICatchesUp.providedBy(self.engine):
            return self.engine.caught_up()  # type: ignore[no-any-return]
        return defer.succeed(None)

    def legal_actions(self, seat: int) -> list[Mapping[str, Any]]:
        """What the player at ``seat`` may do now."""
        return list(self.engine.legal_actions(seat))

    def view(self, seat: int | None = None) -> Mapping[str, Any]:
        """The game as the player at ``seat`` (``None``: a spectator) sees it."""
        return self.engine.view(seat)

    def result(self) -> Mapping[str, Any] | None:
        """The result once the game is over."""
        return self.engine.result()

    def seat_results(self, result: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """One row per seat of a finished game, as the history keeps it: ``seat``,
        ``name`` (``seat <n>`` for an empty one), ``kind`` (``bot`` or ``human``),
        ``score`` and ``winner``, from ``result`` (default: the game's)."""
        result = result if result is not None else (self.result() or {})
        winners = set(result.get("winners") or ())
        scores = list(result.get("scores") or ())
        return [
            {
                "seat": seat.index,
                "name": seat.player or f"seat {seat.index}",
                "kind": "bot" if seat.kind == "bot" else "human",
                "score": scores[seat.index] if seat.index < len(scores) else None,
                "winner": seat.index in winners,
            }
            for seat in self.seats
        ]

    def free_name(self, base: str) -> str:
        """``base``, or ``base-2``, ``base-3``... : the first no player here has."""
        return unused_name(base, {s.player for s in self.seats if s.player})

    def bot_names(self) -> dict[int, str]:
        """The player names the bots of the seats created for them play under
        (``caller``, ``caller-2``...; none a player seated before them has), by seat."""
        taken = {s.player for s in self.seats if s.player and s.kind != "bot"}
        names: dict[int, str] = {}
        for seat in self.seats:
            if seat.kind == "bot":
                names[seat.index] = unused_name(seat.bot or "bot", taken | set(names.values()))
        return names

    def seat_bots(self, buyins: Mapping[int, Any] | None = None) -> None:
        """Seat the bots of the seats created for them (``bot:<name>``), under
        :meth:`bot_names`, once.  The lobby does it on creation unless told to wait
        (``create_game(seat_bots=False)``): so that a creator sits down before the bots
        start, or so that the hub's table money funds them first.  ``buyins`` (chip
        games): seat → the buy-in the hub moved."""
        if self._bots_seated:
            return
        buyins = buyins or {}
        for seat in self.seats:
            if seat.kind == "bot":
                self._check_paid(buyins.get(seat.index))
        paid = payload_of(**{str(k): v for k, v in buyins.items()})
        bots = any(seat.kind == "bot" for seat in self.seats)
        with self.funnel.input("bots", None, {"buyins": paid}) if bots else nullcontext():
            self._bots_seated = True
            for seat in self.seats:
                if seat.kind == "bot":
                    factory = self.lobby.registry.bot_factory(str(seat.bot))
                    bot = factory.create(self.type, seat.index, dict(self.config.options))
                    verifyObject(IBot, bot)
                    self._drivers.append(self._driver(seat.index, bot))
            for index, name in self.bot_names().items():
                self.seats[index].player = name
                self._seat_in_engine(index, name, buyins.get(index))
        if self.bot_names():
            self.lobby.changed(self)  # the listing shows the bots now

    def seat_bot(
        self, seat: int, bot_name: str, player: str | None = None, buyin: Any = None
    ) -> str:
        """Give the free seat ``seat`` to the in-hub bot ``bot_name``; returns its player
        name: ``player`` if given (a :class:`~hub.model.Conflict` when someone here has
        it), else the first free of ``bot_name``, ``bot_name-2``...  ``buyin`` (chip
        games) goes to ``IGame.seat_player`` when given.

        :raises hub.model.GameError: no such free seat, unknown bot, or a bot that does
            not play this game.
        """
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise NotFound(f"game {self.id} has no seat {seat}")
        record = self.seats[seat]
        if not record.free or record.kind not in ("open", "human") or not record.allows(player):
            raise Conflict(f"seat {seat} of game {self.id} is not free")
        if not isinstance(bot_name, str) or not re.fullmatch(r"[a-z0-9-]{1,64}", bot_name):
            raise BadAction("a bot name is 1 to 64 characters [a-z0-9-]")
        self._check_paid(buyin)
        factory = self.lobby.registry.bot_factory(bot_name)
        if self.type not in tuple(factory.games):
            raise BadAction(f"bot {bot_name} does not play {self.type}")
        if player is not None and any(s.player == player for s in self.seats):
            raise Conflict(f"{player} plays in game {self.id} already")
        bot = factory.create(self.type, seat, dict(self.config.options))
        verifyObject(IBot, bot)
        name = player or self.free_name(bot_name)
        driver = self._driver(seat, bot)
        previous_kind = record.kind
        record.kind, record.bot, record.player = "bot", bot_name, name
        self._drivers.append(driver)
        paid = payload_of(bot=bot_name, player=player, buyin=buyin)
        try:
            with self.funnel.input("bot", seat, paid):
                self._seat_in_engine(seat, name, buyin)
        except BaseException:
            self._drivers.remove(driver)
            record.kind, record.bot, record.player = previous_kind, None, None
            raise
        if self.transcript is not None:
            self.transcript.note(f"seat {seat} given to bot {bot_name} as {name}")
        self.lobby.changed(self)
        return name

    def _driver(self, seat: int, bot: IBot) -> BotDriver:
        """The driver of ``bot`` at ``seat``, with the hub's runner, deadline and margin."""
        lobby = self.lobby
        return BotDriver(
            self, seat, bot, lobby.bot_runner, self.clock.free, lobby.bot_deadline, lobby.bot_margin
        )

    def _seat_in_engine(self, seat: int, name: str, buyin: Any = None) -> None:
        """``IGame.seat_player``, with the ``buyin`` only when there is one."""
        if buyin is None:
            self.engine.seat_player(seat, name)
        else:
            self.engine.seat_player(seat, name, buyin)

    def stop(self) -> list[Any]:
        """Stop the timers, bots and engine (the game is being removed) → its observers."""
        if self._unattended is not None and self._unattended.active():
            self._unattended.cancel()
        self._unattended = None
        dropped, self._observers, self._sending = list(self._observers), {}, ()
        self._let_go()
        self.clock.stop()
        return dropped

    def _let_go(self) -> None:
        """The bots' drivers cancelled, the hub services forgotten, the engine stopped."""
        for driver in self._drivers:
            driver.cancel()
        self._drivers.clear()
        self._services.clear()
        self.engine.stop()

    @property
    def retired(self) -> bool:
        """Whether only a summary of the finished game is kept (:meth:`retire`)."""
        return isinstance(self.engine, FinishedEngine)

    def retire(self) -> None:
        """Keep only a summary of a finished game: its engine, bots, hub services and
        event log but its end go (observers keep its final views, a player back at a
        seat hears the end; the replay went to the store at game over).  A chip table's
        once the table money has settled everything of it (:meth:`Lobby._retire`)."""
        if self.retired or self.state != OVER:
            return
        summary = FinishedEngine.of(self.engine, len(self.seats))
        self._let_go()
        self.engine, self.chips, self._turn, self.start_view = summary, None, None, None
        self._log = deque([e for e in self._log if e.kind == GAME_OVER][-1:], self._log.maxlen)
        self.context, self.log_dropped = spent(self.context), 0  # (it draws no more)
        self.live_from = None if self.live_from is None else (None, 0)  # (missed: the end)

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        """The game as the JSON API shows it; ``detail`` adds the public view."""
        data: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "variant": self.variant,
            "name": self.name,
            "frontend": self.frontend,
            "frontends": list(self.factory.frontends),
            "seats": [seat.to_json() for seat in self.seats],
            "state": self.state,
            "observers": self.observer_count,
            "watchers": self.watchers(),
            "created": datetime.fromtimestamp(self.created, UTC).isoformat(),
            "creator": self.creator,
            "bots_only": self.bots_only,
            "paused": self.paused,
            "awaiting": sorted(set(self.awaiting.values())),  # (resumed) back to their seats
        }
        if self.state == OVER:
            data["result"] = self.result()
        if detail:
            data["view"] = self.view(None)
        return data
