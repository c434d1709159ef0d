"""Documents serialised once for every session that asks for the same thing.

A game list (while no listed game changes) or the answer to a chat line is the same
document for every connection but for the envelope's session id.  :class:`Shared`
keeps such documents serialised with session id 1 (the last ``size`` of them, by a key
the handler makes of everything the document shows) and answers with a copy carrying
the asker's session id (:func:`.encoding.for_session`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from lxml import etree

from . import encoding


class Shared:
    """A bounded store of serialised documents, by key.

    :param encode: what serialises a document (the front end's, validating in tests).
    :param size: documents kept; the oldest is dropped for a new one.
    """

    __slots__ = ("_documents", "_encode", "size")

    def __init__(self, encode: Callable[[etree._Element], bytes], size: int) -> None:
        self._encode = encode
        self.size = size
        self._documents: dict[Hashable, bytes] = {}

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, key: Hashable, sessionid: int, build: Callable[[int], etree._Element]) -> bytes:
        """The document ``build(sessionid)`` would give, serialised: built (for session
        id 1) only when ``key`` is not kept."""
        if not sessionid:  # no session id to put in the envelope: nothing to share
            return self._encode(build(0))
        documents = self._documents
        shared = documents.get(key)
        if shared is None:
            shared = self._encode(build(1))
            if len(documents) >= self.size:
                del documents[next(iter(documents))]
            documents[key] = shared
        return encoding.for_session(shared, sessionid)
