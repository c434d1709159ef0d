"""Table money through the ledger: buy-ins, hand settlements, cash-outs.

Game plugins never see the store.  A game that plays for chips (its XML adapter says
``ledger = True``: poker) announces its money in events, and the :class:`Cashier`
turns them into ledger movements (``hub.store``):

- **take seat** (poker action 11 with a buy-in): :meth:`Cashier.game_action` first
  moves the buy-in from the account's balance to the table (``store.buy_in``, one
  idempotency key per request) and only then seats the player in the engine; if the
  engine refuses, the chips go straight back (``store.cash_out`` of that amount).
  Action 11 from one's own seat adds chips the same way; **add bot** (13) seats an
  in-hub bot with a ``bot`` account of its own (created, and funded by a grant when
  its balance is short, on demand).
- **hand over** (engine event ``handover``): ``store.settle(game, {account: delta},
  key=hand id)``, then ``store.record_hand(...)`` with the engine's whole hand record
  as ``actions`` (so ``gamehub verify-hand`` checks every dealt card).
- **cash-out** (engine event ``cashout``: a player left, at the end of the hand; the
  table closed): ``store.cash_out(account, game, None, key)``.  When a game is removed
  or over, whatever the ledger still has at that table goes back too.
- a ``buyin`` event the cashier did not pay for (bots seated when the game was
  created, or a seat taken by another front end) is charged after the fact.

Movements of one table run one after the other (a queue per game), in the order of
the events, so a settlement never overtakes the buy-in before it.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from twisted.internet import defer, task
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import IGameObserver, ILobbyListener
from hub.model import GAME_OVER, BadAction, Conflict, GameEvent, IllegalAction

TAKE_SEAT, ADD_BOT = 11, 13
BOT_PREFIX = "bot."

HandHook = Callable[[Any, str, int | None], Any]


def plays_for_chips(factory: Any) -> bool:
    """Whether games of ``factory`` keep their chips in the ledger (XML adapter
    ``ledger = True``)."""
    if "xml" not in tuple(getattr(factory, "frontends", ())):
        return False
    try:
        adapter = factory.adapter("xml")
    except Exception:
        return False
    return bool(getattr(adapter, "ledger", False))


@implementer(IGameObserver)
class _TableWatcher:
    """Follows one table's public events for the cashier."""

    def __init__(self, cashier: Cashier, game: Any) -> None:
        self.cashier = cashier
        self.game = game

    def game_event(self, game: Any, event: GameEvent) -> None:
        self.cashier.game_event(game, event)


@implementer(ILobbyListener)
class Cashier:
    """Moves the chips of every chip-playing table through the store's ledger.

    :param lobby: the hub's :class:`hub.lobby.Lobby` (the cashier listens to it).
    :param store: the :class:`hub.interfaces.IStore`.
    :param bot_password: password of bot accounts it creates (default: random).

    :ivar problems: movements that failed (each a readable line; logged too).
    :ivar hands: hands settled and recorded so far.
    """

    log = Logger()

    def __init__(self, lobby: Any, store: Any, bot_password: str | None = None) -> None:
        self.lobby = lobby
        self.store = store
        self._clock = lobby.clock
        self._bot_password = bot_password or secrets.token_urlsafe(24)
        self._locks: dict[str, defer.DeferredLock] = {}
        self._watchers: dict[str, _TableWatcher] = {}
        self._accounts: dict[tuple[str, int], str] = {}  # (game id, seat) → account
        self._prepaid: set[tuple[str, int]] = set()
        self._hooks: list[HandHook] = []
        self.problems: list[str] = []
        self.hands = 0
        lobby.add_listener(self)
        for game in lobby.games():
            self._follow(game)

    # -- hooks ----------------------------------------------------------------------------

    def on_hand(self, hook: HandHook) -> None:
        """Call ``hook(game, hand key, store hand id)`` after each hand is settled and
        recorded (``hand id`` is ``None`` when recording failed)."""
        self._hooks.append(hook)

    # -- the queue ------------------------------------------------------------------------

    def _enqueue(self, game_id: str, fn: Callable[..., Any], *args: Any) -> defer.Deferred:
        """Run ``fn(*args)`` after every earlier movement of ``game_id``; fires with its
        result (or failure); the queue goes on either way."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = defer.DeferredLock()
        return lock.run(fn, *args)

    def idle(self, game_id: str | None = None) -> defer.Deferred:
        """Fires when every movement queued so far (of ``game_id``, or of every table)
        is done."""
        ids = list(self._locks) if game_id is None else [game_id]
        waits = [self._enqueue(g, lambda: None) for g in ids if g in self._locks]
        return defer.DeferredList(waits).addCallback(lambda _: None)

    drain = idle

    def _problem(self, text: str, failure: Any = None) -> None:
        self.problems.append(text)
        if failure is not None:
            self.log.failure("ledger: " + text.replace("{", "{{").replace("}", "}}"), failure)
        else:
            self.log.error("ledger: {text}", text=text)

    # -- following tables -----------------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """Follow new chip tables; return what is left at a removed one."""
        if change == "created":
            self._follow(game)
        elif change == "removed" and game.id in self._watchers:
            self._watchers.pop(game.id, None)
            self._sweep(game.id).addBoth(lambda _: self._forget(game.id))

    def _forget(self, game_id: str) -> None:
        """Drop what the cashier kept about a removed table once its queue is empty."""
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked and not lock.waiting:
            del self._locks[game_id]
        for key in [k for k in self._accounts if k[0] == game_id]:
            del self._accounts[key]

    def _follow(self, game: Any) -> None:
        if game.id in self._watchers or not plays_for_chips(game.factory):
            return
        watcher = _TableWatcher(self, game)
        self._watchers[game.id] = watcher
        watch = getattr(game, "watch", None)
        if watch is not None:
            watch(watcher)  # not counted as an observer, no lobby change
        else:
            game.observe(watcher, None)

    def account_of(self, game_id: str, seat: int, name: str) -> str:
        """The account that pays for the player ``name`` at ``seat`` of ``game_id``."""
        return self._accounts.get((game_id, seat), name)

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Turn one table event into ledger movements (queued)."""
        data = event.data
        try:
            if event.kind == "buyin":
                self._on_buyin(game, int(data["seat"]), str(data["name"]), data["amount"])
            elif event.kind == "handover":
                names = {int(s): str(n) for s, n in dict(data.get("names") or {}).items()}
                seats = {int(s) for s in dict(data.get("deltas") or {})} | set(names)
                accounts = {s: self.account_of(game.id, s, names.get(s, "")) for s in seats}
                self._enqueue(game.id, self._settle, game, dict(data), accounts).addErrback(
                    self._failed, f"settling hand {data.get('handid')} of {game.id}"
                )
            elif event.kind == "cashout":
                seat = int(data["seat"])
                account = self.account_of(game.id, seat, str(data["name"]))
                self._accounts.pop((game.id, seat), None)  # the seat may open again
                amount = Decimal(str(data.get("amount") or 0))
                self._enqueue(game.id, self._cash_out, game.id, account, amount).addErrback(
                    self._failed, f"cashing out {account} at {game.id}"
                )
            elif event.kind == GAME_OVER:
                self._sweep(game.id)
        except (KeyError, TypeError, ValueError) as e:
            self._problem(f"malformed {event.kind} event of {game.id}: {e}")

    def _failed(self, failure: Any, what: str) -> None:
        self._problem(f"{what} failed: {failure.getErrorMessage()}", failure)

    def _sweep(self, game_id: str) -> defer.Deferred:
        """Return every chip the ledger still has at ``game_id`` (queued); fires when
        done."""

        async def sweep() -> None:
            chips = await self.store.chips_at(game_id)
            for name, amount in dict(chips).items():
                if Decimal(amount):
                    await self.store.cash_out(name, game_id, None, f"sweep:{uuid.uuid4().hex}")

        return self._enqueue(game_id, lambda: defer.ensureDeferred(sweep())).addErrback(
            self._failed, f"returning the chips left at {game_id}"
        )

    # -- movements ------------------------------------------------------------------------

    def _on_buyin(self, game: Any, seat: int, name: str, amount: Any) -> None:
        if (game.id, seat) in self._prepaid:
            self._prepaid.discard((game.id, seat))
            return
        record = game.seats[seat] if 0 <= seat < len(game.seats) else None
        is_bot = record is not None and record.kind == "bot"

        if is_bot and (game.id, seat) not in self._accounts:
            self._accounts[(game.id, seat)] = bot_account_name(name)
        account = self.account_of(game.id, seat, name)

        async def charge() -> None:
            if is_bot:
                await self._bot_account(name)
                await self._fund(account, Decimal(str(amount)))
            await self.store.buy_in(
                account, game.id, Decimal(str(amount)), f"buyin:{uuid.uuid4().hex}"
            )

        self._enqueue(game.id, lambda: defer.ensureDeferred(charge())).addErrback(
            self._failed, f"charging the buy-in of {name} at {game.id}"
        )

    async def _cash_out(self, game_id: str, account: str, amount: Decimal) -> None:
        from hub.store import NotAtTable

        try:
            moved = await self.store.cash_out(account, game_id, None, f"cashout:{uuid.uuid4().hex}")
        except NotAtTable:
            if amount:
                raise
            return
        got = abs(Decimal(str(getattr(moved, "amount", amount))))
        if got != amount:
            self._problem(f"{account} left {game_id} with {amount} but the ledger held {got}")

    async def _settle(
        self, game: Any, data: Mapping[str, Any], accounts: Mapping[int, str]
    ) -> None:
        """Settle one hand (``accounts``: seat → account when the hand ended)."""
        # one reactor turn: the engine files the hand's record after its last event
        await task.deferLater(self._clock, 0, lambda: None)
        hand_key = str(data.get("handid"))
        deltas: dict[str, Decimal] = {}
        for s, d in dict(data.get("deltas") or {}).items():
            account = accounts[int(s)]
            deltas[account] = deltas.get(account, Decimal(0)) + Decimal(str(d))
        if any(deltas.values()):
            await self.store.settle(game.id, deltas, f"hand:{game.id}:{hand_key}")
        hand_id = None
        try:
            hand_id = await self._record(game, hand_key, accounts)
        except Exception:
            self._problem(f"recording hand {hand_key} of {game.id} failed", defer.Failure())
        self.hands += 1
        for hook in list(self._hooks):
            try:
                hook(game, hand_key, hand_id)
            except Exception:
                self.log.failure("hand hook failed")

    async def _record(self, game: Any, hand_key: str, accounts: Mapping[int, str]) -> int | None:
        get = getattr(game.engine, "hand_record", None)
        record = get(hand_key) if get is not None else None
        if record is None:
            return None
        players = hand_players(record, lambda s, n: accounts.get(s, n))
        extra = dict((k, v) for k, v in record.get("extra") or ())
        showdown = "; ".join(str(a[3]) for a in record.get("awards") or () if a[3]) or None
        hand_id = await self.store.record_hand(
            game.id,
            int(record.get("button") if record.get("button") is not None else -1),
            players,
            board=list(record.get("board") or ()),
            showdown=showdown,
            commitment=extra.get("commitment"),
            seed=extra.get("seed"),
            actions=record,
            hand_key=hand_key,
        )
        return int(hand_id)

    async def _bot_account(self, player: str) -> str:
        """The ``bot`` account ``bot.<player>`` of the bot called ``player`` at a table
        (created when missing).

        :raises hub.model.Conflict: a person's account has that name.
        """
        from hub.store import NameTaken, UnknownAccount

        name = bot_account_name(player)
        try:
            account = await self.store.get_account(name)
        except UnknownAccount:
            try:
                await self.store.create_account(name, self._bot_password, "bot", grant=0)
            except NameTaken:
                return await self._bot_account(player)
            return name
        if str(getattr(account, "type", "")) != "bot":
            raise Conflict(f"the account {name} is not a bot's")
        return name

    async def _fund(self, account: str, amount: Decimal) -> None:
        """Grant a bot account what it lacks for a buy-in of ``amount``."""
        acct = await self.store.get_account(account)
        balance = Decimal(str(acct.balance))
        if balance < amount:
            await self.store.grant(account, amount - balance, f"botfund:{uuid.uuid4().hex}")

    # -- actions the cashier does (XML take seat / add bot) -------------------------------

    def handles(self, adapter: Any, action: Mapping[str, Any]) -> bool:
        """Whether ``action`` (parsed by ``adapter``) is a money action of the cashier."""
        return bool(getattr(adapter, "ledger", False)) and action.get("index") in (
            TAKE_SEAT,
            ADD_BOT,
        )

    async def game_action(
        self,
        game: Any,
        account: str,
        seat: int | None,
        action: Mapping[str, Any],
        observe: Callable[[int | None], None] = lambda seat: None,
        kind: str = "client",
    ) -> int | None:
        """Do a take-seat (11) or add-bot (13) action of ``account``, whose seat is
        ``seat`` (``None``: watching).  ``observe(seat)`` is called just before the
        engine seats the player (so the seat's own events reach it), ``observe(None)``
        if that fails.  ``kind`` is the lobby's seat kind (``human`` for the web front
        end).  Returns the player's seat afterwards.

        :raises hub.model.GameError: refused; no chips moved (or they went back).
        """
        amount = _amount(action.get("amount"))
        if action["index"] == ADD_BOT:
            await self._add_bot(game, action, amount)
            return seat
        if seat is not None:
            if action.get("seat") not in (None, seat):
                raise Conflict(f"{account} sits at seat {seat} of this table already")
            if amount is None:
                raise BadAction("say how many chips to add")
            key = f"topup:{uuid.uuid4().hex}"
            await self._buy_in(game.id, account, amount, key)
            try:
                self._prepaid.add((game.id, seat))
                game.act(seat, {"index": TAKE_SEAT, "seat": seat, "amount": str(amount)})
            except BaseException:
                self._prepaid.discard((game.id, seat))
                await self._refund(game.id, account, amount, key)
                raise
            return seat
        wanted = action.get("seat")
        free = game.free_seats(kind)
        if wanted is None:
            if not free:
                raise Conflict(f"game {game.id} has no free seat")
            wanted = free[0]
        if not isinstance(wanted, int) or not 0 <= wanted < len(game.seats):
            raise BadAction(f"game {game.id} has no seat {wanted}")
        if wanted not in free:
            raise Conflict(f"seat {wanted} is not free")
        if game.seat_of(account) is not None:
            raise Conflict(f"{account} already sits at this table")
        if amount is None:
            amount = _amount(game.view(None).get("buyin"))
            if amount is None:
                raise BadAction("say how many chips to buy in with")
        key = f"buyin:{uuid.uuid4().hex}"
        await self._buy_in(game.id, account, amount, key)
        try:
            observe(wanted)
            self._prepaid.add((game.id, wanted))
            game.take_seat(account, wanted, kind=kind, buyin=amount)
        except BaseException:
            self._prepaid.discard((game.id, wanted))
            observe(None)
            await self._refund(game.id, account, amount, key)
            raise
        self._accounts[(game.id, wanted)] = account
        return wanted

    async def _buy_in(self, game_id: str, account: str, amount: Decimal, key: str) -> None:
        await self._enqueue(game_id, self.store.buy_in, account, game_id, amount, key)

    async def _refund(self, game_id: str, account: str, amount: Decimal, key: str) -> None:
        try:
            await self._enqueue(
                game_id, self.store.cash_out, account, game_id, amount, key + ":refund"
            )
        except Exception:
            self._problem(f"refunding {amount} to {account} at {game_id} failed", defer.Failure())

    async def _add_bot(self, game: Any, action: Mapping[str, Any], amount: Decimal | None) -> None:
        bot = action.get("name")
        if not isinstance(bot, str) or not bot:
            raise BadAction("add bot needs the bot's name")
        factory = self.lobby.registry.bot_factory(bot)
        if game.type not in tuple(factory.games):
            raise IllegalAction(f"bot {bot} does not play {game.type}")
        wanted = action.get("seat")
        free = [s.index for s in game.seats if s.free and s.kind == "open"]
        if wanted is None:
            if not free:
                raise Conflict(f"game {game.id} has no free seat")
            wanted = free[0]
        if not isinstance(wanted, int) or wanted not in free:
            raise Conflict(f"seat {wanted} is not free")
        if amount is None:
            amount = _amount(game.view(None).get("buyin"))
            if amount is None:
                raise BadAction("say how many chips the bot buys in with")
        taken = {s.player for s in game.seats if s.player}
        player, n = bot, 2
        while player in taken:
            player, n = f"{bot}-{n}", n + 1
        account = await self._bot_account(player)
        await self._enqueue(game.id, self._fund, account, amount)
        key = f"botbuyin:{uuid.uuid4().hex}"
        await self._buy_in(game.id, account, amount, key)
        self._accounts[(game.id, wanted)] = account
        try:
            self._prepaid.add((game.id, wanted))
            name = game.seat_bot(wanted, bot, player=player, buyin=amount)
            if name != player:  # cannot happen: the name was free a moment ago
                raise Conflict(f"bot {bot} sits as {name}, not {player}")
        except BaseException:
            self._prepaid.discard((game.id, wanted))
            self._accounts.pop((game.id, wanted), None)
            await self._refund(game.id, account, amount, key)
            raise


def bot_account_name(player: str) -> str:
    """The account of the bot playing as ``player``: ``bot.<player>``."""
    return (BOT_PREFIX + player)[:32]


def _amount(value: Any) -> Decimal | None:
    if value is None:
        return None
    try:
        d = Decimal(str(value))
    except ArithmeticError:
        raise BadAction("an amount is a decimal number") from None
    if not d.is_finite() or d <= 0:
        raise BadAction("an amount is a positive number")
    return d


def hand_players(record: Mapping[str, Any], account: Callable[[int, str], str]) -> list[dict]:
    """The store's per-player rows of a hand record (:func:`games.poker.history.to_dict`).

    :param account: ``(seat, table name) → account name``.
    """
    holes = {int(s): list(cs) for s, cs in record.get("hole") or ()}
    shown = {int(s) for s in record.get("shown") or ()}
    won: dict[int, Decimal] = {}
    for a in record.get("awards") or ():
        won[int(a[0])] = won.get(int(a[0]), Decimal(0)) + Decimal(str(a[1]))
    deltas = {int(s): Decimal(str(d)) for s, d in record.get("deltas") or ()}
    rounds: dict[int, dict[str, list[str]]] = {}
    names = ("preflop", "flop", "turn", "river")
    for r in record.get("actions") or ():
        seat, stage = r.get("seat"), r.get("stage")
        if seat is None or not isinstance(stage, int) or not 0 <= stage < 4:
            continue
        if r.get("kind") in ("post", "fold", "check", "call", "bet", "raise", "discard"):
            rounds.setdefault(int(seat), {}).setdefault(names[stage], []).append(r["kind"])
    out = []
    for s, name, _stack in record.get("players") or ():
        s = int(s)
        winnings = won.get(s, Decimal(0))
        money_in = max(winnings - deltas.get(s, Decimal(0)), Decimal(0))
        hole = holes.get(s, []) if s in shown and len(holes.get(s, [])) <= 2 else []
        out.append(
            {
                "name": account(s, str(name)),
                "display": str(name),
                "seat": s,
                "hole": hole,
                "money_in": money_in,
                "winnings": winnings,
                "actions": {k: " ".join(v) for k, v in rounds.get(s, {}).items()},
            }
        )
    return out


__all__ = ["Cashier", "bot_account_name", "hand_players", "plays_for_chips"]
