"""Metrics, refusal events, bans and the JSON log observer, without sockets."""

from __future__ import annotations

import io
import json

import pytest
from prometheus_client.parser import text_string_to_metric_families
from twisted.logger import Logger, globalLogPublisher
from twisted.python import usage

from hub.model import GameError
from hub.ops.admin import Bans, ban_key
from hub.ops.logs import json_observer
from hub.ops.telemetry import Telemetry, operation_name, scrub
from hub.tap import Options


def sample(telemetry: Telemetry, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(telemetry.exposition().decode()):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return 0.0


def test_front_end_counters_and_one_event_per_refusal():
    telemetry = Telemetry("9.9")
    xml = telemetry.frontend("xml")
    assert telemetry.frontend("xml") is xml
    seen: list[dict] = []
    globalLogPublisher.addObserver(seen.append)
    try:
        xml.opened()
        xml.message_in()
        xml.message_out()
        xml.message_out()
        xml.refused("429", "too many requests", "x7", "g1", "127.0.0.1")
        xml.closed()
    finally:
        globalLogPublisher.removeObserver(seen.append)
    assert sample(telemetry, "gamehub_connections_total", frontend="xml") == 1
    assert sample(telemetry, "gamehub_connections_open", frontend="xml") == 0
    assert sample(telemetry, "gamehub_messages_total", frontend="xml", direction="out") == 2
    assert sample(telemetry, "gamehub_refusals_total", frontend="xml", kind="429") == 1
    assert sample(telemetry, "gamehub_info", version="9.9") == 1
    (event,) = [e for e in seen if e.get("log_namespace") == "gamehub.refusal"]
    assert (event["frontend"], event["connection"], event["game"], event["kind"]) == (
        "xml",
        "x7",
        "g1",
        "429",
    )


def test_store_operations_are_named_by_their_method():
    class Store:
        def create_account(self):
            def txn(cur):
                return cur

            return txn

        def get_account(self):
            return lambda cur: cur

    assert operation_name(Store().create_account()) == "create_account"
    assert operation_name(Store().get_account()) == "get_account"
    assert operation_name(object()) == "query"


def test_scrub_hides_quoted_values():
    reason = "Element 'login', attribute 'password': The value 'hunter2' is not valid"
    assert "hunter2" not in scrub(reason) and "Element" in scrub(reason)


def test_bans_of_addresses_and_networks():
    bans = Bans(["192.0.2.1", ban_key("10.1.2.3/8")])
    assert bans.banned("192.0.2.1") and bans.banned("10.200.0.1")
    assert not bans.banned("192.0.2.2") and not bans.banned("") and not bans.banned("x")
    # a dual-stack listener shows IPv4 clients as ::ffff:a.b.c.d: the same bans hold
    assert bans.banned("::ffff:192.0.2.1") and bans.banned("::ffff:10.9.9.9")
    assert not bans.banned("::ffff:192.0.2.2")
    bans.remove("10.0.0.0/8")
    assert not bans.banned("10.200.0.1") and len(bans) == 1
    assert ban_key(" ::1 ") == "::1"
    # an IPv4-mapped ban is the IPv4 one it is: as wide as it looks
    assert ban_key("::ffff:0.0.0.0/96") == "0.0.0.0/0"
    assert ban_key("::ffff:10.0.0.0/104") == "10.0.0.0/8"
    assert ban_key("::ffff:192.0.2.7") == "192.0.2.7"
    with pytest.raises(GameError):
        ban_key("example.org")


def test_the_json_observer_writes_one_object_per_line_without_secrets():
    out = io.StringIO()
    log = Logger(observer=json_observer(out), namespace="test")
    log.info("user {name} logged in", name="ann", password="hunter2", api_token="t0k")
    log.error("failed: {why}", why="a\nb")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["text"] == "user ann logged in" and first["level"] == "info"
    assert first["name"] == "ann" and first["time"].endswith("+00:00")
    assert "hunter2" not in lines[0] and "t0k" not in lines[0]
    assert second["level"] == "error" and second["why"] == "a\nb"


def test_log_format_must_be_text_or_json(tmp_path):
    options = Options()
    with pytest.raises(usage.UsageError, match="--log-format"):
        options.parseOptions(["--data", str(tmp_path), "--log-format", "xml"])
    options = Options()
    options.parseOptions(["--data", str(tmp_path), "--log-format", "json"])
    assert options["log-format"] == "json"


def test_log_format_may_come_from_the_config_file(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text('log-format = "json"\n')
    options = Options()
    options.parseOptions(["--data", str(tmp_path), "--config", str(config)])
    assert options["log-format"] == "json"
