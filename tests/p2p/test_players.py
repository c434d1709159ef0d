"""Who plays a peer's seat (:mod:`games.poker.p2p.players`): a person at the terminal,
a bot plugin in a worker thread with a deadline; and the history a peer writes."""

from __future__ import annotations

import io
import json

from twisted.internet import task

from games.poker.p2p.players import BotPlayer, History, Printer, TerminalPlayer

VIEW = {"myseat": 0, "players": [{"seat": 0, "holecards": [51, 47], "bankroll": "990"}],
        "boardcards": [], "pot": "15"}  # fmt: skip
LEGAL = [{"name": "fold"}, {"name": "call", "amount": "5"}, {"name": "raise", "amount": "20"}]


def test_a_person_types_an_action_or_its_first_letter():
    clock, lines, answers = task.Clock(), [], []
    person = TerminalPlayer(clock, lines.append)
    person.ask(VIEW, LEGAL, 30, answers.append)
    assert lines[-1].startswith("your turn: cards As Ks, board -, pot 15, stack 990; fold, call 5")
    person.line("check")  # not offered
    assert answers == [] and lines[-1].startswith("not now: 'check'")
    person.line("r")
    assert answers == [{"name": "raise"}]
    person.line("c")  # nothing is asked any more
    assert answers == [{"name": "raise"}]


def test_a_person_who_does_not_answer_checks_or_folds_before_the_limit():
    clock, lines, answers = task.Clock(), [], []
    person = TerminalPlayer(clock, lines.append)
    person.ask(VIEW, LEGAL, 10, answers.append)
    clock.advance(8.4)
    assert answers == []
    clock.advance(0.2)
    assert answers == [{"name": "fold"}] and lines[-1] == "time is up: fold"
    person.ask(VIEW, [{"name": "check"}, {"name": "bet", "amount": "10"}], 10, answers.append)
    person.cancel()
    clock.advance(20)
    assert answers == [{"name": "fold"}]  # a cancelled question is never answered


class SyncPool:
    """A thread pool that runs the work at once (the reactor's threads, in a test)."""

    def callInThreadWithCallback(self, on_result, f, *args, **kwargs):  # noqa: N802
        try:
            result = f(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            on_result(False, e)
        else:
            on_result(True, result)


class Reactor(task.Clock):
    def getThreadPool(self):  # noqa: N802
        return SyncPool()

    def callFromThread(self, f, *args, **kwargs):  # noqa: N802
        f(*args, **kwargs)


class Bot:
    def __init__(self, action=None, fails=False):
        self.action, self.fails, self.deadlines = action, fails, []

    def choose(self, view, legal, deadline):
        self.deadlines.append(deadline)
        if self.fails:
            raise RuntimeError("the bot broke")
        return self.action


def test_a_bot_answers_within_half_the_time_and_falls_back_when_it_fails():
    reactor, answers = Reactor(), []
    bot = Bot({"name": "call"})
    BotPlayer(reactor, bot, deadline=5).ask(VIEW, LEGAL, 4, answers.append)
    assert answers == [{"name": "call"}] and bot.deadlines == [2.0]
    broken = BotPlayer(reactor, Bot(fails=True), deadline=5)
    broken.ask(VIEW, [{"name": "check"}, {"name": "bet"}], 4, answers.append)
    assert answers[-1] == {"name": "check"}
    reactor.advance(10)  # the deadline's fallback does not answer twice
    assert len(answers) == 2


def test_the_printer_and_the_history():
    lines: list[str] = []
    printer = Printer(lines.append)
    printer.note("started", {"names": ["ann", "ben"], "stakes": "10/20", "stack": "1000"})
    printer.note("cheater", {"seat": 1, "name": "ben", "why": "sent different messages"})
    printer.note("over", {"reason": "3 hands played", "hands": 3, "stacks": {"0": "1010"}})
    assert lines == [
        "table agreed: ann, ben; stakes 10/20, stacks 1000",
        "ben CHEATED: sent different messages",
        "table over (3 hands played) after 3 hands: ann 1010",
    ]
    out = io.StringIO()
    history = History(out)
    history.note("hole", {"cards": [1, 2]})  # a player's own cards are not written
    history.note("result", {"hand": 1, "stacks": {"0": "1010"}})
    assert [json.loads(line)["note"] for line in out.getvalue().splitlines()] == ["result"]
