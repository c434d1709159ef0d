"""The name spaces of players no person may take (docs/privacy.md, "Reserved names").

The hub names some players itself: an in-hub bot plays as ``bot.<name>`` (its account
in the ledger), an ACPC program as ``acpc.<name>``, a browser guest as ``guest-xxxxxx``,
and admins are told apart by names such as ``admin`` (``api-token`` is the API token in
the audit log).  A person who took one of those names would take what goes with it:
every table seating ``bot:caller`` refused (409), a guest's seat and cards, a name an
operator reads as an admin's.  So no front end lets a person create an account (web,
XML) or log in to a line protocol (domino) under them, no peer joins a relayed table
under them, and tournaments enter no network client under them; the operator may create admin accounts under the admins' names (``gamehub account
create admin --type admin``; the hub makes the bots' and programs' accounts itself,
with no password), and ``gamehub doctor`` lists the accounts that took one before
this rule.
"""

from __future__ import annotations

#: what a reserved name space is: whose it is, the account type its accounts have
#: (``None``: no account may have such a name), and whether the operator may create
#: one (``gamehub account create``; the hub makes the bots' and programs' itself, with
#: no password)
Space = tuple[str, str | None, bool]

#: prefix → its name space
PREFIXES: dict[str, Space] = {
    "bot.": ("the in-hub bots'", "bot", False),
    "acpc.": ("the ACPC programs'", "bot", False),
    "guest-": ("the web's guests'", None, False),
    "admin.": ("the admins'", "admin", True),
    "admin-": ("the admins'", "admin", True),
}
#: whole names (any case) → their name space
NAMES: dict[str, Space] = {
    name: ("the admins'", "admin", True)
    for name in ("admin", "administrator", "root", "superuser", "operator", "sysop")
} | {
    "api-token": ("the API token's (the audit log's name for it)", None, False),
    "hub": ("the hub's own (its notes in transcripts)", None, False),
    "system": ("the hub's own", None, False),
}


def _found(name: str) -> tuple[Space, str] | None:
    key = name.lower()
    if key in NAMES:
        return NAMES[key], f"the name {key!r} is"
    for prefix, space in PREFIXES.items():
        if key.startswith(prefix):
            return space, f"names beginning with {prefix!r} are"
    return None


def reserved(name: str) -> str | None:
    """Why no person may take ``name`` (a sentence), or ``None`` when one may."""
    found = _found(name)
    if found is None:
        return None
    (whose, _, _), what = found
    return f"{what} {whose} (reserved)"


def operator_type(name: str) -> str | None:
    """The account type the operator may create the reserved ``name`` with
    (``admin``), or ``None`` (not reserved, or only the hub makes it)."""
    found = _found(name)
    if found is None:
        return None
    (_, kind, operator), _ = found
    return kind if operator else None


def misused(name: str, type: str, has_password: bool) -> str | None:
    """Why an existing account ``name`` of ``type`` took a reserved name, or ``None``:
    a guest's or the hub's name; a bot's or a program's name whose account is not a
    bot's or has a password (the hub makes those without one); an admin's name on an
    account that is not an admin's."""
    found = _found(name)
    if found is None:
        return None
    (whose, kind, operator), what = found
    if kind is None:
        return f"{what} {whose}"
    if kind != type:
        return f"{what} {whose}, but this account is a {type}"
    if not operator and has_password:
        return f"{what} {whose}, but this account has a password: a person made it"
    return None


__all__ = ["NAMES", "PREFIXES", "misused", "operator_type", "reserved"]
