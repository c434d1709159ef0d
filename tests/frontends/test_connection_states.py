"""The connection states of the XML, MNM, Domino, ACPC and relay front ends are tables: each is
whole (every state has a row, every move leads to a state, every state is reached),
every live state can close, and what refuses a client's request is the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hub.connections.states import check_table
from hub.frontends.acpc import states as acpc
from hub.frontends.domino import states as domino
from hub.frontends.mnm import codec as mnm_codec
from hub.frontends.mnm import states as mnm
from hub.frontends.relay import states as relay
from hub.frontends.xml import events
from hub.frontends.xml import states as xml
from hub.frontends.xml.handlers import HANDLERS
from hub.frontends.xml.server import XMLFrontend

TABLES = {
    "xml": (xml.State, xml.TRANSITIONS, xml.State.CONNECTED, xml.Input.LOST),
    "mnm": (mnm.State, mnm.TRANSITIONS, mnm.State.VERSION, mnm.Input.CLOSE),
    "domino": (domino.State, domino.TRANSITIONS, domino.State.CONNECTED, domino.Input.LOST),
    "acpc": (acpc.State, acpc.TRANSITIONS, acpc.State.CONNECTED, acpc.Input.LOST),
    "relay": (relay.State, relay.TRANSITIONS, relay.State.CONNECTED, relay.Input.LOST),
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_each_table_is_whole_and_every_state_can_close(name):
    states, table, initial, close = TABLES[name]
    assert check_table(states, table, initial) == []
    assert all(close in table[s] for s in states), name
    assert all(table[s][close] is states.CLOSED for s in states)


def test_mnm_each_client_command_is_taken_in_one_state_and_refused_in_the_others():
    for verb in mnm_codec.VERBS:
        taking = [s for s, moves in mnm.TRANSITIONS.items() if mnm.Input(verb) in moves]
        assert len(taking) == 1, verb
        for state in mnm.State:
            if state not in taking and state is not mnm.State.CLOSED:
                assert mnm.refusal(state, verb)


def test_mnm_refusals_say_what_was_expected():
    assert mnm.refusal(mnm.State.VERSION, "PLAY") == "We expected VERSION <major>.<minor>"
    assert mnm.refusal(mnm.State.IDLE, "PLAY") == "It is not your turn to PLAY"
    assert mnm.refusal(mnm.State.IDLE, "ID") == "Unexpected command ID: the server has the word"
    assert mnm.refusal(mnm.State.ACTING, "OKWAIT") == "Unexpected command OKWAIT"


def test_domino_logs_in_only_while_connected_and_plays_only_while_playing():
    table = domino.TRANSITIONS
    assert [s for s in domino.State if domino.Input.LOGIN in table[s]] == [domino.State.CONNECTED]
    assert [s for s in domino.State if domino.Input.COMMAND in table[s]] == [domino.State.PLAYING]
    assert set(domino.REFUSALS) == {domino.Input.LOGIN, domino.Input.COMMAND}


def test_xml_every_request_kind_has_an_area_and_one_handler():
    assert set(xml.AREAS) == set(events.REQUESTS)
    assert set(HANDLERS) == set(events.REQUESTS)
    assert all(callable(handler) for handler in HANDLERS.values())
    # dispatch is the table: no handler is named on the front end's class
    assert not [name for name in vars(XMLFrontend) if name.startswith("_on_")]


def test_xml_no_module_imports_the_server_but_the_package():
    """Handlers, sessions, connections, relays and the protocol get a narrow context
    (``context.py``): the dispatch table does not tie them to ``server.py``."""
    folder = Path(xml.__file__).parent
    importing = sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*.py")
        if re.search(
            r"^\s*(from \.+server import|from hub\.frontends\.xml\.server import"
            r"|from \. import .*\bserver\b)",
            p.read_text(encoding="utf-8"),
            re.M,
        )
    )
    assert importing == ["__init__.py"]


def test_xml_the_states_that_read_requests_have_rules_for_every_area():
    assert set(xml.RULES) == {xml.State.CONNECTED, xml.State.LOGGED_IN}
    for rules in xml.RULES.values():
        assert set(rules) == set(xml.Area) and all(rules.values())


def test_acpc_takes_the_version_only_while_connected_and_replies_only_after_it():
    table = acpc.TRANSITIONS
    assert [s for s in acpc.State if acpc.Input.VERSION in table[s]] == [acpc.State.CONNECTED]
    replying = [s for s in acpc.State if acpc.Input.REPLY in table[s]]
    assert replying == [acpc.State.READY, acpc.State.PLAYING]
    assert set(acpc.REFUSALS) == {acpc.Input.VERSION, acpc.Input.REPLY}


def test_relay_joins_in_two_steps_and_passes_frames_only_once_joined():
    table = relay.TRANSITIONS
    assert [s for s in relay.State if relay.Input.JOIN in table[s]] == [relay.State.CONNECTED]
    assert [s for s in relay.State if relay.Input.AUTH in table[s]] == [relay.State.CHALLENGED]
    assert [s for s in relay.State if relay.Input.SEND in table[s]] == [relay.State.JOINED]
    assert set(relay.REFUSALS) == {relay.Input.JOIN, relay.Input.AUTH, relay.Input.SEND}
