"""``GET /api/games`` from the index (:mod:`hub.frontends.web.listing`): paging, cursors
that survive games coming and going, filters, ETag/304 and rendering only the page.
In process: a real lobby on a task.Clock, Twisted's DummyRequest (no timing)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from twisted.internet.task import Clock
from twisted.web.test.requesthelper import DummyRequest

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.frontends.web.events import LobbyStream, Streams
from hub.frontends.web.listing import GameIndex, encode_cursor
from tests.support import DictRegistry, FakeHub


class OtherGameFactory(HelloGameFactory):
    """A second game type for the type filter."""

    name = "hello-other"


def make():
    clock = Clock()
    registry = DictRegistry([HelloGameFactory(), OtherGameFactory()], [HelloBotFactory()])
    hub = FakeHub(registry, reactor=clock)
    rendered: list[str] = []
    plain = hub.game_json

    def counting(game, detail=False):
        rendered.append(game.id)
        return plain(game, detail)

    hub.game_json = counting
    index = GameIndex(hub, lambda: [f.name for f in registry.game_types()])
    return clock, hub.lobby, index, rendered


def get(index, headers=None, **args):
    """``GET /api/games?args``: (status, games or error, response headers)."""
    request = DummyRequest([])
    request.args = {k.encode(): [str(v).encode()] for k, v in args.items()}
    request.uri = b"/api/games?" + urlencode(args).encode()
    for name, value in (headers or {}).items():
        request.requestHeaders.setRawHeaders(name.encode(), [value.encode()])
    body = index.serve(request)
    status = request.responseCode or 200
    found = {
        k.decode().lower(): v[0].decode() for k, v in request.responseHeaders.getAllRawHeaders()
    }
    return status, (json.loads(body) if body else None), found


def ids(games):
    return [g["id"] for g in games]


def walk(index, **args):
    """Every page of a query, following X-Next-Cursor (bounded)."""
    pages, cursor = [], None
    for _ in range(100):
        query = dict(args, **({"cursor": cursor} if cursor else {}))
        status, games, headers = get(index, **query)
        assert status == 200, games
        pages.append(ids(games))
        cursor = headers.get("x-next-cursor")
        if cursor is None:
            return pages
    raise AssertionError("the pages did not end")


def test_pages_in_both_orders_with_their_headers():
    _, lobby, index, _ = make()
    made = [lobby.create_game("hello", seats=["open", "open"]).id for _ in range(120)]
    pages = walk(index, limit=50)
    assert [len(p) for p in pages] == [50, 50, 20]
    assert sum(pages, []) == made
    assert sum(walk(index, limit=50, order="newest"), []) == made[::-1]
    status, games, headers = get(index, limit=50)
    assert headers["x-total-count"] == "120"
    assert headers["link"].startswith("</api/games?limit=50&cursor=")
    assert headers["link"].endswith('>; rel="next"')
    status, games, headers = get(index)  # the default page: the most, 500
    assert len(games) == 120 and "x-next-cursor" not in headers
    assert games[0] == json.loads(json.dumps(lobby.get(made[0]).to_json(), default=str)) | {
        "port": None,
        "rated": False,
    }


def test_a_cursor_neither_repeats_nor_skips_when_games_come_and_go():
    _, lobby, index, _ = make()
    made = [lobby.create_game("hello", seats=["open", "open"]).id for _ in range(30)]
    status, first, headers = get(index, limit=10)
    cursor = headers["x-next-cursor"]
    assert ids(first) == made[:10]
    lobby.remove(made[9])  # the game the cursor names
    lobby.remove(made[3])  # one already shown
    lobby.remove(made[12])  # one not shown yet
    added = [lobby.create_game("hello", seats=["open", "open"]).id for _ in range(3)]
    rest = walk(index, limit=10, cursor=cursor)
    survivors = [g for g in made[10:] if g != made[12]] + added
    assert sum(rest, []) == survivors
    # newest first: the new games are before the cursor, so the next pages do not show them
    status, top, headers = get(index, limit=5, order="newest")
    assert ids(top) == added[::-1] + [made[29], made[28]]
    lobby.create_game("hello", seats=["open", "open"])
    rest = walk(index, limit=5, order="newest", cursor=headers["x-next-cursor"])
    assert sum(rest, []) == [g for g in made[::-1][2:] if g not in (made[3], made[9], made[12])]


def test_filters_by_type_and_state_on_the_server():
    clock, lobby, index, _ = make()
    waiting = [lobby.create_game("hello", seats=["open", "open"]).id for _ in range(4)]
    other = [lobby.create_game("hello-other", seats=["open", "open"]).id for _ in range(3)]
    running = lobby.create_game("hello", seats=["open", "open"])
    running.take_seat("ann", 0)
    running.take_seat("bob", 1)
    over = lobby.create_game("hello", seats=["bot:hello-bot", "bot:hello-bot"])
    for _ in range(20):
        clock.advance(1)
    assert (running.state, over.state) == ("running", "over")
    assert ids(get(index, type="hello-other")[1]) == other
    assert ids(get(index, type="hello", state="waiting")[1]) == waiting
    assert ids(get(index, state="running")[1]) == [running.id]
    assert ids(get(index, state="over,running")[1]) == [running.id, over.id]
    assert ids(get(index, state="waiting,running", type="hello")[1]) == waiting + [running.id]
    status, games, headers = get(index, state="waiting", limit=2)
    assert ids(games) == waiting[:2] and headers["x-total-count"] == "7"
    assert "state=waiting" in headers["link"]
    rest = walk(index, state="waiting", limit=2, cursor=headers["x-next-cursor"])
    assert sum(rest, []) == waiting[2:] + other
    # a game that changes state moves between the lists
    lobby.get(waiting[0]).take_seat("cy", 0)
    lobby.get(waiting[0]).take_seat("di", 1)
    assert waiting[0] not in ids(get(index, state="waiting")[1])
    assert waiting[0] in ids(get(index, state="running")[1])
    lobby.remove(other[1])
    assert ids(get(index, type="hello-other")[1]) == [other[0], other[2]]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"limit": "0"}, "limit must be"),
        ({"limit": "501"}, "limit must be"),
        ({"limit": "ten"}, "limit must be"),
        ({"state": "sleeping"}, "state must be"),
        ({"state": "waiting,"}, "state must be"),
        ({"type": "chess"}, "no game type 'chess'"),
        ({"order": "sideways"}, "order must be"),
        ({"cursor": "!!!"}, "cursor is not"),
        ({"cursor": "x" * 40}, "cursor is not"),
        ({"cursor": encode_cursor(3, True)}, "other order"),
    ],
)
def test_bad_values_are_a_clear_400(args, words):
    _, lobby, index, _ = make()
    lobby.create_game("hello", seats=["open", "open"])
    generation = index.generation
    status, answer, headers = get(index, **args)
    assert status == 400 and words in answer["error"]
    assert "etag" not in headers and index.generation == generation


def test_etag_and_304_until_the_next_change():
    _, lobby, index, rendered = make()
    game = lobby.create_game("hello", seats=["open", "open"])
    status, games, headers = get(index)
    etag = headers["etag"]
    assert status == 200 and headers["cache-control"] == "no-cache"
    assert get(index)[2]["etag"] == etag
    for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        status, body, again = get(index, headers={"If-None-Match": sent})
        assert (status, body, again["etag"]) == (304, None, etag)
    assert get(index, headers={"If-None-Match": '"other"'})[0] == 200
    assert get(index, limit=5)[2]["etag"] != etag  # another page, another tag
    before = len(rendered)
    game.take_seat("ann", 0)
    status, games, headers = get(index, headers={"If-None-Match": etag})
    assert status == 200 and headers["etag"] != etag
    assert games[0]["seats"][0]["player"] == "ann"
    assert len(rendered) == before + 1  # only the changed game was rendered again


def test_a_page_renders_only_its_games_and_is_kept_between_changes():
    _, lobby, index, rendered = make()
    for _ in range(1000):
        lobby.create_game("hello", seats=["open", "open"])
    assert rendered == []  # nothing is rendered until asked for
    page = index.page(index.query({b"limit": [b"50"]}))
    assert len(rendered) == 50
    assert index.page(index.query({b"limit": [b"50"]})) is page
    assert len(rendered) == 50
    status, games, headers = get(index, limit=50, cursor=headers_cursor(index))
    assert len(rendered) == 100 and len(games) == 50


def headers_cursor(index) -> str:
    return get(index, limit=50)[2]["x-next-cursor"]


def test_the_lobby_stream_snapshot_is_one_page_then_changes_only():
    clock, lobby, index, _ = make()

    def snapshot(game, seat, player=None, full=False):
        return {}

    streams = Streams(index.hub, clock, snapshot)
    streams.index = index
    made = [lobby.create_game("hello", seats=["open", "open"]).id for _ in range(30)]
    clock.advance(0)  # the creations' changes went out (to no stream)
    request = DummyRequest([b"events"])
    LobbyStream(request, streams, index.query({b"limit": [b"5"], b"order": [b"newest"]}))
    text = b"".join(request.written).decode()
    data = json.loads(text.split("event: snapshot\ndata: ", 1)[1].split("\n", 1)[0])
    assert ids(data["games"]) == made[::-1][:5]
    written = len(request.written)
    lobby.get(made[0]).take_seat("ann", 0)
    clock.advance(0)
    sent = b"".join(request.written[written:]).decode()
    assert sent.count("event: game\n") == 1 and made[0] in sent


def test_a_game_that_comes_as_a_new_record_keeps_its_place():
    """A remote game of the cluster's directory is a new record with each change."""
    _, lobby, index, _ = make()
    made = [lobby.create_game("hello", seats=["open", "open"]) for _ in range(3)]

    class Record:
        def __init__(self, game, state):
            self.id, self.type, self.state, self.game = game.id, game.type, state, game
            self.frontend = game.frontend

        def to_json(self, detail=False):
            return {**self.game.to_json(), "state": self.state}

    index.lobby_changed("changed", Record(made[0], "running"))
    assert get(index, state="running")[1][0]["state"] == "running"
    assert ids(get(index)[1]) == [g.id for g in made]  # in its place
    index.lobby_changed("removed", Record(made[0], "running"))
    assert ids(get(index)[1]) == [made[1].id, made[2].id]


def test_a_polled_address_is_answered_from_memory_and_anew_after_each_change():
    """The same request URI is served from the kept answer until the lobby changes:
    a creation, a join, the start, the end and a removal each give the next poll of
    the same address the new list and a new ETag."""
    clock, lobby, index, rendered = make()
    polls = [{"limit": 5}, {"state": "waiting"}, {"state": "running"}, {"state": "over"}]
    seen: dict[str, tuple[list[str], str]] = {}

    def poll() -> dict[str, list[str]]:
        now = {}
        for args in polls:
            status, games, headers = get(index, **args)
            assert status == 200
            key = urlencode(args)
            if key in seen and seen[key][0] == ids(games):
                pass  # the same list may keep or change its tag; a changed list must not
            elif key in seen:
                assert headers["etag"] != seen[key][1], key
            seen[key] = (ids(games), headers["etag"])
            now[key] = ids(games)
        return now

    game = lobby.create_game("hello", seats=["open", "open"])
    assert poll()["state=waiting"] == [game.id]
    before = len(rendered)
    assert poll()["state=waiting"] == [game.id] and len(rendered) == before  # from memory
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)  # joined: the game starts
    lists = poll()
    assert (lists["state=waiting"], lists["state=running"]) == ([], [game.id])
    for seat in (0, 1):  # both say hello: the game ends
        game.act(seat, {"hello": "hi"})
        clock.advance(1)
    assert game.state == "over"
    lists = poll()
    assert (lists["state=running"], lists["state=over"]) == ([], [game.id])
    other = lobby.create_game("hello", seats=["open", "open"])
    assert poll()["limit=5"] == [game.id, other.id]
    lobby.remove(other.id)
    assert poll()["limit=5"] == [game.id]


def test_the_answers_kept_by_address_are_bounded():
    from hub.frontends.web.listing import CACHED_PAGES

    _, lobby, index, _ = make()
    lobby.create_game("hello", seats=["open", "open"])
    for limit in range(1, CACHED_PAGES + 40):
        assert get(index, limit=min(limit, 500), order="newest" if limit > 400 else "oldest")[0]
    assert len(index._served) <= CACHED_PAGES
