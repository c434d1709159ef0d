"""What a string from a client may be: the rules of every field, in one place.

Each front end checks what it decodes once, at its edge, against these rules (the web
API its JSON bodies, the XML front end its requests, the line protocols their logins),
and the hub's core checks the same rules again where a value is kept (the store its
account names and passwords, the lobby its game names, the chat its lines).  A value
that breaks a rule is refused with :class:`FieldError` (400) and a sentence a person
can read; nothing has changed by then.

Every text is a sequence of Unicode scalar values: a lone surrogate (``"\\ud800"`` in
JSON) can be neither stored, hashed nor written to a file, so it never gets in.  Text
shown to people (game names, chat, option values, searches) also has no control
characters, no line or paragraph separators, no bidirectional overrides and no Unicode
noncharacters (XML 1.0 cannot carry some of them either).

JSON bodies are read by :func:`loads`: at most :data:`JSON_MAX_DEPTH` levels of arrays
and objects (counted before decoding, without recursion), no ``NaN`` or ``Infinity``,
and every string in them (keys too) scalar values.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hub.model import BadAction

#: most levels of nested arrays and objects in a JSON body
JSON_MAX_DEPTH = 32
#: longest chat line, in characters (the XML protocol's limit too)
MAX_CHAT = 2000
#: most options a game is created with, and most items in one option value
MAX_OPTIONS = 64

_SURROGATE = re.compile("[\ud800-\udfff]")
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    chr(plane << 16 | 0xFFFE) + chr(plane << 16 | 0xFFFF) for plane in range(17)
)
#: what text shown to people never holds: controls, surrogates, line and paragraph
#: separators, bidirectional embeddings and overrides, noncharacters
_NOT_SHOWN = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069" + _NONCHARACTERS + "]"
)


class FieldError(BadAction):
    """A value from a client breaks the rules of its field (400)."""

    code = 400


def is_scalar_text(text: str) -> bool:
    """Whether ``text`` is Unicode scalar values only (it encodes as UTF-8)."""
    return _SURROGATE.search(text) is None


@dataclass(frozen=True)
class Field:
    """The rules of one kind of client string.

    :ivar what: the field in words (``"an account name"``), for error messages.
    :ivar minimum: fewest characters.
    :ivar maximum: most characters.
    :ivar pattern: the whole value must match it (``None``: any text shown to people).
    :ivar rule: the pattern in words, for error messages.
    :ivar visible: the value must hold more than white space.
    :ivar too_long: the status of a value over ``maximum`` (400; 413 for chat lines).
    """

    what: str
    minimum: int
    maximum: int
    pattern: re.Pattern[str] | None = None
    rule: str = ""
    visible: bool = False
    too_long: int = 400

    def check(self, value: object) -> str:
        """``value`` if it keeps the rules.

        :raises FieldError: it does not (the message names the field and the rule).
        """
        if not isinstance(value, str):
            raise FieldError(f"{self.what} must be text")
        plain = value.isascii() and value.isprintable()  # then no surrogate, no control
        if not plain and not is_scalar_text(value):
            raise FieldError(f"{self.what} must be valid Unicode text (no lone surrogates)")
        if len(value) < self.minimum:
            if self.minimum == 1:
                raise FieldError(f"{self.what} is required")
            raise FieldError(f"{self.what} has at least {self.minimum} characters")
        if len(value) > self.maximum:
            raise FieldError(f"{self.what} has at most {self.maximum} characters", self.too_long)
        if self.pattern is not None:
            if not self.pattern.fullmatch(value):
                raise FieldError(f"{self.what} {self.rule}")
        elif not plain and _NOT_SHOWN.search(value):
            raise FieldError(
                f"{self.what} may not hold control characters, line separators,"
                " direction overrides or noncharacters"
            )
        if self.visible and not value.strip():
            raise FieldError(f"{self.what} must hold more than white space")
        return value

    def ok(self, value: object) -> bool:
        """Whether :meth:`check` accepts ``value``."""
        try:
            self.check(value)
        except FieldError:
            return False
        return True


#: an account's name (every front end with accounts; names travel in line protocols)
ACCOUNT_NAME = Field(
    "an account name",
    1,
    32,
    re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*"),
    "uses only letters A-Z, digits, '_', '.' and '-', and starts with a letter or digit",
)
#: a password being set (a new account, a new password)
PASSWORD = Field(
    "a password",
    4,
    1024,
    re.compile(r"[^\x00-\x1f\x7f]+"),
    "may not hold control characters",
)
#: a password given to log in (or to confirm a change): only its size and encoding
#: are checked, so an old password is never refused as such
GIVEN_PASSWORD = Field("a password", 1, 1024, re.compile(r"(?s).+"), "")
#: a game's name as people see it in every lobby
GAME_NAME = Field("a game name", 1, 64, visible=True)
#: a chat line, after its tabs and line breaks became spaces
CHAT_TEXT = Field("a chat line", 1, MAX_CHAT, visible=True, too_long=413)
#: the name of a game option
OPTION_NAME = Field(
    "an option name",
    1,
    64,
    re.compile(r"[A-Za-z0-9_.-]+"),
    "uses only letters A-Z, digits, '_', '.' and '-'",
)
#: a text value of a game option
OPTION_TEXT = Field("an option value", 0, 1024)
#: a player's login name on the line protocols (printable ASCII, no spaces)
PLAYER_NAME = Field(
    "a login name", 1, 64, re.compile(r"[!-~]+"), "is printable ASCII without spaces"
)
#: the name a player sits at a table with (an account, a guest, a line-protocol login)
SEATED_NAME = Field("a player name", 1, 64)
#: a name or prefix searched for (players, history)
SEARCH = Field("a name to look for", 1, 64, visible=True)


def check_options(options: object) -> dict[str, Any]:
    """Game options from a client: at most :data:`MAX_OPTIONS` names
    (:data:`OPTION_NAME`) whose values are numbers, booleans, ``null``, texts
    (:data:`OPTION_TEXT`) or lists of those.  Whether the game accepts them is the
    game's to say.

    :raises FieldError: they break these rules.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise FieldError("'options' must be an object")
    if len(options) > MAX_OPTIONS:
        raise FieldError(f"at most {MAX_OPTIONS} options")
    checked = {}
    for name, value in options.items():
        OPTION_NAME.check(name)
        if isinstance(value, list | tuple):
            if len(value) > MAX_OPTIONS:
                raise FieldError(f"option {name}: at most {MAX_OPTIONS} values")
            for item in value:
                _option_value(name, item)
        else:
            _option_value(name, value)
        checked[name] = value
    return checked


def _option_value(name: str, value: object) -> None:
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FieldError(f"option {name}: a number must be finite")
        return
    if isinstance(value, str):
        try:
            OPTION_TEXT.check(value)
        except FieldError as e:
            raise FieldError(f"option {name}: {e.reason}") from None
        return
    raise FieldError(f"option {name}: a value is a number, true/false, null, a text or a list")


# -- JSON bodies --------------------------------------------------------------------------


def json_depth(body: bytes | str) -> int:
    """How deeply arrays and objects nest in the JSON text ``body`` (brackets inside
    strings do not count); a scan without recursion, for any input."""
    text = body.decode("latin-1") if isinstance(body, bytes) else body
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads(body: bytes, max_depth: int = JSON_MAX_DEPTH) -> Any:
    """Decode a JSON body from a client.

    :raises FieldError: not UTF-8 JSON, nested deeper than ``max_depth``, ``NaN`` or
        ``Infinity``, or a string (or key) that is not Unicode scalar values.
    """
    opened = body.count(b"[") + body.count(b"{")
    if opened > max_depth and json_depth(body) > max_depth:
        raise FieldError(f"the body nests arrays and objects deeper than {max_depth} levels")
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise FieldError(f"the body is not valid JSON: {e}") from None
    check_strings(value)
    return value


def check_strings(value: Any) -> None:
    """Every string in the decoded JSON ``value`` (keys too) is scalar values.

    :raises FieldError: one is not.
    """
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            texts: Any = (item,)
        elif isinstance(item, dict):
            texts = item.keys()
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
            continue
        else:
            continue
        for text in texts:
            if not is_scalar_text(text):
                raise FieldError("the body holds text that is not valid Unicode (a lone surrogate)")
