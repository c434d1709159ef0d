"""The King Domino engine: table, orientation, placement, scoring, turn order, leaving."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.kingdomino import rules
from games.kingdomino.rules import (
    DOMINOES,
    Chosen,
    Dealt,
    Finished,
    Half,
    Kingdom,
    Placed,
    Placement,
    Removed,
    RuleError,
    State,
)

DRAWS = [tuple(range(i, i + 4)) for i in range(1, 49, 4)]


def flood_score(cells: dict[tuple[int, int], tuple[str, int]]) -> int:
    """Independent scorer: plain BFS over a dict of cell → (terrain, crowns)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for start, (terrain, _) in cells.items():
        if start in seen or terrain == "c":
            continue
        stack = [start]
        seen.add(start)
        size = crowns = 0
        while stack:
            x, y = stack.pop()
            size += 1
            crowns += cells[(x, y)][1]
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n not in seen and n in cells and cells[n][0] == terrain:
                    seen.add(n)
                    stack.append(n)
        total += size * (1 + crowns)
    return total


def cells_of(kingdom: Kingdom) -> dict[tuple[int, int], tuple[str, int]]:
    return {c: (h.terrain, h.crowns) for c, h in kingdom.cells.items()}


# -- the table -------------------------------------------------------------------------


def test_table_has_48_dominoes_as_in_the_seed():
    assert sorted(DOMINOES) == list(range(1, 49))
    assert DOMINOES[1] == (Half("s"), Half("s"))
    assert DOMINOES[19] == (Half("s", 1), Half("f"))
    assert DOMINOES[36] == (Half("s"), Half("g", 1))
    assert DOMINOES[41] == (Half("s"), Half("g", 2))
    assert DOMINOES[46] == (Half("b"), Half("m", 2))
    assert DOMINOES[48] == (Half("s"), Half("m", 3))
    assert sum(a.crowns + b.crowns for a, b in DOMINOES.values()) == 39
    terrains = [h.terrain for pair in DOMINOES.values() for h in pair]
    assert {t: terrains.count(t) for t in "fgsbwm"} == {
        "s": 26,
        "f": 22,
        "w": 18,
        "g": 14,
        "b": 10,
        "m": 6,
    }


def test_deal_gives_12_sorted_draws_of_all_dominoes():
    draws = rules.deal(random.Random(7))
    assert len(draws) == 12
    assert all(len(d) == 4 and list(d) == sorted(d) for d in draws)
    assert sorted(n for d in draws for n in d) == list(range(1, 49))


# -- orientation (the seed's picture: a domino laid at x=4, y=4) ------------------------


@pytest.mark.parametrize(
    ("orientation", "second"), [(0, (5, 4)), (90, (4, 5)), (180, (3, 4)), (270, (4, 3))]
)
def test_orientation_puts_second_half(orientation, second):
    assert Placement(4, 4, orientation).cells() == ((4, 4), second)


def test_first_half_goes_on_the_named_cell():
    k = Kingdom()
    k.place(19, Placement(1, 0, 90))  # s1 on (1,0), f on (1,1)
    assert k.cells[(1, 0)] == Half("s", 1)
    assert k.cells[(1, 1)] == Half("f", 0)


# -- placement ---------------------------------------------------------------------------


def test_placement_must_touch_the_kingdom():
    k = Kingdom()
    with pytest.raises(RuleError, match="does not touch"):
        k.place(1, Placement(2, 0, 0))
    assert k.can_place(Placement(1, 0, 0))
    assert k.can_place(Placement(2, 0, 180))  # second half on (1,0) touches the castle
    assert not k.can_place(Placement(1, 1, 0))  # diagonal only


def test_placement_may_not_overlap():
    k = Kingdom()
    with pytest.raises(RuleError, match="occupied"):
        k.place(1, Placement(0, 0, 0))
    k.place(1, Placement(1, 0, 0))
    with pytest.raises(RuleError, match="occupied"):
        k.place(2, Placement(2, 1, 270))
    assert k.score() == 2


def test_placement_limits_and_bad_orientation():
    k = Kingdom()
    with pytest.raises(RuleError, match="orientation"):
        k.verify_place(Placement(1, 0, 45))
    # walk a line of dominoes to the edge
    x = 1
    while x + 1 <= rules.LIMIT:
        k.place(1, Placement(x, 0, 0))
        x += 2
    assert not k.can_place(Placement(rules.LIMIT, 0, 0))
    with pytest.raises(RuleError, match="outside"):
        k.verify_place(Placement(rules.LIMIT, 1, 0))


def test_no_terrain_matching_required():
    k = Kingdom()
    k.place(3, Placement(1, 0, 0))  # forest
    k.place(7, Placement(3, 0, 0))  # water next to forest: allowed
    assert k.score() == 4


def test_legal_placements_of_the_empty_kingdom():
    legal = Kingdom().legal_placements()
    # 4 cells around the castle; each as first half in 3 free directions + as second half
    assert len(legal) == 24
    assert Placement(1, 0, 0) in legal and Placement(2, 0, 180) in legal
    assert all(Kingdom().can_place(p) for p in legal)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_legal_placements_agree_with_can_place(seed):
    rng = random.Random(seed)
    k = Kingdom()
    for domino in rng.sample(range(1, 49), rng.randint(0, 12)):
        k.place(domino, rng.choice(k.legal_placements()))
    legal = set(k.legal_placements())
    xs = [x for x, _ in k.cells]
    ys = [y for _, y in k.cells]
    brute = {
        Placement(x, y, o)
        for x in range(min(xs) - 2, max(xs) + 3)
        for y in range(min(ys) - 2, max(ys) + 3)
        for o in rules.ORIENTATIONS
        if k.can_place(Placement(x, y, o))
    }
    assert legal == brute


# -- scoring ----------------------------------------------------------------------------


def test_scoring_example_regions_times_one_plus_crowns():
    k = Kingdom()
    k.place(19, Placement(1, 0, 0))  # s1 (1,0), f (2,0)
    k.place(1, Placement(1, 1, 0))  # s (1,1), s (2,1)
    # sand region: (1,0) (1,1) (2,1), one crown -> 3 * 2 = 6; forest 1 * 1
    assert k.score() == 7
    k.place(3, Placement(3, 0, 0))  # f (3,0) f (4,0) joins forest: 3 * 1
    assert k.score() == 9
    k.place(48, Placement(-1, 0, 180))  # s (-1,0), m3 (-2,0): separate sand, mine
    assert k.score() == 6 + 3 + 1 + 4


def test_castle_separates_nothing_and_scores_nothing():
    k = Kingdom()
    assert k.score() == 0
    k.place(1, Placement(-1, 0, 180))
    k.place(2, Placement(1, 0, 0))
    assert k.score() == 2 + 2  # two sand regions, not joined through the castle


def test_gain_matches_score_difference():
    rng = random.Random(3)
    for _ in range(200):
        k = Kingdom()
        for domino in rng.sample(range(1, 49), rng.randint(0, 12)):
            p = rng.choice(k.legal_placements())
            before = k.score()
            g = k.gain(domino, p)
            k.place(domino, p)
            assert k.score() - before == g


def test_scoring_agrees_with_flood_fill_on_thousands_of_kingdoms():
    rng = random.Random(2026)
    checked = 0
    for _ in range(3000):
        k = Kingdom()
        for domino in rng.sample(range(1, 49), rng.randint(1, 24)):
            k.place(domino, k.random_placement(rng))
        assert k.score() == flood_score(cells_of(k))
        checked += 1
    assert checked == 3000


def test_copy_is_independent():
    k = Kingdom()
    k.place(1, Placement(1, 0, 0))
    c = k.copy()
    c.place(2, Placement(3, 0, 0))
    assert k.score() == 2 and c.score() == 4
    assert (3, 0) not in k.cells


# -- turn order ------------------------------------------------------------------------


def test_first_round_picks_in_the_start_order_then_moves_by_domino_number():
    s = State(draws=DRAWS, order=[2, 0, 3, 1])
    assert s.current == (1, 2, 3, 4) and s.to_act == 2 and s.phase == "choose"
    assert s.choose(2, 4) == [Chosen(2, 4)]
    with pytest.raises(RuleError, match="already taken"):
        s.choose(0, 4)
    with pytest.raises(RuleError, match="not your turn"):
        s.choose(3, 1)
    s.choose(0, 2)
    s.choose(3, 1)
    records = s.choose(1, 3)
    assert records == [Chosen(1, 3), Dealt(2, (5, 6, 7, 8))]
    # lowest domino of the previous draw moves first: 1 (player 3), 2 (0), 3 (1), 4 (2)
    assert s.to_act == 3 and s.phase == "move"
    with pytest.raises(RuleError, match="must move"):
        s.choose(3, 5)
    assert s.pending_domino(3) == 1
    assert s.move(3, Placement(1, 0, 0)) == [Placed(3, 1, Placement(1, 0, 0))]
    assert s.to_act == 3 and s.phase == "choose"
    with pytest.raises(RuleError, match="must choose"):
        s.move(3, Placement(-1, 0, 180))
    s.choose(3, 8)
    assert s.to_act == 0 and s.phase == "move"


def test_choose_unknown_domino_changes_nothing():
    s = State(draws=DRAWS, order=[0, 1, 2, 3])
    before = s.public()
    with pytest.raises(RuleError, match="not in the current draw"):
        s.choose(0, 9)
    assert s.public() == before
    assert not s.can_choose(0, 9) and s.can_choose(0, 1)


def test_illegal_move_changes_nothing():
    s = State(draws=DRAWS, order=[0, 1, 2, 3])
    for p, d in zip([0, 1, 2, 3], [1, 2, 3, 4], strict=True):
        s.choose(p, d)
    before = s.public()
    with pytest.raises(RuleError):
        s.move(0, Placement(5, 5, 0))
    with pytest.raises(RuleError):
        s.move(0, Placement(0, 0, 0))
    assert s.public() == before


def step_random(s: State, rng: random.Random) -> None:
    """One random legal choice or move of the player to act."""
    p = s.to_act
    if s.phase == "choose":
        s.choose(p, rng.choice(s.legal_choices(p)))
    else:
        s.move(p, rng.choice(s.legal_moves(p)))


def play_random(s: State, rng: random.Random) -> None:
    while not s.over:
        step_random(s, rng)


def test_last_round_is_empty_and_has_no_choices():
    s = State(draws=DRAWS, order=[0, 1, 2, 3])
    play_random(s, random.Random(1))
    dealt = [r for r in s.history if isinstance(r, Dealt)]
    assert [d.round for d in dealt] == list(range(2, 14))
    assert dealt[-1].dominoes == ()
    last = s.history.index(dealt[-1])
    tail = s.history[last + 1 :]
    assert [type(r) for r in tail] == [Placed] * 4 + [Finished]
    assert [r.domino for r in tail[:4]] == [45, 46, 47, 48]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_random_playouts_reach_the_end(seed, players):
    rng = random.Random(seed)
    s = State(players=players, rng=rng)
    moves = 0
    while not s.over:
        p = s.to_act
        assert s.active[p]
        if rng.random() < 0.01:
            s.remove(rng.choice([q for q in range(players) if s.active[q]]))
            continue
        if s.phase == "choose":
            s.choose(p, rng.choice(s.legal_choices(p)))
        else:
            s.move(p, rng.choice(s.legal_moves(p)))
        moves += 1
        assert moves <= 96
    final = s.history[-1]
    assert isinstance(final, Finished)
    assert list(final.scores) == [flood_score(cells_of(k)) for k in s.kingdoms]
    assert sorted(final.ranking) == list(range(players))
    if all(s.active):
        assert all(len(k.cells) == 1 + 2 * 12 * 4 // players for k in s.kingdoms) or players < 4
        if players == 4:
            assert moves == 96


def test_removed_players_are_skipped_and_still_scored():
    s = State(draws=DRAWS, order=[0, 1, 2, 3])
    for p, d in zip([0, 1, 2, 3], [1, 2, 3, 4], strict=True):
        s.choose(p, d)
    s.move(0, Placement(1, 0, 0))
    s.choose(0, 5)
    assert s.to_act == 1
    assert s.remove(1) == [Removed(1)]
    assert s.to_act == 2 and s.phase == "move"  # 1's turn skipped, its domino 2 unplaced
    with pytest.raises(RuleError, match="already left"):
        s.remove(1)
    s.move(2, Placement(1, 0, 0))
    s.choose(2, 6)
    s.move(3, Placement(1, 0, 0))
    records = s.choose(3, 7)  # three picks end the round; domino 8 is discarded
    assert records[-1] == Dealt(3, (9, 10, 11, 12))
    assert s.previous == [(5, 0), (6, 2), (7, 3)]
    play_random(s, random.Random(5))
    final = s.history[-1]
    assert isinstance(final, Finished)
    assert final.scores[1] == 0 and 1 in final.ranking
    assert final.ranking[-1] == 1 or final.scores[final.ranking[-1]] == 0


def test_removing_everyone_ends_the_game():
    s = State(draws=DRAWS, order=[0, 1, 2, 3])
    s.choose(0, 1)
    assert s.remove(3) == [Removed(3)]
    assert s.remove(2) == [Removed(2)]
    # player 1 was the last to pick: the round ends with one pick, the next draw comes
    assert s.remove(1) == [Removed(1), Dealt(2, (5, 6, 7, 8))]
    assert s.to_act == 0 and s.phase == "move"
    records = s.remove(0)
    assert records[0] == Removed(0)
    assert isinstance(records[-1], Finished) and s.over
    with pytest.raises(RuleError, match="over"):
        s.choose(0, 5)


def test_ranking_ties_lower_player_first():
    s = State(draws=DRAWS, order=[3, 2, 1, 0])
    for p in (3, 2, 1):
        s.remove(p)
    assert s.scores() == [0, 0, 0, 0]
    assert s.ranking() == [0, 1, 2, 3]


def test_public_snapshot_round_trip_for_playouts():
    rng = random.Random(11)
    s = State(rng=rng)
    for _ in range(37):
        p = s.to_act
        if s.phase == "choose":
            s.choose(p, rng.choice(s.legal_choices(p)))
        else:
            s.move(p, rng.choice(s.legal_moves(p)))
    pub = s.public()
    d = State.from_public(pub, random.Random(1))
    assert d.public() == pub
    future = {n for draw in d.draws[d.round :] for n in draw}
    assert future.isdisjoint(pub["seen"])
    play_random(d, random.Random(2))
    assert d.over


def test_catch_up_follows_a_game_like_a_fresh_snapshot():
    """A state that follows a game view after view (only what changed is added) says
    what a state rebuilt from each view says, and refuses another game's view."""
    for seed in range(5):
        rng = random.Random(seed)
        s = State(rng=rng)
        followed = State.from_public(s.public(), random.Random(1))
        step = 0
        while not s.over:
            step_random(s, rng)
            step += 1
            if step % rng.choice([1, 2, 5]):
                continue  # a player sees the game only now and then
            pub = s.public()
            assert followed.catch_up(pub, random.Random(2))
            assert followed.public() == pub
            assert {n for draw in followed.draws[followed.round :] for n in draw}.isdisjoint(
                pub["seen"]
            )
        assert followed.catch_up(s.public(), random.Random(2))
        assert followed.public() == s.public() and followed.over
        other = State(rng=random.Random(99))
        other.choose(other.to_act, other.legal_choices(other.to_act)[0])
        assert not State.from_public(s.public(), rng).catch_up(other.public(), rng)


def test_best_placements_agree_with_gain():
    rng = random.Random(9)
    for _ in range(100):
        k = Kingdom()
        for domino in rng.sample(range(1, 49), rng.randint(0, 12)):
            k.place(domino, k.random_placement(rng))
        offered = rng.sample(range(1, 49), 4)
        table = k.best_placements(offered)
        legal = k.legal_placements()
        for d in offered:
            gains = {p: k.gain(d, p) for p in legal}
            best = max(gains.values())
            assert table[d][0] == best
            assert sorted(table[d][1], key=lambda p: p.as_list()) == sorted(
                (p for p, g in gains.items() if g == best), key=lambda p: p.as_list()
            )
