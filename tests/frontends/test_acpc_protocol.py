"""The ACPC front end on StringTransport and task.Clock: the worked examples of the
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
