"""The poker seed's statistics tables as SQL views over the stored hands
(``games/poker/sql_views.py``), on SQLite and PostgreSQL: ``hand`` and ``player`` with
the public columns only, their operator's twins with every hole card and the seed."""

from __future__ import annotations

import pytest
import pytest_twisted

from games.poker import cards, history
from games.poker.server import TexasHoldemFactory
from tests.games.poker.test_server import Game


def played(showdown: bool):
    """A stored-ready hand of two players: checked down to a showdown, or folded."""
    g = Game(seats=2, showdown_pause=0, first_button=0)
    g.sit(0, "ann")
    g.sit(1, "bob")
    want = ("post", "check", "call", "show") if showdown else ("post", "fold", "muck")
    for _ in range(60):
        if g.game.table.turn is None:
            break
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in want))
    return g.game.hands[-1]


async def store_hand(store, rec, key: str) -> int:
    kept = history.summary(rec)
    return await store.record_hand(
        "g1",
        [{"name": p.name, "seat": p.seat, "private": p.private, "money_in": p.money_in,
          "winnings": p.winnings} for p in kept.players],
        game_type="texas-holdem",
        record=kept.record,
        summary=kept.summary,
        sealed=kept.sealed,
        hand_key=key,
    )  # fmt: skip


def text(values) -> list[str]:
    return [cards.format(c) for c in values]


@pytest_twisted.ensureDeferred
async def test_hand_and_player_views_over_the_stored_hands(store):
    names = await store.install_views(TexasHoldemFactory().hand_views)
    assert names == ["hand", "player", "hand_operator", "player_operator"]
    shown, folded = played(showdown=True), played(showdown=False)
    first = await store_hand(store, shown, "g1-1")
    second = await store_hand(store, folded, "g1-2")

    def query(sql, *args):
        return store._run(lambda cur: cur.all(sql, *args), write=False)

    rows = await query(
        "SELECT hand_id, dealer, flop, turn, river, showdown, card1, card2, card3, card4,"
        " card5, commitment FROM hand ORDER BY hand_id"
    )
    assert [r[0] for r in rows] == [first, second]
    board = text(shown.board)
    assert list(rows[0][1:5]) == [shown.button, " ".join(board[:3]), board[3], board[4]]
    assert rows[0][5] and list(rows[0][6:11]) == board
    assert rows[0][11] == shown.get("commitment")
    assert rows[1][2] is None and rows[1][6] is None  # folded before the flop: no board
    # the public player view: the hole cards of a hand shown down only
    players = await query(
        "SELECT hand_id, account, position, preflop, flop, turn, river, money_in, winnings,"
        " card1, card2 FROM player ORDER BY hand_id, position"
    )
    holes = dict(shown.hole)
    assert [(p[0], p[1], p[2]) for p in players] == [
        (first, "ann", 0), (first, "bob", 1), (second, "ann", 0), (second, "bob", 1)
    ]  # fmt: skip
    for p in players[:2]:
        assert [p[9], p[10]] == text(holes[p[2]])
        assert "post" in (p[3] or "") or p[3] in ("call", "check", "call check", "check")
        assert p[6]  # everyone acted on the river
    assert all(p[9] is None and p[10] is None for p in players[2:])  # never shown
    assert any("fold" in (p[3] or "") for p in players[2:])
    # the operator's views: every hole card, and the seed
    hidden = await query(
        "SELECT position, card1, card2 FROM player_operator WHERE hand_id = ? ORDER BY position",
        second,
    )
    assert [[h[1], h[2]] for h in hidden] == [text(dict(folded.hole)[s]) for s in (0, 1)]
    seeds = await query("SELECT seed FROM hand_operator ORDER BY hand_id")
    assert [s[0] for s in seeds] == [shown.get("seed"), folded.get("seed")]
    public = await query("SELECT * FROM hand")
    assert folded.get("seed") not in repr(public)
    # again at the next start: the same views, made anew
    assert await store.install_views(TexasHoldemFactory().hand_views) == names


@pytest_twisted.ensureDeferred
async def test_a_view_never_replaces_a_table_nor_takes_a_bad_name(store):
    with pytest.raises(ValueError):
        await store.install_views(lambda d: [("ledger", "SELECT 1 AS x")])
    with pytest.raises(ValueError):
        await store.install_views(lambda d: [("x; DROP TABLE ledger", "SELECT 1 AS x")])
    rows = await store._run(lambda cur: cur.all("SELECT COUNT(*) FROM ledger"), write=False)
    assert rows[0][0] >= 0
