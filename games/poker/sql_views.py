"""The poker seed's statistics tables as SQL views over the stored hands
(:class:`hub.interfaces.IHandViews`), on SQLite and PostgreSQL alike.

The first poker server kept two tables for research, ``hand`` and ``player``; the hub
now stores every game's hands in its own words (``finished_hand``: the game's public
``record`` as JSON, its ``sealed`` part; ``hand_seat``: per seat the chips in and won
and its ``private`` part), and these views give the old tables back, for Texas Hold'em
hands (``texas-holdem`` and ``holdem-sng`` tables), so that researchers can ask the
hands in SQL:

- ``hand``: ``hand_id``, ``game_id``, ``hand_key``, ``game_type``, ``timestamp`` (when
  the hand ended), ``dealer`` (the button's seat), ``flop``, ``turn``, ``river`` (the
  board cards of each street, ``"7h Ad Td"``), ``showdown`` (the winning hands in
  words), ``card1`` … ``card5`` (the board), ``commitment`` (the shuffle's).
- ``player``: ``hand_id``, ``account``, ``name``, ``position`` (the seat),
  ``preflop``, ``flop``, ``turn``, ``river`` (the seat's actions on each street,
  ``"call raise"``), ``money_in``, ``winnings`` (in the store's money type: NUMERIC on
  PostgreSQL, integer cents on SQLite), ``card1``, ``card2``: the hole cards **only
  when they were shown down** (else NULL).
- ``player_operator`` and ``hand_operator``: the same with the private columns, for the
  operator only: every seat's hole cards, and the shuffle's ``seed``.  On PostgreSQL
  grant researchers ``SELECT`` on ``hand`` and ``player`` alone.

Cards are written as text, rank then suit (``Td``), as the hand histories write them.
"""

from __future__ import annotations

from collections.abc import Sequence

from zope.interface import implementer

from hub.optional_interfaces import IHandViews

#: the game types whose hands the views show (Hold'em: a board of five, two hole cards)
GAME_TYPES = ("texas-holdem", "holdem-sng")
STREETS = ("preflop", "flop", "turn", "river")


def _json(dialect: str, column: str, *path: str) -> str:
    """SQL for the text at ``path`` (keys; ``[n]`` for an index; a key may be an SQL
    expression given as ``=expr``) of the JSON text in ``column``."""
    if dialect == "sqlite":
        parts = []
        for p in path:
            if p.startswith("["):
                parts.append(f"'{p}'")
            elif p.startswith("="):
                parts.append(f"'.\"' || {p[1:]} || '\"'")
            else:
                parts.append(f"'.{p}'")
        return f"json_extract({column}, '$' || {' || '.join(parts)})" if parts else column
    keys = []
    for p in path:
        if p.startswith("["):
            keys.append(p[1:-1])
        elif p.startswith("="):
            keys.append(f"' || ({p[1:]}) || '")
        else:
            keys.append(p)
    return f"(({column})::jsonb #>> ('{{' || '{','.join(keys)}' || '}}')::text[])"


def _card(dialect: str, expr: str) -> str:
    """SQL for card ``expr`` (an integer 0–51, text in PostgreSQL's JSON) as ``Td``."""
    c = f"CAST({expr} AS INTEGER)"  # (no %: the PostgreSQL driver formats with it)
    return f"(substr('23456789TJQKA', {c} / 4 + 1, 1) || substr('cdhs', {c} - {c} / 4 * 4 + 1, 1))"


def _board(dialect: str, i: int) -> str:
    return _card(dialect, _json(dialect, "h.record", "board", f"[{i}]"))


def _types() -> str:
    return ", ".join(f"'{t}'" for t in GAME_TYPES)


def hand_sql(dialect: str, operator: bool) -> str:
    """The ``SELECT`` of the ``hand`` view (``operator``: with the seed)."""
    cards = [_board(dialect, i) for i in range(5)]
    seed = f", {_json(dialect, 'h.sealed', 'seed')} AS seed" if operator else ""
    return (
        "SELECT h.hand_id, h.game_id, h.hand_key, h.game_type, h.ended AS timestamp,"
        f" CAST({_json(dialect, 'h.record', 'dealer')} AS INTEGER) AS dealer,"
        f" {cards[0]} || ' ' || {cards[1]} || ' ' || {cards[2]} AS flop,"
        f" {cards[3]} AS turn, {cards[4]} AS river,"
        f" {_json(dialect, 'h.record', 'showdown')} AS showdown,"
        + ", ".join(f"{card} AS card{i + 1}" for i, card in enumerate(cards))
        + f", {_json(dialect, 'h.record', 'commitment')} AS commitment{seed}"
        f" FROM finished_hand h WHERE h.game_type IN ({_types()})"
    )


def player_sql(dialect: str, operator: bool) -> str:
    """The ``SELECT`` of the ``player`` view (``operator``: every hole card)."""
    seat = "CAST(s.seat AS TEXT)" if dialect != "sqlite" else "s.seat"
    streets = ", ".join(
        f"{_json(dialect, 'h.record', 'rounds', '=' + seat, street)} AS {street}"
        for street in STREETS
    )
    if operator:
        hole = [_card(dialect, _json(dialect, "s.private", "hole", f"[{i}]")) for i in (0, 1)]
    else:
        hole = [
            _card(dialect, _json(dialect, "h.record", "shown", "=" + seat, f"[{i}]"))
            for i in (0, 1)
        ]
    return (
        "SELECT s.hand_id, s.account, s.name, s.seat AS position, "
        + streets
        + f", s.money_in, s.winnings, {hole[0]} AS card1, {hole[1]} AS card2"
        " FROM hand_seat s JOIN finished_hand h ON h.hand_id = s.hand_id"
        f" WHERE h.game_type IN ({_types()})"
    )


def hand_views(dialect: str) -> Sequence[tuple[str, str]]:
    """``(view name, SELECT)`` of every view, for ``dialect`` (``sqlite`` or
    ``postgresql``)."""
    return (
        ("hand", hand_sql(dialect, operator=False)),
        ("player", player_sql(dialect, operator=False)),
        ("hand_operator", hand_sql(dialect, operator=True)),
        ("player_operator", player_sql(dialect, operator=True)),
    )


@implementer(IHandViews)
class HoldemViews:
    """The statistics views of Hold'em hands, as a game factory offers them."""

    def hand_views(self, dialect: str) -> Sequence[tuple[str, str]]:
        """The ``hand`` and ``player`` views and their operator's twins."""
        return hand_views(dialect)
