"""The XML front end's errors, by who broke what (as h11 tells them apart).

- :class:`ProtocolError`: the peer broke the protocol (a frame that is not a valid
  request); answered with ``response/general`` and its code.
- :class:`LocalProtocolError`: we tried to send a document the schema does not allow
  (a bug of ours).
- :class:`Refused`: a valid request that is refused (not logged in, not your session,
  too many games...); answered in the request's own response element where it can say
  ``success="false"``.
"""

from __future__ import annotations

from lxml import etree


class ProtocolError(Exception):
    """The peer broke the protocol; answer with ``response/general`` and ``code``.

    :ivar code: 400 malformed or refused document, 413 too large.
    :ivar reason: a sentence a person can read.
    :ivar record: what a transcript may keep of the refused frame (set by
        :func:`.decoding.decode`): the document with its secret fields blanked when it is
        well-formed XML, else only its size.
    """

    def __init__(self, reason: str, code: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.record = b""
        self.document: etree._Element | None = None


class LocalProtocolError(Exception):
    """We tried to send a document the schema does not allow (a bug of ours)."""


class Refused(Exception):
    """A request is refused with ``code`` (answered as its own response, or
    ``response/general``)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
