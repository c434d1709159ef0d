"""A door's view of a spliced MNM conversation (:mod:`hub.frontends.mnm.rejoin`):
where the client is when the game's hub lets the game go, and what the new hub must
hear then (issue 31).  Sans-I/O: bytes in, a :class:`hub.cluster.splice.Rejoin` out."""

from __future__ import annotations

import pytest

from hub.cluster.splice import Rejoin
from hub.frontends.mnm import codec
from hub.frontends.mnm.rejoin import RESEAT_LINES, Conversation

SAID = b"VERSION 3.1\nID abc\n"
PLAYER = b"PLAYER 0\n"
PROLOG = (
    b"+ PLAYING Nine Men's Morris\n+ Game\n+ YOU 0 White\n+ TOTAL 2\n+ 1 Black 1\n+ ENDPLAYERS\n"
)
MOVE_BLOCK = codec.block_move(20000, 0, [["A0", "C", "C"], ["B0", "C", "C"]]).encode()
GAMEOVER = ("\n".join(codec.lines_gameover([["A0"], ["B0"]], [True, False])) + "\n").encode()


def seated() -> Conversation:
    talk = Conversation(SAID)
    assert talk.client(PLAYER) == PLAYER
    talk.owner(PROLOG)
    return talk


def test_an_idle_client_is_seated_again_and_the_players_are_dropped() -> None:
    talk = seated()
    assert talk.rejoin() == Rejoin(SAID + PLAYER, RESEAT_LINES, b"+ ENDPLAYERS")
    talk.owner(MOVE_BLOCK)
    talk.client(b"THINKING\n")
    talk.owner(b"+ OKTHINK\n")
    talk.client(b"PLAY A1\n")
    talk.owner(b"+ MOVEOK\n")  # the exchange is over: idle again
    assert talk.rejoin() == Rejoin(SAID + PLAYER, RESEAT_LINES, b"+ ENDPLAYERS")


def test_a_move_request_not_answered_yet_is_dropped_from_the_new_hubs_answer() -> None:
    talk = seated()
    for i in range(0, len(MOVE_BLOCK), 7):  # however the bytes come
        talk.owner(MOVE_BLOCK[i : i + 7])
    assert talk.rejoin() == Rejoin(SAID + PLAYER, RESEAT_LINES, b"+ ENDPIECELIST")
    assert talk.client(b"THINKING\n") == b"THINKING\n"  # passes on after the replay


def test_a_thinking_the_old_hub_did_not_answer_is_said_again() -> None:
    talk = seated()
    talk.owner(MOVE_BLOCK)
    talk.client(b"THINKING\r\n")
    assert talk.rejoin() == Rejoin(SAID + PLAYER + b"THINKING\n", RESEAT_LINES, b"+ ENDPIECELIST")


def test_a_client_thinking_after_okthink_gets_the_new_hubs_answer_to_its_play() -> None:
    talk = seated()
    talk.owner(MOVE_BLOCK)
    talk.client(b"THINKING\n")
    talk.owner(b"+ OKTHINK\n")
    assert talk.rejoin() == Rejoin(SAID + PLAYER + b"THINKING\n", RESEAT_LINES, b"+ OKTHINK")
    assert talk.client(b"PLAY A1\n") == b"PLAY A1\n"


def test_a_play_the_old_hub_held_is_passed_on_to_the_new_hub() -> None:
    talk = seated()
    talk.owner(MOVE_BLOCK)
    talk.client(b"THINKING\n")
    talk.owner(b"+ OKTHINK\n")
    talk.client(b"PLAY A1:A4")
    talk.client(b"\n")
    assert talk.rejoin() == Rejoin(
        SAID + PLAYER + b"THINKING\nPLAY A1:A4\n", RESEAT_LINES, b"+ OKTHINK"
    )
    talk.owner(b"+ MOVEOK\n")  # the new hub's answer to it
    assert talk.rejoin().until == b"+ ENDPLAYERS"


@pytest.mark.parametrize("pieces", [[b"OKWAIT\n"], [b"OK", b"WAIT\r\n"], [b"OKWAIT\nTHINKING\n"]])
def test_the_answer_to_a_wait_of_the_old_hub_is_dropped(pieces: list[bytes]) -> None:
    talk = seated()
    talk.owner(b"+ WAIT\n")
    assert talk.rejoin() == Rejoin(SAID + PLAYER, RESEAT_LINES, b"+ ENDPLAYERS")
    out = b"".join(talk.client(piece) for piece in pieces)
    assert out == b"".join(pieces).replace(b"OKWAIT\n", b"").replace(b"OKWAIT\r\n", b"")
    assert talk.client(b"OKWAIT\n") == b"OKWAIT\n"  # only that one


def test_an_answered_wait_is_no_open_request() -> None:
    talk = seated()
    talk.owner(b"+ WAIT\n")
    talk.client(b"OKWAIT\n")
    assert talk.rejoin() == Rejoin(SAID + PLAYER, RESEAT_LINES, b"+ ENDPLAYERS")
    assert talk.client(b"THINKING\n") == b"THINKING\n"


def test_the_piece_list_of_a_game_over_is_no_move_request() -> None:
    talk = seated()
    talk.owner(GAMEOVER)
    assert talk.rejoin().until == b"+ ENDPLAYERS"


def test_what_is_kept_is_bounded() -> None:
    talk = Conversation(SAID)
    talk.client(b"PLAYER " + b"x" * 5000)
    talk.client(b"\n")
    talk.owner(b"+ " + b"y" * 100_000)
    assert len(talk.seated) <= 1025 and len(talk.rejoin().data) <= len(SAID) + 1025
