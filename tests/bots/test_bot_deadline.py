"""Bots never lose on time (issue 35): the hub gives an in-hub bot the decision's time
left less what answers cost on this machine, the bots stop searching by then, and a
bot that still does not answer is answered for before its time runs out.

Unit tests on a ``task.Clock``; then a bounded run of ``bench/morris_deadline.py``
(``morris`` against ``morris-random`` at 400 ms a move with the cores kept busy; all
100 games with ``GAMEHUB_SOAK=full``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from twisted.internet import defer, task

from bots.morris.search import OutOfTime, Searcher, position_from_pieces
from hub.model import TURN, GameEvent
from hub.play.botdriver import BotDriver, LoadMargin

ROOT = Path(__file__).resolve().parents[2]


class Game:
    """What a driver uses of a game: its state, view, legal actions and ``act``."""

    def __init__(self) -> None:
        self.state = "running"
        self.acted: list[dict] = []
        self.seats = [type("Seat", (), {"bot": "b"})()]
        self.id = "g"

    def view(self, seat):
        return {}

    def legal_actions(self, seat):
        return [{"move": "A0"}, {"move": "A1"}]

    def act(self, seat, action):
        self.acted.append(dict(action))


class Bot:
    """Records the time it was given; answers through the test's Deferreds."""

    def __init__(self) -> None:
        self.given: list[float] = []

    def choose(self, view, legal, deadline):
        self.given.append(deadline)
        return {"move": "A1"}


def turn(ms: int = 400) -> GameEvent:
    return GameEvent(
        TURN, {"seat": 0, "legal": [{"move": "A0"}, {"move": "A1"}], "timeleft_ms": ms}
    )


def test_the_bot_is_given_the_time_left_less_the_margin():
    clock, game, bot = task.Clock(), Game(), Bot()
    margin = LoadMargin()
    driver = BotDriver(game, 0, bot, lambda f, *a: defer.maybeDeferred(f, *a), clock, 60, margin)
    keep = margin.margin(0.4)
    driver.game_event(game, turn(400))
    clock.advance(0.1)  # the reactor came to it late: 0.1 s are gone
    assert bot.given == [pytest.approx(0.4 - 0.1 - keep)]
    assert margin.margin(0.4) == pytest.approx(0.15)  # that lateness is counted: 1.5 × 0.1
    assert game.acted == [{"move": "A1"}]
    assert not clock.getDelayedCalls()  # the guard went with the answer


def test_a_bot_that_does_not_answer_is_answered_for_before_its_time_is_up():
    clock, game, bot = task.Clock(), Game(), Bot()
    answers: list[defer.Deferred] = []

    def runner(function, *args):
        d = defer.Deferred()
        answers.append(d)
        return d  # the bot thinks, and thinks...

    driver = BotDriver(game, 0, bot, runner, clock, 60, LoadMargin())
    driver.game_event(game, turn(400))
    clock.advance(0)
    clock.advance(0.36)
    assert game.acted == []
    clock.advance(0.02)  # 30 ms before the end: the first legal action, for the bot
    assert game.acted == [{"move": "A0"}]
    answers[0].callback(({"move": "A1"}, 0.5))  # its answer, too late: dropped
    assert game.acted == [{"move": "A0"}]


def test_when_the_reactor_is_late_past_the_guard_the_answer_is_at_once():
    clock, game, bot = task.Clock(), Game(), Bot()
    driver = BotDriver(game, 0, bot, lambda f, *a: defer.Deferred(), clock, 60, LoadMargin())
    driver.game_event(game, turn(400))
    clock.advance(0.39)  # one long stall: the thinking call runs after it
    assert game.acted == [{"move": "A0"}] and bot.given == []


def test_the_margin_follows_what_answers_cost_and_has_a_cap():
    margin = LoadMargin(floor=0.02, share=0.1)
    assert margin.margin(0.4) == pytest.approx(0.06)
    for _ in range(20):
        margin.observe(0.1)
    assert margin.margin(0.4) == pytest.approx(0.15)
    for _ in range(100):
        margin.observe(5.0)
    assert margin.margin(0.4) == pytest.approx(0.24)  # at most 60% of the time
    assert len(margin._seen) == LoadMargin.KEPT


def test_the_search_stops_at_its_time_by_its_own_clock():
    now = [0.0]

    def clock():
        now[0] += 0.001  # every look at the clock: a millisecond of searching
        return now[0]

    searcher = Searcher(clock=clock)
    pos = position_from_pieces([["A"] * 9, ["A"] * 9], 0)  # nine stones each, in hand
    result = searcher.best(pos, 0.05)
    assert now[0] < 0.06  # it looked every 64 nodes and stopped in time
    assert result.turn is not None
    with pytest.raises(OutOfTime):
        searcher._deadline = 0.0
        searcher._nodes = searcher._mask  # the next node looks at the clock
        searcher._search(pos, 3, -1, 1, 0)


def test_morris_beats_random_at_400_ms_a_move_on_a_busy_machine_without_time_losses():
    full = os.environ.get("GAMEHUB_SOAK") == "full"
    games, boards = (100, 4) if full else (6, 2)
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "morris_deadline.py"),
            f"--games={games}",
            f"--boards={boards}",
            "--burners=2" if full else "--burners=1",
            "--most-seconds=900",
        ],
        capture_output=True,
        text=True,
        timeout=1200 if full else 300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    line = run.stdout.strip().splitlines()[-1]
    found = re.search(
        r"W (\d+) D (\d+) L (\d+).*lost on time: morris (\d+), morris-random (\d+)", line
    )
    assert found, line
    wins, draws, losses, late, random_late = map(int, found.groups())
    assert late == 0 and random_late == 0, line
    assert wins >= (95 if full else games - 1), line


def test_a_starved_monte_carlo_search_plays_its_fewest_rounds_within_the_hard_limit():
    import random

    from bots.kingdomino.policy import MonteCarlo
    from games.kingdomino import rules

    now = [0.0]

    def clock():
        now[0] += 0.02  # a loaded machine: every look at the clock, 20 ms later
        return now[0]

    state = rules.State(players=4, rng=random.Random(3))
    me = state.to_act
    search = MonteCarlo(random.Random(1), clock=clock)
    search.search(state, me, seconds=0.01, hard=10.0)
    counts = {n for _, n in search.last_stats.values()}
    assert counts == {search.min_rounds}  # past its budget, up to its fewest rounds
    now[0] = 0.0
    search.search(state, me, seconds=0.01, hard=0.01)
    assert {n for _, n in search.last_stats.values()} == {1}  # no time for more: one round
