"""Account rules that need no database: names, types, password hashes, throttling.

Password hashes are scrypt (:func:`hashlib.scrypt`) in the form
``scrypt$<n>$<r>$<p>$<salt b64>$<hash b64>``; they are compared with
:func:`hmac.compare_digest`.  Hashing is slow on purpose, so the store runs it in a
worker thread, never on the reactor thread.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import BadName, BadPassword

#: account types and their codes on the wire (XML ``accounttype``) and in the database
TYPES = {"player": 0, "bot": 1, "admin": 2}
TYPE_NAMES = {code: name for name, code in TYPES.items()}

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
NAME_MAX = 32
PASSWORD_MIN = 4
PASSWORD_MAX = 1024


def check_name(name: object) -> str:
    """Return ``name`` if it is a valid account name.

    Rules: 1–32 characters, ASCII letters, digits, ``_``, ``.`` and ``-``, starting with
    a letter or digit (names travel in line protocols, so no spaces).  Names are unique
    regardless of case.

    :raises hub.store.errors.BadName: with a reason a person can read.
    """
    if not isinstance(name, str) or not name:
        raise BadName("an account name is required")
    if len(name) > NAME_MAX:
        raise BadName(f"an account name has at most {NAME_MAX} characters")
    if not NAME_RE.fullmatch(name):
        raise BadName(
            "an account name uses only letters A-Z, digits, '_', '.' and '-',"
            " and starts with a letter or digit"
        )
    return name


def name_key(name: str) -> str:
    """The case-folded form names are unique by."""
    return name.lower()


def check_password(password: object) -> str:
    """Return ``password`` if it may be set as a new password.

    :raises hub.store.errors.BadPassword: too short, too long or not text.
    """
    if not isinstance(password, str):
        raise BadPassword("a password is required")
    if len(password) < PASSWORD_MIN:
        raise BadPassword(f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise BadPassword(f"a password has at most {PASSWORD_MAX} characters")
    return password


def account_type(value: object) -> str:
    """``"player"``/``"bot"``/``"admin"`` or their codes 0/1/2 → the type name.

    :raises hub.model.BadAction: anything else.
    """
    if isinstance(value, str) and value in TYPES:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in TYPE_NAMES:
        return TYPE_NAMES[value]
    if isinstance(value, str) and value.isdigit() and int(value) in TYPE_NAMES:
        return TYPE_NAMES[int(value)]
    raise BadName(f"unknown account type {value!r} (player, bot or admin)")


@dataclass(frozen=True)
class ScryptParams:
    """scrypt cost parameters (the defaults cost ~16 MiB and tens of milliseconds)."""

    n: int = 2**14
    r: int = 8
    p: int = 1


def hash_password(password: str, params: ScryptParams = ScryptParams()) -> str:
    """A new salted scrypt hash of ``password`` (blocking: run it in a thread)."""
    salt = os.urandom(16)
    digest = _scrypt(password, salt, params.n, params.r, params.p)
    return "$".join(
        ["scrypt", str(params.n), str(params.r), str(params.p), _b64(salt), _b64(digest)]
    )


def verify_password(
    password: str, stored: str | None, params: ScryptParams = ScryptParams()
) -> bool:
    """Whether ``password`` matches ``stored`` (blocking: run it in a thread).

    With ``stored=None`` (no such account) it still does the full work against a dummy
    hash, so an unknown name costs as much time as a wrong password.
    """
    dummy = stored is None
    if stored is None:
        stored = "$".join(
            [
                "scrypt",
                str(params.n),
                str(params.r),
                str(params.p),
                _b64(b"\0" * 16),
                _b64(b"\0" * 32),
            ]
        )
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        expected = base64.b64decode(digest)
        actual = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected) and not dummy


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=256 * 1024 * 1024, dklen=32
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass
class Throttle:
    """Counts failed logins per key (an account name, a client address).

    After ``limit`` failures within ``window`` seconds the key is refused for
    ``lockout`` seconds.  ``clock`` is anything with ``seconds()`` (the reactor,
    ``task.Clock`` in tests).
    """

    clock: object
    limit: int = 5
    window: float = 300.0
    lockout: float = 60.0
    _failures: dict[str, list[float]] = field(default_factory=dict)
    _locked_until: dict[str, float] = field(default_factory=dict)

    def _now(self) -> float:
        seconds: Callable[[], float] = self.clock.seconds  # type: ignore[attr-defined]
        return seconds()

    def blocked(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: it may try now)."""
        until = self._locked_until.get(key)
        if until is None:
            return 0.0
        left = until - self._now()
        if left <= 0:
            del self._locked_until[key]
            self._failures.pop(key, None)
            return 0.0
        return left

    def failed(self, key: str) -> None:
        """Count one failure of ``key``."""
        now = self._now()
        recent = [t for t in self._failures.get(key, []) if now - t < self.window]
        recent.append(now)
        self._failures[key] = recent
        if len(recent) >= self.limit:
            self._locked_until[key] = now + self.lockout
        if len(self._failures) > 100_000:  # bounded memory under a name-spraying attack
            self._failures.clear()

    def succeeded(self, key: str) -> None:
        """Forget the failures of ``key``."""
        self._failures.pop(key, None)
        self._locked_until.pop(key, None)
