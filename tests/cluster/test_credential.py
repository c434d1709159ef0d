"""The ticket one hub of a cluster logs in with on another (hub.cluster.credential)."""

from __future__ import annotations

from hub.cluster import credential

SECRET = "ab" * 32
NOW = 1_000_000.0


def _members(host: str = "10.0.0.2", live: bool = True) -> dict:
    return {
        "hubB": {"live": live, "endpoints": {"xml": {"host": host, "port": 1}}},
        "hubA": {"live": True, "endpoints": {"xml": {"host": "10.0.0.1", "port": 1}}},
    }


def _check(given: str, **kw) -> bool:
    args = {"secret": SECRET, "me": "hubA", "members": _members(), "name": "Ann",
            "given": given, "peer": "10.0.0.2", "now": NOW}  # fmt: skip
    args.update(kw)
    return credential.check(**args)


def test_a_ticket_of_a_live_hub_for_its_account_is_trusted():
    good = credential.ticket(SECRET, "hubB", "hubA", "ann", NOW)
    assert good.startswith(credential.PREFIX)
    assert _check(good)
    assert _check(good, name="ANN")  # names are compared without case


def test_a_ticket_is_refused_for_anything_else():
    good = credential.ticket(SECRET, "hubB", "hubA", "ann", NOW)
    assert not _check(good, name="bob")  # another account
    assert not _check(good, me="hubC")  # another target
    assert not _check(good, secret="cd" * 32)  # another cluster
    assert not _check(good, secret="")  # a hub without the secret
    assert not _check(good, now=NOW + credential.TICKET_SECONDS + 1)  # expired
    assert not _check(good, peer="10.0.0.9")  # not from the issuer's address
    assert not _check(good, members=_members(live=False))  # the issuer is dead
    assert not _check(good, members={})  # no member at all
    assert not _check(good[:-1] + ("0" if good[-1] != "0" else "1"))  # forged
    assert not _check("secret-password")
    assert not _check(credential.PREFIX + "x:y")
    assert not _check(credential.ticket(SECRET, "hubA", "hubA", "ann", NOW))  # from itself
    far = credential.ticket(SECRET, "hubB", "hubA", "ann", NOW + 3600)
    assert not _check(far)  # good for longer than a ticket may be


def test_a_hub_that_advertises_a_name_is_taken_on_its_ticket():
    good = credential.ticket(SECRET, "hubB", "hubA", "ann", NOW)
    assert _check(good, members=_members(host="hub2.example.org"), peer="10.0.0.7")
    assert _check(good, members=_members(host="0.0.0.0"), peer="10.0.0.7")


def test_a_live_hubs_address_is_known_as_one():
    members = _members()
    assert credential.advertises(members["hubB"], "10.0.0.2")
    assert not credential.advertises(members["hubB"], "10.0.0.9")
    assert not credential.advertises(_members(live=False)["hubB"], "10.0.0.2")
    assert not credential.advertises(_members(host="hub2.example.org")["hubB"], "10.0.0.2")
