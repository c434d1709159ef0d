"""Fuzz the XML front end on a real hub, over loopback sockets (4-byte framed documents).

A connection fuzzes before it logs in, in the lobby, and in a game it created and
joined (a hello game against its bot, or a hold'em table where it takes a seat and
acts), with requests built from the protocol's grammar (every group and operation of
``message.xsd`` with random attribute values and payloads), valid requests in the
wrong state (another session's id, a game it is not in, logging in twice), and
byte-level mutations of valid documents.  Now and then it ends by mutating the frame
header itself and closes.
"""

from __future__ import annotations

import contextlib
import random
import threading

import pytest
from lxml import etree

from tests.integration.xmlsocket import XMLClient

from . import common

#: where a connection stops walking and fuzzes, with its weight
STATES = {"anonymous": 1, "lobby": 2, "hello": 3, "holdem": 4}
PASSWORD = "fuzz-pw-1"


def _clean(value: str) -> str:
    """``value`` without the characters XML 1.0 cannot carry."""
    return "".join(
        c
        for c in value
        if c in "\t\n\r"
        or 0x20 <= ord(c) <= 0xD7FF
        or 0xE000 <= ord(c) <= 0xFFFD
        or ord(c) > 0xFFFF
    )


def _value(rng: random.Random) -> str:
    return _clean(
        rng.choice(
            (common.text(rng), str(common.number(rng)), "hello", "texas-holdem", "0", "fz-1")
        )
    )


def document(sessionid: object, body: etree._Element) -> bytes:
    """``<message sessionid=…><request>body</request></message>``."""
    root = etree.Element("message")
    if sessionid is not None:
        root.set("sessionid", str(sessionid))
    etree.SubElement(root, "request").append(body)
    return etree.tostring(root)


def frame(data: bytes) -> bytes:
    """One frame: the length, then the document."""
    return len(data).to_bytes(4, "big") + data


class Grammar:
    """Random requests of every group and operation, with random values."""

    OPS = {
        "accountmanagement": {
            "create": ("accountname", "password", "accounttype"),
            "delete": ("accountname", "password"),
            "changepassword": ("accountname", "oldpassword", "newpassword"),
        },
        "authentication": {"login": ("accountname", "password"), "logout": ()},
        "lobby": {
            "availablegames": (),
            "gamelist": ("gametype", "gamevariant"),
            "gamedetails": ("gameid",),
            "findplayer": ("name",),
            "history": ("gameid", "accountname", "limit"),
        },
        "game": {
            "create": ("gametype", "name"),
            "delete": (),
            "join": (),
            "part": (),
            "action": (),
            "chat": ("type",),
            "custom": (),
        },
    }

    def __init__(self, rng: random.Random, gameids: list[int]) -> None:
        self.rng = rng
        self.gameids = gameids

    def gameid(self) -> str:
        rng = self.rng
        if self.gameids and rng.random() < 0.7:
            return str(rng.choice(self.gameids))
        return str(common.number(rng))

    def request(self) -> etree._Element:
        rng = self.rng
        group = rng.choice(list(self.OPS))
        op = rng.choice(list(self.OPS[group]))
        holder = etree.Element(group)
        if group == "game" and rng.random() < 0.9:
            holder.set("gameid", self.gameid())
        node = etree.SubElement(holder, op)
        for name in self.OPS[group][op]:
            if rng.random() < 0.8:
                node.set(name, self.gameid() if name == "gameid" else _value(rng))
        if rng.random() < 0.05:
            node.set(rng.choice(("x", "sessionid", "password", "gameid", "a-b")), _value(rng))
        if group == "game":
            self.payload(op, node)
        return holder

    def payload(self, op: str, node: etree._Element) -> None:
        rng = self.rng
        if op == "create" and rng.random() < 0.7:
            parameters = etree.SubElement(node, "parameters")
            for _ in range(rng.randrange(4)):
                tag = rng.choice(("variant", "seats", "seat", "option", "other"))
                child = etree.SubElement(parameters, tag)
                child.text = rng.choice(
                    ("open", "bot:caller", "bot:hello-bot", str(rng.randrange(12)), _value(rng))
                )
                if tag == "option":
                    child.set("name", rng.choice(("action_time", "showdown_pause", _value(rng))))
        elif op == "action":
            parameters = etree.SubElement(node, "parameters")
            if rng.random() < 0.5:
                self.texas(parameters)
            else:
                hello = etree.SubElement(parameters, rng.choice(("hello", "texasmessage", "x")))
                hello.text = _value(rng)
        elif op == "chat":
            message = etree.SubElement(node, "message")
            message.text = _value(rng)
        elif op == "custom" and rng.random() < 0.7:
            child = etree.SubElement(node, rng.choice(("handhistory", "x")))
            if rng.random() < 0.5:
                child.set("handid", _value(rng))

    def texas(self, parameters: etree._Element) -> None:
        rng = self.rng
        message = etree.SubElement(parameters, "texasmessage")
        action = etree.SubElement(message, "action")
        for tag in ("index", "amount", "seat", "name", "discarded"):
            for _ in range(rng.choice((0, 1, 1, 2)) if tag != "index" else 1):
                child = etree.SubElement(action, tag)
                child.text = rng.choice(
                    (str(rng.randrange(15)), str(common.number(rng)), "1.5", _value(rng))
                )


def poker_action(index: int, **fields: object) -> etree._Element:
    """``<parameters><texasmessage><action><index>…`` (valid by ``texas.xsd``)."""
    parameters = etree.Element("parameters")
    action = etree.SubElement(etree.SubElement(parameters, "texasmessage"), "action")
    etree.SubElement(action, "index").text = str(index)
    for tag, value in fields.items():
        etree.SubElement(action, tag).text = str(value)
    return parameters


def game_request(gameid: int, op: str, child: etree._Element | None = None) -> etree._Element:
    holder = etree.Element("game", gameid=str(gameid))
    node = etree.SubElement(holder, op)
    if child is not None:
        node.append(child)
    return holder


class _Conn(XMLClient):
    """One blocking XML connection that counts what it sends; ``None`` instead of an
    error once the server closed it."""

    def __init__(self, port: int, count) -> None:
        self.count = count
        self.closed = False
        super().__init__(port, timeout=30)

    def next(self) -> etree._Element | None:
        common.quick_ack(self.sock)
        try:
            return super().next()
        except OSError:  # ConnectionError too: the server closed the connection
            self.closed = True
            return None

    def send_counted(self, data: bytes, kind: str) -> etree._Element | None:
        """Send one framed document; its response (``None``: the connection ended)."""
        try:
            self.send(data)
        except OSError:
            self.closed = True
            return None
        self.count(kind)
        while True:
            doc = self.next()
            if doc is None or (len(doc) and doc[0].tag == "response"):
                return doc


def _ok(response: etree._Element | None, path: str) -> etree._Element | None:
    node = None if response is None else response.find(f"response/{path}")
    return node if node is not None and node.get("success") == "true" else None


class XMLTarget(common.Target):
    """XML clients, one account each per worker thread."""

    name = "xml"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.port = self.hub.ports["xml"]
        self.accounts: dict[int, str] = {}
        self.gameids: list[int] = []
        self.lock = threading.Lock()
        self.checker = False

    def account(self, conn: _Conn) -> str:
        """This thread's account (created on its first use)."""
        me = threading.get_ident()
        if me not in self.accounts:
            name = f"fz{len(self.accounts)}x{me % 10000}"
            create = etree.Element("accountmanagement")
            etree.SubElement(create, "create", accountname=name, password=PASSWORD, accounttype="0")
            created = _ok(
                conn.send_counted(document(0, create), "valid"), "accountmanagement/create"
            )
            assert created is not None
            with self.lock:
                self.accounts[me] = name
        return self.accounts[me]

    def fuzz(self, rng, conn: _Conn, sids: list[int], valid: list[bytes], wrong: list[bytes]):
        grammar = Grammar(rng, self.gameids)
        for _ in range(rng.randrange(1, 12)):
            roll = rng.random()
            if roll < 0.4:
                sid = rng.choice([*sids, 0, common.number(rng), None])
                kind, data = "grammar", document(sid, grammar.request())
            elif roll < 0.6 and wrong:
                kind, data = "wrong_state", rng.choice(wrong)
            else:
                kind, data = "mutated", common.mutate(rng, rng.choice(valid), valid)
            if conn.send_counted(data, kind) is None:
                return False
        return True

    def connection(self, rng: random.Random) -> None:
        depth = rng.choices(list(STATES), list(STATES.values()))[0]
        conn = _Conn(self.port, self.count)
        try:
            self.walk(rng, conn, depth)
        finally:
            if not conn.closed and rng.random() < 0.1:  # a broken frame header, then close
                data = frame(document(0, etree.Element("lobby")))
                with contextlib.suppress(OSError):
                    conn.sock.sendall(common.mutate(rng, data)[: rng.randrange(1, 12)])
                    self.count("mutated")
            conn.close()

    def walk(self, rng: random.Random, conn: _Conn, depth: str) -> None:
        availablegames = etree.Element("lobby")
        etree.SubElement(availablegames, "availablegames")
        login = etree.Element("authentication")
        name = self.account(conn)
        etree.SubElement(login, "login", accountname=name, password=PASSWORD)
        valid = [document(0, login), document(0, availablegames)]
        if depth == "anonymous":
            self.fuzz(rng, conn, [0], valid, [document(5, availablegames)])
            return
        answer = _ok(conn.send_counted(document(0, login), "valid"), "authentication/login")
        if answer is None:
            return
        sid = conn_sid(answer)
        gamelist = etree.Element("lobby")
        etree.SubElement(gamelist, "gamelist")
        valid = [document(sid, gamelist), document(sid, availablegames), document(0, login)]
        if depth == "lobby":
            self.fuzz(rng, conn, [sid], valid, [document(0, login), document(sid + 1, gamelist)])
            return
        create = etree.Element("game")
        kind = "hello" if depth == "hello" else "texas-holdem"
        node = etree.SubElement(create, "create", gametype=kind, name=f"fuzz {kind}")
        parameters = etree.SubElement(node, "parameters")
        for seat in ("open", "bot:hello-bot" if kind == "hello" else "bot:caller"):
            etree.SubElement(parameters, "seat").text = seat
        if kind == "texas-holdem":
            for option, value in (("action_time", 2), ("showdown_pause", 0.2)):
                etree.SubElement(parameters, "option", name=option).text = str(value)
        created = _ok(conn.send_counted(document(sid, create), "valid"), "game/create")
        if created is None:
            return
        gameid = int(created.get("gameid"))
        with self.lock:
            self.gameids[:] = (self.gameids + [gameid])[-30:]
        joined = conn.send_counted(document(sid, game_request(gameid, "join")), "valid")
        if _ok(joined, "game/join") is None:
            return
        gsid = int(joined.get("sessionid") or 0)
        if kind == "hello":
            hello = etree.Element("parameters")
            etree.SubElement(hello, "hello").text = "hi"
            act = document(gsid, game_request(gameid, "action", hello))
        else:
            act = document(gsid, game_request(gameid, "action", poker_action(11, amount=100)))
            conn.send_counted(act, "valid")  # take a seat with 100 chips
            act = document(gsid, game_request(gameid, "action", poker_action(rng.randrange(11))))
        chat = etree.Element("message")
        chat.text = "hello table"
        valid = [act, document(gsid, game_request(gameid, "chat", chat)), *valid]
        wrong = [
            document(sid, game_request(gameid, "action", poker_action(2))),  # the lobby session
            document(gsid, game_request(gameid, "join")),
            document(gsid, game_request(gameid + 1, "part")),
            document(0, login),
        ]
        for _ in range(rng.randrange(1, 6)):
            if not self.fuzz(rng, conn, [sid, gsid], valid, wrong):
                return
            if kind == "texas-holdem":  # a legal-looking move now and then keeps hands going
                index = rng.choice((0, 1, 2, 3, 4, 5))
                action = poker_action(index, amount=rng.choice((2, 4, 10)))
                if (
                    conn.send_counted(
                        document(gsid, game_request(gameid, "action", action)), "valid"
                    )
                    is None
                ):
                    return
        if rng.random() < 0.5:
            conn.send_counted(document(gsid, game_request(gameid, "part")), "valid")

    def served(self) -> None:
        """A fresh connection logs in (a new account the first time) and lists games."""
        conn = _Conn(self.port, lambda kind: None)
        try:
            assert conn.greeting is not None and conn.greeting[0].tag == "info"
            if not self.checker:
                create = etree.Element("accountmanagement")
                etree.SubElement(
                    create, "create", accountname="fz-checker", password=PASSWORD, accounttype="0"
                )
                assert (
                    _ok(conn.send_counted(document(0, create), ""), "accountmanagement/create")
                    is not None
                )
                self.checker = True
            login = etree.Element("authentication")
            etree.SubElement(login, "login", accountname="fz-checker", password=PASSWORD)
            answer = _ok(conn.send_counted(document(0, login), ""), "authentication/login")
            assert answer is not None, "the checker could not log in"
            request = etree.Element("lobby")
            etree.SubElement(request, "gamelist")
            listed = conn.send_counted(document(conn_sid(answer), request), "")
            assert listed is not None and listed.find("response/lobby/gamelist/games") is not None
        finally:
            conn.close()


def conn_sid(login: etree._Element) -> int:
    """The session id a login response gave (its envelope's ``sessionid``)."""
    return int(login.getroottree().getroot().get("sessionid"))


TARGET = XMLTarget


def test_fuzz_xml_bounded(hub):
    """A few thousand fuzzed XML documents (the CI run)."""
    common.bounded(hub, TARGET)


@pytest.mark.slow
def test_fuzz_xml_full(hub):
    """At least 10^5 fuzzed XML documents (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
