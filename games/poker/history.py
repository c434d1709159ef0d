"""Hand histories: readable text export and a JSON-able form of a hand record.

:func:`format_hand` writes one finished hand (:class:`.rules.HandRecord`) in the
familiar text layout of online poker rooms (header, seats, blinds, one section per
street, show down, summary), with the shuffle commitment and seed at the end so the
deal can be checked.  :func:`to_dict` / :func:`from_dict` turn a record into plain
JSON-able data and back, for the store.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
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

    Sections in order: header, seats, the actions street by street (blinds, hole
    cards, board, show down), summary, and the shuffle commitment and seed.

    :param seat: the reader's seat: its hole cards appear as ``Dealt to``.
    :param reveal: show every player's hole cards (for the table's owner or research),
        not only those shown at the table.
    """
    lines = _header(rec) + _seats(rec)
    lines += _Streets(rec, seat, reveal).lines()
    lines += _summary(rec, reveal)
    lines += _shuffle(rec, reveal)
    return "\n".join(lines) + "\n"


def _header(rec: R.HandRecord) -> list[str]:
    """The hand number, game, stakes and time, and the table's name."""
    game = GAME_NAMES.get(rec.game, rec.game)
    when = rec.get("time")
    stamp = ""
    if isinstance(when, int | float):
        stamp = " - " + datetime.datetime.fromtimestamp(when, datetime.UTC).strftime(
            "%Y-%m-%d %H:%M:%S UTC"
        )
    lines = [
        f"Gamehub Hand #{rec.hand_id}: {game} {LIMIT_WORDS.get(rec.limit, '')} "
        f"({rec.stakes}), blinds {_amount(rec.small_blind)}/{_amount(rec.big_blind)}{stamp}",
    ]
    table = rec.get("table")
    if table:
        lines.append(f"Table '{table}'")
    return lines


def _seats(rec: R.HandRecord) -> list[str]:
    """The button and each player with the chips at the start."""
    lines = []
    if rec.button is not None:
        lines.append(f"Seat {rec.button + 1} is the button")
    for s, name, stack in rec.players:
        lines.append(f"Seat {s + 1}: {name} ({_amount(stack)} in chips)")
    return lines


def _streets(rec: R.HandRecord) -> tuple[str, ...]:
    return STREETS.get(rec.game, STREETS["texas-holdem"])


def _who(rec: R.HandRecord) -> Callable[[int | None], str]:
    names = {s: n for s, n, _ in rec.players}

    def who(s: int | None) -> str:
        return names.get(s, f"seat {s}") if s is not None else "?"

    return who


_BLIND_WORDS = {"small": "small blind", "big": "big blind", "dead": "dead blind"}
_PLAIN = {
    "refuse": "{who}: does not post and sits out",
    "fold": "{who}: folds",
    "check": "{who}: checks",
    "muck": "{who}: mucks hand",
    "timeout": "{who} has timed out",
    "leaving": "{who} leaves the table",
}
_ALL_IN = " and is all-in"


class _Streets:
    """The action lines of a hand, street by street: one method per record kind
    (``_on_<kind>``); kinds without one (seating, pots, hand over...) write nothing."""

    def __init__(self, rec: R.HandRecord, seat: int | None, reveal: bool) -> None:
        self.rec = rec
        self.seat = seat
        self.reveal = reveal
        self.who = _who(rec)
        self.holes = dict(rec.hole)
        self.streets = _streets(rec)
        self.draw = rec.game == "five-card-draw"
        self.board: list[int] = []
        self.hole_header_done = False
        self.showdown_done = False
        self.stage_seen = -1
        self.out: list[str] = []

    def lines(self) -> list[str]:
        """Every action line, in order."""
        for a in self.rec.actions:
            plain = _PLAIN.get(a.kind)
            if plain is not None:
                self.out.append(plain.format(who=self.who(a.seat)))
                continue
            handler = self.HANDLERS.get(a.kind)
            if handler is not None:
                handler(self, a)
        return self.out

    def _on_post(self, a: R.Record) -> None:
        what = _BLIND_WORDS.get(a.text, a.text)
        dead = a.get("dead") or Decimal(0)
        live = (a.amount or Decimal(0)) - dead
        if a.text == "dead":
            text = f"{self.who(a.seat)}: posts dead blind {_amount(dead)}"
        else:
            text = f"{self.who(a.seat)}: posts {what} {_amount(live)}"
            if dead:
                text += f" and {_amount(dead)} dead"
        self.out.append(text + (_ALL_IN if a.allin else ""))

    def _on_hole(self, a: R.Record) -> None:
        if not self.hole_header_done:
            self.out.append(f"*** {self.streets[0]} ***")
            self.hole_header_done = True
            self.stage_seen = 0
            seat = self.seat
            if seat is not None and seat in self.holes and not self.reveal:
                self.out.append(f"Dealt to {self.who(seat)} {_cards(self.holes[seat])}")
        if self.reveal:
            self.out.append(f"Dealt to {self.who(a.seat)} {_cards(a.cards)}")

    def _on_board(self, a: R.Record) -> None:
        prev = list(self.board)
        self.board.extend(a.cards)
        stage = a.stage if a.stage is not None else self.stage_seen + 1
        self.stage_seen = stage
        name = self.streets[stage] if stage < len(self.streets) else f"STREET {stage}"
        if prev:
            self.out.append(f"*** {name} *** {_cards(prev)} {_cards(a.cards)}")
        else:
            self.out.append(f"*** {name} *** {_cards(a.cards)}")

    def _on_call(self, a: R.Record) -> None:
        self._wager(a, f"calls {_amount(a.amount)}")

    def _on_bet(self, a: R.Record) -> None:
        self._wager(a, f"bets {_amount(a.amount)}")

    def _on_raise(self, a: R.Record) -> None:
        self._wager(a, f"raises to {_amount(a.total)}")

    def _wager(self, a: R.Record, what: str) -> None:
        self.out.append(f"{self.who(a.seat)}: {what}" + (_ALL_IN if a.allin else ""))

    def _on_discard(self, a: R.Record) -> None:
        if self.draw and self.stage_seen < 1:
            self.out.append(f"*** {self.streets[1] if len(self.streets) > 1 else 'DRAW'} ***")
            self.stage_seen = 1
        n = a.get("count", len(a.cards))
        text = f"{self.who(a.seat)}: discards {n} card{'s' if n != 1 else ''}"
        if self.reveal or a.seat == self.seat:
            text += f" [{C.format_many(a.cards)}]" if a.cards else ""
        self.out.append(text if n else f"{self.who(a.seat)}: stands pat")

    def _on_return(self, a: R.Record) -> None:
        self.out.append(f"Uncalled bet ({_amount(a.amount)}) returned to {self.who(a.seat)}")

    def _on_show(self, a: R.Record) -> None:
        if not self.showdown_done:
            self.out.append("*** SHOW DOWN ***")
            self.showdown_done = True
        text = f" ({a.text})" if a.text else ""
        self.out.append(f"{self.who(a.seat)}: shows {_cards(a.cards)}{text}")

    def _on_award(self, a: R.Record) -> None:
        pot = a.get("pot", 0)
        if len(self.rec.pots) <= 1:
            pot_name = "the pot"
        else:
            pot_name = "main pot" if pot == 0 else f"side pot-{pot}"
        self.out.append(f"{self.who(a.seat)} collected {_amount(a.amount)} from {pot_name}")

    def _on_cancel(self, a: R.Record) -> None:
        self.out.append(f"Hand cancelled: {a.text}")

    #: record kind → its handler: the dispatch table
    HANDLERS = {
        "post": _on_post,
        "hole": _on_hole,
        "board": _on_board,
        "call": _on_call,
        "bet": _on_bet,
        "raise": _on_raise,
        "discard": _on_discard,
        "return": _on_return,
        "show": _on_show,
        "award": _on_award,
        "cancel": _on_cancel,
    }


def _summary(rec: R.HandRecord, reveal: bool) -> list[str]:
    """The pots, the board, each player's outcome and everyone's result."""
    lines = ["*** SUMMARY ***"]
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
    holes = dict(rec.hole)
    for s, name, _stack in rec.players:
        role = " (button)" if s == rec.button else ""
        status = [_outcome(rec, s, folded, holes, reveal)]
        if s in won:
            status.append(
                f"won ({_amount(won[s])})" + (f" with {hand_text[s]}" if s in hand_text else "")
            )
        lines.append(f"Seat {s + 1}: {name}{role} " + " and ".join(status))
    names = {s: n for s, n, _ in rec.players}
    deltas = ", ".join(
        f"{names.get(s, s)} {'+' if d > 0 else ''}{_amount(d)}" for s, d in rec.deltas
    )
    if deltas:
        lines.append(f"Results: {deltas}")
    return lines


def _outcome(
    rec: R.HandRecord,
    s: int,
    folded: Mapping[int | None, int | None],
    holes: Mapping[int, Any],
    reveal: bool,
) -> str:
    """How the hand ended for seat ``s``: folded (on which street), showed, mucked.

    :param folded: seat → stage of its fold; :param holes: seat → hole cards dealt.
    """
    if s in folded:
        stage = folded[s] or 0
        if stage == 0:
            return "folded before the " + ("draw" if rec.game == "five-card-draw" else "flop")
        streets = _streets(rec)
        street = streets[stage] if stage < len(streets) else "?"
        return f"folded on the {street.lower()}"
    if s in rec.shown:
        return f"showed {_cards(holes.get(s, ()))}"
    if s in holes:
        return "mucked" if not reveal else f"mucked {_cards(holes[s])}"
    return "not dealt in"


def _shuffle(rec: R.HandRecord, reveal: bool) -> list[str]:
    """The shuffle commitment, and the seed when it may be shown."""
    lines = []
    commitment = rec.get("commitment")
    if commitment:
        lines.append(f"Shuffle commitment (SHA-256 of the seed): {commitment}")
    seed = rec.get("seed")
    if seed and (reveal or seed_is_public(rec)):
        lines.append(f"Shuffle seed: {seed}")
    elif seed:
        lines.append("Shuffle seed: withheld (it would show cards that were not shown down)")
    return lines


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
    """What the hub's hand history keeps of a finished hand, in poker's words.

    - ``record`` (everyone): ``game``, ``dealer`` (the button, -1 for none), ``board``
      (card ints), ``shown`` (seat → the hole cards shown down), ``showdown`` (the
      winning hands in words), ``commitment`` (the shuffle's, published before the
      deal), ``contributions`` (seat → the entropy it added to the shuffle, hex),
      ``dealer_seed`` and ``dealer_hand`` for the ACPC dealer's deals, and ``rounds``
      (seat → betting round → the actions in it);
    - each seat's ``private`` part: ``{"hole": [...]}``, the cards it was dealt;
    - ``sealed`` (the operator): ``seed`` and ``engine``, the whole engine record
      (:func:`to_dict`), which :func:`format_hand` and ``verify-hand`` read back;
    - ``summary``: ``board …; <showdown>`` (:func:`describe`).
    """
    won: dict[int, Decimal] = {}
    for s, amount, _pot, _text in rec.awards:
        won[s] = won.get(s, Decimal(0)) + amount
    deltas = dict(rec.deltas)
    rounds: dict[str, dict[str, list[str]]] = {}
    for r in rec.actions:
        if r.seat is None or r.stage is None or not 0 <= r.stage < len(ROUNDS):
            continue
        if r.kind in ROUND_ACTIONS:
            rounds.setdefault(str(r.seat), {}).setdefault(ROUNDS[r.stage], []).append(r.kind)
    holes = dict(rec.hole)
    players = []
    for s, name, _stack in rec.players:
        winnings = won.get(s, Decimal(0))
        hole = holes.get(s)
        players.append(
            HandPlayer(
                seat=s,
                name=name,
                money_in=max(winnings - deltas.get(s, Decimal(0)), Decimal(0)),
                winnings=winnings,
                private=None if hole is None else {"hole": list(hole)},
            )
        )
    record = {
        "game": rec.game,
        "dealer": -1 if rec.button is None else rec.button,
        "board": list(rec.board),
        "shown": {str(s): list(holes[s]) for s in rec.shown if s in holes},
        "showdown": "; ".join(t for _s, _a, _p, t in rec.awards if t) or None,
        "commitment": rec.get("commitment"),
        "contributions": dict(rec.get("contributions") or {}),
        "rounds": {seat: {k: " ".join(v) for k, v in r.items()} for seat, r in rounds.items()},
    }
    if rec.get("dealer_seed") is not None:  # the ACPC dealer's deals: public by design
        record["dealer_seed"], record["dealer_hand"] = (
            rec.get("dealer_seed"),
            rec.get("dealer_hand"),
        )
    when = rec.get("time")
    return HandSummary(
        hand=rec.hand_id,
        players=tuple(players),
        record=record,
        summary=_describe_record(record),
        sealed={"seed": rec.get("seed"), "engine": to_dict(rec)},
        started=float(when) if isinstance(when, int | float) else None,
    )


# -- stored hands (IStore.hands) ----------------------------------------------------------


def _card_texts(texts: Any) -> list[int]:
    return [C.parse(t) for t in texts if isinstance(t, str) and t.strip()]


def stored_record(hand: Mapping[str, Any]) -> dict[str, Any]:
    """The public record of a stored hand in :func:`summary`'s form.  A hand stored
    before hands had records (moved over from the store's old ``hand`` and ``player``
    columns: the board as ``card1``…``card5``, per seat the shown ``card1``/``card2``
    and the actions of each round) is read into the same form."""
    record = dict(hand.get("record") or {})
    if "board" in record:
        return record
    seats = record.get("seats") or {}
    return {
        "game": hand.get("game_type"),
        "dealer": record.get("dealer", -1),
        "board": _card_texts(record.get(f"card{i}") for i in range(1, 6)),
        "shown": {
            seat: cards
            for seat, row in seats.items()
            if (cards := _card_texts((row.get("card1"), row.get("card2"))))
        },
        "showdown": record.get("showdown"),
        "commitment": record.get("commitment"),
        "rounds": {seat: {r: row[r] for r in ROUNDS if row.get(r)} for seat, row in seats.items()},
    }


def engine_record(hand: Mapping[str, Any]) -> dict[str, Any] | None:
    """The engine's whole record (:func:`to_dict`) of a stored hand read with its sealed
    part, or ``None`` (not asked for, or a hand stored without it)."""
    sealed = hand.get("sealed") or {}
    for key in ("engine", "actions"):  # (``actions``: a hand of the old columns)
        whole = sealed.get(key)
        if isinstance(whole, Mapping) and "hole" in whole:
            return dict(whole)
    return None


def verifiable(hand: Mapping[str, Any]) -> dict[str, Any]:
    """A stored hand as :func:`.verify.verify_hand` reads it: the commitment, the seed
    (in the sealed part: read the hand with it), the dealer, the board and the hole
    cards known (shown down, or the reader's own), and ``dealt`` when the engine's
    whole record is there."""
    record = stored_record(hand)
    sealed = hand.get("sealed")
    seed = sealed.get("seed") if isinstance(sealed, Mapping) else None
    shown = record.get("shown") or {}
    players = []
    for p in hand.get("players") or ():
        private = p.get("private")
        hole = private.get("hole") if isinstance(private, Mapping) else None
        players.append({"seat": p["seat"], "hole": list(hole or shown.get(str(p["seat"]), ()))})
    out = {
        "commitment": record.get("commitment"),
        "seed": seed,
        "contributions": dict(record.get("contributions") or {}),
        "dealer_seed": record.get("dealer_seed"),
        "dealer_hand": record.get("dealer_hand"),
        "dealer": record.get("dealer"),
        "board": list(record.get("board") or ()),
        "players": players,
    }
    engine = engine_record(hand)
    if engine is not None:
        out["dealt"] = engine.get("dealt")
    return out


def _describe_record(record: Mapping[str, Any]) -> str | None:
    board = C.format_many(record.get("board") or ())
    parts = (f"board {board}" if board else "", record.get("showdown") or "")
    return "; ".join(x for x in parts if x) or None


def describe(hand: Mapping[str, Any]) -> str | None:
    """A stored hand's line for lists of hands: ``board …; <showdown>``."""
    return _describe_record(stored_record(hand))


def revealed(hand: Mapping[str, Any]) -> dict[str, Any]:
    """What a stored hand's own players may read once it is revealed
    (:meth:`hub.interfaces.IHandRecord.revealed`): its shuffle's ``seed``."""
    sealed = hand.get("sealed")
    return {"seed": sealed.get("seed") if isinstance(sealed, Mapping) else None}


def hand_json(hand: Mapping[str, Any]) -> dict[str, Any]:
    """A stored hand's poker fields for the web: ``dealer``, ``board``, ``shown``,
    ``showdown``, ``commitment``, ``contributions``; the ``seed`` only when the hand
    was read with its sealed part (an admin) or revealed to this reader (one of its
    players, :mod:`hub.play.reveal`), else ``seed_withheld``; ``hole`` on the reader's own
    seat (its private part)."""
    record = stored_record(hand)
    sealed = hand.get("sealed")
    seed = sealed.get("seed") if isinstance(sealed, Mapping) else None
    revealed = hand.get("revealed")
    if seed is None and isinstance(revealed, Mapping):
        seed = revealed.get("seed")
    return {
        "dealer": record.get("dealer"),
        "board": list(record.get("board") or ()),
        "shown": dict(record.get("shown") or {}),
        "showdown": record.get("showdown"),
        "commitment": record.get("commitment"),
        "contributions": dict(record.get("contributions") or {}),
        "seed": seed,
        "seed_withheld": bool(record.get("commitment")) and seed is None,
        "hole": {
            str(p["seat"]): list(p["private"].get("hole") or ())
            for p in hand.get("players") or ()
            if isinstance(p.get("private"), Mapping)
        },
    }


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
