"""``web_access_log``: which requests get an access log line (a hub service on a
MemoryReactorClock, its web site's ``log`` called as twisted.web calls it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from twisted.internet.testing import MemoryReactorClock
from twisted.web import http
from twisted.web.test.requesthelper import DummyRequest

from hub.frontends.web import Root, WebSite
from hub.plugins.registry import Registry
from hub.service import HubService


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> HubService:
    tmp: Path = tmp_path_factory.mktemp("hub")
    reactor = MemoryReactorClock()
    return HubService(reactor, tmp, {"web": "tcp:0"}, Registry(tmp, reactor))


def site(hub: HubService, setting: str | None) -> WebSite:
    hub.options.pop("web_access_log", None)
    if setting is not None:
        hub.options["web_access_log"] = setting
    return WebSite(Root(hub))


def answered(method: bytes, code: int) -> DummyRequest:
    request = DummyRequest([b"api", b"games"])
    request.method, request.code, request.path = method, code, b"/api/games"
    return request


@pytest.mark.parametrize(
    ("setting", "logged"),
    [
        (None, [(b"POST", 201), (b"GET", 404), (b"DELETE", 409)]),
        ("changes", [(b"POST", 201), (b"GET", 404), (b"DELETE", 409)]),
        ("all", [(b"GET", 200), (b"HEAD", 304), (b"POST", 201), (b"GET", 404), (b"DELETE", 409)]),
        ("none", []),
    ],
)
def test_which_requests_get_an_access_line(hub, monkeypatch, setting, logged):
    lines: list[tuple[bytes, int]] = []
    monkeypatch.setattr(http.HTTPFactory, "log", lambda self, r: lines.append((r.method, r.code)))
    web = site(hub, setting)
    for method, code in [
        (b"GET", 200),
        (b"HEAD", 304),
        (b"POST", 201),
        (b"GET", 404),
        (b"DELETE", 409),
    ]:
        web.log(answered(method, code))
    assert lines == logged


def test_a_bad_setting_is_refused(hub):
    with pytest.raises(ValueError, match="web_access_log is one of all, changes, none"):
        site(hub, "some")
