"""Payoffs cross-checked against pokerkit, an independent implementation.

Random hands (2–9 players, random stacks so that all-ins and side pots are common,
fixed limit, pot limit and no limit) are played on our engine with random legal
actions; the same deal and the same actions are replayed on pokerkit and the final
stacks must agree.  pokerkit caps fixed-limit betting at four bets/raises after the
blinds, ours at four bets with the big blind counting preflop (three raises), so our
actions are always legal there; its cap is lifted here so that an all-in raise for less
(which pokerkit counts and we do not) cannot make it refuse a raise we allow.

The default run plays ``GAMEHUB_ORACLE_HANDS`` hands (2,000); ``GAMEHUB_SOAK=full``
plays 12,000.  ``bench/poker_oracle.py`` prints the agreement count.
"""

from __future__ import annotations

import os
import random
from decimal import Decimal

import pytest

pokerkit = pytest.importorskip("pokerkit", reason="pokerkit (the `test` extra) is not installed")

from games.poker import cards as C  # noqa: E402
from games.poker import rules as R  # noqa: E402

from .pokerhelp import random_action  # noqa: E402

A = pokerkit.Automation
AUTOMATIONS = (
    A.ANTE_POSTING,
    A.HOLE_CARDS_SHOWING_OR_MUCKING,
    A.BET_COLLECTION,
    A.BLIND_OR_STRADDLE_POSTING,
    A.HAND_KILLING,
    A.CHIPS_PUSHING,
    A.CHIPS_PULLING,
)


class PotLimitHoldem(
    pokerkit.games.PotLimitPokerMixin,
    pokerkit.games.TexasHoldemMixin,
    pokerkit.games.UnfixedLimitHoldem,
):
    """Pot-limit Texas hold'em built from pokerkit's parts (it ships only PLO)."""


class UncappedFixedLimit(pokerkit.FixedLimitTexasHoldem):
    """pokerkit's fixed-limit hold'em without its raise cap (ours is enforced by us)."""

    max_completion_betting_or_raising_count = None


def hand_count() -> int:
    if os.environ.get("GAMEHUB_SOAK") == "full":
        return 12_000
    return int(os.environ.get("GAMEHUB_ORACLE_HANDS", "2000"))


def play_ours(rng: random.Random, limit: int, n: int, stacks: list[int]):
    """One hand on our engine; returns (table, deal order, actions, hand)."""
    cfg = R.TableConfig(limit=limit, small_bet=Decimal(2), seats=9, chip=Decimal(1))
    t = R.Table(cfg, rng=rng)
    for i in range(n):
        t.seat_player(i, f"p{i}", stacks[i])
        t.players[i].auto_post = True
    deck = list(range(52))
    rng.shuffle(deck)
    t.start_hand(deck, button=rng.randrange(n))
    h = t.hand
    order = list(h.seats)
    steps = 0
    h.legal_log = []  # type: ignore[attr-defined]
    while t.in_hand:
        turn = t.turn
        assert turn is not None, "the engine stuck"
        if turn.kind == R.BETTING:
            h.legal_log.append(  # type: ignore[attr-defined]
                (t.legal_actions(turn.seat), turn.seat in h.may_raise)
            )
        if turn.kind == R.SHOWING:
            t.muck(turn.seat) if rng.random() < 0.5 else t.show(turn.seat)
        else:
            random_action(t, rng)
        steps += 1
        assert steps < 500
    acts = [r for r in h.records if r.kind in ("fold", "check", "call", "bet", "raise")]
    return t, order, acts, h


def replay_pokerkit(limit: int, order, stacks, acts, h):
    """The same hand on pokerkit; returns final stacks by our seat."""
    start = [stacks[s] for s in order]
    n = len(order)
    if limit == R.FIXED_LIMIT:
        st = UncappedFixedLimit.create_state(AUTOMATIONS, True, 0, (1, 2), 2, 4, start, n)
    elif limit == R.NO_LIMIT:
        st = pokerkit.NoLimitTexasHoldem.create_state(AUTOMATIONS, True, 0, (1, 2), 2, start, n)
    else:
        st = PotLimitHoldem(AUTOMATIONS, True, 0, (1, 2), 2)(start, n)
    index = {s: i for i, s in enumerate(order)}
    board = list(h.board)
    # pokerkit deals hole cards one player at a time
    holes = [C.format_many(h.hole[s], "") for s in order]
    hole_i = 0
    pending = list(acts)
    legal_log = list(h.legal_log)
    guard = 0
    while st.status:
        guard += 1
        assert guard < 1000, "pokerkit replay stuck"
        if st.can_deal_hole():
            st.deal_hole(holes[hole_i])
            hole_i += 1
        elif st.can_burn_card():
            st.burn_card("??")
        elif st.can_deal_board():
            k = 3 if not st.board_cards else 1
            cards, board = board[:k], board[k:]
            assert len(cards) == k, "pokerkit wants more board cards than we dealt"
            st.deal_board(C.format_many(cards, ""))
        elif st.actor_index is not None:
            if not pending or index[pending[0].seat] != st.actor_index:
                # pokerkit asks a player who cannot raise (nobody left to answer) and owes
                # nothing; we skip that player: the same as a check
                assert st.checking_or_calling_amount == 0, (
                    f"pokerkit waits for player {st.actor_index} to call; we did not ask"
                )
                st.check_or_call()
                continue
            rec = pending.pop(0)
            assert index[rec.seat] == st.actor_index, (rec, st.actor_index)
            check_legal(limit, st, *legal_log.pop(0))
            if rec.kind == "fold":
                st.fold()
            elif rec.kind in ("check", "call"):
                st.check_or_call()
            else:
                st.complete_bet_or_raise_to(int(rec.total))
        else:
            raise AssertionError("pokerkit: nothing to do but the hand is not over")
    assert not pending, f"we played actions pokerkit never asked for: {pending}"
    return {s: st.stacks[index[s]] for s in order}


def check_legal(limit: int, st, legal, reopened: bool) -> None:
    """Our legal actions at a decision agree with pokerkit's (amounts included).

    Two known differences, where we follow the usual rules and pokerkit does not: our
    fixed-limit cap counts the big blind preflop (pokerkit's cap is lifted here), and
    an all-in bet or raise smaller than the big blind (the minimum raise) does not
    reopen the betting for players who acted already (pokerkit measures a raise
    against the largest raise of the round so far, which is zero before the first).
    """
    ours = {a.index: a for a in legal}
    assert (R.FOLD in ours) == st.can_fold(), ("fold", legal)
    assert st.can_check_or_call()
    if R.CALL in ours:
        assert ours[R.CALL].amount == st.checking_or_calling_amount
    else:
        assert st.checking_or_calling_amount == 0
    wager = ours.get(R.BET) or ours.get(R.RAISE)
    theirs = st.can_complete_bet_or_raise_to()
    if limit == R.FIXED_LIMIT:
        # our cap is stricter preflop (pokerkit's is lifted here): only one direction
        if wager is not None:
            assert theirs, ("pokerkit refuses a raise we offer", legal)
            assert wager.amount == st.min_completion_betting_or_raising_to_amount
        return
    if wager is None and theirs:
        assert not reopened, ("pokerkit allows a raise we refuse", legal)
        return
    assert (wager is not None) == theirs, ("raise", legal)
    if wager is not None:
        assert wager.min == st.min_completion_betting_or_raising_to_amount, ("min", legal)
        assert wager.max == st.max_completion_betting_or_raising_to_amount, ("max", legal)


def one_hand(seed: int) -> tuple[bool, str, R.Hand]:
    """Play hand ``seed`` on both engines: (agree, description, our hand)."""
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    limit = rng.choice([R.FIXED_LIMIT, R.FIXED_LIMIT, R.NO_LIMIT, R.POT_LIMIT])
    stacks = [rng.choice([2, 3, 5, 8, 13, 21, 40, 100, 400]) for _ in range(n)]
    t, order, acts, h = play_ours(rng, limit, n, stacks)
    ours = {s: int(t.players[s].stack) for s in order}
    theirs = replay_pokerkit(limit, order, stacks, acts, h)
    ok = ours == theirs
    return ok, f"seed {seed} limit {limit} stacks {stacks}: ours {ours} pokerkit {theirs}", h


def run(first: int, count: int) -> tuple[int, list[str], int, int]:
    """Hands ``first`` … : (agreeing, disagreements, hands with side pots, split pots)."""
    agree, bad, side_pots, splits = 0, [], 0, 0
    for seed in range(first, first + count):
        ok, why, h = one_hand(seed)
        if ok:
            agree += 1
        else:
            bad.append(why)
        side_pots += sum(1 for p in h.pots if p.amount) > 1
        pots: dict[int, set[int]] = {}
        for seat, _amt, pot, _text in h.awards:
            pots.setdefault(pot, set()).add(seat)
        splits += any(len(v) > 1 for v in pots.values())
    return agree, bad, side_pots, splits


def _check(count: int) -> None:
    agree, bad, side_pots, splits = run(0, count)
    assert not bad, f"{len(bad)} of {count} hands disagree, e.g. {bad[:3]}"
    assert agree == count
    # the sample must contain the hard cases
    assert side_pots > count // 20 and splits > count // 200, (side_pots, splits)


def test_payoffs_agree_with_pokerkit_quick():
    _check(200)


@pytest.mark.slow
def test_payoffs_agree_with_pokerkit():
    _check(hand_count())
