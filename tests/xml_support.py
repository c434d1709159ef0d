"""Helpers for the XML front-end tests: a hub of real parts on a fake clock, and a
connection driven through ``StringTransport``."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from twisted.internet import defer
from twisted.internet.address import IPv4Address

from hub.frontends.xml import codec
from hub.model import BadAction, Conflict, GameError, NotFound
from tests import support
from tests.support import TCPStringTransport


@dataclass
class MemoryAccount:
    name: str
    type: str
    balance: Decimal
    digest: bytes

    @property
    def type_code(self) -> int:
        return {"player": 0, "bot": 1, "admin": 2}[self.type]


class MemoryStore:
    """The part of ``IStore`` the XML front end uses, in memory (no database needed).

    Used where a test is about the front end, not about the store; the acceptance
    tests use the real store when it is present.
    """

    new_account_grant = Decimal("1000.00")

    def __init__(self) -> None:
        self.accounts: dict[str, MemoryAccount] = {}
        self.finished: list[dict[str, Any]] = []

    @staticmethod
    def _digest(name: str, password: str) -> bytes:
        return hashlib.sha256(f"{name.lower()}\0{password}".encode()).digest()

    def create_account(self, name: str, password: str, type: str = "player", grant=None):
        if not name or len(name) > 32 or not name.isprintable():
            return defer.fail(BadAction("a name is 1 to 32 printable characters"))
        if len(password) < 4:
            return defer.fail(BadAction("a password has at least 4 characters"))
        if name.lower() in self.accounts:
            return defer.fail(Conflict(f"the name {name} is taken"))
        account = MemoryAccount(name, type, self.new_account_grant, self._digest(name, password))
        self.accounts[name.lower()] = account
        return defer.succeed(account)

    def authenticate(self, name: str, password: str, source: str | None = None):
        account = self.accounts.get(name.lower())
        if account is None or not hmac.compare_digest(account.digest, self._digest(name, password)):
            return defer.fail(GameError("wrong name or password", 401))
        return defer.succeed(account)

    def delete_account(self, name: str):
        account = self.accounts.pop(name.lower(), None)
        if account is None:
            return defer.fail(NotFound(f"no account {name}"))
        return defer.succeed(account.balance)

    def change_password(self, name: str, old: str, new: str, source: str | None = None):
        account = self.accounts.get(name.lower())
        if account is None or account.digest != self._digest(name, old):
            return defer.fail(GameError("wrong name or password", 401))
        account.digest = self._digest(name, new)
        return defer.succeed(None)

    def games(self, game_id=None, player=None, since=None, until=None, limit=50):
        return defer.succeed([g for g in self.finished if game_id in (None, g["game_id"])][:limit])

    def hands(self, game_id=None, player=None, since=None, until=None, limit=50):
        return defer.succeed([])

    def chips_at(self, game_id):
        return defer.succeed({})

    def balances(self) -> dict[str, Decimal]:
        return {k: a.balance for k, a in self.accounts.items()}


class FakeHub(support.FakeHub):
    """The hub of the XML front-end tests: transcripts under ``data``, the in-memory
    store unless given one, the XML and web ports said to be 4000 and 8080."""

    def __init__(self, data: Path, store: Any = None, **options: Any) -> None:
        options = {"xml_check_output": True, **options}
        super().__init__(data=data, store=store if store is not None else MemoryStore(), **options)
        self.bound_ports = {"xml": 4000, "web": 8080}


def validated(data: bytes):
    """Parse a server document, failing the test unless it validates."""
    return codec.parse_document(data)


class Conn:
    """One client connection over ``StringTransport``; every document it gets is
    validated against ``message.xsd``."""

    _port = 40000

    def __init__(self, frontend, host: str = "127.0.0.1") -> None:
        Conn._port += 1
        self.proto = frontend.buildProtocol(IPv4Address("TCP", host, Conn._port))
        self.transport = TCPStringTransport()
        self.proto.makeConnection(self.transport)
        self.sid = 0
        self.game_sids: dict[int, int] = {}

    def raw(self, data: bytes) -> None:
        self.proto.dataReceived(data)

    def send(self, document: bytes | str) -> None:
        if isinstance(document, str):
            document = document.encode()
        self.raw(len(document).to_bytes(4, "big") + document)

    def request(self, body: str, sid: int | None = None) -> None:
        sid = self.sid if sid is None else sid
        self.send(f'<message sessionid="{sid}"><request>{body}</request></message>')

    def read(self) -> list:
        self.proto.frontend.outbox.release()  # the reactor's turn ends (held copies go)
        data = self.transport.value()
        self.transport.clear()
        out = []
        while data:
            n = int.from_bytes(data[:4], "big")
            assert len(data) >= 4 + n, "incomplete frame from the server"
            out.append(validated(data[4 : 4 + n]))
            data = data[4 + n :]
        return out

    def one(self, body: str, sid: int | None = None):
        """Send a request; return (its response, the other documents after it)."""
        self.request(body, sid)
        docs = self.read()
        responses = [d for d in docs if d[0].tag == "response"]
        assert len(responses) == 1, [codec.etree.tostring(d) for d in docs]
        assert docs[0][0].tag == "response", "the response comes first"
        return responses[0], [d for d in docs if d[0].tag != "response"]

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting

    def close(self) -> None:
        self.proto.connectionLost(None)


def outcome(response) -> tuple[bool, int | None, str]:
    """(success, errorcode, description) of a response document."""
    node = response[0][0]
    if node.tag != "general":
        node = node[0] if len(node) else node
    code = node.get("errorcode")
    description = node.findtext("description") or ""
    return node.get("success") == "true", int(code) if code else None, description


def login(conn: Conn, name: str, password: str = "secret", create: bool = True):
    if create:
        r, _ = conn.one(
            f'<accountmanagement><create accountname="{name}" password="{password}" '
            f'accounttype="0"/></accountmanagement>',
            0,
        )
        assert outcome(r)[0], outcome(r)
    r, _ = conn.one(
        f'<authentication><login accountname="{name}" password="{password}"/></authentication>',
        0,
    )
    assert outcome(r)[0], outcome(r)
    conn.sid = int(r.get("sessionid"))
    return r
