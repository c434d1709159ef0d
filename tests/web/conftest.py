"""Fixtures of the web tests: a real hub process, a real headless Chromium."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hubprocess import HubProcess

from .pagecheck import DESKTOP, PHONE, check_page
from .plugins import install_first_legal, install_press

CHROMIUM = os.environ.get("GAMEHUB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def start_hub(tmp: Path, extra: list[str] | None = None, **frontends: str) -> HubProcess:
    """A hub with the web front end (and other ``frontends``) and the test bots;
    ``extra`` command-line arguments."""
    hub = HubProcess(tmp, **{"web": "tcp:0:interface=127.0.0.1", **frontends})
    hub.extra = list(extra or [])
    install_first_legal(hub.data)
    install_press(hub.data)
    return hub.start()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """One hub per test module."""
    running = start_hub(tmp_path_factory.mktemp("hub"))
    try:
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright; the browser tests skip without it."""
    if not Path(CHROMIUM).is_file():
        reason = f"no Chromium at {CHROMIUM}: run .ci/browser (apt-get install chromium)"
        print(reason)
        pytest.skip(reason)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright for Python is not installed (pip install '.[test]')"
        print(reason)
        pytest.skip(reason)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    """A fresh browser context (own cookies) and page, desktop sized; the test fails on
    any script error in it."""
    tab = new_page(browser)
    try:
        yield tab
    finally:
        tab.context.close()
    assert tab.js_errors == [], tab.js_errors


def new_page(browser, size=None):
    """A page in a fresh browser context (own cookies), with its script errors in
    ``js_errors``; close it with ``page.context.close()``."""
    context = browser.new_context(viewport=size or DESKTOP)
    # A bound on waits, not a speed claim: CI's two cores run the hub, bots and Chromium
    # at once, and a page under that load has been seen to take more than 15 s.
    context.set_default_timeout(45_000)
    tab = context.new_page()
    tab.js_errors = []  # type: ignore[attr-defined]
    tab.on("pageerror", lambda e: tab.js_errors.append(str(e)))  # type: ignore[attr-defined]
    return tab


def screenshot(page, name: str, both: bool = True) -> None:
    """Check the page (layout and axe-core, :func:`pagecheck.check_page`) at a desktop's
    and (``both``) a phone's size, saving ``name``-desktop.png and ``name``-phone.png."""
    check_page(page, name, sizes=(PHONE, DESKTOP) if both else (DESKTOP,))
