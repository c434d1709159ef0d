"""The tournaments' JSON API on a real hub: create, list, register (a person in their
session, bots and network clients), keys kept private, refusals, the event stream."""

from __future__ import annotations

from .test_web_api import Browser, Stream


def test_create_register_list_and_stream(hub):
    person = Browser(hub)
    person.start()
    status, answer = person.call(
        "POST", "/api/tournaments", {"type": "nmmorris", "format": "knockout"}
    )
    assert status == 400 and "format" in answer["error"]
    status, answer = person.call("POST", "/api/tournaments", {"type": "no-such-game"})
    assert status == 404
    status, answer = person.call(
        "POST", "/api/tournaments", {"type": "kingdomino", "format": "swiss"}
    )
    assert status == 400 and "two-player" in answer["error"]
    status, t = person.call("POST", "/api/tournaments", {
        "type": "nmmorris", "format": "swiss", "max_entrants": 4, "name": "API cup",
        "start_when_full": False, "bots": ["morris-random"],
    })  # fmt: skip
    assert status == 201 and t["state"] == "registering" and t["settings"]["max_entrants"] == 4
    tid = t["id"]
    stream = Stream(hub, f"/api/tournaments/{tid}/events")
    stream.read_until(b"event: tournament")
    # a guest cannot register themself
    status, answer = person.call("POST", f"/api/tournaments/{tid}/entries", {"kind": "account"})
    assert status == 401
    assert person.call("POST", "/api/accounts", {"name": "Tina", "password": "tina-pw-1"})[0] == 201
    status, entry = person.call("POST", f"/api/tournaments/{tid}/entries", {"kind": "account"})
    assert status == 201 and entry["name"] == "Tina" and entry["kind"] == "account"
    status, answer = person.call("POST", f"/api/tournaments/{tid}/entries", {"kind": "account"})
    assert status == 409 and "registered already" in answer["error"]
    status, client = person.call(
        "POST",
        f"/api/tournaments/{tid}/entries",
        {"kind": "client", "name": "net1", "frontend": "mnm"},
    )
    assert status == 201 and len(client["key"]) == 13
    status, answer = person.call(
        "POST", f"/api/tournaments/{tid}/entries", {"kind": "client", "name": "has space"}
    )
    assert status == 400
    one = hub.get_json(f"/api/tournaments/{tid}")
    assert [e["name"] for e in one["entries"]] == ["morris-random", "Tina", "net1"]
    assert client["key"] not in str(one) and "key" not in str(one["entries"])
    listed = hub.get_json("/api/tournaments")["tournaments"]
    assert {"id": tid, "entrants": 3, "state": "registering"}.items() <= next(
        x for x in listed if x["id"] == tid
    ).items()
    stream.read_until(b'"net1"')
    events = stream.events()
    assert [e for e, _ in events].count("tournament") >= 3  # now, and after each entry
    assert all(client["key"] not in str(data) for _, data in events)
    stream.close()
    assert hub.request("GET", "/api/tournaments/t999")[0] == 404
    assert hub.request("GET", "/api/tournaments/t999/events")[0] == 404
