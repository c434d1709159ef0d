"""The domino front end on StringTransport with task.Clock: lines, queueing, limits."""

from __future__ import annotations

import random

import pytest
from twisted.internet.task import Clock

from bots.kingdomino import GreedyBotFactory, RandomBotFactory
from games.kingdomino import rules
from games.kingdomino.server import KingDominoGameFactory
from hub.frontends.domino import codec, make_factory
from hub.frontends.domino.protocol import DominoFactory
from tests.support import DictRegistry, FakeHub, TCPStringTransport


class Client:
    def __init__(self, factory):
        self.proto = factory.buildProtocol(None)
        self.transport = TCPStringTransport()
        self.proto.makeConnection(self.transport)
        self.seen: list[str] = []
        self.sent: list[str] = []

    def send(self, data: bytes | str):
        if isinstance(data, str):
            self.sent.append(data)
            data = data.encode() + b"\n"
        self.proto.dataReceived(data)

    def lines(self) -> list[str]:
        """Lines written since the last call."""
        out = self.transport.value().decode("ascii").split("\n")
        assert out[-1] == ""  # every line ends with \n
        self.transport.clear()
        self.seen.extend(out[:-1])
        return out[:-1]

    def everything(self) -> list[str]:
        """Every line written so far."""
        self.lines()
        return list(self.seen)

    @property
    def closed(self):
        return self.transport.disconnecting

    def drop(self):
        self.transport.loseConnection()
        self.proto.connectionLost(None)


class Hub(FakeHub):
    """The hub with the kingdomino game and bots, and its domino factory."""

    def __init__(self, tmp_path, **options):
        registry = DictRegistry(
            games=[KingDominoGameFactory()], bots=[GreedyBotFactory(), RandomBotFactory()]
        )
        super().__init__(
            registry,
            reactor=Clock(),
            data=tmp_path,
            lobby={"rng": random.Random(1)},
            **options,
        )
        self.clock = self.reactor
        self.factory: DominoFactory = make_factory(self)

    def client(self, login=None) -> Client:
        c = Client(self.factory)
        if login:
            c.send(f"LOGIN {login}")
        return c

    def four(self):
        clients = [self.client(name) for name in ("ann", "bob", "cy", "dee")]
        return clients


@pytest.fixture
def hub(tmp_path):
    return Hub(tmp_path)


# -- codec ----------------------------------------------------------------------------


def test_framer_cuts_lines_and_strips_cr():
    f = codec.LineFramer(10)
    assert f.feed(b"AB\r\nC") == [codec.Line(b"AB")]
    assert f.feed(b"D\n\n") == [codec.Line(b"CD"), codec.Line(b"")]


def test_framer_limit_is_exact():
    f = codec.LineFramer(10)
    assert f.feed(b"x" * 10 + b"\n") == [codec.Line(b"x" * 10)]
    assert f.feed(b"x" * 10 + b"\r\n") == [codec.Line(b"x" * 10)]
    tokens = f.feed(b"x" * 11 + b"\nOK\n")
    assert isinstance(tokens[0], codec.Overlong) and tokens[1:] == [codec.Line(b"OK")]


def test_framer_discards_a_long_stream_with_a_bounded_buffer():
    f = codec.LineFramer(250)
    overlong = 0
    for _ in range(1000):
        for token in f.feed(b"y" * 997):
            assert isinstance(token, codec.Overlong)
            overlong += 1
        assert f.buffered <= 252
    assert overlong == 1
    assert f.feed(b"tail\nLOGIN a\n") == [codec.Line(b"LOGIN a")]


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        (b"LOGIN 123456", codec.Login("123456")),
        (b"LOGIN abc_X", codec.Login("abc_X")),
        (b"LOGIN", codec.Invalid("LOGIN takes one non-empty login without spaces")),
        (b"LOGIN a b", codec.Invalid("LOGIN takes one non-empty login without spaces")),
        (b"LOGIN ", codec.Invalid("LOGIN takes one non-empty login without spaces")),
        (b"CHOOSE 7", codec.Command("CHOOSE", ("7",))),
        (b"MOVE -1 0 180", codec.Command("MOVE", ("-1", "0", "180"))),
        (b"MOVE 1  0 0", codec.Invalid("not a command")),
        (b"choose 7", codec.Invalid("not a command")),
        (b"", codec.Invalid("not a command")),
        (b"\xff\xfe", codec.Invalid("not ASCII")),
        (b"CHOOSE\t7", codec.Invalid("control characters")),
    ],
)
def test_parse(line, parsed):
    assert codec.parse(line) == parsed


# -- connecting and logging in -------------------------------------------------------


def test_connect_then_login_ok(hub):
    c = hub.client()
    assert c.lines() == ["CONNECT"]
    c.send("LOGIN ann")
    assert c.lines() == ["OK"]
    c.send("LOGIN ann")
    assert c.lines() == ["ERROR"]  # already logged in


def test_login_before_reading_connect(hub):
    c = Client(hub.factory)
    c.send(b"LOGIN early\n")
    assert c.lines() == ["CONNECT", "OK"]


def test_duplicate_login_among_waiting_players(hub):
    a = hub.client("ann")
    b = hub.client("ann")
    assert a.lines() == ["CONNECT", "OK"]
    assert b.lines() == ["CONNECT", "ERROR"]
    b.send("LOGIN ann2")
    assert b.lines() == ["OK"]


def test_commands_before_a_game_are_errors(hub):
    c = hub.client("ann")
    c.lines()
    c.send("CHOOSE 1")
    c.send("JUMP")
    assert c.lines() == ["ERROR", "ERROR"]


def test_no_login_in_time_closes(tmp_path):
    hub = Hub(tmp_path, domino_login_seconds=30)
    c = hub.client()
    hub.clock.advance(29)
    assert not c.closed
    hub.clock.advance(1)
    assert c.closed


# -- games -----------------------------------------------------------------------------


def test_fourth_login_starts_the_game(hub):
    clients = hub.four()
    ids, orders, draws, rest = [], [], [], []
    for c in clients:
        lines = c.everything()
        assert lines[:3] == ["CONNECT", "OK", lines[2]]
        your_id, order, draw = start_line_from(lines[2])
        ids.append(your_id)
        orders.append(order)
        draws.append(draw)
        rest.append(lines[3:])
    assert ids == [1, 2, 3, 4]
    assert all(o == orders[0] for o in orders) and sorted(orders[0]) == [1, 2, 3, 4]
    assert all(d == draws[0] for d in draws) and draws[0] == sorted(draws[0])
    first = orders[0][0]
    assert rest == [["YOUR CHOICE"] if i + 1 == first else [] for i in range(4)]


def start_line_from(line):
    words = line.split()
    assert words[0] == "START" and len(words) == 10
    return int(words[1]), [int(w) for w in words[2:6]], [int(w) for w in words[6:]]


def test_later_logins_wait_for_the_next_game(hub):
    hub.four()
    later = [hub.client(f"p{i}") for i in range(3)]
    assert all(c.lines() == ["CONNECT", "OK"] for c in later)
    last = hub.client("p3")
    assert last.lines()[:2] == ["CONNECT", "OK"]
    assert all(any(ln.startswith("START") for ln in c.everything()) for c in later)
    assert len(hub.lobby.games()) == 2


def test_choose_ok_then_player_choice_to_the_others(hub):
    clients = hub.four()
    for c in clients:
        c.lines()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    first = state.to_act
    chooser = clients[first]
    assert chooser.seen[-1] == "YOUR CHOICE"
    d = state.available()[1]
    chooser.send(f"CHOOSE {state.available()[0] + 100}")
    assert chooser.lines() == ["ERROR"]
    chooser.send(f"CHOOSE {d}")
    assert chooser.lines() == ["OK"]
    for i, c in enumerate(clients):
        if i == first:
            continue
        expected = [f"PLAYER CHOICE {first + 1} {d}"]
        if i == state.to_act:
            expected.append("YOUR CHOICE")
        assert c.lines() == expected


def test_a_seats_own_command_gets_ok_before_every_line_it_causes(hub):
    """The spec's ``OK`` answers a command before its consequences: the lines a
    command brings its own sender (``ROUND``, ``YOUR MOVE``, the results) follow it."""
    clients = hub.four()
    for c in clients:
        c.lines()
    state = hub.lobby.games()[0].engine.rules
    consequences = 0
    for _ in range(200):  # bounded: a game takes 96 commands
        if state.over:
            break
        p = state.to_act
        clients[p].lines()  # what came before: the others' commands, its prompt
        if state.phase == "choose":
            clients[p].send(f"CHOOSE {state.available()[0]}")
        else:
            pl = state.kingdoms[p].legal_placements()[0]
            clients[p].send(f"MOVE {pl.x} {pl.y} {pl.orientation}")
        answer = clients[p].lines()
        assert answer[:1] == ["OK"] and "OK" not in answer[1:], answer
        consequences += len(answer) > 1
    assert state.over and consequences > 12


def play_by_engine(hub, clients, max_steps=200):
    """Answer every prompt with a legal command computed from the engine (a scripted
    client needing no bookkeeping)."""
    game = hub.lobby.games()[0]
    state = game.engine.rules
    for _ in range(max_steps):
        if state.over:
            return
        p = state.to_act
        if state.phase == "choose":
            clients[p].send(f"CHOOSE {state.available()[0]}")
        else:
            pl = state.kingdoms[p].legal_placements()[0]
            clients[p].send(f"MOVE {pl.x} {pl.y} {pl.orientation}")
    raise AssertionError("game did not end")


def test_last_round_is_empty_and_results_are_ordered(hub):
    clients = hub.four()
    play_by_engine(hub, clients)
    game = hub.lobby.games()[0]
    state = game.engine.rules
    for c in clients:
        lines = c.everything()
        rounds = [ln for ln in lines if ln.startswith("ROUND")]
        assert len(rounds) == 12 and rounds[-1] == "ROUND"
        after = lines[lines.index("ROUND") + 1 :]
        assert "YOUR CHOICE" not in after
        assert lines[-1].startswith("GAME OVER RESULTS ")
        words = lines[-1].split()[3:]
        names = words[0::2]
        points = [int(w) for w in words[1::2]]
        assert points == sorted(points, reverse=True)
        assert sorted(names) == ["ann", "bob", "cy", "dee"]
        scores = state.scores()
        by_name = dict(zip(["ann", "bob", "cy", "dee"], scores, strict=True))
        assert points == [by_name[n] for n in names]
        assert c.closed  # the game is over: the server closes
    assert game.state == "over"


def test_transcript_has_every_line(hub):
    clients = hub.four()
    play_by_engine(hub, clients)
    game = hub.lobby.games()[0]
    text = game.transcript.read()
    for c in clients:
        conn = c.proto.conn_id
        out = [ln.split(" ", 3)[3] for ln in text.splitlines() if f" {conn} out " in ln]
        assert out == c.everything()
    assert " d1 in  LOGIN ann" in text


# -- limits ------------------------------------------------------------------------------


def test_no_answer_in_two_seconds_removes_the_player(hub):
    clients = hub.four()
    for c in clients:
        c.lines()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    slow = state.to_act
    hub.clock.advance(1.9)
    clients[slow].send("CHOOSE 999")  # invalid answers do not extend the limit
    assert clients[slow].lines() == ["ERROR"]
    assert not clients[slow].closed
    hub.clock.advance(0.1)
    assert clients[slow].closed
    clients[slow].drop()
    nxt = state.to_act
    assert nxt != slow and clients[nxt].lines() == ["YOUR CHOICE"]
    assert not state.active[slow]
    # the game goes on with the three others and ends cleanly
    play_by_engine(hub, clients)
    assert game.state == "over"
    for i, c in enumerate(clients):
        if i != slow:
            assert c.lines()[-1].startswith("GAME OVER RESULTS")
    assert game.result()["removed"] == {str(slow): "timeout"}


def test_more_than_100_invalid_commands_in_a_row_removes(hub):
    clients = hub.four()
    for c in clients:
        c.lines()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    p = state.to_act
    other = (p + 1) % 4
    for _ in range(100):
        clients[other].send("CHOOSE 1")
    assert clients[other].lines() == ["ERROR"] * 100 and not clients[other].closed
    clients[other].send("LOGIN again")  # the 101st in a row
    assert clients[other].lines() == ["ERROR"]
    assert clients[other].closed
    assert not state.active[other]
    clients[other].send("CHOOSE 1")  # nothing more is read
    assert clients[other].lines() == []


def test_a_valid_command_resets_the_invalid_count(hub):
    clients = hub.four()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    p = state.to_act
    for _ in range(100):
        clients[p].send("CHOOSE 99")
    clients[p].send(f"CHOOSE {state.available()[0]}")
    for _ in range(100):
        clients[p].send("CHOOSE 99")
    assert not clients[p].closed and state.active[p]


def test_overlong_message_is_an_error_and_not_buffered(hub):
    c = hub.client("ann")
    c.lines()
    c.send(b"CHOOSE " + b"1" * 300 + b"\n")
    assert c.lines() == ["ERROR"]
    for _ in range(200):
        c.send(b"Z" * 5000)
        assert c.proto._framer.buffered <= 252
    assert c.lines() == ["ERROR"]
    c.send(b"\nLOGIN x\n")
    assert c.lines() == ["ERROR"]  # already logged in: parsed again as a line
    exactly = b"LOGIN " + b"a" * 244
    d = hub.client()
    d.send(exactly + b"\n")
    assert d.lines() == ["CONNECT", "ERROR"]  # 250 characters: read, but logins are <= 64


def test_everyone_leaving_ends_the_game_cleanly(hub):
    clients = hub.four()
    game = hub.lobby.games()[0]
    for c in clients:
        c.drop()
    assert game.state == "over"
    assert game.result()["scores"] == [0, 0, 0, 0]
    hub.clock.advance(10)
    game_timers = [
        dc
        for dc in hub.clock.getDelayedCalls()
        if dc.getTime() < 1000 and getattr(dc.func, "__self__", None) is not hub.lobby
    ]
    assert game_timers == []  # the lobby's own (retiring, removing the game) may remain


def test_removed_players_still_listed_in_results(hub):
    clients = hub.four()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    gone = (state.to_act + 1) % 4
    clients[gone].drop()
    play_by_engine(hub, clients)
    last = clients[(gone + 1) % 4].lines()[-1]
    assert last.startswith("GAME OVER RESULTS") and clients[gone].proto.login in last.split()


# -- lobby games with bots ---------------------------------------------------------------


def test_one_client_joins_a_lobby_game_with_three_bots(hub):
    game = hub.lobby.create_game(
        "kingdomino",
        seats=["bot:greedy", "open", "bot:greedy", "bot:domino-random"],
        options={"answer_seconds": 2},
    )
    c = hub.client("solo")
    assert game.state == "running"
    lines = c.lines()
    assert lines[:2] == ["CONNECT", "OK"]
    your_id, order, draw = start_line_from(lines[2])
    assert your_id == 2
    state = game.engine.rules
    for _ in range(500):
        if state.over:
            break
        hub.clock.advance(0)  # bots think (inline in tests)
        if state.to_act == 1 and not state.over:
            if state.phase == "choose":
                c.send(f"CHOOSE {state.available()[-1]}")
            else:
                pl = state.kingdoms[1].legal_placements()[-1]
                c.send(f"MOVE {pl.x} {pl.y} {pl.orientation}")
    assert state.over
    lines = c.everything()
    assert lines[-1].startswith("GAME OVER RESULTS")
    assert "ROUND" in lines
    assert len(hub.lobby.games()) == 1  # no extra game was made for this client


def test_waiting_players_fill_a_game_created_later(hub):
    c = hub.client("solo")
    c.lines()
    game = hub.lobby.create_game(
        "kingdomino", seats=["open", "bot:greedy", "bot:greedy", "bot:greedy"]
    )
    hub.clock.advance(0)
    assert game.state == "running"
    assert any(ln.startswith("START 1 ") for ln in c.lines())


def test_rules_mirror_sanity():
    # the front end's player ids are seats + 1; the engine's players are seats
    assert rules.State(order=[3, 2, 1, 0]).to_act == 3


def test_network_bot_mirror_follows_a_game_with_removals(hub):
    """The bots' client-side mirror infers removals the protocol does not announce."""
    from games.kingdomino.client import Mirror

    clients = hub.four()
    game = hub.lobby.games()[0]
    state = game.engine.rules
    hub.clock.advance(2)  # the first to choose times out
    gone = [p for p in range(4) if not state.active[p]]
    assert len(gone) == 1
    for _ in range(30):  # a few turns, then another one is removed for invalid commands
        p = state.to_act
        if state.phase == "choose":
            clients[p].send(f"CHOOSE {state.available()[0]}")
        else:
            pl = state.kingdoms[p].legal_placements()[0]
            clients[p].send(f"MOVE {pl.x} {pl.y} {pl.orientation}")
    victim = state.to_act
    for _ in range(101):
        clients[victim].send("MOVE 0 0 0")
    assert not state.active[victim]
    play_by_engine(hub, clients)
    for i, c in enumerate(clients):
        if i in gone or i == victim:
            continue
        mirror = Mirror()
        sent = iter(c.sent)
        prompts = []
        for line in c.everything():
            if line in ("OK", "ERROR"):  # each command gets exactly one answer
                words = next(sent).split()
                if line == "OK" and words[0] == "CHOOSE":
                    mirror.command(int(words[1]))
                elif line == "OK" and words[0] == "MOVE":
                    mirror.command(rules.Placement(*map(int, words[1:])))
            prompts.append(mirror.feed(line))
        assert prompts[-1] == "over"
        assert mirror.state.scores() == state.scores()
        assert mirror.state.active == state.active
        assert [p for p, _ in mirror.results] == [game.engine.names[s] for s in state.ranking()]


def test_a_lobby_game_is_filled_only_when_it_can_start(hub):
    game = hub.lobby.create_game("kingdomino", seats=["open", "bot:greedy", "open", "bot:greedy"])
    first = hub.client("one")
    hub.clock.advance(0)
    assert game.free_seats() == [0, 2] and first.proto.state == "waiting"
    second = hub.client("two")
    assert game.state == "running"
    assert [s.player for s in game.seats] == ["one", "greedy", "two", "greedy-2"]
    assert first.everything()[2].startswith("START 1 ")
    assert second.everything()[2].startswith("START 3 ")


def test_a_game_with_a_free_human_seat_is_left_to_the_web(hub):
    game = hub.lobby.create_game("kingdomino", seats=["open", "human", "bot:greedy", "bot:greedy"])
    clients = [hub.client(f"c{i}") for i in range(4)]
    assert game.state == "waiting" and game.free_seats("client") == [0]
    assert all(c.proto.state == "playing" for c in clients)  # they got a game of their own
    assert clients[0].proto.game is not game


def test_a_logged_in_client_without_a_game_is_closed_after_the_idle_limit(tmp_path):
    hub = Hub(tmp_path, domino_idle_seconds=600)
    lonely = hub.client("lonely")
    assert lonely.lines() == ["CONNECT", "OK"]
    hub.clock.advance(599)
    assert not lonely.closed
    hub.clock.advance(1)
    assert lonely.lines() == ["ERROR"] and lonely.closed
    assert hub.factory.waiting == []
    # players who get a game in time are not touched by it
    players = hub.four()
    hub.clock.advance(700)
    assert not any(p.closed for p in players if "ERROR" in p.everything()[:2])
    assert all(p.proto.state in ("playing", "over", "removed") for p in players)


def test_nagle_is_off_on_every_connection(hub):
    """Short lines both ways: without TCP_NODELAY each waits for a delayed ACK."""
    assert hub.client().transport.getTcpNoDelay() is True


def test_a_game_handed_to_another_hub_ends_its_connections_without_a_word(hub):
    """Issue 31: the game moves to another hub (a drain): its players' connections close
    without a line and leave no seat (a door that spliced one follows the game)."""
    clients = hub.four()
    for c in clients:
        c.lines()
    game = clients[0].proto.game
    game.funnel.seal()  # the hub lets it go: a command meanwhile gets no answer
    for c in clients:
        c.send("CHOOSE 1")
        assert c.lines() == [] and not c.closed
    left: list[int] = []
    game.leave_seat = left.append
    hub.lobby.remove(game.id, moved=True)
    for c in clients:
        assert c.closed and c.lines() == []
        c.proto.connectionLost(None)
    assert left == []


def test_moves_of_running_games_do_not_make_the_queue_look_at_every_game(hub):
    """A player waits in the queue while another game is played: its changes (seats,
    observers, its state: the lobby's ``changed``) do not make the queue look at every
    game again; a game that waits for players does."""
    clients = hub.four()
    (game,) = hub.lobby.games()
    solo = hub.client("solo")
    assert solo.lines() == ["CONNECT", "OK"]
    looks = []
    hub.factory.match = lambda: looks.append(len(hub.factory.waiting))  # (counted only)
    for _ in range(6):  # moves by whoever is to act
        seat = next(s for s in range(4) if game.legal_actions(s))
        game.act(seat, game.legal_actions(seat)[0])
        hub.lobby.changed(game)  # (as an observer coming or going would)
        hub.clock.advance(0)
    assert looks == [] and game.state == "running" and clients[0].everything()
    hub.lobby.create_game("kingdomino", seats=["open", "bot:greedy", "bot:greedy", "bot:greedy"])
    hub.clock.advance(0)
    assert looks == [1]
