"""Where a game went (``hub.cluster.moves``), on ``task.Clock``: a door's splice asks
when the owner let its game go; the answer comes from the view at once, from a row of
the new hub (or this hub's own lobby) later, from the hand-over's hook, or ``None``
(the game ended, was aborted, or stayed) — bounded in time and in number."""

from __future__ import annotations

from twisted.internet.task import Clock

from hub.cluster.moves import Moves, Seen


class View:
    def __init__(self) -> None:
        self.games: dict[str, Seen] = {}

    def find(self, game_id: str) -> Seen | None:
        return self.games.get(game_id)

    def all(self) -> list[Seen]:
        return list(self.games.values())


def route(hub_id: str, frontend: str) -> tuple[str, int, bool] | None:
    return None if hub_id == "mute" else (f"{hub_id}.example", 1357, False)


def moves(clock: Clock, view: View, **options: float) -> Moves:
    return Moves(clock, view.find, view.all, route, options)


def seen(hub: str, state: str = "running", game: str = "g1", players=("ann",)) -> Seen:
    return Seen(game, hub, state, frozenset(players))


def test_a_game_the_view_lists_on_another_hub_is_followed_at_once() -> None:
    view = View()
    view.games["g1"] = seen("d")
    d = moves(Clock(), view).game("g1", "a", "mnm")
    assert d.result == ("d", ("d.example", 1357, False))


def test_a_wait_ends_with_the_row_of_the_new_hub_or_the_hook() -> None:
    clock, view = Clock(), View()
    view.games["g1"] = seen("a")  # still listed on its old hub
    m = moves(clock, view)
    first, second = m.game("g1", "a", "mnm"), m.game("g2", "a", "mnm")
    assert not first.called and not second.called and m.waiting == 2
    m.seen(seen("a"))  # a change on the old hub: no answer
    m.seen(seen("d"))  # its row on hub D
    assert first.result == ("d", ("d.example", 1357, False))
    m.moved("g2", "e")  # the hand-over's hook
    assert second.result == ("e", ("e.example", 1357, False))
    assert m.waiting == 0 and not clock.getDelayedCalls()  # every timer cancelled
    assert m.followed == 2


def test_an_ended_game_is_not_followed_and_a_wait_is_bounded() -> None:
    clock, view = Clock(), View()
    view.games["over"] = seen("a", "over", game="over")
    m = moves(clock, view, cluster_follow_seconds=5.0, cluster_follow_max=2)
    assert m.game("over", "a", "mnm").result is None
    aborted = m.game("g1", "a", "mnm")
    m.seen(seen("a", "aborted"))
    assert aborted.called and aborted.result is None
    slow, other = m.game("g3", "a", "mnm"), m.game("g4", "a", "mnm")
    beyond = m.game("g5", "a", "mnm")  # more than cluster_follow_max waiting
    assert beyond.called and beyond.result is None
    clock.advance(5)
    assert slow.result is None and other.result is None and m.waiting == 0
    assert m.lost == 5 and m.followed == 0


def test_a_domino_player_is_followed_to_the_game_it_is_seated_in() -> None:
    clock, view = Clock(), View()
    m = moves(clock, view)
    d = m.player("bea", "a", "domino")
    m.seen(seen("d", game="k1", players=("ann",)))  # not bea's
    assert not d.called
    m.seen(seen("d", game="k2", players=("bea", "cid")))
    assert d.result == ("d", ("d.example", 1357, False))
    view.games["k2"] = seen("d", game="k2", players=("bea",))
    assert m.player("bea", "a", "domino").result == ("d", ("d.example", 1357, False))


def test_a_new_hub_without_that_front_end_is_no_place_to_go() -> None:
    view = View()
    view.games["g1"] = seen("mute")
    assert moves(Clock(), view).game("g1", "a", "mnm").result is None


def test_stopping_ends_every_wait() -> None:
    clock, view = Clock(), View()
    m = moves(clock, view)
    d = m.game("g1", "a", "mnm")
    m.stop()
    assert d.result is None and not clock.getDelayedCalls()


def test_a_game_handed_here_is_found_here_though_the_old_hubs_row_is_still_in_the_view():
    """Issue 31: the game was resumed on this hub (the door) before the old owner closed
    its splice, and the old hub's row has not left this hub's view yet: the splice is
    passed on here at once, not after the wait's deadline."""
    from types import SimpleNamespace

    from hub.cluster.remote import RemoteGame
    from hub.cluster.service import Cluster
    from tests.support import FakeHub

    hub = FakeHub(reactor=Clock())
    hub.journaling = None  # type: ignore[attr-defined]
    ignore = lambda hook: None  # noqa: E731 (the store's hooks: not used here)
    hub.store = SimpleNamespace(hub_id="door", on_beat=ignore, on_fenced=ignore)
    game = hub.lobby.create_game("hello", seats=["open", "open"])
    cluster = Cluster(hub)
    row = {"id": game.id, "hub": "old", "rev": 1, "type": "hello", "name": "x", "state": "running"}
    cluster.directory = SimpleNamespace(get=lambda game_id: RemoteGame.of(row))  # type: ignore[assignment]
    cluster.members["door"] = {"endpoints": {"mnm": {"host": "127.0.0.1", "port": 1357}}}
    got: list[object] = []
    cluster.follow(game.id, None, "old", "mnm").addCallback(got.append)
    assert got == [("door", ("127.0.0.1", 1357, False))]
