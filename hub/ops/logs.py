"""``--log-format json``: one JSON object per log event and line, for log collectors.

:func:`json_observer` is ``twisted.logger``'s own JSON observer
(:func:`twisted.logger.jsonFileLogObserver`, records separated by newlines rather
than RFC 7464's record separator) behind a small filter that adds what a reader
wants on every line (``text``: the event formatted as the text log shows it,
``level``, ``time`` in ISO 8601) and drops every field whose name says it holds a
secret (:data:`SECRET_WORDS`).  Objects that are not JSON (a protocol, a request)
are written as ``{"unpersistable": true}`` by Twisted.

:func:`twistd_log_file` picks the file twistd itself would write its text log to
(``--logfile``, or standard output with ``-n``), so the JSON log goes where the text
log would have gone.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import IO, Any

from twisted.logger import ILogObserver, formatEvent, jsonFileLogObserver
from twisted.python import logfile
from zope.interface import implementer

#: the log formats of ``--log-format``
FORMATS = ("text", "json")
#: fields whose name holds one of these words are never written
SECRET_WORDS = (
    "password",
    "token",
    "secret",
    "csrf",
    "cookie",
    "authorization",
    "session",
    "seed",
)


def _secret(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


@implementer(ILogObserver)
class JSONLogObserver:
    """Writes each event as one line of JSON to ``out`` (see the module docstring)."""

    def __init__(self, out: IO[str]) -> None:
        self._out = jsonFileLogObserver(out, recordSeparator="")

    def __call__(self, event: dict[str, Any]) -> None:
        """Write ``event`` (without its secret fields)."""
        clean = {k: v for k, v in event.items() if not _secret(k)}
        try:
            text = formatEvent(event)
        except Exception:  # a broken format string still gets its line
            text = str(event.get("log_format", ""))
        clean["text"] = text
        level = event.get("log_level")
        clean["level"] = getattr(level, "name", None)
        when = event.get("log_time")
        if isinstance(when, int | float):
            clean["time"] = datetime.fromtimestamp(when, UTC).isoformat()
        self._out(clean)


def json_observer(out: IO[str]) -> JSONLogObserver:
    """A JSON-lines observer writing to ``out``."""
    return JSONLogObserver(out)


def twistd_log_file(server_options: Any) -> IO[str]:
    """The file twistd writes its log to for ``server_options`` (its ``--logfile``,
    ``-n``): standard output, or a rotating :class:`twisted.python.logfile.LogFile`."""
    name = server_options.get("logfile") if server_options is not None else None
    nodaemon = server_options.get("nodaemon") if server_options is not None else True
    if name == "-" or (not name and nodaemon):
        return sys.stdout
    return logfile.LogFile.fromFullPath(name or "twistd.log")  # type: ignore[return-value]
