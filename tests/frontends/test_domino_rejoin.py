"""A door's view of a spliced Domino session (``hub.frontends.domino.rejoin``), without
I/O: which of the client's lines the owner has not answered, whether the client holds
a prompt, and what a new owner of the game must hear and what of its answer to drop."""

from __future__ import annotations

from hub.cluster.splice import Rejoin
from hub.frontends.domino.rejoin import LONGEST, PENDING, Session

LOGIN = b"LOGIN ann\n"
START = b"START 2 1 2 3 4 5 17 30 44\n"


def started() -> Session:
    """A session whose login was answered and whose game started."""
    s = Session(LOGIN)
    s.owner(b"OK\n" + START)
    return s


def test_before_the_start_the_owner_closing_ends_the_session() -> None:
    s = Session(LOGIN)
    assert s.ended  # (a refused login: ERROR, then the close)
    s.owner(b"OK\n")
    assert s.ended  # queued, no game yet: nothing to follow
    s.owner(START)
    assert not s.ended and s.started


def test_the_game_over_ends_the_session() -> None:
    s = started()
    s.owner(b"GAME OVER RESULTS ann 12 bob 9 cy 3 dee 0\n")
    assert s.ended


def test_an_idle_client_rejoins_with_its_login_and_drops_connect_and_ok() -> None:
    s = started()
    s.owner(b"PLAYER CHOICE 1 17\n")
    assert s.rejoin() == Rejoin(LOGIN, 2, b"OK")


def test_a_held_prompt_is_dropped_from_the_new_owners_answer() -> None:
    s = started()
    s.owner(b"PLAYER CHOICE 1 17\nYOUR CHOICE\n")
    assert s.prompt == b"YOUR CHOICE"
    assert s.rejoin() == Rejoin(LOGIN, 3, b"YOUR CHOICE")


def test_an_invalid_answer_keeps_the_prompt_and_a_taken_command_ends_it() -> None:
    s = started()
    s.owner(b"YOUR CHOICE\n")
    s.client(b"CHOOSE 99\n")
    s.owner(b"ERROR\n")  # the turn stays: the prompt is still held
    assert s.prompt == b"YOUR CHOICE" and list(s.unanswered) == []
    s.client(b"CHOOSE 30\n")
    s.owner(b"OK\n")
    assert s.prompt is None and list(s.unanswered) == []
    s.owner(b"ROUND 1 2 3 4\nYOUR MOVE\n")  # (after a MOVE: OK, then its next prompt)
    assert s.prompt == b"YOUR MOVE"


def test_a_command_the_sealed_owner_held_is_replayed_after_the_login() -> None:
    s = started()
    s.owner(b"YOUR MOVE\n")
    s.client(b"MOVE 1 0 0\nMOVE 2 ")  # the old owner answers neither, then closes
    rejoin = s.rejoin()
    assert rejoin == Rejoin(LOGIN + b"MOVE 1 0 0\nMOVE 2 ", 3, b"YOUR MOVE")
    s.client(b"0 0\n")  # the rest of the line goes on after the replay
    assert list(s.unanswered) == [b"MOVE 1 0 0\n", b"MOVE 2 0 0\n"]
    s.owner(b"OK\nERROR\n")  # the new owner's answers
    assert list(s.unanswered) == [] and s.prompt is None


def test_lines_are_cut_across_reads_and_carriage_returns_are_kept_for_the_replay() -> None:
    s = Session(LOGIN)
    s.owner(b"O")
    s.owner(b"K\r\nSTA")
    s.owner(b"RT 1 1 2 3 4 5 6 7 8\nYOUR CH")
    assert s.started and s.prompt is None
    s.owner(b"OICE\n")
    assert s.prompt == b"YOUR CHOICE"
    s.client(b"CHOOSE 5\r\n")
    assert s.rejoin().data == LOGIN + b"CHOOSE 5\r\n"


def test_an_overlong_line_is_kept_still_too_long_and_the_lines_kept_are_bounded() -> None:
    s = started()
    s.client(b"X" * 10_000 + b"\n")
    (line,) = s.unanswered
    assert len(line) == LONGEST + 1  # the new owner refuses it as the old one did
    s.owner(b"ERROR\n")
    for _ in range(PENDING + 10):
        s.client(b"CHOOSE 1\n")
    assert len(s.unanswered) == PENDING
    for _ in range(10):  # the oldest answers go to the lines no longer kept
        s.owner(b"ERROR\n")
    assert len(s.unanswered) == PENDING
    s.owner(b"ERROR\n")
    assert len(s.unanswered) == PENDING - 1


def test_the_client_bytes_go_on_unchanged() -> None:
    s = started()
    assert s.client(b"CHOOSE 5\nMO") == b"CHOOSE 5\nMO"
