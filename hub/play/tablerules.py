"""A chip table's rules for its bots (:meth:`hub.play.game.GameInstance.set_table_rules`),
checked before the table is made."""

from __future__ import annotations

from typing import Any

from hub.model import BadAction

#: what a chip table's broke bots do (:meth:`GameInstance.set_table_rules`)
BROKE_BOTS = ("leave", "rebuy")
#: data {"reason": str}: the hub closes the table (nobody plays at it); game over follows
CLOSING = "closing"


def check_table_rules(seats: Any, bots_only: Any, broke_bots: Any) -> None:
    """A new table's rules for its bots (:meth:`GameInstance.set_table_rules`), checked
    before it is made: ``bots_only`` true or false (true only when every one of
    ``seats`` is a ``bot:<name>``), ``broke_bots`` one of :data:`BROKE_BOTS`.

    :raises hub.model.BadAction: (400) they are not.
    """
    if not isinstance(bots_only, bool):
        raise BadAction("'bots_only' is true (a table of bots on purpose) or false")
    if broke_bots not in BROKE_BOTS:
        raise BadAction(f"'broke_bots' is one of {', '.join(BROKE_BOTS)}")
    if bots_only and not (
        isinstance(seats, list | tuple)
        and seats
        and all(isinstance(s, str) and s.startswith("bot:") for s in seats)
    ):
        raise BadAction("'bots_only' is for tables whose every seat is a bot ('bot:<name>')")


__all__ = ["BROKE_BOTS", "CLOSING", "check_table_rules"]
