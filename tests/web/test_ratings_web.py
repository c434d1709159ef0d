"""Ratings over the web front end: a person plays a rated game in a browser session
(HTTP, no page); an account is rated under its name, a guest never is (privacy:
leaderboards show account and bot names only)."""

from __future__ import annotations

from .test_web_api import Browser, wait_until


def play_hello(person: Browser, rated: bool = True) -> str:
    status, game = person.call(
        "POST",
        "/api/games",
        {"type": "hello", "seats": ["human", "bot:hello-bot"], "sit": 0, "rated": rated},
    )
    assert status == 201 and game["rated"] is rated, game
    status, answer = person.call(
        "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "hi"}}
    )
    assert status == 200, answer

    def over() -> bool:
        return person.call("GET", f"/api/games/{game['id']}")[1]["state"] == "over"

    wait_until(over, "the hello game to end")
    return game["id"]


def test_accounts_are_rated_and_guests_never(hub) -> None:
    guest = Browser(hub)
    assert guest.start()["logged_in"] is False
    play_hello(guest)  # rated, but a guest and one bot: nobody to rank the bot against
    person = Browser(hub)
    person.start()
    assert person.call("POST", "/api/accounts", {"name": "Rita", "password": "rita-pw1"})[0] == 201
    play_hello(person, rated=False)  # casual: counts for nothing
    play_hello(person)

    def rated() -> bool:
        return bool(hub.get_json("/api/ratings/hello")["players"])

    wait_until(rated, "the rated game's ratings")
    board = hub.get_json("/api/ratings/hello")["players"]
    assert sorted((p["name"], p["kind"], p["games"]) for p in board) == [
        ("Rita", "account", 1),
        ("hello-bot", "bot", 1),
    ]
    everything = str(hub.get_json("/api/ratings/hello/history"))
    assert "guest-" not in everything and "guest-" not in str(board)
    history = hub.get_json("/api/ratings/hello/history?player=rita")["series"]
    assert [s["name"] for s in history] == ["Rita"] and len(history[0]["points"]) == 1
