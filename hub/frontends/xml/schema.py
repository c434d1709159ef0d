"""The XML protocol's schemas and the hardened parser every untrusted XML goes through.

The parser resolves no entities, loads no DTD, touches no network and refuses huge
trees; any DOCTYPE or DTD declaration is refused before it parses.  ``message.xsd`` is
the front end's own schema; a game brings its payload schema
(:class:`hub.interfaces.IXMLPayloadSchema`, compiled by :func:`compile_schema`).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from lxml import etree

from .errors import ProtocolError

#: the front end's own schema (games bring theirs: ``IXMLPayloadSchema``)
MESSAGE_SCHEMA = "message.xsd"
#: declarations refused anywhere in untrusted XML
FORBIDDEN = re.compile(r"<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)", re.I)


def hardened_parser() -> etree.XMLParser:
    """A parser for untrusted XML (no entities, no DTD, no network, no huge trees;
    comments and processing instructions dropped)."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )


def compile_schema(data: bytes) -> etree.XMLSchema:
    """An XSD document's bytes → the compiled schema (read with the hardened parser;
    it may not include or import other files).

    :raises ValueError, lxml.etree.Error: not a usable schema.
    """
    if FORBIDDEN.search(data.decode("utf-8", "replace")):
        raise ValueError("DOCTYPE and DTD declarations are refused")
    return etree.XMLSchema(etree.fromstring(data, hardened_parser()))


def schema_bytes(name: str) -> bytes:
    """The published text of the front end's own schema, ``message.xsd``."""
    if name != MESSAGE_SCHEMA:
        raise KeyError(name)
    return resources.files("hub").joinpath("schema", name).read_bytes()


@cache
def message_schema() -> etree.XMLSchema:
    """The compiled ``message.xsd``."""
    return compile_schema(schema_bytes(MESSAGE_SCHEMA))


def validate(root: etree._Element, schema: etree.XMLSchema) -> None:
    """Validate ``root`` against ``schema``.

    :raises ProtocolError: 400 with the first schema complaint.
    """
    try:
        ok = schema.validate(root)
    except (etree.Error, ValueError, TypeError) as e:
        raise ProtocolError(f"document cannot be validated: {short(e)}") from None
    if not ok:
        error = schema.error_log.last_error
        where = f"line {error.line}: " if error is not None else ""
        message = error.message if error is not None else "invalid"
        raise ProtocolError(f"document does not match the schema: {where}{message}")


def short(error: BaseException) -> str:
    """An exception's text for a reason a client reads (at most 200 characters)."""
    text = str(error) or type(error).__name__
    return text if len(text) < 200 else text[:197] + "..."
