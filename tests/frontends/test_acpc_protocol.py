"""The ACPC front end on StringTransport and a MemoryReactorClock: the worked examples of the
protocol document replayed line for line from both sides, then every bad reply."""

from __future__ import annotations

import pytest

from tests.frontends.acpc_support import Hub, Program, deck, lay_decks

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
LIMIT3 = "holdem.limit.3p"


def play(hub: Hub, programs: list[Program], script: list[tuple[int, str, str | None]]) -> None:
    """Replay ``script``: each step is (program, the state it must receive next,
    the action it answers or ``None``)."""
    pending: list[list[str]] = [[] for _ in programs]
    for step, (who, expected, action) in enumerate(script):
        hub.run()
        for i, program in enumerate(programs):
            pending[i].extend(program.states())
        assert pending[who], f"step {step}: program {who} got nothing, wanted {expected}"
        got = pending[who].pop(0)
        assert got == expected, f"step {step}: program {who}"
        if action is not None:
            programs[who].send(f"{got}:{action}")


def start(hub: Hub, game: str, players: int, **spec) -> tuple[object, list[Program]]:
    match = hub.match(game=game, players=[f"acpc:p{i}" for i in range(players)], **spec)
    programs = [hub.program(i) for i in range(players)]
    for program in programs:
        program.send("VERSION:2.0.0", end=b"\n")  # the example player's bare \n
    hub.run()
    return match, programs


# -- the worked examples ----------------------------------------------------------------

HEADS_UP_LIMIT = [
    (0, "MATCHSTATE:0:0::TdAs|", None),
    (1, "MATCHSTATE:1:0::|8hTc", "r"),
    (0, "MATCHSTATE:0:0:r:TdAs|", "r"),
    (1, "MATCHSTATE:1:0:r:|8hTc", None),
    (0, "MATCHSTATE:0:0:rr:TdAs|", None),
    (1, "MATCHSTATE:1:0:rr:|8hTc", "c"),
    (0, "MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h", "r"),
    (1, "MATCHSTATE:1:0:rrc/:|8hTc/2c8c3h", None),
    (0, "MATCHSTATE:0:0:rrc/r:TdAs|/2c8c3h", None),
    (1, "MATCHSTATE:1:0:rrc/r:|8hTc/2c8c3h", "c"),
    (0, "MATCHSTATE:0:0:rrc/rc/:TdAs|/2c8c3h/9c", "c"),
    (1, "MATCHSTATE:1:0:rrc/rc/:|8hTc/2c8c3h/9c", None),
    (0, "MATCHSTATE:0:0:rrc/rc/c:TdAs|/2c8c3h/9c", None),
    (1, "MATCHSTATE:1:0:rrc/rc/c:|8hTc/2c8c3h/9c", "r"),
    (0, "MATCHSTATE:0:0:rrc/rc/cr:TdAs|/2c8c3h/9c", "c"),
    (1, "MATCHSTATE:1:0:rrc/rc/cr:|8hTc/2c8c3h/9c", None),
    (0, "MATCHSTATE:0:0:rrc/rc/crc/:TdAs|/2c8c3h/9c/Kh", "c"),
    (1, "MATCHSTATE:1:0:rrc/rc/crc/:|8hTc/2c8c3h/9c/Kh", None),
    (0, "MATCHSTATE:0:0:rrc/rc/crc/c:TdAs|/2c8c3h/9c/Kh", None),
    (1, "MATCHSTATE:1:0:rrc/rc/crc/c:|8hTc/2c8c3h/9c/Kh", "r"),
    (0, "MATCHSTATE:0:0:rrc/rc/crc/cr:TdAs|/2c8c3h/9c/Kh", "c"),
    (1, "MATCHSTATE:1:0:rrc/rc/crc/cr:|8hTc/2c8c3h/9c/Kh", None),
    (0, "MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh", None),
    (1, "MATCHSTATE:1:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh", None),
    # hand 1: positions rotate; the first program is now the button (position 1)
    (0, "MATCHSTATE:1:1::|Qd7c", "r"),
    (1, "MATCHSTATE:0:1::5s5h|", None),
    (1, "MATCHSTATE:0:1:r:5s5h|", "f"),
    (0, "MATCHSTATE:1:1:r:|Qd7c", None),
    (0, "MATCHSTATE:1:1:rf:|Qd7c", None),
    (1, "MATCHSTATE:0:1:rf:5s5h|", None),
]


def test_heads_up_limit_example_from_both_sides(tmp_path, monkeypatch):
    lay_decks(
        monkeypatch,
        [
            deck("Td 8h As Tc", "Js 2c 8c 3h", "Jh 9c", "Jd Kh"),
            deck("5s Qd 5h 7c"),
        ],
    )
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=2)
    play(hub, programs, HEADS_UP_LIMIT)
    hub.run()
    assert match.over and match.reason == "2 hands played"
    log = match.log_text().splitlines()
    assert log[0].startswith("## ") and all(line.startswith("#") for line in log[:4])
    # 30 each preflop (big blind 10, raised to 20 and 30), 10 on the flop, 20 and 20
    assert log[4] == "STATE:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh:-80|80:p0|p1"
    # the big blind (p1, position 0 now) folds to the button's raise: it loses 10
    assert log[5] == "STATE:1:rf:5s5h|Qd7c:-10|10:p1|p0"
    assert log[-1] == "SCORE:-70|70:p0|p1"
    for program in programs:
        assert program.closed
        assert any("match over: 2 hands played" in c for c in program.comments())


HEADS_UP_NOLIMIT = [
    (0, "MATCHSTATE:0:0::9s8h|", None),
    (1, "MATCHSTATE:1:0::|9c6h", "c"),
    (0, "MATCHSTATE:0:0:c:9s8h|", "c"),
    (1, "MATCHSTATE:1:0:c:|9c6h", None),
    (0, "MATCHSTATE:0:0:cc/:9s8h|/8c8d5c", "r250"),
    (1, "MATCHSTATE:1:0:cc/:|9c6h/8c8d5c", None),
    (0, "MATCHSTATE:0:0:cc/r250:9s8h|/8c8d5c", None),
    (1, "MATCHSTATE:1:0:cc/r250:|9c6h/8c8d5c", "c"),
    (0, "MATCHSTATE:0:0:cc/r250c/:9s8h|/8c8d5c/6s", "r500"),
    (1, "MATCHSTATE:1:0:cc/r250c/:|9c6h/8c8d5c/6s", None),
    (0, "MATCHSTATE:0:0:cc/r250c/r500:9s8h|/8c8d5c/6s", None),
    (1, "MATCHSTATE:1:0:cc/r250c/r500:|9c6h/8c8d5c/6s", "c"),
    (0, "MATCHSTATE:0:0:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d", "r1250"),
    (1, "MATCHSTATE:1:0:cc/r250c/r500c/:|9c6h/8c8d5c/6s/2d", None),
    (0, "MATCHSTATE:0:0:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d", None),
    (1, "MATCHSTATE:1:0:cc/r250c/r500c/r1250:|9c6h/8c8d5c/6s/2d", "c"),
    (0, "MATCHSTATE:0:0:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d", None),
    (1, "MATCHSTATE:1:0:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d", None),
]


def test_heads_up_no_limit_example_from_both_sides(tmp_path, monkeypatch):
    lay_decks(monkeypatch, [deck("9s 9c 8h 6h", "Js 8c 8d 5c", "Jh 6s", "Jd 2d")])
    hub = Hub(tmp_path)
    match, programs = start(hub, NOLIMIT, 2, hands=1)
    play(hub, programs, HEADS_UP_NOLIMIT)
    hub.run()
    assert match.over
    line = match.log_text().splitlines()[4]
    # raise to 1250 is the total put in this hand: both lose or win 1250
    assert line == "STATE:0:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d:1250|-1250:p0|p1"


THREE_PLAYER_LIMIT = [
    (0, "MATCHSTATE:0:0::AhKh||", None),
    (1, "MATCHSTATE:1:0::|QcQd|", None),
    (2, "MATCHSTATE:2:0::||7s2c", "f"),
    (0, "MATCHSTATE:0:0:f:AhKh||", "r"),
    (1, "MATCHSTATE:1:0:f:|QcQd|", None),
    (2, "MATCHSTATE:2:0:f:||7s2c", None),
    (1, "MATCHSTATE:1:0:fr:|QcQd|", "c"),
    (0, "MATCHSTATE:0:0:fr:AhKh||", None),
    (2, "MATCHSTATE:2:0:fr:||7s2c", None),
    (0, "MATCHSTATE:0:0:frc/:AhKh||/Ks5d2h", "r"),
    (1, "MATCHSTATE:1:0:frc/:|QcQd|/Ks5d2h", None),
    (2, "MATCHSTATE:2:0:frc/:||7s2c/Ks5d2h", None),
    (1, "MATCHSTATE:1:0:frc/r:|QcQd|/Ks5d2h", "f"),
    (0, "MATCHSTATE:0:0:frc/r:AhKh||/Ks5d2h", None),
    (2, "MATCHSTATE:2:0:frc/r:||7s2c/Ks5d2h", None),
    (0, "MATCHSTATE:0:0:frc/rf:AhKh||/Ks5d2h", None),
    (1, "MATCHSTATE:1:0:frc/rf:|QcQd|/Ks5d2h", None),
    (2, "MATCHSTATE:2:0:frc/rf:||7s2c/Ks5d2h", None),
]


def test_three_player_limit_example_from_every_side(tmp_path, monkeypatch):
    # dealt by position, one card at a time: AhQc7s, then KhQd2c; burn, flop
    lay_decks(monkeypatch, [deck("Ah Qc 7s Kh Qd 2c", "Js Ks 5d 2h")])
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT3, 3, hands=1)
    play(hub, programs, THREE_PLAYER_LIMIT)
    hub.run()
    line = match.log_text().splitlines()[4]
    # small blind 5 + raise to 20 + 10 on the flop: p0 wins the pot of 5+20+20+0
    assert line == "STATE:0:frc/rf:AhKh|QcQd|7s2c/Ks5d2h:20|-20|0:p0|p1|p2"


# -- bad replies ------------------------------------------------------------------------


def to_act(match) -> tuple[int, str]:
    """The program that must answer now and the state it answers."""
    for player in match.programs:
        if player.view is not None and player.view.prompt is not None:
            return player.index, player.view.prompt
    raise AssertionError("nobody is asked")


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "line",
    [
        "hello",
        "MATCHSTATE:0:0",
        "MATCHSTATE:9:0::TdAs|:c",
        "VERSION:2.0.0",
    ],
)
def test_a_line_that_does_not_parse_is_ignored_with_a_warning_in_both_modes(tmp_path, line, strict):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=1, strict=strict)
    who, prompt = to_act(match)
    programs[who].lines()
    programs[who].send(line)
    out = programs[who].lines()
    assert len(out) == 1 and out[0].startswith("# warning:"), out
    assert not match.over and to_act(match) == (who, prompt)
    programs[who].send(f"{prompt}:c")  # the same prompt is still answered
    hub.run()
    assert to_act(match)[1] != prompt


@pytest.mark.parametrize("strict", [False, True])
def test_out_of_turn_and_wrong_state_replies_are_ignored_in_both_modes(tmp_path, strict):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=1, strict=strict)
    who, prompt = to_act(match)
    other = 1 - who
    state = programs[other].states()[-1]
    programs[other].send(f"{state}:c")  # not its turn
    assert "not this player's turn" in programs[other].lines()[0]
    programs[who].lines()
    programs[who].send(prompt.replace("MATCHSTATE:", "MATCHSTATE:9") + ":c")  # another state
    assert "answers another state" in programs[who].lines()[0]
    assert not match.over and to_act(match) == (who, prompt)


def test_invalid_actions_are_played_as_the_dealer_plays_them(tmp_path, monkeypatch):
    lay_decks(monkeypatch, [deck("Td 8h As Tc", "Js 2c 8c 3h", "Jh 9c", "Jd Kh")])
    hub = Hub(tmp_path)
    match, (p0, p1) = start(hub, LIMIT, 2, hands=1)
    hub.run()
    p1.send("MATCHSTATE:1:0::|8hTc:r")
    hub.run()
    p0.send("MATCHSTATE:0:0:r:TdAs|:r")
    hub.run()
    p1.send("MATCHSTATE:1:0:rr:|8hTc:r")  # the third bet
    hub.run()
    p0.send("MATCHSTATE:0:0:rrr:TdAs|:r")  # a fourth bet: the cap; played as a call
    hub.run()
    out = p0.lines()
    assert any(line.startswith("# warning: invalid action") for line in out)
    assert out[-1] == "MATCHSTATE:0:0:rrrc/:TdAs|/2c8c3h"
    p0.send("MATCHSTATE:0:0:rrrc/:TdAs|/2c8c3h:f")  # folding when a check is free: a call
    hub.run()
    assert p1.states()[-1] == "MATCHSTATE:1:0:rrrc/c:|8hTc/2c8c3h"
    assert not match.over


def test_a_no_limit_raise_out_of_range_moves_to_the_nearest_size(tmp_path):
    hub = Hub(tmp_path)
    match, programs = start(hub, NOLIMIT, 2, hands=1)
    who, prompt = to_act(match)  # the button, 50 in, facing the big blind of 100
    programs[who].send(f"{prompt}:r150")  # less than a full raise: to 200
    hub.run()
    other = 1 - who
    assert programs[other].states()[-1].split(":")[3] == "r200"
    who2, prompt2 = to_act(match)
    programs[who2].send(f"{prompt2}:r999999")  # more than the stack: all-in, 20000
    hub.run()
    assert programs[who].states()[-1].split(":")[3] == "r200r20000"
    assert any("moved to" in c for c in programs[who2].comments())


@pytest.mark.parametrize("reply", ["r", "f"])
def test_strict_ends_the_match_at_the_first_invalid_action(tmp_path, reply):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=3, strict=True)
    who, prompt = to_act(match)
    programs[who].send(f"{prompt}:c")  # the button calls: the big blind may check
    hub.run()
    who, prompt = to_act(match)
    for _ in range(3 if reply == "r" else 0):  # reach the cap
        programs[who].send(f"{prompt}:r")
        hub.run()
        who, prompt = to_act(match)
    programs[who].send(f"{prompt}:{reply}")
    hub.run()
    assert match.over and "strict" in match.reason
    for program in programs:  # both are told, both connections close
        assert any("match over" in c for c in program.comments())
        assert program.closed
    # cut short: as the reference dealer, no SCORE (docs/acpc.md, acpc_cut_short)
    assert match.failed and not match.log_text().splitlines()[-1].startswith("SCORE:")


@pytest.mark.parametrize("strict", [False, True])
def test_a_late_reply_ends_the_match(tmp_path, strict):
    hub = Hub(tmp_path, acpc_action_seconds=5.0)
    match, programs = start(hub, LIMIT, 2, hands=10, strict=strict)
    who, prompt = to_act(match)
    hub.clock.advance(4.9)
    assert not match.over
    hub.clock.advance(0.2)
    assert match.over and "did not answer in time" in match.reason
    programs[who].send(f"{prompt}:c")  # too late: nothing happens
    for program in programs:
        assert any("match over" in c for c in program.comments())
        assert program.closed
    assert hub.lobby.get(match.games[0]).state == "over"
    # nothing of the match is left running: only the lobby's own timers of a finished game
    assert all("Lobby." in repr(c) for c in hub.clock.getDelayedCalls())


def test_the_average_time_per_hand_over_the_match_is_a_limit(tmp_path):
    hub = Hub(tmp_path, acpc_action_seconds=100.0, acpc_average_seconds=1.0)
    match, programs = start(hub, LIMIT, 2, hands=2)  # 2 seconds for the match
    who, prompt = to_act(match)
    hub.clock.advance(1.5)
    programs[who].send(f"{prompt}:c")
    hub.run()
    assert not match.over
    again, _ = to_act(match)
    hub.clock.advance(0.6)  # the same program: 2.1 s of its 2; the other: 0.6 s of its 2
    assert match.over == (again == who)
    hub.clock.advance(5)
    assert match.over and "did not answer in time" in match.reason


def test_a_program_that_disconnects_ends_the_match_and_the_other_is_told(tmp_path):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=10)
    programs[0].drop()
    hub.run()
    assert match.over and "p0 left the match" == match.reason
    assert any("match over: p0 left" in c for c in programs[1].comments())
    assert programs[1].closed


def test_a_silent_program_is_dropped_and_its_seat_waits_for_another(tmp_path):
    hub = Hub(tmp_path)
    match = hub.match(game=LIMIT, players=["acpc:a", "acpc:b"], hands=1)
    silent = hub.program(0)
    hub.clock.advance(10.5)
    assert silent.closed and any("no VERSION" in c for c in silent.comments())
    assert not match.over and match.connection(0) is None
    again, other = hub.program(0), hub.program(1)
    again.send("VERSION:2.0.0")
    other.send("VERSION:2.0.0")
    hub.run()
    assert match.started


def test_a_second_connection_to_a_taken_seat_is_refused(tmp_path):
    hub = Hub(tmp_path)
    hub.match(game=LIMIT, players=["acpc:a", "acpc:b"], hands=1)
    hub.program(0)
    assert hub.program(0).proto is None


def test_another_major_version_is_warned_and_plays_on(tmp_path):
    hub = Hub(tmp_path)
    match = hub.match(game=LIMIT, players=["acpc:a", "acpc:b"], hands=1)
    a, b = hub.program(0), hub.program(1)
    a.send("VERSION:3.1.0")
    b.send("VERSION:2.0.0")
    hub.run()
    assert any("speaks 2.0.0, not 3.1.0" in c for c in a.comments())
    assert match.started and not match.over


def test_an_overlong_line_is_dropped_as_it_streams_and_the_connection_stays(tmp_path):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=1)
    who, prompt = to_act(match)
    programs[who].lines()
    for _ in range(100):
        programs[who].send(b"x" * 10000)
    assert programs[who].proto._framer.buffered <= 1026
    programs[who].send(b"\r\n")
    assert programs[who].lines() == ["# warning: line longer than 1024 characters ignored"]
    programs[who].send(f"{prompt}:c")
    hub.run()
    assert to_act(match)[1] != prompt


def test_a_flood_of_ignored_lines_drops_the_program(tmp_path):
    hub = Hub(tmp_path, acpc_max_ignored=5)
    match, programs = start(hub, LIMIT, 2, hands=1)
    for _ in range(10):
        programs[0].send("nonsense")
    hub.run()
    assert programs[0].closed and match.over
    assert any("match over" in c for c in programs[1].comments())


def test_every_server_line_that_is_not_a_state_is_a_comment(tmp_path):
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=2)
    for _ in range(40):
        if match.over:
            break
        who, prompt = to_act(match)
        programs[who].send(f"{prompt}:c")
        programs[who].send("junk")
        hub.run()
    assert match.over
    for program in programs:
        program.lines()
        for line in program.seen:
            assert line.startswith(("MATCHSTATE:", "#")), line


# -- duplicate matches, seeds, privacy ----------------------------------------------------


def call_down(hub: Hub, match, programs: list[Program], steps: int = 400) -> None:
    """Every program calls or checks until the match is over (bounded)."""
    for _ in range(steps):
        if match.over:
            return
        who, prompt = to_act(match)
        programs[who].send(f"{prompt}:c")
        hub.run()
    raise AssertionError("the match did not end")


def test_a_duplicate_match_plays_each_deal_again_with_the_seats_swapped(tmp_path):
    hub = Hub(tmp_path)
    seed = "5e" * 32
    match, programs = start(hub, LIMIT, 2, hands=3, duplicate=True, seed=seed)
    call_down(hub, match, programs)
    assert match.reason == "6 hands played" and len(match.games) == 2
    states = [line for line in match.log_text().splitlines() if line.startswith("STATE:")]
    assert [int(line.split(":")[1]) for line in states] == list(range(6))
    for first, again in zip(states[:3], states[3:], strict=True):
        a, b = first.split(":"), again.split(":")
        assert a[2:4] == b[2:4]  # the same betting and the same cards at each position
        assert b[4] == a[4]  # the same payoff at each position...
        assert b[5].split("|") == list(reversed(a[5].split("|")))  # ...to the other player
    # calling every hand down, each player has both sides of each deal: it evens out
    assert match.players[0].total == -match.players[1].total == 0
    assert match.to_json()["seed"] == seed


def test_every_hand_is_dealt_from_its_seed_and_verifiable(tmp_path):
    from games.poker import shuffle
    from games.poker.acpc import card_text

    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=3)
    assert "seed" not in match.to_json()  # secret while the match runs
    call_down(hub, match, programs)
    seed = match.to_json()["seed"]
    game = hub.lobby.get(match.games[0])
    for line in match.log_text().splitlines():
        if not line.startswith("STATE:"):
            continue
        number = int(line.split(":")[1]) + 1
        hand_seed = shuffle.hand_seed(seed, number)
        record = game.engine.hand_record(f"{game.id}-{number}")
        assert record["extra"] and dict(record["extra"])["seed"] == hand_seed.hex()
        deck = shuffle.deck_from_seed(hand_seed)
        # dealt one card at a time by position: position 0 gets deck[0] and deck[2]
        holes = line.split(":")[3].split("/")[0].split("|")
        assert holes == [card_text([deck[0], deck[2]]), card_text([deck[1], deck[3]])]


def test_a_program_sees_no_other_hole_cards_before_they_are_shown(tmp_path, monkeypatch):
    lay_decks(
        monkeypatch,
        [deck("Td 8h As Tc", "Js 2c 8c 3h", "Jh 9c", "Jd Kh"), deck("5s Qd 5h 7c")],
    )
    hub = Hub(tmp_path)
    match, programs = start(hub, LIMIT, 2, hands=2)
    play(hub, programs, HEADS_UP_LIMIT)
    hub.run()
    seen0 = [line for line in programs[0].seen if line.startswith("MATCHSTATE")]
    seen1 = [line for line in programs[1].seen if line.startswith("MATCHSTATE")]
    # the other's cards only in the final state of the hand that reached a showdown
    assert [line for line in seen0 if "8hTc" in line] == [HEADS_UP_LIMIT[22][1]]
    assert [line for line in seen1 if "TdAs" in line] == [HEADS_UP_LIMIT[23][1]]
    # the hand that ended in a fold shows nobody's cards to the other
    assert not any("5s5h" in line for line in seen0)
    assert not any("Qd7c" in line for line in seen1)


def test_a_program_on_the_front_ends_port_takes_the_oldest_free_seat(tmp_path):
    from hub.frontends.acpc import make_factory

    hub = Hub(tmp_path, acpc_wait_seconds=30.0)
    factory = make_factory(hub)
    early = Program(factory)
    early.send("VERSION:2.0.0")  # no match yet: it waits
    hub.run()
    first = hub.match(game=LIMIT, players=["acpc:a", "bot:caller"], hands=1)
    second = hub.match(game=LIMIT, players=["acpc:b", "bot:caller"], hands=1)
    late = Program(factory)
    late.send("VERSION:2.0.0")
    hub.run()
    assert first.connection(0) is early.proto and second.connection(0) is late.proto
    assert first.started and second.started
    lonely = Program(factory)
    lonely.send("VERSION:2.0.0")
    hub.clock.advance(31)
    assert lonely.closed and any("no match had a seat" in c for c in lonely.comments())
    # none of the front end's timers is left for the programs that were seated
    assert not any("_no_seat" in repr(c) for c in hub.clock.getDelayedCalls())


def test_the_reactors_shutdown_ends_every_match(tmp_path):
    """The hub's matches end with the reactor (its ``before shutdown`` trigger): each
    program is told, and the trigger is registered once however often the matches are
    asked for."""
    from hub.frontends.acpc import http_resources, make_factory, matches_of

    hub = Hub(tmp_path)
    assert matches_of(hub) is hub.matches
    make_factory(hub)
    http_resources(hub)
    triggers = hub.clock.triggers["before"]["shutdown"]
    assert [call for call, _, _ in triggers] == [hub.matches.stop]
    match = hub.match(game=LIMIT, players=["acpc:a", "acpc:b"], hands=1)
    a = hub.program(0)
    a.send("VERSION:2.0.0")
    hub.run()
    for call, args, kwargs in triggers:
        call(*args, **kwargs)
    assert match.over and match.reason == "the hub is stopping"
    assert any("the hub is stopping" in c for c in a.comments())


def test_nagle_is_off_on_every_connection(tmp_path):
    """An action and the next state are a short line each: without TCP_NODELAY every
    exchange waits for the peer's delayed ACK (~40 ms)."""
    hub = Hub(tmp_path)
    hub.match(game=LIMIT, players=["acpc:a", "acpc:b"], hands=1)
    assert hub.program(0).transport.getTcpNoDelay() is True


def test_seats_listen_on_the_front_ends_own_interface_by_default():
    from hub.frontends.acpc.protocol import seat_endpoint

    assert seat_endpoint("tcp:18791:interface=127.0.0.1") == "tcp:0:interface=127.0.0.1"
    assert seat_endpoint("tcp:port=18791:interface=10.0.0.5") == "tcp:0:interface=10.0.0.5"
    assert seat_endpoint("tcp:18791") == "tcp:0"
    assert seat_endpoint("tcp6:18791:interface=\\:\\:1") == "tcp6:0:interface=\\:\\:1"
    ssl = "ssl:4443:privateKey=k.pem:certKey=c.pem:interface=127.0.0.1"
    assert seat_endpoint(ssl) == "ssl:0:privateKey=k.pem:certKey=c.pem:interface=127.0.0.1"
    for off in ("none", "", None, "unix:/tmp/acpc.sock"):
        assert seat_endpoint(off) == "tcp:0:interface=127.0.0.1"
