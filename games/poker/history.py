"""Hand histories: readable text export and a JSON-able form of a hand record.

:func:`format_hand` writes one finished hand (:class:`.rules.HandRecord`) in the
familiar text layout of online poker rooms (header, seats, blinds, one section per
street, show down, summary), with the shuffle commitment and seed at the end so the
deal can be checked.  :func:`to_dict` / :func:`from_dict` turn a record into plain
JSON-able data and back, for the store.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from hub.model import HandPlayer, HandSummary

from . import cards as C
from . import rules as R

GAME_NAMES = {"texas-holdem": "Hold'em", "five-card-draw": "5 Card Draw"}
LIMIT_WORDS = {R.FIXED_LIMIT: "Limit", R.POT_LIMIT: "Pot Limit", R.NO_LIMIT: "No Limit"}
STREETS = {
    "texas-holdem": ("HOLE CARDS", "FLOP", "TURN", "RIVER"),
    "five-card-draw": ("DEAL", "DRAW"),
}


def _cards(cs: Any) -> str:
    return "[" + C.format_many(cs) + "]"


def _amount(v: Decimal | None) -> str:
    if v is None:
        return "0"
    return format(v.normalize(), "f") if v == v.to_integral_value() else format(v, "f")


def seed_is_public(rec: R.HandRecord) -> bool:
    """Whether the hand's shuffle seed may be shown to everyone: it gives the whole
    deck, so only when every hole card dealt was shown down and no card was drawn
    privately (a draw's discards)."""
    shown = set(rec.shown)
    if any(seat not in shown for seat, _ in rec.hole):
        return False
    return not any(a.kind == "discard" and a.cards for a in rec.actions)


def format_hand(rec: R.HandRecord, seat: int | None = None, reveal: bool = False) -> str:
    """The hand as readable hand-history text.

    :param seat: the reader's seat: its hole cards appear as ``Dealt to``.
    :param reveal: show every player's hole cards (for the table's owner or research),
        not only those shown at the table.
    """
    names = {s: n for s, n, _ in rec.players}

    def who(s: int | None) -> str:
        return names.get(s, f"seat {s}") if s is not None else "?"

    game = GAME_NAMES.get(rec.game, rec.game)
    when = rec.get("time")
    stamp = ""
    if isinstance(when, int | float):
        stamp = " - " + datetime.datetime.fromtimestamp(when, datetime.UTC).strftime(
            "%Y-%m-%d %H:%M:%S UTC"
        )
    table = rec.get("table")
    lines = [
        f"Gamehub Hand #{rec.hand_id}: {game} {LIMIT_WORDS.get(rec.limit, '')} "
        f"({rec.stakes}), blinds {_amount(rec.small_blind)}/{_amount(rec.big_blind)}{stamp}",
    ]
    if table:
        lines.append(f"Table '{table}'")
    if rec.button is not None:
        lines.append(f"Seat {rec.button + 1} is the button")
    for s, name, stack in rec.players:
        lines.append(f"Seat {s + 1}: {name} ({_amount(stack)} in chips)")
    holes = dict(rec.hole)
    streets = STREETS.get(rec.game, STREETS["texas-holdem"])
    board: list[int] = []
    hole_header_done = False
    stage_seen = -1
    draw = rec.game == "five-card-draw"
    for a in rec.actions:
        k = a.kind
        if k == "post":
            what = {"small": "small blind", "big": "big blind", "dead": "dead blind"}.get(
                a.text, a.text
            )
            dead = a.get("dead") or Decimal(0)
            live = (a.amount or Decimal(0)) - dead
            if a.text == "dead":
                text = f"{who(a.seat)}: posts dead blind {_amount(dead)}"
            else:
                text = f"{who(a.seat)}: posts {what} {_amount(live)}"
                if dead:
                    text += f" and {_amount(dead)} dead"
            lines.append(text + (" and is all-in" if a.allin else ""))
        elif k == "refuse":
            lines.append(f"{who(a.seat)}: does not post and sits out")
        elif k == "hole":
            if not hole_header_done:
                lines.append(f"*** {streets[0]} ***")
                hole_header_done = True
                stage_seen = 0
                if seat is not None and seat in holes and not reveal:
                    lines.append(f"Dealt to {who(seat)} {_cards(holes[seat])}")
            if reveal:
                lines.append(f"Dealt to {who(a.seat)} {_cards(a.cards)}")
        elif k == "board":
            prev = list(board)
            board.extend(a.cards)
            stage = a.stage if a.stage is not None else stage_seen + 1
            stage_seen = stage
            name = streets[stage] if stage < len(streets) else f"STREET {stage}"
            if prev:
                lines.append(f"*** {name} *** {_cards(prev)} {_cards(a.cards)}")
            else:
                lines.append(f"*** {name} *** {_cards(a.cards)}")
        elif k in ("fold", "check"):
            lines.append(f"{who(a.seat)}: {k}s")
        elif k == "call":
            lines.append(
                f"{who(a.seat)}: calls {_amount(a.amount)}" + (" and is all-in" if a.allin else "")
            )
        elif k == "bet":
            lines.append(
                f"{who(a.seat)}: bets {_amount(a.amount)}" + (" and is all-in" if a.allin else "")
            )
        elif k == "raise":
            lines.append(
                f"{who(a.seat)}: raises to {_amount(a.total)}"
                + (" and is all-in" if a.allin else "")
            )
        elif k == "discard":
            if draw and stage_seen < 1:
                lines.append(f"*** {streets[1] if len(streets) > 1 else 'DRAW'} ***")
                stage_seen = 1
            n = a.get("count", len(a.cards))
            text = f"{who(a.seat)}: discards {n} card{'s' if n != 1 else ''}"
            if reveal or a.seat == seat:
                text += f" [{C.format_many(a.cards)}]" if a.cards else ""
            lines.append(text if n else f"{who(a.seat)}: stands pat")
        elif k == "return":
            lines.append(f"Uncalled bet ({_amount(a.amount)}) returned to {who(a.seat)}")
        elif k == "show":
            if not any(line == "*** SHOW DOWN ***" for line in lines):
                lines.append("*** SHOW DOWN ***")
            text = f" ({a.text})" if a.text else ""
            lines.append(f"{who(a.seat)}: shows {_cards(a.cards)}{text}")
        elif k == "muck":
            lines.append(f"{who(a.seat)}: mucks hand")
        elif k == "award":
            pot = a.get("pot", 0)
            pot_name = (
                "the pot" if len(rec.pots) <= 1 else ("main pot" if pot == 0 else f"side pot-{pot}")
            )
            lines.append(f"{who(a.seat)} collected {_amount(a.amount)} from {pot_name}")
        elif k == "timeout":
            lines.append(f"{who(a.seat)} has timed out")
        elif k == "leaving":
            lines.append(f"{who(a.seat)} leaves the table")
        elif k == "cancel":
            lines.append(f"Hand cancelled: {a.text}")
    lines.append("*** SUMMARY ***")
    total = sum((p.amount for p in rec.pots), Decimal(0))
    if len(rec.pots) > 1:
        parts = " ".join(
            ("Main" if i == 0 else f"Side-{i}") + f" pot {_amount(p.amount)}."
            for i, p in enumerate(rec.pots)
        )
        lines.append(f"Total pot {_amount(total)} {parts}")
    else:
        lines.append(f"Total pot {_amount(total)}")
    if rec.board:
        lines.append(f"Board {_cards(rec.board)}")
    won: dict[int, Decimal] = {}
    hand_text: dict[int, str] = {}
    for s, amount, _pot, text in rec.awards:
        won[s] = won.get(s, Decimal(0)) + amount
        if text:
            hand_text[s] = text
    folded = {a.seat: a.stage for a in rec.actions if a.kind == "fold"}
    shown = set(rec.shown)
    for s, name, _stack in rec.players:
        role = ""
        if s == rec.button:
            role = " (button)"
        status = []
        if s in folded:
            stage = folded[s] or 0
            if stage == 0:
                status.append("folded before the " + ("draw" if draw else "flop"))
            else:
                street = streets[stage] if stage < len(streets) else "?"
                status.append(f"folded on the {street.lower()}")
        elif s in shown:
            status.append(f"showed {_cards(holes.get(s, ()))}")
        elif s in holes:
            status.append("mucked" if not reveal else f"mucked {_cards(holes[s])}")
        else:
            status.append("not dealt in")
        if s in won:
            status.append(
                f"won ({_amount(won[s])})" + (f" with {hand_text[s]}" if s in hand_text else "")
            )
        lines.append(f"Seat {s + 1}: {name}{role} " + " and ".join(status))
    deltas = ", ".join(
        f"{names.get(s, s)} {'+' if d > 0 else ''}{_amount(d)}" for s, d in rec.deltas
    )
    if deltas:
        lines.append(f"Results: {deltas}")
    commitment = rec.get("commitment")
    if commitment:
        lines.append(f"Shuffle commitment (SHA-256 of the seed): {commitment}")
    seed = rec.get("seed")
    if seed and (reveal or seed_is_public(rec)):
        lines.append(f"Shuffle seed: {seed}")
    elif seed:
        lines.append("Shuffle seed: withheld (it would show cards that were not shown down)")
    return "\n".join(lines) + "\n"


# -- JSON-able form ---------------------------------------------------------------------


def _plain(v: Any) -> Any:
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, R.Pot):
        return {"amount": str(v.amount), "eligible": list(v.eligible)}
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _record_dict(r: R.Record) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": r.kind}
    for key in ("seat", "amount", "total", "index", "stage"):
        v = getattr(r, key)
        if v is not None:
            d[key] = _plain(v)
    if r.cards:
        d["cards"] = list(r.cards)
    if r.allin:
        d["allin"] = True
    if r.text:
        d["text"] = r.text
    if r.pots:
        d["pots"] = _plain(r.pots)
    if r.extra:
        d["extra"] = [[k, _plain(v)] for k, v in r.extra]
    return d


#: the hand history's betting round names, by betting stage
ROUNDS = ("preflop", "flop", "turn", "river")
#: record kinds that count as a player's action in the history's rounds
ROUND_ACTIONS = frozenset({"post", "fold", "check", "call", "bet", "raise", "discard"})


def summary(rec: R.HandRecord) -> HandSummary:
    """What the hub's hand history keeps of a finished hand (the seed's ``hand`` and
    ``player`` rows): per player the cards shown (hold'em: at most two), money put
    in and won, and the actions of each betting round; the whole record as JSON."""
    won: dict[int, Decimal] = {}
    for s, amount, _pot, _text in rec.awards:
        won[s] = won.get(s, Decimal(0)) + amount
    deltas = dict(rec.deltas)
    rounds: dict[int, dict[str, list[str]]] = {}
    for r in rec.actions:
        if r.seat is None or r.stage is None or not 0 <= r.stage < len(ROUNDS):
            continue
        if r.kind in ROUND_ACTIONS:
            rounds.setdefault(r.seat, {}).setdefault(ROUNDS[r.stage], []).append(r.kind)
    holes = dict(rec.hole)
    players = []
    for s, name, _stack in rec.players:
        winnings = won.get(s, Decimal(0))
        hole = holes.get(s, ()) if s in rec.shown and len(holes.get(s, ())) <= 2 else ()
        players.append(
            HandPlayer(
                seat=s,
                name=name,
                hole=tuple(hole),
                money_in=max(winnings - deltas.get(s, Decimal(0)), Decimal(0)),
                winnings=winnings,
                rounds={k: " ".join(v) for k, v in rounds.get(s, {}).items()},
            )
        )
    return HandSummary(
        hand=rec.hand_id,
        dealer=-1 if rec.button is None else rec.button,
        players=tuple(players),
        board=tuple(rec.board),
        showdown="; ".join(t for _s, _a, _p, t in rec.awards if t) or None,
        commitment=rec.get("commitment"),
        seed=rec.get("seed"),
        record=to_dict(rec),
    )


def to_dict(rec: R.HandRecord) -> dict[str, Any]:
    """A JSON-able dict of a hand record (amounts as decimal strings)."""
    return {
        "hand_id": rec.hand_id,
        "number": rec.number,
        "game": rec.game,
        "limit": rec.limit,
        "stakes": rec.stakes,
        "small_blind": str(rec.small_blind),
        "big_blind": str(rec.big_blind),
        "button": rec.button,
        "players": [[s, n, str(v)] for s, n, v in rec.players],
        "hole": [[s, list(cs)] for s, cs in rec.hole],
        "board": list(rec.board),
        "shown": list(rec.shown),
        "actions": [_record_dict(a) for a in rec.actions],
        "pots": _plain(rec.pots),
        "awards": [[s, str(a), p, t] for s, a, p, t in rec.awards],
        "deltas": [[s, str(d)] for s, d in rec.deltas],
        "dealt": [list(x) for x in rec.dealt],
        "extra": [[k, _plain(v)] for k, v in rec.extra],
    }


def _money_keys(d: Mapping[str, Any], key: str) -> Decimal | None:
    v = d.get(key)
    return None if v is None else Decimal(v)


_DECIMAL_EXTRA = {"dead"}


def _record_from(d: Mapping[str, Any]) -> R.Record:
    extra = []
    for k, v in d.get("extra", []):
        if k in _DECIMAL_EXTRA and v is not None:
            v = Decimal(v)
        elif k in ("deltas", "stacks"):
            v = tuple((int(s), Decimal(x)) for s, x in v)
        elif isinstance(v, list):
            v = tuple(v)
        extra.append((k, v))
    return R.Record(
        kind=d["kind"],
        seat=d.get("seat"),
        amount=_money_keys(d, "amount"),
        total=_money_keys(d, "total"),
        cards=tuple(d.get("cards", ())),
        index=d.get("index"),
        allin=bool(d.get("allin", False)),
        stage=d.get("stage"),
        text=d.get("text", ""),
        pots=tuple(R.Pot(Decimal(p["amount"]), tuple(p["eligible"])) for p in d.get("pots", [])),
        extra=tuple(extra),
    )


def from_dict(d: Mapping[str, Any]) -> R.HandRecord:
    """The hand record of :func:`to_dict`'s output.

    :raises KeyError, ValueError: the data is not a hand record.
    """
    return R.HandRecord(
        hand_id=d["hand_id"],
        number=int(d["number"]),
        game=d["game"],
        limit=int(d["limit"]),
        stakes=d["stakes"],
        small_blind=Decimal(d["small_blind"]),
        big_blind=Decimal(d["big_blind"]),
        button=d["button"],
        players=tuple((int(s), n, Decimal(v)) for s, n, v in d["players"]),
        hole=tuple((int(s), tuple(cs)) for s, cs in d["hole"]),
        board=tuple(d["board"]),
        shown=tuple(d["shown"]),
        actions=tuple(_record_from(a) for a in d["actions"]),
        pots=tuple(R.Pot(Decimal(p["amount"]), tuple(p["eligible"])) for p in d["pots"]),
        awards=tuple((int(s), Decimal(a), int(p), t) for s, a, p, t in d["awards"]),
        deltas=tuple((int(s), Decimal(x)) for s, x in d["deltas"]),
        dealt=tuple((int(p), int(c)) for p, c in d["dealt"]),
        extra=tuple((k, v) for k, v in d.get("extra", [])),
    )
