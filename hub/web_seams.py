"""The seams between a game and the web pages: what a game brings to be shown and
played in the browser (:class:`IWebView`, :class:`IWebAssets`) and the rules it ships
(:class:`IGameRules`).  Importable from :mod:`hub.interfaces` like every interface.
"""

from __future__ import annotations

from zope.interface import Attribute, Interface


class IWebView(Interface):
    """Lets the web front end show and play a game in the browser."""

    script: str = Attribute("Path (inside the plugin) of the page script that draws the game.")


class IWebAssets(Interface):
    """What else a game's web view brings to the pages (optional, beside
    :class:`IWebView`): the hub's own pages style and show no game."""

    styles: str | None = Attribute(
        "Path (inside the plugin) of the game's stylesheet, or ``None``."
    )
    history: str | None = Attribute(
        "Path of a script that draws the game's own panel of the history page (it"
        " registers ``HistoryPanels[key] = {title, draw(box)}``), or ``None``."
    )


class IGameRules(Interface):
    """A game factory that ships the rules of its game (optional, beside
    :class:`IGameFactory`): ``/rules/<type>`` shows them."""

    rules: str = Attribute(
        "Path (inside the plugin) of the rules as text: ``#`` headings, ``-`` list items,"
        " paragraphs between blank lines."
    )
