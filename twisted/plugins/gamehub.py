"""The ``twistd gamehub`` dropin: one line, the real work is in :mod:`hub.tap`."""

from twisted.application.service import ServiceMaker

gamehub = ServiceMaker(
    "Gamehub",
    "hub.tap",
    "A game server: XML poker protocol, MNM, King Domino and the web, on one reactor.",
    "gamehub",
)
