"""The relay's session-id rewriting (hub.frontends.xml.relay); the relay itself is
shown end to end in tests/integration/test_cluster_xml.py."""

from __future__ import annotations

from lxml import etree

from hub.frontends.xml import encoding
from hub.frontends.xml.relay_documents import with_session


def test_a_document_of_ours_gets_the_clients_session_id():
    doc = encoding.serialise(encoding.build_game_state(7, [], 123456789, description="x"))
    out = with_session(doc, 42)
    root = etree.fromstring(out)
    assert root.get("sessionid") == "42"
    assert root.find("stateupdate/game").get("gameid") == "7"
    assert out.replace(b"42", b"123456789", 1) == doc  # nothing else changed


def test_a_foreign_document_is_rewritten_and_one_without_a_session_is_left_alone():
    foreign = b'<message  sessionid="5"><response><game gameid="1"><part success="true"/></game></response></message>'
    assert etree.fromstring(with_session(foreign, 9)).get("sessionid") == "9"
    bare = encoding.serialise(encoding.build_error(400, "bad"))
    assert with_session(bare, 9) == bare
    assert with_session(b"not xml", 9) == b"not xml"
