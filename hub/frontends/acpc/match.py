"""ACPC matches: N hands between programs of the protocol, in-hub bots and people.

A :class:`Match` is made by :meth:`Matches.create` (``POST /acpc/matches``, or
``gamehub acpc-match``) from a game name the game adapter knows
(:class:`hub.interfaces.IACPCAdapter`: which table plays it), the players (``acpc`` or
``acpc:<name>``: a program of the protocol; ``bot:<name>``: an in-hub bot; ``open``: a
seat for an XML client or a person in the browser), the number of hands and
``duplicate`` / ``strict`` / ``seed``.  It listens on one port per ``acpc`` seat (the
``acpc_seat_endpoint`` setting; by default the ACPC front end's own interface on a
port of its own: the answer names them, as the competition's dealer prints them), and
a seat takes only a program from an address the match allows (``allow``; by default
the creator's address); when every program has connected and said its version, the
table is made (a chip table through the hub's table money when the game plays for
chips: programs are funded like the hub's bots, every hand is settled in the ledger)
and plays the hands, stacks reset every hand and positions rotating.  With
``duplicate`` the same deals (the same seed of deals) are played again with the
players' seats reversed.

Each hand the match writes the dealer's log line (``STATE:...``) to
``<data>/acpc/<match id>.log``; at the end the totals, mbb/hand with a 95% confidence
interval and ``SCORE:...``.  A program's late reply, its disconnect, or in ``strict``
mode its invalid action ends the match; every program is told in a comment line.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from twisted.internet import defer
from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import IDelayedCall, IListeningPort
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.connections.limits import ConnectionCap
from hub.interfaces import IACPCAdapter, IACPCSeatView, IGameObserver, IHub
from hub.model import GAME_OVER, HAND_OVER, GameError, GameEvent, JsonMapping, NotFound

from . import codec
from .addresses import LOOPBACK, Network, address_of, allowed_networks
from .logs import MatchLog, hand_number, seen_cards
from .players import Player, parse_players, summary
from .protocol import ACPCProtocol, SeatFactory, seat_endpoint, settings_of

#: most matches kept (finished ones beyond this go, oldest first)
KEEP_MATCHES = 200


@implementer(IGameObserver)
class Match:
    """One ACPC match (see the module); made by :class:`Matches`."""

    log = Logger()

    def __init__(
        self,
        matches: Matches,
        match_id: str,
        adapter: IACPCAdapter,
        table: Mapping[str, Any],
        players: list[Player],
        hands: int,
        duplicate: bool,
        strict: bool,
        seed: str,
        seed_given: bool,
        dealer_seed: int | None = None,
        allowed: tuple[Network, ...] = LOOPBACK,
    ) -> None:
        self.matches = matches
        self.hub = matches.hub
        self.reactor = matches.reactor
        self.settings = matches.settings
        self.id = match_id
        self.adapter = adapter
        self.table = dict(table)
        self.game_name = str(table["game"])
        self.players = players
        self.hands = hands
        self.duplicate = duplicate
        self.strict = strict
        self.seed = seed
        self.seed_given = seed_given
        #: the reference dealer's seed when the match deals its cards (``deals``)
        self.dealer_seed = dealer_seed
        self.failed = False  #: cut short: no SCORE (``acpc_cut_short``)
        #: the addresses that may take its seats (:func:`allowed_networks`)
        self.allowed = allowed
        self.passes = 2 if duplicate else 1
        self.current_pass = -1
        #: the table playing now: the lobby's game (``hub.play.game.GameInstance``), whose
        #: engine, observers and moves the seams' ``LiveGame`` does not name
        self.game: Any = None
        self.games: list[str] = []
        self.spectator: IACPCSeatView | None = None
        self.seat_of: dict[int, int] = {}  #: player index → seat at the current table
        self.played = 0
        self.payoffs: dict[int, list[Fraction]] = {p.index: [] for p in players}
        self.over = False
        self.started = False
        self.reason: str | None = None
        keys = {p.index: p.key for p in players if p.key is not None}
        self.log_file = MatchLog(Path(matches.data_dir) / "acpc", match_id, keys)
        self.log_path = self.log_file.path
        self._wait_timer: IDelayedCall | None = None
        self._counter = matches.counter

    # -- setting up -------------------------------------------------------------------

    @property
    def programs(self) -> list[Player]:
        """The players that are programs of the protocol."""
        return [p for p in self.players if p.kind == "acpc"]

    async def listen(self) -> None:
        """Listen on one port per program (``acpc_seat_endpoint``)."""
        for player in self.programs:
            port = await self.matches.listen(SeatFactory(self, player.index, self._counter))
            player.listener = port
            player.port = getattr(port.getHost(), "port", None)
        self._wait_timer = self.reactor.callLater(
            self.settings["acpc_wait_seconds"], self._not_all_came
        )
        if not self.programs:
            self._maybe_start()

    def allows(self, host: str) -> bool:
        """Whether a program from ``host`` may take a seat of this match (``""``: an
        address without a host, a UNIX socket: this machine)."""
        found = address_of(host or "127.0.0.1")
        return found is not None and any(found in network for network in self.allowed)

    def connection(self, index: int) -> ACPCProtocol | None:
        """The program connected for player ``index``."""
        return self.players[index].connection

    def attach(self, index: int, protocol: ACPCProtocol) -> None:
        """``protocol`` connected for player ``index`` (its version line to come)."""
        self.players[index].connection = protocol
        protocol.seated(self, index)

    def free_program(self) -> Player | None:
        """The first program's place without a connection (for the front end's port)."""
        if self.over or self.started:
            return None
        for player in self.programs:
            if player.connection is None:
                return player
        return None

    def ready(self, protocol: ACPCProtocol) -> None:
        """The program of ``protocol`` said its version."""
        if protocol.seat_index is None or self.over:
            return
        self.players[protocol.seat_index].ready = True
        self._maybe_start()

    def _maybe_start(self) -> None:
        if self.started or self.over:
            return
        if all(p.ready and p.connection is not None for p in self.programs):
            self.started = True
            if self._wait_timer is not None and self._wait_timer.active():
                self._wait_timer.cancel()
            self._wait_timer = None
            for player in self.programs:
                self._close_listener(player)
            self._open_log()
            self._start_pass(0)

    def _not_all_came(self) -> None:
        self._wait_timer = None
        if not self.started:
            self.end(f"not every program connected within {self.settings['acpc_wait_seconds']:g} s")

    # -- tables -----------------------------------------------------------------------

    def _order(self, number: int) -> list[Player]:
        """The players by seat in pass ``number`` (the second pass of a duplicate
        match reverses them: each deal goes to the other player)."""
        return list(reversed(self.players)) if number % 2 else list(self.players)

    def _start_pass(self, number: int) -> None:
        self.current_pass = number
        d = defer.ensureDeferred(self._open_table(number))
        d.addErrback(self._table_failed)

    def _table_failed(self, failure: Failure) -> None:
        if isinstance(failure.value, GameError):
            self.end(f"the table could not be made: {failure.value.reason}")
        else:
            self.log.failure("acpc match {id}: the table could not be made", failure, id=self.id)
            self.end("the table could not be made")

    def _table_action_time(self) -> float:
        """The table's time to act: a program's time is the match's to keep (its
        limits end the match, as the dealer's), so a table of programs only never
        times a seat out before them; at a table with bots or people every seat has
        ``acpc_player_seconds``."""
        if all(p.kind == "acpc" for p in self.players):
            limits = ("acpc_action_seconds", "acpc_hand_seconds", "acpc_player_seconds")
            return min(86400.0, max(self.settings[key] for key in limits) + 1.0)
        return float(self.settings["acpc_player_seconds"])

    async def _open_table(self, number: int) -> None:
        order = self._order(number)
        seats = []
        for player in order:
            seats.append(f"bot:{player.bot}" if player.kind == "bot" else "open")
        options = dict(self.table["options"])
        options["action_time"] = self._table_action_time()
        name = f"acpc {self.id}" + (f" pass {number + 1}" if self.passes > 1 else "")
        game: Any = await self.hub.create_game(  # a GameInstance: see self.game
            self.table["type"],
            name=name,
            variant=self.table["variant"],
            seats=seats,
            options=options,
            creator="acpc",
            sealed=self.duplicate,  # the other pass deals the same cards: see unseal
        )
        self.games.append(game.id)
        if self.over:
            game.engine.stop()
            self.hub.lobby.unseal(game.id)
            return
        self.game = game
        self.seat_of = {p.index: seat for seat, p in enumerate(order)}
        first = number * self.hands
        self.spectator = self.adapter.seat_view(None, self.game_name, first)
        game.observe(self, None)
        for player in self.programs:
            seat = self.seat_of[player.index]
            player.view = self.adapter.seat_view(seat, self.game_name, first)
            connection = player.connection
            assert connection is not None

            def observe(taken: int | None, connection: ACPCProtocol = connection) -> None:
                if taken is not None:
                    game.observe(connection, taken)

            await self.hub.take_seat(
                game, player.account, seat, kind="client", observe=observe, fund=True
            )
            if self.over:
                return
        for player in self.programs:
            assert player.connection is not None
            player.connection.playing()

    # -- events -----------------------------------------------------------------------

    def game_event(self, game: Any, event: GameEvent) -> None:
        """The table's public events: the log's view; a hand's end; the table's end."""
        if game is not self.game or self.spectator is None:
            return
        self.spectator.feed(event)
        if event.kind == HAND_OVER:
            self._hand_over(game, event)
        elif event.kind == GAME_OVER:
            self.reactor.callLater(0, self._table_over, game)

    def _hand_over(self, game: Any, event: GameEvent) -> None:
        names = {self.seat_of[p.index]: self._name(game, p) for p in self.players}
        exact = self.settings["acpc_payoffs"] == "exact"
        made = self.adapter.log_line(game.engine, event, self.spectator, names, exact)
        if made is None:
            return
        line, payoffs = made
        by_seat = {seat: index for index, seat in self.seat_of.items()}
        for seat, payoff in payoffs.items():
            index = by_seat.get(seat)
            if index is not None:
                self.payoffs[index].append(Fraction(payoff))
                self.players[index].total += Fraction(payoff)
        self.played += 1
        self.log_file.write(line, everywhere=False)
        # each program's own line once every observer has seen the hand's end (its
        # last match state of the hand shows what it saw)
        self.reactor.callLater(0, self._own_lines, line)
        for player in self.programs:
            player.used_hand = 0.0

    def _own_lines(self, line: str) -> None:
        """The hand's log ``line`` as each program saw it, into its own lines."""
        hand = hand_number(line)
        for player in self.programs:
            seen = player.states.get(hand) if hand is not None else None
            self.log_file.own(player.index, line, seen_cards(seen))

    def _name(self, game: Any, player: Player) -> str:
        """The name the log gives ``player``: an open seat's by who sits there."""
        if player.kind == "open":
            sitting = game.seats[self.seat_of[player.index]].player
            if sitting:
                player.name = str(sitting)
        return player.name

    def _table_over(self, game: Any) -> None:
        if self.over or game is not self.game:
            return
        game.unobserve(self)
        for player in self.programs:
            if player.connection is not None:
                game.unobserve(player.connection)
        if self.played < (self.current_pass + 1) * self.hands:
            self.end("the table closed before the match was over")
        elif self.current_pass + 1 < self.passes:
            self._start_pass(self.current_pass + 1)
        else:
            self.end(f"{self.played} hands played", complete=True)

    def seat_event(self, connection: ACPCProtocol, game: Any, event: GameEvent) -> None:
        """An event of the table as the program of ``connection`` sees it: its match
        states, its clock, and the decisions the protocol has no words for."""
        if game is not self.game or self.over or connection.seat_index is None:
            return
        player = self.players[connection.seat_index]
        view = player.view
        for line in view.feed(event):
            connection.send(line)
            player.remember(line)
        if view.prompt is not None and player.asked_at is None:
            self._ask(player)
        action = view.automatic(event)
        if action is not None:
            seat = self.seat_of[player.index]
            self.reactor.callLater(0, self._play, game, seat, action)

    def _play(self, game: Any, seat: int, action: JsonMapping) -> None:
        if self.over or game is not self.game:
            return
        try:
            game.act(seat, action)
        except GameError as e:
            self.log.warn("acpc match {id}: {action} refused: {reason}", id=self.id,
                          action=action, reason=e.reason)  # fmt: skip

    # -- clocks -----------------------------------------------------------------------

    def _ask(self, player: Player) -> None:
        """``player`` must answer now: its clock runs (the least of the three limits)."""
        now = self.reactor.seconds()
        player.asked_at = now
        budget = self.settings["acpc_average_seconds"] * self.hands * self.passes
        allowed = min(
            self.settings["acpc_action_seconds"],
            self.settings["acpc_hand_seconds"] - player.used_hand,
            budget - player.used,
        )
        player.timer = self.reactor.callLater(max(0.0, allowed), self._late, player)

    def _answered(self, player: Player) -> None:
        if player.timer is not None and player.timer.active():
            player.timer.cancel()
        player.timer = None
        if player.asked_at is not None:
            spent = self.reactor.seconds() - player.asked_at
            player.used += spent
            player.used_hand += spent
        player.asked_at = None

    def _late(self, player: Player) -> None:
        player.timer = None
        self.end(f"{player.name} did not answer in time")

    # -- replies ----------------------------------------------------------------------

    def reply(self, connection: ACPCProtocol, text: str) -> None:
        """A program's reply line (its connection is playing)."""
        if self.over or self.game is None or connection.seat_index is None:
            return
        player = self.players[connection.seat_index]
        action, invalid, note = player.view.read(text, self.strict)
        if action is None and not invalid:
            connection.warn(f"{note}; line ignored")
            return
        if invalid and self.strict:
            self._answered(player)
            self.end(f"invalid action by {player.name} (strict): {note}")
            return
        connection.accepted()
        if invalid:
            connection.send(codec.comment(f"warning: invalid action: {note}; played as shown"))
        self._answered(player)
        try:
            self.game.act(self.seat_of[player.index], action)
        except GameError as e:
            connection.send(codec.comment(f"warning: {e.reason}"))
            self.log.warn("acpc match {id}: {action} refused: {reason}", id=self.id,
                          action=action, reason=e.reason)  # fmt: skip
        if player.view.prompt is not None and player.asked_at is None:
            self._ask(player)

    def lost(self, connection: ACPCProtocol) -> None:
        """A program's connection closed or was dropped."""
        if connection.seat_index is None or self.over:
            return
        player = self.players[connection.seat_index]
        if player.connection is not connection:
            return
        if not self.started:
            player.connection, player.ready = None, False  # the seat waits for another
            return
        self.end(f"{player.name} left the match")

    # -- the end ----------------------------------------------------------------------

    def end(self, why: str, complete: bool = False) -> None:
        """End the match (once): stop the table, tell every program, finish the log.
        A match not ``complete`` (cut short) has failed."""
        if self.over:
            return
        self.over = True
        self.failed = not complete
        self.reason = why
        if self._wait_timer is not None and self._wait_timer.active():
            self._wait_timer.cancel()
        self._wait_timer = None
        for player in self.players:
            if player.timer is not None and player.timer.active():
                player.timer.cancel()
            player.timer = None
            self._close_listener(player)
        game, self.game = self.game, None
        if game is not None:
            game.unobserve(self)
            for player in self.programs:
                if player.connection is not None:
                    game.unobserve(player.connection)
            if game.state != "over":
                game.engine.stop()
        for player in self.programs:
            if player.connection is not None:
                player.connection.match_over(why)
        self._finish_log()
        for game_id in self.games:  # a duplicate match's tables: public now (docs/acpc.md)
            self.hub.lobby.unseal(game_id)
        self.log.info("acpc match {id} over: {why}", id=self.id, why=why)
        self.matches.ended(self)

    def _close_listener(self, player: Player) -> None:
        if player.listener is not None:
            listener, player.listener = player.listener, None
            d = defer.maybeDeferred(listener.stopListening)
            d.addErrback(lambda f: self.log.failure("acpc: closing a seat's port", f))

    # -- the log ----------------------------------------------------------------------

    def _open_log(self) -> None:
        self.log_file.open()
        names = " ".join(p.name for p in self.players)
        commitment = hashlib.sha256(bytes.fromhex(self.seed)).hexdigest()
        kind = "duplicate " if self.duplicate else ""
        self._write(f"## GAMESTATE Version {'.'.join(str(n) for n in codec.VERSION)}")
        self._write(f"# Gamehub ACPC match {self.id}: {self.game_name}")
        self._write(f"# {kind}match of {self.hands} hands per pass, {self.passes} pass(es)")
        if self.dealer_seed is None:
            self._write(f"# players {names}; SHA-256 of the deal seed {commitment}")
        else:
            self._write(f"# players {names}; the reference dealer's deals, seed {self.dealer_seed}")

    def _write(self, line: str) -> None:
        self.log_file.write(line)

    def _finish_log(self) -> None:
        if not self.log_file.open_now:
            return
        big = int(self.table["big_blind"])
        for player in self.players:
            s = summary(self.payoffs[player.index], big)
            ci = "" if s["ci95"] is None else f" +- {s['ci95']}"
            self._write(
                f"# {player.name}: {s['total']} chips over {s['hands']} hands, "
                f"{s['mbb_per_hand']}{ci} mbb/hand (95%)"
            )
        seed = self.seed if self.dealer_seed is None else f"{self.dealer_seed} (the dealer's)"
        self._write(f"# deal seed {seed}; match over: {self.reason}")
        if self.failed and self.settings["acpc_cut_short"] == "fail":
            self._write("# the match failed: no SCORE (as the reference dealer)")
        else:
            totals = "|".join(codec.log_number(p.total) for p in self.players)
            names = "|".join(p.name for p in self.players)
            self._write(f"SCORE:{totals}:{names}")
        self.log_file.close()

    def log_text(self) -> str | None:
        """The log as written so far (``None`` before the match started)."""
        return self.log_file.text()

    def log_file_for(self, key: str | None) -> Path | None:
        """The file of the lines of the program whose key is ``key`` while the match
        runs (``None``: no program has that key, or the match is over)."""
        index = self.log_file.program(key)
        if index is None or self.over:
            return None
        return self.log_file.path_of(index)

    # -- transcripts ------------------------------------------------------------------

    def record(
        self, conn_id: str, direction: str, text: str | bytes, index: int | None = None
    ) -> None:
        """A line of player ``index``'s program into the current table's transcript:
        the program's account's, private to its seat (its match states and its
        replies carry its hole cards)."""
        transcript = None if self.game is None else self.game.transcript
        if transcript is None:
            return
        if index is None:
            transcript.record(conn_id, direction, text)
            return
        owner = self.players[index].account
        transcript.record(conn_id, direction, text, owner=owner, seat=self.seat_of.get(index))

    def note(self, text: str) -> None:
        """A note into the current table's transcript."""
        transcript = None if self.game is None else self.game.transcript
        if transcript is not None:
            transcript.note(text)

    def to_json(self) -> dict[str, Any]:
        """The match as the JSON API shows it (the deal seed once it is over)."""
        big = int(self.table["big_blind"])
        data: dict[str, Any] = {
            "id": self.id,
            "game": self.game_name,
            "hands": self.hands,
            "duplicate": self.duplicate,
            "strict": self.strict,
            "players": [p.to_json() for p in self.players],
            "ports": [p.port for p in self.programs],
            "games": list(self.games),
            "played": self.played,
            "state": "over" if self.over else ("running" if self.started else "waiting"),
            "failed": self.failed,
            "reason": self.reason,
            "deals": "hub" if self.dealer_seed is None else "dealer",
            "log": f"/acpc/matches/{self.id}/log",
            "results": [
                {"name": p.name, **summary(self.payoffs[p.index], big)} for p in self.players
            ],
        }
        if self.over:  # a seed gives every card: never while the match runs
            data["seed"] = self.seed if self.dealer_seed is None else self.dealer_seed
        return data

    def created_json(self) -> dict[str, Any]:
        """The match as its creator sees it once: :meth:`to_json` with each program's
        ``key`` (it reads the program's own lines of the log while the match runs), the
        addresses that may take its seats (``allow``) and the seed it gave, if any."""
        data = self.to_json()
        for player, shown in zip(self.players, data["players"], strict=True):
            if player.key is not None:
                shown["key"] = player.key
        data["allow"] = [str(network) for network in self.allowed]
        if self.dealer_seed is not None:  # the seed the creator gave, back to it alone
            data["seed"] = self.dealer_seed
        elif self.seed_given:
            data["seed"] = self.seed
        return data


def deal_seeds(deals: Any, seed: Any) -> tuple[str, bool, int | None]:
    """A match's ``deals`` and ``seed``: ``(seed of deals in hex, given, dealer seed)``.

    ``deals`` is ``hub`` (Gamehub's deals from a 64-hex-digit ``seed``, fresh when not
    given) or ``dealer`` (the reference dealer's deals for ``seed``, an integer from 0
    to 4294967295, which it needs).

    :raises hub.model.GameError: anything else (400).
    """
    if deals == "dealer":
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
            raise GameError("the dealer's deals need 'seed': an integer 0 to 4294967295", 400)
        return hashlib.sha256(b"acpc-dealer %d" % seed).hexdigest(), True, seed
    if deals != "hub":
        raise GameError("'deals' is 'hub' or 'dealer'", 400)
    if seed is None:
        return os.urandom(32).hex(), False, None
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", seed):
        raise GameError("'seed' is 64 hexadecimal digits", 400)
    return seed.lower(), True, None


class Matches:
    """Every ACPC match of one hub; the front end's port hands out their seats."""

    log = Logger()

    def __init__(self, hub: IHub) -> None:
        self.hub = hub
        self.reactor = hub.reactor
        self.settings = settings_of(hub.options)
        self.data_dir = Path(hub.data_dir)
        if not self.settings["acpc_seat_endpoint"]:
            self.settings["acpc_seat_endpoint"] = seat_endpoint(hub.endpoints.get("acpc"))
        self.counter = [0]
        #: open program connections, the front end's port and every seat's together
        self.cap = ConnectionCap(
            self.settings["acpc_max_per_address"], self.settings["acpc_max_connections"]
        )
        #: the front end's metrics, for its own port and every seat's port
        self.telemetry = hub.telemetry.frontend("acpc")
        self.matches: dict[str, Match] = {}
        self.waiting: list[ACPCProtocol] = []
        self._made = 0

    def listen(self, factory: SeatFactory) -> defer.Deferred[IListeningPort]:
        """Listen with ``factory`` on ``acpc_seat_endpoint``; the listening port."""
        endpoint = serverFromString(self.reactor, self.settings["acpc_seat_endpoint"])
        return endpoint.listen(factory)

    def adapter_for(self, game: str) -> IACPCAdapter:
        """The ACPC adapter of a loaded game type that plays ``game``.

        :raises hub.model.NotFound: no loaded game plays it.
        """
        known: list[str] = []
        for factory in self.hub.registry.game_types():
            if "acpc" not in tuple(factory.frontends):
                continue
            adapter = factory.adapter("acpc")
            if adapter is None or not IACPCAdapter.providedBy(adapter):
                continue
            if game in tuple(adapter.games):
                return adapter
            known.extend(adapter.games)
        raise NotFound(f"no ACPC game {game!r}; one of {', '.join(known) or 'none'}")

    async def create(self, spec: Mapping[str, Any], creator: str | None = None) -> Match:
        """A new match from ``spec`` (``game``, ``players``, ``hands``, ``duplicate``,
        ``strict``, ``seed``, ``allow``), listening for its programs; ``creator`` is the
        address of who asks (the seats take only it, unless ``allow`` says otherwise:
        :func:`allowed_networks`).

        :raises hub.model.GameError: a bad spec (400), an unknown game (404), or
            ``acpc_max_matches`` waiting or running already (503).
        """
        if not isinstance(spec, Mapping):
            raise GameError("a match is a JSON object", 400)
        most = self.settings["acpc_max_matches"]
        if sum(1 for m in self.matches.values() if not m.over) >= most:
            raise GameError(f"{most} matches are waiting or running already; try later", 503)
        fields = {"game", "players", "hands", "duplicate", "strict", "seed", "deals", "allow"}
        unknown = set(spec) - fields
        if unknown:
            raise GameError(f"unknown keys: {', '.join(sorted(unknown))}", 400)
        game = spec.get("game")
        if not isinstance(game, str):
            raise GameError("'game' is the name of an ACPC game", 400)
        hands = spec.get("hands", 1000)
        duplicate = spec.get("duplicate", False)
        strict = spec.get("strict", self.settings["acpc_strict"])
        if not isinstance(duplicate, bool) or not isinstance(strict, bool):
            raise GameError("'duplicate' and 'strict' are true or false", 400)
        seed, seed_given, dealer_seed = deal_seeds(spec.get("deals", "hub"), spec.get("seed"))
        allowed = allowed_networks(spec.get("allow"), creator)
        adapter = self.adapter_for(game)
        show_all = self.settings["acpc_showdown"] == "dealer"
        table = adapter.table(game, hands, seed, dealer_seed, show_all)
        players = parse_players(spec.get("players", ["acpc", "acpc"]))
        if len(players) != int(table["seats"]):
            raise GameError(f"{table['game']} is played by {table['seats']} players", 400)
        if duplicate and any(p.kind == "open" for p in players):
            raise GameError(
                "a duplicate match seats programs and bots only: its tables are sealed"
                " until it ends (the second pass deals the first's cards again), so"
                " nobody could find an open seat",
                400,
            )
        for player in players:
            if player.bot is not None:  # (a bot's, only: parse_players)
                self.hub.registry.bot_factory(player.bot)
        self._made += 1
        match_id = f"m{self._made}-{os.urandom(3).hex()}"
        match = Match(
            self, match_id, adapter, table, players, hands, duplicate, strict, seed,
            seed_given, dealer_seed, allowed,
        )  # fmt: skip
        self.matches[match_id] = match
        try:
            await match.listen()
        except Exception as e:
            match.end("could not listen")
            raise GameError(f"cannot listen for the programs: {e}", 503) from None
        self._hand_out()
        self._trim()
        return match

    def get(self, match_id: str) -> Match:
        """The match ``match_id``.

        :raises hub.model.NotFound: no such match.
        """
        match = self.matches.get(match_id)
        if match is None:
            raise NotFound(f"no ACPC match {match_id!r}")
        return match

    def claim(self, protocol: ACPCProtocol) -> None:
        """A program on the front end's port said its version: a seat, or the queue."""
        self.waiting.append(protocol)
        self._hand_out()

    def _hand_out(self) -> None:
        """Each waiting program, oldest first, gets the first free seat of the oldest
        match that allows its address."""
        self.waiting = [p for p in self.waiting if p.transport is not None and p.match is None]
        for protocol in list(self.waiting):
            for match in list(self.matches.values()):
                player = match.free_program() if match.allows(protocol.peer) else None
                if player is not None:
                    self.waiting.remove(protocol)
                    match.attach(player.index, protocol)
                    match.ready(protocol)
                    break

    def connection_gone(self, protocol: ACPCProtocol) -> None:
        """A queued program left."""
        if protocol in self.waiting:
            self.waiting.remove(protocol)

    def ended(self, match: Match) -> None:
        """``match`` is over (kept for its results and log)."""
        self._hand_out()

    def _trim(self) -> None:
        over = [m for m in self.matches.values() if m.over]
        for match in over[: max(0, len(self.matches) - KEEP_MATCHES)]:
            self.matches.pop(match.id, None)

    def stop(self) -> None:
        """The hub stops: end every match."""
        for match in list(self.matches.values()):
            match.end("the hub is stopping")
