"""hub.connections.limits.ConnectionCap: open connections bounded per address and in all."""

from __future__ import annotations

from hub.connections.limits import ConnectionCap


def test_refuses_past_each_bound_and_counts_again_once_released():
    cap = ConnectionCap(per_address=2, total=3)
    assert cap.admit("a") is None and cap.admit("a") is None
    assert "from a (2 open)" in (cap.admit("a") or "")
    assert cap.admit("b") is None
    assert "(3 open)" in (cap.admit("c") or "")
    assert len(cap) == 3  # the refused ones were not counted
    cap.release("a")
    assert cap.admit("c") is None and len(cap) == 3
    cap.release("zzz")  # never counted: nothing changes
    assert len(cap) == 3
