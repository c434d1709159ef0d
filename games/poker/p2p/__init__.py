"""Peer-to-peer fixed-limit hold'em with no trusted dealer (``gamehub p2p``, docs/p2p.md).

The peers deal among themselves with mental poker and play on the hub's own engine
(:mod:`games.poker.rules`); a hub may relay them and show their table
(:mod:`games.poker.mirror`, ``hub/frontends/relay``).  By what each module does:

- :mod:`.group`: the commutative cipher (the prime-order subgroup of Ed25519, PyNaCl);
- :mod:`.deck`: a hand's deal (shuffle and lock passes, opening, the end-of-hand check);
- :mod:`.wire`: signed canonical messages and their frames; :mod:`.seal`: the table key;
- :mod:`.params`, :mod:`.gather`: the table's parameters, agreeing on a table;
- :mod:`.agree`: agreeing on each phase of a hand, silence included;
- :mod:`.hand`: a hand on the engine (played on positions, then on cards);
- :mod:`.base`, :mod:`.phases`, :mod:`.dealing`, :mod:`.table`: one peer's table, no I/O;
- :mod:`.history`: checking a hand from a peer's history, as a third party would;
- :mod:`.net`: links, gossip and the hub's relay on Twisted; :mod:`.players`: bots, a
  person at the terminal, what a person reads; :mod:`.cli`: ``gamehub p2p``.
"""
