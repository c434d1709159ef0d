"""The game's seeded random source and its clock (journaled ticks, replay, pause)."""

from __future__ import annotations

import random

import pytest
from twisted.internet import error, task

from hub.play.gameclock import GameClock, ReplayError
from hub.play.seeded import SEED_BYTES, SeededRandom, new_seed


def draws(rng: random.Random) -> list[object]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [deck, rng.random(), rng.randint(1, 6), rng.randbytes(5), rng.getrandbits(70)]


def test_the_same_seed_gives_the_same_stream_and_another_seed_another():
    seed = bytes(range(32))
    assert draws(SeededRandom(seed)) == draws(SeededRandom(seed))
    assert draws(SeededRandom(seed)) != draws(SeededRandom(bytes(32)))
    assert len(new_seed()) == SEED_BYTES and new_seed() != new_seed()


def test_the_stream_is_uniform_enough_and_in_range():
    rng = SeededRandom(b"k" * 32)
    values = [rng.random() for _ in range(4000)]
    assert all(0.0 <= v < 1.0 for v in values)
    assert 0.45 < sum(values) / len(values) < 0.55
    faces = [rng.randrange(6) for _ in range(6000)]
    assert all(700 < faces.count(f) < 1300 for f in range(6))
    assert rng.getrandbits(0) == 0 and rng.randbytes(0) == b""
    assert rng.getrandbits(1) in (0, 1)


def test_a_seed_is_bytes_of_a_sane_length_and_the_state_is_never_restored():
    for bad in (b"", b"x" * 65, "text"):
        with pytest.raises(ValueError):
            SeededRandom(bad)  # type: ignore[arg-type]
    rng = SeededRandom(b"x" * 32)
    with pytest.raises(NotImplementedError):
        rng.getstate()
    rng.seed(5)  # ignored: the stream stays the seed's
    assert draws(rng) == draws(_skipped(SeededRandom(b"x" * 32), 0))


def _skipped(rng: SeededRandom, n: int) -> SeededRandom:
    for _ in range(n):
        rng.random()
    return rng


def test_timers_fire_in_game_time_and_tell_their_number_first():
    reactor = task.Clock()
    reactor.advance(100)
    fired: list[object] = []

    def tick(seq: int, fire: object) -> None:
        fired.append(("tick", seq))
        fire()  # type: ignore[operator]

    clock = GameClock(reactor, on_tick=tick)
    assert clock.seconds() == 100
    clock.callLater(5, fired.append, "a")
    b = clock.callLater(3, fired.append, "b")
    c = clock.callLater(4, fired.append, "c")
    c.cancel()
    assert not c.active()
    with pytest.raises(error.AlreadyCancelled):
        c.cancel()
    reactor.advance(3)
    assert fired == [("tick", 1), "b"] and not b.active()
    reactor.advance(2)
    assert fired[-2:] == [("tick", 0), "a"]
    assert clock.seconds() == 105


def test_pause_keeps_the_time_left_and_resume_gives_it_back():
    reactor = task.Clock()
    fired: list[str] = []
    clock = GameClock(reactor)
    timer = clock.callLater(10, fired.append, "timeout")
    reactor.advance(4)
    clock.pause()
    reactor.advance(1000)  # the game has no hub
    assert fired == [] and clock.seconds() == 4 and not reactor.getDelayedCalls()
    clock.resume()
    reactor.advance(5.9)
    assert fired == []
    reactor.advance(0.1)
    assert fired == ["timeout"] and not timer.active()


def test_reset_and_delay_move_a_timer():
    reactor = task.Clock()
    fired: list[str] = []
    clock = GameClock(reactor)
    timer = clock.callLater(10, fired.append, "x")
    reactor.advance(5)
    timer.reset(10)  # now due at 15
    reactor.advance(9)
    assert fired == []
    timer.delay(2)  # due at 17
    reactor.advance(2.5)
    assert fired == []
    reactor.advance(0.5)
    assert fired == ["x"]
    with pytest.raises(error.AlreadyCalled):
        timer.reset(1)


def test_replay_fires_the_journaled_ticks_without_waiting_then_goes_live():
    """A game that sets timers as it goes: live, its ticks are journaled; replayed from
    those ticks on a fresh clock it ends in the same state, then runs on live."""

    def game(clock: GameClock, log: list[object]) -> None:
        def step(n: int) -> None:
            log.append((n, clock.seconds()))
            if n < 3:
                clock.callLater(2 + n, step, n + 1)
                clock.callLater(100, log.append, "late")

        clock.callLater(1, step, 0)

    reactor = task.Clock()
    journal: list[tuple[int, float]] = []
    live_log: list[object] = []
    live: GameClock

    def tick(seq: int, fire: object) -> None:
        journal.append((seq, live.seconds()))
        fire()  # type: ignore[operator]

    live = GameClock(reactor, on_tick=tick, start=0)
    game(live, live_log)
    reactor.advance(1)
    reactor.advance(2)
    reactor.advance(1)  # step 1 set its timer at 3 s: due at 6, not yet
    assert [seq for seq, _ in journal] == [0, 1]

    later = task.Clock()
    later.advance(5000)
    replay_log: list[object] = []
    again = GameClock(later, start=0)
    again.replaying(0)
    game(again, replay_log)
    for seq, at in journal:
        again.set_time(at)
        again.fire(seq)
    assert replay_log == live_log and not later.getDelayedCalls()
    with pytest.raises(ReplayError):
        again.fire(99)
    again.set_time(4)  # the game stood here when its hub went
    again.go_live()
    later.advance(1.9)
    assert len(replay_log) == 2
    later.advance(0.1)  # step 2 at game time 6: the 2 s it had left
    assert replay_log[-1] == (2, 6.0)


def test_the_free_clock_reads_game_time_and_is_not_journaled():
    reactor = task.Clock()
    ticks: list[int] = []
    clock = GameClock(reactor, on_tick=lambda seq, fire: ticks.append(seq), start=50)
    fired: list[int] = []
    clock.free.callLater(1, fired.append, 1)
    reactor.advance(1)
    assert fired == [1] and ticks == [] and clock.free.seconds() == 51
    clock.callLater(1, fired.append, 2)
    clock.stop()
    reactor.advance(5)
    assert fired == [1] and clock.pending() == []
