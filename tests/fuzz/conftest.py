"""The fuzz hub: one real ``twistd -n gamehub`` per module, serving the front end of the
module's ``TARGET`` (and the web front end), with the rate limits raised."""

from __future__ import annotations

import pytest

from . import common


@pytest.fixture(scope="module")
def hub(request, tmp_path_factory):
    """The running hub; nothing unhandled in its whole log at the end."""
    name = request.module.TARGET.name
    frontends = {} if name == "web" else {name: common.LOOPBACK}
    running = common.start_hub(tmp_path_factory.mktemp(f"fuzz-{name}"), **frontends)
    yield running
    running.stop()
    assert running.errors() == [], running.log()[-3000:]
