"""A poker sit-and-go: a whole fixed-limit Texas Hold'em tournament as one game.

Everyone starts with the same tournament chips (``starting_chips``); the stakes rise by
level (``levels``, each played for ``hands_per_level`` hands:
:class:`.rules.tournament.Schedule`); a player who loses their last chip is eliminated
and gets their place (:func:`.rules.tournament.bust_places`: whoever started the hand
with more chips places higher, equal stacks tie); the game is over when one player holds
every chip.  Tournament chips are not money: the type is not a chip game
(:class:`hub.interfaces.IChipGameFactory`), nothing is bought in from an account and
nothing goes back; the ledger never sees them.

:class:`SitAndGoGame` is a :class:`.server.PokerGame` (the same engine, events, views,
hand records and front-end adapters) with these differences:

- the first hand is dealt once every seat is taken; no seat is taken after that;
- blinds are posted for everyone, every hand (``sitout`` and ``post`` are refused);
  a player who times out is dealt in again the next hand;
- a player who leaves (or disconnects) stays in the tournament, *away*: the game
  checks or folds for them at once until they are eliminated (``sitin`` brings them
  back);
- busted players keep their seat with no chips and are never dealt in again.

Events besides poker's (:mod:`.server`):

- ``level`` {level, stakes, smallbet, bigbet, smallblind, bigblind, hand, hands}:
  before the first hand of each level (``hand``: its number; ``hands``: hands per
  level);
- ``eliminated`` {seat, name, place, handid, left}: in order, the worst place first,
  right after the hand that busted them (``left``: players still holding chips);
- ``away`` {seat, name, away}: a player left (``away`` true) or came back;
- ``over`` {result}: ``result`` has ``winners`` (the seat placed 1st), ``scores``
  (per seat: players outlasted, ``n - place``), ``summary``, ``places`` (per seat, 1 is
  the winner), ``ranks`` (``place - 1``), ``eliminations`` (in order), ``hands`` and
  ``level``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from zope.interface import implementer

from hub.interfaces import (
    IGameOptions,
    IGameRules,
    IHandRecord,
    IRatedGameFactory,
    IWholeTournamentFactory,
)
from hub.model import (
    GAME_OVER,
    BadAction,
    GameConfig,
    GameContext,
    GameError,
    GameEvent,
    GameOption,
    IllegalAction,
)
from hub.optional_interfaces import IRevealedHands

from . import events, history, rules, server
from .rules import tournament
from .rules.tournament import Level, Schedule

#: Options of a sit-and-go (times in seconds), declared on the factory.
OPTIONS: tuple[GameOption, ...] = (
    GameOption("starting_chips", "int", 1500, "starting chips", 2, 10_000_000, unit="chips", help="every player's tournament chips: not money, nothing is bought in"),
    GameOption("levels", "text", tournament.DEFAULT_LEVELS, "blind levels", help="small bet/big bet of each level, e.g. 20/40,30/60 (blinds: half the small bet and the small bet); past the last, each level doubles"),
    GameOption("hands_per_level", "int", 10, "hands per level", 1, 100000),
    GameOption("max_hands", "int", None, "most hands", 1, 1000000, help="empty: until one player holds every chip; else the tournament ends after that many hands, the players left placed by their stacks"),
    GameOption("cap", "int", None, "bets per round", 1, 100, help="empty: 4"),
    GameOption("action_time", "number", 30, "time to act", 0, 86400, unit="s"),
    GameOption("show_time", "number", 5, "time to show or muck", 0, 86400, unit="s"),
    GameOption("showdown_pause", "number", 4, "pause between hands", 0, 86400, unit="s"),
    GameOption("empty_timeout", "number", 600, "closes unfilled after", 0, 86400, unit="s"),
    GameOption("deal_seed", "text", None, "seed of the deals", help="empty: a fresh seed per hand; else 64 hex digits, each hand's seed derived from it"),
    GameOption("first_button", "int", None, "seat of the first button", 0, 9, help="empty: drawn"),
    GameOption("bot_seed", "int", None, "seed of the in-hub bots", 0, 2**31 - 1, help="empty: fresh; else the bots' choices repeat (reproducible tournaments)"),
)  # fmt: skip
DEFAULTS: dict[str, Any] = {o.name: o.default for o in OPTIONS}
#: the options passed on to the poker table as they are
_TABLE_OPTIONS = (
    "cap",
    "action_time",
    "show_time",
    "showdown_pause",
    "empty_timeout",
    "deal_seed",
    "first_button",
)
#: actions a sit-and-go refuses (blinds are posted for everyone, every hand)
_REFUSED = {
    "sitout": "in a sit-and-go everyone is dealt every hand",
    "post": "in a sit-and-go the blinds are posted for everyone",
}


def _whole(opts: Mapping[str, Any], key: str) -> int:
    """A whole-number option within its declared range."""
    value = opts[key]
    declared = next(o for o in OPTIONS if o.name == key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise GameError(f"option {key} must be a whole number, not {value!r}")
    if value < declared.minimum:
        raise GameError(f"option {key} must be at least {declared.minimum}, not {value}")
    if value > declared.maximum:
        raise GameError(f"option {key} may be at most {declared.maximum}, not {value}")
    return value


def tournament_config(
    options: Mapping[str, Any],
) -> tuple[Schedule, dict[str, Any], dict[str, Any]]:
    """Check a sit-and-go's options: its schedule, the full option set and the options
    of its poker table.

    :raises hub.model.GameError: an unknown option or a bad value, with a reason.
    """
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise GameError(
            f"unknown sit-and-go options: {', '.join(sorted(unknown))}"
            " (tournament chips are not bought in: no buyin, stakes come from levels)"
        )
    opts = {**DEFAULTS, **options}
    chips = _whole(opts, "starting_chips")
    hands = _whole(opts, "hands_per_level")
    for key in ("max_hands", "bot_seed"):
        if opts[key] is not None:
            _whole(opts, key)
    try:
        schedule = Schedule.of(opts["levels"], hands)
    except (TypeError, ValueError) as e:
        raise GameError(f"bad option levels: {e}") from None
    first = schedule.level(1)
    if first.big_blind > chips:
        raise GameError(
            f"the first level's big blind ({first.big_blind}) is more than the starting"
            f" chips ({chips})"
        )
    table = {k: opts[k] for k in _TABLE_OPTIONS}
    table.update(
        stakes=first.stakes,
        buyin=str(chips),
        min_buyin=str(chips),
        max_buyin=str(chips),
        chip="1",
        auto_post=True,
        min_players=2,
    )
    return schedule, opts, table


class SitAndGoGame(server.PokerGame):
    """One sit-and-go tournament (see the module docstring)."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        schedule, opts, table = tournament_config(config.options)
        self.schedule = schedule
        self.tournament_options = opts
        self.starting_chips = Decimal(opts["starting_chips"])
        self._started = False
        self._level: Level | None = None
        self._away: set[int] = set()
        self._places: dict[int, int] = {}
        self._eliminations: list[dict[str, Any]] = []
        self._seen_hand: str | None = None
        self._names: dict[int, str] = {}
        poker = dataclasses.replace(config, variant="fixed-limit", options=table)
        super().__init__(poker, context, rules.TEXAS_HOLDEM)

    # -- seats ------------------------------------------------------------------------

    def seat_player(self, seat: int, name: str, buyin: Any = None) -> None:
        """Seat ``name`` with the starting chips (before the first hand only).

        :raises hub.model.GameError: the tournament started, the seat is taken, or a
            buy-in other than the starting chips was asked for.
        """
        if self._started or self._over:
            raise IllegalAction("this sit-and-go has started: its seats are taken")
        if buyin is not None:
            try:
                amount = rules.money(buyin, "buy-in")
            except (TypeError, ValueError) as e:
                raise BadAction(str(e)) from None
            if amount != self.starting_chips:
                raise IllegalAction(
                    f"tournament chips are not bought: everyone starts with {self.starting_chips}"
                )
        super().seat_player(seat, name)
        self._names[seat] = name

    def leave(self, seat: int) -> None:
        """Before the first hand the seat opens again; after it the player stays in the
        tournament, away: the game checks or folds for them at once."""
        if seat not in self.table.players or self._over or seat in self._places:
            return  # (an eliminated player is gone already)
        if not self._started:
            super().leave(seat)
            self._names.pop(seat, None)
            return
        self._set_away(seat, True)

    def _set_away(self, seat: int, away: bool) -> None:
        if (seat in self._away) == away:
            return
        if away:
            self._away.add(seat)
        else:
            self._away.discard(seat)
        name = self.table.players[seat].name
        self._emit(GameEvent("away", {"seat": seat, "name": name, "away": away}))
        turn = self.table.turn
        if away and turn is not None and turn.seat == seat:
            self._on_timeout(seat)

    def act(self, seat: int, action: Any) -> None:
        """A poker action; ``sitout`` and ``post`` are refused, ``leaveseat`` makes the
        player away and ``sitin`` brings an away player back.

        :raises hub.model.GameError: as :meth:`.server.PokerGame.act`.
        """
        name = action.get("name") if isinstance(action, Mapping) else None
        if self._over:
            raise IllegalAction("this sit-and-go is over")
        if name in _REFUSED:
            raise IllegalAction(_REFUSED[name])
        if name == "leaveseat" and seat in self.table.players:
            self.leave(seat)
            return
        if name == "sitin" and seat in self.table.players:
            if seat not in self._away:
                raise IllegalAction("already sitting in")
            self._set_away(seat, False)
            return
        super().act(seat, action)

    def _decision_time(self, turn: rules.Turn) -> float:
        """No time for an away player: the game decides for them at once."""
        if turn.seat in self._away:
            return 0.0
        return super()._decision_time(turn)

    # -- hands and levels ---------------------------------------------------------------

    def _maybe_start(self) -> None:
        """Deal once every seat is taken; before each hand: everyone with chips sits in,
        and the level of the hand is set (a ``level`` event when it rises)."""
        if self._over or self.table.in_hand or self._timer is not None or self._unsettled:
            return
        if not self._started:
            if len(self.table.players) < self.seats:
                return
            self._started = True
        for seat, p in sorted(self.table.players.items()):
            if p.stack > 0 and (p.sitting_out or p.sit_out_next):
                self.table.sit_in(seat)
        number = self.table.hands_played + 1
        level = self.schedule.level_of_hand(number)
        if self._level is None or level.number != self._level.number:
            self._level = level
            cfg = dataclasses.replace(
                self.table.config, small_bet=level.small_bet, big_bet=level.big_bet,
                small_blind=level.small_blind, big_blind=level.big_blind,
            )  # fmt: skip
            self.table.reconfigure(cfg)
            data = {**level.to_dict(), "hand": number, "hands": self.schedule.hands_per_level}
            self._emit(GameEvent("level", data))
        super()._maybe_start()

    def _flush(self) -> None:
        super()._flush()
        rec = self.table.last_hand
        if rec is not None and rec.hand_id != self._seen_hand and not self.table.in_hand:
            self._seen_hand = rec.hand_id
            self._after_hand(rec)

    def _after_hand(self, rec: rules.HandRecord) -> None:
        """Place the players the hand busted; end the tournament when one is left (or
        after ``max_hands``)."""
        start = {seat: stack for seat, _name, stack in rec.players}
        alive = sorted(s for s, p in self.table.players.items() if p.stack > 0)
        busted = [s for s in start if self.table.players[s].stack <= 0 and s not in self._places]
        places = tournament.bust_places(busted, start, len(alive))
        for seat, place in sorted(places.items(), key=lambda kv: (-kv[1], kv[0])):
            self._place(seat, place, rec.hand_id)
            data = {**self._eliminations[-1], "left": len(alive)}
            self._emit(GameEvent("eliminated", data))
        top = self.tournament_options["max_hands"]
        if len(alive) <= 1:
            self._finish("one player holds every chip")
        elif top is not None and self.table.hands_played >= top:
            self._finish(f"{top} hands played")

    def _place(self, seat: int, place: int, hand: str | None) -> None:
        self._places[seat] = place
        name = self._names.get(seat, f"seat {seat}")
        self._eliminations.append({"seat": seat, "name": name, "place": place, "handid": hand})

    def _finish(self, why: str) -> None:
        """The tournament is over: the players left are placed by their stacks (equal
        stacks tie), the ``over`` event carries the places."""
        if self._over:
            return
        self._halt()
        for rec in self.table.drain():
            for event in events.events_of(rec, self._shuffle()):
                self._emit(event)
        left = {s: p.stack for s, p in self.table.players.items() if s not in self._places}
        ranked = sorted(left, key=lambda s: -left[s])
        for i, seat in enumerate(ranked):
            tied = i and left[seat] == left[ranked[i - 1]]
            self._places[seat] = self._places[ranked[i - 1]] if tied else i + 1
        self._over = True
        self._result = self._make_result(why)
        self._emit(GameEvent(GAME_OVER, {"result": self._result}))

    def _make_result(self, why: str) -> dict[str, Any]:
        players = len(self._names)
        places: list[int | None] = [self._places.get(s) for s in range(self.seats)]
        winners = [s for s, p in enumerate(places) if p == 1]
        level = self._level.number if self._level is not None else 0
        if len(winners) == 1:
            text = (
                f"{self._names.get(winners[0], winners[0])} won the sit-and-go of {players}"
                f" after {self.table.hands_played} hands at level {level} ({why})"
            )
        else:
            text = f"sit-and-go ended ({why}) after {self.table.hands_played} hands"
        return {
            "winners": winners,
            "scores": [0 if p is None else players - p for p in places],
            "summary": text,
            "places": places,
            "ranks": [None if p is None else p - 1 for p in places],
            "eliminations": list(self._eliminations),
            "hands": self.table.hands_played,
            "level": level,
            "starting_chips": int(self.starting_chips),
        }

    def _close(self, why: str) -> None:
        """Stopped or never filled: the tournament ends where it is."""
        self._finish(why)

    # -- what people see ------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """The poker table's view (:meth:`.server.PokerGame.view`) with the
        tournament's: ``tournament`` {level (the current level's stakes), next_level_in
        (hands), starting_chips, players_left, started, places {seat: place},
        eliminations, away} and each player's ``place`` (``None`` while in)."""
        out = super().view(seat)
        number = max(1, self.table.hands_played)
        level = self._level or self.schedule.level(1)
        out["buyin"] = None
        out["tournament"] = {
            "level": level.to_dict(),
            "next_level_in": self.schedule.hands_left(number) if self._started else None,
            "hands_per_level": self.schedule.hands_per_level,
            "starting_chips": str(self.starting_chips),
            "players_left": sum(1 for p in self.table.players.values() if p.stack > 0),
            "started": self._started,
            "places": {str(s): p for s, p in sorted(self._places.items())},
            "eliminations": list(self._eliminations),
            "away": sorted(self._away),
        }
        for p in out["players"]:
            p["place"] = self._places.get(p["seat"])
        return out

    def result(self) -> dict[str, Any] | None:
        """``None`` until the tournament is over; then its places (module docstring)."""
        return self._result if self._over else None


@implementer(
    IGameOptions,
    IGameRules,
    IHandRecord,
    IRatedGameFactory,
    IWholeTournamentFactory,
    IRevealedHands,
)
class HoldemSitAndGoFactory:
    """``holdem-sng``: a fixed-limit Texas Hold'em sit-and-go for 2 to 10 players
    (not a chip game: tournament chips, no buy-in)."""

    name = "holdem-sng"
    summary = "Poker sit-and-go: fixed-limit Texas Hold'em, rising blinds, last one standing wins."
    variants: tuple[str, ...] = ("fixed-limit",)
    frontends: tuple[str, ...] = ("xml", "web")
    min_seats = 2
    max_seats = 10
    default_seats = 6
    options = OPTIONS
    rules = "rules-sng.md"

    def create(self, config: GameConfig, context: GameContext) -> SitAndGoGame:
        """A new tournament.

        :raises hub.model.GameError: for options it does not accept.
        """
        return SitAndGoGame(config, context)

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.SNG_ADAPTERS`)."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.SNG_ADAPTERS.get(frontend) if frontend in self.frontends else None
        return None if make is None else make()

    def rating_variant(self, variant: str | None) -> str:
        """One rating pool: fixed-limit sit-and-go."""
        return ""

    def rating_ranks(self, result: Any) -> list[int] | None:
        """Each seat's place, 0 the winner (``result["ranks"]``); equal places tie."""
        ranks = result.get("ranks") if isinstance(result, Mapping) else None
        if not isinstance(ranks, list) or not ranks:
            return None
        if not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks):
            return None
        return list(ranks)

    def describe(self, hand: Mapping[str, Any]) -> str | None:
        """A stored hand's line (:func:`.history.describe`)."""
        return history.describe(hand)

    def hand_json(self, hand: Mapping[str, Any]) -> dict[str, Any]:
        """A stored hand's poker fields for the web (:func:`.history.hand_json`)."""
        return history.hand_json(hand)

    def revealed(self, hand: Mapping[str, Any]) -> dict[str, Any]:
        """A revealed hand's seed, for its players (:func:`.history.revealed`)."""
        return history.revealed(hand)


__all__ = ["OPTIONS", "HoldemSitAndGoFactory", "SitAndGoGame", "tournament_config"]
