"""Players who do not show (issue 35): an entrant who loses a game by forfeit is
withdrawn (``withdraw_forfeits``, true unless told, as lichess does) and never paired
again; two no-shows score nothing, not a draw; the standings show only the columns
the format has."""

from __future__ import annotations

import pytest

from hub.model import GameError
from hub.tournaments.model import BYE, DONE, FINISHED, Entry, Tournament

from .test_service import make, seated


def swiss(service, **extra):
    return service.create(
        {"type": "hello", "format": "swiss", "rounds": 3, "max_entrants": 4, **extra}
    )


def entrants(service, t):
    service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")
    service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")
    alice = service.register(t.id, "alice", "client", "mnm")
    bob = service.register(t.id, "bob", "client", "mnm")
    return alice, bob


def play(hub, service, t, alice, clock) -> None:
    """Every round: alice plays her game; whoever does not show loses it after the
    grace period."""
    for _ in range(10):
        if t.state == FINISHED:
            return
        number = t.round
        play_alice(hub, service, alice, clock)
        if t.round == number and t.state != FINISHED:
            clock.advance(31)


def play_alice(hub, service, alice, clock) -> None:
    """Alice takes her seat in each round's game as it comes and says hello (bob never
    shows)."""
    routed = []
    service.route("mnm", alice.key).addCallback(routed.append)
    clock.advance(0)
    if routed:
        game = hub.lobby.get(seated(hub, routed[0]).id)
        if game.legal_actions(routed[0].seat):  # (not when her opponent never came)
            game.act(routed[0].seat, {"hello": "hi"})
        clock.advance(0)


def test_a_no_show_is_withdrawn_and_never_paired_again():
    hub, service, clock = make(tournament_grace=30.0)
    t = swiss(service)
    alice, bob = entrants(service, t)
    clock.advance(0)
    play(hub, service, t, alice, clock)
    assert t.state == FINISHED
    assert t.entry(bob.id).withdrawn and not t.entry(alice.id).withdrawn
    rounds = [[g.entries for g in t.round_games(r)] for r in (1, 2, 3)]
    assert any(bob.id in e for e in rounds[0])  # paired in round 1 ...
    assert not any(bob.id in e for r in rounds[1:] for e in r)  # ... and never after
    listed = {s["entry"]: s for s in t.to_json()["standings"]}
    assert listed[bob.id]["withdrawn"] is True and listed[bob.id]["points"] == 0
    assert listed[alice.id]["withdrawn"] is False


def test_without_the_rule_a_no_show_is_paired_every_round():
    hub, service, clock = make(tournament_grace=30.0)
    t = swiss(service, withdraw_forfeits=False)
    alice, bob = entrants(service, t)
    clock.advance(0)
    play(hub, service, t, alice, clock)
    assert t.state == FINISHED and not t.entry(bob.id).withdrawn
    assert all(any(bob.id in g.entries for g in t.round_games(r)) for r in (1, 2, 3))


def test_two_no_shows_score_nothing_rather_than_a_draw():
    hub, service, clock = make(tournament_grace=30.0)
    t = service.create({"type": "hello", "format": "swiss", "rounds": 1, "max_entrants": 2})
    service.register(t.id, "carl", "client", "mnm")
    service.register(t.id, "dora", "client", "mnm")
    clock.advance(0)
    clock.advance(31)
    (game,) = t.round_games(1)
    assert game.state == DONE and game.points == (0.0, 0.0) and game.absent == (True, True)
    assert all(e.withdrawn for e in t.entries)


def test_a_withdrawn_entrants_round_robin_games_are_forfeits_not_played():
    t = Tournament("t1", "rr", "hello", "round-robin", {"withdraw_forfeits": True}, 0.0)
    t.entries = [Entry(f"e{i}", f"p{i}", "client", "mnm") for i in range(1, 5)]
    t.entries[3].withdrawn = True
    games = t.pair(2)
    gone = [g for g in games if "e4" in g.entries]
    assert len(gone) == 1 and gone[0].state == DONE and gone[0].game_id is None
    (seat,) = [i for i, e in enumerate(gone[0].entries) if e == "e4"]
    assert gone[0].points[seat] == 0.0 and gone[0].points[1 - seat] == 1.0
    # with an odd field a withdrawn entrant's bye goes to nobody
    t.entries = t.entries[:3]
    t.entries[2].withdrawn = True
    for number in (1, 2, 3):
        assert not [g for g in t.pair(number) if g.state == BYE and g.entries == ("e3",)]


def test_the_standings_show_the_columns_of_the_format():
    hub, service, clock = make()
    s = swiss(service).to_json()
    assert s["tiebreak"] == "buchholz" and s["columns"] == [
        "points", "tiebreak", "wins", "games", "byes"
    ]  # fmt: skip
    rr = service.create({"type": "hello", "format": "round-robin", "max_entrants": 4}).to_json()
    assert rr["tiebreak"] == "sonneborn-berger" and "byes" not in rr["columns"]
    sng = service.create({"type": "hello-sng", "format": "sit-and-go", "max_entrants": 3})
    data = sng.to_json()
    assert data["tiebreak"] is None and data["columns"] == ["points"]
    with pytest.raises(GameError):
        swiss(service, withdraw_forfeits="yes")


def test_who_is_withdrawn_survives_the_store():
    t = Tournament("t1", "s", "hello", "swiss", {"withdraw_forfeits": True}, 0.0)
    t.entries = [Entry("e1", "a", "client", "mnm"), Entry("e2", "b", "client", "mnm")]
    t.entries[1].withdrawn = True
    again = Tournament.from_record(t.to_record())
    assert [e.withdrawn for e in again.entries] == [False, True]
    assert again.to_record() == t.to_record() and "withdrawn" not in again.settings
