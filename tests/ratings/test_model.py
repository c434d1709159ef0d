"""The rating model against openskill's own worked examples (the Plackett-Luce tests of
openskill.js, which openskill.py follows; and openskill.py's README example, computed
without the dynamics factor ``tau``), and the hub's default ranking of results."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from hub.rating import (
    MU,
    SIGMA,
    Ladder,
    Placed,
    Player,
    RatedGame,
    Rating,
    default_ranks,
    rate,
)


def pairs(ratings: list[Rating]) -> list[tuple[float, float]]:
    return [(r.mu, r.sigma) for r in ratings]


def test_new_player_is_openskills_default() -> None:
    r = Rating()
    assert (r.mu, r.sigma, r.games) == (25.0, 25.0 / 3.0, 0) == (MU, SIGMA, 0)
    assert r.ordinal == 0.0
    assert r.interval() == (25.0 - 50.0 / 3.0, 25.0 + 50.0 / 3.0)


def test_two_newcomers_winner_first() -> None:
    # openskill.js "reverses rank": two default ratings, the winner first
    assert pairs(rate([Rating(), Rating()], [0, 1])) == [
        (27.635389493140497, 8.06590141354368),
        (22.364610506859503, 8.06590141354368),
    ]


def test_four_players_in_order() -> None:
    # openskill.js "runs a placket-luce model by default": four players, ranked as listed
    before = [Rating(29.182, 4.782), Rating(27.174, 4.922), Rating(16.672, 6.217), Rating()]
    after = rate(before, [0, 1, 2, 3])
    assert pairs(after) == [
        (30.210227447000438, 4.765617924939384),
        (27.644725221915632, 4.883479590134575),
        (17.4036218889969, 6.101259408259549),
        (19.21460876538932, 7.854669920480409),
    ]
    assert [r.games for r in after] == [1, 1, 1, 1]


def test_ties() -> None:
    # openskill.js "allows ties"
    after = rate([Rating(10, 8), Rating(5, 10), Rating(0, 12)], [1, 2, 2])
    assert pairs(after) == [
        (11.942996666741225, 7.926888197620324),
        (2.9381178546315034, 9.653804487570165),
        (-1.4024317012198733, 11.323641575516767),
    ]
    # "four-way-tie with newbies": nobody moves, everyone is a little less sure
    assert pairs(rate([Rating()] * 4, [1, 1, 1, 1])) == [(25.0, 8.263571791259416)] * 4


def test_ranks_out_of_order() -> None:
    # openskill.js "fixes orders of ties"
    before = [Rating(15), Rating(20), Rating(25), Rating(30)]
    assert pairs(rate(before, [2, 4, 2, 1])) == [
        (15.340043358359136, 8.213141619804967),
        (18.007678675484204, 8.189033933813437),
        (24.25801928251219, 8.166918055585525),
        (32.39425868364447, 8.247687230833794),
    ]


def test_readme_example_of_openskill_py_without_tau() -> None:
    # openskill.py's README: team [a1, a2] beats [b1, b2]; its numbers are without tau
    model = PlackettLuce(tau=0.0)
    r = model.rating
    teams = [[r(), r(32.444, 5.123)], [r(43.381, 2.421), r(25.188, 6.211)]]
    [[x1, x2], [y1, y2]] = model.rate(teams)
    assert [(p.mu, p.sigma) for p in (x1, x2, y1, y2)] == [
        (28.669648436582808, 8.071520788025197),
        (33.83086971107981, 5.062772998705765),
        (43.071274808241974, 2.4166900452721256),
        (23.149503312339064, 6.1378606973362135),
    ]


def test_rate_needs_two_players() -> None:
    with pytest.raises(ValueError):
        rate([Rating()], [0])
    with pytest.raises(ValueError):
        rate([Rating(), Rating()], [0])


def test_ladder_applies_in_order_and_ranks_by_ordinal() -> None:
    a, b, c = Player("bot", "a"), Player("account", "Bea"), Player("bot", "c")
    pool = ("nmmorris", "")
    ladder = Ladder()
    for n in range(3):
        ladder.add(RatedGame(f"g{n}", pool, float(n), (Placed(0, a, 0), Placed(1, b, 1))))
    ladder.add(RatedGame("g3", pool, 3.0, (Placed(0, c, 0), Placed(1, b, 0))))
    table = ladder.standings(pool)
    assert [p.name for p, _ in table] == ["a", "c", "Bea"]
    assert [r.games for _, r in table] == [3, 1, 4]
    first = rate([Rating(), Rating()], [0, 1])
    assert ladder.pools[pool][a.key].mu > first[0].mu


@pytest.mark.parametrize(
    ("result", "seats", "ranks"),
    [
        ({"winners": [1], "scores": [0.0, 1.0]}, 2, [1, 0]),
        ({"winners": [], "scores": [0.5, 0.5]}, 2, [0, 0]),
        ({"winners": [0, 2], "scores": [30, 12, 30, 7]}, 4, [0, 2, 0, 3]),
        ({"winners": [], "scores": ["120.00", "0.00", "80.50"]}, 3, [0, 2, 1]),
        ({"winners": [2], "scores": None}, 3, [1, 1, 0]),
        ({"winners": [], "scores": []}, 2, None),
        ({"winners": [], "scores": ["x", 1]}, 2, None),
        (None, 2, None),
    ],
)
def test_default_ranks(result, seats, ranks) -> None:
    assert default_ranks(result, seats) == ranks
