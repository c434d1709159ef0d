"""Table money: the hub service through which every chip of every chip table moves.

A game type plays for chips when its factory provides
:class:`hub.interfaces.IChipGameFactory` (poker); its games provide
:class:`hub.interfaces.IChipGame`.  :class:`TableMoney` owns their chips in the
store's ledger (``docs/money.md`` tells where the chips are at each moment):

- **a new table** (:meth:`TableMoney.create_table`) is registered as this hub's
  (``store.open_table``); each bot seat's account is funded when short and bought in,
  in one transaction per bot (``store.buy_in(..., bot=True)``); only then are the bots
  seated.  If any step fails the table goes away and what was bought in goes back.
- **a seat** (:meth:`TableMoney.take_seat`, :meth:`TableMoney.add_bot`) and **more
  chips** (:meth:`TableMoney.add_chips`): the buy-in moves in the ledger first, then
  the game seats; if the game refuses, the chips go back.  A seat whose buy-in fails
  is not taken.
- **each hand** (a :data:`hub.model.HAND_OVER` event): one ``store.settle_hand``
  transaction keyed by the hand writes its movements and its history; the table deals
  the next hand only after it (:meth:`hub.interfaces.IChipGame.hold_hands`).
- **a player leaves** (:data:`hub.model.CASH_OUT`): ``store.leave_table`` returns the
  ledger's chips at the table and records any difference from the game's stack.
- **a bot goes broke** (its stack in the hand-over's ``stacks`` is gone): by the table's
  rule (:meth:`hub.play.game.GameInstance.set_table_rules`) it leaves its seat, or its
  account is funded and it buys in again (one transaction), before the next hand.
- **the table ends** (game over, removed): ``store.close_table`` returns the rest.

The movements of one table run one after another in the order of its events (a
queue per table).  When the store is unavailable the queue waits and retries with
backoff, and the table shows ``paused: store unavailable`` to its players, watchers and
the lobby; new chip tables, buy-ins and leaves asked for are refused with
:class:`hub.store.StoreUnavailable` (503) meanwhile.  When the store returns the
waiting movements are applied (each exactly once: they are keyed) and play resumes.
"""

from __future__ import annotations

import secrets
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger, LogLevel
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.interfaces import IChipGameFactory, IGameObserver, ILobbyListener
from hub.model import (
    CASH_OUT,
    GAME_OVER,
    HAND_OVER,
    BadAction,
    BuyinRange,
    Conflict,
    GameEvent,
    HandSummary,
    IllegalAction,
    NotFound,
)
from hub.store.errors import (
    CommitUnknown,
    InsufficientFunds,
    LeaseEnded,
    NotAtTable,
    StoreUnavailable,
    TableNotOpen,
)

BOT_PREFIX = "bot."
#: what a table waiting for the store shows
STORE_DOWN = "store unavailable"

HandHook = Callable[[Any, str, int | None], Any]


def plays_for_chips(factory: Any) -> bool:
    """Whether games of ``factory`` play for chips from accounts (it provides
    :class:`hub.interfaces.IChipGameFactory`)."""
    return IChipGameFactory.providedBy(factory)


def bot_account_name(player: str) -> str:
    """The account of the in-hub bot playing as ``player``: ``bot.<player>``."""
    return (BOT_PREFIX + player)[:32]


@dataclass(eq=False)
class _Job:
    """One movement of a table: ``run()`` returns a Deferred; ``retry``: wait for an
    unavailable store rather than fail."""

    what: str
    run: Callable[[], Any]
    retry: bool
    done: defer.Deferred = field(default_factory=defer.Deferred)


class _Table:
    """What the table money keeps of one chip table."""

    def __init__(self, game: Any) -> None:
        self.game = game
        #: seat → the account that pays for (and is paid for) the player there
        self.accounts: dict[int, str] = {}
        self.jobs: deque[_Job] = deque()
        self.running = False
        self.closing = False
        self.removed = False
        self.surrendered = False  # it goes on on another hub, which owns its movements
        self.stuck = False  # waiting for the store
        self.refused: str | None = None  # the ledger refused a hand: held for good
        self.delay = 0.0
        self.wake: defer.Deferred | None = None
        self.waiters: list[defer.Deferred] = []
        self.seq = 0
        #: a table resumed from its journal numbers its movements afresh under an epoch
        #: of its own (its keys before the resume are in the ledger already)
        self.epoch = ""
        if game.resumed:
            self.epoch = secrets.token_hex(6) + "."
            for seat in game.seats:
                if seat.player and seat.present:
                    bot = seat.kind == "bot"
                    self.accounts[seat.index] = (
                        bot_account_name(seat.player) if bot else seat.player
                    )

    def key(self, kind: str) -> str:
        """A fresh idempotency key for a movement of this table."""
        self.seq += 1
        return f"{kind}:{self.game.id}:{self.epoch}{self.seq}"


@implementer(ILobbyListener, IGameObserver)
class TableMoney:
    """Moves the chips of every chip table of the hub through the store's ledger.

    :param lobby: the hub's :class:`hub.play.lobby.Lobby` (chip tables are created and
        seated through this service from now on: ``lobby.money``).
    :param store: the :class:`hub.interfaces.IStore`, started for a hub (with a lease).
    :param retry_delays: ``(first, most)`` seconds between tries of a movement while
        the store is unavailable (doubling).

    :ivar problems: what went wrong, one readable line each (logged too; differences
        found at cash-outs are recorded in the store as well).
    :ivar hands: hands settled so far.
    """

    log = Logger()

    def __init__(
        self, lobby: Any, store: Any, retry_delays: tuple[float, float] = (0.25, 10.0)
    ) -> None:
        self.lobby = lobby
        self.store = store
        self._clock = lobby.clock
        self._retry = retry_delays
        self._tables: dict[str, _Table] = {}
        self._hooks: list[HandHook] = []
        self._stopping = False
        self.problems: list[str] = []
        self.hands = 0
        lobby.money = self
        lobby.add_listener(self)
        store.on_availability(self._availability)
        for game in lobby.games():
            self._follow(game)

    # -- what others ask -------------------------------------------------------------

    def on_hand(self, hook: HandHook) -> None:
        """Call ``hook(game, hand key, history hand id)`` after each hand is settled."""
        self._hooks.append(hook)

    def paused_tables(self) -> int:
        """How many tables wait for the store now."""
        return sum(1 for t in self._tables.values() if t.stuck)

    def busy(self, game_id: str) -> bool:
        """Whether movements of the table ``game_id`` are queued or running."""
        table = self._tables.get(game_id)
        return table is not None and bool(table.running or table.jobs)

    def idle(self, game_id: str | None = None) -> defer.Deferred:
        """Fires when every movement queued so far (of ``game_id``, or of every table)
        is done."""
        waits = []
        for gid, table in list(self._tables.items()):
            if game_id in (None, gid) and (table.running or table.jobs):
                d: defer.Deferred = defer.Deferred()
                table.waiters.append(d)
                waits.append(d)
        return defer.DeferredList(waits, consumeErrors=True).addCallback(lambda _: None)

    async def stop(self, timeout: float) -> int:
        """Wait (at most ``timeout`` seconds) for the queued movements; then stop
        retrying.  Returns how many tables still had movements waiting (their chips
        stay at the table in the ledger; the next hub to start returns them)."""
        d = self.idle()
        call = self._clock.callLater(timeout, d.cancel)
        try:
            await d
        except defer.CancelledError:
            pass
        finally:
            if call.active():
                call.cancel()
        self._stopping = True
        pending = [t for t in self._tables.values() if t.jobs]
        for table in pending:
            self.log.warn(
                "table money: {n} movement(s) of table {game} not applied (the store is"
                " unavailable); the table's chips stay there for recovery",
                n=len(table.jobs),
                game=table.game.id,
            )
            self._wake(table)
        return len(pending)

    # -- following tables ------------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """Follow new chip tables; close removed ones."""
        if change == "created":
            self._follow(game)
        elif change == "removed":
            table = self._tables.get(game.id)
            if table is not None and game.funnel.sealed:  # it goes on on another hub
                table.removed = table.surrendered = True
                self._tables.pop(game.id, None)
                if not table.running:
                    self._drop(table)
            elif table is not None:
                table.removed = True
                self._close(table)

    def _follow(self, game: Any) -> None:
        if game.chips is None or game.id in self._tables:
            return
        self._tables[game.id] = _Table(game)
        game.hold_hands()
        game.watch(self)  # every public event, first; not counted as an observer

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Turn a table's events into queued movements."""
        table = self._tables.get(game.id)
        if table is None:
            return
        try:
            if event.kind == HAND_OVER:
                self._hand_over(table, event.data)
            elif event.kind == CASH_OUT:
                self._cash_out(table, event.data)
            elif event.kind == GAME_OVER:
                self._close(table)
        except (KeyError, TypeError, ValueError, ArithmeticError) as e:
            self._hold(table, f"malformed {event.kind} event: {e}")

    # -- the queue -------------------------------------------------------------------

    def _enqueue(self, table: _Table, what: str, run: Callable[[], Any], retry: bool):
        job = _Job(what, run, retry)
        table.jobs.append(job)
        if not table.running:
            table.running = True
            defer.ensureDeferred(self._work(table)).addErrback(
                lambda f: self.log.failure("table money: the queue of {game} failed", f,
                                           game=table.game.id)
            )  # fmt: skip
        return job.done

    async def _work(self, table: _Table) -> None:
        try:
            while table.jobs:
                if table.surrendered:
                    self._drop(table)
                    break
                job = table.jobs[0]
                try:
                    result = await defer.maybeDeferred(job.run)
                except StoreUnavailable:
                    if job.retry and self._stopping:
                        break  # it stays waiting: the table's chips stay for recovery
                    if job.retry:
                        self._stuck(table)
                        await self._sleep(table)
                        continue
                    table.jobs.popleft()
                    job.done.errback(Failure())
                    continue
                except Exception:
                    table.jobs.popleft()
                    job.done.errback(Failure())
                    continue
                table.jobs.popleft()
                table.delay = 0.0
                if table.stuck:
                    table.stuck = False
                    if table.refused is None:
                        table.game.resume()
                    self.log.info("table money: table {game} resumed", game=table.game.id)
                job.done.callback(result)
        finally:
            table.running = False
            waiters, table.waiters = table.waiters, []
            for waiter in waiters:
                if not waiter.called:  # (a stop may have given up on it)
                    waiter.callback(None)
            if table.removed and not table.jobs:
                self._tables.pop(table.game.id, None)

    def _drop(self, table: _Table) -> None:
        """A surrendered table's waiting movements are not made here: the hub that
        resumes it from its journal makes them (under its lease)."""
        jobs, table.jobs = list(table.jobs), deque()
        for job in jobs:
            if not job.done.called:
                job.done.errback(
                    Failure(LeaseEnded(f"the table {table.game.id} goes on elsewhere"))
                )

    def _stuck(self, table: _Table) -> None:
        if not table.stuck:
            table.stuck = True
            self.log.warn("table money: table {game} paused: store unavailable", game=table.game.id)
            table.game.pause(STORE_DOWN)

    async def _sleep(self, table: _Table) -> None:
        first, most = self._retry
        table.delay = first if not table.delay else min(table.delay * 2, most)
        wake = table.wake = defer.Deferred()
        call = self._clock.callLater(table.delay, self._wake, table)
        try:
            await wake
        finally:
            if call.active():
                call.cancel()

    def _wake(self, table: _Table) -> None:
        wake, table.wake = table.wake, None
        if wake is not None and not wake.called:
            wake.callback(None)

    def _availability(self, up: bool) -> None:
        if up:  # try the waiting movements now
            for table in list(self._tables.values()):
                table.delay = 0.0
                self._wake(table)

    def _require_store(self) -> None:
        if not self.store.available:
            raise StoreUnavailable(
                f"{STORE_DOWN}: new chip tables, buy-ins and leaving with chips are refused"
                " until it returns; try again later"
            )

    # -- problems ----------------------------------------------------------------------

    def _problem(self, table: _Table | None, text: str, failure: Failure | None = None) -> None:
        where = f" at {table.game.id}" if table is not None else ""
        self.problems.append(text + where)
        if failure is not None and not failure.check(StoreUnavailable, IllegalAction, NotFound):
            self.log.failure(
                "table money{where}: {text}", failure, LogLevel.error, where=where, text=text
            )
        else:
            self.log.error("table money{where}: {text}", where=where, text=text)

    def _hold(self, table: _Table, text: str, failure: Failure | None = None) -> None:
        """Something the ledger cannot settle: the table deals no new hand (for good),
        and the operator learns of it (log, the store's problems)."""
        if failure is not None and self._elsewhere(table, failure):
            self._taken(table, failure)
            return
        self._problem(table, text, failure)
        table.refused = text
        table.game.pause(f"ledger problem: {text}")
        d = self.store.record_problem("hold", text, table.game.id)
        d.addErrback(lambda f: None)  # best effort: it is logged already

    @staticmethod
    def _elsewhere(table: _Table, failure: Failure) -> bool:
        """The table was taken over, or handed to another hub while a movement of it
        was on its way: the other hub makes it."""
        return bool(failure.check(LeaseEnded)) or (
            table.surrendered and bool(failure.check(TableNotOpen))
        )

    def _failed(self, failure: Failure, table: _Table, what: str) -> None:
        if self._elsewhere(table, failure):
            self._taken(table, failure)
            return
        self._problem(table, f"{what} failed: {failure.getErrorMessage()}", failure)

    def _taken(self, table: _Table, failure: Failure) -> None:
        """Another hub took the table over while this hub was cut off from the database
        (its lease was ended: :mod:`hub.store.lease`): nothing of it moves here any
        more (what was in play went back, or goes on, with the takeover), no new hand
        is dealt, and the hub learns it is fenced (its next heartbeat says so)."""
        if table.refused is None:
            table.refused = f"taken over by another hub: {failure.getErrorMessage()}"
            self.log.warn(
                "table money: table {game} was taken over by another hub while this hub"
                " was cut off from the database; nothing of it moves here any more",
                game=table.game.id,
            )
            table.game.pause("taken over by another hub")
            self.store.beat()

    # -- movements of events -------------------------------------------------------------

    def _hand_over(self, table: _Table, data: Mapping[str, Any]) -> None:
        game, hand = table.game, str(data["handid"])
        deltas: dict[str, Decimal] = {}
        for seat, delta in dict(data["deltas"]).items():
            account = table.accounts.get(int(seat))
            if account is None:
                raise ValueError(f"seat {seat} of hand {hand} has no account")
            deltas[account] = deltas.get(account, Decimal(0)) + Decimal(str(delta))
        summary = game.chips.hand_summary(hand)
        record = None if summary is None else _history(summary, dict(table.accounts), game.type)
        broke = [
            int(seat)
            for seat, stack in dict(data.get("stacks") or {}).items()
            if Decimal(str(stack)) <= 0 and game.seats[int(seat)].kind == "bot"
        ]
        d = self._enqueue(
            table,
            f"settling hand {hand}",
            # after the inputs that made it are journaled (a resume deals it again)
            lambda: game.journaled().addCallback(
                lambda _: self.store.settle_hand(game.id, hand, deltas, record)
            ),
            retry=True,
        )
        d.addCallbacks(
            self._settled,
            self._refused,
            callbackArgs=(table, hand, broke),
            errbackArgs=(table, hand),
        )

    def _settled(self, moved: Any, table: _Table, hand: str, broke: list[int]) -> None:
        self.hands += 1
        if broke and not table.closing:
            d = defer.ensureDeferred(self._broke_bots(table, broke))
            d.addErrback(self._failed, table, "a broke bot's seat")
            d.addBoth(lambda _: self._hand_settled(table, hand, moved.hand_id))
        else:
            self._hand_settled(table, hand, moved.hand_id)

    async def _broke_bots(self, table: _Table, seats: list[int]) -> None:
        """The bots at ``seats`` lost their whole stack: they leave, or (rule ``rebuy``)
        buy in again, their accounts funded as when they sat down."""
        game = table.game
        for seat in seats:
            record = game.seats[seat]
            if record.kind != "bot" or not record.present:
                continue
            account = table.accounts.get(seat)
            if game.broke_bots == "rebuy" and account is not None:
                amount = self.buyin_range(game).default
                try:
                    key = await self._buy_in(table, account, amount, bot=True)
                except StoreUnavailable:
                    game.dismiss_bot(seat)  # no money now: it leaves as by the other rule
                    continue
                try:
                    game.add_chips(seat, amount)
                except BaseException:
                    self._undo(table, account, amount, key)
                    game.dismiss_bot(seat)
                continue
            game.dismiss_bot(seat)

    def _hand_settled(self, table: _Table, hand: str, stored: Any) -> None:
        table.game.settled(hand)
        for hook in list(self._hooks):
            try:
                hook(table.game, hand, stored)
            except Exception:
                self.log.failure("table money: hand hook failed", level=LogLevel.error)

    def _refused(self, failure: Failure, table: _Table, hand: str) -> None:
        self._hold(table, f"hand {hand} was not settled: {failure.getErrorMessage()}", failure)

    def _cash_out(self, table: _Table, data: Mapping[str, Any]) -> None:
        seat, stack = int(data["seat"]), Decimal(str(data.get("amount") or 0))
        account = table.accounts.pop(seat, None)  # the seat may open again
        if account is None:
            self._problem(table, f"seat {seat} left with {stack} chips but had no account")
            return
        key, game_id = table.key("leave"), table.game.id
        d = self._enqueue(
            table,
            f"cashing out {account}",
            lambda: self.store.leave_table(account, game_id, stack, key),
            retry=True,
        )
        d.addCallbacks(
            self._left, self._failed, callbackArgs=(table,),
            errbackArgs=(table, f"cashing out {account}"),
        )  # fmt: skip

    def _left(self, moved: Any, table: _Table) -> None:
        if moved.problem:  # recorded in the store with the movement
            self._problem(table, moved.problem)

    def _close(self, table: _Table) -> None:
        if not table.closing:
            table.closing = True
            game_id = table.game.id
            d = self._enqueue(
                table, "closing the table", lambda: self.store.close_table(game_id), retry=True
            )
            d.addErrback(self._failed, table, "closing the table")
        elif table.removed and not table.running and not table.jobs:
            self._tables.pop(table.game.id, None)

    def _undo(self, table: _Table, account: str, amount: Decimal, key: str) -> None:
        """Give back a buy-in (key ``key``) whose seat was not taken, if it was applied."""
        game_id = table.game.id

        async def undo() -> None:
            if not await self.store.ledger(key=key, limit=1):
                return  # it never happened
            try:
                await self.store.cash_out(account, game_id, amount, key + ":undo")
            except (NotAtTable, InsufficientFunds):
                pass  # the table was closed: its chips went back already

        d = self._enqueue(
            table, f"returning the buy-in of {account}", lambda: defer.ensureDeferred(undo()),
            retry=True,
        )  # fmt: skip
        d.addErrback(self._failed, table, f"returning {amount} to {account}")

    # -- what front ends and the lobby ask ---------------------------------------------

    def _table(self, game: Any) -> _Table:
        table = self._tables.get(game.id)
        if table is None or table.removed or table.closing:
            raise NotFound(f"game {game.id} is no open chip table of this hub")
        if table.refused is not None:
            raise Conflict(f"the table {game.id} is held: {table.refused}")
        return table

    @staticmethod
    def _one_seat(table: _Table, account: str) -> None:
        """Refuse a second seat for ``account`` at ``table``: the ledger keeps its chips
        there in one place, which a seat it left gives back only at its cash-out (at
        the end of the hand), whatever the game would allow."""
        key = account.lower()
        for seat, holder in table.accounts.items():
            if holder.lower() == key:
                raise Conflict(
                    f"{account} still has seat {seat} of this table until its chips go back"
                    " at the end of the hand; sit down again after that"
                )

    plays_for_chips = staticmethod(plays_for_chips)

    @staticmethod
    def buyin_range(game: Any) -> BuyinRange:
        """The buy-ins ``game`` accepts."""
        return game.factory.buyin_range(game.config)

    async def _buy_in(self, table: _Table, account: str, amount: Decimal, bot: bool = False):
        """Move a buy-in to the table (queued after the table's earlier movements);
        returns its key."""
        key, game_id = f"buyin:{uuid.uuid4().hex}", table.game.id
        try:
            await self._enqueue(
                table,
                f"buy-in of {account}",
                lambda: self.store.buy_in(account, game_id, amount, key, bot=bot),
                retry=False,
            )
        except CommitUnknown:
            self._undo(table, account, amount, key)
            raise
        return key

    async def create_table(self, type_name: str, *, seat_bots: bool = True, **kwargs: Any) -> Any:
        """Create a chip table (``kwargs``: those of :meth:`hub.play.lobby.Lobby.create_game`):
        registered as this hub's, its bots funded and bought in (one transaction each),
        then seated.  Refused as a whole if any step fails.  ``seat_bots=False``: the
        bots stand until :meth:`seat_bots` (a creator sits down first).

        :raises hub.model.GameError: bad arguments, or (503) the store is unavailable.
        """
        self._require_store()
        game = self.lobby.create_game(type_name, **kwargs, seat_bots=False)
        try:
            table = self._table(game)
            await self._enqueue(
                table,
                "opening the table",
                lambda: self.store.open_table(game.id, game.type),
                retry=False,
            )
            if seat_bots:
                await self._seat_bots(table, [])
        except BaseException:
            self.lobby.remove(game.id)  # what was bought in goes back with the table
            raise
        return game

    async def seat_bots(self, game: Any) -> None:
        """Fund, buy in and seat the bots of a table created with ``seat_bots=False``
        (once).  If any bot cannot be funded, none sits and what was bought in for them
        goes back.

        :raises hub.model.GameError: refused, or (503) the store is unavailable.
        """
        table = self._table(game)
        self._require_store()
        bought: list[tuple[int, str]] = []
        try:
            await self._seat_bots(table, bought)
        except BaseException:
            amount = self.buyin_range(game).default
            for seat, key in bought:
                account = table.accounts.pop(seat, None)
                if account is not None:
                    self._undo(table, account, amount, key)
            raise

    async def _seat_bots(self, table: _Table, bought: list[tuple[int, str]]) -> None:
        """Buy in each bot (``bought`` gets each seat and buy-in key), then seat them."""
        game = table.game
        names = game.bot_names()
        if any(game.seats[seat].player is not None for seat in names):
            return  # seated already
        amount = self.buyin_range(game).default
        for seat, player in names.items():
            account = bot_account_name(player)
            self._one_seat(table, account)
            key = await self._buy_in(table, account, amount, bot=True)
            table.accounts[seat] = account
            bought.append((seat, key))
        game.seat_bots({seat: amount for seat in names})

    async def take_seat(
        self,
        game: Any,
        account: str,
        seat: int | None = None,
        buyin: Any = None,
        kind: str = "client",
        observe: Callable[[int | None], Any] | None = None,
        fund: bool = False,
    ) -> int:
        """Seat ``account`` (a network ``client`` or a web ``human``) at ``seat`` (or
        the first free one) with ``buyin`` chips (default: the table's), moved from its
        balance first.  From the player's own seat it adds chips instead.
        ``observe(seat)`` is called just before the game seats the player (so the
        seat's own events reach it), ``observe(None)`` if that fails.  ``fund``: the
        account is a program the hub funds as its bots (created and granted what it
        lacks, in the buy-in's transaction: the ACPC front end's programs).

        :returns: the seat.
        :raises hub.model.GameError: refused; no chips moved (or they went back).
        """
        table = self._table(game)
        mine = game.seat_of(account)
        if mine is not None:
            if seat not in (None, mine):
                raise Conflict(f"{account} sits at seat {mine} of this table already")
            if buyin is None:
                raise BadAction("say how many chips to add")
            await self.add_chips(game, account, mine, buyin)
            return int(mine)
        self._require_store()
        free = game.free_seats(kind, account)
        if seat is None:
            if not free:
                raise Conflict(f"game {game.id} has no free seat")
            seat = free[0]
        elif isinstance(seat, bool) or not isinstance(seat, int):
            raise BadAction("a seat is a seat number")
        elif not 0 <= seat < len(game.seats):
            raise NotFound(f"game {game.id} has no seat {seat}")
        elif seat not in free:
            raise Conflict(f"seat {seat} is not free")
        amount = self.buyin_range(game).check(buyin)
        self._one_seat(table, account)
        key = await self._buy_in(table, account, amount, bot=fund)
        try:
            self._one_seat(table, account)  # (again: another request may have sat meanwhile)
            if observe is not None:
                observe(seat)
            table.accounts[seat] = account
            game.take_seat(account, seat, kind=kind, buyin=amount)
        except BaseException:
            if table.accounts.get(seat) == account:
                del table.accounts[seat]
            if observe is not None:
                observe(None)
            self._undo(table, account, amount, key)
            raise
        return seat

    async def add_chips(self, game: Any, account: str, seat: int, amount: Any) -> None:
        """``account``, seated at ``seat``, adds ``amount`` chips (between hands).

        :raises hub.model.GameError: not its seat, a bad amount, not now.
        """
        table = self._table(game)
        if game.seat_of(account) != seat or table.accounts.get(seat) != account:
            raise Conflict(f"{account} does not sit at seat {seat}")
        self._require_store()
        value = BuyinRange(Decimal("0.01"), Decimal("0.01")).check(amount)
        key = await self._buy_in(table, account, value)
        try:
            game.add_chips(seat, value)
        except BaseException:
            self._undo(table, account, value, key)
            raise

    async def add_bot(
        self, game: Any, bot: str, seat: int | None = None, buyin: Any = None
    ) -> tuple[int, str]:
        """Seat the in-hub bot ``bot`` at ``seat`` (or the first free one): its account
        ``bot.<player>`` is funded when short and bought in, in one transaction.

        :returns: ``(seat, player name)``.
        :raises hub.model.GameError: refused; the bot is not seated and no chips moved.
        """
        table = self._table(game)
        self._require_store()
        factory = self.lobby.registry.bot_factory(bot)
        if game.type not in tuple(factory.games):
            raise IllegalAction(f"bot {bot} does not play {game.type}")
        free = [s.index for s in game.seats if s.free and s.kind in ("open", "human")]
        if seat is None:
            if not free:
                raise Conflict(f"game {game.id} has no free seat")
            seat = free[0]
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in free:
            raise Conflict(f"seat {seat} is not free")
        amount = self.buyin_range(game).check(buyin)
        player = game.free_name(bot)
        account = bot_account_name(player)
        self._one_seat(table, account)
        key = await self._buy_in(table, account, amount, bot=True)
        try:
            self._one_seat(table, account)
            table.accounts[seat] = account
            name = game.seat_bot(seat, bot, player=player, buyin=amount)
        except BaseException:
            if table.accounts.get(seat) == account:
                del table.accounts[seat]
            self._undo(table, account, amount, key)
            raise
        return seat, name

    def check_leave(self, game: Any) -> None:
        """Refuse (503) a player's request to leave a chip table while the store is
        unavailable: the stack could not go back to the account now.  (A lost
        connection still leaves: the cash-out then waits for the store.)"""
        if game.id in self._tables:
            self._require_store()


def _history(summary: HandSummary, accounts: Mapping[int, str], game_type: str) -> dict[str, Any]:
    """``store.settle_hand``'s ``hand`` from a game's summary (seats → accounts)."""
    return {
        "game_type": game_type,
        "players": [
            {
                "name": accounts.get(p.seat, p.name),
                "display": p.name,
                "seat": p.seat,
                "money_in": p.money_in,
                "winnings": p.winnings,
                "private": p.private,
            }
            for p in summary.players
        ],
        "record": summary.record,
        "summary": summary.summary,
        "sealed": summary.sealed,
        "started": summary.started,
    }


__all__ = ["STORE_DOWN", "TableMoney", "bot_account_name", "plays_for_chips"]
