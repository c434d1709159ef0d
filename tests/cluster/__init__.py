"""Tests of a cluster of hubs on one database (``hub.cluster``)."""
