"""A poker table's options: what a table accepts (:data:`OPTIONS`, declared on the
factories), and :func:`table_config`, which checks them and gives the engine's
:class:`.rules.TableConfig` (the server's :class:`.server.PokerGame` uses it, and the
factories for their buy-in ranges)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hub.model import GameError, GameOption

from . import hand_shuffle, rules, shuffle

__all__ = ["DEFAULTS", "LIMITS", "OPTIONS", "table_config"]

#: the betting structures (a table's variant) and the engine's limit of each
LIMITS = {
    "fixed-limit": rules.FIXED_LIMIT,
    "pot-limit": rules.POT_LIMIT,
    "no-limit": rules.NO_LIMIT,
}

#: Options a table accepts (times in seconds), declared on the factories.
OPTIONS: tuple[GameOption, ...] = (
    GameOption("stakes", "text", "10/20", "stakes", help="small bet/big bet; the big blind is the small bet, the small blind half of it"),
    GameOption("buyin", "decimal", None, "buy-in", 0, unit="chips", help="empty: 100 big blinds"),
    GameOption("min_buyin", "decimal", None, "least buy-in", 0, unit="chips", help="empty: one big blind"),
    GameOption("max_buyin", "decimal", None, "largest buy-in", 0, unit="chips", help="empty: no limit"),
    GameOption("cap", "int", None, "bets per round", 1, 100, help="empty: 4 in fixed limit, no cap otherwise"),
    GameOption("min_players", "int", 2, "players to deal", 2, 10),
    GameOption("chip", "decimal", "0.01", "smallest chip", 0, unit="chips"),
    GameOption("max_discard", "int", 3, "cards to change", 0, 5, help="draw games only"),
    GameOption("action_time", "number", 30, "time to act", 0, 86400, unit="s"),
    GameOption("blind_time", "number", 15, "time to post a blind", 0, 86400, unit="s"),
    GameOption("show_time", "number", 5, "time to show or muck", 0, 86400, unit="s"),
    GameOption("showdown_pause", "number", 4, "pause between hands", 0, 86400, unit="s"),
    GameOption("empty_timeout", "number", 600, "empty table closes after", 0, 86400, unit="s"),
    GameOption("auto_post", "bool", False, "post blinds automatically", for_people=True, help="people may turn it off at the table"),
    GameOption("time_bank", "number", 0, "time bank", 0, 3600, unit="s", for_people=30, help="extra time each player may draw on when the time to act runs out"),
    GameOption("time_bank_add", "number", 0, "time bank added per hand", 0, 3600, unit="s", for_people=2, help="up to the time bank"),
    GameOption("hand_stack", "decimal", None, "stack each hand starts from", 0, unit="chips", help="empty: the whole stack; else stacks reset every hand (computer poker matches)"),
    GameOption("hands", "int", None, "hands to play", 1, 1000000, help="empty: until the table closes"),
    GameOption("deal_seed", "text", None, "seed of the deals", help="empty: a fresh seed per hand; else 64 hex digits, each hand's seed derived from it (duplicate matches)"),
    GameOption("first_button", "int", None, "seat of the first button", 0, 9, help="empty: drawn"),
    *hand_shuffle.OPTIONS,
    GameOption("show_all", "bool", False, "show every hand at the showdown", help="no mucking: every player who did not fold shows (the ACPC dealer's showdown)"),
    GameOption("ante", "decimal", "0", "ante", 0, unit="chips", help="every player dealt in puts it in the pot, dead, after the blinds; 0: none"),
)  # fmt: skip
#: option name → default
DEFAULTS: dict[str, Any] = {o.name: o.default for o in OPTIONS}


def _seconds(options: Mapping[str, Any], key: str) -> float:
    v = options[key]
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise GameError(f"option {key} must be a number of seconds")
    try:
        f = float(v)
    except ValueError:
        raise GameError(f"option {key} must be a number of seconds") from None
    if not 0 <= f <= 86400:
        raise GameError(f"option {key} must be 0 to 86400 seconds")
    return f


def table_config(
    variant: rules.Variant, limit_name: str | None, seats: int, options: Mapping[str, Any]
) -> tuple[rules.TableConfig, dict[str, Any]]:
    """Check a game's options; returns the engine's config and the full option set.

    :raises hub.model.GameError: an unknown option or a bad value.
    """
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise GameError(f"unknown poker options: {', '.join(sorted(unknown))}")
    opts = {**DEFAULTS, **options}
    limit_name = limit_name or "fixed-limit"
    if limit_name not in LIMITS:
        raise GameError(f"unknown variant {limit_name!r}; one of {', '.join(LIMITS)}")
    limit = LIMITS[limit_name]
    try:
        stakes = str(opts["stakes"]).split("/")
        if len(stakes) != 2:
            raise ValueError("stakes are written small/big, e.g. 10/20")
        small, big = (rules.money(x.strip(), "stakes") for x in stakes)
        cap = opts["cap"]
        if cap is None:
            cap = 4 if limit == rules.FIXED_LIMIT else None
        elif isinstance(cap, bool) or not isinstance(cap, int):
            raise ValueError("cap must be a whole number of bets")
        max_discard = opts["max_discard"]
        if isinstance(max_discard, bool) or not isinstance(max_discard, int):
            raise ValueError("max_discard must be a whole number")
        if variant.max_discard:
            variant = rules.Variant(variant.name, variant.steps, max_discard)
        min_players = opts["min_players"]
        if isinstance(min_players, bool) or not isinstance(min_players, int):
            raise ValueError("min_players must be a whole number")
        cfg = rules.TableConfig(
            variant=variant,
            limit=limit,
            small_bet=small,
            big_bet=big,
            cap=cap,
            seats=seats,
            min_players=min_players,
            chip=rules.money(str(opts["chip"]), "chip"),
            hand_stack=None if opts["hand_stack"] is None else opts["hand_stack"],
            show_all=bool(opts["show_all"]),
            ante=rules.money(str(opts["ante"]), "ante"),
        )
        for key in ("hands", "first_button"):
            if opts[key] is not None and (
                isinstance(opts[key], bool) or not isinstance(opts[key], int)
            ):
                raise ValueError(f"{key} must be a whole number")
        if opts["first_button"] is not None and not 0 <= opts["first_button"] < seats:
            raise ValueError("first_button must be a seat of the table")
        if opts["hands"] is not None and opts["hands"] < 1:
            raise ValueError("hands must be at least 1")
        if opts["deal_seed"] is not None:
            opts["deal_seed"] = shuffle.seed_hex(str(opts["deal_seed"]))
        hand_shuffle.check_options(opts)
        for key in ("buyin", "min_buyin", "max_buyin"):
            if opts[key] is not None:
                opts[key] = rules.money(opts[key], key)
    except (TypeError, ValueError) as e:
        raise GameError(f"bad poker options: {e}") from None
    for key in (
        "action_time", "blind_time", "show_time", "showdown_pause", "empty_timeout", "entropy_time",
        "time_bank", "time_bank_add",
    ):  # fmt: skip
        opts[key] = _seconds(opts, key)
    if opts["buyin"] is None:
        opts["buyin"] = cfg.big_blind * 100
    if opts["min_buyin"] is None:
        opts["min_buyin"] = cfg.big_blind
    return cfg, opts
