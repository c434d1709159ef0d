"""Several hubs sharing one PostgreSQL database are one service; PostgreSQL is the only
coordinator (tables, row locks, advisory locks, ``LISTEN``/``NOTIFY``).  See
docs/cluster.md.

- :mod:`.service`: :class:`Cluster`, a hub's part: its member row, the watch on the
  others (a dead hub's games aborted and its tables refunded once), the view
  ``/api/health`` shows;
- :mod:`.directory`: one lobby: this hub's games written, the others' read;
- :mod:`.remote`: how another hub's game looks to this hub's front ends;
- :mod:`.notify`: the ``LISTEN`` connection the reactor watches.
- :mod:`.plugins`: one set of plugins: this hub's published, the others' fetched.

The SQL lives with the store (:mod:`hub.store.cluster`, :mod:`hub.store.plugin_index`).  A hub on SQLite is single.
"""

from .remote import RemoteGame
from .service import CLUSTER, SINGLE, Cluster

__all__ = ["CLUSTER", "SINGLE", "Cluster", "RemoteGame"]
