"""Poker decision policies: pure functions of an observation and a seeded RNG.

Each takes an :class:`~.observation.Observation` and a ``random.Random`` and returns an
action index (one of ``obs.legal``).  Outside betting decisions every policy posts its
blinds, mucks when asked to show or muck (winning hands are shown by the engine), and
discards nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .equity import equity, preflop_equity
from .observation import (
    BET,
    CALL,
    CHECK,
    DISCARD,
    FOLD,
    MUCK,
    POST_BLIND,
    RAISE,
    RIVER,
    SHOW,
    SIT_IN,
    Observation,
)

Policy = Callable[[Observation, random.Random], int]


def first_legal(obs: Observation, *prefs: int) -> int:
    """The first of ``prefs`` that is legal, else the first legal action."""
    for a in prefs:
        if a in obs.legal:
            return a
    if not obs.legal:
        raise ValueError("no legal action to choose from")
    return obs.legal[0]


def housekeeping(obs: Observation) -> int | None:
    """The answer to a non-betting decision, or ``None`` for a betting decision."""
    legal = obs.legal
    if not any(a in legal for a in (FOLD, CHECK, CALL, BET, RAISE)):
        return first_legal(obs, POST_BLIND, MUCK, SHOW, SIT_IN, DISCARD)
    return None


def caller(obs: Observation, rng: random.Random) -> int:
    """Check when free, else call; never raises, never folds."""
    h = housekeeping(obs)
    return h if h is not None else first_legal(obs, CHECK, CALL, FOLD)


def raiser(obs: Observation, rng: random.Random) -> int:
    """Raise or bet whenever allowed, else call, else check; never folds."""
    h = housekeeping(obs)
    return h if h is not None else first_legal(obs, RAISE, BET, CALL, CHECK, FOLD)


def random_policy(obs: Observation, rng: random.Random) -> int:
    """A uniformly random betting action, but never folding when checking is free."""
    h = housekeeping(obs)
    if h is not None:
        return h
    choices = [a for a in obs.legal if a in (FOLD, CHECK, CALL, BET, RAISE)]
    if CHECK in choices and FOLD in choices:
        choices.remove(FOLD)
    return rng.choice(choices)


def holdem(obs: Observation, rng: random.Random, samples: int = 150) -> int:
    """Fixed-limit hold'em by equity against the opponents' modelled ranges.

    * equity: Monte-Carlo pot share against each opponent's range width (see
      :class:`~.observation.Opponent`), plus a little noise so play is not predictable;
    * value: bet or raise when the equity beats the fair share ``1/players`` by a
      margin (smaller in late position, larger against more bets already in);
    * pot odds: call when the equity pays for the call (with some implied odds
      before the river), else fold;
    * bluffs: now and then bet a weak hand when checked to in position against
      opponents who fold sometimes (narrow ranges mark a folder).
    """
    h = housekeeping(obs)
    if h is not None:
        return h
    widths = [o.range_width for o in obs.opponents] or [1.0] * max(1, obs.players - 1)
    if obs.board or len(obs.hole) != 2:
        eq = equity(obs.hole, obs.board, widths, samples, rng)
    else:
        eq = preflop_equity(obs.hole, widths)
    eq += rng.gauss(0.0, 0.025)
    n = max(2, obs.players)
    fair = 1.0 / n
    margin = 0.06 + 0.04 * obs.raises - (0.03 if obs.in_position else 0.0)
    can_raise = RAISE in obs.legal or BET in obs.legal
    if can_raise and eq > fair + margin and obs.raises < obs.cap:
        return first_legal(obs, RAISE, BET)
    if obs.to_call <= 0:
        # checked to: an occasional bluff or semi-bluff in position, heads-up
        bluffable = obs.players == 2 and obs.in_position and BET in obs.legal
        folds = min(o.range_width for o in obs.opponents) < 0.9 if obs.opponents else False
        if bluffable and folds and eq > 0.25 and rng.random() < 0.15:
            return BET
        return first_legal(obs, CHECK, CALL)
    implied = 0.85 if obs.street < RIVER else 1.0
    if eq >= obs.pot_odds * implied:
        return first_legal(obs, CALL, CHECK)
    return first_legal(obs, FOLD, CHECK, CALL)


#: policy name → function (the names are the bot plugins' names)
POLICIES: dict[str, Policy] = {
    "caller": caller,
    "raiser": raiser,
    "poker-random": random_policy,
    "holdem": holdem,
}
