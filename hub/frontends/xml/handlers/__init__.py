"""The XML front end's request handlers, one module per area.

- :mod:`.accounts`: ``accountmanagement/*``, ``authentication/*``;
- :mod:`.lobby`: the lobby listings, and the lobby's updates to logged-in connections;
- :mod:`.games`: ``game/create|delete|join|part|action|custom``;
- :mod:`.history`: ``lobby/history``;
- :mod:`.chat`: ``game/chat``, and the hub's chat lines.

A handler is a function ``(frontend, connection, request) → response element`` (or a
coroutine of one); it raises :class:`..errors.Refused` or a
:class:`hub.model.GameError` to refuse.  The front end's dispatch table
(:class:`..server.XMLFrontend`, ``_on_<request kind>``) names one per request kind;
the connection's rules (:mod:`..states`) run before it.
"""
