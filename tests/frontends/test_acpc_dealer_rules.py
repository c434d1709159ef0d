"""Points 1 to 7 of issue 33, each from both sides of the wire (what a program receives
and sends; what the hub's log, match and table say), with the reference dealer's rules
(the default) and with the hub's stricter choices (``strict`` and the settings of
docs/acpc.md's table)."""

from __future__ import annotations

import pytest

from games.poker import cards
from tests.frontends.acpc_support import Hub, Program, deck, lay_decks
from tests.frontends.test_acpc_protocol import LIMIT, LIMIT3, NOLIMIT, start, to_act

#: the hub's stricter choices, all at once
HUB_RULES = {
    "acpc_strict": True,
    "acpc_showdown": "muck",
    "acpc_payoffs": "chips",
    "acpc_cut_short": "score",
    "acpc_action_seconds": 60.0,
}
MODES = ["dealer", "hub"]


def make_hub(tmp_path, mode: str, **options) -> Hub:
    return Hub(tmp_path, **({**HUB_RULES, **options} if mode == "hub" else options))


def log_of(match) -> list[str]:
    return match.log_text().splitlines()


def states_of(match) -> list[str]:
    return [line for line in log_of(match) if line.startswith("STATE:")]


def game_of(hub: Hub, match):
    return hub.lobby.get(match.games[-1])


def answer_all(hub: Hub, match, programs: list[Program], action: str = "c", steps=200) -> None:
    """Every program answers ``action`` to every prompt until the match is over."""
    for _ in range(steps):
        hub.run()
        for program in programs:
            program.lines()  # kept in program.seen
        if match.over:
            return
        asked = [p for p in match.programs if p.view is not None and p.view.prompt is not None]
        if not asked:
            continue
        player = asked[0]
        programs[player.index].send(f"{player.view.prompt}:{action}")
    raise AssertionError("the match did not end")


def assert_failed_without_score(match) -> None:
    assert match.over and match.failed and match.to_json()["failed"] is True
    assert not any(line.startswith("SCORE:") for line in log_of(match))


def assert_failed_with_score(match) -> None:
    assert match.over and match.failed
    assert log_of(match)[-1].startswith("SCORE:")


# -- 1. the showdown: every hand that did not fold, to every program ---------------------


@pytest.mark.parametrize("mode", MODES)
def test_1_a_losing_hand_at_the_showdown_is_sent_to_every_program(tmp_path, monkeypatch, mode):
    # the program (position 0) holds two aces, the caller bot 7-2: it loses
    lay_decks(monkeypatch, [deck("As 7d Ah 2c", "3s Kh 9c 4d", "5s Jh", "6s Qc")])
    hub = make_hub(tmp_path, mode)
    match = hub.match(game=LIMIT, players=["acpc:p0", "bot:caller"], hands=1)
    program = hub.program(0)
    program.send("VERSION:2.0.0")
    answer_all(hub, match, [program])
    final = [s for s in program.seen if s.startswith("MATCHSTATE:0:0:")][-1]
    hand = game_of(hub, match).engine.hands[-1]
    if mode == "dealer":  # the program sees the bot's losing hand; the table showed it
        assert final == "MATCHSTATE:0:0:cc/cc/cc/cc:AsAh|7d2c/Kh9c4d/Jh/Qc"
        assert set(hand.shown) == {0, 1}
    else:  # the bot mucked it, as the hub lets anyone at a table
        assert final == "MATCHSTATE:0:0:cc/cc/cc/cc:AsAh|/Kh9c4d/Jh/Qc"
        assert set(hand.shown) == {0}
    # the log, as the dealer's, has every card either way
    assert states_of(match)[0].startswith("STATE:0:cc/cc/cc/cc:AsAh|7d2c/Kh9c4d/Jh/Qc:10|-10:")


# -- 2. an unknown action letter ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reply", ["x", "", "k7", "?"])
def test_2_an_unknown_action_plays_a_call(tmp_path, mode, reply):
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, LIMIT, 2, hands=2)
    who, prompt = to_act(match)  # the button, facing the big blind
    programs[who].lines()
    programs[who].send(f"{prompt}:{reply}" if reply else prompt)
    hub.run()
    if mode == "dealer":
        out = programs[who].lines()
        assert any(line.startswith("# warning: invalid action") for line in out), out
        assert programs[1 - who].states()[-1].split(":")[3] == "c"  # the other sees a call
        assert [r.kind for r in game_of(hub, match).engine.table.hand.records][-1] == "call"
        assert not match.over
    else:
        assert "strict" in match.reason and any("match over" in c for c in programs[who].comments())
        assert programs[who].closed and programs[1 - who].closed
        assert_failed_with_score(match)  # acpc_cut_short=score


# -- 3. a no-limit raise without a size ----------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_3_a_no_limit_raise_without_a_size_plays_a_call(tmp_path, mode):
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, NOLIMIT, 2, hands=1)
    who, prompt = to_act(match)
    programs[who].send(f"{prompt}:r")
    hub.run()
    if mode == "dealer":
        assert programs[1 - who].states()[-1].split(":")[3] == "c"  # a call, not r200
        assert any("needs its size" in c for c in programs[who].comments())
        assert not match.over
        answer_all(hub, match, programs)
        assert states_of(match)[0].split(":")[2].startswith("cc/")
    else:
        assert match.over and "strict" in match.reason
        assert programs[1 - who].closed


# -- 4. a limit raise with a size --------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_4_a_limit_raise_with_a_size_is_a_raise(tmp_path, mode):
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, LIMIT, 2, hands=1)
    who, prompt = to_act(match)
    programs[who].send(f"{prompt}:r123")
    hub.run()
    if mode == "dealer":
        assert programs[1 - who].states()[-1].split(":")[3] == "r"  # one bet of 10
        assert [r.kind for r in game_of(hub, match).engine.table.hand.records][-1] == "raise"
        assert not any("warning" in c for c in programs[who].comments())
        answer_all(hub, match, programs)
        assert states_of(match)[0].split(":")[2].startswith("rc/")
    else:
        assert match.over and "strict" in match.reason
        assert "'123' after the action" in match.reason


# -- 5. three players: odd chips split exactly ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_5_a_split_pot_pays_half_chips_in_the_log_and_score(tmp_path, monkeypatch, mode):
    # positions 1 and 2 play the board (a royal flush); position 0, the small blind, folds
    lay_decks(monkeypatch, [deck("2c 3d 4h 5c 6d 7h", "8s As Ks Qs", "9c Js", "9d Ts")])
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, LIMIT3, 3, hands=1)
    for _ in range(30):
        hub.run()
        programs[1].lines()
        if match.over:
            break
        who, prompt = to_act(match)
        betting = prompt.split(":")[3]
        programs[who].send(f"{prompt}:{'f' if betting == 'c' else 'c'}")  # the SB folds
    assert match.over and not match.failed
    line = states_of(match)[0]
    assert line.startswith("STATE:0:cfc/cc/cc/cc:2c5c|3d6d|4h7h/AsKsQs/Js/Ts:")
    final = [s for s in programs[1].seen if s.startswith("MATCHSTATE:1:0:cfc/cc/cc/cc:")][-1]
    assert final.endswith(":|3d6d|4h7h/AsKsQs/Js/Ts")  # the two hands that did not fold
    payoffs = line.split(":")[4]
    if mode == "dealer":  # the reference dealer: -5|2.5|2.5, and totals of 2.5
        assert payoffs == "-5|2.5|2.5"
        assert log_of(match)[-1] == "SCORE:-5|2.5|2.5:p0|p1|p2"
        assert [r["total"] for r in match.to_json()["results"]] == [-5, 2.5, 2.5]
    else:  # the table's whole chips: the odd chip to the first winner after the button
        assert sorted(payoffs.split("|")) == ["-5", "2", "3"]
        assert log_of(match)[-1].startswith("SCORE:-5|")
    # the table pays whole chips either way, and they add up
    deltas = game_of(hub, match).engine.hands[-1].deltas
    assert sum(d for _, d in deltas) == 0 and sorted(int(d) for _, d in deltas) == [-5, 2, 3]


# -- 6. the time limits ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_6_the_time_limits_are_the_dealers(tmp_path, mode):
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, LIMIT, 2, hands=1000)
    who, prompt = to_act(match)
    hub.clock.advance(59)
    assert not match.over
    hub.clock.advance(2)  # 61 s: the hub's 60 s per reply are over, the dealer's 600 not
    if mode == "hub":
        assert match.over and "did not answer in time" in match.reason
        assert programs[who].closed
        return
    assert not match.over
    programs[who].send(f"{prompt}:c")  # after 61 s: still taken
    hub.run()
    assert programs[1 - who].states()[-1].split(":")[3] == "c"
    who, prompt = to_act(match)
    hub.clock.advance(599.5)
    assert not match.over
    hub.clock.advance(1)  # 600.5 s for one reply
    assert match.over and "did not answer in time" in match.reason
    assert_failed_without_score(match)


def test_6_the_dealers_limits_per_hand_and_on_average(tmp_path):
    from hub.frontends.acpc.protocol import DEFAULTS

    assert DEFAULTS["acpc_action_seconds"] == DEFAULTS["acpc_hand_seconds"] == 600.0
    assert DEFAULTS["acpc_average_seconds"] == 7.0
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=10)  # 70 s of replies for the match
    who, prompt = to_act(match)
    hub.clock.advance(69)
    programs[who].send(f"{prompt}:r")
    hub.run()
    again, prompt = to_act(match)
    assert again != who
    programs[again].send(f"{prompt}:r")
    hub.run()
    hub.clock.advance(1.5)  # 70.5 s of the first program's 70
    assert match.over and "did not answer in time" in match.reason


# -- 7. a match cut short ---------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_7_a_match_cut_short_writes_no_score_and_fails(tmp_path, mode):
    hub = make_hub(tmp_path, mode)
    match, programs = start(hub, LIMIT, 2, hands=10)
    answer_all_once = to_act(match)
    programs[answer_all_once[0]].send(f"{answer_all_once[1]}:c")
    hub.run()
    programs[0].drop()
    hub.run()
    assert any("match over: p0 left" in c for c in programs[1].comments())
    assert programs[1].closed
    data = match.to_json()
    assert data["state"] == "over" and data["failed"] is True
    if mode == "dealer":
        assert_failed_without_score(match)
        assert log_of(match)[-1] == "# the match failed: no SCORE (as the reference dealer)"
    else:
        assert_failed_with_score(match)


def test_7_a_complete_match_has_its_score_and_has_not_failed(tmp_path):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=2)
    answer_all(hub, match, programs)
    assert match.reason == "2 hands played" and not match.failed
    assert log_of(match)[-1].startswith("SCORE:")


# -- 8. the dealer's deals ------------------------------------------------------------------


def test_a_duplicate_match_with_the_dealers_deals_deals_each_seed_twice(tmp_path):
    from games.poker.acpc_deals import nth_deal
    from games.poker.verify import verify_hand
    from tests.frontends.test_acpc_protocol import call_down

    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=3, duplicate=True, deals="dealer", seed=1)
    # the seed gives every card: shown once the match is over, never while it runs
    assert "seed" not in match.to_json() and match.to_json()["deals"] == "dealer"
    call_down(hub, match, programs)
    assert match.over and match.to_json()["seed"] == 1
    states = states_of(match)
    assert len(states) == 6 and not match.failed
    for number, line in enumerate(states):
        deal = nth_deal(1, 2, number % 3)  # each pass from the seed's first hand
        holes = line.split(":")[3].split("/")[0].split("|")
        assert holes == ["".join(cards.format(c) for c in h) for h in deal.hole], line
    assert states[0].split(":")[5] == "p0|p1" and states[3].split(":")[5] == "p1|p0"
    for game_id in match.games:  # every hand checks out against the dealer's deal
        game = hub.lobby.get(game_id)
        for rec in game.engine.hands:
            record = game.engine.hand_record(rec.hand_id)
            assert verify_hand(record).ok, verify_hand(record).reason
