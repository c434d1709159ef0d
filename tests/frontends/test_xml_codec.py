"""The XML codec: hostile documents, schema validation, typed events, builders."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from hub.frontends.xml import codec, encoding
from hub.frontends.xml.codec import ProtocolError

LOGIN = (
    b'<message><request><authentication><login accountname="ann" password="pw"/>'
    b"</authentication></request></message>"
)


def refused(data: bytes, code: int = 400, **kw) -> str:
    with pytest.raises(ProtocolError) as info:
        codec.decode(data, **kw)
    assert info.value.code == code
    return info.value.reason


# -- typed events ---------------------------------------------------------------------


def test_login_event() -> None:
    event = codec.decode(LOGIN)
    assert event == codec.Login(0, "ann", "pw")
    assert "pw" not in repr(event)


def test_xml_declaration_utf8_and_bom_accepted() -> None:
    assert codec.decode(b'<?xml version="1.0" encoding="UTF-8"?>' + LOGIN).accountname == "ann"
    assert codec.decode(b"\xef\xbb\xbf" + LOGIN).accountname == "ann"


def test_every_request_decodes() -> None:
    def req(body: str, sid: int = 9) -> codec.Request:
        return codec.decode(
            f'<message sessionid="{sid}"><request>{body}</request></message>'.encode()
        )

    am = "<accountmanagement>{}</accountmanagement>"
    assert req(am.format('<create accountname="a" password="p" accounttype="1"/>')) == (
        codec.CreateAccount(9, "a", "p", 1)
    )
    assert req(am.format('<delete accountname="a" password="p"/>')) == codec.DeleteAccount(
        9, "a", "p"
    )
    assert req(am.format('<changepassword accountname="a" oldpassword="o" newpassword="n"/>')) == (
        codec.ChangePassword(9, "a", "o", "n")
    )
    assert req("<authentication><logout/></authentication>") == codec.Logout(9)
    assert req("<lobby><availablegames/></lobby>") == codec.AvailableGames(9)
    assert req("<lobby><gamelist/></lobby>") == codec.GameList(9, None, None)
    assert req('<lobby><gamelist gametype="hello" gamevariant="x"/></lobby>') == (
        codec.GameList(9, "hello", "x")
    )
    assert req('<lobby><gamedetails gameid="12"/></lobby>') == codec.GameDetails(9, 12)
    assert req('<lobby><findplayer name=" an "/></lobby>') == codec.FindPlayer(9, "an")
    assert req('<lobby><history gameid="3" limit="5"/></lobby>') == codec.History(9, 3, None, 5)
    assert req('<lobby><history accountname="ann"/></lobby>') == codec.History(9, None, "ann", 20)
    assert req('<lobby><ratings gametype="nmmorris"/></lobby>') == codec.Ratings(
        9, "nmmorris", "", 20
    )
    assert req(
        '<lobby><ratings gametype="texas-holdem" gamevariant="no-limit" limit="3"/></lobby>'
    ) == (codec.Ratings(9, "texas-holdem", "no-limit", 3))
    create = req(
        '<game><create gametype="hello" name="t"><parameters><variant>v</variant>'
        '<seat>open</seat><seat>bot:random</seat><option name="x">12</option>'
        '<option name="y">a b</option></parameters></create></game>'
    )
    assert create == codec.CreateGame(
        9, "hello", "t", "v", ("open", "bot:random"), None, (("x", 12), ("y", "a b"))
    )
    rated = req(
        '<game><create gametype="hello" name="t"><parameters><rated>true</rated>'
        "</parameters></create></game>"
    )
    assert isinstance(rated, codec.CreateGame) and rated.rated is True
    assert create.rated is None
    assert req('<game gameid="4"><join/></game>') == codec.JoinGame(9, 4)
    assert req('<game gameid="4"><part/></game>') == codec.PartGame(9, 4)
    assert req('<game gameid="4"><delete/></game>') == codec.DeleteGame(9, 4)
    chat = req('<game gameid="4"><chat sender="forged"><message>hi</message></chat></game>')
    assert chat == codec.Chat(9, 4, "hi", 0)
    action = req(
        '<game gameid="4"><action><parameters><hello>yo</hello></parameters></action></game>'
    )
    assert isinstance(action, codec.GameAction) and action.parameters[0].text == "yo"
    custom = req('<game gameid="4"><custom><ping/></custom></game>')
    assert isinstance(custom, codec.Custom) and custom.payload.tag == "ping"


@pytest.mark.parametrize(
    "body",
    [
        "<lobby><history/></lobby>",
        '<lobby><history gameid="1" accountname="a"/></lobby>',
        '<lobby><history gameid="1" limit="0"/></lobby>',
        '<lobby><findplayer name="  "/></lobby>',
        '<game><create gametype="h" name="n"><parameters><seats>x</seats></parameters></create></game>',
        '<game><create gametype="h" name="n"><parameters><seat>robot</seat></parameters></create></game>',
        '<game><create gametype="h" name="n"><parameters><what/></parameters></create></game>',
        '<game><create gametype="h" name="n"><parameters><rated>1</rated></parameters></create></game>',
        '<lobby><ratings gametype="h" limit="0"/></lobby>',
        "<lobby><ratings/></lobby>",
        '<game gameid="1"><voice>x</voice></game>',
        '<game gameid="x"><join/></game>',
        '<game gameid="99999999999999999999"><join/></game>',
        "<game><custom/></game>",
        '<accountmanagement><create accountname="a" password="b"/></accountmanagement>',
        "<authentication><login/></authentication>",
    ],
)
def test_malformed_requests(body: str) -> None:
    refused(f"<message><request>{body}</request></message>".encode())


def test_server_messages_from_a_client_are_refused() -> None:
    assert "requests" in refused(codec.encode(codec.build_error(400, "x")))


def test_chat_length_bounded() -> None:
    text = "x" * (codec.MAX_CHAT + 1)
    body = f'<game gameid="1"><chat sender="s"><message>{text}</message></chat></game>'
    refused(f"<message><request>{body}</request></message>".encode())


# -- hostile documents --------------------------------------------------------------


BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE message [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b']><message><request><lobby><findplayer name="&lol9;"/></lobby></request></message>'
)


def test_billion_laughs() -> None:
    assert "DOCTYPE" in refused(BILLION_LAUGHS)


def test_quadratic_blowup() -> None:
    big = b"A" * 50_000
    doc = (
        b'<!DOCTYPE message [<!ENTITY a "' + big + b'">]><message><request><lobby>'
        b'<findplayer name="' + b"&a;" * 5000 + b'"/></lobby></request></message>'
    )
    assert "DOCTYPE" in refused(doc)


def test_external_entity() -> None:
    doc = (
        b'<!DOCTYPE message [<!ENTITY e SYSTEM "file:///etc/passwd">]><message><request>'
        b'<lobby><findplayer name="&e;"/></lobby></request></message>'
    )
    assert "DOCTYPE" in refused(doc)
    # Even the raw parser (under the DOCTYPE check) neither reads files nor the network.
    raw = b'<!DOCTYPE message [<!ENTITY e SYSTEM "file:///etc/passwd">]><message>&e;</message>'
    root = etree.fromstring(raw, codec._parser())
    assert "root:" not in etree.tostring(root).decode()


@pytest.mark.parametrize("case", ["lower", "spaced", "entity_only"])
def test_doctype_variants_refused(case: str) -> None:
    doc = {
        "lower": b"<!doctype message><message/>",
        "spaced": b"<! DOCTYPE message><message/>",
        "entity_only": b'<message><!ENTITY x "y"></message>',
    }[case]
    refused(doc)


def test_doctype_entity_reaching_the_schema() -> None:
    doc = (
        b'<!DOCTYPE message [<!ENTITY t "1">]><message><request><accountmanagement>'
        b'<create accountname="a" password="b" accounttype="&t;"/>'
        b"</accountmanagement></request></message>"
    )
    assert "DOCTYPE" in refused(doc)
    # Under the DOCTYPE check: a tree holding an unexpanded entity reference, fed to
    # the schema, gives a ProtocolError and nothing else.
    tree = etree.fromstring(
        b'<!DOCTYPE message [<!ENTITY t "x">]><message><request><lobby>'
        b'<findplayer name="a"/></lobby></request><![CDATA[&t;]]>&t;</message>',
        codec._parser(),
    )
    with pytest.raises(ProtocolError):
        codec.validate(tree, codec.message_schema())


def test_deep_nesting() -> None:
    depth = 100_000
    doc = b"<message>" + b"<a>" * depth + b"</a>" * depth + b"</message>"
    refused(doc)


def test_moderately_deep_nesting_in_a_payload() -> None:
    depth = codec.MAX_DEPTH + 5
    payload = b"<a>" * depth + b"</a>" * depth
    doc = (
        b'<message><request><game gameid="1"><action><parameters>'
        + payload
        + b"</parameters></action></game></request></message>"
    )
    assert "deeper" in refused(doc)


def test_twenty_mib_attribute() -> None:
    value = b"x" * (20 << 20)
    doc = (
        b'<message><request><lobby><findplayer name="' + value + b'"/></lobby></request></message>'
    )
    refused(doc, 413)
    # With the size guard lifted the parser itself (huge_tree off) still refuses it.
    refused(doc, 400, max_size=64 << 20)


@pytest.mark.parametrize(
    "doc",
    [
        LOGIN.replace(b"ann", b"\xe9t\xe9"),
        LOGIN.decode().encode("utf-16"),
        LOGIN.decode().encode("utf-16-le"),
        b'<?xml version="1.0" encoding="ISO-8859-1"?>' + LOGIN,
        b'<?xml version="1.0" encoding="UTF-16"?>' + LOGIN,
        b"\xff\xfe\x00\x00",
        b"\xc0\x80",
    ],
)
def test_non_utf8(doc: bytes) -> None:
    refused(doc)


def test_empty_and_not_bytes() -> None:
    refused(b"")
    with pytest.raises(ProtocolError):
        codec.decode("<message/>")  # type: ignore[arg-type]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes(data: bytes) -> None:
    try:
        codec.decode(data)
    except ProtocolError as e:
        assert e.code in (400, 413) and e.reason


# -- grammar-aware random documents ------------------------------------------------

TAGS = [
    "message", "request", "response", "stateupdate", "info", "accountmanagement",
    "authentication", "lobby", "game", "create", "delete", "changepassword", "login",
    "logout", "availablegames", "gamelist", "gamedetails", "findplayer", "history", "join",
    "part", "action", "chat", "custom", "voice", "parameters", "message", "seat", "seats",
    "variant", "option", "hello", "texasmessage", "x",
]  # fmt: skip
ATTRS = [
    "sessionid", "gameid", "accountname", "password", "accounttype", "oldpassword",
    "newpassword", "gametype", "gamevariant", "name", "limit", "sender", "type",
]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(["0", "1", "-1", "9223372036854775807", "9223372036854775808", "", "ann",
                     "bot:random", "open", "true", "1e3", " 7 ", "&amp;", "<", "\u00e9"]),
    st.text(max_size=12),
)  # fmt: skip


_LEAF = st.tuples(
    st.sampled_from(TAGS),
    st.dictionaries(st.sampled_from(ATTRS), VALUES, max_size=3),
    st.one_of(st.none(), st.text(max_size=10)),
    st.just(()),
)
TREES = st.recursive(
    _LEAF,
    lambda children: st.tuples(
        st.sampled_from(TAGS),
        st.dictionaries(st.sampled_from(ATTRS), VALUES, max_size=3),
        st.one_of(st.none(), st.text(max_size=10)),
        st.lists(children, max_size=3),
    ),
    max_leaves=12,
)


def _render(node) -> str:
    tag, attrs, text, children = node
    from xml.sax.saxutils import escape, quoteattr

    a = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    inner = escape(text or "") + "".join(_render(c) for c in children)
    return f"<{tag}{a}>{inner}</{tag}>"


@st.composite
def documents(draw) -> bytes:
    body = draw(TREES)
    sessionid = draw(st.sampled_from(["", ' sessionid="0"', ' sessionid="42"', ' sessionid="x"']))
    text = f"<message{sessionid}><request>{_render(body)}</request></message>"
    if draw(st.booleans()):
        text = _render(body)
    data = text.encode("utf-8", "surrogatepass")
    mutation = draw(st.sampled_from(["none", "none", "truncate", "insert", "flip"]))
    if mutation == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif mutation == "insert":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    elif mutation == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
    return data


@st.composite
def valid_requests(draw) -> bytes:
    body = draw(
        st.sampled_from(
            [
                '<lobby><gamelist gametype="{v}"/></lobby>',
                '<lobby><findplayer name="{v}"/></lobby>',
                '<lobby><gamedetails gameid="{n}"/></lobby>',
                '<lobby><history gameid="{n}" limit="{n}"/></lobby>',
                '<game gameid="{n}"><join/></game>',
                '<game gameid="{n}"><chat sender="{v}"><message>{v}</message></chat></game>',
                '<game gameid="{n}"><action><parameters><hello>{v}</hello></parameters></action></game>',
                '<game><create gametype="{v}" name="{v}"><parameters><seats>{n}</seats>'
                '<option name="{v}">{v}</option></parameters></create></game>',
                '<accountmanagement><create accountname="{v}" password="{v}" accounttype="{n}"/>'
                "</accountmanagement>",
            ]
        )
    )
    from xml.sax.saxutils import escape

    v = escape(draw(st.text(max_size=20)), {'"': "&quot;"})
    n = draw(st.sampled_from(["0", "1", "-5", "20", "501", "9223372036854775807", "x", ""]))
    return f'<message sessionid="{n}"><request>{body.format(v=v, n=n)}</request></message>'.encode(
        "utf-8", "surrogatepass"
    )


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.one_of(documents(), valid_requests()))
def test_grammar_aware_documents_only_raise_declared_errors(data: bytes) -> None:
    try:
        event = codec.decode(data)
    except ProtocolError as e:
        assert e.code in (400, 413) and e.reason
    else:
        assert isinstance(event, codec.Request)


# -- builders -------------------------------------------------------------------------


def test_built_documents_validate_and_clean_text() -> None:
    doc = codec.build_chat(codec.wire_game_id("abc"), "bad\x00name", "line\x1bbreak", 5)
    data = codec.encode(doc)
    root = codec.parse_document(data)
    assert root.find(".//chat").get("sender") == "bad\ufffdname"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**63 - 1),
    st.text(),
    st.text(),
    st.integers(0, 2**63 - 1),
    st.integers(0, 5),
)
def test_chat_document_is_lxmls_serialisation(
    gameid: int, sender: str, text: str, sessionid: int, kind: int
) -> None:
    made = encoding.chat_document(gameid, sender, text, sessionid, kind)
    assert made == encoding.serialise(codec.build_chat(gameid, sender, text, sessionid, kind))


def test_chat_document_escapes_what_lxml_escapes() -> None:
    tricky = 'a"<>&\t\r\n\u2028\x01\ud800\U0001f600 é'
    made = encoding.chat_document(7, tricky, tricky, 3, 1)
    assert made == encoding.serialise(codec.build_chat(7, tricky, tricky, 3, 1))
    assert codec.parse_document(made) is not None


def test_invalid_server_document_is_a_local_error() -> None:
    root = codec.envelope(1)
    codec.sub(root, "nonsense")
    with pytest.raises(codec.LocalProtocolError):
        codec.encode(root)


def test_wire_game_id_stable_positive_long() -> None:
    a = codec.wire_game_id("abcdefghijklm")
    assert a == codec.wire_game_id("abcdefghijklm")
    assert 0 < a < 2**63
    assert a != codec.wire_game_id("abcdefghijkln")


def test_money_exact() -> None:
    assert codec.money(Decimal("0.1") + Decimal("0.2")) == "0.30"
    assert codec.money(100) == "100.00"


def test_schemas_published_bytes() -> None:
    assert b'name="message"' in codec.schema_bytes("message.xsd")
    for name in ("../x", "texas.xsd"):  # games bring their payload schemas
        with pytest.raises(KeyError):
            codec.schema_bytes(name)
