"""How the peers agree on each phase of a hand, silence included.

A hand is a sequence of *phases* (a shuffle, a lock, a betting decision, the keys of a
street, the end keys...), each waiting for the message of one peer or of several
(*expected authors*).  Every peer must end each phase with the same outcome: the same
message from each author, or the same set of peers that stayed silent.  A message that
reaches only some peers (its author crashed while sending it, or sent it to some
only) and a time limit that runs out at slightly different moments must not split the
table.  :class:`Phase` decides, for one peer, with these rules:

1. When the phase's time limit runs out, a peer that lacks an author's message signs
   a *claim* naming the silent authors and sends it to every peer.  From then on it
   takes that author's message (or claim) only when another peer passes it on (an
   *echo*) and that peer has not claimed the author silent itself.
2. A peer that holds the message of an author some peer claims silent echoes it to
   that peer (when the claim comes, or when the message does), and never claims that
   author.  Nothing is taken from a peer claimed silent.
3. Authors are agreed silent (``S``) once every live peer outside ``S`` has claimed
   all of ``S``.  A peer that stays silent as a *voter* (sends neither its message
   nor a claim within a second limit) is claimed silent in turn.

So a peer that took an author's message never claims it, and a peer that claimed it
takes it afterwards only from a peer that did not claim it: no peer can decide that
an author was silent while another decides on its message (a peer that breaks these
rules is caught by the transcript hashes, :mod:`.table`).  Two different signed
messages of one author for one phase are an *equivocation*, reported to the caller
with both (the proof).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from .wire import Signed


class Added(Enum):
    """What :meth:`Phase.add_message` did with a message."""

    NEW = "new"  #: taken: the author's message for the phase
    SAME = "same"  #: a copy of the message taken before
    IGNORED = "ignored"  #: the author was claimed silent and it did not come as an echo
    LATE = "late"  #: the phase is decided already


@dataclass(frozen=True)
class Conflict:
    """Two different signed messages of one author for one phase: the proof."""

    author: int
    first: Signed
    second: Signed


@dataclass(frozen=True)
class Outcome:
    """How a phase ended: the expected authors' messages, and who was silent."""

    messages: dict[int, Signed]
    silent: frozenset[int]


class Phase:
    """One peer's view of one phase.

    :param key: the phase's place (``<hand>/<number>``).
    :param expected: the peers whose messages the phase waits for.
    :param live: every peer of the table (the voters).
    :param me: this peer's seat (``None``: an observer, which never claims).
    :param label: what the phase is (``s0``, ``a3``...), for the caller.
    """

    def __init__(
        self,
        key: str,
        expected: Iterable[int],
        live: Iterable[int],
        me: int | None,
        label: str = "",
    ) -> None:
        self.key = key
        self.label = label
        self.expected = frozenset(expected)
        self.live = frozenset(live)
        self.me = me
        self.messages: dict[int, Signed] = {}
        #: voter → its latest claim message, and the union of what it claimed silent
        self.claims: dict[int, Signed] = {}
        self.claimed: dict[int, frozenset[int]] = {}
        #: what this peer claimed silent
        self.mine: frozenset[int] = frozenset()
        self.outcome: Outcome | None = None

    # -- speech -------------------------------------------------------------------------

    def _takes(self, speaker: int, via: int) -> bool:
        """Whether speech of ``speaker`` that came from ``via`` may be taken: nothing
        comes from a peer this peer claimed silent, and a speaker it claimed silent is
        heard only through a peer that did not claim it."""
        if via in self.mine and via != self.me:
            return False
        if speaker not in self.mine:
            return True
        return via != speaker and speaker not in self.claimed.get(via, frozenset())

    def claimers_of(self, peer: int) -> list[int]:
        """The voters that claimed ``peer`` silent (to echo its speech to, once held)."""
        return sorted(v for v, silent in self.claimed.items() if peer in silent and v != self.me)

    def add_message(self, author: int, msg: Signed, via: int) -> Added | Conflict:
        """Take ``author``'s message for the phase, which came from ``via``."""
        old = self.messages.get(author)
        if old is not None:
            return Added.SAME if old.digest == msg.digest else Conflict(author, old, msg)
        if self.outcome is not None:
            return Added.LATE
        if not self._takes(author, via):
            return Added.IGNORED
        self.messages[author] = msg
        return Added.NEW

    def add_claim(self, voter: int, msg: Signed, silent: frozenset[int], via: int) -> list[Signed]:
        """Take ``voter``'s claim that ``silent`` said nothing; what to echo to it: the
        messages and claims this peer holds of those it calls silent."""
        echoes: list[Signed] = []
        if self._takes(voter, via):
            self.claims[voter] = msg
            self.claimed[voter] = self.claimed.get(voter, frozenset()) | silent
        for peer in sorted(silent):
            if peer in self.messages:
                echoes.append(self.messages[peer])
            if peer in self.claims and peer != voter:
                echoes.append(self.claims[peer])
        return echoes

    # -- time limits ----------------------------------------------------------------------

    def missing(self) -> frozenset[int]:
        """Expected authors whose message this peer lacks."""
        return self.expected - self.messages.keys()

    def expire(self) -> frozenset[int] | None:
        """The phase's limit ran out: the new claim (everything this peer now claims
        silent), or ``None`` when it has nothing new to claim."""
        return self._claim(self.missing())

    def claim(self, peers: Iterable[int]) -> frozenset[int] | None:
        """Claim ``peers`` silent now (their connection is gone), those of them this
        peer has heard nothing from; the new claim, or ``None``."""
        heard = self.messages.keys() | self.claimed.keys()
        return self._claim(frozenset(p for p in peers if p not in heard))

    def _claim(self, peers: frozenset[int]) -> frozenset[int] | None:
        if self.me is None or self.outcome is not None:
            return None
        new = self.mine | (peers - {self.me})
        if new == self.mine:
            return None
        self.mine = new
        self.claimed[self.me] = new
        return new

    def expire_voters(self) -> frozenset[int] | None:
        """The voters' limit ran out: also claim every live peer that said nothing
        (neither its message nor a claim) since; ``None``: nothing new."""
        quiet = {p for p in self.live if p not in self.messages and p not in self.claimed}
        return self._claim(self.missing() | frozenset(quiet))

    # -- the decision ---------------------------------------------------------------------

    def silent_set(self) -> frozenset[int]:
        """The peers this peer would call silent now: claimed by it (or, for an
        observer, missing) and heard from by no accepted speech."""
        if self.me is None:
            heard = self.messages.keys() | self.claimed.keys()
            claimed = frozenset().union(*self.claimed.values())
            return frozenset(p for p in self.missing() | claimed if p not in heard)
        return frozenset(p for p in self.mine if p not in self.messages and p not in self.claimed)

    def decide(self) -> Outcome | None:
        """The phase's outcome once it is agreed (then it stays decided)."""
        if self.outcome is not None:
            return self.outcome
        missing = self.missing()
        if not missing:
            self.outcome = Outcome(dict(self.messages), frozenset())
            return self.outcome
        silent = self.silent_set()
        if not silent or not missing <= silent or not self.live - silent:
            return None
        for peer in self.live - silent:
            if not silent <= self.claimed.get(peer, frozenset()):
                return None
        messages = {a: m for a, m in self.messages.items() if a not in silent}
        self.outcome = Outcome(messages, silent)
        return self.outcome
