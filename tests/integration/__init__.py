"""Integration tests: a real hub on real loopback sockets."""
