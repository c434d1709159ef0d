"""A poker sit-and-go tournament (``hub.tournaments``, format ``sit-and-go``) of six
in-hub bots on a fake clock: one ``holdem-sng`` game plays until one player holds every
chip, chips are conserved at every hand and blind level, and the game's places are the
tournament's standings."""

from __future__ import annotations

from decimal import Decimal

from twisted.internet.task import Clock

from bots.poker.plugin import CallerFactory, HoldemFactory, RaiserFactory, RandomFactory
from games.poker.sitandgo import HoldemSitAndGoFactory
from hub.model import GAME_OVER, HAND_OVER
from hub.play.routes import Routes
from hub.tournaments.model import FINISHED
from hub.tournaments.service import TournamentService
from tests.support import DictRegistry, FakeHub

BOTS = ["raiser", "caller", "poker-random", "raiser", "poker-random", "holdem"]
CHIPS = 1000


class Books:
    """After every hand, level change, elimination and the end: stacks plus the pot
    hold every chip the players started with."""

    def __init__(self, game):
        self.game = game
        self.checks: list[str] = []

    def game_event(self, game, event):
        if event.kind in (HAND_OVER, "level", "eliminated", GAME_OVER):
            table = self.game.engine.table
            chips = sum((p.stack for p in table.players.values()), Decimal(0))
            assert chips + table.pot_total() == CHIPS * len(BOTS), (event.kind, event.data)
            self.checks.append(event.kind)


def test_six_bots_play_a_sit_and_go_tournament_to_its_places():
    clock = Clock()
    registry = DictRegistry(
        [HoldemSitAndGoFactory()],
        [HoldemFactory(), CallerFactory(), RaiserFactory(), RandomFactory()],
    )
    hub = FakeHub(registry, reactor=clock)
    hub.routes = Routes()
    service = TournamentService(hub)
    hub.tournaments = service
    t = service.create(
        {
            "type": "holdem-sng",
            "format": "sit-and-go",
            "max_entrants": len(BOTS),
            "bots": BOTS,
            "options": {"starting_chips": CHIPS, "hands_per_level": 4, "bot_seed": 7},
        }
    )
    clock.advance(0)  # full: it starts
    assert len(t.games) == 1 and len(t.games[0].entries) == len(BOTS)
    game = hub.lobby.get(t.games[0].game_id)
    books = Books(game)
    game.observe(books)
    for _ in range(400_000):  # bounded: a tournament needs far fewer ticks
        if t.state == FINISHED:
            break
        clock.advance(0.5)
    assert t.state == FINISHED, "the sit-and-go did not end"
    stacks = sorted(p.stack for p in game.engine.table.players.values())
    assert stacks == [0] * (len(BOTS) - 1) + [Decimal(CHIPS * len(BOTS))]
    assert books.checks.count("eliminated") == len(BOTS) - 1
    assert "level" in books.checks and books.checks[-1] == GAME_OVER
    # players busted in one hand with equal stacks share the better place (docs/
    # sitandgo.md): each place is one more than the players placed above it
    places = sorted(s.place for s in t.standings())
    assert places[:2] == [1, 2]
    assert all(p == 1 + sum(q < p for q in places) for p in places)
    winner = t.standings()[0]
    seat = t.games[0].entries.index(winner.entry)
    assert game.result()["winners"] == [seat]
