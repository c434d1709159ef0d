"""What a replayed game's bots are given when it goes live (``Funnel.last``): the turn
that still waits, never one its seat answered in the journal or one whose hand ended
(the resumed bots of a soak's chip table played such stale turns, refused)."""

from __future__ import annotations

from twisted.internet.task import Clock

from hub.model import HAND_OVER, TURN, GameEvent
from hub.play.gameclock import GameClock
from hub.play.journal import Funnel


def replaying() -> Funnel:
    funnel = Funnel("g1", GameClock(Clock()), None)
    funnel.replaying = True
    return funnel


def test_a_turn_answered_in_the_journal_is_not_given_again() -> None:
    funnel = replaying()
    funnel.seen(GameEvent(TURN, {"seat": 0, "legal": []}))
    with funnel.input("act", 0, {"name": "call"}):
        pass
    assert TURN not in funnel.last


def test_the_turn_of_another_seat_still_waits() -> None:
    funnel = replaying()
    funnel.seen(GameEvent(TURN, {"seat": 1, "legal": []}))
    with funnel.input("act", 0, {"name": "call"}):
        pass
    assert funnel.last[TURN].data["seat"] == 1


def test_a_turn_announced_by_the_action_itself_waits() -> None:
    funnel = replaying()
    funnel.seen(GameEvent(TURN, {"seat": 0, "legal": []}))
    with funnel.input("act", 0, {"name": "call"}):
        funnel.seen(GameEvent(TURN, {"seat": 0, "legal": [{"name": "check"}]}))
    assert funnel.last[TURN].data["legal"] == [{"name": "check"}]


def test_the_end_of_a_hand_ends_its_turns() -> None:
    funnel = replaying()
    funnel.seen(GameEvent(TURN, {"seat": 0, "legal": []}))
    funnel.seen(GameEvent(HAND_OVER, {"handid": "h1"}))
    assert TURN not in funnel.last and HAND_OVER in funnel.last
