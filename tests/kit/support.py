"""Dropping the kit's fixture games (``tests/plugins/fixtures/nim``, ``noughts``: a
package folder and its ``.meta``) into a running hub, and playing them over XML."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from twisted.internet import defer, reactor

from hub.client import HubClient
from hub.kit import Json
from tests.hubprocess import HubProcess
from tests.support import wait_until

#: seconds any single wait of an XML client may take
LIMIT = 15.0

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures"
KIT_GAMES = ("nim", "noughts")


def drop(data: Path, name: str, source: Path = FIXTURES, meta: str | None = None) -> None:
    """Copy the package folder ``name`` first, then its ``.meta`` (``meta``, default
    ``<name>.meta``), into ``<data>/plugins``, as an operator drops a plugin into a
    running hub."""
    plugins = data / "plugins"
    shutil.copytree(source / name, plugins / name, ignore=shutil.ignore_patterns("__pycache__"))
    (plugins / "meta").mkdir(parents=True, exist_ok=True)
    meta = meta or f"{name}.meta"
    shutil.copyfile(source / meta, plugins / "meta" / meta)


def wait_loaded(hub: HubProcess, *names: str) -> None:
    def loaded() -> bool:
        index = {p["name"]: p for p in hub.get_json("/plugins/index.json")["plugins"]}
        return all(index.get(n, {}).get("status") == "loaded" for n in names)

    wait_until(loaded, f"{', '.join(names)} loaded", 10.0)


def payload_json(update) -> tuple[str, Json]:
    """``(kind, data)`` of a kit game's XML payload: an event's kind, or ``view``."""
    payload = update.payload
    kind = payload.get("kind") if payload.tag == "event" else payload.tag
    return kind, json.loads(payload.text or "null")


def move_payload(move: Json) -> str:
    """The ``game/action`` parameters of a kit move."""
    return f"<action>{json.dumps({'move': move})}</action>"


def bounded(d: defer.Deferred) -> defer.Deferred:
    return d.addTimeout(LIMIT, reactor)


async def player(hub: HubProcess, name: str) -> HubClient:
    """An XML client logged in with a new account ``name``."""
    client = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]))
    await bounded(client.create_account(name, name + "-secret"))
    await bounded(client.login(name, name + "-secret"))
    return client
