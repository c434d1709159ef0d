"""A running hub (XML and web front ends) per test module, with the kit's fixture games
dropped in after it started."""

from __future__ import annotations

import pytest

from tests.hubprocess import HubProcess

from .support import KIT_GAMES, drop, wait_loaded


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = HubProcess(
        tmp_path_factory.mktemp("hub"),
        xml="tcp:0:interface=127.0.0.1",
        web="tcp:0:interface=127.0.0.1",
    ).start()
    try:
        for name in KIT_GAMES:
            drop(running.data, name)
        wait_loaded(running, *KIT_GAMES)
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()
