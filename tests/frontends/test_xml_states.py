"""Over the wire: the XML connection's state refuses a request before its handler
sees it, in the order of its rules (a foreign session, then the state)."""

from __future__ import annotations

import pytest

from hub.frontends.xml import make_factory
from tests.xml_support import Conn, FakeHub, login, outcome

FOREIGN = 4242  # a session id nobody owns

LOBBY = "<lobby><gamelist/></lobby>"
ACCOUNT = (
    '<accountmanagement><changepassword accountname="ann" oldpassword="secret" '
    'newpassword="secret2"/></accountmanagement>'
)
LOGIN = '<authentication><login accountname="ann" password="secret"/></authentication>'
GAME = '<game gameid="7"><part/></game>'


@pytest.fixture
def frontend(tmp_path):
    f = make_factory(FakeHub(tmp_path))
    f.doStart()
    yield f
    f.doStop()


def connected(frontend) -> Conn:
    conn = Conn(frontend)
    conn.read()
    return conn


@pytest.mark.parametrize(
    ("body", "sid", "code", "reason"),
    [
        (LOBBY, 0, 401, "log in first"),
        (LOBBY, FOREIGN, 403, "not your session"),  # the session before the state
        (ACCOUNT, FOREIGN, 403, "not your session"),
        (LOGIN, FOREIGN, 403, "not your session"),
        (GAME, 0, 401, "log in first"),
        (GAME, FOREIGN, 401, "log in first"),  # a game request: the state first
    ],
)
def test_before_login(frontend, body, sid, code, reason):
    conn = connected(frontend)
    r, _ = conn.one(body, sid)
    assert outcome(r) == (False, code, reason)


def test_after_login(frontend):
    conn = connected(frontend)
    login(conn, "ann")
    assert outcome(conn.one(LOBBY, 0)[0]) == (False, 403, "not your lobby session")
    assert outcome(conn.one(LOBBY, FOREIGN)[0]) == (False, 403, "not your lobby session")
    assert outcome(conn.one(ACCOUNT, FOREIGN)[0]) == (False, 403, "not your session")
    assert outcome(conn.one(LOGIN, FOREIGN)[0]) == (False, 403, "not your session")
    assert outcome(conn.one(LOGIN, conn.sid)[0]) == (False, 409, "already logged in as ann")
    assert outcome(conn.one(GAME, conn.sid)[0]) == (False, 403, "not your game session")
    assert conn.one(LOBBY)[0].find("response/lobby/gamelist") is not None


def test_logout_goes_back_to_the_start(frontend):
    conn = connected(frontend)
    login(conn, "ann")
    assert conn.proto.connection.state == "logged in"
    assert outcome(conn.one("<authentication><logout/></authentication>")[0])[0]
    assert conn.proto.connection.state == "connected"
    assert outcome(conn.one(LOBBY, 0)[0]) == (False, 401, "log in first")
    login(conn, "ann", create=False)
    assert conn.one(LOBBY)[0].find("response/lobby/gamelist") is not None


def test_a_refused_connection_reads_nothing_more(frontend):
    conn = connected(frontend)
    conn.raw(b"\x00\x00\x00\x00")
    conn.read()
    assert conn.proto.connection.state == "closing"
    conn.request(LOBBY, 0)
    assert conn.read() == []
    conn.close()
    assert conn.proto.connection.state == "closed"
