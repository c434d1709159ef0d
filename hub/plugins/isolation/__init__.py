"""Isolated plugins: a game plugin whose games run in a worker process of their own.

The hub never imports an isolated plugin's code.  :class:`hub.plugins.isolation.host.Isolation`
decides which drop-ins are isolated (the setting ``isolate_plugins``: ``unsigned``,
``all`` or ``none``, and the per-plugin lists ``isolated_plugins`` and
``in_process_plugins``); for those the registry asks a worker to describe the factory
and gets an :class:`~hub.plugins.isolation.host.IsolatedFactory`.  Each game of it then runs in
a worker (``python -I -m hub.plugins.isolation.worker``, spawned with ``reactor.spawnProcess``)
that speaks the game seam (:class:`hub.interfaces.IGame`, the events it emits and the
clock's timers) over AMP (:mod:`hub.plugins.isolation.wire`).

The worker (:mod:`hub.plugins.isolation.sandbox`) runs in an empty temporary folder, with an
empty environment and no inherited file descriptor but its pipes, under limits of CPU
time and memory; where the kernel has Landlock it may read only Python's own files and
its copy of the plugin, write only its folder, and open no TCP connection; an audit hook
refuses (and reports) sockets, processes, ``ctypes`` and files outside those places.  A
worker that breaks a rule, crashes, or does not answer a call in time is killed and its
game ends as a timeout does; the hub goes on.
"""
