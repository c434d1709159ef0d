"""An ACPC match's log, and who may read it (docs/privacy.md, "ACPC matches").

The log (``<data>/acpc/<match id>.log``) is the reference dealer's: one ``STATE:`` line
per hand with every player's hole cards, folded hands included.  So while the match
runs only admins read it; each program reads its own lines, kept beside it in
``<match id>.p<player>.log``: the same lines with the cards as that program saw them
(its own, and those shown down), asked for with the program's ``key`` (the match's
creation answer gives one per program).  Once the match is over everyone reads the
whole log, as the dealer publishes it, and the programs' own files are deleted.

Files are created readable by the hub's user only.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from hub.connections.transcript import DIR_MODE, FILE_MODE


def _open(path: Path) -> IO[str]:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    return os.fdopen(fd, "w", encoding="ascii", errors="replace")


def own_line(line: str, cards: str) -> str:
    """The log's ``STATE:<hand>:<betting>:<cards>:<payoffs>:<names>`` line with the
    cards as one program saw them."""
    parts = line.split(":")
    if len(parts) != 6 or not parts[0] == "STATE":
        return line
    parts[3] = cards
    return ":".join(parts)


def hand_number(line: str) -> int | None:
    """The hand of a ``STATE:<hand>:...`` or ``MATCHSTATE:<position>:<hand>:...`` line."""
    parts = line.split(":", 3)
    field = parts[1] if parts[0] == "STATE" else parts[2] if len(parts) > 2 else ""
    return int(field) if field.isdigit() else None


def seen_cards(state: str | None) -> str | None:
    """The cards of a ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` line."""
    if state is None:
        return None
    parts = state.split(":", 4)
    return parts[4] if len(parts) == 5 else None


class MatchLog:
    """The log of one match and its programs' own logs.

    :param folder: ``<data>/acpc``.
    :param match_id: the match.
    :param keys: player index → the secret key of each program of the match.
    """

    def __init__(self, folder: Path, match_id: str, keys: Mapping[int, str]) -> None:
        self.path = folder / f"{match_id}.log"
        self.keys = dict(keys)
        self._own = {index: folder / f"{match_id}.p{index}.log" for index in keys}
        self._files: dict[int | None, IO[str]] = {}

    def open(self) -> None:
        """Create the files (the match starts)."""
        self.path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        self._files[None] = _open(self.path)
        for index, path in self._own.items():
            self._files[index] = _open(path)

    def write(self, line: str, everywhere: bool = True) -> None:
        """A line of the log (``everywhere``: the programs' own logs too)."""
        for index, file in self._files.items():
            if index is None or everywhere:
                file.write(line + "\n")
                file.flush()

    def own(self, index: int, line: str, cards: str | None) -> None:
        """A hand's ``STATE:`` line into program ``index``'s own lines, with ``cards``
        (its last match state's cards) for every player's (none when it saw none:
        never another's); nothing once the log is closed."""
        file = self._files.get(index)
        if file is None:
            return
        if cards is None:
            cards = "|" * line.split(":")[3].split("/")[0].count("|")
        file.write(own_line(line, cards) + "\n")
        file.flush()

    def close(self) -> None:
        """Close the files; the programs' own logs go (the whole log is public now)."""
        for file in self._files.values():
            file.close()
        self._files.clear()
        for path in self._own.values():
            path.unlink(missing_ok=True)

    @property
    def open_now(self) -> bool:
        """Whether the match is writing its log."""
        return bool(self._files)

    def text(self) -> str | None:
        """The whole log as written so far (``None`` before the match started)."""
        return _read(self.path)

    def program(self, key: str | None) -> int | None:
        """The player whose program's key is ``key`` (``None``: no such key)."""
        if not key:
            return None
        found = None
        for index, secret in self.keys.items():
            if hmac.compare_digest(key.encode(), secret.encode()):
                found = index
        return found

    def path_of(self, index: int) -> Path | None:
        """The file of program ``index``'s own lines (``None``: no such program)."""
        return self._own.get(index)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return None
