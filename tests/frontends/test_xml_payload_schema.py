"""A game brings the schema of its XML payload (``IXMLPayloadSchema``): the XML front
end validates actions with it before the adapter reads them, and publishes it at
``/schema/<name>`` beside ``message.xsd``; no game's schema is the front end's own."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from twisted.internet.task import Clock
from twisted.web.resource import Resource
from twisted.web.server import Site

from hub.frontends.xml import codec, http_resources
from hub.frontends.xml.adapters import (
    GenericXMLAdapter,
    adapter_for,
    parse_action,
    payload_schema,
    published_schemas,
)
from hub.model import BadAction, GameError
from hub.plugins.registry import Registry
from tests.plugins.helpers import write_meta
from tests.plugins.test_distribution import get
from tests.support import FakeHub

SERVER = """
from zope.interface import implementer

from hub.frontends.xml.payload import XMLGameAdapter, element
from hub.interfaces import IGameFactory, IXMLGameAdapter, IXMLPayloadSchema


@implementer(IXMLGameAdapter, IXMLPayloadSchema)
class Adapter(XMLGameAdapter):
    payload_schema = SCHEMA

    def parse_action(self, parameters):
        return {"said": parameters[0].text}

    def render_event(self, event, seat):
        return None

    def render_view(self, view):
        return element("chant")


@implementer(IGameFactory)
class Factory:
    name = NAME
    summary = "a game with its own payload schema"
    variants = ()
    min_seats = max_seats = default_seats = 1
    frontends = ("xml",)

    def create(self, config, context):
        raise NotImplementedError

    def adapter(self, frontend):
        return Adapter() if frontend == "xml" else None
"""

CHANT_XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="chant">
    <xs:simpleType><xs:restriction base="xs:string"><xs:maxLength value="5"/></xs:restriction>
    </xs:simpleType>
  </xs:element>
</xs:schema>
"""


def drop(data: Path, name: str, schema: str, files: dict[str, bytes]) -> None:
    """A zipped game plugin ``name`` whose adapter declares ``schema``."""
    source = f"NAME = {name!r}\nSCHEMA = {schema!r}\n" + SERVER
    archive = data / "plugins" / f"{name}.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"{name}/__init__.py", "")
        z.writestr(f"{name}/server.py", source)
        for path, content in files.items():
            z.writestr(f"{name}/{path}", content)
    write_meta(
        data / "plugins" / "meta",
        name,
        f"{name}.server:Factory",
        package=archive.name,
        frontends=["xml"],
    )


@pytest.fixture
def registry(tmp_path):
    data = tmp_path / "data"
    drop(data, "chant", "schemas/chant.xsd", {"schemas/chant.xsd": CHANT_XSD})
    drop(data, "hum", "hum.xsd", {"hum.xsd": b"<not-a-schema/>"})
    drop(data, "mumble", "../mumble.xsd", {})
    drop(data, "shout", "message.xsd", {"message.xsd": CHANT_XSD})
    registry = Registry(data, Clock(), None)
    registry.load()
    assert {g.name for g in registry.game_types()} == {"chant", "hum", "mumble", "shout"}
    return registry


def params(xml: str) -> etree._Element:
    return etree.fromstring(f"<parameters>{xml}</parameters>")


def adapter(registry, name):
    return adapter_for(registry.game_factory(name))


def test_actions_are_checked_against_the_game_schema_first(registry):
    chant = adapter(registry, "chant")
    found = payload_schema(chant)
    assert found is not None and found.name == "chant.xsd" and found.data == CHANT_XSD
    assert parse_action(chant, params("<chant>la</chant>")) == {"said": "la"}
    for bad in ("<chant>lalalala</chant>", "<other/>", "<chant>la</chant><chant>x<b/></chant>"):
        with pytest.raises(BadAction, match="does not match chant.xsd") as e:
            parse_action(chant, params(bad))
        assert e.value.code == 400
    # an adapter without a schema reads its payload itself
    assert payload_schema(GenericXMLAdapter()) is None
    assert parse_action(GenericXMLAdapter(), params('<action>{"a": 1}</action>')) == {"a": 1}
    # hostile JSON is a clear 400, never a RecursionError (16 KiB of "[" once was)
    for bad in ("[" * 16000, '{"a": "\\ud800"}', "NaN", "{"):
        with pytest.raises(BadAction, match="not JSON") as e:
            parse_action(GenericXMLAdapter(), params(f"<action>{bad}</action>"))
        assert e.value.code == 400


@pytest.mark.parametrize(
    ("name", "reason"),
    [("hum", "not a usable schema"), ("mumble", "not a plain path"), ("shout", "cannot be")],
)
def test_an_unusable_schema_refuses_the_game_actions(registry, name, reason):
    with pytest.raises(GameError, match=reason) as e:
        parse_action(adapter(registry, name), params("<chant>la</chant>"))
    assert e.value.code == 500


def test_published_at_schema_with_message_xsd(registry):
    assert published_schemas(registry) == {
        "message.xsd": codec.schema_bytes("message.xsd"),
        "chant.xsd": CHANT_XSD,
    }

    hub = FakeHub(registry)
    root = Resource()
    for path, resource in http_resources(hub):
        root.putChild(path, resource)
    site = Site(root)
    response = get(site, b"/schema/chant.xsd")
    assert response.status == 200 and response.body == CHANT_XSD
    assert response.headers["content-type"].startswith("application/xml")
    assert response.headers["etag"].strip('"') == hashlib.sha256(CHANT_XSD).hexdigest()
    assert get(site, b"/schema").body == b"chant.xsd\nmessage.xsd\n"
    for missing in (b"/schema/hum.xsd", b"/schema/texas.xsd", b"/schema/chant.xsd/x"):
        assert get(site, missing).status == 404, missing
