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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hub.connections import fields, names

from .errors import BadName, BadPassword

#: account types and their codes on the wire (XML ``accounttype``) and in the database
TYPES = {"player": 0, "bot": 1, "admin": 2}
TYPE_NAMES = {code: name for name, code in TYPES.items()}

NAME_RE = fields.ACCOUNT_NAME.pattern
NAME_MAX = fields.ACCOUNT_NAME.maximum
#: how the web front end names its guests; no account name begins so
GUEST_PREFIX = "guest-"
PASSWORD_MIN = fields.PASSWORD.minimum
PASSWORD_MAX = fields.PASSWORD.maximum


def check_name(name: object) -> str:
    """Return ``name`` if it is a valid account name (:data:`hub.connections.fields.ACCOUNT_NAME`).

    Rules: 1–32 characters, ASCII letters, digits, ``_``, ``.`` and ``-``, starting with
    a letter or digit (names travel in line protocols, so no spaces); not beginning
    with ``guest-`` (the web's guests are named so, and an account of a guest's name
    would take the guest's seats).  Names are unique regardless of case.

    :raises hub.store.errors.BadName: with a reason a person can read.
    """
    try:
        fields.ACCOUNT_NAME.check(name)
    except fields.FieldError as e:
        raise BadName(e.reason) from None
    assert isinstance(name, str)
    if name_key(name).startswith(GUEST_PREFIX):
        raise BadName(str(names.reserved(name)))
    return name


def name_key(name: str) -> str:
    """The case-folded form names are unique by."""
    return name.lower()


def check_password(password: object) -> str:
    """Return ``password`` if it may be set as a new password
    (:data:`hub.connections.fields.PASSWORD`).

    :raises hub.store.errors.BadPassword: too short, too long or not text.
    """
    try:
        return fields.PASSWORD.check(password)
    except fields.FieldError as e:
        raise BadPassword(e.reason) from None


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
class LoginThrottle:
    """Failed logins, counted per (account, client address) and per client address.

    - Per (account, address): the first ``free_failures`` failures cost nothing; each
      further one makes that pair wait ``delay_base`` seconds, doubling each time, up
      to ``delay_max``.  Another address is not affected: the right password from a
      fresh address always gets through.
    - Per address, whatever the names (spraying many names): after
      ``address_failures`` failures the address waits the same growing delays.

    A success clears the pair's failures (not the address's).  Failures older than
    ``window`` seconds are forgotten; at most ``max_keys`` keys are kept.  ``clock``
    is anything with ``seconds()`` (the reactor, ``task.Clock`` in tests).
    """

    clock: object
    free_failures: int = 3
    delay_base: float = 1.0
    delay_max: float = 900.0
    address_failures: int = 30
    window: float = 900.0
    max_keys: int = 100_000
    #: key → [failures, time of the last failure, time from which it may try again]
    _keys: dict[str, list[float]] = field(default_factory=dict)

    @classmethod
    def from_options(cls, clock: object, options: Mapping[str, Any]) -> LoginThrottle:
        """A throttle with the hub settings ``login_*`` (docs/settings.md)."""
        d = cls(clock)
        return cls(
            clock,
            free_failures=int(options.get("login_free_failures", d.free_failures)),
            delay_base=float(options.get("login_delay_base", d.delay_base)),
            delay_max=float(options.get("login_delay_max", d.delay_max)),
            address_failures=int(options.get("login_address_failures", d.address_failures)),
            window=float(options.get("login_window", d.window)),
        )

    def _now(self) -> float:
        seconds: Callable[[], float] = self.clock.seconds  # type: ignore[attr-defined]
        return seconds()

    @staticmethod
    def _pair(name_key: str, address: str | None) -> str:
        return f"{name_key}\0{address or '-'}"

    @staticmethod
    def _address(address: str | None) -> str:
        return f"\0{address or '-'}"

    def _entry(self, key: str, now: float) -> list[float] | None:
        entry = self._keys.get(key)
        if entry is not None and now - entry[1] > max(self.window, entry[2] - entry[1]):
            del self._keys[key]
            return None
        return entry

    def wait(self, name_key: str, address: str | None) -> float:
        """Seconds until ``name_key`` may try again from ``address`` (0: now)."""
        now = self._now()
        waits = [0.0]
        for key in (self._pair(name_key, address), self._address(address)):
            entry = self._entry(key, now)
            if entry is not None:
                waits.append(entry[2] - now)
        return max(waits)

    def _delay(self, failures: float, free: int) -> float:
        if failures <= free:
            return 0.0
        return min(self.delay_max, self.delay_base * 2 ** min(failures - free - 1, 32))

    def failed(self, name_key: str, address: str | None) -> None:
        """Count one failure of ``name_key`` from ``address``."""
        now = self._now()
        for key, free in (
            (self._pair(name_key, address), self.free_failures),
            (self._address(address), self.address_failures),
        ):
            entry = self._entry(key, now) or [0.0, now, now]
            entry[0] += 1
            entry[1] = now
            entry[2] = now + self._delay(entry[0], free)
            self._keys[key] = entry
        if len(self._keys) > self.max_keys:  # bounded memory under a spraying attack
            for key in [k for k in self._keys if self._entry(k, now) is None]:
                self._keys.pop(key, None)
            while len(self._keys) > self.max_keys:
                self._keys.pop(next(iter(self._keys)))

    def succeeded(self, name_key: str, address: str | None) -> None:
        """Forget the failures of ``name_key`` from ``address``."""
        self._keys.pop(self._pair(name_key, address), None)

    def __len__(self) -> int:
        return len(self._keys)
