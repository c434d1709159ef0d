"""MNM front end: codec and protocol on StringTransport with a task.Clock."""

from __future__ import annotations

import gc
import random
import tracemalloc

import pytest
from twisted.internet import task

from bots.morris import MorrisBotFactory, RandomMorrisBotFactory
from games.hello.server import HelloGameFactory
from games.morris.server import MorrisGameFactory
from hub.frontends.mnm import codec, make_factory, protocol
from hub.frontends.mnm.states import State
from hub.model import OVER
from tests.support import DictRegistry, FakeHub, TCPStringTransport


def make_hub(tmp_path, **options):
    clock = task.Clock()
    version = str(options.get("mnm_version", "3.1"))
    registry = DictRegistry(
        games=[MorrisGameFactory(), HelloGameFactory()],
        bots=[MorrisBotFactory(), RandomMorrisBotFactory()],
    )
    lobby = {"rng": random.Random(4), "id_length": codec.id_length(version)}
    return FakeHub(registry, reactor=clock, data=tmp_path, lobby=lobby, **options)


class Client:
    """One protocol instance on a StringTransport."""

    def __init__(self, hub, factory=None):
        self.proto = (factory or make_factory(hub)).buildProtocol(None)
        self.tr = TCPStringTransport()
        self.proto.makeConnection(self.tr)

    def send(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else text.encode() + b"\n"
        self.proto.dataReceived(data)

    def lines(self) -> list[str]:
        out = self.tr.value().decode("ascii").splitlines()
        self.tr.clear()
        return out

    @property
    def closed(self) -> bool:
        return self.tr.disconnecting

    def join(self, game_id: str, player: str = "PLAYER", version: str = "3.1") -> list[str]:
        self.lines()
        self.send(f"VERSION {version}")
        self.send(f"ID {game_id}")
        self.send(player)
        return self.lines()

    def answer(self, move: str) -> list[str]:
        self.send("THINKING")
        self.send(f"PLAY {move}")
        return self.lines()


def pieces_block(lines: list[str]) -> list[str]:
    start = lines.index("+ PIECELIST 2,9")
    return lines[start : start + 20]


def new_game(hub, seats=None, **options):
    return hub.lobby.create_game("nmmorris", name="Test Game", seats=seats, options=options)


# -- codec ------------------------------------------------------------------------------


def test_codec_lines() -> None:
    assert codec.parse_line(b"THINKING \r") == codec.Command("THINKING")
    assert codec.parse_line(b"PLAYER ") == codec.Command("PLAYER")
    assert codec.parse_line(b"PLAY A1:B1") == codec.Command("PLAY", "A1:B1")
    for bad, reason in [
        (b"", "Empty line"),
        (b"HELLO", "Unknown command: HELLO"),
        (b"PLAY \xc3\xa4", "printable ASCII"),
        (b"x" * 1100, "Line too long"),
        (b"PLAY\tA1", "printable ASCII"),
    ]:
        with pytest.raises(codec.ProtocolError, match=reason):
            codec.parse_line(bad)
    codec.check_client_version("3.9", "3.1")
    with pytest.raises(codec.ProtocolError, match="Client version not supported"):
        codec.check_client_version("2.1", "3.1")
    with pytest.raises(codec.ProtocolError, match="Client version not supported"):
        codec.check_client_version("drei", "3.1")
    assert codec.id_length("1.0") == 11 and codec.id_length("2.3") == 13
    assert codec.parse_player("1") == 1 and codec.parse_player("") is None
    with pytest.raises(codec.ProtocolError, match="Invalid player number"):
        codec.parse_player("2")
    assert codec.lines_gameover([["A"], ["C"]], [True, True])[-3:] == [
        "+ PLAYER0WON Yes",
        "+ PLAYER1WON Yes",
        "+ QUIT",
    ]


# -- prolog -----------------------------------------------------------------------------


@pytest.mark.parametrize("version,lines", [("3.1", 2), ("2.3", 1), ("1.0", 1)])
def test_banner_per_version(tmp_path, version, lines) -> None:
    hub = make_hub(tmp_path, mnm_version=version)
    c = Client(hub)
    out = c.lines()
    assert out[0] == f"+ MNM Gameserver v{version} accepting connections"
    assert len(out) == lines
    if lines == 2:
        assert out[1].startswith("+ A")
    game = new_game(hub)
    assert len(game.id) == (11 if version == "1.0" else 13)
    c.send(f"VERSION {version.split('.')[0]}.7")
    c.send(f"ID {game.id}")
    assert c.lines() == [codec.VERSION_ACCEPTED, "+ PLAYING NMMorris", "+ Test Game"]


def test_prolog_and_players(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub)
    c = Client(hub)
    assert c.join(game.id, "PLAYER ") == [
        codec.VERSION_ACCEPTED,
        "+ PLAYING NMMorris",
        "+ Test Game",
        "+ YOU 0 white",
        "+ TOTAL 2",
        "+ 1 black 0",
        "+ ENDPLAYERS",
    ]
    d = Client(hub)
    out = d.join(game.id, "PLAYER 1")
    assert out[3:7] == ["+ YOU 1 black", "+ TOTAL 2", "+ 0 white 1", "+ ENDPLAYERS"]
    e = Client(hub)
    assert e.join(game.id)[-1] == "- No free player" and e.closed


@pytest.mark.parametrize(
    "script,error",
    [
        (["VERSION 2.0"], "- Client version not supported"),
        (["ID abc"], "- We expected VERSION <major>.<minor>"),
        (["VERSION 3.1", "ID nosuchgame12"], "- Not a valid game ID"),
        (["VERSION 3.1", "ID short"], "- Not a valid game ID"),
        (["VERSION 3.1", "THINKING"], "- We expected ID <Game-ID>"),
        (["VERSION 3.1", "ID {id}", "PLAYER 7"], "- Invalid player number"),
        (["VERSION 3.1", "ID {id}", "PLAYER x"], "- Invalid player number"),
        (["VERSION 3.1", "ID {id}", "THINKING"], "- We expected PLAYER [number]"),
        (["BLAH"], "- Unknown command: BLAH"),
    ],
)
def test_prolog_errors(tmp_path, script, error) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub)
    c = Client(hub)
    for line in script:
        c.send(line.format(id=game.id))
    out = c.lines()
    assert out[-1] == error and c.closed
    assert sum(1 for line in out if line.startswith("-")) == 1


def test_game_of_another_frontend_is_refused(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = hub.lobby.create_game("hello")
    c = Client(hub)
    c.send("VERSION 3.1")
    c.send(f"ID {game.id}")
    assert c.lines()[-1].startswith("- Not a valid game ID") and c.closed


def test_prolog_silence_times_out(tmp_path) -> None:
    hub = make_hub(tmp_path, mnm_prolog_timeout=10)
    c = Client(hub)
    c.lines()
    hub.reactor.advance(9)
    c.send("VERSION 3.1")
    hub.reactor.advance(9.5)
    assert not c.closed
    hub.reactor.advance(1)
    assert c.lines() == [codec.VERSION_ACCEPTED, "- TIMEOUT Be faster next time"]
    assert c.closed


def test_silent_connections_share_one_timer_and_time_out_within_one_granularity(tmp_path):
    hub = make_hub(tmp_path, mnm_prolog_timeout=30, timeout_granularity=0.5)
    clock = hub.reactor
    before = len(clock.getDelayedCalls())
    factory = make_factory(hub)
    opened = []
    for i in range(60):  # connections over 15 s; every third one says VERSION
        clock.advance(0.125 * (i % 5))
        c = Client(hub, factory)
        c.lines()
        if i % 3 == 0:
            c.send("VERSION 3.1")
            c.lines()
        opened.append((c, clock.seconds()))
    assert len(clock.getDelayedCalls()) == before + 1  # the factory's sweep, no more
    closed_at: dict[int, float] = {}
    while len(closed_at) < len(opened) and clock.seconds() < 100:
        clock.advance(0.125)
        for i, (c, _) in enumerate(opened):
            if c.closed and i not in closed_at:
                assert c.lines() == ["- TIMEOUT Be faster next time"]
                closed_at[i] = clock.seconds()
    for i, (_, at) in enumerate(opened):
        assert at + 30 <= closed_at[i] <= at + 30 + 0.5, i
    assert len(clock.getDelayedCalls()) == before  # nothing waits: no sweep either


class Sink(TCPStringTransport):
    """A transport that keeps nothing of what is written."""

    def write(self, data: bytes) -> None:
        pass


def test_an_idle_connection_holds_few_python_objects(tmp_path) -> None:
    """Issue 19: the bytes Python allocates for each connection that got its banner and
    stays silent (1,346 with a timer, a transcript buffer and a dict of its own each;
    about 410 since): a bound with room, so a timer or buffer per connection fails."""
    hub = make_hub(tmp_path)
    factory = make_factory(hub)
    count = 400
    sinks = [Sink() for _ in range(count + 50)]
    kept = []
    for sink in sinks[:50]:  # warm: shared keys, caches
        kept.append(factory.buildProtocol(None))
        kept[-1].makeConnection(sink)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for sink in sinks[50:]:
            kept.append(factory.buildProtocol(None))
            kept[-1].makeConnection(sink)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(d.size_diff for d in after.compare_to(before, "filename"))
    assert grown / count < 700
    assert all(proto.state is State.VERSION for proto in kept)


def test_the_shared_empty_queue_stays_empty(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path, move_time_ms=1000)
    a.answer("A0")
    hub.reactor.advance(5)  # b's move clock runs out: GAMEOVER, queued while a waits
    assert game.state == OVER and protocol._NOTHING_QUEUED == []


def test_the_banner_is_in_the_transcript_before_the_first_line(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub)
    c = Client(hub)
    c.join(game.id)
    text = hub.transcripts.read(game.id)
    ours = [line.split(" ", 2)[2] for line in text.splitlines() if c.proto.conn_id in line]
    assert [line.split(" ", 1)[1].strip() for line in ours[:4]] == [
        "+ MNM Gameserver v3.1 accepting connections",
        "+ Announcement: welcome to Gamehub",
        "VERSION 3.1",
        codec.VERSION_ACCEPTED,
    ]


# -- game loop --------------------------------------------------------------------------


def two_players(tmp_path, **options):
    hub = make_hub(tmp_path)
    game = new_game(hub, **options)
    a, b = Client(hub), Client(hub)
    a.join(game.id)
    b.join(game.id)
    return hub, game, a, b


def test_wait_okwait_and_its_deadline(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub, wait_interval_ms=1000, wait_timeout_ms=3000, move_time_ms=10000)
    a = Client(hub)
    a.join(game.id)
    hub.reactor.advance(1)
    assert a.lines() == ["+ WAIT"]
    a.send("OKWAIT ")
    hub.reactor.advance(0.5)
    assert a.lines() == []
    hub.reactor.advance(0.5)
    assert a.lines() == ["+ WAIT"]
    # the opponent arrives while a WAIT is open: the move request waits for OKWAIT
    b = Client(hub)
    b.join(game.id)
    assert a.lines() == []
    a.send("OKWAIT")
    out = a.lines()
    assert out[:3] == ["+ MOVE 10000", "+ CAPTURE 0", "+ PIECELIST 2,9"]
    assert out[3:21] == [f"+ PIECE{p}.{i} A" for p in (0, 1) for i in range(9)]
    assert out[21:] == ["+ ENDPIECELIST"]
    # black idles: WAIT, and no OKWAIT within 3 s loses the game
    hub.reactor.advance(1)
    assert b.lines() == ["+ WAIT"]
    hub.reactor.advance(3)
    assert b.lines() == ["- TIMEOUT You did not answer WAIT with OKWAIT in time"] and b.closed
    assert a.lines() == []
    out = a.answer("A0")
    assert out[:2] == ["+ OKTHINK", "+ MOVEOK"]
    out = out[2:]
    assert out[0] == "+ GAMEOVER" and out[-3:] == ["+ PLAYER0WON Yes", "+ PLAYER1WON No", "+ QUIT"]
    assert a.closed and game.result()["winners"] == [0]


def test_idle_connections_share_one_wait_timer_and_one_answer_timer(tmp_path) -> None:
    hub = make_hub(tmp_path)
    factory = make_factory(hub)
    games = [new_game(hub, wait_interval_ms=1000, wait_timeout_ms=3000) for _ in range(30)]
    timers = len(hub.reactor.getDelayedCalls())
    clients = []
    for game in games:  # each alone in its game, idle from its joining on
        clients.append(Client(hub, factory))
        clients[-1].join(game.id)
        hub.reactor.advance(0.01)
    assert len(hub.reactor.getDelayedCalls()) <= timers + 1  # one sweep, not 30 timers
    hub.reactor.advance(0.71)  # the first joined a second ago (within the granularity)
    waited = [c.lines() for c in clients]
    assert waited[0] == ["+ WAIT"] and waited[-1] == []
    hub.reactor.advance(0.35)
    assert all(w == ["+ WAIT"] for w in waited[:1]) and all(
        c.lines() + w == ["+ WAIT"] for c, w in zip(clients[1:], waited[1:], strict=True)
    )
    assert len(hub.reactor.getDelayedCalls()) <= timers + 2  # the answers' sweep too
    for c in clients[:-1]:
        c.send("OKWAIT")
    hub.reactor.advance(3.2)  # only the one that did not answer loses
    assert clients[-1].closed and not any(c.closed for c in clients[:-1])


def test_move_sequence_capture_and_transcript(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    assert a.lines()[0] == "+ MOVE 3000"
    assert b.lines() == []
    for mover, other, move in [(a, b, "A0"), (b, a, "B0"), (a, b, "A1"), (b, a, "B1")]:
        assert mover.answer(move) == ["+ OKTHINK", "+ MOVEOK"]
        out = other.lines()
        assert out[:2] == ["+ MOVE 3000", "+ CAPTURE 0"]
    out = a.answer("A2")
    assert out[:4] == ["+ OKTHINK", "+ MOVEOK", "+ MOVE 3000", "+ CAPTURE 1"]
    block = pieces_block(out)
    assert block[1:4] == ["+ PIECE0.0 A0", "+ PIECE0.1 A1", "+ PIECE0.2 A2"]
    assert "+ PIECE1.1 B1" in block
    assert a.answer("B1") == ["+ OKTHINK", "+ MOVEOK"]
    out = b.lines()
    assert out[:2] == ["+ MOVE 3000", "+ CAPTURE 0"] and "+ PIECE1.1 C" in out
    text = hub.transcripts.read(game.id)
    assert "VERSION 3.1" in text and "+ MNM Gameserver v3.1" in text
    assert " in  PLAY B1" in text and " out + CAPTURE 1" in text


def test_thinking_is_required(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    a.lines()
    a.send("PLAY A0")
    assert a.lines() == ["- We expected you to THINK!"] and a.closed
    out = b.lines()
    assert out[0] == "+ GAMEOVER" and out[-3:-1] == ["+ PLAYER0WON No", "+ PLAYER1WON Yes"]
    assert b.closed


def test_out_of_turn_play(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    a.lines()
    b.send("PLAY A0")
    assert b.lines() == ["- It is not your turn to PLAY"] and b.closed
    assert a.lines() == []  # white is asked to move: it finishes that exchange first
    out = a.answer("A0")[2:]
    assert out[0] == "+ GAMEOVER" and out[-3:-1] == ["+ PLAYER0WON Yes", "+ PLAYER1WON No"]


@pytest.mark.parametrize(
    "move,error",
    [
        ("A9", "- Invalid move: A9 is not a field"),
        ("B0", "- Destination is already occupied"),
        ("", "- Invalid move: PLAY needs a move"),
        ("A0:A1", "- You still have pieces to place: name an empty field"),
    ],
)
def test_bad_moves(tmp_path, move, error) -> None:
    hub, game, a, b = two_players(tmp_path)
    a.answer("A0")
    b.lines()
    b.answer("B0")
    a.lines()
    out = a.answer(move)
    assert out == ["+ OKTHINK", error] and a.closed
    assert b.lines()[0] == "+ GAMEOVER"


def _moving_phase(a: Client, b: Client) -> None:
    w = ["A0", "A2", "A5", "B1", "B3", "B6", "C0", "C4", "C7"]
    k = ["A1", "A3", "A6", "B0", "B2", "B5", "C2", "C3", "C5"]
    for x, y in zip(w, k, strict=True):
        assert a.answer(x)[-1] == "+ MOVEOK"
        assert b.answer(y)[-1] == "+ MOVEOK"
    a.lines()
    b.lines()


def test_moving_the_opponents_piece(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    _moving_phase(a, b)
    assert a.answer("A1:A7")[-1] == "- The piece on A1 is not yours" and a.closed
    assert b.lines()[-1] == "+ QUIT" and b.closed


def test_garbage_and_huge_lines(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    a.lines()
    a.send(b"\xff\xfe\x00garbage\n")
    assert a.lines() == ["- Only printable ASCII characters are allowed"] and a.closed
    assert b.lines()[0] == "+ GAMEOVER"
    hub2 = make_hub(tmp_path / "2")
    c = Client(hub2)
    c.lines()
    c.send(b"V" * (1 << 20))
    assert c.lines() == ["- Line too long: more than 1024 bytes"] and c.closed


def test_move_timeout(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path, move_time_ms=2000, grace_ms=500)
    a.lines()
    a.send("THINKING")
    hub.reactor.advance(2.6)
    assert a.lines() == ["+ OKTHINK", "- TIMEOUT Be faster next time"] and a.closed
    # black was asked to WAIT meanwhile: the game over comes after its OKWAIT
    assert b.lines() == ["+ WAIT"]
    b.send("OKWAIT")
    out = b.lines()
    assert out[0] == "+ GAMEOVER" and out[-3:] == ["+ PLAYER0WON No", "+ PLAYER1WON Yes", "+ QUIT"]


def test_opponent_disconnect_while_thinking(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    assert a.lines()[0] == "+ MOVE 3000"
    b.proto.connectionLost(None)
    assert a.lines() == []
    # white finishes the exchange it is in; the (moot) move is acknowledged
    out = a.answer("A0")
    assert out[:3] == ["+ OKTHINK", "+ MOVEOK", "+ GAMEOVER"]
    assert out[-3:] == ["+ PLAYER0WON Yes", "+ PLAYER1WON No", "+ QUIT"] and a.closed
    assert "+ PIECE0.0 A" in out  # the move was not applied


def test_opponent_disconnect_while_thinking_silent_client(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path, wait_timeout_ms=2000)
    a.lines()
    a.send("THINKING")
    b.proto.connectionLost(None)
    assert a.lines() == ["+ OKTHINK"]
    hub.reactor.advance(2)
    out = a.lines()
    assert out[0] == "+ GAMEOVER" and out[-1] == "+ QUIT" and a.closed


def test_draw_report(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path, max_turns=20, repetitions=0)
    _moving_phase(a, b)
    a.answer("A0:A7")
    b.lines()
    out = b.answer("B0:B7")
    assert out[:3] == ["+ OKTHINK", "+ MOVEOK", "+ GAMEOVER"]
    assert out[-3:] == ["+ PLAYER0WON Yes", "+ PLAYER1WON Yes", "+ QUIT"]
    assert a.lines()[-3:] == ["+ PLAYER0WON Yes", "+ PLAYER1WON Yes", "+ QUIT"]


def test_single_client_against_a_bot(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub, seats=["open", "bot:morris-random"], wait_interval_ms=60000)
    a = Client(hub)
    out = a.join(game.id)
    end = out.index("+ ENDPLAYERS")
    assert out[end - 3 : end + 2] == [
        "+ YOU 0 white",
        "+ TOTAL 2",
        "+ 1 morris-random 1",
        "+ ENDPLAYERS",
        "+ MOVE 3000",
    ]
    rng = random.Random(2)
    out = []
    for _ in range(500):
        if game.state == "over":
            break
        legal = game.legal_actions(0)
        out = a.answer(rng.choice(legal)["move"])
        assert out[:2] == ["+ OKTHINK", "+ MOVEOK"], out
        hub.reactor.advance(0)
        out += a.lines()
        assert out[2] in ("+ MOVE 3000", "+ GAMEOVER")
    assert game.state == "over"
    assert out[-1] == "+ QUIT" and a.closed


def test_lines_in_pieces_and_together(tmp_path) -> None:
    hub = make_hub(tmp_path)
    game = new_game(hub)
    c = Client(hub)
    c.lines()
    for byte in f"VERSION 3.1\r\nID {game.id}\n".encode():
        c.send(bytes([byte]))
    c.send(b"PLAYER 0 \r\n")
    out = c.lines()
    assert out[0] == codec.VERSION_ACCEPTED and out[-1] == "+ ENDPLAYERS"
    d = Client(hub)
    d.lines()
    d.send(f"VERSION 3.1\nID {game.id}\nPLAYER\n".encode())
    assert d.lines()[-1] == "+ ENDPLAYERS"
    assert c.lines()[0] == "+ MOVE 3000"
    c.send(b"THINKING \nPLAY A0\n")
    assert c.lines() == ["+ OKTHINK", "+ MOVEOK"]


def test_nagle_is_off_on_every_connection(tmp_path) -> None:
    """A move and its answer are a line each: without TCP_NODELAY every exchange waits
    for the peer's delayed ACK (~40 ms)."""
    client = Client(make_hub(tmp_path))
    assert client.tr.getTcpNoDelay() is True


@pytest.mark.parametrize(
    "pieces",
    [
        [["A1", "B2", "N"], ["G7", "X", "N"]],  # rows of the spec's shape
        [[], []],  # before any piece is listed
        [["D1"] * 9, ["D7"] * 9],  # full rows
    ],
)
def test_a_move_request_is_the_spec_lines_in_one_text(pieces):
    """The one-text move request is, line for line, ``+ MOVE``, ``+ CAPTURE`` and the
    piece list the game-over uses too."""
    lines = ["+ MOVE 3000", "+ CAPTURE 1"] + codec.lines_piecelist(pieces)
    assert codec.block_move(3000, 1, pieces) == "".join(line + "\n" for line in lines)
    assert codec.block_move(3000, 1, pieces).splitlines()[2].startswith("+ PIECELIST 2,")


# -- a game that moves to another hub (issue 31) -----------------------------------------


def test_a_move_sent_while_the_game_moves_is_held_and_the_connection_ends_without_a_word(
    tmp_path,
) -> None:
    """The hub lets the game go (a drain seals it): a PLAY that comes meanwhile gets no
    answer (no error: a door passes it on to the game's new hub); when the game is
    handed over its connections close without a line, leaving no seat."""
    hub, game, a, b = two_players(tmp_path)
    assert a.lines()[0] == "+ MOVE 3000"
    game.pause("moving")
    game.funnel.seal()
    a.send("THINKING")
    assert a.lines() == ["+ OKTHINK"]
    a.send("PLAY A0")
    assert a.lines() == [] and not a.closed and a.proto.state is State.ACTING
    left: list[int] = []
    game.leave_seat = left.append  # type: ignore[method-assign]
    hub.lobby.remove(game.id, moved=True)
    assert a.closed and b.closed
    assert a.lines() == [] and b.lines() == []
    assert left == []  # the seat waits for its player at the game's new hub
    a.proto.connectionLost(None)
    b.proto.connectionLost(None)
    assert left == []


def test_a_game_removed_here_does_not_close_its_connections_as_moved(tmp_path) -> None:
    hub, game, a, b = two_players(tmp_path)
    a.lines()
    hub.lobby.remove(game.id)
    assert not a.closed and not b.closed
