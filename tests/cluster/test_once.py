"""``hub.cluster.once.OneAtATime``: one run at a time, quiet when the store is away or
the run is cancelled (the hub stopping), loud on anything else."""

from __future__ import annotations

from twisted.internet import defer
from twisted.logger import globalLogPublisher

from hub.cluster.once import OneAtATime
from hub.store.errors import StoreUnavailable


def logged_failures(run):
    seen = []

    def observer(event):
        if event.get("log_failure") is not None:
            seen.append(event["log_failure"].value)

    globalLogPublisher.addObserver(observer)
    try:
        run()
    finally:
        globalLogPublisher.removeObserver(observer)
    return seen


def test_a_call_while_running_runs_once_more_after_it():
    pending = []
    runs = []

    async def work():
        runs.append(1)
        d = defer.Deferred()
        pending.append(d)
        await d

    once = OneAtATime(work, "failed")
    first = once()
    assert once() is first and once() is first and len(runs) == 1
    pending.pop().callback(None)
    assert len(runs) == 2  # once more, not twice
    pending.pop().callback(None)
    assert len(runs) == 2 and not pending


def test_a_cancelled_run_and_an_unavailable_store_are_quiet_other_failures_are_not():
    for error, loud in (
        (defer.CancelledError(), False),
        (StoreUnavailable("down"), False),
        (ValueError("bug"), True),
    ):

        async def work(error=error):
            raise error

        seen = logged_failures(lambda work=work: OneAtATime(work, "failed")())
        assert (seen == [error]) if loud else (seen == []), (error, seen)
